//! Snowflake IDs with a worker from a real etcd lease against a fixed worker of the same value
//! (the system clock), in the same run: the lease's `LeaseSlot` as the worker source (its loads,
//! the deadline word and one read of `CLOCK_BOOTTIME` per ID, besides the generator's clock), and
//! a `LeaseSlot::pair` (the generator's clock made from the boot clock, the deadline checked
//! against that reading). Interleaved rounds (`…/static/1`, `…/lease/1`, `…/paired/1`, …), so
//! load from other processes falls on all sides alike.
//!
//! The layout has a 17-bit sequence (131,072 IDs per millisecond), so that IDs back to back
//! never use up a tick: a 12-bit sequence would cap every side at 244 ns per ID and hide the
//! difference (benchmarks/snowflake.md).
//!
//! `cargo bench -p uuidkit-lease --features etcd --bench snowflake_lease`

use std::hint::black_box;
use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use test_support::db::EtcdCluster;
use uuidkit::clock::{Clock, SystemClock};
use uuidkit::node::{NodeSource, StaticNode};
use uuidkit::rng::ThreadRng;
use uuidkit::snowflake::{Layout, SnowflakeGenerator};
use uuidkit_lease::LeaseSlot;
use uuidkit_lease::etcd::{EtcdConfig, EtcdLease};

/// Rounds of each side.
const ROUNDS: usize = 3;

/// Twitter's epoch and 41 time bits, a 5-bit worker and a 17-bit sequence.
fn layout() -> Layout {
    "t41.w5.s17.e1288834974657.u1ms".parse().expect("layout")
}

type Make = Box<dyn FnMut() -> u64>;

fn side<N: NodeSource + 'static, K: Clock + 'static>(node: N, clock: K) -> Make {
    let mut g = SnowflakeGenerator::builder(layout())
        .node_source(node)
        .build(clock, ThreadRng)
        .expect("generator");
    Box::new(move || g.generate().expect("id"))
}

fn snowflake_lease(c: &mut Criterion) {
    let cluster = EtcdCluster::start().expect("a three-member etcd cluster");
    let config = EtcdConfig::new(cluster.endpoints(), "/bench/snowflake-w5", 5);
    let lease = EtcdLease::acquire(&config, &mut ThreadRng).expect("etcd grants a worker");
    let slot: Arc<LeaseSlot> = lease.slot().clone();
    let held = slot.current().expect("held");
    let (clock, source) = slot.pair();
    let mut sides: [(&str, Make); 3] = [
        (
            "static",
            side(
                StaticNode::new(held.value(), 5).expect("worker"),
                SystemClock,
            ),
        ),
        ("lease", side(slot.clone(), SystemClock)),
        ("paired", side(source, clock)),
    ];
    for round in 1..=ROUNDS {
        for (name, make) in &mut sides {
            c.bench_function(&format!("snowflake_lease/{name}/{round}"), |b| {
                b.iter(|| black_box(make()))
            });
        }
    }
    // The lease was held (and renewed) throughout.
    assert!(slot.current().is_ok());
}

criterion_group!(benches, snowflake_lease);
criterion_main!(benches);
