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
//! - Reports of bad input ([`Output::report`]) are buffered too, for stderr, and
//!   keep their place among the output lines: whichever stream gets a line
//!   first has what it holds written out, so at most one of the two holds
//!   anything at a time.

use std::io::{self, Write};

use uuidkit::Uuid;

use uuidkit::encoding::Encoding;

use crate::flags::Format;

/// Flush threshold: the buffer is written out once it holds this many bytes.
pub const CHUNK: usize = 1 << 20;

/// Room past [`CHUNK`]: any single formatted line, or one [`Output::bulk`] block, fits.
const SLACK: usize = 256 * 1024;

/// The largest block [`Output::bulk`] accepts.
pub const MAX_BULK: usize = SLACK;

/// The longest text form of a UUID: a TypeID with a 63-character prefix.
pub const MAX_TEXT: usize = uuidkit::encoding::TypeId::MAX_LENGTH;

/// Writes `u` in form `format` into `buf` (at least [`MAX_TEXT`] bytes);
/// returns the length. `upper` applies to the hex forms (base32 and
/// base32hex are upper case, a TypeID lower case, by definition); `prefix`
/// to a TypeID, and must be valid (it was checked when the arguments were
/// read; an invalid one is written without it).
#[inline]
pub fn encode(u: &Uuid, format: Format, upper: bool, prefix: &str, buf: &mut [u8]) -> usize {
    match (format, upper) {
        (Format::Encoded(Encoding::TypeId), _) if !prefix.is_empty() => {
            match uuidkit::encoding::TypeId::new(prefix, *u) {
                Ok(t) => t.encode(buf).len(),
                Err(_) => Encoding::TypeId.encode(*u, buf).len(),
            }
        }
        (Format::Encoded(e), _) => e.encode(*u, buf).len(),
        (Format::Int, _) => decimal(u.as_u128(), buf),
        (Format::Bin, _) => {
            buf[..16].copy_from_slice(u.as_bytes());
            16
        }
        (Format::Canonical, false) => u.hyphenated().encode_lower(buf).len(),
        (Format::Canonical, true) => u.hyphenated().encode_upper(buf).len(),
        (Format::Simple, false) => u.simple().encode_lower(buf).len(),
        (Format::Simple, true) => u.simple().encode_upper(buf).len(),
        (Format::Braced, false) => u.braced().encode_lower(buf).len(),
        (Format::Braced, true) => u.braced().encode_upper(buf).len(),
        (Format::Urn, false) => u.urn().encode_lower(buf).len(),
        (Format::Urn, true) => u.urn().encode_upper(buf).len(),
    }
}

/// Writes `v` in decimal, without leading zeros, into `buf` (at least 39
/// bytes); returns the length.
fn decimal(mut v: u128, buf: &mut [u8]) -> usize {
    let mut digits = [0u8; 39];
    let mut start = digits.len();
    loop {
        start -= 1;
        digits[start] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    let n = digits.len() - start;
    buf[..n].copy_from_slice(&digits[start..]);
    n
}

/// A line-oriented buffered writer.
pub struct Output<W: Write> {
    inner: W,
    buf: Box<[u8]>,
    len: usize,
    /// The TypeID prefix [`Output::uuid`] writes with `TYPEID`.
    prefix: String,
    /// Reports for stderr, not yet written.
    reports: Vec<u8>,
}

/// Reports are written to stderr once they hold this many bytes.
const REPORTS_CHUNK: usize = 64 * 1024;

impl<W: Write> Output<W> {
    /// Wraps `inner` with a buffer of `CHUNK` bytes (allocated and zeroed once).
    pub fn new(inner: W) -> Output<W> {
        Output {
            inner,
            buf: vec![0u8; CHUNK + SLACK].into_boxed_slice(),
            len: 0,
            prefix: String::new(),
            reports: Vec::new(),
        }
    }

    /// Sets the TypeID prefix of `TYPEID` lines (valid, as
    /// the `new` and `range` plans hold it).
    pub fn with_prefix(mut self, prefix: &str) -> Output<W> {
        prefix.clone_into(&mut self.prefix);
        self
    }

    /// Appends one report line (a newline is added) for stderr, after every
    /// output line so far.
    pub fn report(&mut self, text: &str) -> io::Result<()> {
        self.write_buffer()?;
        self.reports.extend_from_slice(text.as_bytes());
        self.reports.push(b'\n');
        if self.reports.len() >= REPORTS_CHUNK {
            self.write_reports()?;
        }
        Ok(())
    }

    #[cold]
    fn write_reports(&mut self) -> io::Result<()> {
        let mut err = crate::error::Stream::new(io::stderr().lock(), "writing standard error");
        err.write_all(&self.reports)?;
        self.reports.clear();
        err.flush()
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
        if !self.reports.is_empty() {
            self.write_reports()?;
        }
        let start = self.len;
        let n = f(&mut self.buf[start..start + max]);
        self.buf[start + n] = b'\n';
        self.len = start + n + 1;
        if self.len >= CHUNK {
            self.write_buffer()?;
        }
        Ok(())
    }

    /// Appends `u` in form `format` and a newline; in the raw form, its 16
    /// bytes and nothing else.
    #[inline]
    pub fn uuid(&mut self, u: &Uuid, format: Format, upper: bool) -> io::Result<()> {
        if format == Format::Bin {
            return self.bulk(16, |b| b.copy_from_slice(u.as_bytes()));
        }
        // Moved out for the call and back (no copy): `with_line` borrows all of `self`.
        let prefix = std::mem::take(&mut self.prefix);
        let r = self.with_line(MAX_TEXT, |b| encode(u, format, upper, &prefix, b));
        self.prefix = prefix;
        r
    }

    /// Formats a block of whole lines, exactly `len` bytes (at most [`MAX_BULK`]),
    /// in place: `f` must fill the whole slice, newlines included.
    #[inline]
    pub fn bulk(&mut self, len: usize, f: impl FnOnce(&mut [u8])) -> io::Result<()> {
        assert!(
            len <= MAX_BULK,
            "bulk block of {len} bytes: expected at most {MAX_BULK}"
        );
        if !self.reports.is_empty() {
            self.write_reports()?;
        }
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
        if !self.reports.is_empty() {
            self.write_reports()?;
        }
        self.write_buffer()?;
        let mut v = Vec::with_capacity(text.len() + 1);
        v.extend_from_slice(text);
        v.push(b'\n');
        self.inner.write_all(&v)
    }

    /// Writes out everything buffered so far (whole lines) and flushes the writer.
    pub fn flush(&mut self) -> io::Result<()> {
        self.write_buffer()?;
        self.inner.flush()?;
        if !self.reports.is_empty() {
            self.write_reports()?;
        }
        Ok(())
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

    #[test]
    fn every_text_form_and_case() {
        const FIG1: Uuid = Uuid::from_u128(0xf81d4fae_7dec_11d0_a765_00a0c91e6bf6);
        let text = |format, upper| {
            let mut b = [0u8; MAX_TEXT];
            let n = encode(&FIG1, format, upper, "", &mut b);
            String::from_utf8(b[..n].to_vec()).unwrap()
        };
        assert_eq!(
            text(Format::Canonical, false),
            "f81d4fae-7dec-11d0-a765-00a0c91e6bf6"
        );
        assert_eq!(
            text(Format::Simple, true),
            "F81D4FAE7DEC11D0A76500A0C91E6BF6"
        );
        assert_eq!(
            text(Format::Braced, false),
            "{f81d4fae-7dec-11d0-a765-00a0c91e6bf6}"
        );
        assert_eq!(
            text(Format::Urn, false),
            "urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6"
        );
        let mut out = Output::new(Vec::new());
        for f in [
            Format::Canonical,
            Format::Simple,
            Format::Braced,
            Format::Urn,
        ] {
            for up in [false, true] {
                assert_eq!(Uuid::parse(text(f, up).as_bytes()).unwrap(), FIG1);
                out.uuid(&FIG1, f, up).unwrap();
            }
        }
        out.flush().unwrap();
        let lines = String::from_utf8(out.inner).unwrap();
        assert_eq!(lines.lines().count(), 8);
        assert_eq!(
            lines.lines().last(),
            Some("urn:uuid:F81D4FAE-7DEC-11D0-A765-00A0C91E6BF6")
        );
    }

    #[test]
    fn decimal_and_raw_forms() {
        let text = |u: Uuid| {
            let mut b = [0u8; MAX_TEXT];
            let n = encode(&u, Format::Int, false, "", &mut b);
            String::from_utf8(b[..n].to_vec()).unwrap()
        };
        assert_eq!(text(Uuid::NIL), "0");
        assert_eq!(text(Uuid::MAX), u128::MAX.to_string());
        let u = Uuid::from_u128(0xf81d4fae_7dec_11d0_a765_00a0c91e6bf6);
        assert_eq!(text(u), u.as_u128().to_string());
        let mut out = Output::new(Vec::new());
        out.uuid(&u, Format::Bin, false).unwrap();
        out.uuid(&Uuid::MAX, Format::Bin, false).unwrap();
        out.flush().unwrap();
        assert_eq!(&out.inner[..16], u.as_bytes());
        assert_eq!(out.inner.len(), 32);
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
