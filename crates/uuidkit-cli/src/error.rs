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
            // A labelled error already says which stream it was.
            Error::Io(e) if is_labelled(e) => write!(f, "{e}"),
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

/// An I/O error with what was being done when it happened ("writing standard
/// output"), so the message names the stream. Made by [`Stream`]; the
/// error's kind is kept, so a broken pipe is still recognised as one.
#[derive(Debug)]
pub struct Labelled {
    what: &'static str,
    source: io::Error,
}

impl fmt::Display for Labelled {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.what, self.source)
    }
}

/// No `source()`: the message already carries the cause's words, and a chain
/// printer would say them twice.
impl std::error::Error for Labelled {}

/// Whether `e` already says what was being done.
fn is_labelled(e: &io::Error) -> bool {
    e.get_ref().is_some_and(|r| r.is::<Labelled>())
}

/// `e`, labelled with `what` (unless it already is).
pub fn label(what: &'static str, e: io::Error) -> io::Error {
    if is_labelled(&e) {
        return e;
    }
    io::Error::new(e.kind(), Labelled { what, source: e })
}

/// A reader or writer whose errors say what was being done
/// (`Stream::new(stdout, "writing standard output")`).
pub struct Stream<T> {
    inner: T,
    what: &'static str,
}

impl<T> Stream<T> {
    /// Wraps `inner`, labelling its errors with `what`.
    pub fn new(inner: T, what: &'static str) -> Stream<T> {
        Stream { inner, what }
    }
}

impl<T: io::Write> io::Write for Stream<T> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.inner.write(buf).map_err(|e| label(self.what, e))
    }
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.inner.write_all(buf).map_err(|e| label(self.what, e))
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush().map_err(|e| label(self.what, e))
    }
}

impl<T: io::Read> io::Read for Stream<T> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.inner.read(buf).map_err(|e| label(self.what, e))
    }
}

#[cfg(unix)]
impl<T: std::os::fd::AsRawFd> std::os::fd::AsRawFd for Stream<T> {
    fn as_raw_fd(&self) -> std::os::fd::RawFd {
        self.inner.as_raw_fd()
    }
}

/// Locked stdout whose errors say "writing standard output".
pub fn stdout() -> Stream<io::StdoutLock<'static>> {
    Stream::new(io::stdout().lock(), "writing standard output")
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
        let labelled = Error::Io(label(
            "writing standard output",
            io::ErrorKind::BrokenPipe.into(),
        ));
        assert!(labelled.is_broken_pipe());
        let full = Error::Io(label("reading standard input", io::Error::other("full")));
        assert_eq!(full.to_string(), "reading standard input: full");
    }
}
