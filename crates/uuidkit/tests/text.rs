//! Text forms: what the parsers accept, what they reject with which error at
//! which position, and what the formatters write.

use uuidkit::Uuid;
use uuidkit::error::{Expected, Form, ParseErrorKind};

const U: Uuid = Uuid::from_u128(0xf81d4fae_7dec_11d0_a765_00a0c91e6bf6);
const HYPHENATED: &str = "f81d4fae-7dec-11d0-a765-00a0c91e6bf6";

fn err(s: &str) -> (ParseErrorKind, Option<usize>, String) {
    let e = Uuid::parse(s).unwrap_err();
    (e.kind(), e.position(), e.to_string())
}

#[test]
fn lenient_accepts_the_four_forms_in_any_case() {
    for s in [
        "f81d4fae-7dec-11d0-a765-00a0c91e6bf6",
        "F81D4FAE-7DEC-11D0-A765-00A0C91E6BF6",
        "f81D4fAE-7Dec-11d0-A765-00a0c91E6bf6",
        "f81d4fae7dec11d0a76500a0c91e6bf6",
        "F81D4FAE7DEC11D0A76500A0C91E6BF6",
        "{f81d4fae-7dec-11d0-a765-00a0c91e6bf6}",
        "{F81D4FAE-7DEC-11D0-A765-00A0C91E6BF6}",
        "urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6",
        "URN:UUID:F81D4FAE-7DEC-11D0-A765-00A0C91E6BF6",
        "Urn:Uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6",
    ] {
        assert_eq!(Uuid::parse(s), Ok(U), "{s}");
        assert_eq!(s.parse::<Uuid>(), Ok(U), "{s}");
        assert_eq!(Uuid::try_from(s), Ok(U), "{s}");
        assert_eq!(Uuid::parse(s.as_bytes()), Ok(U), "{s}");
    }
}

#[test]
fn strict_accepts_only_the_abnf() {
    assert_eq!(Uuid::parse_strict(HYPHENATED), Ok(U));
    assert_eq!(
        Uuid::parse_strict("F81D4FAE-7DEC-11D0-A765-00A0C91E6BF6"),
        Ok(U)
    );
    assert_eq!(Uuid::parse_strict(HYPHENATED.as_bytes()), Ok(U));
    for (s, form) in [
        ("f81d4fae7dec11d0a76500a0c91e6bf6", Form::Simple),
        ("{f81d4fae-7dec-11d0-a765-00a0c91e6bf6}", Form::Braced),
        ("urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6", Form::Urn),
    ] {
        let e = Uuid::parse_strict(s).unwrap_err();
        assert_eq!(e.kind(), ParseErrorKind::NotHyphenated { found: form });
        assert!(e.is_strict());
        assert_eq!(
            e.to_string(),
            format!(
                "found the {form} form: strict parsing expects the hyphenated form (8-4-4-4-12 hex digits)"
            )
        );
    }
    let e = Uuid::parse_strict("f81d4fae-7dec-11d0-a765-00a0c91e6bf").unwrap_err();
    assert_eq!(e.to_string(), "group 5 has 11 digits: expected 12");
    let e = Uuid::parse_strict("abc").unwrap_err();
    assert_eq!(e.to_string(), "invalid length 3: expected 36");
    // Strict never takes braces or a prefix: a broken wrapped form is not
    // diagnosed as one (no "expected '}'").
    for (s, found) in [
        ("{f81d4fae-7dec-11d0-a765-00a0c91e6bf6", '{'),
        ("{f81d4fae-7dec-11d0-a765-00a0c91e6bf6)", '{'),
        ("(f81d4fae-7dec-11d0-a765-00a0c91e6bf6)", '('),
        ("urn:uid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6", 'u'),
    ] {
        let e = Uuid::parse_strict(s).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("invalid character '{found}' at position 0: expected a hex digit"),
            "{s}"
        );
    }
}

/// Hyphens alone hold no groups to count: they are the wrong length.
#[test]
fn hyphens_alone_are_a_wrong_length_not_groups() {
    for (s, n) in [("-", 1), ("--", 2), ("{-}", 3)] {
        let e = Uuid::parse(s).unwrap_err();
        assert_eq!(e.kind(), ParseErrorKind::InvalidLength { found: n }, "{s}");
        assert_eq!(
            e.to_string(),
            format!("invalid length {n}: expected 36 (hyphenated), 32, 38 or 45")
        );
    }
    let e = Uuid::parse_strict("-").unwrap_err();
    assert_eq!(e.to_string(), "invalid length 1: expected 36");
}

#[test]
fn the_issue_examples_word_for_word() {
    assert_eq!(
        err("f81d4fae-gdec-11d0-a765-00a0c91e6bf6"),
        (
            ParseErrorKind::InvalidCharacter {
                found: 'g',
                expected: Expected::HexDigit
            },
            Some(9),
            "invalid character 'g' at position 9: expected a hex digit".into()
        )
    );
    assert_eq!(
        err("f81d4fae7dec11d0a76500a0c91e6bf66ab"),
        (
            ParseErrorKind::InvalidLength { found: 35 },
            None,
            "invalid length 35: expected 36 (hyphenated), 32, 38 or 45".into()
        )
    );
    assert_eq!(
        err("f81d4fae-7dec-11d-a765-00a0c91e6bf6"),
        (
            ParseErrorKind::GroupLength {
                group: 3,
                found: 3,
                expected: 4
            },
            Some(14),
            "group 3 has 3 digits: expected 4".into()
        )
    );
}

/// Input, error kind, position and message: every kind of lenient parse error.
const ERROR_CASES: &[(&str, ParseErrorKind, Option<usize>, &str)] = {
    use ParseErrorKind::*;
    &[
        (
            "",
            InvalidLength { found: 0 },
            None,
            "invalid length 0: expected 36 (hyphenated), 32, 38 or 45",
        ),
        (
            "f81d4fae-7dec-11d0-a765-00a0c91e6bfg",
            InvalidCharacter {
                found: 'g',
                expected: Expected::HexDigit,
            },
            Some(35),
            "invalid character 'g' at position 35: expected a hex digit",
        ),
        (
            "f81d4fae-7dec-11d0-a765_00a0c91e6bf6",
            InvalidCharacter {
                found: '_',
                expected: Expected::HexDigit,
            },
            Some(23),
            "invalid character '_' at position 23: expected a hex digit",
        ),
        (
            "f81d4fae7-dec-11d0-a765-00a0c91e6bf6",
            GroupLength {
                group: 1,
                found: 9,
                expected: 8,
            },
            Some(0),
            "group 1 has 9 digits: expected 8",
        ),
        (
            "f81d4fae-7dec-11d0a765-00a0c91e6bf6",
            GroupCount { found: 4 },
            None,
            "found 4 groups: expected 5 groups of hex digits separated by '-'",
        ),
        (
            "f81d4fae7dec11d0a76500a0c91e6bf6abcd",
            InvalidCharacter {
                found: '7',
                expected: Expected::Hyphen,
            },
            Some(8),
            "invalid character '7' at position 8: expected '-'",
        ),
        (
            "{f81d4fae-7dec-11d0-a765-00a0c91e6bf6)",
            InvalidCharacter {
                found: ')',
                expected: Expected::ClosingBrace,
            },
            Some(37),
            "invalid character ')' at position 37: expected '}'",
        ),
        (
            "(f81d4fae-7dec-11d0-a765-00a0c91e6bf6)",
            InvalidCharacter {
                found: '(',
                expected: Expected::OpeningBrace,
            },
            Some(0),
            "invalid character '(' at position 0: expected '{'",
        ),
        (
            "{f81d4fae-7dec-11d0-a765-00a0c91e6bf6",
            UnexpectedEnd {
                expected: Expected::ClosingBrace,
            },
            Some(37),
            "unexpected end of input at position 37: expected '}'",
        ),
        (
            "{f81d4fae7dec11d0a76500a0c91e6bf6}",
            GroupCount { found: 1 },
            None,
            "found 1 group: expected 5 groups of hex digits separated by '-'",
        ),
        (
            "urn:uid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6",
            InvalidCharacter {
                found: 'i',
                expected: Expected::UrnPrefix,
            },
            Some(5),
            "invalid character 'i' at position 5: expected \"urn:uuid:\"",
        ),
        (
            "urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf",
            GroupLength {
                group: 5,
                found: 11,
                expected: 12,
            },
            Some(33),
            "group 5 has 11 digits: expected 12",
        ),
        (
            "f81d4fae-7dec-11d0-a765-00a0c91e6bé",
            InvalidCharacter {
                found: 'é',
                expected: Expected::HexDigit,
            },
            Some(34),
            "invalid character 'é' at position 34: expected a hex digit",
        ),
        (
            "f81d4fae-7dec-11d0-a765-00a0c91e6b\n6",
            InvalidCharacter {
                found: '\n',
                expected: Expected::HexDigit,
            },
            Some(34),
            "invalid character '\\n' at position 34: expected a hex digit",
        ),
        (
            " f81d4fae-7dec-11d0-a765-00a0c91e6bf6",
            InvalidCharacter {
                found: ' ',
                expected: Expected::HexDigit,
            },
            Some(0),
            "invalid character ' ' at position 0: expected a hex digit",
        ),
    ]
};

#[test]
fn every_error_kind_with_its_position() {
    for &(input, kind, position, message) in ERROR_CASES {
        let e = Uuid::parse(input).unwrap_err();
        assert_eq!(
            (e.kind(), e.position(), e.to_string().as_str()),
            (kind, position, message),
            "{input:?}"
        );
        assert!(!e.is_strict());
    }
}

#[test]
fn bytes_that_are_not_utf8_are_reported_as_bytes() {
    let mut s = *b"f81d4fae-7dec-11d0-a765-00a0c91e6bf6";
    s[20] = 0xff;
    let e = Uuid::parse(&s).unwrap_err();
    assert_eq!(
        e.kind(),
        ParseErrorKind::InvalidByte {
            found: 0xff,
            expected: Expected::HexDigit
        }
    );
    assert_eq!(e.position(), Some(20));
    assert_eq!(
        e.to_string(),
        "invalid byte 0xff at position 20: expected a hex digit"
    );
}

#[test]
fn display_debug_and_hex_formats() {
    assert_eq!(U.to_string(), HYPHENATED);
    assert_eq!(format!("{U:?}"), HYPHENATED);
    assert_eq!(format!("{U:x}"), HYPHENATED);
    assert_eq!(format!("{U:X}"), "F81D4FAE-7DEC-11D0-A765-00A0C91E6BF6");
    assert_eq!(
        format!("{:X}", U.simple()),
        "F81D4FAE7DEC11D0A76500A0C91E6BF6"
    );
    assert_eq!(
        format!("{:X}", U.braced()),
        "{F81D4FAE-7DEC-11D0-A765-00A0C91E6BF6}"
    );
    assert_eq!(
        format!("{:X}", U.urn()),
        "urn:uuid:F81D4FAE-7DEC-11D0-A765-00A0C91E6BF6"
    );
    assert_eq!(format!("[{:>40}]", U), format!("[    {HYPHENATED}]"));
    assert_eq!(
        format!("[{:<34}]", U.simple()),
        "[f81d4fae7dec11d0a76500a0c91e6bf6  ]"
    );
}

#[test]
fn encode_into_buffers_writes_only_the_form() {
    let mut buf = [b'#'; 50];
    assert_eq!(U.hyphenated().encode_lower(&mut buf), HYPHENATED);
    assert_eq!(&buf[36..], &[b'#'; 14]);
    let mut buf = [b'#'; 50];
    assert_eq!(
        U.simple().encode_upper(&mut buf),
        "F81D4FAE7DEC11D0A76500A0C91E6BF6"
    );
    assert_eq!(&buf[32..], &[b'#'; 18]);
    let mut buf = [0u8; 38];
    assert_eq!(
        U.braced().encode_lower(&mut buf),
        "{f81d4fae-7dec-11d0-a765-00a0c91e6bf6}"
    );
    let mut buf = [0u8; 45];
    assert_eq!(
        U.urn().encode_upper(&mut buf),
        "urn:uuid:F81D4FAE-7DEC-11D0-A765-00A0C91E6BF6"
    );
    assert_eq!(
        (
            uuidkit::Hyphenated::LENGTH,
            uuidkit::Simple::LENGTH,
            uuidkit::Braced::LENGTH,
            uuidkit::Urn::LENGTH
        ),
        (36, 32, 38, 45)
    );
}

#[test]
fn every_nibble_value_round_trips_in_every_position() {
    for pos in 0..32 {
        for v in 0..16u128 {
            let u = Uuid::from_u128(v << (4 * (31 - pos)));
            let s = u.simple().to_string();
            assert_eq!(s.as_bytes()[pos], b"0123456789abcdef"[v as usize]);
            assert_eq!(Uuid::parse(&s), Ok(u));
            assert_eq!(Uuid::parse(&u.to_string()), Ok(u));
            assert_eq!(Uuid::parse(&format!("{:X}", u)), Ok(u));
        }
    }
}

#[test]
fn uuid_macro_in_const_and_expressions() {
    const A: Uuid = uuidkit::uuid!("f81d4fae-7dec-11d0-a765-00a0c91e6bf6");
    static B: Uuid = uuidkit::uuid!("URN:UUID:F81D4FAE-7DEC-11D0-A765-00A0C91E6BF6");
    assert_eq!(A, U);
    assert_eq!(B, U);
    assert_eq!(uuidkit::uuid!("f81d4fae7dec11d0a76500a0c91e6bf6"), U);
    assert_eq!(uuidkit::uuid!("{f81d4fae-7dec-11d0-a765-00a0c91e6bf6}"), U);
}

#[test]
fn guid_byte_order() {
    let le = U.to_bytes_le();
    assert_eq!(
        le,
        [
            0xae, 0x4f, 0x1d, 0xf8, 0xec, 0x7d, 0xd0, 0x11, 0xa7, 0x65, 0x00, 0xa0, 0xc9, 0x1e,
            0x6b, 0xf6
        ]
    );
    assert_eq!(Uuid::from_bytes_le(le), U);
}
