//! Generators against the `uuid` crate with its `fast-rng` feature (a
//! thread-local `rand` generator, as a user who cares about speed configures
//! it), in the same run.
//!
//! cargo bench -p uuidkit --bench generators
//!
//! `cargo xtask bench` runs this and prints the ratios (benchmarks/library.md).

use std::hint::black_box;
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use uuidkit::clock::{CoarseClock, SystemClock};
use uuidkit::generator::RolloverPolicy;
use uuidkit::node::{NodeSlot, NodeSource};
use uuidkit::rng::ThreadRng;
use uuidkit::{Generator, Hyphenated, Uuid, V1Generator, V6Generator, V7Generator, V8Distributed};

const NODE: [u8; 6] = [0x9F, 0x6B, 0xDE, 0xCE, 0xD8, 0x46];
const BATCH: usize = 1024;

fn v4(c: &mut Criterion) {
    let mut g = c.benchmark_group("new_v4");
    g.bench_function("uuidkit", |b| b.iter(|| black_box(Uuid::new_v4())));
    g.bench_function("uuid", |b| b.iter(|| black_box(uuid::Uuid::new_v4())));
    g.throughput(Throughput::Elements(BATCH as u64));
    let mut buf = vec![Uuid::NIL; BATCH];
    g.bench_function("uuidkit_fill_1024", |b| {
        b.iter(|| {
            Uuid::fill_v4(&mut buf);
            black_box(&buf);
        })
    });
    g.finish();
}

fn v7(c: &mut Criterion) {
    let mut g = c.benchmark_group("now_v7");
    g.bench_function("uuidkit", |b| b.iter(|| black_box(Uuid::now_v7())));
    g.bench_function("uuid", |b| b.iter(|| black_box(uuid::Uuid::now_v7())));
    // The clock read every v7 UUID needs, as a program makes it: the floor
    // `now_v7` is held to (benchmarks/library.md).
    g.bench_function("system_time_now", |b| {
        b.iter(|| black_box(std::time::SystemTime::now()))
    });
    let mut own = V7Generator::new(SystemClock, ThreadRng);
    g.bench_function("uuidkit_V7Generator", |b| {
        b.iter(|| black_box(own.generate().unwrap()))
    });
    g.throughput(Throughput::Elements(BATCH as u64));
    let mut buf = vec![Uuid::NIL; BATCH];
    g.bench_function("uuidkit_fill_v7_1024", |b| {
        b.iter(|| {
            Uuid::fill_v7(&mut buf);
            black_box(&buf);
        })
    });
    g.bench_function("uuidkit_V7Generator_fill_1024", |b| {
        b.iter(|| {
            own.fill(&mut buf).unwrap();
            black_box(&buf);
        })
    });
    g.finish();
}

/// Time per UUID with two threads generating at once (total time ÷ total UUIDs).
fn two_threads(iters: u64, f: fn()) -> Duration {
    let barrier = Barrier::new(2);
    let per_thread = iters.div_ceil(2);
    let start = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                barrier.wait();
                for _ in 0..per_thread {
                    f();
                }
            });
        }
    });
    start.elapsed()
}

fn v7_two_threads(c: &mut Criterion) {
    let mut g = c.benchmark_group("now_v7_2threads");
    g.bench_function("uuidkit", |b| {
        b.iter_custom(|n| {
            two_threads(n, || {
                black_box(Uuid::now_v7());
            })
        })
    });
    g.bench_function("uuid", |b| {
        b.iter_custom(|n| {
            two_threads(n, || {
                black_box(uuid::Uuid::now_v7());
            })
        })
    });
    g.finish();
}

fn v1_v6(c: &mut Criterion) {
    let mut g = c.benchmark_group("now_v1");
    let v1_builder = V1Generator::builder().node(NODE);
    let mut v1 = v1_builder.build(CoarseClock::new(), ThreadRng).unwrap();
    g.bench_function("uuidkit", |b| b.iter(|| black_box(v1.generate().unwrap())));
    // The per-UUID CPU cost without the 10 M/s cap (one 100-ns tick per UUID):
    // the generator may run ahead of the clock.
    let mut v1a = v1_builder
        .rollover(RolloverPolicy::AdvanceTimestamp)
        .build(CoarseClock::new(), ThreadRng)
        .unwrap();
    g.bench_function("uuidkit_advance", |b| {
        b.iter(|| black_box(v1a.generate().unwrap()))
    });
    g.bench_function("uuid", |b| b.iter(|| black_box(uuid::Uuid::now_v1(&NODE))));
    g.finish();
    let mut g = c.benchmark_group("now_v6");
    let mut v6 = V6Generator::new(CoarseClock::new(), ThreadRng);
    g.bench_function("uuidkit_fresh", |b| {
        b.iter(|| black_box(v6.generate().unwrap()))
    });
    let mut v6r = V6Generator::builder()
        .node(NODE)
        .build(CoarseClock::new(), ThreadRng)
        .unwrap();
    g.bench_function("uuidkit_retain", |b| {
        b.iter(|| black_box(v6r.generate().unwrap()))
    });
    let mut v6a = V6Generator::builder()
        .rollover(RolloverPolicy::AdvanceTimestamp)
        .build(CoarseClock::new(), ThreadRng)
        .unwrap();
    g.bench_function("uuidkit_fresh_advance", |b| {
        b.iter(|| black_box(v6a.generate().unwrap()))
    });
    g.bench_function("uuid", |b| b.iter(|| black_box(uuid::Uuid::now_v6(&NODE))));
    g.finish();
}

/// Each generator with a fixed node against the same generator reading its
/// node from a `NodeSlot` before every UUID (RFC 9562 §6.4), in one run: the
/// price of a node that can be lost. v1/v6 advance the timestamp, so the 10 M/s
/// clock cap does not hide it.
fn node_source(c: &mut Criterion) {
    let slot48 = Arc::new(NodeSlot::new(48).unwrap());
    slot48
        .set(u64::from_be_bytes([
            0, 0, 0x9F, 0x6B, 0xDE, 0xCE, 0xD8, 0x46,
        ]))
        .unwrap();
    let slot16 = Arc::new(NodeSlot::new(16).unwrap());
    slot16.set(0x2A2A).unwrap();
    let mut g = c.benchmark_group("node_source");
    let v1 = V1Generator::builder().rollover(RolloverPolicy::AdvanceTimestamp);
    let mut a = v1.node(NODE).build(CoarseClock::new(), ThreadRng).unwrap();
    g.bench_function("v1_static", |b| b.iter(|| black_box(a.generate().unwrap())));
    let mut a = v1
        .node_source(slot48.clone())
        .build(CoarseClock::new(), ThreadRng)
        .unwrap();
    g.bench_function("v1_slot", |b| b.iter(|| black_box(a.generate().unwrap())));
    let dyn_slot: Arc<dyn NodeSource> = slot48.clone();
    let mut a = v1
        .node_source(dyn_slot)
        .build(CoarseClock::new(), ThreadRng)
        .unwrap();
    g.bench_function("v1_dyn_slot", |b| {
        b.iter(|| black_box(a.generate().unwrap()))
    });
    let v6 = V6Generator::builder().rollover(RolloverPolicy::AdvanceTimestamp);
    let mut a = v6.node(NODE).build(CoarseClock::new(), ThreadRng).unwrap();
    g.bench_function("v6_static", |b| b.iter(|| black_box(a.generate().unwrap())));
    let mut a = v6
        .node_source(slot48.clone())
        .build(CoarseClock::new(), ThreadRng)
        .unwrap();
    g.bench_function("v6_slot", |b| b.iter(|| black_box(a.generate().unwrap())));
    let mut a = V8Distributed::builder()
        .node(0x2A2A, 16)
        .build(CoarseClock::new(), ThreadRng)
        .unwrap();
    g.bench_function("v8_static", |b| b.iter(|| black_box(a.generate().unwrap())));
    let mut a = V8Distributed::builder()
        .node_source(slot16.clone())
        .build(CoarseClock::new(), ThreadRng)
        .unwrap();
    g.bench_function("v8_slot", |b| b.iter(|| black_box(a.generate().unwrap())));
    g.finish();
}

/// Canonical lines (36 characters and '\n'), 4096 UUIDs per iteration: the bulk
/// formatter against the `uuid` crate's per-UUID `hyphenated().encode_lower`
/// (and this crate's), the newline added the same way for both.
fn lines(c: &mut Criterion) {
    const N: usize = 4096;
    const LINE: usize = Hyphenated::LINE_LENGTH;
    let mut batch = vec![Uuid::NIL; N];
    Uuid::fill_v7(&mut batch);
    let theirs: Vec<uuid::Uuid> = batch
        .iter()
        .map(|u| uuid::Uuid::from_bytes(*u.as_bytes()))
        .collect();
    let mut text = vec![0u8; N * LINE];
    let mut g = c.benchmark_group("lines_4096");
    g.throughput(Throughput::Elements(N as u64));
    g.bench_function("uuidkit_encode_lines_lower", |b| {
        b.iter(|| black_box(Hyphenated::encode_lines_lower(black_box(&batch), &mut text).len()))
    });
    g.bench_function("uuidkit_encode_lower_each", |b| {
        b.iter(|| {
            for (u, line) in black_box(&batch).iter().zip(text.chunks_exact_mut(LINE)) {
                u.hyphenated().encode_lower(line);
                line[36] = b'\n';
            }
            black_box(&text);
        })
    });
    g.bench_function("uuid_encode_lower_each", |b| {
        b.iter(|| {
            for (u, line) in black_box(&theirs).iter().zip(text.chunks_exact_mut(LINE)) {
                u.hyphenated().encode_lower(line);
                line[36] = b'\n';
            }
            black_box(&text);
        })
    });
    // What `uuidkit new v7 -n N` does per batch: generate, then format.
    g.bench_function("uuidkit_fill_v7_and_lines", |b| {
        b.iter(|| {
            Uuid::fill_v7(&mut batch);
            black_box(Hyphenated::encode_lines_lower(&batch, &mut text).len())
        })
    });
    g.finish();
}

/// The fork check every generator makes before each UUID
/// (docs/generator-design.md G1): alone, and the generators that pay it, so
/// benchmarks/state-file.md can put the check's share of a UUID.
fn fork_check(c: &mut Criterion) {
    let mut g = c.benchmark_group("fork_check");
    let generation = uuidkit::sync::fork_generation();
    g.bench_function("check_alone", |b| {
        b.iter(|| black_box(uuidkit::sync::forked_since(black_box(generation))))
    });
    g.bench_function("now_v7", |b| b.iter(|| black_box(Uuid::now_v7())));
    let mut v7 = V7Generator::new(SystemClock, ThreadRng);
    g.bench_function("V7Generator", |b| {
        b.iter(|| black_box(v7.generate().unwrap()))
    });
    let mut v1 = V1Generator::builder()
        .rollover(RolloverPolicy::AdvanceTimestamp)
        .build(CoarseClock::new(), ThreadRng)
        .unwrap();
    g.bench_function("V1Generator_advance", |b| {
        b.iter(|| black_box(v1.generate().unwrap()))
    });
    g.finish();
}

criterion_group!(
    benches,
    v4,
    v7,
    v7_two_threads,
    v1_v6,
    node_source,
    lines,
    fork_check
);
criterion_main!(benches);
