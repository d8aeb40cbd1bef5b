//! `uuidkit check`: validate UUIDs, report each invalid one with its position.
//!
//! The report goes to stdout (it is what the command produces), one block per
//! invalid input, in the style of regex's parse errors:
//!
//! ```text
//! line 3: invalid character 'g' at position 9: expected a hex digit
//!     f81d4fae-gdec-11d0-a765-00a0c91e6bf6
//!              ^
//! ```

use crate::error::{Error, Outcome};
use crate::flags::CheckArgs;
use crate::input;
use crate::text::InputError;

/// Runs `check`.
pub fn run(args: &CheckArgs) -> Result<Outcome, Error> {
    let mut out = super::stdout();
    let mut invalid = 0u64;
    input::for_each(&args.uuids, &mut out, |out, item| {
        let read = item
            .text()
            .and_then(|t| crate::text::read(t, args.from, args.strict));
        if let Err(e) = read {
            invalid += 1;
            if !args.quiet {
                let report = report(&item.label(), item.bytes, item.len, &e);
                for line in report.lines() {
                    out.line(line.as_bytes())?;
                }
            }
        }
        Ok(())
    })?;
    out.flush()?;
    Ok(if invalid == 0 {
        Outcome::Success
    } else {
        Outcome::SomeInvalid
    })
}

/// The report for one invalid input: the error, the input (escaped, and cut
/// around the error if long), and a caret under the offending character when
/// the error has a position. `len` is the input's whole length (more than
/// `text.len()` when only its start was kept).
pub fn report(label: &str, text: &[u8], len: usize, e: &InputError) -> String {
    let shown = input::echo(text, e.position(), len);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caret_under_the_bad_character() {
        let text = b"f81d4fae-gdec-11d0-a765-00a0c91e6bf6";
        let e = crate::text::read(text, None, false).unwrap_err();
        let r = report("line 3", text, text.len(), &e);
        let lines: Vec<&str> = r.lines().collect();
        assert!(lines[0].starts_with("line 3: "), "{r}");
        assert_eq!(lines[1], "    f81d4fae-gdec-11d0-a765-00a0c91e6bf6");
        assert_eq!(lines[2], "             ^");
    }

    #[test]
    fn control_characters_are_escaped_and_counted() {
        let e = input::echo(b"a\tb", Some(2), 3);
        assert_eq!((e.shown.as_str(), e.column), ("a\\tb", Some(3)));
        let e = input::echo("é-x".as_bytes(), Some(3), 4);
        assert_eq!(e.column, Some(2));
    }
}
