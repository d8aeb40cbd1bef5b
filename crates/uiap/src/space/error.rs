//! The error type of the `space` module.

use core::fmt;

/// Why a UID or UID space is not valid.
///
/// ```
/// use uiap::space::{SpaceErrorKind, Uid};
///
/// let err = Uid::new(&[0xaf], 4).unwrap_err();
/// assert_eq!(err.kind(), SpaceErrorKind::NonZeroPadding);
/// assert_eq!(
///     err.to_string(),
///     "non-zero padding: expected the insignificant bits 0x0f to be 0, found 0xaf at octet 0"
/// );
/// ```
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct SpaceError {
    kind: SpaceErrorKind,
    found: u32,
    at: usize,
    extra: u32,
}

/// The reason a [`SpaceError`] was returned.
///
/// ```
/// use uiap::space::{SpaceErrorKind, Uid};
///
/// assert_eq!(Uid::from_octets(&[0; 300]).unwrap_err().kind(), SpaceErrorKind::UidTooLong);
/// ```
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
#[non_exhaustive]
pub enum SpaceErrorKind {
    /// More than 255 octets.
    UidTooLong,
    /// The bit length does not fit the number of octets (`8·(len − 1) < bits ≤ 8·len`, or 0 for
    /// no octets).
    BitLenMismatch,
    /// An insignificant bit of the partial octet is set.
    NonZeroPadding,
    /// A prefix claim in a right-justified (J = 1) domain.
    PrefixInRightJustified,
    /// A range whose low bound is greater than its high bound.
    RangeReversed,
}

impl SpaceError {
    #[cold]
    #[inline(never)]
    pub(super) fn new(kind: SpaceErrorKind, found: u32, at: usize, extra: u32) -> SpaceError {
        SpaceError {
            kind,
            found,
            at,
            extra,
        }
    }

    #[cold]
    #[inline(never)]
    pub(super) fn too_long(len: usize) -> SpaceError {
        SpaceError::new(
            SpaceErrorKind::UidTooLong,
            u32::try_from(len).unwrap_or(u32::MAX),
            0,
            0,
        )
    }

    /// The reason for the error.
    ///
    /// ```
    /// use uiap::space::{SpaceErrorKind, Uid};
    ///
    /// assert_eq!(Uid::new(&[1], 9).unwrap_err().kind(), SpaceErrorKind::BitLenMismatch);
    /// ```
    pub fn kind(&self) -> SpaceErrorKind {
        self.kind
    }
}

impl fmt::Display for SpaceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (found, at) = (self.found, self.at);
        match self.kind {
            SpaceErrorKind::UidTooLong => {
                write!(f, "uid too long: expected at most 255 octets, found {found} octets")
            }
            SpaceErrorKind::BitLenMismatch if at == 0 => {
                write!(f, "bit length mismatch: expected 0 bits for an empty uid, found {found}")
            }
            SpaceErrorKind::BitLenMismatch => write!(
                f,
                "bit length mismatch: expected {} to {} bits for {at} octets, found {found}",
                8 * (at - 1) + 1,
                8 * at
            ),
            SpaceErrorKind::NonZeroPadding => write!(
                f,
                "non-zero padding: expected the insignificant bits {:#04x} to be 0, found {found:#04x} at octet {at}",
                self.extra
            ),
            SpaceErrorKind::PrefixInRightJustified => f.write_str(
                "prefix in right-justified domain: expected a unique value or a range, found a prefix",
            ),
            SpaceErrorKind::RangeReversed => {
                f.write_str("reversed range: expected low <= high, found low > high")
            }
        }
    }
}

impl std::error::Error for SpaceError {}
