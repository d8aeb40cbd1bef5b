//! v1 and v7 generators bound to a state file, amortised per UUID,
//! against the same generators in memory. Blocks make the file cost vanish:
//! one locked, fsynced, renamed write per 100 ms block.
//!
//! cargo bench -p uuidkit-state --bench state -- --warm-up-time 1 --measurement-time 3

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{Criterion, criterion_group, criterion_main};
use uuidkit::clock::{CoarseClock, SystemClock};
use uuidkit::rng::ThreadRng;
use uuidkit::{Generator, V1Generator, V7Generator};
use uuidkit_state::{BlockPolicy, FileStore, Reserver};

const NODE: [u8; 6] = [0x9F, 0x6B, 0xDE, 0xCE, 0xD8, 0x46];

fn state_path(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("uuidkit-bench-state-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn reserver(name: &str) -> Reserver {
    Reserver::new(FileStore::new(state_path(name)), BlockPolicy::default())
}

fn v7(c: &mut Criterion) {
    let mut g = c.benchmark_group("state_v7");
    let mut mem = V7Generator::new(SystemClock, ThreadRng);
    g.bench_function("in_memory", |b| {
        b.iter(|| black_box(mem.generate().unwrap()))
    });
    let mut file = V7Generator::builder()
        .store(reserver("v7").lease_v7())
        .build(SystemClock, ThreadRng)
        .unwrap();
    g.bench_function("state_file", |b| {
        b.iter(|| black_box(file.generate().unwrap()))
    });
    g.finish();
}

fn v1(c: &mut Criterion) {
    let mut g = c.benchmark_group("state_v1");
    let builder = V1Generator::builder().node(NODE);
    let mut mem = builder.build(CoarseClock::new(), ThreadRng).unwrap();
    g.bench_function("in_memory", |b| {
        b.iter(|| black_box(mem.generate().unwrap()))
    });
    let mut file = builder
        .store(reserver("v1").lease_v1())
        .build(CoarseClock::new(), ThreadRng)
        .unwrap();
    g.bench_function("state_file", |b| {
        b.iter(|| black_box(file.generate().unwrap()))
    });
    g.finish();
}

/// One reservation alone (lock, read, check, write, fsync, rename, fsync dir):
/// what a block costs.
fn reservation(c: &mut Criterion) {
    let r = reserver("reserve");
    let mut now = 1_700_000_000_000u64;
    c.bench_function("state_reserve_v7_block", |b| {
        b.iter(|| {
            now += 1_000;
            black_box(r.reserve_v7(now))
        })
    });
}

criterion_group!(benches, v7, v1, reservation);
criterion_main!(benches);
