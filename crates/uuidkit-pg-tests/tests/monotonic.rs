//! `uuidkit.v7()` across sessions: with the library in
//! `shared_preload_libraries`, one order for the whole cluster (no value
//! twice, each session increasing, and a call that began after another
//! returned gives a greater value); without it, one order per session only.

use std::sync::Barrier;
use std::time::Instant;

use uuidkit::Uuid;
use uuidkit_pg_tests::postgres::{Client, NoTls};
use uuidkit_pg_tests::{Scope, Server, scalar};

/// One `SELECT uuidkit.v7()` as the client saw it.
#[derive(Clone, Copy, Debug)]
struct Call {
    session: usize,
    start: Instant,
    end: Instant,
    value: Uuid,
}

/// `sessions` concurrent sessions making `calls` one-row calls each, all
/// released at once.
fn concurrent_calls(server: &Server, sessions: usize, calls: usize) -> Vec<Call> {
    let url = server.postgres().url();
    let barrier = Barrier::new(sessions);
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..sessions)
            .map(|session| {
                let (url, barrier) = (&url, &barrier);
                s.spawn(move || {
                    let mut c = Client::connect(url, NoTls).unwrap();
                    let stmt = c.prepare("SELECT uuidkit.v7()").unwrap();
                    barrier.wait();
                    (0..calls)
                        .map(|_| {
                            let start = Instant::now();
                            let value = c.query_one(&stmt, &[]).unwrap().get(0);
                            Call {
                                session,
                                start,
                                end: Instant::now(),
                                value,
                            }
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    })
}

/// What the calls show about their order.
#[derive(Debug, Default, PartialEq, Eq)]
struct Audit {
    /// Values issued more than once.
    duplicates: usize,
    /// Sessions whose values did not increase.
    unordered_sessions: usize,
    /// Pairs (a, b) of different sessions where a returned before b began
    /// (a being the last such call of its session) and b's value is not
    /// greater.
    violations: usize,
    /// How many of those pairs were in the same millisecond, where only a
    /// shared state can order them.
    same_millisecond: usize,
}

fn audit(calls: &[Call], sessions: usize) -> Audit {
    let mut values: Vec<Uuid> = calls.iter().map(|c| c.value).collect();
    values.sort_unstable();
    values.dedup();
    let mut a = Audit {
        duplicates: calls.len() - values.len(),
        ..Audit::default()
    };
    // Each session's calls, in its own order (which is also end-time order).
    let runs: Vec<Vec<&Call>> = (0..sessions)
        .map(|s| calls.iter().filter(|c| c.session == s).collect())
        .collect();
    a.unordered_sessions = runs
        .iter()
        .filter(|run| !run.windows(2).all(|w| w[0].value < w[1].value))
        .count();
    for b in calls {
        for run in runs
            .iter()
            .filter(|run| run.first().is_some_and(|c| c.session != b.session))
        {
            let k = run.partition_point(|c| c.end < b.start);
            let Some(before) = k.checked_sub(1).map(|k| run[k]) else {
                continue;
            };
            a.violations += usize::from(before.value >= b.value);
            a.same_millisecond += usize::from(before.value.unix_ts_ms() == b.value.unix_ts_ms());
        }
    }
    a
}

const SESSIONS: usize = 8;
const CALLS: usize = 1000;

/// Starts a server of `scope`, checks that `v7_scope()` reports it, and
/// audits [`SESSIONS`] × [`CALLS`] concurrent calls.
fn concurrent_audit(test: &str, scope: Scope, reported: &str) -> Option<Audit> {
    let server = Server::for_test(test, scope)?;
    let got = server
        .postgres()
        .query("SELECT uuidkit.v7_scope()")
        .unwrap();
    assert_eq!(got, reported);
    let calls = concurrent_calls(&server, SESSIONS, CALLS);
    assert_eq!(calls.len(), SESSIONS * CALLS);
    Some(audit(&calls, SESSIONS))
}

#[test]
fn cluster_scope_orders_every_session_as_one_sequence() {
    let name = "cluster_scope_orders_every_session_as_one_sequence";
    let Some(a) = concurrent_audit(name, Scope::Cluster, "cluster") else {
        return;
    };
    assert_eq!(
        (a.duplicates, a.unordered_sessions, a.violations),
        (0, 0, 0),
        "{a:?}"
    );
    // Many of the ordered pairs fell in one millisecond: the order across
    // sessions was put to the test.
    assert!(a.same_millisecond > CALLS, "{a:?}");
}

#[test]
fn cluster_scope_alternating_sessions_form_one_increasing_sequence() {
    let name = "cluster_scope_alternating_sessions_form_one_increasing_sequence";
    let Some(server) = Server::for_test(name, Scope::Cluster) else {
        return;
    };
    let mut sessions: Vec<Client> = (0..3).map(|_| server.client()).collect();
    let values: Vec<Uuid> = (0..3000)
        .map(|i| scalar(&mut sessions[i % 3], "SELECT uuidkit.v7()"))
        .collect();
    for (i, w) in values.windows(2).enumerate() {
        assert!(
            w[0] < w[1],
            "call {i} ({}) then call {} ({})",
            w[0],
            i + 1,
            w[1]
        );
    }
    // Sessions that start later, and batches within one statement, continue it.
    let mut late = server.client();
    let batch: Vec<Uuid> = late
        .query("SELECT uuidkit.v7() FROM generate_series(1, 1000)", &[])
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert!(values[2999] < batch[0] && batch.windows(2).all(|w| w[0] < w[1]));
}

#[test]
fn backend_scope_orders_each_session_but_not_the_cluster() {
    let name = "backend_scope_orders_each_session_but_not_the_cluster";
    let Some(a) = concurrent_audit(name, Scope::Backend, "backend") else {
        return;
    };
    assert_eq!((a.duplicates, a.unordered_sessions), (0, 0), "{a:?}");
    // Within one millisecond each session counts from its own random seed:
    // a call that began after another session's returned is often smaller.
    assert!(a.same_millisecond > CALLS && a.violations > 0, "{a:?}");
}
