//! UIDs: octet strings with a bit length (§3.2.3, docs/uiap-design.md D4 and D7).

use core::cmp::Ordering;

use super::{Justification, SpaceError, SpaceErrorKind};

/// The largest number of octets in a UID (§3.2.1: the UID Len field is one octet).
pub const MAX_UID_LEN: usize = 255;

/// One UID: up to 255 octets, most significant first, and a bit length of 0 to 2040.
///
/// A UID is a bit string. How its bits sit in the octets depends on the justification of its
/// domain (docs/uiap-design.md D4 and D7):
///
/// * left-justified (J = 0): the bits are the first `bit_len` bits of the octets, and the
///   insignificant bits are the low bits of the **last** octet;
/// * right-justified (J = 1): the bits are the last `bit_len` bits of the octets, and the
///   insignificant bits are the high bits of the **first** octet.
///
/// Either way a `Uid` is canonical: it has `ceil(bit_len / 8)` octets and its insignificant bits
/// are zero, so two UIDs of one domain are equal exactly when their octets and bit lengths are.
/// A `Uid` does not remember its justification; [`Uid::new`] checks the left-justified form,
/// [`Uid::with_justification`] either, and [`UidSpace::validate`](super::UidSpace::validate)
/// checks the UIDs of a space against the justification of the domain it is claimed in.
///
/// ```
/// use uiap::space::Uid;
///
/// // 192.168/12 in a left-justified domain: 12 significant bits, BA = 4.
/// let uid = Uid::new(&[0xc0, 0xa0], 12)?;
/// assert_eq!(uid.as_bytes(), &[0xc0, 0xa0]);
/// assert_eq!(uid.bit_len(), 12);
/// assert_eq!(uid.ba(), 4);
/// // The low bits of the last octet must be zero.
/// assert!(Uid::new(&[0xc0, 0xaf], 12).is_err());
/// Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Uid {
    bytes: Box<[u8]>,
    bit_len: u16,
}

impl Uid {
    /// Creates a UID of a left-justified domain from its octets and bit length.
    ///
    /// # Errors
    ///
    /// * [`SpaceErrorKind::UidTooLong`] if there are more than 255 octets;
    /// * [`SpaceErrorKind::BitLenMismatch`] unless `8·(len − 1) < bit_len ≤ 8·len` (or both are 0);
    /// * [`SpaceErrorKind::NonZeroPadding`] if an insignificant bit (the low `8·len − bit_len` bits
    ///   of the last octet) is set.
    ///
    /// ```
    /// use uiap::space::{SpaceErrorKind, Uid};
    ///
    /// assert_eq!(Uid::new(&[0xc0, 0xa8], 16)?.ba(), 0);
    /// assert_eq!(Uid::new(&[0xc0], 16).unwrap_err().kind(), SpaceErrorKind::BitLenMismatch);
    /// assert_eq!(Uid::new(&[0xaf], 4).unwrap_err().kind(), SpaceErrorKind::NonZeroPadding);
    /// Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(bytes: &[u8], bit_len: u16) -> Result<Uid, SpaceError> {
        Uid::with_justification(bytes, bit_len, Justification::Left)
    }

    /// Creates a UID of a domain with justification `j` from its octets and bit length.
    ///
    /// In a right-justified domain the partial octet is the **first** one and its significant bits
    /// are its low bits (docs/uiap-design.md D7).
    ///
    /// # Errors
    ///
    /// As [`Uid::new`], with the padding bits taken from the side `j` says.
    ///
    /// ```
    /// use uiap::space::{Justification, Uid};
    ///
    /// // The 12-bit integer 0xabc in a right-justified domain.
    /// let uid = Uid::with_justification(&[0x0a, 0xbc], 12, Justification::Right)?;
    /// assert_eq!(uid.ba(), 4);
    /// assert!(Uid::with_justification(&[0xfa, 0xbc], 12, Justification::Right).is_err());
    /// Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_justification(
        bytes: &[u8],
        bit_len: u16,
        j: Justification,
    ) -> Result<Uid, SpaceError> {
        check_shape(bytes, bit_len, j)?;
        Ok(Uid {
            bytes: bytes.into(),
            bit_len,
        })
    }

    /// The UID of no bits: what a message that names no claim carries (a Loss-Notice,
    /// docs/uiap-design.md D80).
    ///
    /// ```
    /// use uiap::space::Uid;
    ///
    /// assert_eq!(Uid::empty().bit_len(), 0);
    /// assert_eq!(Uid::empty(), Uid::from_octets(&[])?);
    /// Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn empty() -> Uid {
        Uid {
            bytes: Box::new([]),
            bit_len: 0,
        }
    }

    /// Creates an octet-aligned UID (`bit_len = 8·len`, BA = 0), valid in either justification.
    ///
    /// # Errors
    ///
    /// [`SpaceErrorKind::UidTooLong`] if there are more than 255 octets.
    ///
    /// ```
    /// use uiap::space::Uid;
    ///
    /// let uid = Uid::from_octets(b"org.ietf.www")?;
    /// assert_eq!(uid.bit_len(), 96);
    /// assert!(Uid::from_octets(&[0; 256]).is_err());
    /// Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_octets(bytes: &[u8]) -> Result<Uid, SpaceError> {
        if bytes.len() > MAX_UID_LEN {
            return Err(SpaceError::too_long(bytes.len()));
        }
        Ok(Uid {
            bytes: bytes.into(),
            bit_len: bytes.len() as u16 * 8,
        })
    }

    /// Creates a UID from its wire form: the octets and the 3-bit BA field (0 = all 8 bits of the
    /// partial octet significant), checked for justification `j` (docs/uiap-design.md D4).
    ///
    /// # Errors
    ///
    /// * [`SpaceErrorKind::UidTooLong`] if there are more than 255 octets;
    /// * [`SpaceErrorKind::BitLenMismatch`] if `ba > 7`, or `ba ≠ 0` with no octets;
    /// * [`SpaceErrorKind::NonZeroPadding`] if an insignificant bit is set.
    ///
    /// ```
    /// use uiap::space::{Justification, Uid};
    ///
    /// let uid = Uid::from_wire(&[0xc0, 0xa0], 4, Justification::Left)?;
    /// assert_eq!(uid.bit_len(), 12);
    /// Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_wire(bytes: &[u8], ba: u8, j: Justification) -> Result<Uid, SpaceError> {
        if bytes.len() > MAX_UID_LEN {
            return Err(SpaceError::too_long(bytes.len()));
        }
        let len = bytes.len();
        // An empty UID with BA != 0 gets bit length BA, which check_shape rejects.
        // BA > 7 does not fit the 3-bit field: report the bit length it would claim beyond the last octet.
        let bit_len = match ba {
            0 => 8 * len,
            1..=7 => 8 * len.saturating_sub(1) + usize::from(ba),
            _ => 8 * len + usize::from(ba),
        };
        Uid::with_justification(bytes, bit_len as u16, j)
    }

    /// The octets, most significant first.
    ///
    /// ```
    /// use uiap::space::Uid;
    ///
    /// assert_eq!(Uid::from_octets(&[42])?.as_bytes(), &[42]);
    /// Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The number of significant bits.
    ///
    /// ```
    /// use uiap::space::Uid;
    ///
    /// assert_eq!(Uid::new(&[0x80], 1)?.bit_len(), 1);
    /// Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn bit_len(&self) -> u16 {
        self.bit_len
    }

    /// The 3-bit BA wire value: the number of significant bits in the partial octet, or 0 when
    /// every octet is fully significant (including the empty UID).
    ///
    /// ```
    /// use uiap::space::Uid;
    ///
    /// assert_eq!(Uid::new(&[0xc0, 0xa0], 12)?.ba(), 4);
    /// assert_eq!(Uid::new(&[0xc0, 0xa8], 16)?.ba(), 0);
    /// Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn ba(&self) -> u8 {
        (self.bit_len % 8) as u8
    }

    /// Compares two UIDs of one domain with justification `j` (§3.2.4,
    /// docs/uiap-design.md D6 and D7).
    ///
    /// * Left: lexicographic on bit strings; a proper prefix is smaller.
    /// * Right: the longer bit length is larger; equal lengths compare as unsigned integers.
    ///
    /// Zeros are always significant: `01` < `01 00` in either justification.
    ///
    /// ```
    /// use core::cmp::Ordering;
    /// use uiap::space::{Justification, Uid};
    ///
    /// let short = Uid::from_octets(&[0xff])?;
    /// let long = Uid::from_octets(&[0x00, 0x01])?;
    /// assert_eq!(short.compare(&long, Justification::Left), Ordering::Greater);
    /// assert_eq!(short.compare(&long, Justification::Right), Ordering::Less);
    /// Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn compare(&self, other: &Uid, j: Justification) -> Ordering {
        match j {
            Justification::Left => {
                let n = self.bit_len.min(other.bit_len);
                cmp_leading_bits(&self.bytes, &other.bytes, n)
                    .then(self.bit_len.cmp(&other.bit_len))
            }
            Justification::Right => self
                .bit_len
                .cmp(&other.bit_len)
                .then_with(|| self.bytes.cmp(&other.bytes)),
        }
    }

    /// Returns true if `self` is a bit prefix of `other` (a UID is a prefix of itself); this is
    /// the membership test of a prefix claim in a left-justified domain.
    ///
    /// ```
    /// use uiap::space::Uid;
    ///
    /// let net = Uid::new(&[0xc0, 0xa0], 12)?;
    /// assert!(net.is_prefix_of(&Uid::from_octets(&[0xc0, 0xa8, 1, 1])?));
    /// assert!(!net.is_prefix_of(&Uid::from_octets(&[0xc0, 0xb8, 1, 1])?));
    /// Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn is_prefix_of(&self, other: &Uid) -> bool {
        self.bit_len <= other.bit_len
            && cmp_leading_bits(&self.bytes, &other.bytes, self.bit_len) == Ordering::Equal
    }
}

/// Compares the first `n` bits of `a` and `b`. Both hold at least `n` bits when they come from
/// canonical UIDs; should one be shorter, its missing bits compare as absent (never panics).
fn cmp_leading_bits(a: &[u8], b: &[u8], n: u16) -> Ordering {
    let full = usize::from(n / 8);
    let rest = (n % 8) as u32;
    let (fa, fb) = (&a[..full.min(a.len())], &b[..full.min(b.len())]);
    match fa.cmp(fb) {
        Ordering::Equal if rest > 0 => {
            let mask = 0xffu8 << (8 - rest);
            let x = a.get(full).map(|v| v & mask);
            let y = b.get(full).map(|v| v & mask);
            x.cmp(&y)
        }
        other => other,
    }
}

/// Checks the octet count, bit length and padding of a UID for justification `j`.
pub(super) fn check_shape(bytes: &[u8], bit_len: u16, j: Justification) -> Result<(), SpaceError> {
    let len = bytes.len();
    if len > MAX_UID_LEN {
        return Err(SpaceError::too_long(len));
    }
    let bits = usize::from(bit_len);
    if bits > 8 * len || (len > 0 && bits <= 8 * (len - 1)) {
        return Err(SpaceError::new(
            SpaceErrorKind::BitLenMismatch,
            u32::from(bit_len),
            len,
            0,
        ));
    }
    if let Some((at, octet, mask)) = padding(bytes, bit_len, j)
        && octet & mask != 0
    {
        return Err(SpaceError::new(
            SpaceErrorKind::NonZeroPadding,
            u32::from(octet),
            at,
            u32::from(mask),
        ));
    }
    Ok(())
}

/// The partial octet of a UID: its index, value and the mask of its insignificant bits.
pub(super) fn padding(bytes: &[u8], bit_len: u16, j: Justification) -> Option<(usize, u8, u8)> {
    let ba = (bit_len % 8) as u32;
    if ba == 0 || bytes.is_empty() {
        return None;
    }
    match j {
        Justification::Left => {
            let at = bytes.len() - 1;
            Some((at, bytes[at], 0xffu8 >> ba))
        }
        Justification::Right => Some((0, bytes[0], 0xffu8 << ba)),
    }
}
