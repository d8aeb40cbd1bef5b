//! Makes N snowflake IDs (a 17-bit-sequence layout, so that nothing waits) with a fixed worker
//! and the system clock (`static`) or the ticker clock (`ticker`), with a `LeaseSlot` as the worker
//! source and the system clock (`lease`), or with a `LeaseSlot::pair` (`paired`), in one function (`generate_n`) that
//! callgrind can count alone. The slot holds a worker granted for an hour: the generating
//! thread's work is the same as with a live registry, whose renewals run on other threads.
//!
//! ```text
//! for i in $(seq 11); do for mode in static paired; do
//!     /usr/bin/time -f "$mode %U %S" taskset -c 1 \
//!         target/release/examples/snowflake_lease_count $mode 30000000 >/dev/null
//! done; done
//! valgrind --tool=callgrind --toggle-collect='*generate_n*' \
//!     target/release/examples/snowflake_lease_count static|ticker|lease|paired N
//! ```

use std::hint::black_box;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use uuidkit::clock::{Clock, SystemClock, TickerClock};
use uuidkit::node::{NodeSource, StaticNode};
use uuidkit::rng::ThreadRng;
use uuidkit::snowflake::{Layout, SnowflakeGenerator};
use uuidkit_lease::{BootClock, BootTime, LeaseSlot};

#[inline(never)]
fn generate_n(next: &mut dyn FnMut() -> u64, n: u64) -> u64 {
    let mut x = 0u64;
    for _ in 0..n {
        x ^= black_box(next());
    }
    x
}

fn run<N: NodeSource, K: Clock>(node: N, clock: K, n: u64) -> u64 {
    let layout: Layout = "t41.w5.s17.e1288834974657.u1ms".parse().expect("layout");
    let mut g = SnowflakeGenerator::builder(layout)
        .node_source(node)
        .build(clock, ThreadRng)
        .expect("generator");
    generate_n(&mut || g.generate().expect("id"), n)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(mode), Some(Ok(n))) = (args.first(), args.get(1).map(|n| n.parse::<u64>())) else {
        eprintln!("usage: snowflake_lease_count static|ticker|lease|paired N");
        return ExitCode::from(2);
    };
    let slot = Arc::new(LeaseSlot::new(5, BootTime, Duration::from_millis(100)).expect("slot"));
    slot.grant(9, BootTime.now(), Duration::from_secs(3_600))
        .expect("grant");
    let x = match mode.as_str() {
        "static" => run(StaticNode::new(9, 5).expect("worker"), SystemClock, n),
        "ticker" => run(
            StaticNode::new(9, 5).expect("worker"),
            TickerClock::new(),
            n,
        ),
        "lease" => run(slot.clone(), SystemClock, n),
        "paired" => {
            let (clock, source) = slot.pair();
            run(source, clock, n)
        }
        _ => {
            eprintln!("unknown mode {mode:?}: expected static, ticker, lease or paired");
            return ExitCode::from(2);
        }
    };
    println!("{x}");
    ExitCode::SUCCESS
}
