//! The one error type of every lease source.

use std::fmt;

/// Why a lease could not be had or kept.
///
/// ```
/// use uuidkit_lease::{LeaseErrorKind, check_bits};
///
/// let err = check_bits(49).unwrap_err();
/// assert_eq!(err.kind(), LeaseErrorKind::Config);
/// assert_eq!(err.to_string(), "node bits: expected 1 to 48, found 49");
/// ```
#[derive(Debug)]
pub struct LeaseError {
    kind: LeaseErrorKind,
    message: String,
}

/// The reason a [`LeaseError`] was returned.
///
/// ```
/// use uuidkit_lease::LeaseErrorKind;
///
/// assert_ne!(LeaseErrorKind::Unreachable, LeaseErrorKind::Denied);
/// ```
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
#[non_exhaustive]
pub enum LeaseErrorKind {
    /// The lease's settings are invalid (width, lifetime, where to claim).
    Config,
    /// Nothing answers where the registry should be (for a site lease: no `uiapd` at the
    /// control path).
    Unreachable,
    /// Every attempt was denied: others hold the node IDs drawn (or keep refusing).
    Denied,
    /// The registry refused the request itself (an error answer).
    Refused,
    /// The registry answered something its protocol does not allow, or the connection failed
    /// mid-request.
    Registry,
    /// The registry did not answer in time (for a site lease: `uiapd` is stopped, hung, or
    /// rate-limits claims for longer than the lease may wait).
    Timeout,
}

impl LeaseError {
    #[cold]
    pub(crate) fn new(kind: LeaseErrorKind, message: impl Into<String>) -> LeaseError {
        LeaseError {
            kind,
            message: message.into(),
        }
    }

    /// What kind of failure this is.
    ///
    /// ```
    /// use uuidkit_lease::{check_bits, LeaseErrorKind};
    ///
    /// assert_eq!(check_bits(60).unwrap_err().kind(), LeaseErrorKind::Config);
    /// ```
    pub fn kind(&self) -> LeaseErrorKind {
        self.kind
    }
}

impl fmt::Display for LeaseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for LeaseError {}
