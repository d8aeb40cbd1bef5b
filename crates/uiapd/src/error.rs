//! The one error type of the daemon.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// Why the daemon, its configuration or its state failed.
///
/// ```
/// use uiapd::{Config, DaemonErrorKind};
///
/// let err = Config::from_toml_str("claim-port = \"x\"").unwrap_err();
/// assert_eq!(err.kind(), DaemonErrorKind::Config);
/// assert!(err.to_string().starts_with("config: "));
/// ```
#[derive(Debug)]
pub struct DaemonError {
    kind: DaemonErrorKind,
    message: String,
    path: Option<PathBuf>,
    source: Option<io::Error>,
}

/// The reason a [`DaemonError`] was returned.
///
/// ```
/// use uiapd::DaemonErrorKind;
///
/// assert_eq!(DaemonErrorKind::Io.as_str(), "io");
/// ```
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
#[non_exhaustive]
pub enum DaemonErrorKind {
    /// A flag or the TOML file is invalid.
    Config,
    /// A socket, file or directory operation failed.
    Io,
    /// The state directory holds something that cannot be read back.
    State,
}

impl DaemonErrorKind {
    /// A stable snake_case name, the prefix of the error's message.
    ///
    /// ```
    /// use uiapd::DaemonErrorKind;
    ///
    /// assert_eq!(DaemonErrorKind::State.as_str(), "state");
    /// ```
    pub fn as_str(&self) -> &'static str {
        match self {
            DaemonErrorKind::Config => "config",
            DaemonErrorKind::Io => "io",
            DaemonErrorKind::State => "state",
        }
    }
}

impl DaemonError {
    #[cold]
    pub(crate) fn new(kind: DaemonErrorKind, message: impl Into<String>) -> DaemonError {
        DaemonError {
            kind,
            message: message.into(),
            path: None,
            source: None,
        }
    }

    #[cold]
    pub(crate) fn io(
        what: impl Into<String>,
        path: Option<&Path>,
        source: io::Error,
    ) -> DaemonError {
        DaemonError {
            kind: DaemonErrorKind::Io,
            message: what.into(),
            path: path.map(Path::to_path_buf),
            source: Some(source),
        }
    }

    #[cold]
    /// Names `path` as the file the error is about, unless it already names one
    /// (a key file that a configuration file points to stays the one named).
    pub(crate) fn with_path(mut self, path: &Path) -> DaemonError {
        if self.path.is_none() {
            self.path = Some(path.to_path_buf());
        }
        self
    }

    /// What kind of failure this is.
    ///
    /// ```
    /// use uiapd::{Config, DaemonErrorKind};
    ///
    /// let err = Config::from_toml_str("nonsense = 1").unwrap_err();
    /// assert_eq!(err.kind(), DaemonErrorKind::Config);
    /// ```
    pub fn kind(&self) -> DaemonErrorKind {
        self.kind
    }

    /// The message without the kind prefix.
    ///
    /// ```
    /// use uiapd::Config;
    ///
    /// let err = Config::from_toml_str("nonsense = 1").unwrap_err();
    /// assert!(err.message().contains("nonsense"));
    /// ```
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for DaemonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind.as_str(), self.message)?;
        if let Some(path) = &self.path {
            write!(f, " ({})", path.display())?;
        }
        if let Some(source) = &self.source {
            write!(f, ": {source}")?;
        }
        Ok(())
    }
}

impl std::error::Error for DaemonError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source.as_ref().map(|e| e as _)
    }
}
