//! Both parsers on arbitrary bytes: never a panic; strict ⊂ lenient; what
//! parses formats back to an equal UUID in every form; and an error names a
//! position inside the input.
//!
//! cd crates/uuidkit && RUSTC_BOOTSTRAP=1 cargo fuzz run parse -- -max_total_time=30
#![no_main]

use libfuzzer_sys::fuzz_target;
use uuidkit::Uuid;

fuzz_target!(|data: &[u8]| {
    let lenient = Uuid::parse(data);
    let strict = Uuid::parse_strict(data);

    // strict ⊂ lenient, and they agree where both accept.
    if let Ok(u) = strict {
        assert_eq!(lenient, Ok(u));
        assert_eq!(data.len(), 36);
    }

    match lenient {
        Ok(u) => {
            assert!(matches!(data.len(), 32 | 36 | 38 | 45));
            // parse ∘ format is the identity, in every form and case.
            let mut buf = [0u8; 45];
            assert_eq!(Uuid::parse(u.hyphenated().encode_lower(&mut buf)), Ok(u));
            assert_eq!(
                Uuid::parse_strict(u.hyphenated().encode_upper(&mut buf)),
                Ok(u)
            );
            assert_eq!(Uuid::parse(u.simple().encode_upper(&mut buf)), Ok(u));
            assert_eq!(Uuid::parse(u.braced().encode_lower(&mut buf)), Ok(u));
            assert_eq!(Uuid::parse(u.urn().encode_upper(&mut buf)), Ok(u));
            // ...and format ∘ parse is the input, up to case.
            let form = match data.len() {
                32 => u.simple().encode_lower(&mut buf),
                36 => u.hyphenated().encode_lower(&mut buf),
                38 => u.braced().encode_lower(&mut buf),
                _ => u.urn().encode_lower(&mut buf),
            };
            assert!(form.as_bytes().eq_ignore_ascii_case(data));
            if let Ok(s) = core::str::from_utf8(data) {
                assert_eq!(Uuid::parse_const(s), Ok(u));
            }
        }
        Err(e) => {
            assert!(!format!("{e}").is_empty());
            if let Some(p) = e.position() {
                assert!(p <= data.len());
                assert!(data[..p].is_ascii());
            }
            if let Ok(s) = core::str::from_utf8(data) {
                assert!(Uuid::parse_const(s).is_err());
            }
        }
    }
    if let Err(e) = strict {
        assert!(e.is_strict());
    }
});
