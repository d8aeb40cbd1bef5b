//! Generates N UUIDs with a fixed node (and the system clock), with a fixed node and a
//! `LeaseClock` (the pair's clock alone: `static-bootclock`), with a plain `NodeSlot` (the seam
//! alone), with a `LeaseSlot` (and the system clock), or with a `LeaseSlot::pair`, in one
//! function (`generate_n`) that callgrind can count alone: what each costs on the hot path, free of the machine's load. The slot holds
//! a node granted for an hour; no registry is needed to count the generating thread's work.
//!
//! ```text
//! valgrind --tool=callgrind --toggle-collect='*generate_n*' \
//!     target/release/examples/lease_cost_count v8|v1-advance static|static-bootclock|nodeslot|lease|paired N
//! ```
//!
//! The difference between two counts (N = 300000 and N = 100000), divided by 200000, is the
//! cost per UUID; benchmarks/node-sources-and-leases.md has the figures.

use std::hint::black_box;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use uuidkit::clock::{Clock, SystemClock};
use uuidkit::generator::RolloverPolicy;
use uuidkit::node::{NodeSource, StaticNode};
use uuidkit::rng::ThreadRng;
use uuidkit::{Generator, V1Generator, V8Distributed};
use uuidkit_lease::{BootClock, BootTime, LeaseSlot};

#[inline(never)]
fn generate_n(g: &mut dyn Generator, n: u64) -> u64 {
    let mut x = 0u64;
    for _ in 0..n {
        x ^= black_box(g.generate().expect("generate")).as_u128() as u64;
    }
    x
}

fn make<N: NodeSource + 'static, K: Clock + 'static>(
    kind: &str,
    node: N,
    clock: K,
) -> Box<dyn Generator> {
    if kind == "v8" {
        Box::new(
            V8Distributed::builder()
                .node_source(node)
                .build(clock, ThreadRng)
                .expect("v8"),
        )
    } else {
        Box::new(
            V1Generator::builder()
                .rollover(RolloverPolicy::AdvanceTimestamp)
                .node_source(node)
                .build(clock, ThreadRng)
                .expect("v1"),
        )
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [kind, mode, n] = args.as_slice() else {
        eprintln!(
            "usage: lease_cost_count v8|v1-advance static|static-bootclock|nodeslot|lease|paired N"
        );
        return ExitCode::from(2);
    };
    let n: u64 = n.parse().expect("N: a count");
    let bits = if kind == "v8" { 16 } else { 48 };
    let slot = Arc::new(LeaseSlot::new(bits, BootTime, Duration::from_millis(100)).expect("slot"));
    let node = if bits == 48 { 0x0300_0000_0001 } else { 0x2A };
    slot.grant(node, BootTime.now(), Duration::from_secs(3600))
        .expect("grant");
    let mut g = match mode.as_str() {
        "static" => make(
            kind,
            StaticNode::new(node, bits).expect("node"),
            SystemClock,
        ),
        "lease" => make(kind, slot.clone(), SystemClock),
        "static-bootclock" => {
            let (clock, _source) = slot.pair();
            make(kind, StaticNode::new(node, bits).expect("node"), clock)
        }
        "nodeslot" => {
            // The seam alone: a plain `NodeSlot`, no lease, no deadline.
            let plain = Arc::new(uuidkit::node::NodeSlot::new(bits).expect("slot"));
            plain.set(node).expect("node");
            make(kind, plain, SystemClock)
        }
        _ => {
            let (clock, source) = slot.pair();
            make(kind, source, clock)
        }
    };
    println!("{}", generate_n(&mut *g, n));
    ExitCode::SUCCESS
}
