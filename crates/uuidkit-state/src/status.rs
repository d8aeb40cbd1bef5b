//! [`Status`]: how a reservation went.

use core::fmt;

use super::StateError;
#[cfg(doc)]
use super::StateErrorKind;

/// The outcome of a [`StateStore::transact`](super::StateStore::transact): whether the state was read and
/// written back safely, and if not, why (cf. libuuid's `uuid_generate_time_safe`).
///
/// ```
/// use uuidkit_state::{MemoryStore, StateErrorKind, StateStore, format::StateRecord};
/// let store = MemoryStore::new();
/// let status = store.transact(&mut |_| StateRecord::default());
/// assert!(!status.is_safe());
/// assert_eq!(status.reason().map(|e| e.kind()), Some(StateErrorKind::Missing));
/// assert!(store.transact(&mut |old| *old.unwrap()).is_safe());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Status {
    pub(super) read: Option<StateError>,
    pub(super) write: Option<StateError>,
    /// The reservation found the stored mark ahead of the clock.
    pub(super) ahead: Option<StateError>,
}

impl Status {
    /// Read and written back without trouble.
    ///
    /// ```
    /// assert!(uuidkit_state::Status::SAFE.is_safe());
    /// ```
    pub const SAFE: Status = Status {
        read: None,
        write: None,
        ahead: None,
    };

    pub(crate) const fn new(read: Option<StateError>, write: Option<StateError>) -> Status {
        Status {
            read,
            write,
            ahead: None,
        }
    }

    /// True if the stored state was read and the new state was persisted: no
    /// other process sharing the store can issue what this reservation covers,
    /// and a restart cannot either.
    ///
    /// ```
    /// assert!(uuidkit_state::Status::SAFE.is_safe());
    /// ```
    #[must_use]
    pub fn is_safe(&self) -> bool {
        self.read.is_none() && self.write.is_none() && self.ahead.is_none()
    }

    /// True if the new state reached the store (a bad file was repaired, or a
    /// good one updated).
    ///
    /// ```
    /// assert!(uuidkit_state::Status::SAFE.is_persisted());
    /// ```
    #[must_use]
    pub fn is_persisted(&self) -> bool {
        self.write.is_none()
    }

    /// Why the stored state could not be used ("no state"), if so.
    ///
    /// ```
    /// assert!(uuidkit_state::Status::SAFE.read_error().is_none());
    /// ```
    #[must_use]
    pub fn read_error(&self) -> Option<&StateError> {
        self.read.as_ref()
    }

    /// Why the new state could not be persisted (in-process fallback), if so.
    ///
    /// ```
    /// assert!(uuidkit_state::Status::SAFE.write_error().is_none());
    /// ```
    #[must_use]
    pub fn write_error(&self) -> Option<&StateError> {
        self.write.as_ref()
    }

    /// Why the reservation lies ahead of the clock
    /// ([`StateErrorKind::AheadOfClock`]), if it does: the stored mark was
    /// ahead by more than the behind-tolerance.
    ///
    /// ```
    /// use uuidkit_state::{BlockPolicy, MemoryStore, Reserver, StateErrorKind, format::{StateRecord, V7Mark}};
    /// let far = StateRecord { v7: Some(V7Mark { hwm_ms: 2_000_000_000_000 }), ..Default::default() }; // 2033
    /// let r = Reserver::new(MemoryStore::with_record(far), BlockPolicy::default());
    /// let (_, status) = r.reserve_v7(1_700_000_000_000);
    /// assert!(status.is_persisted() && !status.is_safe());
    /// assert_eq!(status.ahead_error().map(|e| e.kind()), Some(StateErrorKind::AheadOfClock));
    /// assert!(status.to_string().starts_with("unsafe: stored state ahead of the clock: "), "{status}");
    /// ```
    #[must_use]
    pub fn ahead_error(&self) -> Option<&StateError> {
        self.ahead.as_ref()
    }

    /// The main reason the status is unsafe: the write error (in-process
    /// fallback) if any, else the read error, else the mark ahead of the
    /// clock.
    ///
    /// ```
    /// assert!(uuidkit_state::Status::SAFE.reason().is_none());
    /// ```
    #[must_use]
    pub fn reason(&self) -> Option<&StateError> {
        self.write
            .as_ref()
            .or(self.read.as_ref())
            .or(self.ahead.as_ref())
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.read, &self.write) {
            (None, None) if self.ahead.is_none() => return f.write_str("safe"),
            (None, None) => f.write_str("unsafe")?,
            (Some(r), None) => write!(f, "unsafe: {r} (state rewritten)")?,
            (None, Some(w)) => write!(f, "unsafe: {w}")?,
            (Some(r), Some(w)) => write!(f, "unsafe: {w}; {r}")?,
        }
        match (&self.ahead, &self.read, &self.write) {
            (Some(a), None, None) => write!(f, ": {a}"),
            (Some(a), _, _) => write!(f, "; {a}"),
            (None, _, _) => Ok(()),
        }
    }
}
