//! Inputs of `inspect`, `check` and `convert`: the arguments, or else stdin
//! (or `check --file` files) one per line, or, with `--from bin`, one
//! 16-byte record each.
//!
//! Lines are split on `\n`; a trailing `\r` is removed and empty lines are skipped.
//! Nothing else is trimmed, so stray spaces are reported, not silently accepted.
//! At most [`MAX_LINE`] bytes of a line are kept: a longer one is reported with
//! its length (see [`Item::text`]) and the run goes on, in bounded memory
//! whatever the input (`< /dev/zero` included).
//! Before each read that may block, the caller's output is flushed, so a pipeline
//! that feeds one UUID at a time gets each answer at once, while bulk input still
//! leaves in large chunks.

use std::io::{self, BufRead};
use std::path::{Path, PathBuf};

use crate::error::Error;
use crate::output::Output;

/// The most bytes of a line kept: the longest text any form has (a TypeID
/// with a 63-character prefix, 90 bytes) fits many times over, and a line
/// this long is shown in part anyway.
pub const MAX_LINE: usize = 1024;

/// One input and where it came from.
#[derive(Debug, Clone, Copy)]
pub struct Item<'a> {
    /// The raw bytes (without the line terminator), at most [`MAX_LINE`].
    pub bytes: &'a [u8],
    /// The input's whole length in bytes: more than `bytes.len()` for a
    /// line longer than [`MAX_LINE`].
    pub len: usize,
    /// 1-based line, record or argument number.
    pub number: u64,
    /// Where the input came from.
    pub place: Place<'a>,
}

/// Where an [`Item`] came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place<'a> {
    /// A command-line argument.
    Argument,
    /// A line of stdin (`None`) or of a file.
    Line(Option<&'a Path>),
    /// A 16-byte record (`--from bin`) of stdin (`None`) or of a file.
    Record(Option<&'a Path>),
}

impl<'a> Item<'a> {
    /// The input's bytes, or the error for a line too long to be any form.
    pub fn text(&self) -> Result<&'a [u8], crate::text::InputError> {
        if self.len > self.bytes.len() {
            return Err(crate::text::InputError::whole(format!(
                "too long: expected at most {MAX_LINE} bytes (no text form of a UUID has more \
                 than {}), found {} bytes",
                uuidkit::encoding::TypeId::MAX_LENGTH,
                self.len
            )));
        }
        Ok(self.bytes)
    }

    /// "line 3", "argument 2", "record 5", or "ids.txt line 3".
    pub fn label(&self) -> String {
        let n = self.number;
        match self.place {
            Place::Argument => format!("argument {n}"),
            Place::Line(None) => format!("line {n}"),
            Place::Record(None) => format!("record {n}"),
            Place::Line(Some(f)) => format!("{} line {n}", f.display()),
            Place::Record(Some(f)) => format!("{} record {n}", f.display()),
        }
    }
}

/// Inputs longer than this many characters are echoed in part.
pub const ECHO_MAX: usize = 80;

/// An input as it may be echoed to a terminal: see [`echo`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Echo {
    /// The text to show.
    pub shown: String,
    /// The display column (in characters) of the requested byte, if shown.
    pub column: Option<usize>,
    /// The input's length in bytes, if it was shown in part.
    pub cut: Option<usize>,
}

/// True for the invisible format characters that reorder or hide text
/// (bidirectional controls, zero-width characters, the byte-order mark, soft
/// hyphen): like controls, they would not show as themselves.
fn hidden(c: char) -> bool {
    matches!(c,
            '\u{00AD}' | '\u{061C}' | '\u{180E}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{206F}' | '\u{FEFF}' | '\u{FFF9}'..='\u{FFFB}')
}

/// `message` with every control character but the line break, and every
/// [`hidden`] character, escaped: for messages that quote what the user gave.
pub fn escape_hidden(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    for c in message.chars() {
        match c {
            '\n' => out.push(c),
            c if c.is_control() => out.extend(c.escape_default()),
            c if hidden(c) => out.extend(c.escape_unicode()),
            c => out.push(c),
        }
    }
    out
}

/// One character of an input, or one byte that is not part of valid UTF-8,
/// with its byte offset.
fn units(bytes: &[u8]) -> impl Iterator<Item = (usize, Result<char, u8>)> + '_ {
    let mut offset = 0;
    bytes.utf8_chunks().flat_map(move |chunk| {
        let base = offset;
        offset += chunk.valid().len() + chunk.invalid().len();
        let valid = chunk
            .valid()
            .char_indices()
            .map(move |(i, c)| (base + i, Ok(c)));
        let bad_at = base + chunk.valid().len();
        let invalid = chunk
            .invalid()
            .iter()
            .enumerate()
            .map(move |(i, &b)| (bad_at + i, Err(b)));
        valid.chain(invalid)
    })
}

/// An input made safe and short to echo: [`hidden`] characters escaped
/// (`\t`, `\u{202e}`), bytes that are not UTF-8 shown as `\xff`, and an input
/// longer than [`ECHO_MAX`] characters cut to a window of that many around
/// byte `pos` (or its start), with `…` where text was left out. `column` is
/// where byte `pos` shows (one past the end for a position at the end).
/// `len` is the input's whole length: more than `text.len()` when only its
/// start was kept.
pub fn echo(text: &[u8], pos: Option<usize>, len: usize) -> Echo {
    let total = units(text).count();
    let kept_all = len <= text.len();
    let (start, end) = if total > ECHO_MAX {
        let at = pos.map_or(0, |p| units(text).take_while(|&(i, _)| i < p).count());
        let start = at.saturating_sub(ECHO_MAX / 2).min(total - ECHO_MAX);
        (start, start + ECHO_MAX)
    } else {
        (0, total)
    };
    let mut shown = String::with_capacity(end - start + 2);
    let mut column = None;
    let mut width = 0;
    if start > 0 {
        shown.push('…');
        width += 1;
    }
    for (i, unit) in units(text).skip(start).take(end - start) {
        if pos == Some(i) {
            column = Some(width);
        }
        let before = shown.len();
        match unit {
            Ok(c) if c.is_control() => shown.extend(c.escape_default()),
            Ok(c) if hidden(c) => shown.extend(c.escape_unicode()),
            Ok(c) => shown.push(c),
            Err(b) => shown.push_str(&format!("\\x{b:02x}")),
        }
        width += shown[before..].chars().count();
    }
    if end < total || !kept_all {
        shown.push('…');
    } else if pos.is_some_and(|p| p >= text.len()) {
        column = Some(width);
    }
    Echo {
        shown,
        column,
        cut: (total > ECHO_MAX || !kept_all).then_some(len.max(text.len())),
    }
}

/// The report of `check` for an input it rejects, in the style of regex's
/// parse errors: the error, the input (escaped, and cut around the error if
/// long), and a caret under the offending character when the error has a
/// position.
pub fn block(item: &Item<'_>, e: &crate::text::InputError) -> String {
    let shown = echo(item.bytes, e.position(), item.len);
    let label = item.label();
    let mut s = match shown.cut {
        None => format!("{label}: {e}\n    {}\n", shown.shown),
        Some(len) => format!(
            "{label}: {e} (input of {len} bytes, shown in part)\n    {}\n",
            shown.shown
        ),
    };
    if let Some(col) = shown.column {
        s.push_str(&" ".repeat(4 + col));
        s.push_str("^\n");
    }
    s
}

/// The report of `inspect` and `convert` for an input they reject: where,
/// why, and the input (escaped, and cut if long).
pub fn rejection(item: &Item<'_>, why: &dyn std::fmt::Display) -> String {
    let e = echo(item.bytes, None, item.len);
    match e.cut {
        None => format!("uuidkit: {}: {why} (input '{}')", item.label(), e.shown),
        Some(len) => format!(
            "uuidkit: {}: {why} (input '{}', {len} bytes)",
            item.label(),
            e.shown
        ),
    }
}

/// Calls `f` for each argument, or, with no arguments, for each non-empty line of
/// stdin, flushing `out` before any read that might wait for input.
///
/// Arguments are taken as the bytes they are, like stdin lines, so an
/// argument that is not UTF-8 is invalid input (exit 1), not a usage error.
pub fn for_each<W: io::Write>(
    args: &[std::ffi::OsString],
    out: &mut Output<W>,
    f: impl FnMut(&mut Output<W>, Item<'_>) -> Result<(), Error>,
) -> Result<(), Error> {
    for_each_of(args, &[], false, out, f)
}

/// As [`for_each`], reading the `files` (in order; `-` is stdin) instead of
/// stdin if any are given, and 16-byte records instead of lines if
/// `records`: a final record cut short is handed to `f` with the bytes it
/// has (fewer than 16), for it to refuse.
pub fn for_each_of<W: io::Write>(
    args: &[std::ffi::OsString],
    files: &[PathBuf],
    records: bool,
    out: &mut Output<W>,
    mut f: impl FnMut(&mut Output<W>, Item<'_>) -> Result<(), Error>,
) -> Result<(), Error> {
    if !args.is_empty() {
        for (i, a) in args.iter().enumerate() {
            let bytes = a.as_encoded_bytes();
            f(
                out,
                Item {
                    bytes,
                    len: bytes.len(),
                    number: i as u64 + 1,
                    place: Place::Argument,
                },
            )?;
        }
        return Ok(());
    }
    if files.is_empty() {
        crate::stdio::stdin_is_open()?;
        let stdin = crate::error::Stream::new(io::stdin().lock(), "reading standard input");
        return read_stream(stdin, None, records, out, &mut f);
    }
    for path in files {
        if path.as_os_str() == "-" {
            crate::stdio::stdin_is_open()?;
            let stdin = crate::error::Stream::new(io::stdin().lock(), "reading standard input");
            read_stream(stdin, None, records, out, &mut f)?;
            continue;
        }
        // Labels are 'static; one small string per file named on the
        // command line, for the life of the process.
        let what: &'static str = Box::leak(format!("reading {}", path.display()).into_boxed_str());
        let file = std::fs::File::open(path).map_err(|e| {
            Error::Io(io::Error::new(
                e.kind(),
                format!("cannot open {}: {e}", path.display()),
            ))
        })?;
        read_stream(
            crate::error::Stream::new(file, what),
            Some(path),
            records,
            out,
            &mut f,
        )?;
    }
    Ok(())
}

/// The lines (or records) of one stream, numbered from 1.
fn read_stream<R: io::Read, W: io::Write>(
    stream: R,
    path: Option<&Path>,
    records: bool,
    out: &mut Output<W>,
    f: &mut impl FnMut(&mut Output<W>, Item<'_>) -> Result<(), Error>,
) -> Result<(), Error> {
    let mut r = io::BufReader::with_capacity(1 << 16, stream);
    let mut line = Vec::with_capacity(MAX_LINE);
    let mut number = 0;
    loop {
        if r.buffer().is_empty() {
            out.flush()?;
        }
        let next = if records {
            read_record(&mut r, &mut line)?
        } else {
            read_line(&mut r, &mut line)?
        };
        let Some(len) = next else {
            return Ok(());
        };
        number += 1;
        if len == 0 {
            continue;
        }
        let place = if records {
            Place::Record(path)
        } else {
            Place::Line(path)
        };
        f(
            out,
            Item {
                bytes: &line,
                len,
                number,
                place,
            },
        )?;
    }
}

/// The reader's buffered bytes, refilled if empty (empty at the end of the
/// input), past interruptions.
fn fill<R: io::Read>(r: &mut io::BufReader<R>) -> io::Result<&[u8]> {
    loop {
        match r.fill_buf() {
            Ok(_) => return Ok(r.buffer()),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

/// Reads the next 16-byte record into `record`; returns its length (16, or
/// fewer for a final record cut short), or `None` at the end of the input.
fn read_record<R: io::Read>(
    r: &mut io::BufReader<R>,
    record: &mut Vec<u8>,
) -> io::Result<Option<usize>> {
    record.clear();
    while record.len() < 16 {
        let buf = fill(r)?;
        if buf.is_empty() {
            break;
        }
        let n = buf.len().min(16 - record.len());
        record.extend_from_slice(&buf[..n]);
        r.consume(n);
    }
    Ok((!record.is_empty()).then_some(record.len()))
}

/// Reads the next line into `line`, keeping at most [`MAX_LINE`] bytes of
/// it; returns its whole length (without `\n` and a `\r` before it), or
/// `None` at the end of the input.
fn read_line<R: io::Read>(
    r: &mut io::BufReader<R>,
    line: &mut Vec<u8>,
) -> io::Result<Option<usize>> {
    line.clear();
    let (mut len, mut read_any, mut last) = (0usize, false, 0u8);
    loop {
        let buf = fill(r)?;
        if buf.is_empty() {
            break;
        }
        read_any = true;
        let newline = buf.iter().position(|&b| b == b'\n');
        let part = &buf[..newline.unwrap_or(buf.len())];
        let room = MAX_LINE.saturating_sub(line.len());
        line.extend_from_slice(&part[..part.len().min(room)]);
        len += part.len();
        last = part.last().copied().unwrap_or(last);
        let used = newline.map_or(buf.len(), |i| i + 1);
        r.consume(used);
        if newline.is_some() {
            break;
        }
    }
    if !read_any {
        return Ok(None);
    }
    if last == b'\r' && len > 0 {
        len -= 1;
        if line.len() > len {
            line.truncate(len);
        }
    }
    Ok(Some(len))
}
