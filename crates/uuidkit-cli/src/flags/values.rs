//! Typed values of individual flags, each parsed by `FromStr` so that clap reports a
//! bad value as a usage error (exit 2) that names the flag, the value and what was
//! expected.

use std::fmt;
use std::str::FromStr;

use uuidkit::Uuid;

use crate::time::{self, Nanos};

/// The value of a non-negative integer as every integer flag takes it: an
/// optional `+`, then decimal digits, which `_` may separate after the first
/// (`10_000_000`, `+5`). `Err(false)` if `s` is not of that form,
/// `Err(true)` if it is but exceeds `u64`.
fn unsigned(s: &str) -> Result<u64, bool> {
    let body = s.strip_prefix('+').unwrap_or(s);
    if !body.starts_with(|c: char| c.is_ascii_digit())
        || !body.bytes().all(|b| b.is_ascii_digit() || b == b'_')
    {
        return Err(false);
    }
    body.bytes()
        .filter(u8::is_ascii_digit)
        .try_fold(0u64, |n, d| {
            n.checked_mul(10)?.checked_add(u64::from(d - b'0'))
        })
        .ok_or(true)
}

/// A UUID count: a non-negative integer (see [`unsigned`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Count(pub u64);

impl FromStr for Count {
    type Err = String;
    fn from_str(s: &str) -> Result<Count, String> {
        match unsigned(s) {
            Ok(n) => Ok(Count(n)),
            Err(true) => Err(format!("expected at most {}, found '{s}'", u64::MAX)),
            Err(false) => Err(format!("expected a non-negative integer, found '{s}'")),
        }
    }
}

/// A size in bytes: a non-negative integer (see [`unsigned`]) with an
/// optional binary suffix K, M or G (KiB, MiB, GiB; `512M`, `2G`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ByteSize(pub u64);

impl FromStr for ByteSize {
    type Err = String;
    fn from_str(s: &str) -> Result<ByteSize, String> {
        let (digits, shift) = match s.as_bytes().last().map(u8::to_ascii_uppercase) {
            Some(b'K') => (&s[..s.len() - 1], 10),
            Some(b'M') => (&s[..s.len() - 1], 20),
            Some(b'G') => (&s[..s.len() - 1], 30),
            _ => (s, 0),
        };
        let n = unsigned(digits).map_err(|_| {
            format!("expected a size in bytes with an optional K, M or G (512M), found '{s}'")
        })?;
        n.checked_mul(1 << shift)
            .map(ByteSize)
            .ok_or_else(|| format!("expected at most {} bytes, found '{s}'", u64::MAX))
    }
}

/// A namespace for name-based UUIDs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NamespaceArg(pub Uuid);

impl FromStr for NamespaceArg {
    type Err = String;
    fn from_str(s: &str) -> Result<NamespaceArg, String> {
        let key = s.strip_prefix('@').unwrap_or(s).to_ascii_lowercase();
        let ns = match key.as_str() {
            "dns" => uuidkit::namespace::DNS,
            "url" => uuidkit::namespace::URL,
            "oid" => uuidkit::namespace::OID,
            "x500" => uuidkit::namespace::X500,
            _ => match Uuid::parse(s) {
                Ok(u) => u,
                Err(e) => {
                    return Err(format!(
                        "expected dns, url, oid, x500 (optionally prefixed with @) or a UUID, \
                         found '{s}' ({e})"
                    ));
                }
            },
        };
        Ok(NamespaceArg(ns))
    }
}

/// A 48-bit IEEE 802 MAC address: six hex octets separated by `:` or `-`, or 12 hex digits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MacAddr(pub [u8; 6]);

impl FromStr for MacAddr {
    type Err = String;
    fn from_str(s: &str) -> Result<MacAddr, String> {
        let expected =
            "expected a MAC address like 9f:6b:de:ce:d8:46 (or 9f-6b-…, or 12 hex digits)";
        if let Some((i, c)) = s.char_indices().find(|(_, c)| !c.is_ascii()) {
            return Err(format!("{expected}, found '{c}' at position {i} in '{s}'"));
        }
        let hex: Vec<u8> = if s.len() == 17 {
            let sep = s.as_bytes()[2];
            if sep != b':' && sep != b'-' {
                return Err(format!("{expected}, found '{s}'"));
            }
            let mut out = Vec::with_capacity(12);
            for (i, &b) in s.as_bytes().iter().enumerate() {
                if i % 3 == 2 {
                    if b != sep {
                        return Err(format!(
                            "{expected}, found '{}' at position {i} in '{s}'",
                            b as char
                        ));
                    }
                } else {
                    out.push(b);
                }
            }
            out
        } else if s.len() == 12 {
            s.as_bytes().to_vec()
        } else {
            return Err(format!(
                "{expected}, found '{s}' ({} characters)",
                s.chars().count()
            ));
        };
        let mut mac = [0u8; 6];
        for (i, pair) in hex.chunks(2).enumerate() {
            let (Some(hi), Some(lo)) = (hex_val(pair[0]), hex_val(pair[1])) else {
                return Err(format!("{expected}, found a non-hex digit in '{s}'"));
            };
            mac[i] = (hi << 4) | lo;
        }
        Ok(MacAddr(mac))
    }
}

impl fmt::Display for MacAddr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let m = self.0;
        write!(
            f,
            "{:02x}:{:02x}:{:02x}:{:02x}:{:02x}:{:02x}",
            m[0], m[1], m[2], m[3], m[4], m[5]
        )
    }
}

/// `--node`: a MAC address or `random`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeArg {
    /// 48 random bits with the multicast bit set (RFC 9562 §6.10).
    Random,
    /// A caller-given node.
    Mac(MacAddr),
    /// A number (decimal, or hex after `0x`) that is not a MAC address: a snowflake worker ID.
    Number(u64),
}

impl FromStr for NodeArg {
    type Err = String;
    fn from_str(s: &str) -> Result<NodeArg, String> {
        if s.eq_ignore_ascii_case("random") {
            return Ok(NodeArg::Random);
        }
        let mac = s.parse::<MacAddr>();
        if mac.is_err()
            && let Ok(n) = ClockSeq::number(s)
        {
            return Ok(NodeArg::Number(n));
        }
        mac.map(NodeArg::Mac)
            .map_err(|e| e.replace("expected a MAC", "expected `random` or a MAC"))
    }
}

/// A 14-bit clock sequence, decimal or `0x` hex.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClockSeq(pub u16);

impl ClockSeq {
    /// A number as the integer flags take them: hex digits after `0x` (which `_` may
    /// separate, as decimal ones), else decimal. `Err(true)`: too large for a `u64`.
    pub fn number(s: &str) -> Result<u64, bool> {
        match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
            Some(h)
                if h.starts_with(|c: char| c.is_ascii_hexdigit())
                    && h.bytes().all(|b| b.is_ascii_hexdigit() || b == b'_') =>
            {
                let digits: String = h.chars().filter(|&c| c != '_').collect();
                u64::from_str_radix(&digits, 16).map_err(|_| true)
            }
            Some(_) => Err(false),
            None => unsigned(s),
        }
    }
}

impl FromStr for ClockSeq {
    type Err = String;
    fn from_str(s: &str) -> Result<ClockSeq, String> {
        match ClockSeq::number(s) {
            Ok(v) if v <= u64::from(uuidkit::layout::MAX_CLOCK_SEQ) => Ok(ClockSeq(v as u16)),
            Ok(_) | Err(true) => Err(format!(
                "expected a 14-bit clock sequence (0 to 16383 = 0x3fff), found {s}"
            )),
            Err(false) => Err(format!(
                "expected a clock sequence as a decimal or 0x-hex number, found '{s}'"
            )),
        }
    }
}

/// `--node-domain`: a left-justified UIAP Domain ID (docs/uiap-design.md D49).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DomainArg(pub uiap::space::DomainId);

impl FromStr for DomainArg {
    type Err = String;
    fn from_str(s: &str) -> Result<DomainArg, String> {
        let did: uiap::space::DomainId = s.parse().map_err(|e| {
            format!("expected a domain ID of four hex quads (ffe:9562:6:400), found '{s}': {e}")
        })?;
        uuidkit_lease::site::check_domain(&did).map_err(|_| {
            format!(
                "expected a left-justified domain ID (J = 0) with no reserved flag bit (the \
                 last quad's low 7 bits 0), found '{s}'"
            )
        })?;
        Ok(DomainArg(did))
    }
}

/// `--node-bits`: the width of a v8 site node, 1 to 48 (the §6.4 distributed layout).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NodeBits(pub u8);

impl NodeBits {
    /// The width used when `--node-bits` is not given.
    pub const DEFAULT: NodeBits = NodeBits(16);
}

impl FromStr for NodeBits {
    type Err = String;
    fn from_str(s: &str) -> Result<NodeBits, String> {
        match unsigned(s) {
            Ok(k @ 1..=48) => Ok(NodeBits(k as u8)),
            _ => Err(format!(
                "expected a node width of 1 to 48 bits, found '{s}'"
            )),
        }
    }
}

/// Binary data given as hex digits (`--name-hex`, `-x`): an even count, optional `0x`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HexBytes(pub Vec<u8>);

impl FromStr for HexBytes {
    type Err = String;
    fn from_str(s: &str) -> Result<HexBytes, String> {
        let h = s
            .strip_prefix("0x")
            .or_else(|| s.strip_prefix("0X"))
            .unwrap_or(s);
        let off = s.len() - h.len();
        if let Some((i, c)) = h.char_indices().find(|(_, c)| !c.is_ascii_hexdigit()) {
            return Err(format!(
                "expected a hex digit, found '{c}' at position {} in '{s}'",
                i + off
            ));
        }
        if !h.len().is_multiple_of(2) {
            return Err(format!(
                "expected an even number of hex digits, found {} in '{s}'",
                h.len()
            ));
        }
        let b = h.as_bytes();
        Ok(HexBytes(
            b.chunks(2)
                .map(|p| (hex_val(p[0]).unwrap_or(0) << 4) | hex_val(p[1]).unwrap_or(0))
                .collect(),
        ))
    }
}

fn hex_val(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// A point in time: RFC 3339 (with `Z` or an offset), a bare date (midnight UTC) or
/// `@UNIX_MS` (milliseconds since 1970, optionally with a decimal fraction).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeArg(pub Nanos);

impl FromStr for TimeArg {
    type Err = String;
    fn from_str(s: &str) -> Result<TimeArg, String> {
        time::parse(s).map(TimeArg)
    }
}

/// A column for `range --sql`: plain SQL identifiers (ASCII letters, digits
/// and `_`, not starting with a digit) joined by `.` (`t.id`).
///
/// Only such a name means the same column in PostgreSQL, MySQL/MariaDB and
/// SQLite: they quote names differently, and MySQL and MariaDB read `"…"` as
/// a string literal with backslash escapes, so a quoted part would turn the
/// condition into something else. A lone keyword that SQL reads as a value
/// (`TRUE`, `NULL`, `CURRENT_DATE`, …) is refused too: compared with the
/// bounds, it would select every row or none whatever the column holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SqlColumn(pub String);

/// Keywords that are values in PostgreSQL, MySQL/MariaDB or SQLite.
const SQL_VALUE_KEYWORDS: [&str; 20] = [
    "true",
    "false",
    "null",
    "unknown",
    "default",
    "current_date",
    "current_time",
    "current_timestamp",
    "current_user",
    "current_role",
    "current_schema",
    "current_catalog",
    "localtime",
    "localtimestamp",
    "session_user",
    "system_user",
    "user",
    "utc_date",
    "utc_time",
    "utc_timestamp",
];

impl FromStr for SqlColumn {
    type Err = String;
    fn from_str(s: &str) -> Result<SqlColumn, String> {
        let expected = "expected a column name: ASCII letters, digits and '_', not starting \
                        with a digit, parts joined by '.'";
        let bad = |at: usize, what: &str| {
            Err(format!(
                "{expected}; found {what} at position {at} in '{s}'"
            ))
        };
        let b = s.as_bytes();
        let mut i = 0;
        loop {
            match b.get(i) {
                None => return bad(i, "the end"),
                Some(c) if c.is_ascii_alphabetic() || *c == b'_' => {
                    while b
                        .get(i)
                        .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
                    {
                        i += 1;
                    }
                }
                Some(c @ (b'"' | b'`')) => {
                    return Err(format!(
                        "{expected}; found {:?} at position {i} in '{s}': quoted names are not \
                         accepted (PostgreSQL, MySQL/MariaDB and SQLite read quotes differently)",
                        char::from(*c)
                    ));
                }
                Some(_) => return bad(i, &format!("{:?}", s[i..].chars().next().unwrap_or('?'))),
            }
            match b.get(i) {
                None => break,
                Some(b'.') => i += 1,
                Some(_) => return bad(i, &format!("{:?}", s[i..].chars().next().unwrap_or('?'))),
            }
        }
        if SQL_VALUE_KEYWORDS.contains(&s.to_ascii_lowercase().as_str()) {
            return Err(format!(
                "{expected}, not a keyword SQL reads as a value; found '{s}' \
                 (qualify the column: TABLE.{s})"
            ));
        }
        Ok(SqlColumn(s.to_string()))
    }
}

/// A TypeID prefix (`--prefix`), checked as the TypeID specification asks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prefix(pub String);

impl FromStr for Prefix {
    type Err = String;

    fn from_str(s: &str) -> Result<Prefix, String> {
        match uuidkit::encoding::TypeId::new(s, Uuid::NIL) {
            Ok(_) => Ok(Prefix(s.to_string())),
            Err(e) => Err(e.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_are_checked() {
        assert_eq!("user".parse::<Prefix>(), Ok(Prefix("user".into())));
        assert_eq!("".parse::<Prefix>(), Ok(Prefix(String::new())));
        let e = "User".parse::<Prefix>().unwrap_err();
        assert!(
            e.starts_with("invalid TypeID prefix character 'U' at position 0"),
            "{e}"
        );
    }

    #[test]
    fn sql_columns() {
        for ok in ["id", "_id", "Id2", "t.id", "s.t.id_2", "t.true", "truth"] {
            assert_eq!(ok.parse::<SqlColumn>().unwrap().0, ok);
        }
        let cases = [
            ("", "found the end at position 0 in ''"),
            ("2id", "found '2' at position 0"),
            ("id;drop", "found ';' at position 2"),
            ("a b", "found ' ' at position 1"),
            ("t.", "found the end at position 2"),
            (".id", "found '.' at position 0"),
            ("id$", "found '$' at position 2"),
            ("id-x", "found '-' at position 2"),
            ("é", "found 'é' at position 0"),
            (
                "\"user id\"",
                "found '\"' at position 0 in '\"user id\"': quoted names",
            ),
            (
                "t.`order`",
                "found '`' at position 2 in 't.`order`': quoted names",
            ),
            ("\" OR 1=1 -- \\\"", "found '\"' at position 0"),
            ("id\n", "found '\\n' at position 2"),
            ("TRUE", "not a keyword SQL reads as a value; found 'TRUE'"),
            ("current_date", "(qualify the column: TABLE.current_date)"),
        ];
        for (bad, want) in cases {
            let e = bad.parse::<SqlColumn>().unwrap_err();
            assert!(e.starts_with("expected a column name"), "{bad}: {e}");
            assert!(e.contains(want), "{bad}: {e}");
        }
    }

    #[test]
    fn node_domain_and_bits() {
        let d = "FFE:9562:6:400".parse::<DomainArg>().unwrap();
        assert_eq!(d.0, uuidkit_lease::site::DEFAULT_NODE_DOMAIN);
        let e = "ffe:9562:6:480".parse::<DomainArg>().unwrap_err();
        assert_eq!(
            e,
            "expected a left-justified domain ID (J = 0) with no reserved flag bit (the last \
             quad's low 7 bits 0), found 'ffe:9562:6:480'"
        );
        let e = "ffe:9562:6:4".parse::<DomainArg>().unwrap_err();
        assert!(e.ends_with("found 'ffe:9562:6:4'"), "{e}");
        let e = "ffe:9562:6".parse::<DomainArg>().unwrap_err();
        assert!(
            e.starts_with("expected a domain ID of four hex quads"),
            "{e}"
        );
        assert_eq!("48".parse::<NodeBits>().unwrap(), NodeBits(48));
        assert_eq!("+1_6".parse::<NodeBits>().unwrap(), NodeBits(16));
        for bad in ["0", "49", "-5", "x", "", "_5", "256"] {
            assert_eq!(
                bad.parse::<NodeBits>().unwrap_err(),
                format!("expected a node width of 1 to 48 bits, found '{bad}'")
            );
        }
    }

    #[test]
    fn mac_forms() {
        let want = [0x9f, 0x6b, 0xde, 0xce, 0xd8, 0x46];
        for s in ["9f:6b:de:ce:d8:46", "9F-6B-DE-CE-D8-46", "9f6bdeced846"] {
            assert_eq!(s.parse::<MacAddr>().unwrap().0, want, "{s}");
        }
        assert_eq!(MacAddr(want).to_string(), "9f:6b:de:ce:d8:46");
        let e = "9f:6b:de:ce:d8-46".parse::<MacAddr>().unwrap_err();
        assert!(e.contains("found '-' at position 14"), "{e}");
        let e = "9f:6b:de:ce:d8".parse::<MacAddr>().unwrap_err();
        assert!(e.contains("(14 characters)"), "{e}");
        assert!("9g:6b:de:ce:d8:46".parse::<MacAddr>().is_err());
        assert_eq!("RANDOM".parse::<NodeArg>().unwrap(), NodeArg::Random);
    }

    #[test]
    fn clock_seq_bounds() {
        assert_eq!("0x33c8".parse::<ClockSeq>().unwrap().0, 0x33c8);
        assert_eq!("16383".parse::<ClockSeq>().unwrap().0, 0x3fff);
        let e = "0x4000".parse::<ClockSeq>().unwrap_err();
        assert!(e.contains("found 0x4000"), "{e}");
        assert!("-1".parse::<ClockSeq>().is_err());
        // As every integer flag: `+` and `_` separators; a sign is not a hex
        // digit; too many digits are out of range.
        assert_eq!("+5".parse::<ClockSeq>().unwrap().0, 5);
        assert_eq!("1_000".parse::<ClockSeq>().unwrap().0, 1000);
        assert_eq!("0x3f_ff".parse::<ClockSeq>().unwrap().0, 0x3fff);
        for bad in ["0x+5", "-5", "0x-5", "0x", "", "0x 5", "_5", "0x_5"] {
            assert_eq!(
                bad.parse::<ClockSeq>(),
                Err(format!(
                    "expected a clock sequence as a decimal or 0x-hex number, found '{bad}'"
                ))
            );
        }
        let e = "99999999999999999999".parse::<ClockSeq>().unwrap_err();
        assert!(e.starts_with("expected a 14-bit clock sequence"), "{e}");
    }

    /// Non-ASCII in a MAC address is named as the character it is, at its
    /// byte position, whatever the length (17 bytes is the colon form's).
    #[test]
    fn mac_non_ascii_is_named_not_mangled() {
        for (s, c, at) in [
            ("9f:6b:de:ce:d8:é", 'é', 15),
            ("9f:6b:de:ce:d8:4é", 'é', 16),
            ("é", 'é', 0),
            ("9f:6b:de:ce:d€", '€', 13),
            ("9f6bdeced84\u{202e}", '\u{202e}', 11),
        ] {
            let e = s.parse::<MacAddr>().unwrap_err();
            assert!(
                e.contains(&format!("found '{c}' at position {at} in ")),
                "{e}"
            );
        }
    }

    #[test]
    fn hex_bytes() {
        assert_eq!(
            "0x00ff10".parse::<HexBytes>().unwrap().0,
            vec![0, 0xff, 0x10]
        );
        assert_eq!("".parse::<HexBytes>().unwrap().0, Vec::<u8>::new());
        let e = "abc".parse::<HexBytes>().unwrap_err();
        assert!(e.contains("found 3"), "{e}");
        let e = "0xabzz".parse::<HexBytes>().unwrap_err();
        assert!(e.contains("'z' at position 4"), "{e}");
    }

    #[test]
    fn count_with_underscores_and_a_plus() {
        assert_eq!("10_000_000".parse::<Count>().unwrap().0, 10_000_000);
        assert_eq!("+5".parse::<Count>().unwrap().0, 5);
        assert_eq!("+1_000".parse::<Count>().unwrap().0, 1000);
        for bad in ["-3", "1e6", "_5", "+", "", "++5", " 5", "5 "] {
            assert_eq!(
                bad.parse::<Count>(),
                Err(format!("expected a non-negative integer, found '{bad}'"))
            );
        }
        let e = "18_446_744_073_709_551_616".parse::<Count>().unwrap_err();
        assert!(
            e.starts_with("expected at most 18446744073709551615"),
            "{e}"
        );
    }

    /// A rejection says what was expected and shows the input; where it names
    /// a position, the character it names is the one there.
    fn rejects_well<T>(
        result: Result<T, String>,
        s: &str,
    ) -> Result<(), proptest::test_runner::TestCaseError> {
        let Err(e) = result else { return Ok(()) };
        proptest::prop_assert!(e.starts_with("expected "), "{}", e);
        proptest::prop_assert!(e.contains(s), "{} does not show {:?}", e, s);
        // "…, found 'C' at position N in 'S'"
        let positioned = e
            .strip_suffix(&format!(" in '{s}'"))
            .and_then(|head| head.rsplit_once(" at position "))
            .and_then(|(head, pos)| Some((head.rsplit_once(", found '")?.1, pos)));
        if let Some((c, pos)) = positioned {
            let c = c.strip_suffix('\'').unwrap_or(c);
            let pos: usize = pos.parse().unwrap_or(usize::MAX);
            proptest::prop_assert!(
                s.get(pos..).is_some_and(|r| r.starts_with(c)),
                "{} names {:?} at {} in {:?}",
                e,
                c,
                pos,
                s
            );
        }
        Ok(())
    }

    proptest::proptest! {
        #[test]
        fn value_parsers_never_panic(s in "\\PC{0,50}") {
            rejects_well(s.parse::<MacAddr>(), &s)?;
            rejects_well(s.parse::<NodeArg>(), &s)?;
            rejects_well(s.parse::<ClockSeq>(), &s)?;
            rejects_well(s.parse::<HexBytes>(), &s)?;
            rejects_well(s.parse::<Count>(), &s)?;
            rejects_well(s.parse::<NamespaceArg>(), &s)?;
            rejects_well(s.parse::<DomainArg>(), &s)?;
            rejects_well(s.parse::<NodeBits>(), &s)?;
        }

        #[test]
        fn mac_near_misses_are_rejected_with_the_position(s in "[0-9a-fA-Fg:é-]{10,20}") {
            rejects_well(s.parse::<MacAddr>(), &s)?;
        }

        #[test]
        fn hex_bytes_round_trip(v in proptest::collection::vec(proptest::num::u8::ANY, 0..64)) {
            let text: String = v.iter().map(|b| format!("{b:02X}")).collect();
            proptest::prop_assert_eq!(text.parse::<HexBytes>().unwrap().0, v);
        }

        #[test]
        fn mac_round_trip(m in proptest::array::uniform6(proptest::num::u8::ANY)) {
            proptest::prop_assert_eq!(MacAddr(m).to_string().parse::<MacAddr>().unwrap().0, m);
        }
    }
}
