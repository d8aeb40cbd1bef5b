//! `uuidkit new … --node-from zookeeper://…` against a real three-member ZooKeeper ensemble
//! started by the test (test-support's `ZooKeeperEnsemble`, sessions of up to 4 s).

use std::process::Command;

use test_support::db::ZooKeeperEnsemble;

use crate::leased::{Blocked, endless, node_of, parse};

/// Two runs with the same lease seed draw the same first node: ZooKeeper lets one create it,
/// and the other claims another; a bounded run writes its UUIDs with a node and exits 0.
#[test]
fn two_runs_hold_distinct_zookeeper_nodes() {
    let Some(zk) = ZooKeeperEnsemble::for_test("cli_zk_distinct_nodes") else {
        return;
    };
    let from = format!("zookeeper://{}/uuidkit/cli", zk.connect_string());
    let args = [
        "--node-bits",
        "16",
        "--node-from",
        &from,
        "--lease-ttl",
        "2s",
    ];
    let runs: Vec<Blocked> = (0..2)
        .map(|_| Blocked::start(endless("v8", &args, 7)))
        .collect();
    let (a, b) = (runs[0].node, runs[1].node);
    assert_ne!(a, b, "one node for two runs");
    for run in runs {
        run.end();
    }
    let out = Command::new(env!("CARGO_BIN_EXE_uuidkit"))
        .args(["new", "v6", "-n", "3", "--node-from", &from])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let text = String::from_utf8(out.stdout).unwrap();
    let nodes: Vec<u64> = text.lines().map(|l| node_of(parse(l))).collect();
    assert_eq!(nodes.len(), 3, "{text}");
    assert!(
        nodes.iter().all(|&n| n == nodes[0] && n & (1 << 40) != 0),
        "{nodes:x?}"
    );
    eprintln!("nodes {a:x} and {b:x}, then v6 node {:x}", nodes[0]);
}
