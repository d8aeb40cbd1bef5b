//! The CLI's error type and its mapping onto the exit-code contract.

use std::fmt;
use std::io;

/// Why a command failed.
#[derive(Debug)]
pub enum Error {
    /// Arguments that parse but do not make sense together (exit 2).
    Usage(String),
    /// Generation failed (clock, state file, entropy) (exit 1).
    Failed(String),
    /// Reading or writing failed; a broken pipe ends the run quietly (exit 0).
    Io(io::Error),
    /// The node a generator read from its lease is lost (exit 1): the run stopped, nothing was
    /// written after the loss. Kept apart from `Failed` so that the lease's whole reason can
    /// replace the [`uuidkit::node::NodeLost`]'s, whose detail may be cut short.
    Lost(uuidkit::node::NodeLost),
}

impl Error {
    /// The process exit status for this error.
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Usage(_) => 2,
            Error::Failed(_) | Error::Lost(_) => 1,
            Error::Io(e) if e.kind() == io::ErrorKind::BrokenPipe => 0,
            Error::Io(_) => 1,
        }
    }

    /// True when the reader of our output went away (`| head`): not an error.
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, Error::Io(e) if e.kind() == io::ErrorKind::BrokenPipe)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Usage(m) | Error::Failed(m) => f.write_str(m),
            Error::Io(e) => write!(f, "i/o error: {e}"),
            Error::Lost(lost) => f.write_str(&lost_message("node", lost)),
        }
    }
}

/// What the command says when its `node` ("site node", "etcd node"…) is lost; `lost` is the
/// loss's text.
pub fn lost_message(node: &str, lost: &dyn fmt::Display) -> String {
    format!("{node} lost: {lost}; stopped, nothing written after the loss")
}

impl From<io::Error> for Error {
    fn from(e: io::Error) -> Error {
        Error::Io(e)
    }
}

/// What a command that processes many inputs found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Everything was valid.
    Success,
    /// At least one input was invalid (each was reported on its own): exit 1.
    SomeInvalid,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_codes() {
        assert_eq!(Error::Usage("x".into()).exit_code(), 2);
        assert_eq!(Error::Failed("x".into()).exit_code(), 1);
        let pipe = Error::Io(io::ErrorKind::BrokenPipe.into());
        assert!(pipe.is_broken_pipe());
        assert_eq!(pipe.exit_code(), 0);
        assert_eq!(Error::Io(io::ErrorKind::Other.into()).exit_code(), 1);
    }
}
