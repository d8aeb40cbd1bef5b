//! `uuidkit new … --node-from postgres://…` (and `postgres-env:VAR`) against a real PostgreSQL
//! started by each test (test-support's `Postgres`), acted on with `psql` as an operator would.

use std::time::{Duration, Instant};

use test_support::db::Postgres;

use crate::leased::{Blocked, Drained, Whole, endless};

/// The rows of the lease table `table` that hold a node now: node and holder. A released row
/// stays, expired, with its high-water millisecond for the next holder.
fn rows_of(pg: &Postgres, table: &str) -> Vec<(u64, String)> {
    let text = pg
        .query(&format!(
            "SELECT node, holder FROM {table} WHERE expires > now() ORDER BY node"
        ))
        .unwrap();
    text.lines()
        .map(|l| {
            let (node, holder) = l.split_once('|').unwrap();
            (node.parse().unwrap(), holder.to_owned())
        })
        .collect()
}

/// The held rows of the default lease table.
fn rows(pg: &Postgres) -> Vec<(u64, String)> {
    rows_of(pg, "uuidkit_node_leases")
}

/// Two runs with the same lease seed draw the same first node: the table gives it to one, and
/// the other claims another. One run names the database on the command line, the other through
/// an environment variable. Each row holds while its run does and is expired when it ends.
#[test]
fn two_runs_hold_distinct_postgres_nodes_and_free_them_at_the_end() {
    let Some(pg) = Postgres::for_test("cli_pg_distinct_nodes") else {
        return;
    };
    let url = pg.url();
    for kind in ["v1", "v6", "v8"] {
        let a = Blocked::start(endless(kind, &["--node-from", &url], 7));
        let mut env = endless(kind, &["--node-from", "postgres-env:UUIDKIT_TEST_DB"], 7);
        env.env("UUIDKIT_TEST_DB", &url);
        let b = Blocked::start(env);
        let (na, nb) = (a.node, b.node);
        assert_ne!(na, nb, "{kind}: one node for two runs");
        let held = rows(&pg);
        let mut want = vec![na, nb];
        want.sort_unstable();
        assert_eq!(held.iter().map(|r| r.0).collect::<Vec<_>>(), want, "{kind}");
        assert!(
            held.iter().all(|r| r.1.contains(" uuidkit pid ")),
            "{held:?}"
        );
        a.end();
        b.end();
        assert_eq!(rows(&pg), vec![], "{kind}: rows left");
        eprintln!("{kind}: nodes {na:x} and {nb:x}, both rows gone after the runs");
    }
}

/// The run's row (in a table named with `--lease-table`) taken over by another holder mid-run:
/// the run's next renewal finds it gone; it stops with exit 1 and the reason, leaves the new
/// holder's row alone, and writes nothing after its deadline.
#[test]
fn a_postgres_row_taken_over_stops_the_run_with_the_reason() {
    let Some(pg) = Postgres::for_test("cli_pg_taken_over") else {
        return;
    };
    let (ttl, margin) = (Duration::from_secs(2), Duration::from_millis(200));
    let args = [
        "--node-from",
        &pg.url(),
        "--lease-ttl",
        "2s",
        "--lease-margin",
        "200ms",
        "--lease-table",
        "v1_nodes",
    ];
    let run = Drained::start(endless("v1", &args, 3));
    let node = run.first_node();
    pg.query(&format!(
        "UPDATE v1_nodes SET holder = 'the next holder', \
         expires = now() + interval '1 hour' WHERE node = {node}"
    ))
    .unwrap();
    // Any renewal that held was sent before the takeover was committed.
    let taken = Instant::now();
    let (code, err, seen, exited) = run.finish(Duration::from_secs(10));
    eprintln!("taken over to exit: {:?}", exited - taken);
    assert_eq!(code, Some(1), "{err}");
    assert_eq!(
        err,
        format!(
            "uuidkit: error: PostgreSQL node lost: renewal failed: the lease row of node {node:#x} \
             expired or was taken; stopped, nothing written after the loss\n"
        )
    );
    let seen = seen.lock().unwrap();
    seen.all_whole_of(node);
    // Its deadline bounds the writes, whenever the next renewal ran.
    let late = seen.bytes_after(taken + ttl - margin + Duration::from_millis(250));
    assert_eq!(late, 0, "bytes written after the deadline");
    assert_eq!(
        rows_of(&pg, "v1_nodes"),
        vec![(node, "the next holder".to_string())]
    );
}

/// The database gone mid-run: the run stops at its lease's deadline and nothing reaches its
/// output after that.
#[test]
fn a_postgres_server_gone_stops_the_run_at_its_deadline() {
    let Some(pg) = Postgres::for_test("cli_pg_gone") else {
        return;
    };
    let (ttl, margin) = (Duration::from_millis(1500), Duration::from_millis(200));
    let args = [
        "--node-from",
        &pg.url(),
        "--lease-ttl",
        "1500ms",
        "--lease-margin",
        "200ms",
    ];
    let run = Drained::start(endless("v6", &args, 4));
    let node = run.first_node();
    std::thread::sleep(Duration::from_millis(1000));
    // The server takes a while to stop under load; the lease renews until it has, and its
    // deadline is at least a TTL less the margin after the last renewal sent before then.
    let stopping = Instant::now();
    drop(pg);
    // Any renewal confirmed was sent before the server was gone.
    let gone = Instant::now();
    let (code, err, seen, _) = run.finish(Duration::from_secs(10));
    assert_eq!(code, Some(1), "{err}");
    assert_eq!(
        err,
        "uuidkit: error: PostgreSQL node lost: renewal failed: the lease's deadline passed before a \
         renewal was confirmed; stopped, nothing written after the loss\n"
    );
    let seen = seen.lock().unwrap();
    seen.all_whole_of(node);
    assert!(
        seen.bytes_after(stopping) > 0,
        "the node is used until its deadline (the server took {:?} to stop)",
        gone - stopping
    );
    let late = seen.bytes_after(gone + ttl - margin + Duration::from_millis(250));
    assert_eq!(late, 0, "bytes written after the deadline");
}

/// A server held to TLS that checks its clients' certificates: a run with `--tls-ca`,
/// `--tls-cert` and `--tls-key` holds a node and writes its UUIDs; without them it cannot
/// connect (exit 1, PostgreSQL's reason); a key file that cannot be read is a usage error
/// naming it (exit 2), and nothing is written either time.
#[cfg(feature = "postgres-tls")]
#[test]
fn a_postgres_server_over_tls_takes_a_run_with_its_certificates() {
    use std::process::Command;
    let test = "cli_pg_tls";
    let pg = match Postgres::start_tls() {
        Ok(pg) => pg,
        Err(reason) => return test_support::skip(test, reason),
    };
    let files = pg.tls_files().unwrap();
    let url = pg.tcp_url().unwrap();
    let run = |key: &std::path::Path, tls: bool| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_uuidkit"));
        command.args(["new", "v6", "--node-from", &url, "-n", "3"]);
        if tls {
            command
                .arg("--tls-ca")
                .arg(&files.ca)
                .arg("--tls-cert")
                .arg(&files.client_cert)
                .arg("--tls-key")
                .arg(key);
        }
        let out = command.output().unwrap();
        let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
        (out.status.code(), text(out.stdout), text(out.stderr))
    };
    let (code, out, err) = run(&files.client_key, true);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(out.lines().count(), 3, "{out}");
    let (code, out, err) = run(&files.client_key, false);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        out.is_empty() && err.contains("no pg_hba.conf entry"),
        "{err}"
    );
    let missing = files.client_key.with_extension("missing");
    let (code, out, err) = run(&missing, true);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        out.is_empty() && err.contains("TLS: cannot read") && err.contains("client.missing"),
        "{err}"
    );
    assert_eq!(rows(&pg), vec![], "no row left");
}
