//! The core type against its peers, in the same run: the `uuid` crate and,
//! for text, the `uuid-simd` crate. Parse, format, `to_string`, v3, v5, v8.
//!
//! cargo bench -p uuidkit --bench core
//!
//! `cargo xtask bench` runs this and prints the ratios (benchmarks/library.md).

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use uuid_simd::{AsOut, AsciiCase, UuidExt};

const HYPHENATED: &str = "f81d4fae-7dec-11d0-a765-00a0c91e6bf6";
const SIMPLE: &str = "F81D4FAE7DEC11D0A76500A0C91E6BF6";
const INVALID: &str = "f81d4fae-7dec-11d0-a765-00a0c91e6bfg";
const NAME: &[u8] = b"www.example.com";

/// Each library parsing `text` (the whole `Result` goes to `black_box`).
fn parse_group(c: &mut Criterion, group: &str, text: &'static str) {
    let mut g = c.benchmark_group(group);
    g.bench_function("uuidkit", |b| {
        b.iter(|| uuidkit::Uuid::parse(black_box(text)))
    });
    g.bench_function("uuid", |b| {
        b.iter(|| uuid::Uuid::parse_str(black_box(text)))
    });
    g.bench_function("uuid-simd", |b| {
        b.iter(|| <uuid::Uuid as UuidExt>::parse(black_box(text)))
    });
    g.finish();
}

fn parse(c: &mut Criterion) {
    parse_group(c, "parse_hyphenated", HYPHENATED);
    parse_group(c, "parse_simple", SIMPLE);
    parse_group(c, "parse_invalid", INVALID);
    // The same, consumed as callers do (`?`/`unwrap`): the parser alone,
    // without criterion's copy of the whole `Result` into `black_box`.
    let mut g = c.benchmark_group("parse_hyphenated_unwrapped");
    g.bench_function("uuidkit", |b| {
        b.iter(|| uuidkit::Uuid::parse(black_box(HYPHENATED)).unwrap())
    });
    g.bench_function("uuid", |b| {
        b.iter(|| uuid::Uuid::parse_str(black_box(HYPHENATED)).unwrap())
    });
    g.bench_function("uuid-simd", |b| {
        b.iter(|| <uuid::Uuid as UuidExt>::parse_hyphenated(black_box(HYPHENATED)).unwrap())
    });
    g.finish();
    parse_distinct(c);
}

/// Distinct inputs per batch in [`parse_distinct`], as a stream of UUIDs
/// read from a file or a database would bring them.
const DISTINCT: usize = 4096;

/// The hyphenated forms of [`DISTINCT`] random UUIDs (a fixed seed, so every
/// run parses the same texts), each in its own allocation.
fn distinct_texts() -> Vec<String> {
    let mut x = 0x9E37_79B9_7F4A_7C15_u64;
    let mut next = || {
        // splitmix64
        x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = x;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    (0..DISTINCT)
        .map(|_| {
            uuid::Uuid::from_u64_pair(next(), next())
                .hyphenated()
                .to_string()
        })
        .collect()
}

/// The hyphenated parse over [`DISTINCT`] different texts per iteration
/// (each `Result` to `black_box`): the same code as `parse_hyphenated`, but
/// the input, its address and the answer change on every call, as they do
/// in a real stream, where one repeated text lets the CPU learn all three.
fn parse_distinct(c: &mut Criterion) {
    let texts = distinct_texts();
    let mut g = c.benchmark_group("parse_hyphenated_distinct");
    g.throughput(criterion::Throughput::Elements(DISTINCT as u64));
    g.bench_function("uuidkit", |b| {
        b.iter(|| {
            for t in black_box(&texts) {
                let _ = black_box(uuidkit::Uuid::parse(t.as_str()));
            }
        })
    });
    g.bench_function("uuid", |b| {
        b.iter(|| {
            for t in black_box(&texts) {
                let _ = black_box(uuid::Uuid::parse_str(t));
            }
        })
    });
    g.bench_function("uuid-simd", |b| {
        b.iter(|| {
            for t in black_box(&texts) {
                let _ = black_box(<uuid::Uuid as UuidExt>::parse(t.as_str()));
            }
        })
    });
    g.finish();
}

fn format(c: &mut Criterion) {
    let ours = uuidkit::Uuid::parse(HYPHENATED).unwrap();
    let theirs = uuid::Uuid::parse_str(HYPHENATED).unwrap();
    let mut g = c.benchmark_group("format_hyphenated_buffer");
    g.bench_function("uuidkit", |b| {
        let mut buf = [0u8; 36];
        b.iter(|| {
            black_box(black_box(ours).hyphenated().encode_lower(&mut buf));
        })
    });
    g.bench_function("uuid", |b| {
        let mut buf = [0u8; 36];
        b.iter(|| {
            black_box(black_box(theirs).hyphenated().encode_lower(&mut buf));
        })
    });
    g.bench_function("uuid-simd", |b| {
        let mut buf = [0u8; 36];
        b.iter(|| {
            let bytes = black_box(theirs).into_bytes();
            black_box(uuid_simd::format_hyphenated(
                &bytes,
                buf.as_out(),
                AsciiCase::Lower,
            ));
        })
    });
    g.finish();
    let mut g = c.benchmark_group("format_simple_buffer");
    g.bench_function("uuidkit", |b| {
        let mut buf = [0u8; 32];
        b.iter(|| {
            black_box(black_box(ours).simple().encode_lower(&mut buf));
        })
    });
    g.bench_function("uuid", |b| {
        let mut buf = [0u8; 32];
        b.iter(|| {
            black_box(black_box(theirs).simple().encode_lower(&mut buf));
        })
    });
    g.bench_function("uuid-simd", |b| {
        let mut buf = [0u8; 32];
        b.iter(|| {
            let bytes = black_box(theirs).into_bytes();
            black_box(uuid_simd::format_simple(
                &bytes,
                buf.as_out(),
                AsciiCase::Lower,
            ));
        })
    });
    g.finish();
    let mut g = c.benchmark_group("to_string");
    g.bench_function("uuidkit", |b| b.iter(|| black_box(ours).to_string()));
    g.bench_function("uuid", |b| b.iter(|| black_box(theirs).to_string()));
    g.bench_function("uuid-simd", |b| {
        b.iter(|| black_box(theirs).format_hyphenated().to_string())
    });
    g.finish();
    // A UUID made from integers just before it is formatted (as a generator
    // or `from_u128` makes it): it reaches memory through two 64-bit stores.
    let value = ours.as_u128();
    let mut g = c.benchmark_group("to_string_from_u128");
    g.bench_function("uuidkit", |b| {
        b.iter(|| uuidkit::Uuid::from_u128(black_box(value)).to_string())
    });
    g.bench_function("uuid", |b| {
        b.iter(|| uuid::Uuid::from_u128(black_box(value)).to_string())
    });
    g.finish();
}

fn name_based(c: &mut Criterion) {
    let ns = uuidkit::namespace::DNS;
    let their_ns = uuid::Uuid::NAMESPACE_DNS;
    let long = [b'x'; 200];
    for (group, name) in [("v5", NAME), ("v5_200_byte_name", &long[..])] {
        let mut g = c.benchmark_group(group);
        g.bench_function("uuidkit", |b| {
            b.iter(|| uuidkit::Uuid::new_v5(&ns, black_box(name)))
        });
        g.bench_function("uuid", |b| {
            b.iter(|| uuid::Uuid::new_v5(&their_ns, black_box(name)))
        });
        g.finish();
    }
    let mut g = c.benchmark_group("v3");
    g.bench_function("uuidkit", |b| {
        b.iter(|| uuidkit::Uuid::new_v3(&ns, black_box(NAME)))
    });
    g.bench_function("uuid", |b| {
        b.iter(|| uuid::Uuid::new_v3(&their_ns, black_box(NAME)))
    });
    g.finish();
    let mut g = c.benchmark_group("v8_name_sha256");
    g.bench_function("uuidkit", |b| {
        b.iter(|| uuidkit::Uuid::new_v8_name(uuidkit::NameHash::Sha256, &ns, black_box(NAME)))
    });
    g.finish();
}

criterion_group!(benches, parse, format, name_based);
criterion_main!(benches);
