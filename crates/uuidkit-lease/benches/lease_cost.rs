//! Generation with a node from a real etcd lease (a `LeaseSlot`: the slot's atomic loads, the
//! deadline word and one read of `CLOCK_BOOTTIME` per UUID) against a `StaticNode` of the same
//! value, in the same run. The bench starts a three-member etcd cluster and holds one lease per
//! width for the whole run, kept alive by its own runtime; each pair is measured in several
//! interleaved rounds (`…/static/1`, `…/lease/1`, `…/static/2`, …), so load from other processes
//! falls on both sides alike.
//!
//! `cargo bench -p uuidkit-lease --features etcd --bench lease_cost`; figures in BENCHMARKS.md.

use std::hint::black_box;
use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use test_support::db::EtcdCluster;
use uuidkit::{
    Generator, NodeSource, RolloverPolicy, StaticNode, SystemClock, ThreadRng, V1Generator,
    V6Generator, V8Distributed,
};
use uuidkit_lease::LeaseSlot;
use uuidkit_lease::etcd::{EtcdConfig, EtcdLease};

/// Rounds of each pair.
const ROUNDS: usize = 3;

fn run(c: &mut Criterion, name: &str, g: &mut dyn Generator) {
    c.bench_function(name, |b| {
        b.iter(|| black_box(g.generate().expect("generate")))
    });
}

/// `ROUNDS` interleaved rounds of one generator with the static node, then with the lease.
fn pair(
    c: &mut Criterion,
    name: &str,
    mut on_static: Box<dyn Generator>,
    mut on_lease: Box<dyn Generator>,
) {
    for round in 1..=ROUNDS {
        run(c, &format!("{name}/static/{round}"), &mut *on_static);
        run(c, &format!("{name}/lease/{round}"), &mut *on_lease);
    }
}

/// A `StaticNode` of the value `slot` holds.
fn fixed(slot: &LeaseSlot) -> StaticNode {
    let held = slot.current().expect("the lease is held");
    StaticNode::new(held.value(), held.bits()).expect("the node")
}

fn v8<N: NodeSource + 'static>(node: N) -> Box<dyn Generator> {
    Box::new(
        V8Distributed::builder()
            .node_source(node)
            .build(SystemClock, ThreadRng)
            .expect("v8"),
    )
}

fn v1<N: NodeSource + 'static>(node: N, rollover: RolloverPolicy) -> Box<dyn Generator> {
    Box::new(
        V1Generator::builder()
            .rollover(rollover)
            .node_source(node)
            .build(SystemClock, ThreadRng)
            .expect("v1"),
    )
}

fn v6<N: NodeSource + 'static>(node: N) -> Box<dyn Generator> {
    Box::new(
        V6Generator::builder()
            .node_source(node)
            .build(SystemClock, ThreadRng)
            .expect("v6"),
    )
}

fn lease_cost(c: &mut Criterion) {
    let cluster = EtcdCluster::start().expect("a three-member etcd cluster");
    let lease = |bits: u8| {
        let config = EtcdConfig::new(cluster.endpoints(), format!("/bench/n{bits}"), bits);
        EtcdLease::acquire(&config, &mut ThreadRng).expect("etcd grants a node")
    };
    let (l48, l16) = (lease(48), lease(16));
    let (s48, s16): (Arc<LeaseSlot>, Arc<LeaseSlot>) = (l48.slot().clone(), l16.slot().clone());
    pair(
        c,
        "lease_cost/v8-distributed",
        v8(fixed(&s16)),
        v8(s16.clone()),
    );
    let wait = RolloverPolicy::Wait;
    pair(
        c,
        "lease_cost/v1",
        v1(fixed(&s48), wait),
        v1(s48.clone(), wait),
    );
    pair(c, "lease_cost/v6", v6(fixed(&s48)), v6(s48.clone()));
    let advance = RolloverPolicy::AdvanceTimestamp;
    pair(
        c,
        "lease_cost/v1-advance",
        v1(fixed(&s48), advance),
        v1(s48.clone(), advance),
    );
    // The leases were held (and renewed) throughout.
    assert!(s48.current().is_ok() && s16.current().is_ok());
}

criterion_group!(benches, lease_cost);
criterion_main!(benches);
