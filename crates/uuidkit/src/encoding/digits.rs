//! The digits of the short encodings: each alphabet in value order, the
//! decoding tables built from them, and [`Digits32`], the choice among the
//! 32-digit alphabets that the base32 code paths share.
//!
//! This module uses nothing else of the crate, so that the portable code of
//! each encoding and the vector code in `arch` read one definition of each
//! alphabet.

/// Crockford's digits, upper case (the output of `Base32` and ULIDs).
pub(crate) const CROCKFORD_UPPER: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";
/// Crockford's digits, lower case (a TypeID suffix).
pub(crate) const CROCKFORD_LOWER: &[u8; 32] = b"0123456789abcdefghjkmnpqrstvwxyz";
/// RFC 4648 §7's "Extended Hex" digits.
pub(crate) const HEX_UPPER: &[u8; 32] = b"0123456789ABCDEFGHIJKLMNOPQRSTUV";
/// Bitcoin's base58 digits.
pub(crate) const BASE58: &[u8; 58] = b"123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
/// RFC 4648 §5's URL-safe base64 digits.
pub(crate) const BASE64URL: &[u8; 64] =
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// Not a digit, in a decoding table (its top three bits are set, so OR-ing
/// the looked-up values of a whole text tells at once whether all were digits).
pub(crate) const BAD: u8 = 0xff;

/// The decoding table of `digits`, and of their lower-case forms if `fold`.
pub(crate) const fn decode_table<const N: usize>(digits: &[u8; N], fold: bool) -> [u8; 256] {
    let mut t = [BAD; 256];
    let mut i = 0;
    while i < N {
        t[digits[i] as usize] = i as u8;
        if fold {
            t[digits[i].to_ascii_lowercase() as usize] = i as u8;
        }
        i += 1;
    }
    t
}

/// Crockford, either case. `I L O U` are not digits (see docs/encodings.md).
pub(crate) static CROCKFORD_ANY: [u8; 256] = decode_table(CROCKFORD_UPPER, true);
/// Crockford, lower case only (TypeID).
static CROCKFORD_LOWER_ONLY: [u8; 256] = decode_table(CROCKFORD_LOWER, false);
/// base32hex, either case.
pub(crate) static HEX_ANY: [u8; 256] = decode_table(HEX_UPPER, true);

/// A 32-digit alphabet, for the base32 code paths shared by the forms.
/// Encoding writes Crockford's digits in upper case ([`Digits32::Crockford`])
/// or lower case ([`Digits32::CrockfordLower`]), and base32hex's in upper
/// case; decoding accepts Crockford's in either case, Crockford's in lower
/// case only (TypeID), and base32hex's in either case.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Digits32 {
    /// Crockford's alphabet, the number form (two zero bits in front).
    Crockford,
    /// Crockford's alphabet in lower case only (a TypeID suffix).
    CrockfordLower,
    /// RFC 4648 base32hex, the bytes form (two zero bits at the end).
    Hex,
}

impl Digits32 {
    /// Every alphabet, for the tests of the vector paths.
    #[cfg(any(test, fuzzing))]
    pub(crate) const ALL: [Digits32; 3] =
        [Digits32::Crockford, Digits32::CrockfordLower, Digits32::Hex];

    /// The decoding table of the characters this alphabet accepts.
    #[inline(always)]
    pub(crate) fn table(self) -> &'static [u8; 256] {
        match self {
            Digits32::Crockford => &CROCKFORD_ANY,
            Digits32::CrockfordLower => &CROCKFORD_LOWER_ONLY,
            Digits32::Hex => &HEX_ANY,
        }
    }

    /// The 24 digits of a text that make 15 whole bytes: all but the first
    /// two in the number form, all but the last two in the bytes form.
    #[inline(always)]
    pub(crate) fn run(self, s: &[u8; 26]) -> &[u8; 24] {
        let run = match self {
            Digits32::Hex => s.first_chunk::<24>(),
            _ => s.last_chunk::<24>(),
        };
        run.unwrap_or(&[0; 24])
    }

    /// The byte the other two digits make (the first byte of the number
    /// form: its first digit at most 7; the last byte of the bytes form: the
    /// last digit's two padding bits zero), or `None` if they are not valid
    /// there.
    #[inline(always)]
    pub(crate) fn edge_byte(self, s: &[u8; 26]) -> Option<u8> {
        let table = self.table();
        let (a, b, first_mask, second_mask, shift) = match self {
            Digits32::Hex => (s[24], s[25], 31, 28, (3, 2)),
            _ => (s[0], s[1], 7, 31, (5, 0)),
        };
        let (a, b) = (table[a as usize], table[b as usize]);
        if (a & !first_mask) | (b & !second_mask) != 0 {
            return None;
        }
        Some((a << shift.0) | (b >> shift.1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each table maps its digits to their values, the other case too where
    /// it folds, and everything else to `BAD`.
    #[test]
    fn tables_give_each_digit_its_value_and_nothing_else() {
        let cases: [(&[u8], &[u8; 256], bool); 3] = [
            (CROCKFORD_UPPER, &CROCKFORD_ANY, true),
            (CROCKFORD_LOWER, &CROCKFORD_LOWER_ONLY, false),
            (HEX_UPPER, &HEX_ANY, true),
        ];
        for (digits, table, fold) in cases {
            for c in 0..=255u8 {
                let want = digits
                    .iter()
                    .position(|&d| d == c || (fold && d.to_ascii_lowercase() == c))
                    .map_or(BAD, |v| v as u8);
                assert_eq!(table[usize::from(c)], want, "{c:#x}");
            }
        }
    }

    #[test]
    fn edge_bytes_take_the_first_digit_up_to_7_and_the_last_with_zero_padding() {
        let mut s = [b'0'; 26];
        s[0] = b'7';
        s[1] = b'Z';
        assert_eq!(Digits32::Crockford.edge_byte(&s), Some(0xff));
        s[0] = b'8';
        assert_eq!(Digits32::Crockford.edge_byte(&s), None);
        let mut s = [b'0'; 26];
        s[24] = b'V';
        s[25] = b'S';
        assert_eq!(Digits32::Hex.edge_byte(&s), Some(0xff));
        s[25] = b'T';
        assert_eq!(Digits32::Hex.edge_byte(&s), None);
    }
}
