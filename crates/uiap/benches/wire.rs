//! Criterion benchmarks: decode (`Repr::parse`, `Packet::new_checked`) and encode (`Repr::emit`).
//!
//! `cargo bench -p uiap --bench wire -- --warm-up-time 1 --measurement-time 3`

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use uiap::wire::{Packet, Repr};

/// A Claim-Attempt for the prefix 192.168/16 (§3.2.2) in DID 1:2:3:0 (§6.1): 38 octets.
const PREFIX: [u8; 38] = [
    0x01, 0x00, 0x00, 0x20, 0x00, 0x00, 0x0e, 0x10, 0x02, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
    0x00, 0x00, 0x00, 0x01, 0xde, 0xad, 0xbe, 0xef, 0x00, 0x01, 0x00, 0x02, 0x00, 0x03, 0x00, 0x00,
    0x00, 0x01, 0x02, 0x00, 0xc0, 0xa8,
];

/// The largest message: a range of two 255-octet UIDs (546 octets).
fn max_range() -> Vec<u8> {
    let mut m = PREFIX[..36].to_vec();
    m[33] = 2;
    m[34] = 255;
    m[35] = 255;
    m.extend(std::iter::repeat_n(0x11, 255));
    m.extend(std::iter::repeat_n(0x22, 255));
    m
}

fn decode(c: &mut Criterion) {
    let max = max_range();
    let mut g = c.benchmark_group("wire/decode");
    g.bench_function("repr_parse/prefix_38", |b| {
        b.iter(|| Repr::parse(black_box(&PREFIX)))
    });
    g.bench_function("repr_parse/range_546", |b| {
        b.iter(|| Repr::parse(black_box(&max)))
    });
    g.bench_function("packet_new_checked+hop_limit", |b| {
        b.iter(|| Packet::new_checked(black_box(&PREFIX[..])).map(|p| p.hop_limit()))
    });
    let mut bad = PREFIX;
    bad[0] = 2;
    g.bench_function("repr_parse/reject_version", |b| {
        b.iter(|| Repr::parse(black_box(&bad)))
    });
    g.finish();
}

fn encode(c: &mut Criterion) {
    let prefix = Repr::parse(&PREFIX).unwrap();
    let max = Repr::parse(&max_range()).unwrap();
    let mut g = c.benchmark_group("wire/encode");
    let mut buf = vec![0u8; prefix.buffer_len()];
    g.bench_function("repr_emit/prefix_38", |b| {
        b.iter(|| black_box(&prefix).emit(black_box(&mut buf)))
    });
    let mut buf = vec![0u8; max.buffer_len()];
    g.bench_function("repr_emit/range_546", |b| {
        b.iter(|| black_box(&max).emit(black_box(&mut buf)))
    });
    g.bench_function("repr_to_vec/prefix_38", |b| {
        b.iter(|| black_box(&prefix).to_vec())
    });
    g.finish();
}

criterion_group!(benches, decode, encode);
criterion_main!(benches);
