//! Fuzz the Domain ID text notation (§6.1): `DomainId` and `DomainPattern` parsing never panic on
//! any text, an error's position lies within the text, and parse → display → parse is the
//! identity (the displayed form is canonical: displaying it again gives the same text).
#![no_main]

use core::fmt::{Debug, Display};
use core::str::FromStr;

use libfuzzer_sys::fuzz_target;
use uiap::space::{DomainId, DomainPattern, ParseDomainError};

/// Parses `text` as a `T`; on success checks the round trip through the canonical text.
fn round_trip<T>(text: &str) -> Option<T>
where
    T: FromStr<Err = ParseDomainError> + Display + PartialEq + Debug,
{
    match text.parse::<T>() {
        Ok(value) => {
            let shown = value.to_string();
            let again: T = shown.parse().expect("the displayed form parses");
            assert_eq!(again, value, "{text:?} → {shown:?}");
            assert_eq!(again.to_string(), shown, "the canonical form is stable");
            Some(value)
        }
        Err(e) => {
            assert!(e.position() <= text.len(), "{text:?}: {e}");
            None
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Some(id) = round_trip::<DomainId>(text) {
        // Every DID is also a pattern, which matches exactly itself.
        let pattern: DomainPattern = id.to_string().parse().expect("a DID is a pattern");
        assert!(pattern.matches(&id));
    }
    round_trip::<DomainPattern>(text);
});
