//! Generation with a node from a real etcd lease against a `StaticNode` of the same value (with
//! the system clock), in the same run, two ways: the lease's `LeaseSlot` as the node source (the
//! slot's atomic loads, the deadline word and one read of `CLOCK_BOOTTIME` per UUID, besides the
//! generator's own clock reading), and a `LeaseSlot::pair` (the generator's clock made from the
//! boot clock, the deadline checked against that reading: one clock reading per UUID). The bench starts a three-member etcd cluster and holds one lease per
//! width for the whole run, kept alive by its own runtime; each pair is measured in several
//! interleaved rounds (`…/static/1`, `…/lease/1`, `…/paired/1`, `…/static/2`, …), so load from other processes
//! falls on both sides alike.
//!
//! `cargo bench -p uuidkit-lease --features etcd --bench lease_cost`; figures in benchmarks/node-sources-and-leases.md.

use std::hint::black_box;
use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use test_support::db::EtcdCluster;
use uuidkit::clock::{Clock, SystemClock};
use uuidkit::generator::RolloverPolicy;
use uuidkit::node::{NodeSource, StaticNode};
use uuidkit::rng::ThreadRng;
use uuidkit::{Generator, V1Generator, V6Generator, V8Distributed};
use uuidkit_lease::LeaseSlot;
use uuidkit_lease::etcd::{EtcdConfig, EtcdLease};

/// Rounds of each pair.
const ROUNDS: usize = 3;

fn run(c: &mut Criterion, name: &str, g: &mut dyn Generator) {
    c.bench_function(name, |b| {
        b.iter(|| black_box(g.generate().expect("generate")))
    });
}

/// `ROUNDS` interleaved rounds of one generator with the static node, with the lease's slot,
/// and with a pair made from the slot.
fn rounds(c: &mut Criterion, name: &str, mut sides: [(&str, Box<dyn Generator>); 3]) {
    for round in 1..=ROUNDS {
        for (side, g) in &mut sides {
            run(c, &format!("{name}/{side}/{round}"), &mut **g);
        }
    }
}

/// A `StaticNode` of the value `slot` holds.
fn fixed(slot: &LeaseSlot) -> StaticNode {
    let held = slot.current().expect("the lease is held");
    StaticNode::new(held.value(), held.bits()).expect("the node")
}

/// The three sides of one generator, each with its own concrete types (no dynamic dispatch in
/// the measured loop): static node, slot, pair. `$make` is a function generic over the node
/// source and the clock.
macro_rules! sides {
    ($slot:expr, $make:expr) => {{
        let slot: &Arc<LeaseSlot> = $slot;
        let (clock, source) = slot.pair();
        [
            ("static", $make(fixed(slot), SystemClock)),
            ("lease", $make(slot.clone(), SystemClock)),
            ("paired", $make(source, clock)),
        ]
    }};
}

fn v8<N: NodeSource + 'static, K: Clock + 'static>(node: N, clock: K) -> Box<dyn Generator> {
    Box::new(
        V8Distributed::builder()
            .node_source(node)
            .build(clock, ThreadRng)
            .expect("v8"),
    )
}

fn v1<N: NodeSource + 'static, K: Clock + 'static>(node: N, clock: K) -> Box<dyn Generator> {
    Box::new(
        V1Generator::builder()
            .node_source(node)
            .build(clock, ThreadRng)
            .expect("v1"),
    )
}

fn v1_advance<N: NodeSource + 'static, K: Clock + 'static>(
    node: N,
    clock: K,
) -> Box<dyn Generator> {
    Box::new(
        V1Generator::builder()
            .rollover(RolloverPolicy::AdvanceTimestamp)
            .node_source(node)
            .build(clock, ThreadRng)
            .expect("v1"),
    )
}

fn v6<N: NodeSource + 'static, K: Clock + 'static>(node: N, clock: K) -> Box<dyn Generator> {
    Box::new(
        V6Generator::builder()
            .node_source(node)
            .build(clock, ThreadRng)
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
    rounds(c, "lease_cost/v8-distributed", sides!(&s16, v8));
    rounds(c, "lease_cost/v1", sides!(&s48, v1));
    rounds(c, "lease_cost/v6", sides!(&s48, v6));
    rounds(c, "lease_cost/v1-advance", sides!(&s48, v1_advance));
    // The leases were held (and renewed) throughout.
    assert!(s48.current().is_ok() && s16.current().is_ok());
}

criterion_group!(benches, lease_cost);
criterion_main!(benches);
