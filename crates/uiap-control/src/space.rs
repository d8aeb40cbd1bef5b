//! A UID space in text form, as requests and answers carry it.

use serde::{Deserialize, Serialize};
use uiap::space::{DomainId, Justification, Uid, UidSpace};

use crate::{ControlError, ControlErrorKind};

/// A UID space in text form.
///
/// `HEX` is a string of hex digits, `BITS` the number of significant bits (default: 4 per
/// digit). In a left-justified domain the significant bits are the leading ones (`abc` is
/// `ab c0`/12); in a right-justified domain the trailing ones (`abc` is `0a bc`/12).
///
/// ```
/// use uiap_control::SpaceText;
///
/// let s: SpaceText = serde_json::from_str(r#"{"prefix":"c0/4"}"#)?;
/// assert_eq!(s, SpaceText::Prefix("c0/4".into()));
/// assert_eq!(s.to_string(), "prefix c0/4");
/// Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum SpaceText {
    /// `HEX[/BITS]`.
    Uid(String),
    /// `HEX[/BITS]-HEX[/BITS]`.
    Range(String),
    /// `HEX/BITS`.
    Prefix(String),
}

fn request_error(message: String) -> ControlError {
    ControlError::new(ControlErrorKind::Request, message)
}

/// The longest UID in hex digits: 255 octets.
const MAX_DIGITS: usize = 510;

/// Parses `HEX[/BITS]` into a UID of a domain with justification `j`.
fn parse_uid(text: &str, j: Justification, what: &str) -> Result<Uid, ControlError> {
    let (hex, bits) = match text.split_once('/') {
        Some((h, b)) => {
            let bits: u16 = b.parse().map_err(|_| {
                request_error(format!(
                    "{what}: expected a bit count after `/`, found `{b}` in `{text}`"
                ))
            })?;
            (h, Some(bits))
        }
        None => (text, None),
    };
    if let Some(at) = hex.find(|c: char| !c.is_ascii_hexdigit()) {
        let c = hex[at..].chars().next().unwrap_or('?');
        return Err(request_error(format!(
            "{what}: expected a hex digit, found `{c}` at {at} in `{text}`"
        )));
    }
    let nibbles = hex.len();
    if nibbles > MAX_DIGITS {
        return Err(request_error(format!(
            "{what}: expected at most {MAX_DIGITS} hex digits, found {nibbles}"
        )));
    }
    let bits = bits.unwrap_or(nibbles as u16 * 4);
    let padded = match (nibbles % 2, j) {
        (0, _) => hex.to_string(),
        (_, Justification::Left) => format!("{hex}0"),
        (_, Justification::Right) => format!("0{hex}"),
    };
    let bytes: Vec<u8> = (0..padded.len() / 2)
        .map(|i| u8::from_str_radix(&padded[2 * i..2 * i + 2], 16).unwrap_or(0))
        .collect();
    Uid::with_justification(&bytes, bits, j)
        .map_err(|e| request_error(format!("{what}: {e} in `{text}`")))
}

fn format_uid(uid: &Uid) -> String {
    let mut s: String = uid.as_bytes().iter().map(|b| format!("{b:02x}")).collect();
    if usize::from(uid.bit_len()) != 8 * uid.as_bytes().len() {
        s.push_str(&format!("/{}", uid.bit_len()));
    }
    s
}

impl SpaceText {
    /// Parses the text into a validated [`UidSpace`] of `domain`.
    ///
    /// # Errors
    ///
    /// [`ControlErrorKind::Request`], naming the offending character or field.
    ///
    /// ```
    /// use uiap_control::SpaceText;
    /// use uiap::space::{DomainId, Uid, UidSpace};
    ///
    /// let did: DomainId = "fff:0:0:1".parse()?;
    /// let space = SpaceText::Uid("abc".into()).parse(&did)?;
    /// assert_eq!(space, UidSpace::Unique(Uid::new(&[0xab, 0xc0], 12)?));
    /// let err = SpaceText::Range("02-01".into()).parse(&did).unwrap_err();
    /// assert!(err.to_string().contains("range"));
    /// Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn parse(&self, domain: &DomainId) -> Result<UidSpace, ControlError> {
        let j = domain.justification();
        let space = match self {
            SpaceText::Uid(t) => UidSpace::Unique(parse_uid(t, j, "uid")?),
            SpaceText::Prefix(t) => UidSpace::Prefix(parse_uid(t, j, "prefix")?),
            SpaceText::Range(t) => {
                let (lo, hi) = t.split_once('-').ok_or_else(|| {
                    request_error(format!("range: expected `LOW-HIGH`, found `{t}` (no `-`)"))
                })?;
                UidSpace::Range {
                    low: parse_uid(lo, j, "range low")?,
                    high: parse_uid(hi, j, "range high")?,
                }
            }
        };
        space
            .validate(j)
            .map_err(|e| request_error(format!("space: {e}")))?;
        Ok(space)
    }

    /// The text form of a space (inverse of [`SpaceText::parse`]).
    ///
    /// ```
    /// use uiap_control::SpaceText;
    /// use uiap::space::{Uid, UidSpace};
    ///
    /// let space = UidSpace::Prefix(Uid::new(&[0xc0], 4)?);
    /// assert_eq!(SpaceText::from_space(&space), SpaceText::Prefix("c0/4".into()));
    /// Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_space(space: &UidSpace) -> SpaceText {
        match space {
            UidSpace::Unique(u) => SpaceText::Uid(format_uid(u)),
            UidSpace::Prefix(u) => SpaceText::Prefix(format_uid(u)),
            UidSpace::Range { low, high } => {
                SpaceText::Range(format!("{}-{}", format_uid(low), format_uid(high)))
            }
        }
    }
}

impl std::fmt::Display for SpaceText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SpaceText::Uid(t) => write!(f, "uid {t}"),
            SpaceText::Range(t) => write!(f, "range {t}"),
            SpaceText::Prefix(t) => write!(f, "prefix {t}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uid_text_left_and_right() {
        let left: DomainId = "fff:0:0:1".parse().unwrap();
        let right = DomainId::from_bytes([0x0f, 0xff, 0, 0, 0, 0, 0, 0x81]);
        assert_eq!(right.justification(), Justification::Right);
        let l = SpaceText::Uid("abc".into()).parse(&left).unwrap();
        assert_eq!(l, UidSpace::Unique(Uid::new(&[0xab, 0xc0], 12).unwrap()));
        let r = SpaceText::Uid("abc".into()).parse(&right).unwrap();
        assert_eq!(
            r,
            UidSpace::Unique(
                Uid::with_justification(&[0x0a, 0xbc], 12, Justification::Right).unwrap()
            )
        );
        assert_eq!(SpaceText::from_space(&l), SpaceText::Uid("abc0/12".into()));
        assert_eq!(SpaceText::Uid("abc0/12".into()).parse(&left).unwrap(), l);
    }

    #[test]
    fn bad_text_is_located() {
        let did: DomainId = "fff:0:0:1".parse().unwrap();
        let e = SpaceText::Uid("c0g8".into()).parse(&did).unwrap_err();
        assert_eq!(
            e.message(),
            "uid: expected a hex digit, found `g` at 2 in `c0g8`"
        );
        let e = SpaceText::Prefix("c0/x".into()).parse(&did).unwrap_err();
        assert_eq!(
            e.message(),
            "prefix: expected a bit count after `/`, found `x` in `c0/x`"
        );
        let e = SpaceText::Range("05".into()).parse(&did).unwrap_err();
        assert_eq!(
            e.message(),
            "range: expected `LOW-HIGH`, found `05` (no `-`)"
        );
        assert_eq!(
            SpaceText::Range("05-01".into())
                .parse(&did)
                .unwrap_err()
                .kind(),
            ControlErrorKind::Request
        );
        let long = "0".repeat(MAX_DIGITS + 2);
        let e = SpaceText::Uid(long).parse(&did).unwrap_err();
        assert_eq!(
            e.message(),
            "uid: expected at most 510 hex digits, found 512"
        );
    }
}
