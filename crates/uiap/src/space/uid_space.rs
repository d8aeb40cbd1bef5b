//! UID spaces: a unique value, a range or a prefix (§3.2.2), and their overlap (§3.2.4).

use core::cmp::Ordering;

use super::uid::check_shape;
use super::{DomainId, Justification, SpaceError, SpaceErrorKind, Uid};

/// The set of UIDs one claim asks for (§3.2.2).
///
/// * `Unique(v)` is the single UID `v` (wire Fmt 0);
/// * `Prefix(p)` is every UID that has `p` as a bit prefix, `p` included (Fmt 1; valid only in
///   left-justified domains);
/// * `Range { low, high }` is every UID `u` with `low ≤ u ≤ high` in the order of the domain,
///   bounds included (Fmt 2).
///
/// ```
/// use uiap::space::{Justification, Uid, UidSpace};
///
/// let range = UidSpace::Range { low: Uid::from_octets(&[13])?, high: Uid::from_octets(&[42])? };
/// let forty_two = UidSpace::Unique(Uid::from_octets(&[42])?);
/// let forty_three = UidSpace::Unique(Uid::from_octets(&[43])?);
/// assert!(range.overlaps(&forty_two, Justification::Left));
/// assert!(!range.overlaps(&forty_three, Justification::Left));
/// Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum UidSpace {
    /// A single UID.
    Unique(Uid),
    /// Every UID beginning with these bits (left-justified domains only).
    Prefix(Uid),
    /// Every UID from `low` to `high`, both included.
    Range {
        /// The smallest UID of the range.
        low: Uid,
        /// The largest UID of the range.
        high: Uid,
    },
}

impl UidSpace {
    /// Checks that this space is valid in a domain with justification `j`: the UIDs are
    /// canonical for `j` (insignificant bits zero on the side `j` says), a prefix only appears
    /// in a left-justified domain, and a range has `low ≤ high` (docs/uiap-design.md D4).
    ///
    /// # Errors
    ///
    /// [`SpaceErrorKind::NonZeroPadding`], [`SpaceErrorKind::PrefixInRightJustified`] or
    /// [`SpaceErrorKind::RangeReversed`].
    ///
    /// ```
    /// use uiap::space::{Justification, SpaceErrorKind, Uid, UidSpace};
    ///
    /// let prefix = UidSpace::Prefix(Uid::from_octets(&[0xc0, 0xa8])?);
    /// assert!(prefix.validate(Justification::Left).is_ok());
    /// let err = prefix.validate(Justification::Right).unwrap_err();
    /// assert_eq!(err.kind(), SpaceErrorKind::PrefixInRightJustified);
    /// Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn validate(&self, j: Justification) -> Result<(), SpaceError> {
        match self {
            UidSpace::Unique(v) => check_shape(v.as_bytes(), v.bit_len(), j),
            UidSpace::Prefix(p) => {
                if j == Justification::Right {
                    return Err(SpaceError::new(
                        SpaceErrorKind::PrefixInRightJustified,
                        1,
                        0,
                        0,
                    ));
                }
                check_shape(p.as_bytes(), p.bit_len(), j)
            }
            UidSpace::Range { low, high } => {
                check_shape(low.as_bytes(), low.bit_len(), j)?;
                check_shape(high.as_bytes(), high.bit_len(), j)?;
                if low.compare(high, j) == Ordering::Greater {
                    return Err(SpaceError::new(SpaceErrorKind::RangeReversed, 0, 0, 0));
                }
                Ok(())
            }
        }
    }

    /// Returns true if `uid` belongs to this space in a domain with justification `j`.
    ///
    /// ```
    /// use uiap::space::{Justification, Uid, UidSpace};
    ///
    /// let net = UidSpace::Prefix(Uid::from_octets(&[0xc0, 0xa8])?);
    /// assert!(net.contains(&Uid::from_octets(&[0xc0, 0xa8, 0, 1])?, Justification::Left));
    /// Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn contains(&self, uid: &Uid, j: Justification) -> bool {
        match self {
            UidSpace::Unique(v) => v == uid,
            UidSpace::Prefix(p) => j == Justification::Left && p.is_prefix_of(uid),
            UidSpace::Range { low, high } => {
                low.compare(uid, j) != Ordering::Greater
                    && uid.compare(high, j) != Ordering::Greater
            }
        }
    }

    /// Whether every UID of this space shares its first `bits` bits as written: a unique UID
    /// always, a prefix of at least `bits` bits, a range whose ends have the same length and
    /// agree on their first `bits` bits. It bounds how much of a domain one announcement may
    /// cover (docs/uiap-design.md D43, D65).
    ///
    /// ```
    /// use uiap::space::{Uid, UidSpace};
    ///
    /// let byte = UidSpace::Prefix(Uid::from_octets(&[0xc0])?);
    /// assert!(byte.shares_leading_bits(8) && !byte.shares_leading_bits(9));
    /// let range = UidSpace::Range { low: Uid::from_octets(&[0xc0, 0])?, high: Uid::from_octets(&[0xc1, 0])? };
    /// assert!(range.shares_leading_bits(7) && !range.shares_leading_bits(8));
    /// assert!(UidSpace::Unique(Uid::from_octets(&[1])?).shares_leading_bits(256));
    /// Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn shares_leading_bits(&self, bits: u16) -> bool {
        match self {
            UidSpace::Unique(_) => true,
            UidSpace::Prefix(p) => p.bit_len() >= bits,
            UidSpace::Range { low, high } => {
                low.as_bytes().len() == high.as_bytes().len()
                    && same_leading_bits(low, high, usize::from(bits))
            }
        }
    }

    /// Returns true if the two spaces share at least one UID, in a domain with justification `j`
    /// (§3.2.4, docs/uiap-design.md D7 and D8). Symmetric.
    ///
    /// A reversed range (`low > high`) is empty and overlaps nothing. A prefix in a
    /// right-justified domain is invalid ([`validate`](Self::validate) rejects it, and so does the
    /// wire parser); should one get here anyway, it is treated as overlapping everything, so
    /// that a device errs on the side of denying.
    ///
    /// ```
    /// use uiap::space::{Justification, Uid, UidSpace};
    ///
    /// // 192.168/16 contains 192.168.1.1 ...
    /// let net = UidSpace::Prefix(Uid::from_octets(&[0xc0, 0xa8])?);
    /// let host = UidSpace::Unique(Uid::from_octets(&[0xc0, 0xa8, 1, 1])?);
    /// assert!(net.overlaps(&host, Justification::Left));
    /// // ... and meets every range that reaches into it.
    /// let range = UidSpace::Range { low: Uid::from_octets(&[0xc0])?, high: Uid::from_octets(&[0xc0, 0xa8, 0])? };
    /// assert!(range.overlaps(&net, Justification::Left));
    /// Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn overlaps(&self, other: &UidSpace, j: Justification) -> bool {
        use UidSpace::{Prefix, Range, Unique};
        let is_prefix = |s: &UidSpace| matches!(s, Prefix(_));
        if j == Justification::Right && (is_prefix(self) || is_prefix(other)) {
            return true;
        }
        if self.is_reversed(j) || other.is_reversed(j) {
            return false;
        }
        match (self, other) {
            (Prefix(p), Prefix(q)) => p.is_prefix_of(q) || q.is_prefix_of(p),
            (Prefix(p), x @ (Unique(_) | Range { .. }))
            | (x @ (Unique(_) | Range { .. }), Prefix(p)) => {
                // In the left-justified order the UIDs with prefix p form one interval that
                // starts at p; it meets [lo, hi] iff p <= hi and lo is either <= p or in it.
                let (lo, hi) = x.bounds();
                p.compare(hi, j) != Ordering::Greater
                    && (p.is_prefix_of(lo) || lo.compare(p, j) != Ordering::Greater)
            }
            (a, b) => {
                let (a_lo, a_hi) = a.bounds();
                let (b_lo, b_hi) = b.bounds();
                a_lo.compare(b_hi, j) != Ordering::Greater
                    && b_lo.compare(a_hi, j) != Ordering::Greater
            }
        }
    }

    /// The smallest and the largest UID named by a unique value or range (for a prefix: the
    /// prefix twice).
    fn bounds(&self) -> (&Uid, &Uid) {
        match self {
            UidSpace::Unique(v) | UidSpace::Prefix(v) => (v, v),
            UidSpace::Range { low, high } => (low, high),
        }
    }

    fn is_reversed(&self, j: Justification) -> bool {
        matches!(self, UidSpace::Range { low, high } if low.compare(high, j) == Ordering::Greater)
    }
}

/// Returns true if claim `a` in domain `a_dom` and claim `b` in domain `b_dom` conflict: the
/// Domain IDs are byte-identical (all 8 octets, docs/uiap-design.md D8) and the spaces overlap in
/// the justification of that domain. UIDs of different domains are never compared (§3.2.4).
///
/// ```
/// use uiap::space::{conflicts, DomainId, Uid, UidSpace};
///
/// let did: DomainId = "fff:0:0:1".parse()?;
/// let other: DomainId = "fff:0:0:81".parse()?; // same identifier, J = 1
/// let a = UidSpace::Unique(Uid::from_octets(&[7])?);
/// assert!(conflicts(&did, &a, &did, &a));
/// assert!(!conflicts(&did, &a, &other, &a));
/// Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn conflicts(a_dom: &DomainId, a: &UidSpace, b_dom: &DomainId, b: &UidSpace) -> bool {
    a_dom == b_dom && a.overlaps(b, a_dom.justification())
}

fn same_leading_bits(a: &Uid, b: &Uid, bits: usize) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let (full, rest) = (bits / 8, bits % 8);
    if a.len() * 8 < bits || b.len() * 8 < bits {
        return false;
    }
    a[..full] == b[..full] && (rest == 0 || (a[full] ^ b[full]) & (0xff_u8 << (8 - rest)) == 0)
}
