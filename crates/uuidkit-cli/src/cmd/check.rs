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
        if let Err(e) = crate::text::read(item.bytes, args.from, args.strict) {
            invalid += 1;
            if !args.quiet {
                let report = report(&item.label(), &item.text(), &e);
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

/// The report for one invalid input: the error, the input, and a caret under the
/// offending character when the error has a position.
pub fn report(label: &str, text: &str, e: &InputError) -> String {
    let (shown, col) = render(text, e.position());
    let mut s = format!("{label}: {e}\n    {shown}\n");
    if let Some(col) = col {
        s.push_str(&" ".repeat(4 + col));
        s.push_str("^\n");
    }
    s
}

/// The input with control characters escaped, and the display column of byte `pos`.
fn render(text: &str, pos: Option<usize>) -> (String, Option<usize>) {
    let mut shown = String::with_capacity(text.len());
    let mut col = None;
    let mut width = 0;
    for (i, c) in text.char_indices() {
        if pos == Some(i) {
            col = Some(width);
        }
        if c.is_control() {
            let esc: String = c.escape_default().collect();
            width += esc.chars().count();
            shown.push_str(&esc);
        } else {
            width += 1;
            shown.push(c);
        }
    }
    if pos.is_some_and(|p| p >= text.len()) {
        col = Some(width);
    }
    (shown, col)
}

#[cfg(test)]
mod tests {
    use super::*;
    use uuidkit::Uuid;

    #[test]
    fn caret_under_the_bad_character() {
        let e = InputError::Hex(Uuid::parse("f81d4fae-gdec-11d0-a765-00a0c91e6bf6").unwrap_err());
        let r = report("line 3", "f81d4fae-gdec-11d0-a765-00a0c91e6bf6", &e);
        let lines: Vec<&str> = r.lines().collect();
        assert!(lines[0].starts_with("line 3: "), "{r}");
        assert_eq!(lines[1], "    f81d4fae-gdec-11d0-a765-00a0c91e6bf6");
        assert_eq!(lines[2], "             ^");
    }

    #[test]
    fn control_characters_are_escaped_and_counted() {
        let (shown, col) = render("a\tb", Some(2));
        assert_eq!(shown, "a\\tb");
        assert_eq!(col, Some(3));
        let (_, col) = render("é-x", Some(3));
        assert_eq!(col, Some(2));
    }
}
