//! The one error type of the control protocol's users.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use crate::ErrorBody;

/// Why a control request could not be made or answered.
///
/// ```
/// use uiap_control::{ControlErrorKind, SpaceText};
///
/// let err = SpaceText::Uid("c0g8".into()).parse(&"fff:0:0:1".parse()?).unwrap_err();
/// assert_eq!(err.kind(), ControlErrorKind::Request);
/// assert_eq!(err.to_string(), "request: uid: expected a hex digit, found `g` at 2 in `c0g8`");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct ControlError {
    kind: ControlErrorKind,
    message: String,
    path: Option<PathBuf>,
    source: Option<io::Error>,
}

/// The reason a [`ControlError`] was returned.
///
/// ```
/// use uiap_control::ControlErrorKind;
///
/// assert_eq!(ControlErrorKind::NoDaemon.as_str(), "no daemon");
/// ```
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
#[non_exhaustive]
pub enum ControlErrorKind {
    /// The text of a request is malformed (a space that is no UID, range or prefix).
    Request,
    /// Nothing answers at the control path: no daemon runs there.
    NoDaemon,
    /// The connection failed after it was made.
    Io,
    /// No final answer came within the time allowed.
    Timeout,
    /// The daemon answered something the protocol does not allow, or ended the stream.
    Protocol,
    /// The daemon answered with an error; the message is the daemon's kind and message.
    Refused,
}

impl ControlErrorKind {
    /// A short name for people.
    ///
    /// ```
    /// use uiap_control::ControlErrorKind;
    ///
    /// assert_eq!(ControlErrorKind::Timeout.as_str(), "timeout");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            ControlErrorKind::Request => "request",
            ControlErrorKind::NoDaemon => "no daemon",
            ControlErrorKind::Io => "io",
            ControlErrorKind::Timeout => "timeout",
            ControlErrorKind::Protocol => "protocol",
            ControlErrorKind::Refused => "refused",
        }
    }
}

impl ControlError {
    #[cold]
    pub(crate) fn new(kind: ControlErrorKind, message: impl Into<String>) -> ControlError {
        ControlError {
            kind,
            message: message.into(),
            path: None,
            source: None,
        }
    }

    #[cold]
    #[cfg_attr(not(unix), allow(dead_code))]
    pub(crate) fn io(
        kind: ControlErrorKind,
        what: impl Into<String>,
        path: &Path,
        source: io::Error,
    ) -> ControlError {
        ControlError {
            kind,
            message: what.into(),
            path: Some(path.to_path_buf()),
            source: Some(source),
        }
    }

    /// The daemon's error answer as an error.
    #[cold]
    #[cfg_attr(not(unix), allow(dead_code))]
    pub(crate) fn refused(body: &ErrorBody) -> ControlError {
        ControlError::new(
            ControlErrorKind::Refused,
            format!("{}: {}", body.kind, body.message),
        )
    }

    /// What kind of failure this is.
    ///
    /// ```
    /// use uiap_control::{Client, ControlErrorKind};
    ///
    /// # #[cfg(unix)] {
    /// let err = Client::new("/nonexistent/control.sock").list().unwrap_err();
    /// assert_eq!(err.kind(), ControlErrorKind::NoDaemon);
    /// # }
    /// ```
    pub fn kind(&self) -> ControlErrorKind {
        self.kind
    }

    /// The message, without the kind, the path or the cause.
    ///
    /// ```
    /// use uiap_control::SpaceText;
    ///
    /// let err = SpaceText::Range("05".into()).parse(&"fff:0:0:1".parse()?).unwrap_err();
    /// assert_eq!(err.message(), "range: expected `LOW-HIGH`, found `05` (no `-`)");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The control path the failure happened at, when it is known.
    ///
    /// ```
    /// use std::path::Path;
    /// use uiap_control::Client;
    ///
    /// # #[cfg(unix)] {
    /// let err = Client::new("/nonexistent/control.sock").status().unwrap_err();
    /// assert_eq!(err.path(), Some(Path::new("/nonexistent/control.sock")));
    /// # }
    /// ```
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }
}

impl fmt::Display for ControlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // A refusal already starts with the daemon's own kind.
        if self.kind != ControlErrorKind::Refused {
            write!(f, "{}: ", self.kind.as_str())?;
        }
        f.write_str(&self.message)?;
        if let Some(path) = &self.path {
            write!(f, " ({})", path.display())?;
        }
        if let Some(source) = &self.source {
            write!(f, ": {source}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ControlError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source.as_ref().map(|e| e as _)
    }
}
