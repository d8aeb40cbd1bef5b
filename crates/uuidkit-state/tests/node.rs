//! Node sources and the state file: a node's own sequence continues across
//! processes, and no other node's (RFC 9562 §6.4 with §6.3).

use uuidkit::clock::ManualClock;
use uuidkit::node::NodeSlot;
use uuidkit::rng::ThreadRng;
use uuidkit::{Generator, Uuid, V1Generator};
use uuidkit_state::format::StateRecord;
use uuidkit_state::{BlockOrigin, BlockPolicy, FileStore, Reserver};

use crate::support::T_A;

const NODE_A: u64 = 0x0300_0000_00AA;
const NODE_B: u64 = 0x0300_0000_00BB;

/// One process's run: a v1 generator on the state file at `path`, its node
/// from a slot holding `node`; returns its UUIDs and why its first block
/// starts where it does.
fn file_run(path: &std::path::Path, clock: &ManualClock, node: u64) -> (Vec<Uuid>, BlockOrigin) {
    let r = Reserver::new(FileStore::new(path), BlockPolicy::default());
    let slot = NodeSlot::new(48).unwrap();
    slot.set(node).unwrap();
    let mut g = V1Generator::builder()
        .store(r.lease_v1())
        .node_source(&slot)
        .build(clock, ThreadRng)
        .unwrap();
    let out: Vec<Uuid> = (0..20)
        .map(|_| {
            clock.advance(1_000);
            g.generate().unwrap()
        })
        .collect();
    let origin = g.store().block().unwrap().origin;
    let want = node.to_be_bytes()[2..].try_into().unwrap();
    assert!(out.iter().all(|u| u.node() == Some(want)));
    (out, origin)
}

fn read_record(path: &std::path::Path) -> StateRecord {
    StateRecord::parse(&std::fs::read(path).unwrap()).unwrap()
}

#[test]
fn the_state_file_continues_a_nodes_own_sequence_and_no_other() {
    let dir = std::env::temp_dir().join(format!("uuidkit-gen-node-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("state");
    let clock = ManualClock::new(T_A).with_resolution(1_000);

    let (a1, origin) = file_run(&path, &clock, NODE_A);
    assert_eq!(origin, BlockOrigin::NoState);
    let a_mark = read_record(&path).v1.unwrap();
    assert_eq!(a_mark.clock_seq, a1[0].clock_seq().unwrap());

    // Node B (a new lease): a new record, B's own clock sequence; A's is kept,
    // untouched, and not continued.
    let (b1, origin) = file_run(&path, &clock, NODE_B);
    assert_eq!(origin, BlockOrigin::NodeChanged);
    let rec = read_record(&path);
    assert_eq!(rec.v1.unwrap().node, [3, 0, 0, 0, 0, 0xBB]);
    assert_eq!(rec.v1_earlier[0], Some(a_mark));
    assert_eq!(rec.v1.unwrap().clock_seq, b1[0].clock_seq().unwrap());

    // Node A again: A's sequence continues, above everything A issued.
    let (a2, origin) = file_run(&path, &clock, NODE_A);
    assert_eq!(origin, BlockOrigin::Continued);
    assert_eq!(a2[0].clock_seq(), a1[0].clock_seq());
    assert!(a2[0].gregorian_timestamp() > a1[19].gregorian_timestamp());
    let rec = read_record(&path);
    assert_eq!(rec.v1.unwrap().node, [3, 0, 0, 0, 0, 0xAA]);
    assert_eq!(rec.v1_earlier[0].unwrap().node, [3, 0, 0, 0, 0, 0xBB]);
    assert_eq!(rec.v1_earlier[1], None, "each node once");

    // Five other nodes push A out of the earlier ones: back to A, a new sequence.
    for other in 1..=(uuidkit_state::format::EARLIER_NODES as u64) {
        assert_eq!(
            file_run(&path, &clock, NODE_B + other).1,
            BlockOrigin::NodeChanged
        );
    }
    let a = [3, 0, 0, 0, 0, 0xAA];
    assert_eq!(
        read_record(&path).v1_earlier[3].unwrap().node,
        a,
        "the oldest kept"
    );
    file_run(&path, &clock, NODE_B + 5);
    let rec = read_record(&path);
    assert!(rec.v1_earlier.iter().flatten().all(|m| m.node != a));
    assert_eq!(file_run(&path, &clock, NODE_A).1, BlockOrigin::NodeChanged);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A caller's clock sequence is honoured for a node the store has no record
/// of, and loses to the stored one of a node it remembers, current or
/// earlier (`StateRecord::v1_mark` tells which, beforehand).
#[test]
fn a_given_clock_sequence_yields_to_an_earlier_nodes_record() {
    use uuidkit_state::{MemoryStore, format::GregorianMark};
    let mark = |n: u8, clock_seq: u16| GregorianMark {
        hwm: 5,
        clock_seq,
        node: [2, 0, 0, 0, 0, n],
    };
    let mut rec = StateRecord {
        v1: Some(mark(0xB, 9)),
        ..StateRecord::default()
    };
    rec.v1_earlier[0] = Some(mark(0xA, 7));
    let clock = ManualClock::new(T_A).with_resolution(1_000);
    for (n, want) in [(0xA, 7), (0xB, 9), (0xC, 5)] {
        let node = [2, 0, 0, 0, 0, n];
        assert_eq!(
            rec.v1_mark(node).map(|m| m.clock_seq),
            (n != 0xC).then_some(want)
        );
        let r = Reserver::new(MemoryStore::with_record(rec), BlockPolicy::default());
        let mut g = V1Generator::builder()
            .node(node)
            .store(r.lease_v1().with_clock_seq(5))
            .build(&clock, ThreadRng)
            .unwrap();
        assert_eq!(g.generate().unwrap().clock_seq(), Some(want), "node {n:#x}");
    }
}
