//! The loops of `benches/encodings.rs` without criterion, for measures that a
//! busy machine disturbs less: the fastest user time of a few runs, and
//! instructions per call under callgrind
//! (benchmarks/short-encodings.md).
//!
//! cargo build --release -p uuidkit --example encoding_loops
//! /usr/bin/time -f %U target/release/examples/encoding_loops encode-base32 50000000
//! valgrind --tool=callgrind target/release/examples/encoding_loops decode-base58 100000

use std::hint::black_box;

use uuidkit::Uuid;
use uuidkit::encoding::TypeId;

/// RFC 9562's §4 example, as in the benchmark.
const U: Uuid = Uuid::from_u128(0xf81d4fae_7dec_11d0_a765_00a0c91e6bf6);

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(op), Some(n)) = (args.get(1), args.get(2).and_then(|n| n.parse::<u64>().ok())) else {
        eprintln!(
            "usage: encoding_loops OPERATION CALLS (OPERATION: encode-|decode- and hyphenated, base32, base32hex, base58, base64url, typeid or typeid-encode (the encoder alone))"
        );
        std::process::exit(2);
    };
    let mut buf = [0u8; TypeId::MAX_LENGTH];
    let hyphenated = U.hyphenated().to_string();
    let base32 = U.base32().to_string();
    let base32hex = U.base32hex().to_string();
    let base58 = U.base58().to_string();
    let base64url = U.base64url().to_string();
    let typeid = TypeId::new("user", U)
        .map(|t| t.to_string())
        .unwrap_or_default();
    macro_rules! calls {
        ($body:expr) => {
            for _ in 0..n {
                let _ = black_box($body);
            }
        };
    }
    match op.as_str() {
        "encode-hyphenated" => calls!(black_box(U).hyphenated().encode_lower(&mut buf).len()),
        "encode-base32" => calls!(black_box(U).base32().encode(&mut buf).len()),
        "encode-base32hex" => calls!(black_box(U).base32hex().encode(&mut buf).len()),
        "encode-base58" => calls!(black_box(U).base58().encode(&mut buf).len()),
        "encode-base64url" => calls!(black_box(U).base64url().encode(&mut buf).len()),
        "encode-typeid" => {
            calls!(TypeId::new(black_box("user"), black_box(U)).map(|id| id.encode(&mut buf).len()))
        }
        "encode-typeid-encode" => {
            let id = TypeId::new("user", U).unwrap_or_else(|e| panic!("{e}"));
            calls!(black_box(id).encode(&mut buf).len())
        }
        "decode-hyphenated" => calls!(Uuid::parse(black_box(hyphenated.as_str()))),
        "decode-base32" => calls!(Uuid::parse_base32(black_box(base32.as_str()))),
        "decode-base32hex" => calls!(Uuid::parse_base32hex(black_box(base32hex.as_str()))),
        "decode-base58" => calls!(Uuid::parse_base58(black_box(base58.as_str()))),
        "decode-base64url" => calls!(Uuid::parse_base64url(black_box(base64url.as_str()))),
        "decode-typeid" => calls!(TypeId::parse(black_box(typeid.as_str())).map(|t| t.uuid())),
        other => {
            eprintln!("unknown operation {other:?}");
            std::process::exit(2);
        }
    }
}
