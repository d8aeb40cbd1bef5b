//! `CREATE EXTENSION uuidkit` makes exactly the documented functions, in the
//! schema `uuidkit`, each with the volatility, strictness and parallel
//! safety that is true of it.

use uuidkit_pg_tests::{Scope, Server};

/// Every function: identity arguments, result, volatility (`i`mmutable,
/// `s`table, `v`olatile), strict (pgrx marks functions without arguments
/// strict too, which changes nothing for them), parallel (`s`afe,
/// `r`estricted).
const FUNCTIONS: &[(&str, &str, char, bool, char)] = &[
    (
        "extract_timestamp(id uuid)",
        "timestamp with time zone",
        'i',
        true,
        's',
    ),
    (
        "extract_timestamp(id uuid, sub_millisecond boolean)",
        "timestamp with time zone",
        'i',
        true,
        's',
    ),
    ("extract_version(id uuid)", "smallint", 'i', true, 's'),
    (
        "facade_decode(id uuid, key bytea, mode text)",
        "uuid",
        'i',
        true,
        's',
    ),
    (
        "facade_encode(id uuid, key bytea, mode text)",
        "uuid",
        'i',
        true,
        's',
    ),
    ("from_base32(text text)", "uuid", 'i', true, 's'),
    ("from_base32hex(text text)", "uuid", 'i', true, 's'),
    ("from_base58(text text)", "uuid", 'i', true, 's'),
    ("from_base64url(text text)", "uuid", 'i', true, 's'),
    ("from_bytea(bytes bytea)", "uuid", 'i', true, 's'),
    ("from_typeid(text text)", "uuid", 'i', true, 's'),
    (
        "from_typeid(text text, prefix text)",
        "uuid",
        'i',
        true,
        's',
    ),
    ("from_ulid(text text)", "uuid", 'i', true, 's'),
    ("gen_ulid()", "uuidkit.ulid", 'v', true, 'r'),
    ("namespace(name text)", "uuid", 'i', true, 's'),
    ("snowflake(layout text)", "bigint", 'v', true, 'r'),
    ("to_base32(id uuid)", "text", 'i', true, 's'),
    ("to_base32hex(id uuid)", "text", 'i', true, 's'),
    ("to_base58(id uuid)", "text", 'i', true, 's'),
    ("to_base64url(id uuid)", "text", 'i', true, 's'),
    ("to_bytea(id uuid)", "bytea", 'i', true, 's'),
    ("to_typeid(prefix text, id uuid)", "text", 'i', true, 's'),
    ("to_ulid(id uuid)", "text", 'i', true, 's'),
    ("typeid_prefix(text text)", "text", 'i', true, 's'),
    (
        "ulid_cmp(uuidkit.ulid, uuidkit.ulid)",
        "integer",
        'i',
        true,
        's',
    ),
    (
        "ulid_eq(uuidkit.ulid, uuidkit.ulid)",
        "boolean",
        'i',
        true,
        's',
    ),
    (
        "ulid_ge(uuidkit.ulid, uuidkit.ulid)",
        "boolean",
        'i',
        true,
        's',
    ),
    (
        "ulid_gt(uuidkit.ulid, uuidkit.ulid)",
        "boolean",
        'i',
        true,
        's',
    ),
    ("ulid_hash(uuidkit.ulid)", "integer", 'i', true, 's'),
    (
        "ulid_hash_extended(uuidkit.ulid, bigint)",
        "bigint",
        'i',
        true,
        's',
    ),
    ("ulid_in(cstring)", "uuidkit.ulid", 'i', true, 's'),
    (
        "ulid_le(uuidkit.ulid, uuidkit.ulid)",
        "boolean",
        'i',
        true,
        's',
    ),
    (
        "ulid_lower(start timestamp with time zone)",
        "uuidkit.ulid",
        'i',
        true,
        's',
    ),
    (
        "ulid_lt(uuidkit.ulid, uuidkit.ulid)",
        "boolean",
        'i',
        true,
        's',
    ),
    (
        "ulid_ne(uuidkit.ulid, uuidkit.ulid)",
        "boolean",
        'i',
        true,
        's',
    ),
    ("ulid_out(uuidkit.ulid)", "cstring", 'i', true, 's'),
    ("ulid_recv(internal)", "uuidkit.ulid", 'i', true, 's'),
    ("ulid_send(uuidkit.ulid)", "bytea", 'i', true, 's'),
    ("ulid_sortsupport(internal)", "void", 'i', true, 's'),
    (
        "ulid_timestamp(id uuidkit.ulid)",
        "timestamp with time zone",
        'i',
        true,
        's',
    ),
    (
        "ulid_upper(\"end\" timestamp with time zone)",
        "uuidkit.ulid",
        'i',
        true,
        's',
    ),
    ("v1_to_v6(id uuid)", "uuid", 'i', true, 's'),
    ("v3(namespace uuid, name text)", "uuid", 'i', true, 's'),
    ("v4()", "uuid", 'v', true, 's'),
    ("v5(namespace uuid, name text)", "uuid", 'i', true, 's'),
    ("v6()", "uuid", 'v', true, 'r'),
    ("v6_to_v1(id uuid)", "uuid", 'i', true, 's'),
    ("v7()", "uuid", 'v', true, 'r'),
    ("v7(at timestamp with time zone)", "uuid", 'v', true, 's'),
    ("v7(shift interval)", "uuid", 'v', true, 'r'),
    (
        "v7_lower(start timestamp with time zone)",
        "uuid",
        'i',
        true,
        's',
    ),
    ("v7_scope()", "text", 's', true, 's'),
    (
        "v7_upper(\"end\" timestamp with time zone)",
        "uuid",
        'i',
        true,
        's',
    ),
    (
        "v8_sha256(namespace uuid, name text)",
        "uuid",
        'i',
        true,
        's',
    ),
];

#[test]
fn every_function_is_in_the_uuidkit_schema_with_its_attributes() {
    let name = "every_function_is_in_the_uuidkit_schema_with_its_attributes";
    let Some(server) = Server::for_test(name, Scope::Backend) else {
        return;
    };
    let mut c = server.client();
    let rows = c
        .query(
            "SELECT * FROM (
               SELECT p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ')' AS f,
                      pg_get_function_result(p.oid), p.provolatile::text, p.proisstrict,
                      p.proparallel::text
               FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
               WHERE n.nspname = 'uuidkit') s
             ORDER BY f COLLATE \"C\"",
            &[],
        )
        .unwrap();
    let got: Vec<(String, String, char, bool, char)> = rows
        .iter()
        .map(|r| {
            let ch = |i: usize| r.get::<_, String>(i).chars().next().unwrap();
            (r.get(0), r.get(1), ch(2), r.get(3), ch(4))
        })
        .collect();
    let want: Vec<(String, String, char, bool, char)> = FUNCTIONS
        .iter()
        .map(|&(f, r, v, s, p)| (f.to_string(), r.to_string(), v, s, p))
        .collect();
    assert_eq!(got, want);

    // Everything the extension made belongs to it, and nothing is in `public`.
    let members = c
        .query_one(
            "SELECT count(*) FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid
             WHERE e.extname = 'uuidkit' AND d.deptype = 'e' AND d.classid = 'pg_proc'::regclass",
            &[],
        )
        .unwrap()
        .get::<_, i64>(0);
    assert_eq!(members, FUNCTIONS.len() as i64);
    let in_public = c
        .query_one(
            "SELECT count(*) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
             WHERE n.nspname = 'public'",
            &[],
        )
        .unwrap()
        .get::<_, i64>(0);
    assert_eq!(in_public, 0);
    let row = c
        .query_one(
            "SELECT e.extversion, n.nspname, e.extrelocatable FROM pg_extension e
             JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'uuidkit'",
            &[],
        )
        .unwrap();
    assert_eq!(row.get::<_, &str>(0), "0.2.0");
    assert_eq!(row.get::<_, &str>(1), "uuidkit");
    assert!(!row.get::<_, bool>(2));
}

#[test]
fn drop_extension_removes_the_schema_contents_and_it_can_be_created_again() {
    let name = "drop_extension_removes_the_schema_contents_and_it_can_be_created_again";
    let Some(server) = Server::for_test(name, Scope::Backend) else {
        return;
    };
    let pg = server.postgres();
    pg.query("DROP EXTENSION uuidkit").unwrap();
    let err = pg.query("SELECT uuidkit.v4()").unwrap_err();
    assert!(err.contains("does not exist"), "{err}");
    pg.query("CREATE EXTENSION uuidkit").unwrap();
    assert_eq!(
        pg.query("SELECT uuidkit.to_base58('00000000-0000-0000-0000-000000000000')")
            .unwrap(),
        "1111111111111111111111"
    );
}
