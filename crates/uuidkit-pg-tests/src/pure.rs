//! The pure-SQL edition (`crates/uuidkit-pg/pure/uuidkit_pure.sql`) beside the C edition in one
//! server, for its differential test (`tests/pure.rs`) and its benchmark (`benches/sql.rs`): both
//! take the list of functions the two editions share from [`shared`], so that a function added to
//! both cannot go unchecked or unmeasured, and both learn which functions a query calls from
//! [`called`].

use std::collections::BTreeSet;

use postgres::Client;

/// The edition, as users get it.
pub const SOURCE: &str = include_str!("../../uuidkit-pg/pure/uuidkit_pure.sql");

/// The functions of the C edition the pure-SQL edition does not have, by the start of their
/// signatures: the façade (a block cipher), `snowflake` (shared memory), and the `ulid` type's (a
/// base type needs C).
pub const C_ONLY: &[&str] = &[
    "facade_decode(id uuid, key bytea, mode text)",
    "facade_encode(id uuid, key bytea, mode text)",
    "snowflake(layout text)",
    "gen_ulid()",
    "ulid_",
];

/// The edition with its schema renamed to `schema`, so that it can sit beside the C edition's
/// `uuidkit`.
///
/// ```
/// let sql = uuidkit_pg_tests::pure::in_schema("uuidkit_sql");
/// assert!(sql.contains("CREATE SCHEMA IF NOT EXISTS uuidkit_sql;"));
/// assert!(!sql.contains("uuidkit.v7("));
/// ```
#[must_use]
pub fn in_schema(schema: &str) -> String {
    SOURCE.replace("uuidkit.", &format!("{schema}.")).replace(
        "CREATE SCHEMA IF NOT EXISTS uuidkit;",
        &format!("CREATE SCHEMA IF NOT EXISTS {schema};"),
    )
}

/// One function both editions have.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Shared {
    /// Name, arguments with their names, and result: `from_typeid(text text, prefix text) uuid`.
    pub signature: String,
    /// Name and argument types, as [`called`] names functions: `from_typeid(text,text)`.
    pub procedure: String,
    /// Declared `IMMUTABLE` in both editions: its result depends on its arguments alone, so the
    /// two editions must give the same. The others (the generators and `v7_scope()`) are random,
    /// read the clock or tell the edition apart.
    pub immutable: bool,
}

/// The functions of `schema`, but those whose name starts with `_` (the editions' helpers).
fn functions(c: &mut Client, schema: &str) -> Vec<Shared> {
    let sql = format!(
        "SELECT p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ') ' \
             || pg_get_function_result(p.oid), \
         p.proname || '(' || array_to_string(p.proargtypes::regtype[], ',') || ')', \
         p.provolatile = 'i' \
         FROM pg_proc p WHERE pronamespace = '{schema}'::regnamespace AND p.proname NOT LIKE '\\_%' \
         ORDER BY 1"
    );
    c.query(&sql, &[])
        .unwrap_or_else(|e| panic!("the functions of {schema}: {e}"))
        .iter()
        .map(|r| Shared {
            signature: r.get(0),
            procedure: r.get(1),
            immutable: r.get(2),
        })
        .collect()
}

/// The functions the C edition (in `uuidkit`) and the pure-SQL edition (in `pure`) share, after
/// asserting that the pure edition has every function of the C edition but [`C_ONLY`], each with
/// the same signature and volatility, and nothing else.
///
/// # Panics
/// If the editions differ so, or a catalog query fails.
pub fn shared(c: &mut Client, pure: &str) -> Vec<Shared> {
    let native = functions(&mut *c, "uuidkit");
    let sql = functions(&mut *c, pure);
    let missing: Vec<&Shared> = native
        .iter()
        .filter(|f| !sql.contains(f) && !C_ONLY.iter().any(|o| f.signature.starts_with(o)))
        .collect();
    let extra: Vec<&Shared> = sql.iter().filter(|f| !native.contains(f)).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "the editions differ: only in the C edition {missing:#?}, only in the pure one {extra:#?}"
    );
    sql
}

/// The functions of `schema` that `SELECT expr FROM from` calls, as [`Shared::procedure`] names
/// them: PostgreSQL's own resolution of the call (overloads included), read from the dependencies
/// of a view of the query, which is made and dropped in a transaction that is rolled back.
///
/// # Panics
/// If the query is not valid SQL.
///
/// ```
/// use uuidkit_pg_tests::{Scope, Server, pure::called};
/// let Some(server) = Server::for_test("called_doc", Scope::Backend) else { return };
/// let mut c = server.client();
/// let f = called(&mut c, "uuidkit", "uuidkit.v7(at)", "(SELECT now() AS at) AS t");
/// assert_eq!(f.into_iter().collect::<Vec<_>>(), ["v7(timestamp with time zone)"]);
/// ```
pub fn called(c: &mut Client, schema: &str, expr: &str, from: &str) -> BTreeSet<String> {
    let mut t = c.transaction().unwrap();
    t.batch_execute(&format!(
        "CREATE TEMPORARY VIEW uuidkit_called AS SELECT ({expr}) AS v FROM {from}"
    ))
    .unwrap_or_else(|e| panic!("SELECT {expr} FROM {from}: {e}"));
    let sql = format!(
        "SELECT DISTINCT p.proname || '(' || array_to_string(p.proargtypes::regtype[], ',') || ')' \
         FROM pg_rewrite r JOIN pg_depend d ON d.classid = 'pg_rewrite'::regclass AND d.objid = r.oid \
         JOIN pg_proc p ON d.refclassid = 'pg_proc'::regclass AND p.oid = d.refobjid \
         WHERE r.ev_class = 'uuidkit_called'::regclass AND p.pronamespace = '{schema}'::regnamespace"
    );
    let out = t
        .query(&sql, &[])
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    t.rollback().unwrap();
    out
}
