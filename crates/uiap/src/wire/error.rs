//! The error type of the `wire` module.

use core::fmt;

/// Why a datagram is not a valid UIAP message.
///
/// Every rejection has its own [`WireErrorKind`] (use [`WireErrorKind::as_str`] as a drop-counter
/// key) and the octet where the problem was found. The message says what was expected and what
/// was found there.
///
/// ```
/// use uiap::wire::{Repr, WireErrorKind};
///
/// let err = Repr::parse(&[2; 40]).unwrap_err();
/// assert_eq!(err.kind(), WireErrorKind::UnknownVersion);
/// assert_eq!(err.offset(), 0);
/// assert_eq!(err.to_string(), "unknown version: expected 1, found 2 at octet 0");
/// ```
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct WireError {
    kind: WireErrorKind,
    at: usize,
    expected: u32,
    found: u32,
}

/// The reason a [`WireError`] was returned.
///
/// ```
/// use uiap::wire::WireErrorKind;
///
/// assert_eq!(WireErrorKind::ZeroDeviceId.as_str(), "zero_device_id");
/// ```
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
#[non_exhaustive]
pub enum WireErrorKind {
    /// Shorter than the 36-octet header.
    Truncated,
    /// The length is not exactly 36 + UID Len (+ UID Len 2 for a range), docs/uiap-design.md D2.
    LengthMismatch,
    /// Version other than 1 (docs/uiap-design.md D3: dropped, never forwarded).
    UnknownVersion,
    /// Message type 3–15.
    UnknownType,
    /// Fmt = 3.
    UnknownFormat,
    /// Originating Device ID 0, which "MUST NOT appear in a message" (§4.1).
    ZeroDeviceId,
    /// Not produced by this version of the parser: every BA value 0–7 is meaningful for a
    /// non-empty UID and an empty one with BA ≠ 0 is [`EmptyUid`](Self::EmptyUid). Kept so that
    /// counters keyed by kind stay stable.
    BadBitAlignment,
    /// An insignificant bit of a partial UID octet is set (docs/uiap-design.md D4).
    NonZeroPadding,
    /// A prefix claim (Fmt 1) in a right-justified (J = 1) domain (docs/uiap-design.md D4).
    PrefixInRightJustified,
    /// A range whose low bound is greater than its high bound (docs/uiap-design.md D4).
    RangeReversed,
    /// A UID with length 0 but BA ≠ 0 (docs/uiap-design.md D4).
    EmptyUid,
    /// A Loss-Notice with a claim's field set: X or R, the Domain ID, the format or a UID
    /// length (docs/uiap-design.md D80).
    NoticeNamesClaim,
}

impl WireErrorKind {
    /// Every kind, in declaration order: handy to initialise drop counters.
    pub const ALL: [WireErrorKind; 12] = [
        WireErrorKind::Truncated,
        WireErrorKind::LengthMismatch,
        WireErrorKind::UnknownVersion,
        WireErrorKind::UnknownType,
        WireErrorKind::UnknownFormat,
        WireErrorKind::ZeroDeviceId,
        WireErrorKind::BadBitAlignment,
        WireErrorKind::NonZeroPadding,
        WireErrorKind::PrefixInRightJustified,
        WireErrorKind::RangeReversed,
        WireErrorKind::EmptyUid,
        WireErrorKind::NoticeNamesClaim,
    ];

    /// A stable snake_case name, for drop counters and logs. Names never change once released.
    ///
    /// ```
    /// use uiap::wire::WireErrorKind;
    ///
    /// assert_eq!(WireErrorKind::LengthMismatch.as_str(), "length_mismatch");
    /// ```
    pub fn as_str(&self) -> &'static str {
        match self {
            WireErrorKind::Truncated => "truncated",
            WireErrorKind::LengthMismatch => "length_mismatch",
            WireErrorKind::UnknownVersion => "unknown_version",
            WireErrorKind::UnknownType => "unknown_type",
            WireErrorKind::UnknownFormat => "unknown_format",
            WireErrorKind::ZeroDeviceId => "zero_device_id",
            WireErrorKind::BadBitAlignment => "bad_bit_alignment",
            WireErrorKind::NonZeroPadding => "non_zero_padding",
            WireErrorKind::PrefixInRightJustified => "prefix_in_right_justified",
            WireErrorKind::RangeReversed => "range_reversed",
            WireErrorKind::EmptyUid => "empty_uid",
            WireErrorKind::NoticeNamesClaim => "notice_names_claim",
        }
    }
}

impl fmt::Display for WireErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl WireError {
    #[cold]
    #[inline(never)]
    pub(super) fn new(kind: WireErrorKind, at: usize, expected: u32, found: u32) -> WireError {
        WireError {
            kind,
            at,
            expected,
            found,
        }
    }

    /// The reason for the error.
    ///
    /// ```
    /// use uiap::wire::{Repr, WireErrorKind};
    ///
    /// assert_eq!(Repr::parse(&[1; 10]).unwrap_err().kind(), WireErrorKind::Truncated);
    /// ```
    pub fn kind(&self) -> WireErrorKind {
        self.kind
    }

    /// The offset of the octet where the problem was found (for [`WireErrorKind::Truncated`],
    /// the length of the datagram).
    ///
    /// ```
    /// use uiap::wire::Repr;
    ///
    /// assert_eq!(Repr::parse(&[1; 10]).unwrap_err().offset(), 10);
    /// ```
    pub fn offset(&self) -> usize {
        self.at
    }
}

impl fmt::Display for WireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (at, expected, found) = (self.at, self.expected, self.found);
        match self.kind {
            WireErrorKind::Truncated => write!(
                f,
                "truncated message: expected at least {expected} octets, found {found} at octet {at}"
            ),
            WireErrorKind::LengthMismatch => write!(
                f,
                "length mismatch: expected {expected} octets from the uid length fields, found {found} at octet {at}"
            ),
            WireErrorKind::UnknownVersion => {
                write!(
                    f,
                    "unknown version: expected {expected}, found {found} at octet {at}"
                )
            }
            WireErrorKind::UnknownType => write!(
                f,
                "unknown message type: expected 0 (claim-attempt), 1 (claim-deny) or 2 (loss-notice), found {found} at octet {at}"
            ),
            WireErrorKind::UnknownFormat => write!(
                f,
                "unknown uid format: expected 0 (unique), 1 (prefix) or 2 (range), found {found} at octet {at}"
            ),
            WireErrorKind::ZeroDeviceId => write!(
                f,
                "reserved device id: expected a non-zero originating device id, found 0 at octet {at}"
            ),
            WireErrorKind::BadBitAlignment => {
                write!(
                    f,
                    "bad bit alignment: expected ba {expected}, found {found} at octet {at}"
                )
            }
            WireErrorKind::NonZeroPadding => write!(
                f,
                "non-zero padding: expected the insignificant bits {expected:#04x} to be 0, found {found:#04x} at octet {at}"
            ),
            WireErrorKind::PrefixInRightJustified => write!(
                f,
                "prefix in right-justified domain: expected fmt 0 (unique) or 2 (range) when j = 1, found {found} at octet {at}"
            ),
            WireErrorKind::RangeReversed => {
                write!(
                    f,
                    "reversed range: expected uid 1 <= uid 2, found uid 1 > uid 2 at octet {at}"
                )
            }
            WireErrorKind::EmptyUid => write!(
                f,
                "empty uid with bit alignment: expected ba 0 for uid {expected} of length 0, found {found} at octet {at}"
            ),
            WireErrorKind::NoticeNamesClaim => write!(
                f,
                "loss-notice names a claim: expected flags, domain id, format and uid lengths 0, found {found:#04x} at octet {at}"
            ),
        }
    }
}

impl std::error::Error for WireError {}
