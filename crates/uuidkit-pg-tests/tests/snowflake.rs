//! `uuidkit.snowflake()`: 64-bit IDs as `int8`, the worker from `uuidkit.worker_id`, unique
//! across the server's sessions; an unset worker, an unknown layout and a server that does not
//! preload the library are errors with a reason.

use std::collections::HashSet;

use uuidkit::snowflake::Layout;
use uuidkit_pg_tests::postgres::Client;
use uuidkit_pg_tests::{Scope, Server, sql_error};

fn start(test: &str, scope: Scope, settings: &[(&str, &str)]) -> Option<Server> {
    Server::start_with(scope, settings)
        .map_err(|e| test_support::skip(test, e))
        .ok()
}

fn ids(c: &mut Client, sql: &str) -> Vec<u64> {
    c.query(sql, &[])
        .unwrap_or_else(|e| panic!("{sql}: {e}: {:?}", e.as_db_error().map(|d| d.message())))
        .iter()
        .map(|r| u64::try_from(r.get::<_, i64>(0)).expect("a positive int8"))
        .collect()
}

#[test]
fn ids_carry_the_worker_and_never_repeat_across_sessions() {
    let name = "ids_carry_the_worker_and_never_repeat_across_sessions";
    let Some(server) = start(name, Scope::Cluster, &[("uuidkit.worker_id", "37")]) else {
        return;
    };
    let sql = "SELECT uuidkit.snowflake() FROM generate_series(1, 20000)";
    let per_session: Vec<Vec<u64>> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..4)
            .map(|_| {
                let mut c = server.client();
                s.spawn(move || ids(&mut c, sql))
            })
            .collect();
        hs.into_iter()
            .map(|h| h.join().expect("a session"))
            .collect()
    });
    let mut all = HashSet::new();
    for v in &per_session {
        assert!(
            v.windows(2).all(|w| w[0] < w[1]),
            "a session's IDs increase"
        );
        for &id in v {
            assert_eq!(Layout::TWITTER.decompose(id).unwrap().worker, 37);
            assert!(all.insert(id), "{id} repeated across sessions");
        }
    }
    assert_eq!(all.len(), 80_000);
    let mut c = server.client();
    let sony = ids(
        &mut c,
        "SELECT uuidkit.snowflake('sonyflake') FROM generate_series(1, 300)",
    );
    assert!(sony.iter().all(|id| id & 0xFFFF == 37));
}

#[test]
fn an_unset_worker_an_unknown_layout_and_no_preload_are_refused() {
    let name = "an_unset_worker_an_unknown_layout_and_no_preload_are_refused";
    let Some(server) = start(name, Scope::Cluster, &[]) else {
        return;
    };
    let mut c = server.client();
    let (code, msg) = sql_error(&mut c, "SELECT uuidkit.snowflake()");
    assert_eq!(code, "55000");
    assert!(msg.starts_with("uuidkit.worker_id is not set"), "{msg}");
    c.simple_query("SET uuidkit.worker_id = 3")
        .map_err(|e| e.to_string())
        .unwrap_err();
    let Some(server) = start(name, Scope::Cluster, &[("uuidkit.worker_id", "5000")]) else {
        return;
    };
    let mut c = server.client();
    let (code, msg) = sql_error(&mut c, "SELECT uuidkit.snowflake('twitter')");
    assert_eq!(code, "22023");
    assert!(msg.contains("expected 0 to 1023 for twitter"), "{msg}");
    assert!(ids(&mut c, "SELECT uuidkit.snowflake('instagram')")[0] >> 10 & 8191 == 5000);
    let (code, msg) = sql_error(&mut c, "SELECT uuidkit.snowflake('flickr')");
    assert_eq!(code, "22023");
    assert!(msg.starts_with("unknown layout \"flickr\""), "{msg}");
    let Some(server) = start(name, Scope::Backend, &[("uuidkit.worker_id", "1")]) else {
        return;
    };
    let mut c = server.client();
    let (code, msg) = sql_error(&mut c, "SELECT uuidkit.snowflake()");
    assert_eq!(code, "55000");
    assert!(msg.contains("shared_preload_libraries"), "{msg}");
}
