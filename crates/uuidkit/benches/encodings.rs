//! The short encodings next to the hyphenated form, in the same run: each
//! encoder into a caller's buffer against `Hyphenated::encode_lower`, each
//! decoder against `Uuid::parse` of the hyphenated form
//! (benchmarks/short-encodings.md).
//!
//! cargo bench -p uuidkit --bench encodings

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use uuidkit::Uuid;
use uuidkit::encoding::TypeId;

/// RFC 9562's §4 example: a value with no run of equal digits.
const U: Uuid = Uuid::from_u128(0xf81d4fae_7dec_11d0_a765_00a0c91e6bf6);

fn encode(c: &mut Criterion) {
    let mut g = c.benchmark_group("encode");
    let mut buf = [0u8; TypeId::MAX_LENGTH];
    g.bench_function("hyphenated", |b| {
        b.iter(|| {
            black_box(black_box(U).hyphenated().encode_lower(&mut buf));
        })
    });
    g.bench_function("base32", |b| {
        b.iter(|| {
            black_box(black_box(U).base32().encode(&mut buf));
        })
    });
    g.bench_function("base32hex", |b| {
        b.iter(|| {
            black_box(black_box(U).base32hex().encode(&mut buf));
        })
    });
    g.bench_function("base58", |b| {
        b.iter(|| {
            black_box(black_box(U).base58().encode(&mut buf));
        })
    });
    g.bench_function("base64url", |b| {
        b.iter(|| {
            black_box(black_box(U).base64url().encode(&mut buf));
        })
    });
    g.bench_function("typeid", |b| {
        b.iter(|| {
            let id = TypeId::new(black_box("user"), black_box(U));
            black_box(id.map(|id| id.encode(&mut buf).len()))
        })
    });
    // The encoder alone, of a `TypeId` already made (and its prefix checked).
    let id = TypeId::new("user", U).unwrap_or_else(|e| panic!("{e}"));
    g.bench_function("typeid-encode", |b| {
        b.iter(|| black_box(black_box(id).encode(&mut buf).len()))
    });
    g.finish();
}

fn decode(c: &mut Criterion) {
    let mut g = c.benchmark_group("decode");
    let hyphenated = U.hyphenated().to_string();
    let base32 = U.base32().to_string();
    let base32hex = U.base32hex().to_string();
    let base58 = U.base58().to_string();
    let base64url = U.base64url().to_string();
    let typeid = TypeId::new("user", U).unwrap().to_string();
    g.bench_function("hyphenated", |b| {
        b.iter(|| Uuid::parse(black_box(hyphenated.as_str())))
    });
    g.bench_function("base32", |b| {
        b.iter(|| Uuid::parse_base32(black_box(base32.as_str())))
    });
    g.bench_function("base32hex", |b| {
        b.iter(|| Uuid::parse_base32hex(black_box(base32hex.as_str())))
    });
    g.bench_function("base58", |b| {
        b.iter(|| Uuid::parse_base58(black_box(base58.as_str())))
    });
    g.bench_function("base64url", |b| {
        b.iter(|| Uuid::parse_base64url(black_box(base64url.as_str())))
    });
    g.bench_function("typeid", |b| {
        b.iter(|| TypeId::parse(black_box(typeid.as_str())).map(|t| t.uuid()))
    });
    g.finish();
}

criterion_group!(benches, encode, decode);
criterion_main!(benches);
