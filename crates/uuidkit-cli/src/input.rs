//! Inputs of `inspect`, `check` and `convert`: the arguments, or else stdin one per line.
//!
//! Lines are split on `\n`; a trailing `\r` is removed and empty lines are skipped.
//! Nothing else is trimmed, so stray spaces are reported, not silently accepted.
//! Before each read that may block, the caller's output is flushed, so a pipeline
//! that feeds one UUID at a time gets each answer at once, while bulk input still
//! leaves in large chunks.

use std::io::{self, BufRead};

use crate::error::Error;
use crate::output::Output;

/// One input and where it came from.
#[derive(Debug, Clone, Copy)]
pub struct Item<'a> {
    /// The raw bytes (without the line terminator).
    pub bytes: &'a [u8],
    /// 1-based line number on stdin, or 1-based argument index.
    pub number: usize,
    /// True for stdin lines, false for arguments.
    pub from_stdin: bool,
}

impl Item<'_> {
    /// "line 3" or "argument 2".
    pub fn label(&self) -> String {
        if self.from_stdin {
            format!("line {}", self.number)
        } else {
            format!("argument {}", self.number)
        }
    }

    /// The input as text (invalid UTF-8 replaced by U+FFFD).
    pub fn text(&self) -> std::borrow::Cow<'_, str> {
        String::from_utf8_lossy(self.bytes)
    }
}

/// Calls `f` for each argument, or, with no arguments, for each non-empty line of
/// stdin, flushing `out` before any read that might wait for input.
pub fn for_each<W: io::Write>(
    args: &[String],
    out: &mut Output<W>,
    mut f: impl FnMut(&mut Output<W>, Item<'_>) -> Result<(), Error>,
) -> Result<(), Error> {
    if !args.is_empty() {
        for (i, a) in args.iter().enumerate() {
            f(
                out,
                Item {
                    bytes: a.as_bytes(),
                    number: i + 1,
                    from_stdin: false,
                },
            )?;
        }
        return Ok(());
    }
    let stdin = io::stdin();
    let mut r = io::BufReader::with_capacity(1 << 16, stdin.lock());
    let mut line = Vec::with_capacity(64);
    let mut number = 0;
    loop {
        if r.buffer().is_empty() {
            out.flush()?;
        }
        line.clear();
        if r.read_until(b'\n', &mut line)? == 0 {
            return Ok(());
        }
        number += 1;
        let mut bytes = line.as_slice();
        if let Some(rest) = bytes.strip_suffix(b"\n") {
            bytes = rest;
        }
        if let Some(rest) = bytes.strip_suffix(b"\r") {
            bytes = rest;
        }
        if bytes.is_empty() {
            continue;
        }
        f(
            out,
            Item {
                bytes,
                number,
                from_stdin: true,
            },
        )?;
    }
}
