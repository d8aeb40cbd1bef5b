//! The update path. For every earlier release whose script the extension keeps
//! (`crates/uuidkit-pg/sql/uuidkit--A.sql`): a database with that release, and a table whose
//! column defaults call its functions, is updated with `ALTER EXTENSION uuidkit UPDATE`; then
//! its extension has exactly the objects of a fresh install of the current version, each
//! defined the same (functions, types, operators, operator classes and families, casts), every
//! function gives what it gives in the fresh install, and the old defaults keep working.
//!
//! The object comparison is what keeps the hand-written update script honest: a function, type
//! or cast added to the extension without its statement in `uuidkit--A--B.sql` fails it.

use std::path::PathBuf;

use postgres::Client;
use test_support::db::{DATABASE, Postgres};
use uuidkit_pg_tests::{Scope, Server};

/// One line per member object of the extension: its full definition, read from the catalogs,
/// so that two installs with equal lists have equal objects ([`members`] sorts them).
const MEMBERS: &str = r#"
SELECT CASE d.classid
  WHEN 'pg_proc'::regclass THEN (
    SELECT pg_get_functiondef(p.oid) || coalesce(' ACL ' || p.proacl::text, '')
    FROM pg_proc p WHERE p.oid = d.objid)
  WHEN 'pg_type'::regclass THEN (
    SELECT format('type %s: len %s, byval %s, align %s, storage %s, category %s, in %s, out %s, '
                  'receive %s, send %s, array %s',
                  t.oid::regtype, t.typlen, t.typbyval, t.typalign, t.typstorage, t.typcategory,
                  t.typinput::oid::regprocedure, t.typoutput::oid::regprocedure,
                  t.typreceive::oid::regprocedure, t.typsend::oid::regprocedure,
                  t.typarray::regtype)
    FROM pg_type t WHERE t.oid = d.objid)
  WHEN 'pg_operator'::regclass THEN (
    SELECT format('operator %s: function %s, commutator %s, negator %s, restrict %s, join %s, '
                  'merges %s, hashes %s',
                  o.oid::regoperator, o.oprcode::oid::regprocedure, o.oprcom::regoperator,
                  o.oprnegate::regoperator, o.oprrest, o.oprjoin, o.oprcanmerge, o.oprcanhash)
    FROM pg_operator o WHERE o.oid = d.objid)
  WHEN 'pg_cast'::regclass THEN (
    SELECT format('cast %s as %s: function %s, context %s, method %s',
                  c.castsource::regtype, c.casttarget::regtype, c.castfunc::regprocedure,
                  c.castcontext, c.castmethod)
    FROM pg_cast c WHERE c.oid = d.objid)
  WHEN 'pg_opclass'::regclass THEN (
    SELECT format('operator class %s using %s for %s: default %s, family %s',
                  c.opcname, a.amname, c.opcintype::regtype, c.opcdefault, f.opfname)
    FROM pg_opclass c JOIN pg_am a ON a.oid = c.opcmethod
    JOIN pg_opfamily f ON f.oid = c.opcfamily WHERE c.oid = d.objid)
  WHEN 'pg_opfamily'::regclass THEN (
    SELECT format('operator family %s using %s: operators %s; functions %s', f.opfname, a.amname,
      (SELECT string_agg(format('%s %s', o.amopstrategy, o.amopopr::regoperator), ', '
                         ORDER BY o.amopstrategy, o.amopopr::regoperator::text)
       FROM pg_amop o WHERE o.amopfamily = f.oid),
      (SELECT string_agg(format('%s %s', p.amprocnum, p.amproc::regprocedure), ', '
                         ORDER BY p.amprocnum, p.amproc::regprocedure::text)
       FROM pg_amproc p WHERE p.amprocfamily = f.oid))
    FROM pg_opfamily f JOIN pg_am a ON a.oid = f.opfmethod WHERE f.oid = d.objid)
  ELSE pg_describe_object(d.classid, d.objid, 0)
END || coalesce(' COMMENT ' || obj_description(d.objid, d.classid::regclass::text), '')
FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid
WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e' AND e.extname = 'uuidkit'
"#;

/// The functions every call in [`CALLS`] must cover: the extension's, but those that a type,
/// operator or operator class of it calls (its text and binary I/O, comparisons, hashes, sort
/// support), which the calls use through the type.
const CALLABLE: &str = r"
SELECT DISTINCT p.proname::text FROM pg_proc p
JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'uuidkit'
WHERE NOT EXISTS (SELECT FROM pg_type t WHERE p.oid IN (t.typinput, t.typoutput, t.typreceive, t.typsend))
  AND NOT EXISTS (SELECT FROM pg_operator o WHERE o.oprcode = p.oid)
  AND NOT EXISTS (SELECT FROM pg_amproc a WHERE a.amproc = p.oid)
ORDER BY 1
";

/// One query per function, each with one text result that is the same in every database that
/// has the current version: the value of a deterministic function, or a property that holds of
/// every value of a random one.
const CALLS: &[&str] = &[
    "SELECT uuidkit.v7_scope()",
    "SELECT uuidkit.extract_timestamp(uuidkit.v7()) BETWEEN now() - interval '1 hour' AND now() + interval '1 hour'",
    "SELECT uuidkit.v4()::text ~ '^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab]'",
    "SELECT left(uuidkit.v7(timestamptz '2022-02-22 19:22:22+00')::text, 15)",
    "SELECT uuidkit.extract_timestamp(uuidkit.v7(interval '-1 day')) < now() - interval '23 hours'",
    "SELECT uuidkit.extract_timestamp('017f22e2-79b0-7cc3-98c4-dc0c0c07398f', true)::text",
    "SELECT uuidkit.extract_version('017f22e2-79b0-7cc3-98c4-dc0c0c07398f')::text || uuidkit.to_bytea('01890a5d-ac96-774b-bcce-b302099a8057')::text || uuidkit.from_bytea('\\x01890a5dac96774bbcceb302099a8057')::text",
    "SELECT uuidkit.extract_timestamp(uuidkit.v6()) > now() - interval '1 hour'",
    "SELECT uuidkit.v5(uuidkit.namespace('dns'), 'www.example.com')::text",
    "SELECT uuidkit.v3(uuidkit.namespace('url'), 'www.example.com')::text",
    "SELECT uuidkit.v8_sha256(uuidkit.namespace('x500'), 'www.example.com')::text",
    "SELECT uuidkit.extract_timestamp('017f22e2-79b0-7cc3-98c4-dc0c0c07398f')::text",
    "SELECT uuidkit.v7_lower('2022-02-22 19:22:21.9995+00')::text || uuidkit.v7_upper('2022-02-22 19:22:22.0005+00')::text",
    "SELECT uuidkit.v1_to_v6('c232ab00-9414-11ec-b3c8-9f6bdeced846')::text || uuidkit.v6_to_v1('1ec9414c-232a-6b00-b3c8-9f6bdeced846')::text",
    "SELECT uuidkit.facade_encode('018f2d9f-9a2a-7def-8c3f-7b1a2c4d5e6f', '\\xefcdab89674523011032547698badcfe', 'uuidv47')::text",
    "SELECT uuidkit.facade_decode(uuidkit.facade_encode('018f2d9f-9a2a-7def-8c3f-7b1a2c4d5e6f', '\\xefcdab89674523011032547698badcfe'), '\\xefcdab89674523011032547698badcfe')::text",
    "SELECT uuidkit.to_base58('01890a5d-ac96-774b-bcce-b302099a8057') || uuidkit.from_base58('1BzmjTFLHWXwiSK4y3H5iW')::text",
    "SELECT uuidkit.to_base32('f81d4fae-7dec-11d0-a765-00a0c91e6bf6') || uuidkit.from_base32('7r3n7twzfc278aes80m34hwtzp')::text",
    "SELECT uuidkit.to_ulid('f81d4fae-7dec-11d0-a765-00a0c91e6bf6') || uuidkit.from_ulid('01ARZ3NDEKTSV4RRFFQ69G5FAV')::text",
    "SELECT uuidkit.to_base32hex('f81d4fae-7dec-11d0-a765-00a0c91e6bf6') || uuidkit.from_base32hex('V0EKVBJTTG8T19R502GCI7JBUO')::text",
    "SELECT uuidkit.to_base64url('01890a5d-ac96-774b-bcce-b302099a8057') || uuidkit.from_base64url('AYkKXayWd0u8zrMCCZqAVw')::text",
    "SELECT uuidkit.to_typeid('user', '01890a5d-ac96-774b-bcce-b302099a8057') || uuidkit.typeid_prefix('user_01h455vb4pex5vsknk084sn02q')",
    "SELECT uuidkit.from_typeid('user_01h455vb4pex5vsknk084sn02q')::text || uuidkit.from_typeid('user_01h455vb4pex5vsknk084sn02q', 'user')::text",
    "SELECT uuidkit.snowflake() > 0 AND uuidkit.snowflake('discord') > 0",
    "SELECT string_agg(u::text, ' ' ORDER BY u) FROM (VALUES ('01ARZ3NDEKTSV4RRFFQ69G5FAV'::uuidkit.ulid), ('7zzzzzzzzzzzzzzzzzzzzzzzzz'), ('018f2d9f-9a2a-7def-8c3f-7b1a2c4d5e6f'::uuid::uuidkit.ulid)) v(u)",
    "SELECT count(DISTINCT u) FROM (VALUES ('01ARZ3NDEKTSV4RRFFQ69G5FAV'::uuidkit.ulid), ('01arz3ndektsv4rrffq69g5fav')) v(u)",
    "SELECT uuidkit.ulid_timestamp('01ARZ3NDEKTSV4RRFFQ69G5FAV') = '01ARZ3NDEKTSV4RRFFQ69G5FAV'::uuidkit.ulid::timestamptz",
    "SELECT uuidkit.ulid_lower('2016-07-30 23:54:10.2585+00')::text || uuidkit.ulid_upper('2016-07-30 23:54:10.2595+00')::text",
    "SELECT uuidkit.extract_timestamp(uuidkit.gen_ulid()::uuid) > now() - interval '1 hour'",
];

/// The earlier releases whose full scripts the extension keeps.
fn earlier_releases() -> Vec<String> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../uuidkit-pg/sql");
    let mut releases: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| {
            let name = e.ok()?.file_name().into_string().ok()?;
            let version = name.strip_prefix("uuidkit--")?.strip_suffix(".sql")?;
            (!version.contains("--")).then(|| version.to_string())
        })
        .collect();
    releases.sort();
    assert!(
        !releases.is_empty(),
        "{} keeps no earlier release",
        dir.display()
    );
    releases
}

/// The version `crates/uuidkit-pg/Cargo.toml` builds.
pub(crate) fn current_version() -> &'static str {
    include_str!("../../uuidkit-pg/Cargo.toml")
        .lines()
        .find_map(|l| l.strip_prefix("version = \"")?.strip_suffix('"'))
        .expect("the extension's manifest has a version line")
}

fn connect(pg: &Postgres, database: &str) -> Client {
    let url = pg.url();
    let url = format!("{}{database}", url.strip_suffix(DATABASE).unwrap());
    Client::connect(&url, postgres::NoTls).unwrap_or_else(|e| panic!("{url}: {e}"))
}

/// The server's message of an error, which `postgres::Error`'s display leaves out.
fn message(e: &postgres::Error) -> String {
    e.as_db_error().map_or_else(
        || e.to_string(),
        |d| format!("{}: {}", d.code().code(), d.message()),
    )
}

fn texts(c: &mut Client, sql: &str) -> Vec<String> {
    c.query(sql, &[])
        .unwrap_or_else(|e| panic!("{sql}: {}", message(&e)))
        .iter()
        .map(|r| {
            r.get::<_, Option<String>>(0)
                .unwrap_or_else(|| "NULL".into())
        })
        .collect()
}

/// [`MEMBERS`], sorted.
fn members(c: &mut Client) -> Vec<String> {
    let mut all = texts(c, MEMBERS);
    all.sort();
    all
}

/// The outputs of [`CALLS`], each as text.
fn call_all(c: &mut Client) -> Vec<String> {
    CALLS
        .iter()
        .map(|sql| {
            let row = c
                .query_one(&format!("SELECT ({sql})::text"), &[])
                .unwrap_or_else(|e| panic!("{sql}: {}", message(&e)));
            format!("{sql} => {:?}", row.get::<_, Option<String>>(0))
        })
        .collect()
}

/// What [`check_updates`] compared, for its caller to report.
pub(crate) struct Updated {
    /// The earlier releases updated from, each in a database of its own.
    pub from: Vec<String>,
    /// The version each was updated to.
    pub to: &'static str,
    /// The extension's member objects, each the same as in a fresh install.
    pub objects: usize,
    /// The extension's callable functions, each called and giving what the fresh install gives.
    pub functions: usize,
}

/// On `pg`, whose database [`DATABASE`] has the current version freshly created: for each
/// earlier release, a database made with it, with defaults that call it, updated and compared.
/// The library must be preloaded with `uuidkit.worker_id` set (for `snowflake()`).
pub(crate) fn check_updates(pg: &Postgres) -> Updated {
    let current = current_version();
    let mut fresh = connect(pg, DATABASE);
    let fresh_version = texts(
        &mut fresh,
        "SELECT extversion FROM pg_extension WHERE extname = 'uuidkit'",
    );
    assert_eq!(fresh_version, [current]);
    let want_members = members(&mut fresh);
    let want_calls = call_all(&mut fresh);

    // Every function the extension offers is called.
    let all_calls = CALLS.concat();
    let callable = texts(&mut fresh, CALLABLE);
    let uncalled: Vec<&String> = callable
        .iter()
        .filter(|f| !all_calls.contains(&format!("uuidkit.{f}(")))
        .collect();
    assert!(
        uncalled.is_empty(),
        "functions of the extension that no call in upgrade::CALLS checks: {uncalled:?}"
    );

    let releases = earlier_releases();
    for release in &releases {
        let db = format!("from_{}", release.replace('.', "_"));
        pg.query(&format!("CREATE DATABASE {db}")).unwrap();
        let mut old = connect(pg, &db);
        old.batch_execute(&format!(
            "CREATE EXTENSION uuidkit VERSION '{release}';
             CREATE TABLE orders (
               id uuid PRIMARY KEY DEFAULT uuidkit.v7(),
               code text NOT NULL DEFAULT uuidkit.to_base58(uuidkit.v4()),
               n int NOT NULL);
             INSERT INTO orders (n) VALUES (1);"
        ))
        .unwrap_or_else(|e| panic!("uuidkit {release} with defaults: {}", message(&e)));
        let defaults_before = texts(
            &mut old,
            "SELECT pg_get_expr(adbin, adrelid) FROM pg_attrdef ORDER BY adnum",
        );

        old.batch_execute("ALTER EXTENSION uuidkit UPDATE")
            .unwrap_or_else(|e| {
                panic!(
                    "ALTER EXTENSION uuidkit UPDATE from {release}: {}",
                    message(&e)
                )
            });
        assert_eq!(
            texts(
                &mut old,
                "SELECT extversion FROM pg_extension WHERE extname = 'uuidkit'"
            ),
            [current],
            "from {release}"
        );
        let got_members = members(&mut old);
        let missing: Vec<&String> = want_members
            .iter()
            .filter(|m| !got_members.contains(m))
            .collect();
        let extra: Vec<&String> = got_members
            .iter()
            .filter(|m| !want_members.contains(m))
            .collect();
        assert!(
            missing.is_empty() && extra.is_empty(),
            "updated from {release}, the extension differs from a fresh {current}:\n\
             only in the fresh install:\n{missing:#?}\nonly in the updated one:\n{extra:#?}"
        );
        assert_eq!(call_all(&mut old), want_calls, "updated from {release}");

        // The defaults made with the old release, unchanged, still make keys, in order.
        old.batch_execute("INSERT INTO orders (n) VALUES (2)")
            .unwrap_or_else(|e| {
                panic!("a default after the update from {release}: {}", message(&e))
            });
        assert_eq!(
            texts(
                &mut old,
                "SELECT pg_get_expr(adbin, adrelid) FROM pg_attrdef ORDER BY adnum"
            ),
            defaults_before
        );
        let rows = texts(
            &mut old,
            "SELECT format('%s %s %s', n, length(code), uuidkit.extract_timestamp(id) IS NOT NULL)
             FROM orders ORDER BY id",
        );
        assert_eq!(rows, ["1 22 t", "2 22 t"], "updated from {release}");
        drop(old);
        pg.query(&format!("DROP DATABASE {db}")).unwrap();
    }
    Updated {
        from: releases,
        to: current,
        objects: want_members.len(),
        functions: callable.len(),
    }
}

#[test]
fn an_update_from_each_earlier_release_equals_a_fresh_install() {
    let name = "an_update_from_each_earlier_release_equals_a_fresh_install";
    let settings = [("uuidkit.worker_id", "5")];
    let Ok(server) =
        Server::start_with(Scope::Cluster, &settings).map_err(|e| test_support::skip(name, e))
    else {
        return;
    };
    let updated = check_updates(server.postgres());
    println!(
        "updated from {:?} to {}: {} objects as a fresh install's, {} functions give what they give there",
        updated.from, updated.to, updated.objects, updated.functions
    );
}
