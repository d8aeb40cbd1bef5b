//! The façade's cost per conversion, against uuidv47's Rust port (the
//! `uuid47` crate) in the same run: the uuidv47 mode, which computes the same
//! bytes, and the full mode, which permutes all 122 bits
//! (benchmarks/library.md, "Façades").
//!
//! cargo bench -p uuidkit --features facade --bench facade

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use uuidkit::Uuid;
use uuidkit::facade::{Facade, FacadeKey, FacadeMode};

/// uuidv47's demo v7 and key (`k0 = 0x0123456789abcdef`, `k1 = 0xfedcba9876543210`).
const V7: Uuid = Uuid::from_u128(0x018f2d9f_9a2a_7def_8c3f_7b1a2c4d5e6f);
const KEY: [u8; 16] = [
    0xef, 0xcd, 0xab, 0x89, 0x67, 0x45, 0x23, 0x01, 0x10, 0x32, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe,
];

fn conversions(c: &mut Criterion) {
    let key = FacadeKey::from_bytes(KEY);
    let v47 = Facade::new(&key, FacadeMode::Uuidv47);
    let full = Facade::new(&key, FacadeMode::Full);
    let theirs_key = uuid47::UuidV47Key::new(0x0123456789abcdef, 0xfedcba9876543210);
    let theirs_v7 =
        uuid47::Uuid128::from_bytes(V7.into_bytes()).unwrap_or_else(|e| panic!("{e:?}"));
    let shown47 = v47.encode(V7).unwrap_or_else(|e| panic!("{e}"));
    let shown_full = full.encode(V7).unwrap_or_else(|e| panic!("{e}"));
    let theirs_shown = theirs_v7.encode_as_v4facade(&theirs_key);

    let mut g = c.benchmark_group("facade-encode");
    g.bench_function("uuid47-crate", |b| {
        b.iter(|| black_box(black_box(theirs_v7).encode_as_v4facade(black_box(&theirs_key))))
    });
    g.bench_function("uuidkit-uuidv47", |b| {
        b.iter(|| black_box(v47.encode(black_box(V7))))
    });
    g.bench_function("uuidkit-full", |b| {
        b.iter(|| black_box(full.encode(black_box(V7))))
    });
    g.finish();

    let mut g = c.benchmark_group("facade-decode");
    g.bench_function("uuid47-crate", |b| {
        b.iter(|| black_box(black_box(theirs_shown).decode_from_v4facade(black_box(&theirs_key))))
    });
    g.bench_function("uuidkit-uuidv47", |b| {
        b.iter(|| black_box(v47.decode(black_box(shown47))))
    });
    g.bench_function("uuidkit-full", |b| {
        b.iter(|| black_box(full.decode(black_box(shown_full))))
    });
    g.finish();

    // Making a façade from a key: the full mode's key derivation, AES key
    // schedule and AES(P).
    let mut g = c.benchmark_group("facade-new");
    g.bench_function("uuidv47", |b| {
        b.iter(|| black_box(Facade::new(black_box(&key), FacadeMode::Uuidv47)))
    });
    g.bench_function("full", |b| {
        b.iter(|| black_box(Facade::new(black_box(&key), FacadeMode::Full)))
    });
    g.finish();
}

criterion_group!(benches, conversions);
criterion_main!(benches);
