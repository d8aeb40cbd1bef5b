//! The short encodings (base32, base32hex, base58, base64url, TypeID, ULID)
//! against references written here, independently of the crate: base
//! conversion by repeated division on `u128` for the number forms, bit
//! strings for the byte forms, Python's `base64` module as a second opinion,
//! and the TypeID specification's own valid and invalid suites
//! (`tests/data/typeid-*.json`, origin on their first line).

use proptest::prelude::*;
use uuidkit::encoding::{Alphabet, DecodeErrorKind, Encoding, TypeId};
use uuidkit::{Uuid, Version};

const CROCKFORD: &[u8] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const BASE32HEX: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUV";
const BITCOIN: &[u8] = b"123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
const BASE64URL: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

use crate::rfc_examples::VECTORS;

/// `v` in base `alphabet.len()`, most significant digit first, left-padded
/// with the zero digit to `len` digits, by repeated division.
fn number(mut v: u128, alphabet: &[u8], len: usize) -> String {
    let base = alphabet.len() as u128;
    let mut digits = vec![alphabet[0]; len];
    for d in digits.iter_mut().rev() {
        *d = alphabet[(v % base) as usize];
        v /= base;
    }
    assert_eq!(v, 0, "does not fit in {len} digits");
    String::from_utf8(digits).unwrap()
}

/// The 16 bytes as a bit string, right-padded with zeros to whole digits of
/// `bits` bits, each digit looked up in `alphabet` (RFC 4648 without `=`).
fn bytes_form(v: u128, alphabet: &[u8], bits: usize) -> String {
    let mut s: Vec<bool> = (0..128).rev().map(|i| v >> i & 1 == 1).collect();
    while !s.len().is_multiple_of(bits) {
        s.push(false);
    }
    s.chunks(bits)
        .map(|c| alphabet[c.iter().fold(0, |a, &b| a << 1 | usize::from(b))] as char)
        .collect()
}

struct Reference {
    base32: String,
    base32hex: String,
    base58: String,
    base64url: String,
}

fn reference(v: u128) -> Reference {
    Reference {
        base32: number(v, CROCKFORD, 26),
        base32hex: bytes_form(v, BASE32HEX, 5),
        base58: number(v, BITCOIN, 22),
        base64url: bytes_form(v, BASE64URL, 6),
    }
}

fn texts(u: Uuid) -> [String; 4] {
    [
        u.base32().to_string(),
        u.base32hex().to_string(),
        u.base58().to_string(),
        u.base64url().to_string(),
    ]
}

#[test]
fn every_rfc_example_nil_and_max_in_every_encoding_matches_the_reference() {
    for (name, v) in VECTORS {
        let u = Uuid::from_u128(v);
        let r = reference(v);
        let want = [&r.base32, &r.base32hex, &r.base58, &r.base64url];
        assert_eq!(texts(u).each_ref(), want.map(|s| s), "{name}");
        assert_eq!(Uuid::parse_base32(&r.base32), Ok(u), "{name}");
        assert_eq!(
            Uuid::parse_base32(&r.base32.to_lowercase()),
            Ok(u),
            "{name}"
        );
        assert_eq!(Uuid::parse_base32hex(&r.base32hex), Ok(u), "{name}");
        assert_eq!(
            Uuid::parse_base32hex(&r.base32hex.to_lowercase()),
            Ok(u),
            "{name}"
        );
        assert_eq!(Uuid::parse_base58(&r.base58), Ok(u), "{name}");
        assert_eq!(Uuid::parse_base64url(&r.base64url), Ok(u), "{name}");
        assert_eq!(Uuid::from_ulid(&r.base32), Ok(u), "{name}");
        assert_eq!(u.to_ulid().to_string(), r.base32, "{name}");
        let lower = r.base32.to_lowercase();
        let mut buf = [0u8; 26];
        assert_eq!(&*u.base32().encode_lower(&mut buf), lower, "{name}");
        let id = TypeId::new("rfc", u).unwrap();
        assert_eq!(id.to_string(), format!("rfc_{lower}"), "{name}");
        assert_eq!(TypeId::parse(&format!("rfc_{lower}")), Ok(id), "{name}");
        assert_eq!(TypeId::new("", u).unwrap().to_string(), lower, "{name}");
        let via_enum = [
            (Encoding::Base32, &r.base32),
            (Encoding::Base32Hex, &r.base32hex),
            (Encoding::Base58, &r.base58),
            (Encoding::Base64Url, &r.base64url),
            (Encoding::TypeId, &lower),
        ];
        for (enc, text) in via_enum {
            assert_eq!(enc.decode(text), Ok(u), "{name} {enc}");
            assert_eq!(text.len(), enc.length(), "{name} {enc}");
        }
    }
}

/// Python's `base64` module (RFC 4648) agrees with the bit-string reference
/// on every vector, so the reference is not the only opinion.
#[test]
fn python_base64_agrees_on_the_byte_forms() {
    let check = test_support::command("python3", &["-c", "import base64; base64.b32hexencode"]);
    if !test_support::require("python_base64_agrees_on_the_byte_forms", check) {
        return;
    }
    let script = "import base64,sys\n\
        for h in sys.argv[1:]:\n\
        \x20   b = bytes.fromhex(h)\n\
        \x20   print(base64.b32hexencode(b).decode().rstrip('='), base64.urlsafe_b64encode(b).decode().rstrip('='))";
    let hex: Vec<String> = VECTORS.iter().map(|(_, v)| format!("{v:032x}")).collect();
    let out = std::process::Command::new("python3")
        .arg("-c")
        .arg(script)
        .args(&hex)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    assert_eq!(lines.len(), VECTORS.len());
    for ((name, v), line) in VECTORS.iter().zip(lines) {
        let u = Uuid::from_u128(*v);
        let ours = format!("{} {}", u.base32hex(), u.base64url());
        assert_eq!(ours, line, "{name}");
    }
}

/// The table of docs/encodings.md is what the crate writes (and so, by the
/// test above, what the references compute).
#[test]
fn the_documented_vectors_are_the_crates() {
    let doc = include_str!("../../../docs/encodings.md");
    let rows: Vec<Vec<&str>> = doc
        .lines()
        .filter(|l| l.starts_with("| ") && l.contains('`'))
        .map(|l| l.split('`').skip(1).step_by(2).collect())
        .collect();
    assert_eq!(rows.len(), VECTORS.len());
    for (row, (name, v)) in rows.iter().zip(VECTORS) {
        let u = Uuid::from_u128(v);
        assert_eq!(row[0], u.to_string(), "{name}");
        assert_eq!(row[1..], texts(u), "{name}");
    }
    let a6 = Uuid::from_u128(VECTORS[6].1);
    let typeid = TypeId::new("user", a6).unwrap().to_string();
    assert!(
        doc.contains(&format!("A.6 with the prefix `user` is\n`{typeid}`")),
        "{typeid}"
    );
}

/// The JSON below the origin line of a spec suite file.
fn suite(text: &str) -> Vec<serde_json::Value> {
    let (origin, json) = text.split_once('\n').unwrap();
    assert!(
        origin.starts_with("# TypeID specification v0.3"),
        "{origin}"
    );
    serde_json::from_str(json).unwrap()
}

#[test]
fn typeid_spec_valid_suite_round_trips() {
    let cases = suite(include_str!("data/typeid-valid.json"));
    assert!(cases.len() >= 9);
    for case in cases {
        let (text, prefix) = (
            case["typeid"].as_str().unwrap(),
            case["prefix"].as_str().unwrap(),
        );
        let u = Uuid::parse(case["uuid"].as_str().unwrap()).unwrap();
        let id = TypeId::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!((id.prefix(), id.uuid()), (prefix, u), "{text}");
        assert_eq!(TypeId::new(prefix, u).unwrap().to_string(), text);
        assert_eq!(Encoding::TypeId.decode(text), Ok(u));
    }
}

#[test]
fn typeid_spec_invalid_suite_fails_with_a_located_error() {
    let cases = suite(include_str!("data/typeid-invalid.json"));
    assert!(cases.len() >= 21);
    for case in cases {
        let text = case["typeid"].as_str().unwrap();
        let err = TypeId::parse(text).expect_err(text);
        assert_eq!(err.encoding(), Encoding::TypeId, "{text}");
        match (err.kind(), err.position()) {
            (DecodeErrorKind::InvalidCharacter { found, .. }, Some(at)) => {
                assert_eq!(text[at..].chars().next(), Some(found), "{text}: {err}");
            }
            (DecodeErrorKind::InvalidLength { found, expected }, Some(at)) => {
                assert_eq!((text.len() - at, expected), (found, 26), "{text}: {err}");
            }
            (DecodeErrorKind::PrefixTooLong { found }, None) => {
                assert_eq!(Some(found), text.rfind('_'), "{text}");
            }
            other => panic!("{text}: unexpected {other:?}"),
        }
    }
}

#[test]
fn errors_name_the_position_and_the_alphabet() {
    let cases: [(Result<Uuid, uuidkit::encoding::DecodeError>, &str); 9] = [
        (
            Uuid::parse_base32("01ARZ3NDEKTSV4RRFFQ69G5FAO"),
            "invalid base32 character 'O' at position 25: expected 0-9 or A-Z without I, L, O and U (either case)",
        ),
        (
            Uuid::parse_base32("01ARZ3NDEKTSV4RRFFQ69G5FA"),
            "invalid base32 length 25: expected 26 characters",
        ),
        (
            Uuid::from_ulid("91ARZ3NDEKTSV4RRFFQ69G5FAV"),
            "invalid ULID character '9' at position 0: expected 0-7 (the first of 26 digits carries 3 bits)",
        ),
        (
            Uuid::parse_base32hex("0000000000000000000000000W"),
            "invalid base32hex character 'W' at position 25: expected one of 0 4 8 C G K O S (the last digit carries 3 bits and 2 zero bits)",
        ),
        (
            Uuid::parse_base32hex("000000000000000000000000X0"),
            "invalid base32hex character 'X' at position 24: expected 0-9 or A-V (either case)",
        ),
        (
            Uuid::parse_base58("1111111111111111111I11"),
            "invalid base58 character 'I' at position 19: expected 1-9, A-Z or a-z, without I, O and l",
        ),
        (
            Uuid::parse_base58("zzzzzzzzzzzzzzzzzzzzzz"),
            "base58 overflow: the value is 2^128 or more: expected at most \"YcVfxkQb6JRzqk5kF2tNLv\"",
        ),
        (
            Uuid::parse_base64url("AAAAAAAAAAAAAAAAAAAA+A"),
            "invalid base64url character '+' at position 20: expected A-Z, a-z, 0-9, '-' or '_'",
        ),
        (
            Uuid::parse_base64url("AAAAAAAAAAAAAAAAAAAAAB"),
            "invalid base64url character 'B' at position 21: expected one of A Q g w (the last digit carries 2 bits and 4 zero bits)",
        ),
    ];
    for (result, message) in cases {
        assert_eq!(result.unwrap_err().to_string(), message);
    }
    let err = TypeId::parse("user_01h5fskfsk4fpeqwnsyz5hj55").unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid TypeID suffix length 25 at position 5: expected 26 characters"
    );
    let err = TypeId::parse("User_01h5fskfsk4fpeqwnsyz5hj55t").unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid TypeID prefix character 'U' at position 0: expected a-z (a prefix starts and ends with a lower-case letter)"
    );
    let err = TypeId::parse("us-er_01h5fskfsk4fpeqwnsyz5hj55t").unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid TypeID prefix character '-' at position 2: expected a-z or '_'"
    );
    let err = TypeId::parse("user_01H5fskfsk4fpeqwnsyz5hj55t").unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid TypeID suffix character 'H' at position 7: expected 0-9 or a-z without i, l, o and u (lower case)"
    );
    let long = "a".repeat(64);
    let err = TypeId::new(&long, Uuid::NIL).unwrap_err();
    assert_eq!(
        err.to_string(),
        "TypeID prefix of 64 characters: expected at most 63"
    );
    assert!(TypeId::new(&long[..63], Uuid::NIL).is_ok());
}

/// Decision: Crockford's aliases (`I L` for 1, `O` for 0) and `U` are not
/// digits, in either case, in base32, ULID and TypeID text alike; so one UUID
/// has one base32 text up to case, and a TypeID suffix is valid exactly when
/// the specification says so.
#[test]
fn crockford_aliases_are_rejected_in_either_case() {
    let good = Uuid::MAX.base32().to_string();
    for alias in ['I', 'i', 'L', 'l', 'O', 'o', 'U', 'u'] {
        let text = format!("{}{alias}{}", &good[..10], &good[11..]);
        let err = Uuid::parse_base32(&text).unwrap_err();
        let want = DecodeErrorKind::InvalidCharacter {
            found: alias,
            expected: Alphabet::Base32,
        };
        assert_eq!((err.kind(), err.position()), (want, Some(10)), "{text}");
        assert!(Uuid::from_ulid(&text).is_err());
        assert!(TypeId::parse(&text.to_lowercase()).is_err());
    }
}

#[test]
fn case_rules_and_strict_bytes() {
    let u = Uuid::from_u128(VECTORS[0].1);
    // base32 and base32hex read either case, even mixed; the others are case-sensitive.
    assert_eq!(Uuid::parse_base32("7r3N7tWzFc278aEs80m34HwTzP"), Ok(u));
    assert_eq!(Uuid::parse_base32hex("v0eKvBjTtG8T19r502gCi7JbUo"), Ok(u));
    let b58 = u.base58().to_string();
    assert_ne!(Uuid::parse_base58(&b58.to_lowercase()), Ok(u));
    // A TypeID suffix is lower case only.
    assert!(TypeId::parse(&u.base32().to_string()).is_err());
    // Padding and plain-base64 characters are errors.
    let b64 = u.base64url().to_string();
    assert!(Uuid::parse_base64url(&format!("{b64}==")).is_err());
    assert_eq!(
        Uuid::parse_base64url("/B1Prn3sEdCnZQCgyR5r9g")
            .unwrap_err()
            .kind(),
        DecodeErrorKind::InvalidCharacter {
            found: '/',
            expected: Alphabet::Base64Url
        }
    );
    // Non-UTF-8 input names the byte.
    let mut bytes = *b"7R3N7TWZFC278AES80M34HWTZP";
    bytes[3] = 0xff;
    let err = Uuid::parse_base32(&bytes[..]).unwrap_err();
    assert_eq!(
        err.kind(),
        DecodeErrorKind::InvalidByte {
            found: 0xff,
            expected: Alphabet::Base32
        }
    );
    assert_eq!(
        err.to_string(),
        "invalid base32 byte 0xff at position 3: expected 0-9 or A-Z without I, L, O and U (either case)"
    );
    let err = Uuid::parse_base58("11111111111111111111é").unwrap_err();
    assert_eq!(
        err.kind(),
        DecodeErrorKind::InvalidCharacter {
            found: 'é',
            expected: Alphabet::Base58
        }
    );
}

/// A ULID's version and variant bits are random: `version()` reads them as
/// they fall, and only a ULID whose bits happen to say v7 has `unix_ts_ms`.
#[test]
fn ulid_bits_are_not_v7_unless_by_chance() {
    let ulid = Uuid::from_ulid("01ARZ3NDEKTSV4RRFFQ69G5FAV").unwrap();
    let nibble = (ulid.as_u128() >> 76 & 0xf) as u8;
    let variant = ulid.as_u128() >> 62 & 3;
    assert_ne!(variant, 0b10, "not the RFC 9562 variant");
    assert_eq!(ulid.version_nibble(), nibble);
    assert_eq!(ulid.version(), None);
    assert_eq!(ulid.unix_ts_ms(), None);
    // A v7 UUID as a ULID: the first ten digits are its milliseconds.
    let v7 = Uuid::from_u128(VECTORS[6].1);
    let text = v7.to_ulid().to_string();
    assert_eq!(v7.version(), Some(Version::SortRand));
    assert_eq!(
        &text[..10],
        &number(u128::from(v7.unix_ts_ms().unwrap()), CROCKFORD, 10)
    );
}

fn any_uuid() -> impl Strategy<Value = Uuid> {
    prop_oneof![
        any::<u128>().prop_map(Uuid::from_u128),
        (0u32..128).prop_map(|s| Uuid::from_u128(u128::MAX >> s)),
    ]
}

proptest! {
    #[test]
    fn every_encoding_round_trips_and_matches_the_reference(u in any_uuid()) {
        let r = reference(u.as_u128());
        prop_assert_eq!(texts(u), [r.base32.clone(), r.base32hex.clone(), r.base58.clone(), r.base64url.clone()]);
        prop_assert_eq!(Uuid::parse_base32(&r.base32), Ok(u));
        prop_assert_eq!(Uuid::parse_base32hex(&r.base32hex), Ok(u));
        prop_assert_eq!(Uuid::parse_base58(&r.base58), Ok(u));
        prop_assert_eq!(Uuid::parse_base64url(&r.base64url), Ok(u));
    }

    #[test]
    fn typeid_round_trips_with_any_valid_prefix(u in any_uuid(), prefix in "([a-z]([a-z_]{0,61}[a-z])?)?") {
        let id = TypeId::new(&prefix, u).unwrap();
        let text = id.to_string();
        prop_assert_eq!(text.len(), id.len());
        let back = TypeId::parse(&text).unwrap();
        prop_assert_eq!((back.prefix(), back.uuid()), (prefix.as_str(), u));
    }

    /// base32, base32hex and base58 sort like the bytes; base32 and
    /// base32hex differ for every UUID but Nil.
    #[test]
    fn number_forms_sort_like_the_bytes(a in any_uuid(), b in any_uuid()) {
        let (ta, tb) = (texts(a), texts(b));
        for i in 0..3 {
            prop_assert_eq!(ta[i].cmp(&tb[i]), a.cmp(&b), "form {}", i);
        }
        prop_assert_eq!(ta[0] == ta[1], a.is_nil());
    }

    /// Any text: no panic, and an error's position holds the character it
    /// names, which really is not allowed there.
    #[test]
    fn arbitrary_text_is_decoded_or_located(s in "[0-9A-Za-z_+/=\u{e9}-]{20,30}") {
        let encodings = [Encoding::Base32, Encoding::Base32Hex, Encoding::Base58, Encoding::Base64Url];
        for enc in encodings {
            let len = enc.length();
            match enc.decode(&s) {
                Ok(u) => prop_assert!(s.len() == len && texts(u).iter().any(|t| t.eq_ignore_ascii_case(&s))),
                Err(e) => match (e.kind(), e.position()) {
                    (DecodeErrorKind::InvalidCharacter { found, .. }, Some(at)) => {
                        prop_assert_eq!(s.len(), len);
                        prop_assert_eq!(s[at..].chars().next(), Some(found));
                    }
                    (DecodeErrorKind::InvalidLength { found, expected }, None) => {
                        prop_assert_eq!((found, expected), (s.len(), len));
                    }
                    (DecodeErrorKind::Overflow, None) => prop_assert_eq!(len, 22),
                    other => prop_assert!(false, "{:?}", other),
                },
            }
        }
    }
}
