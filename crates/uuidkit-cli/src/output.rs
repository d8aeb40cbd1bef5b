//! The output pipeline: whole lines into one large buffer, written in ~1 MiB chunks.
//!
//! Guarantees:
//! - Only whole lines are ever handed to the writer: a line is formatted completely
//!   into the buffer before the buffer may be flushed, so an interrupted or failed
//!   run never leaves half a UUID on stdout.
//! - A closed reader (`| head`) surfaces as an [`io::ErrorKind::BrokenPipe`] error,
//!   which `main` turns into a quiet exit 0 (Rust ignores `SIGPIPE`, so the write
//!   returns `EPIPE` instead of killing the process).
//! - At most one `write_all` per [`CHUNK`] bytes when producing in bulk.

use std::io::{self, Write};

/// Flush threshold: the buffer is written out once it holds this many bytes.
pub const CHUNK: usize = 1 << 20;

/// Room past [`CHUNK`]: any single formatted line, or one [`Output::bulk`] block, fits.
const SLACK: usize = 256 * 1024;

/// The largest block [`Output::bulk`] accepts.
pub const MAX_BULK: usize = SLACK;

/// A line-oriented buffered writer.
pub struct Output<W: Write> {
    inner: W,
    buf: Box<[u8]>,
    len: usize,
}

impl<W: Write> Output<W> {
    /// Wraps `inner` with a buffer of `CHUNK` bytes (allocated and zeroed once).
    pub fn new(inner: W) -> Output<W> {
        Output {
            inner,
            buf: vec![0u8; CHUNK + SLACK].into_boxed_slice(),
            len: 0,
        }
    }

    /// Formats one line of at most `max` bytes (without the newline) in place: `f`
    /// writes into the given slice and returns how many bytes it wrote. A newline is
    /// appended.
    ///
    /// `max` must be below 256 KiB; use [`Output::line`] for arbitrary text.
    #[inline]
    pub fn with_line(&mut self, max: usize, f: impl FnOnce(&mut [u8]) -> usize) -> io::Result<()> {
        assert!(
            max < SLACK,
            "line of up to {max} bytes: expected fewer than {SLACK}"
        );
        let start = self.len;
        let n = f(&mut self.buf[start..start + max]);
        self.buf[start + n] = b'\n';
        self.len = start + n + 1;
        if self.len >= CHUNK {
            self.write_buffer()?;
        }
        Ok(())
    }

    /// Formats a block of whole lines, exactly `len` bytes (at most [`MAX_BULK`]),
    /// in place: `f` must fill the whole slice, newlines included.
    #[inline]
    pub fn bulk(&mut self, len: usize, f: impl FnOnce(&mut [u8])) -> io::Result<()> {
        assert!(
            len <= MAX_BULK,
            "bulk block of {len} bytes: expected at most {MAX_BULK}"
        );
        let start = self.len;
        f(&mut self.buf[start..start + len]);
        self.len = start + len;
        if self.len >= CHUNK {
            self.write_buffer()?;
        }
        Ok(())
    }

    /// Appends `text` and a newline.
    pub fn line(&mut self, text: &[u8]) -> io::Result<()> {
        if text.len() < SLACK {
            return self.with_line(text.len(), |b| {
                b.copy_from_slice(text);
                text.len()
            });
        }
        // A long line (only from echoing odd input): write around the buffer, still whole.
        self.write_buffer()?;
        let mut v = Vec::with_capacity(text.len() + 1);
        v.extend_from_slice(text);
        v.push(b'\n');
        self.inner.write_all(&v)
    }

    /// Writes out everything buffered so far (whole lines) and flushes the writer.
    pub fn flush(&mut self) -> io::Result<()> {
        self.write_buffer()?;
        self.inner.flush()
    }

    /// The writer (anything still buffered is dropped: flush first).
    #[cfg(test)]
    pub fn into_inner(self) -> W {
        self.inner
    }

    fn write_buffer(&mut self) -> io::Result<()> {
        if self.len > 0 {
            let len = std::mem::replace(&mut self.len, 0);
            self.inner.write_all(&self.buf[..len])?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records each write call, to check that only whole lines are ever written.
    struct Recorder(Vec<Vec<u8>>);
    impl Write for Recorder {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            self.0.push(b.to_vec());
            Ok(b.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn writes_whole_lines_in_large_chunks() {
        let mut out = Output::new(Recorder(Vec::new()));
        let line = [b'x'; 36];
        let n = 100_000;
        for _ in 0..n / 2 {
            out.line(&line).unwrap();
        }
        for _ in 0..n / 2 / 100 {
            out.bulk(37 * 100, |b| {
                for l in b.chunks_mut(37) {
                    l[..36].copy_from_slice(&line);
                    l[36] = b'\n';
                }
            })
            .unwrap();
        }
        out.flush().unwrap();
        let writes = &out.inner.0;
        assert_eq!(writes.iter().map(Vec::len).sum::<usize>(), n * 37);
        assert!(
            writes.len() <= n * 37 / CHUNK + 1,
            "{} writes",
            writes.len()
        );
        for w in writes {
            assert_eq!(
                w.len() % 37,
                0,
                "a write of {} bytes splits a line",
                w.len()
            );
            assert_eq!(w.last(), Some(&b'\n'));
        }
    }

    #[test]
    fn with_line_appends_newline() {
        let mut out = Output::new(Vec::new());
        out.with_line(8, |b| {
            b[..3].copy_from_slice(b"abc");
            3
        })
        .unwrap();
        out.line(b"").unwrap();
        out.line(&vec![b'y'; 300_000]).unwrap();
        out.flush().unwrap();
        let mut want = b"abc\n\n".to_vec();
        want.extend_from_slice(&[b'y'; 300_000]);
        want.push(b'\n');
        assert_eq!(out.inner, want);
    }

    struct Closed;
    impl Write for Closed {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::ErrorKind::BrokenPipe.into())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn broken_pipe_is_reported_as_such() {
        let mut out = Output::new(Closed);
        out.line(b"x").unwrap();
        assert_eq!(out.flush().unwrap_err().kind(), io::ErrorKind::BrokenPipe);
    }
}
