//! Every short encoding on arbitrary bytes: never a panic; what decodes
//! encodes back to the input (up to case where the decoder ignores case);
//! every UUID round-trips through every encoding; an error names a position
//! inside the input, before which everything is ASCII; and the vector paths
//! of the encodings agree with the portable ones (those this CPU can run).
//!
//! cd crates/uuidkit && RUSTC_BOOTSTRAP=1 cargo fuzz run encodings -- -max_total_time=30
#![no_main]

use libfuzzer_sys::fuzz_target;
use uuidkit::Uuid;
use uuidkit::encoding::{DecodeError, Encoding, TypeId};

/// `u` in `enc`, as written by the crate (TypeID: with `prefix`).
fn encode<'b>(u: Uuid, enc: Encoding, prefix: &str, buf: &'b mut [u8]) -> &'b str {
    match enc {
        Encoding::Base32 | Encoding::Ulid => u.base32().encode(buf),
        Encoding::Base32Hex => u.base32hex().encode(buf),
        Encoding::Base58 => u.base58().encode(buf),
        Encoding::Base64Url => u.base64url().encode(buf),
        _ => TypeId::new(prefix, u).unwrap().encode(buf),
    }
}

fn check_error(e: &DecodeError, data: &[u8]) {
    assert!(!format!("{e}").is_empty());
    if let Some(p) = e.position() {
        assert!(p <= data.len());
        assert!(data[..p].is_ascii());
    }
}

fuzz_target!(|data: &[u8]| {
    uuidkit::__differential::short(data);
    let mut buf = [0u8; TypeId::MAX_LENGTH];
    for &enc in Encoding::ALL {
        match enc.decode(data) {
            Ok(u) => {
                let prefix = match TypeId::parse(data) {
                    Ok(id) if enc == Encoding::TypeId => id.prefix(),
                    _ => "",
                };
                let text = encode(u, enc, prefix, &mut buf);
                let case_free =
                    matches!(enc, Encoding::Base32 | Encoding::Ulid | Encoding::Base32Hex);
                if case_free {
                    assert!(text.as_bytes().eq_ignore_ascii_case(data));
                } else {
                    assert_eq!(text.as_bytes(), data);
                }
            }
            Err(e) => {
                assert_eq!(e.encoding(), enc);
                check_error(&e, data);
            }
        }
    }
    // Any 16 bytes round-trip through every encoding.
    if let Some(bytes) = data.first_chunk::<16>() {
        let u = Uuid::from_bytes(*bytes);
        for &enc in Encoding::ALL {
            let text = encode(u, enc, "fuzz_me", &mut buf).to_owned();
            assert_eq!(
                text.len(),
                enc.length() + if enc == Encoding::TypeId { 8 } else { 0 }
            );
            assert_eq!(enc.decode(&text), Ok(u));
        }
    }
    // The prefix check on arbitrary text.
    if let Ok(s) = core::str::from_utf8(data) {
        match TypeId::new(s, Uuid::MAX) {
            Ok(id) => assert_eq!(TypeId::parse(&id.to_string()), Ok(id)),
            Err(e) => check_error(&e, data),
        }
    }
});
