//! DID text (§6.1, docs/uiap-design.md D9): the draft's examples and every other valid and
//! invalid form, with the error kind and position of every rejection.

use uiap::space::{DomainId, DomainPattern, Justification, ParseDomainErrorKind as K};

fn did(s: &str) -> DomainId {
    s.parse().unwrap_or_else(|e| panic!("{s:?}: {e}"))
}

fn pattern(s: &str) -> DomainPattern {
    s.parse().unwrap_or_else(|e| panic!("{s:?}: {e}"))
}

fn from_u64(v: u64) -> DomainId {
    DomainId::from_bytes(v.to_be_bytes())
}

#[test]
fn draft_full_and_abbreviated_forms_are_equal() {
    assert_eq!(did("1:2:3:0"), did("0001:0002:0003:0000"));
    assert_eq!(
        did("1:2:3:0").as_bytes(),
        &[0x00, 0x01, 0x00, 0x02, 0x00, 0x03, 0x00, 0x00]
    );
}

#[test]
fn j_flag_is_the_top_bit_of_the_last_quads_low_octet() {
    assert_eq!(did("1:2:3:80").justification(), Justification::Right);
    assert_eq!(did("1:2:3:0").justification(), Justification::Left);
    assert_eq!(did("1:2:3:7f").justification(), Justification::Left);
    assert_eq!(did("1:2:3:ff00").justification(), Justification::Left);
    assert_eq!(did("1:2:3:ff80").justification(), Justification::Right);
}

#[test]
fn canonical_display_is_lowercase_without_leading_zeros() {
    for (input, canonical) in [
        ("0FFF:0000:0000:0001", "fff:0:0:1"),
        ("fff:0:0:1", "fff:0:0:1"),
        ("0001:0002:0003:0000", "1:2:3:0"),
        ("FFFF:ffff:FfFf:fFfF", "ffff:ffff:ffff:ffff"),
        ("0:00:000:0000", "0:0:0:0"),
        ("0ffe:0001:0000:0080", "ffe:1:0:80"),
        ("a:B:c:D", "a:b:c:d"),
    ] {
        assert_eq!(did(input).to_string(), canonical, "{input}");
        assert_eq!(did(canonical), did(input), "{input}");
    }
}

#[test]
fn draft_star_pattern() {
    let p = pattern("1:2:3:*");
    assert!(p.matches(&from_u64(0x0001_0002_0003_abcd)));
    assert!(!p.matches(&from_u64(0x0001_0002_0004_abcd)));
    // '*' spans both J values.
    assert!(p.matches(&did("1:2:3:0")));
    assert!(p.matches(&did("1:2:3:ffff")));
    assert!(p.matches(&did("1:2:3:80")));
}

#[test]
fn draft_question_pattern() {
    let p = pattern("1:2:3:0???");
    assert!(p.matches(&from_u64(0x0001_0002_0003_0fff)));
    assert!(p.matches(&from_u64(0x0001_0002_0003_0000)));
    assert!(!p.matches(&from_u64(0x0001_0002_0003_1000)));
}

#[test]
fn more_patterns() {
    let all = pattern("*:*:*:*");
    assert!(all.matches(&from_u64(0)) && all.matches(&from_u64(u64::MAX)));
    let p = pattern("1:*:3:*");
    assert!(p.matches(&did("1:ffff:3:0")));
    assert!(!p.matches(&did("1:ffff:4:0")));
    let p = pattern("AB?D:0:0:?0?0");
    assert!(p.matches(&did("ab0d:0:0:0000")));
    assert!(p.matches(&did("abfd:0:0:f0f0")));
    assert!(!p.matches(&did("abfd:0:0:f0f1")));
    assert!(!p.matches(&did("abfe:0:0:0")));
    let p = pattern("1:2:*:0???");
    assert!(p.matches(&did("1:2:1234:abc")));
    assert!(!p.matches(&did("1:2:1234:1abc")));
    // A pattern without wildcards is exactly one DID.
    let p = pattern("fff:0:0:1");
    assert!(p.matches(&did("fff:0:0:1")));
    assert!(!p.matches(&did("fff:0:0:81")));
    assert_eq!(DomainPattern::from(did("fff:0:0:1")), p);
}

#[test]
fn pattern_display_is_canonical_and_round_trips() {
    for (input, canonical) in [
        ("0001:0002:0003:*", "1:2:3:*"),
        ("1:2:3:0???", "1:2:3:0???"),
        ("1:2:3:0A??", "1:2:3:0a??"),
        ("1:2:3:????", "1:2:3:*"),
        ("*:*:*:*", "*:*:*:*"),
        ("?000:1:2:3", "?000:1:2:3"),
        ("0fff:0:0:1", "fff:0:0:1"),
    ] {
        let p = pattern(input);
        assert_eq!(p.to_string(), canonical, "{input}");
        assert_eq!(pattern(canonical), p, "{input}");
    }
}

/// (input, kind, byte position) for text that is neither a DID nor a pattern.
const INVALID_EVERYWHERE: &[(&str, K, usize)] = &[
    ("1:2:3:4:5", K::TooManyQuads, 7),     // five quads
    ("1:2:3:4:", K::TooManyQuads, 7),      // trailing colon opens a fifth quad
    ("1:2:3", K::TooFewQuads, 5),          // three quads
    ("1", K::TooFewQuads, 1),              //
    ("", K::EmptyQuad, 0),                 // empty input
    ("1::3:0", K::EmptyQuad, 2),           // no `::`
    ("::1", K::EmptyQuad, 0),              //
    ("1:2:3:", K::EmptyQuad, 6),           // empty last quad
    (":1:2:3", K::EmptyQuad, 0),           //
    ("1:2:3:00000", K::QuadTooLong, 10),   // more than 4 hex digits
    ("12345:0:0:0", K::QuadTooLong, 4),    //
    ("1:2:3:g", K::InvalidChar, 6),        // not hex
    ("1:2:3:0xff", K::InvalidChar, 7),     // no 0x prefix
    (" 1:2:3:4", K::InvalidChar, 0),       // no whitespace
    ("1:2:3:4 ", K::InvalidChar, 7),       //
    ("1.2.3.4:0:0:0", K::InvalidChar, 1),  //
    ("1:2:3:-1", K::InvalidChar, 6),       //
    ("1:2:3:\u{ff11}", K::InvalidChar, 6), // a full-width digit is not a hex digit
];

#[test]
fn invalid_text_is_rejected_with_kind_and_position() {
    for &(input, kind, at) in INVALID_EVERYWHERE {
        let e = input.parse::<DomainId>().expect_err(input);
        assert_eq!(
            (e.kind(), e.position()),
            (kind, at),
            "DomainId {input:?}: {e}"
        );
        let e = input.parse::<DomainPattern>().expect_err(input);
        assert_eq!(
            (e.kind(), e.position()),
            (kind, at),
            "DomainPattern {input:?}: {e}"
        );
    }
}

#[test]
fn wildcards_are_for_patterns_only() {
    for (input, at) in [
        ("1:2:3:*", 6),
        ("1:2:3:0???", 7),
        ("*:0:0:0", 0),
        ("?000:0:0:0", 0),
    ] {
        let e = input.parse::<DomainId>().expect_err(input);
        assert_eq!((e.kind(), e.position()), (K::WildcardInId, at), "{input}");
        assert!(input.parse::<DomainPattern>().is_ok(), "{input}");
    }
}

#[test]
fn invalid_patterns() {
    for (input, kind, at) in [
        ("1:2:3:???", K::QuestionInShortQuad, 6), // §6.1: the quad must be fully expanded
        ("1:2:3:?", K::QuestionInShortQuad, 6),   //
        ("1:2:3:1??", K::QuestionInShortQuad, 7), //
        ("1:2:3:?????", K::QuadTooLong, 10),
        ("1:2:3:0???0", K::QuadTooLong, 10), //
        ("1:2:3:1*", K::StarInQuad, 7),      // `*` is one whole quad
        ("1:2:3:**", K::StarInQuad, 6),      //
        ("*1:2:3:4", K::StarInQuad, 0),      //
        ("1:*", K::TooFewQuads, 3),          // `*` stands for one quad, not several
        ("*", K::TooFewQuads, 1),            //
        ("1:2:3:*:*", K::TooManyQuads, 7),   //
        ("1:2:3:0?g?", K::InvalidChar, 8),   //
    ] {
        let e = input.parse::<DomainPattern>().expect_err(input);
        assert_eq!((e.kind(), e.position()), (kind, at), "{input:?}: {e}");
    }
}

#[test]
fn error_messages_say_expected_found_at() {
    let msg = |s: &str| s.parse::<DomainPattern>().unwrap_err().to_string();
    assert_eq!(
        msg("1:2:3:g"),
        "invalid character: expected hex digit, found `g` at 6"
    );
    assert_eq!(
        msg("1:2:3"),
        "too few quads: expected 4 colon-separated quads, found 3 and end of input at 5"
    );
    assert_eq!(
        msg("1:2:3:4:5"),
        "too many quads: expected end of input after 4 quads, found `:` at 7"
    );
    assert_eq!(
        msg("1::3:0"),
        "empty quad: expected 1 to 4 hex digits, found `:` at 2"
    );
    assert_eq!(
        msg(""),
        "empty quad: expected 1 to 4 hex digits, found end of input at 0"
    );
    assert_eq!(
        msg("1:2:3:00000"),
        "quad too long: expected at most 4 hex digits, found `0` at 10"
    );
    assert_eq!(
        msg("1:2:3:1*"),
        "misplaced `*`: expected `*` alone as a whole quad, found `*` at 7"
    );
    assert_eq!(
        msg("1:2:3:???"),
        "misplaced `?`: expected `?` only in a quad written with all 4 digits, found `?` at 6"
    );
    assert_eq!(
        "1:2:3:*".parse::<DomainId>().unwrap_err().to_string(),
        "wildcard in domain id: expected hex digit (wildcards only in patterns), found `*` at 6"
    );
    assert_eq!(
        msg("1:2:3:\t"),
        "invalid character: expected hex digit, found `\\t` at 6"
    );
}

#[test]
fn every_did_round_trips_through_text() {
    // A sample of DIDs across the whole space, including every single-bit value.
    let mut values: Vec<u64> = (0..64).map(|b| 1u64 << b).collect();
    values.extend([
        0,
        u64::MAX,
        0x0001_0002_0003_0000,
        0x0fff_0000_0000_0001,
        0x00ff_0f00_f000_0080,
    ]);
    for v in values {
        let d = from_u64(v);
        assert_eq!(did(&d.to_string()), d, "{d}");
        assert_eq!(pattern(&d.to_string()), DomainPattern::from(d), "{d}");
    }
}
