//! The loops of `benches/core.rs` and `benches/generators.rs` whose ratios
//! to the peers are closest to their targets, for each library, without
//! criterion: instructions per call under callgrind, exact and repeatable
//! on a busy machine (benchmarks/library.md).
//!
//! cargo build --release -p uuidkit --example peer_loops
//! valgrind --tool=callgrind target/release/examples/peer_loops parse-hyphenated-uuidkit 200000
//! target/release/examples/peer_loops parse-hyphenated-uuidkit 100000 fastest
//!
//! With `fastest`, the calls run in 200 rounds and the program prints the
//! fastest round's time per call: a round that another process interrupts is
//! slower, never faster, so on a shared machine the fastest of many short
//! rounds is steadier than a median.

use std::hint::black_box;

use uuid_simd::UuidExt;

const HYPHENATED: &str = "f81d4fae-7dec-11d0-a765-00a0c91e6bf6";

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(op), Some(n)) = (args.get(1), args.get(2).and_then(|n| n.parse::<u64>().ok())) else {
        eprintln!(
            "usage: peer_loops OPERATION CALLS (OPERATION: parse-hyphenated-uuidkit, parse-hyphenated-uuid, parse-hyphenated-uuid-simd, new-v4-uuidkit, new-v4-uuid, now-v7-uuidkit, now-v7-uuid, system-time-now, clock-gettime-realtime)"
        );
        std::process::exit(2);
    };
    let fastest = args.get(3).is_some_and(|a| a == "fastest");
    macro_rules! calls {
        ($body:expr) => {{
            let rounds = if fastest { 200 } else { 1 };
            let mut best = f64::INFINITY;
            for _ in 0..rounds {
                let start = std::time::Instant::now();
                for _ in 0..n {
                    let _ = black_box($body);
                }
                best = best.min(start.elapsed().as_secs_f64() * 1e9 / n as f64);
            }
            if fastest {
                println!("{op}: {best:.3} ns per call (fastest of {rounds} rounds of {n})");
            }
        }};
    }
    match op.as_str() {
        "parse-hyphenated-uuidkit" => calls!(uuidkit::Uuid::parse(black_box(HYPHENATED))),
        "parse-hyphenated-uuid" => calls!(uuid::Uuid::parse_str(black_box(HYPHENATED))),
        "parse-hyphenated-uuid-simd" => {
            calls!(<uuid::Uuid as UuidExt>::parse(black_box(HYPHENATED)))
        }
        "new-v4-uuidkit" => calls!(uuidkit::Uuid::new_v4()),
        "new-v4-uuid" => calls!(uuid::Uuid::new_v4()),
        "now-v7-uuidkit" => calls!(uuidkit::Uuid::now_v7()),
        "now-v7-uuid" => calls!(uuid::Uuid::now_v7()),
        // The floor `now_v7` is held to: the clock read as a program makes it.
        "system-time-now" => calls!(std::time::SystemTime::now()),
        // The same clock without the standard library's wrapper, made into
        // nanoseconds as `now_v7` makes it (a `timespec` handed back whole
        // would be copied from two 8-byte stores, a stall of its own).
        #[cfg(unix)]
        "clock-gettime-realtime" => calls!({
            let mut ts = libc::timespec {
                tv_sec: 0,
                tv_nsec: 0,
            };
            // SAFETY: `ts` is a valid, writable timespec; CLOCK_REALTIME exists on every Unix.
            unsafe { libc::clock_gettime(libc::CLOCK_REALTIME, &mut ts) };
            (ts.tv_sec as u64)
                .wrapping_mul(1_000_000_000)
                .wrapping_add(ts.tv_nsec as u64)
        }),
        other => {
            eprintln!("unknown operation {other:?}");
            std::process::exit(2);
        }
    }
}
