//! `facade_encode` and `facade_decode`: the vector every surface checks, in
//! both modes both ways, a table's round trip through the façade, and the
//! errors for a UUID that cannot be converted, a bad key and a bad mode.

use uuidkit_pg_tests::{Scope, Server, scalar, sql_error};

/// uuidv47's demo key (`k0 = 0x0123456789abcdef`, `k1 = 0xfedcba9876543210`)
/// as a `bytea`, its v7, the uuidv47 façade and the full mode's.
const KEY: &str = "'\\xefcdab89674523011032547698badcfe'::bytea";
const V7: &str = "018f2d9f-9a2a-7def-8c3f-7b1a2c4d5e6f";
const UUIDV47: &str = "2463c780-7fca-4def-8c3f-7b1a2c4d5e6f";
const FULL: &str = "20d59025-677f-4fbd-9e0a-a9812b2c8948";

#[test]
fn the_shared_vector_and_a_table_round_trip() {
    let name = "facade_shared_vector";
    let Some(server) = Server::for_test(name, Scope::Backend) else {
        return;
    };
    let mut c = server.client();
    let text = |c: &mut _, sql: &str| scalar::<String>(c, sql);
    for (mode, shown) in [("uuidv47", UUIDV47), ("full", FULL)] {
        let sql = format!("SELECT uuidkit.facade_encode('{V7}', {KEY}, '{mode}')::text");
        assert_eq!(text(&mut c, &sql), shown, "{sql}");
        let sql = format!("SELECT uuidkit.facade_decode('{shown}', {KEY}, '{mode}')::text");
        assert_eq!(text(&mut c, &sql), V7, "{sql}");
    }
    // 'full' is the default.
    let sql = format!("SELECT uuidkit.facade_encode('{V7}', {KEY})::text");
    assert_eq!(text(&mut c, &sql), FULL);
    // 10,000 fresh v7 keys: every façade is a v4, distinct, and decodes back.
    let sql = format!(
        "WITH k AS (SELECT uuidkit.v7() AS id FROM generate_series(1, 10000)),
              f AS (SELECT id, uuidkit.facade_encode(id, {KEY}) AS shown FROM k)
         SELECT count(*) FILTER (WHERE uuidkit.facade_decode(shown, {KEY}) = id
                                 AND substr(shown::text, 15, 1) = '4')
              + count(DISTINCT shown)
         FROM f"
    );
    assert_eq!(scalar::<i64>(&mut c, &sql), 20_000);
}

#[test]
fn errors_say_what_is_wrong() {
    let name = "facade_errors";
    let Some(server) = Server::for_test(name, Scope::Backend) else {
        return;
    };
    let mut c = server.client();
    let (code, msg) = sql_error(
        &mut c,
        &format!("SELECT uuidkit.facade_encode('{FULL}', {KEY})"),
    );
    assert_eq!(code, "22023");
    assert_eq!(
        msg,
        "cannot make a façade of a version 4 UUID: expected version 7"
    );
    let (code, msg) = sql_error(
        &mut c,
        &format!("SELECT uuidkit.facade_decode('{V7}', {KEY})"),
    );
    assert_eq!(code, "22023");
    assert_eq!(
        msg,
        "cannot decode a version 7 UUID: expected a façade, a version 4 UUID of the RFC 9562 variant"
    );
    let (code, msg) = sql_error(
        &mut c,
        &format!("SELECT uuidkit.facade_encode('{V7}', '\\x0011')"),
    );
    assert_eq!(code, "22023");
    assert_eq!(
        msg,
        "a façade key has 16 bytes ('\\x' and 32 hex digits), got 2"
    );
    let (code, msg) = sql_error(
        &mut c,
        &format!("SELECT uuidkit.facade_encode('{V7}', {KEY}, 'fast')"),
    );
    assert_eq!(code, "22023");
    assert_eq!(msg, "unknown façade mode: expected uuidv47 or full");
    // STRICT: NULL in, NULL out.
    let sql = format!("SELECT uuidkit.facade_encode(NULL, {KEY}) IS NULL");
    assert!(scalar::<bool>(&mut c, &sql));
}
