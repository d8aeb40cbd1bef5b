//! The pure-SQL edition (`crates/uuidkit-pg/pure/uuidkit_pure.sql`): installed by a role that is not a
//! superuser, with `psql -f` and as an extension whose script runs as that role (what `pg_tle` does with it), and
//! differential against the C edition in one server: both editions side by side (schemas `uuidkit` and
//! `uuidkit_sql`), every shared function on [`N`] random inputs plus edge values, the same results, and for inputs
//! a function refuses the same SQLSTATE and message. The shared functions are the catalog's
//! ([`uuidkit_pg_tests::pure::shared`]), and every immutable one must be compared by a check; the generators, whose
//! results are random, are checked for their layouts and order instead.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use test_support::db::Postgres;
use uuidkit_pg_tests::postgres::Client;
use uuidkit_pg_tests::pure::{SOURCE as PURE, Shared, called, in_schema, shared};
use uuidkit_pg_tests::{package, scalar, sql_error};

/// Random inputs per function.
const N: i64 = 100_000;

/// A copy of the extension's package with the pure edition added as the extension `uuidkit_pure`
/// (`superuser = false`: its script runs as the role that creates it, as `pg_tle`'s do); removed on drop.
struct Package(PathBuf);

impl Drop for Package {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_tree(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

fn with_pure_extension(test: &str) -> Result<Package, String> {
    let from = package()?;
    let dir = std::env::temp_dir().join(format!("uuidkit-pure-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let pkg = Package(dir);
    copy_tree(&from, &pkg.0).map_err(|e| format!("cannot copy {}: {e}", from.display()))?;
    let share = Postgres::pg_config("--sharedir")?;
    let ext = pkg
        .0
        .join(share.components().skip(1).collect::<PathBuf>())
        .join("extension");
    let control = "comment = 'uuidkit, the pure-SQL edition'\ndefault_version = '1.0'\n\
                   relocatable = false\nsuperuser = false\ntrusted = false\n";
    std::fs::write(ext.join("uuidkit_pure.control"), control).map_err(|e| e.to_string())?;
    std::fs::write(ext.join("uuidkit_pure--1.0.sql"), PURE).map_err(|e| e.to_string())?;
    Ok(pkg)
}

/// A server with both editions' files installed, or `None` after recording the skip.
fn server(test: &str) -> Option<(Package, Postgres)> {
    let started = with_pure_extension(test)
        .and_then(|pkg| Postgres::start_with_package(&pkg.0, &[]).map(|pg| (pkg, pg)));
    started.map_err(|e| test_support::skip(test, e)).ok()
}

fn connect(pg: &Postgres, user: &str, database: &str) -> Client {
    let url = pg.url().replacen(
        "postgresql://postgres@",
        &format!("postgresql://{user}@"),
        1,
    );
    let url = format!(
        "{}/{database}",
        url.rsplit_once('/').map_or(url.as_str(), |p| p.0)
    );
    Client::connect(&url, uuidkit_pg_tests::postgres::NoTls)
        .unwrap_or_else(|e| panic!("cannot connect to {url}: {e}"))
}

/// The file as the script of an extension with `superuser = false`, created by a role that is not a superuser:
/// every object is a member, and DROP EXTENSION removes all.
fn installs_as_an_extension(pg: &Postgres) {
    let mut tle = connect(pg, "app", "tle");
    tle.batch_execute("CREATE EXTENSION uuidkit_pure").unwrap();
    let (functions, members): (i64, i64) = {
        let row = tle
            .query_one(
                "SELECT count(*), count(*) FILTER (WHERE EXISTS (SELECT FROM pg_depend d \
                 WHERE d.objid = p.oid AND d.deptype = 'e')) FROM pg_proc p \
                 WHERE pronamespace = 'uuidkit'::regnamespace",
                &[],
            )
            .unwrap();
        (row.get(0), row.get(1))
    };
    assert!(functions > 40, "{functions}");
    assert_eq!(members, functions);
    let id: String = scalar(
        &mut tle,
        "SELECT uuidkit.from_ulid('01ARZ3NDEKTSV4RRFFQ69G5FAV')::text",
    );
    assert_eq!(id, "01563e3a-b5d3-d676-4c61-efb99302bd5b");
    tle.batch_execute("DROP EXTENSION uuidkit_pure").unwrap();
    let left: i64 = scalar(
        &mut tle,
        "SELECT count(*) FROM pg_namespace WHERE nspname = 'uuidkit'",
    );
    assert_eq!(left, 0);
}

#[test]
fn pure_edition_installs_without_a_superuser_by_psql_and_as_an_extension() {
    let name = "pure_edition_installs_without_a_superuser_by_psql_and_as_an_extension";
    let Some((_pkg, pg)) = server(name) else {
        return;
    };
    let mut root = connect(&pg, "postgres", "postgres");
    for sql in [
        "CREATE ROLE app LOGIN NOSUPERUSER",
        "CREATE DATABASE plain OWNER app",
        "CREATE DATABASE tle OWNER app",
    ] {
        root.batch_execute(sql).unwrap();
    }
    // What pg_tle's install_extension takes as the script: no psql meta-command, no transaction control, no
    // text that would end a `$_pgtle_$` quote.
    assert!(!PURE.contains("$_pgtle_$"));
    for line in PURE.lines() {
        let word = line.trim_start().to_ascii_uppercase();
        assert!(!line.starts_with('\\'), "a psql meta-command: {line}");
        for tc in ["BEGIN;", "COMMIT;", "ROLLBACK;", "START TRANSACTION"] {
            assert!(!word.starts_with(tc), "transaction control: {line}");
        }
    }
    // psql -f, as a role with CREATE on the database only; twice (a reinstall replaces in place).
    let file = _pkg.0.join("uuidkit_pure.sql");
    std::fs::write(&file, PURE).unwrap();
    let psql = Postgres::pg_config("--bindir").unwrap().join("psql");
    let url = format!(
        "{}/plain",
        pg.url()
            .replacen("postgresql://postgres@", "postgresql://app@", 1)
            .rsplit_once('/')
            .unwrap()
            .0
    );
    for _ in 0..2 {
        let out = std::process::Command::new(&psql)
            .args(["-X", "-q", "-v", "ON_ERROR_STOP=1", "-1", "-f"])
            .arg(&file)
            .arg(&url)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "psql -f: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let mut app = connect(&pg, "app", "plain");
    let is_super: bool = scalar(
        &mut app,
        "SELECT rolsuper FROM pg_roles WHERE rolname = current_user",
    );
    assert!(!is_super);
    let text: String = scalar(
        &mut app,
        "SELECT uuidkit.to_base58('01890a5d-ac96-774b-bcce-b302099a8057')",
    );
    assert_eq!(text, "1BzmjTFLHWXwiSK4y3H5iW");
    let owners: String = scalar(
        &mut app,
        "SELECT string_agg(DISTINCT pg_get_userbyid(proowner), ',') FROM pg_proc \
         WHERE pronamespace = 'uuidkit'::regnamespace",
    );
    assert_eq!(owners, "app");
    // v5 needs pgcrypto: a clear error without it, RFC 9562's value with it.
    let (code, message) = sql_error(
        &mut app,
        "SELECT uuidkit.v5(uuidkit.namespace('dns'), 'www.example.com')",
    );
    assert_eq!(code, "55000");
    assert!(
        message.contains("needs the pgcrypto extension"),
        "{message}"
    );
    // pgcrypto is a trusted extension: the same role installs it, in a schema of its own.
    app.batch_execute("CREATE SCHEMA crypto; CREATE EXTENSION pgcrypto SCHEMA crypto")
        .unwrap();
    let v5: String = scalar(
        &mut app,
        "SELECT uuidkit.v5(uuidkit.namespace('dns'), 'www.example.com')::text",
    );
    assert_eq!(v5, "2ed6657d-e927-568b-95e1-2665a8aea6a2");

    installs_as_an_extension(&pg);
}

/// One differential check: `native` and `pure` (SQL over the row's columns) on every row of `from`; returns the
/// row count, after asserting that no row differs.
fn same(c: &mut Client, what: &str, from: &str, native: &str, pure: &str) -> i64 {
    let sql = format!(
        "SELECT count(*), count(*) FILTER (WHERE n IS DISTINCT FROM p), \
         coalesce((array_agg(format('%s => %s | %s', x, n, p)) FILTER (WHERE n IS DISTINCT FROM p))[1:5]::text, '') \
         FROM (SELECT x::text AS x, ({native})::text AS n, ({pure})::text AS p FROM {from}) AS s"
    );
    let row = c
        .query_one(&sql, &[])
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    let (rows, differ, sample): (i64, i64, String) = (row.get(0), row.get(1), row.get(2));
    assert_eq!(
        differ, 0,
        "{what}: {differ} of {rows} differ, e.g. {sample}"
    );
    rows
}

/// `schema.call` as text, or `ERROR sqlstate: message` for an error: one wrapper per edition and function, made
/// in the schema `diff`.
fn wrap(c: &mut Client, name: &str, params: &str, call: &str) {
    for schema in ["uuidkit", "uuidkit_sql"] {
        c.batch_execute(&format!(
            "CREATE FUNCTION diff.{name}_{schema}({params}) RETURNS text LANGUAGE plpgsql AS $w$ \
             BEGIN RETURN ({schema}.{call})::text; \
             EXCEPTION WHEN OTHERS THEN RETURN 'ERROR ' || SQLSTATE || ': ' || SQLERRM; END $w$"
        ))
        .unwrap_or_else(|e| panic!("wrapper {name}: {e}"));
    }
}

/// The inputs: random UUIDs of every version and variant (a third made RFC 9562 v1, v6 or v7); texts of every
/// form, valid, with one character replaced (by any character, including every edge of the escaped ranges),
/// cut, lengthened, or random; times across and beyond v7's range; names of random characters; prefixes.
const INPUTS: &str = r"
SELECT setseed(0.4318);
CREATE SCHEMA diff;
CREATE TABLE diff.cps AS
    SELECT array_agg(cp) AS cps FROM (
        SELECT generate_series(1, 127) AS cp
        UNION ALL SELECT unnest(ARRAY[lower(r) - 1, lower(r), upper(r) - 1, upper(r)])
            FROM unnest(uuidkit_sql._escaped()) AS r
        UNION ALL SELECT 128 + (random() * 1114000)::int FROM generate_series(1, 2000)
    ) AS s WHERE cp BETWEEN 1 AND 1114111 AND cp NOT BETWEEN 55296 AND 57343;
DO $do$ BEGIN
    EXECUTE (SELECT format('CREATE FUNCTION diff.ch() RETURNS text LANGUAGE sql VOLATILE AS %L',
        format('SELECT chr((%L::int[])[1 + (random() * %s)::int])', cps, cardinality(cps) - 1)) FROM diff.cps);
END $do$;
CREATE FUNCTION diff.word(n int) RETURNS text LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    out text := '';
BEGIN
    FOR i IN 1 .. n LOOP
        out := out || diff.ch();
    END LOOP;
    RETURN out;
END $$;
CREATE FUNCTION diff.mutate(t text) RETURNS text LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    n int := length(t);
    k int := CASE WHEN n = 0 THEN 5 ELSE (random() * 5)::int END;
BEGIN
    CASE k
        WHEN 0 THEN RETURN t;
        WHEN 1 THEN RETURN overlay(t PLACING diff.ch() FROM 1 + (random() * (n - 1))::int FOR 1);
        WHEN 2 THEN RETURN left(t, (random() * n)::int);
        WHEN 3 THEN RETURN t || diff.ch();
        WHEN 4 THEN RETURN overlay(t PLACING diff.ch() FROM n FOR 1);
        ELSE RETURN diff.word((random() * 30)::int);
    END CASE;
END $$;
CREATE TABLE diff.u AS
    SELECT CASE WHEN i % 3 = 0
        THEN (substr(h, 1, 12) || (ARRAY['1', '6', '7'])[1 + (i / 3) % 3] || substr(h, 14, 3)
              || substr('89ab', 1 + (random() * 3)::int, 1) || substr(h, 18))::uuid
        ELSE h::uuid END AS x
    FROM (SELECT i, md5(random()::text || i) AS h FROM generate_series(1, NROWS) AS i) AS s
    UNION ALL
    SELECT (repeat(f, 12) || b6 || f || f || b8 || repeat(f, 14))::uuid
    FROM unnest(ARRAY['0', 'f']) AS f,
        unnest(ARRAY['00', '0f', '10', '1f', '20', '3f', '40', '5f', '60', '6f', '70', '7f', '80', '8f', '90', 'ff'])
            AS b6,
        unnest(ARRAY['00', '7f', '80', 'bf', 'c0', 'df', 'e0', 'ff']) AS b8;
CREATE TABLE diff.texts AS
    SELECT form, (random() * 40)::int AS pick, diff.mutate(CASE form
        WHEN 'base58' THEN uuidkit.to_base58(x) WHEN 'base32' THEN uuidkit.to_base32(x)
        WHEN 'ulid' THEN lower(uuidkit.to_ulid(x)) WHEN 'base32hex' THEN uuidkit.to_base32hex(x)
        WHEN 'base64url' THEN uuidkit.to_base64url(x)
        ELSE uuidkit.to_typeid((ARRAY['user', '', 'a_b', 'x'])[1 + (random() * 3)::int], x) END) AS x
    FROM diff.u, unnest(ARRAY['base58', 'base32', 'ulid', 'base32hex', 'base64url', 'typeid']) AS form;
INSERT INTO diff.texts SELECT form, 0, x FROM unnest(ARRAY['base58', 'base32', 'ulid', 'base32hex', 'base64url',
    'typeid']) AS form, unnest(ARRAY['', ' ', '_', 'user_', '_01h455vb4pex5vsknk084sn02q', 'zzzzzzzzzzzzzzzzzzzzzz',
    'YcVfxkQb6JRzqk5kF2tNLv', 'YcVfxkQb6JRzqk5kF2tNLw', '1111111111111111111111', '8ZZZZZZZZZZZZZZZZZZZZZZZZZ',
    '7ZZZZZZZZZZZZZZZZZZZZZZZZZ', 'VVVVVVVVVVVVVVVVVVVVVVVVVS', 'VVVVVVVVVVVVVVVVVVVVVVVVVT', '__________________________',
    '______________________', repeat('a', 64) || '_01h455vb4pex5vsknk084sn02q', repeat('a', 63) || '_01h455vb4pex5vsknk084sn02q',
    'a__b_01h455vb4pex5vsknk084sn02q', 'ab__01h455vb4pex5vsknk084sn02q', 'ünïcödé_01h455vb4pex5vsknk084sn02q',
    repeat('1', 10000), 'user_' || repeat('é', 13), 'é' || repeat('1', 20), E'\t7R3N7TWZFC278AES80M34HWTZ',
    '01890a5d-ac96-774b-bcce-b302099a8057', '-_-_-_-_-_-_-_-_-_-_-w', '////////////////////////']) AS x;
CREATE INDEX ON diff.texts (form);
CREATE TABLE diff.ts AS
    SELECT timestamptz '1970-01-01 00:00:00+00' + (random() * 400000000000 - 50000000000) * interval '1 second'
        + (random() * 1000000)::int * interval '1 microsecond' AS x
    FROM generate_series(1, NROWS)
    UNION ALL SELECT unnest(ARRAY['1970-01-01 00:00:00+00', '1969-12-31 23:59:59.999999+00',
        '1969-12-31 23:59:59.9995+00', '1969-12-31 23:59:59.999+00', '1970-01-01 00:00:00.000001+00',
        '1970-01-01 00:00:00.000999+00', '1970-01-01 00:00:00.001+00', '10889-08-02 05:31:50.655+00',
        '10889-08-02 05:31:50.655001+00', '10889-08-02 05:31:50.655999+00', '10889-08-02 05:31:50.656+00',
        'infinity', '-infinity', '4713-01-01 00:00:00+00 BC', '294276-12-31 23:59:59.999999+00',
        '2022-02-22 19:22:22+00', '2022-02-22 14:22:22.9999-05']::timestamptz[]);
CREATE TABLE diff.names AS
    SELECT CASE WHEN i % 2 = 0 THEN x ELSE uuidkit.namespace((ARRAY['dns', 'url', 'oid', 'x500'])[(1 + i % 4)::int]) END AS ns,
        diff.word((random() * 40)::int + (i % 2)::int) AS name
    FROM (SELECT row_number() OVER () AS i, x FROM diff.u LIMIT NROWS) AS s
    UNION ALL SELECT uuidkit.namespace('dns'), unnest(ARRAY['', 'www.example.com', repeat('x', 100000)]);
CREATE TABLE diff.prefixes AS
    SELECT diff.mutate((ARRAY['user', 'a', 'a_b', 'ab', repeat('a', 63), repeat('z', 64), 'Ab', 'a_', '_a', 'a__b',
        'é', ''])[1 + (random() * 11)::int]) AS x FROM generate_series(1, NROWS);
CREATE TABLE diff.bytes AS
    SELECT decode(repeat(md5(random()::text), 2), 'hex') AS b, (random() * 20)::int AS n FROM generate_series(1, NROWS);
";

/// The checks (what, inputs, the C edition's expression, the pure edition's), with the wrappers they use made.
fn plan_checks(c: &mut Client) -> Vec<[String; 4]> {
    let mut plan: Vec<[String; 4]> = Vec::new();
    let mut check = |_: &mut Client, what: &str, from: &str, native: &str, pure: &str| {
        plan.push([what, from, native, pure].map(str::to_string));
    };
    // UUID in, no error possible.
    for f in [
        "to_base58(x)",
        "to_base32(x)",
        "to_ulid(x)",
        "to_base32hex(x)",
        "to_base64url(x)",
        "to_typeid('user', x)",
        "extract_timestamp(x)",
        "extract_timestamp(x, true)",
        "extract_timestamp(x, false)",
        "extract_version(x)",
        "to_bytea(x)",
    ] {
        check(
            &mut *c,
            f,
            "diff.u",
            &format!("uuidkit.{f}"),
            &format!("uuidkit_sql.{f}"),
        );
    }
    // Inputs a function may refuse: through the wrappers.
    wrap(&mut *c, "v1_to_v6", "x uuid", "v1_to_v6(x)");
    wrap(&mut *c, "v6_to_v1", "x uuid", "v6_to_v1(x)");
    for f in ["v1_to_v6", "v6_to_v1"] {
        check(
            &mut *c,
            f,
            "diff.u",
            &format!("diff.{f}_uuidkit(x)"),
            &format!("diff.{f}_uuidkit_sql(x)"),
        );
    }
    plan.extend(plan_text_checks(c));
    plan
}

/// The checks of the decoders, TypeID and `namespace`, whose inputs are texts.
fn plan_text_checks(c: &mut Client) -> Vec<[String; 4]> {
    let mut plan: Vec<[String; 4]> = Vec::new();
    let mut check = |_: &mut Client, what: &str, from: &str, native: &str, pure: &str| {
        plan.push([what, from, native, pure].map(str::to_string));
    };
    for (f, form) in [
        ("from_base58", "base58"),
        ("from_base32", "base32"),
        ("from_ulid", "ulid"),
        ("from_base32hex", "base32hex"),
        ("from_base64url", "base64url"),
        ("from_typeid", "typeid"),
        ("typeid_prefix", "typeid"),
    ] {
        wrap(&mut *c, f, "x text", &format!("{f}(x)"));
        // Every decoder also gets a share of the other forms' texts: refusals of every kind.
        check(
            &mut *c,
            &format!("{f}(text)"),
            &format!("(SELECT x FROM diff.texts WHERE form = '{form}' OR pick = 0) AS t"),
            &format!("diff.{f}_uuidkit(x)"),
            &format!("diff.{f}_uuidkit_sql(x)"),
        );
    }
    wrap(
        &mut *c,
        "from_typeid_user",
        "x text",
        "from_typeid(x, 'user')",
    );
    check(
        &mut *c,
        "from_typeid(text, 'user')",
        "(SELECT x FROM diff.texts WHERE form = 'typeid' OR pick = 0) AS t",
        "diff.from_typeid_user_uuidkit(x)",
        "diff.from_typeid_user_uuidkit_sql(x)",
    );
    wrap(
        &mut *c,
        "from_typeid_as",
        "x text, p text",
        "from_typeid(x, p)",
    );
    check(
        &mut *c,
        "from_typeid(typeid, prefix)",
        "(SELECT x, CASE WHEN pick % 2 = 0 THEN diff.typeid_prefix_uuidkit(x) ELSE diff.mutate('user') END AS p \
         FROM diff.texts WHERE form = 'typeid') AS t",
        "diff.from_typeid_as_uuidkit(x, p)",
        "diff.from_typeid_as_uuidkit_sql(x, p)",
    );
    wrap(
        &mut *c,
        "to_typeid_p",
        "x text",
        "to_typeid(x, '01890a5d-ac96-774b-bcce-b302099a8057')",
    );
    check(
        &mut *c,
        "to_typeid(prefix, id)",
        "diff.prefixes",
        "diff.to_typeid_p_uuidkit(x)",
        "diff.to_typeid_p_uuidkit_sql(x)",
    );
    wrap(&mut *c, "namespace", "x text", "namespace(x)");
    check(
        &mut *c,
        "namespace(name)",
        "(SELECT x FROM diff.prefixes UNION ALL SELECT unnest(ARRAY['dns', 'DNS', 'Url', 'oId', 'X500', \
         'x5OO', 'dnſ', 'OİD', 'ürl', 'a\"b', E'\\\\', E'x\\t'])) AS t",
        "diff.namespace_uuidkit(x)",
        "diff.namespace_uuidkit_sql(x)",
    );
    plan.extend(plan_other_checks(c));
    plan
}

/// The checks of the name-based versions, the v7 bounds and `from_bytea`.
fn plan_other_checks(c: &mut Client) -> Vec<[String; 4]> {
    let mut plan: Vec<[String; 4]> = Vec::new();
    let mut check = |_: &mut Client, what: &str, from: &str, native: &str, pure: &str| {
        plan.push([what, from, native, pure].map(str::to_string));
    };
    for f in ["v3", "v5", "v8_sha256"] {
        check(
            &mut *c,
            f,
            "(SELECT ns || ' ' || name AS x, ns, name FROM diff.names) AS t",
            &format!("uuidkit.{f}(ns, name)"),
            &format!("uuidkit_sql.{f}(ns, name)"),
        );
    }
    for f in ["v7_lower", "v7_upper"] {
        wrap(&mut *c, f, "x timestamptz", &format!("{f}(x)"));
        check(
            &mut *c,
            f,
            "diff.ts",
            &format!("diff.{f}_uuidkit(x)"),
            &format!("diff.{f}_uuidkit_sql(x)"),
        );
    }
    wrap(&mut *c, "from_bytea", "x bytea", "from_bytea(x)");
    check(
        &mut *c,
        "from_bytea(bytes)",
        "(SELECT substring(b FROM 1 FOR CASE WHEN n < 10 THEN 16 ELSE n END) AS x FROM diff.bytes) AS t",
        "diff.from_bytea_uuidkit(x)",
        "diff.from_bytea_uuidkit_sql(x)",
    );
    plan
}

/// The shared functions the checks of `plan` compare, by what PostgreSQL resolves each call to in
/// the C edition: the check's expression, or for a wrapper (`diff.…`, see [`wrap`]) the call in its
/// body, made over NULLs of the wrapper's argument types.
fn checked_functions(c: &mut Client, plan: &[[String; 4]]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for [what, from, native, _] in plan {
        let found = match native.strip_prefix("diff.") {
            Some(wrapper) => {
                let name = format!("diff.{}", wrapper.split_once('(').unwrap().0);
                let row = c
                    .query_one(
                        "SELECT prosrc, pg_get_function_arguments(oid) FROM pg_proc \
                         WHERE oid = $1::text::regproc",
                        &[&name],
                    )
                    .unwrap_or_else(|e| panic!("{what}: the wrapper {name}: {e}"));
                let (body, args): (String, String) = (row.get(0), row.get(1));
                let call = body
                    .split_once("RETURN (")
                    .and_then(|(_, rest)| rest.split_once(")::text;"))
                    .unwrap_or_else(|| panic!("{what}: {name} is not a wrapper: {body}"))
                    .0;
                let nulls: Vec<String> = args
                    .split(", ")
                    .map(|a| {
                        let (arg, ty) = a.split_once(' ').unwrap();
                        format!("NULL::{ty} AS {arg}")
                    })
                    .collect();
                called(
                    &mut *c,
                    "uuidkit",
                    call,
                    &format!("(SELECT {}) AS a", nulls.join(", ")),
                )
            }
            None => called(&mut *c, "uuidkit", native, from),
        };
        assert!(!found.is_empty(), "{what}: calls no function of uuidkit");
        out.extend(found);
    }
    out
}

/// Every shared function whose result depends on its arguments alone is compared by some check of
/// `plan`: the plan is written by hand, the list of functions is the catalog's.
fn every_immutable_function_is_checked(c: &mut Client, shared: &[Shared], plan: &[[String; 4]]) {
    let checked = checked_functions(c, plan);
    let unchecked: Vec<&str> = shared
        .iter()
        .filter(|f| f.immutable && !checked.contains(&f.procedure))
        .map(|f| f.signature.as_str())
        .collect();
    assert!(
        unchecked.is_empty(),
        "shared immutable functions that no differential check compares: {unchecked:?}"
    );
}

/// Runs `plan` on two sessions at once; returns each check's input count.
fn run_checks(pg: &Postgres, plan: &[[String; 4]]) -> Vec<(String, i64)> {
    std::thread::scope(|scope| {
        let runs: Vec<_> = (0..2)
            .map(|part| {
                scope.spawn(move || {
                    let mut c = connect(pg, "postgres", "postgres");
                    plan.iter()
                        .skip(part)
                        .step_by(2)
                        .map(|[what, from, native, pure]| {
                            let rows = same(&mut c, what, from, native, pure);
                            assert!(rows >= N, "{what}: only {rows} inputs");
                            (what.clone(), rows)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        runs.into_iter()
            .flat_map(|r| r.join().expect("a check failed"))
            .collect()
    })
}

/// Every function with an argument gives NULL for NULLs in both editions.
fn nulls_give_nulls(c: &mut Client, pure: &[Shared]) {
    for f in pure.iter().map(|f| &f.signature) {
        let args = f.split_once('(').unwrap().1.rsplit_once(')').unwrap().0;
        let n_args = if args.is_empty() {
            0
        } else {
            args.split(',').count()
        };
        if n_args == 0 {
            continue;
        }
        let nulls = vec!["NULL"; n_args].join(", ");
        let fname = f.split_once('(').unwrap().0;
        let types: Vec<&str> = args
            .split(',')
            .map(|a| a.trim().split_once(' ').map_or(a.trim(), |p| p.1))
            .collect();
        let casted: Vec<String> = nulls
            .split(", ")
            .zip(&types)
            .map(|(n, t)| format!("{n}::{t}"))
            .collect();
        let call = format!("{fname}({})", casted.join(", "));
        let row = c
            .query_one(
                &format!("SELECT uuidkit.{call} IS NULL, uuidkit_sql.{call} IS NULL"),
                &[],
            )
            .unwrap();
        assert_eq!(
            (row.get::<_, bool>(0), row.get::<_, bool>(1)),
            (true, true),
            "{call}"
        );
    }
}

#[test]
fn pure_edition_matches_the_c_edition_on_every_shared_function() {
    let name = "pure_edition_matches_the_c_edition_on_every_shared_function";
    let Some((_pkg, pg)) = server(name) else {
        return;
    };
    let started = std::time::Instant::now();
    let mut c = connect(&pg, "postgres", "postgres");
    c.batch_execute("CREATE EXTENSION uuidkit; CREATE EXTENSION pgcrypto")
        .unwrap();
    c.batch_execute(&in_schema("uuidkit_sql")).unwrap();
    let pure = shared(&mut c, "uuidkit_sql");
    c.batch_execute(&INPUTS.replace("NROWS", &N.to_string()))
        .unwrap();
    let setup = started.elapsed();
    let plan = plan_checks(&mut c);
    every_immutable_function_is_checked(&mut c, &pure, &plan);
    let checked = run_checks(&pg, &plan);
    nulls_give_nulls(&mut c, &pure);
    let inputs: i64 = checked.iter().map(|(_, n)| n).sum();
    println!(
        "pure-SQL edition against the C edition: {} shared functions ({} immutable, each compared), {} checks, {inputs} inputs, 0 mismatches \
         ({:.1} s: {:.1} s of inputs, {:.1} s of checks)",
        pure.len(),
        pure.iter().filter(|f| f.immutable).count(),
        checked.len(),
        started.elapsed().as_secs_f64(),
        setup.as_secs_f64(),
        (started.elapsed() - setup).as_secs_f64()
    );
}

#[test]
fn pure_edition_generators_keep_their_layouts_and_the_session_order() {
    let name = "pure_edition_generators_keep_their_layouts_and_the_session_order";
    let Some((_pkg, pg)) = server(name) else {
        return;
    };
    let mut c = connect(&pg, "postgres", "postgres");
    c.batch_execute(PURE).unwrap();
    let many = |c: &mut Client, expr: &str, n: i64| -> Vec<uuidkit::Uuid> {
        scalar(
            c,
            &format!("SELECT array_agg({expr} ORDER BY g) FROM generate_series(1, {n}) AS g"),
        )
    };
    let clock = |c: &mut Client| -> i64 {
        scalar(
            c,
            "SELECT (extract(epoch FROM clock_timestamp()) * 1000)::int8",
        )
    };
    // v7(): increasing within the session, across statements too, at the clock's millisecond.
    let before = clock(&mut c);
    let mut all = many(&mut c, "uuidkit.v7()", 20_000);
    all.extend(many(&mut c, "uuidkit.v7()", 1_000));
    let after = clock(&mut c);
    assert!(all.windows(2).all(|w| w[0] < w[1]), "v7() not increasing");
    for u in &all {
        let ms = u.unix_ts_ms().unwrap_or_else(|| panic!("{u} is not a v7")) as i64;
        assert!(
            (before..=after + 1000).contains(&ms),
            "{u}: {ms} not in {before}..{after}"
        );
        assert!(matches!(u.variant(), uuidkit::Variant::Rfc9562));
    }
    // v7(at): that millisecond, a 15-bit counter seed (rand_a below 0x800), as the C edition.
    for u in many(
        &mut c,
        "uuidkit.v7(timestamptz '2022-02-22 14:22:22.9999-05')",
        500,
    ) {
        assert_eq!(u.unix_ts_ms(), Some(1_645_557_742_999));
        assert!(u.rand_a().unwrap() < 0x800, "{u}");
    }
    // v7(shift): about now plus the shift, increasing.
    let shifted = many(&mut c, "uuidkit.v7(interval '1 day')", 5_000);
    assert!(shifted.windows(2).all(|w| w[0] < w[1]));
    let want = clock(&mut c) + 86_400_000;
    assert!(
        shifted
            .iter()
            .all(|u| (u.unix_ts_ms().unwrap() as i64 - want).abs() < 60_000)
    );
    // v6(): increasing, a multicast node; v4(): version 4.
    let v6 = many(&mut c, "uuidkit.v6()", 5_000);
    assert!(
        v6.windows(2)
            .all(|w| w[0].gregorian_timestamp() < w[1].gregorian_timestamp())
    );
    assert!(
        v6.iter()
            .all(|u| u.as_bytes()[10] & 1 == 1 && u.version_nibble() == 6)
    );
    let v4 = many(&mut c, "uuidkit.v4()", 1_000);
    assert!(v4.iter().all(|u| u.version_nibble() == 4));
    let scope: String = scalar(&mut c, "SELECT uuidkit.v7_scope()");
    assert_eq!(scope, "backend");
    // Another session has its own order: both increase, and neither is below the other's millisecond.
    let mut other = connect(&pg, "postgres", "postgres");
    let theirs = many(&mut other, "uuidkit.v7()", 1_000);
    assert!(theirs.windows(2).all(|w| w[0] < w[1]));
    assert!(
        theirs[0].unix_ts_ms()
            >= all
                .last()
                .unwrap()
                .unix_ts_ms()
                .map(|m| m.saturating_sub(1000))
    );
}
