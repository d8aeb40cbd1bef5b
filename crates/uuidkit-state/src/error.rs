//! [`StateError`]: why stored generator state could not be used or written.

use std::fmt;
use std::io;
use std::string::String;
use std::sync::Arc;

/// Why generator state could not be read from, or written to, stable storage.
///
/// None of these errors stops generation: the generators fall back to "no
/// state" (a fresh random clock sequence, generation from the current time) or
/// to in-process state, and report the error through [`Status`](super::Status).
///
/// ```
/// use uuidkit_state::{StateErrorKind, format::StateRecord};
/// let err = StateRecord::parse(b"uuidkit-state 1\nv7.hwm_ms 12x\n").unwrap_err();
/// assert_eq!(err.kind(), StateErrorKind::Truncated);
/// assert_eq!(err.line(), Some(3));
/// assert_eq!(err.to_string(), "truncated state file: expected checksum line, found end of file at line 3");
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct StateError(Arc<Inner>);

#[derive(Clone, PartialEq, Eq)]
struct Inner {
    kind: StateErrorKind,
    line: Option<usize>,
    io: Option<io::ErrorKind>,
    message: String,
}

/// The classes of [`StateError`].
///
/// ```
/// use uuidkit_state::{StateErrorKind, format::StateRecord};
/// assert_eq!(StateRecord::parse(b"").unwrap_err().kind(), StateErrorKind::Empty);
/// assert!(StateErrorKind::Empty.is_no_state());
/// assert!(!StateErrorKind::Unwritable.is_no_state());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum StateErrorKind {
    /// There is no state file yet (first use, or it was deleted).
    Missing,
    /// The state file exists but holds zero bytes.
    Empty,
    /// The state file ends early: no final newline or no checksum line.
    Truncated,
    /// A line is not what the format allows (wrong header, unknown key, bad value).
    Garbage,
    /// The checksum line does not match the lines above it.
    ChecksumMismatch,
    /// The header names a format version this build does not read.
    UnsupportedVersion,
    /// The state file exists but could not be read (permissions, I/O error, a directory).
    Unreadable,
    /// The state could not be written; in-process state is used instead.
    Unwritable,
    /// The lock could not be taken; in-process state is used instead.
    Unlockable,
    /// Something other than a regular file (a device, a FIFO, a socket, a
    /// directory) is at the state file's or the lock file's path, after
    /// following symbolic links. It is left untouched (neither read nor
    /// replaced); in-process state is used instead.
    NotRegular,
    /// A regular file is at the state path, but not a state file this build
    /// can keep: it does not begin with the `uuidkit-state` header (someone
    /// else's data), or it is in a later format version. It is left untouched
    /// (never replaced); in-process state is used instead.
    Foreign,
    /// The state file exists but cannot be read (see [`is_damage`](Self::is_damage)),
    /// and a [strict](super::Reserver::strict) reserver asked for it to be kept
    /// as it is rather than repaired; in-process state is used instead, which
    /// a strict reserver refuses.
    Damaged,
    /// The directory the state file goes in does not exist (only the default
    /// location is created); in-process state is used instead.
    NoDirectory,
    /// No location for the state file is known (no `UUIDKIT_STATE`, `XDG_STATE_HOME` or `HOME`).
    NoPath,
    /// The state was read and written, but the stored mark was ahead of the
    /// clock by more than the tolerance
    /// ([`BlockPolicy::behind_tolerance`](super::BlockPolicy::behind_tolerance)),
    /// so the reserved block lies that far in the future (v7), or the clock
    /// sequence had to change (v1/v6): either the clock was set back or
    /// something wrote a mark ahead of it.
    AheadOfClock,
}

impl StateErrorKind {
    /// True if this error means the stored state is unknown ("no state": RFC 9562
    /// §6.3), false if it is about writing or locking.
    ///
    /// ```
    /// assert!(uuidkit_state::StateErrorKind::ChecksumMismatch.is_no_state());
    /// ```
    #[must_use]
    pub fn is_no_state(self) -> bool {
        !matches!(
            self,
            StateErrorKind::AheadOfClock
                | StateErrorKind::Unwritable
                | StateErrorKind::Unlockable
                | StateErrorKind::NotRegular
                | StateErrorKind::Foreign
                | StateErrorKind::Damaged
                | StateErrorKind::NoDirectory
        )
    }

    /// True if generation had to fall back to state kept only in this process.
    ///
    /// ```
    /// assert!(uuidkit_state::StateErrorKind::Unlockable.is_in_process_fallback());
    /// ```
    #[must_use]
    pub fn is_in_process_fallback(self) -> bool {
        matches!(
            self,
            StateErrorKind::Unwritable
                | StateErrorKind::Unlockable
                | StateErrorKind::NotRegular
                | StateErrorKind::Foreign
                | StateErrorKind::Damaged
                | StateErrorKind::NoDirectory
                | StateErrorKind::NoPath
        )
    }

    /// True if the stored state exists but cannot be read: truncated,
    /// garbage, a checksum that fails, or unreadable. A missing or empty
    /// file is first use, not damage.
    ///
    /// ```
    /// use uuidkit_state::StateErrorKind;
    /// assert!(StateErrorKind::Truncated.is_damage());
    /// assert!(!StateErrorKind::Empty.is_damage());
    /// ```
    #[must_use]
    pub fn is_damage(self) -> bool {
        matches!(
            self,
            StateErrorKind::Truncated
                | StateErrorKind::Garbage
                | StateErrorKind::ChecksumMismatch
                | StateErrorKind::Unreadable
        )
    }

    /// What failed, without the consequence: for a strict reserver's error,
    /// where nothing falls back.
    pub(crate) fn class(self) -> &'static str {
        match self {
            StateErrorKind::Missing => "no state file",
            StateErrorKind::Empty => "empty state file",
            StateErrorKind::Truncated => "truncated state file",
            StateErrorKind::Garbage => "invalid state file",
            StateErrorKind::ChecksumMismatch => "state file checksum mismatch",
            StateErrorKind::UnsupportedVersion => "unsupported state file version",
            StateErrorKind::Unreadable => "unreadable state file",
            StateErrorKind::Unwritable => "state file not writable",
            StateErrorKind::Unlockable => "state file not lockable",
            StateErrorKind::NotRegular => "state file refused",
            StateErrorKind::Foreign => "not a uuidkit state file",
            StateErrorKind::Damaged => "damaged state file",
            StateErrorKind::NoDirectory => "no state directory",
            StateErrorKind::NoPath => "no state file location",
            StateErrorKind::AheadOfClock => "stored state ahead of the clock",
        }
    }

    /// What failed and, for a fallback, what the store does instead.
    pub(crate) fn describe(self) -> &'static str {
        match self {
            StateErrorKind::Unwritable => "state file not writable, using in-process state",
            StateErrorKind::Unlockable => "state file not lockable, using in-process state",
            StateErrorKind::NotRegular => "state file refused, using in-process state",
            StateErrorKind::Foreign => "not a uuidkit state file, using in-process state",
            StateErrorKind::Damaged => "damaged state file kept, using in-process state",
            StateErrorKind::NoDirectory => "no state directory, using in-process state",
            StateErrorKind::NoPath => "no state file location, using in-process state",
            other => other.class(),
        }
    }
}

impl StateError {
    #[cold]
    #[inline(never)]
    pub(crate) fn new(kind: StateErrorKind, line: Option<usize>, message: String) -> StateError {
        StateError(Arc::new(Inner {
            kind,
            line,
            io: None,
            message,
        }))
    }

    #[cold]
    #[inline(never)]
    pub(crate) fn io(kind: StateErrorKind, what: &str, err: &io::Error) -> StateError {
        StateError(Arc::new(Inner {
            kind,
            line: None,
            io: Some(err.kind()),
            message: std::format!("{what}: {err}"),
        }))
    }

    /// The class of the error.
    ///
    /// ```
    /// use uuidkit_state::{StateErrorKind, format::StateRecord};
    /// let err = StateRecord::parse(b"hello\n").unwrap_err();
    /// assert_eq!(err.kind(), StateErrorKind::Garbage);
    /// ```
    #[must_use]
    pub fn kind(&self) -> StateErrorKind {
        self.0.kind
    }

    /// The 1-based line of the state file the error is about, if any.
    ///
    /// ```
    /// use uuidkit_state::format::StateRecord;
    /// assert_eq!(StateRecord::parse(b"hello\n").unwrap_err().line(), Some(1));
    /// ```
    #[must_use]
    pub fn line(&self) -> Option<usize> {
        self.0.line
    }

    /// What exactly went wrong and where, without the class that
    /// [`Display`](fmt::Display) puts first (for a caller that words the
    /// consequence itself).
    ///
    /// ```
    /// use uuidkit_state::format::StateRecord;
    /// let err = StateRecord::parse(b"hello\n").unwrap_err();
    /// assert_eq!(err.to_string(), format!("invalid state file: {}", err.detail()));
    /// assert!(err.detail().ends_with("at line 1"), "{err}");
    /// ```
    #[must_use]
    pub fn detail(&self) -> &str {
        &self.0.message
    }

    /// The operating-system error class behind an I/O failure, if any.
    ///
    /// ```
    /// use uuidkit_state::format::StateRecord;
    /// assert_eq!(StateRecord::parse(b"hello\n").unwrap_err().io_kind(), None);
    /// ```
    #[must_use]
    pub fn io_kind(&self) -> Option<io::ErrorKind> {
        self.0.io
    }
}

impl fmt::Display for StateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0.kind.describe())?;
        if !self.0.message.is_empty() {
            write!(f, ": {}", self.0.message)?;
        }
        Ok(())
    }
}

impl fmt::Debug for StateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StateError")
            .field("kind", &self.0.kind)
            .field("line", &self.0.line)
            .field("io", &self.0.io)
            .field("message", &self.0.message)
            .finish()
    }
}

impl std::error::Error for StateError {}
