//! Generates N UUIDs with a node from a real site lease or from a fixed node, in one function
//! (`generate_n`) that callgrind can count alone: what a lease costs on the hot path, free of
//! the machine's load. Needs a running uiapd.
//!
//! ```text
//! valgrind --tool=callgrind --toggle-collect='*generate_n*' \
//!     target/release/examples/site_lease_count CONTROL_SOCKET v8|v1|v6 lease|static N
//! ```
//!
//! The difference between two counts (N = 300000 and N = 100000), divided by 200000, is the
//! cost per UUID; benchmarks/node-sources-and-leases.md has the figures.

use std::hint::black_box;
use std::process::ExitCode;

use uuidkit::clock::SystemClock;
use uuidkit::node::StaticNode;
use uuidkit::rng::ThreadRng;
use uuidkit::{Generator, V1Generator, V6Generator, V8Distributed};
use uuidkit_lease::site::{LeaseConfig, SiteLease};

#[inline(never)]
fn generate_n(g: &mut dyn Generator, n: u64) -> u64 {
    let mut x = 0u64;
    for _ in 0..n {
        x ^= black_box(g.generate().expect("generate")).as_u128() as u64;
    }
    x
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [control, kind, mode, n] = args.as_slice() else {
        eprintln!("usage: site_lease_count CONTROL v8|v1|v6 lease|static N");
        return ExitCode::from(2);
    };
    let n: u64 = n.parse().expect("N: a count");
    let bits = if kind == "v8" { 16 } else { 48 };
    let lease = SiteLease::acquire(&LeaseConfig::new(control.into(), bits), &mut ThreadRng)
        .expect("a site lease");
    let fixed = StaticNode::new(lease.node().value(), bits).expect("node");
    let slot = lease.slot().clone();
    let mut g: Box<dyn Generator> = match (kind.as_str(), mode.as_str()) {
        ("v8", "lease") => Box::new(
            V8Distributed::builder()
                .node_source(slot)
                .build(SystemClock, ThreadRng)
                .expect("v8"),
        ),
        ("v8", _) => Box::new(
            V8Distributed::builder()
                .node_source(fixed)
                .build(SystemClock, ThreadRng)
                .expect("v8"),
        ),
        ("v1", "lease") => Box::new(
            V1Generator::builder()
                .node_source(slot)
                .build(SystemClock, ThreadRng)
                .expect("v1"),
        ),
        ("v1", _) => Box::new(
            V1Generator::builder()
                .node_source(fixed)
                .build(SystemClock, ThreadRng)
                .expect("v1"),
        ),
        ("v6", "lease") => Box::new(
            V6Generator::builder()
                .node_source(slot)
                .build(SystemClock, ThreadRng)
                .expect("v6"),
        ),
        _ => Box::new(
            V6Generator::builder()
                .node_source(fixed)
                .build(SystemClock, ThreadRng)
                .expect("v6"),
        ),
    };
    println!("{:x}", generate_n(&mut *g, n));
    ExitCode::SUCCESS
}
