//! Fuzz the Domain ID text notation (§6.1): `DomainId` and `DomainPattern` parsing never panic on
//! any text, an error's position lies within the text, and parse → display → parse is the
//! identity (the displayed form is canonical: displaying it again gives the same text).
#![no_main]

use libfuzzer_sys::fuzz_target;
use uiap::space::{DomainId, DomainPattern};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match text.parse::<DomainId>() {
        Ok(id) => {
            let shown = id.to_string();
            let again: DomainId = shown.parse().expect("a displayed DID parses");
            assert_eq!(again, id, "{text:?} → {shown:?}");
            assert_eq!(again.to_string(), shown, "canonical form is stable");
            // Every DID is also a pattern that matches exactly itself.
            let pattern: DomainPattern = shown.parse().expect("a DID is a pattern");
            assert!(pattern.matches(&id));
        }
        Err(e) => assert!(e.position() <= text.len(), "{text:?}: {e}"),
    }
    match text.parse::<DomainPattern>() {
        Ok(pattern) => {
            let shown = pattern.to_string();
            let again: DomainPattern = shown.parse().expect("a displayed pattern parses");
            assert_eq!(again, pattern, "{text:?} → {shown:?}");
            assert_eq!(again.to_string(), shown, "canonical form is stable");
        }
        Err(e) => assert!(e.position() <= text.len(), "{text:?}: {e}"),
    }
});
