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
use crate::flags::CheckPlan;

use super::Reports;

/// Runs `check`: every input that reads as a UUID is valid.
pub fn run(plan: &CheckPlan) -> Result<Outcome, Error> {
    let reports = if plan.quiet {
        Reports::Silent
    } else {
        Reports::Blocks
    };
    super::each_uuid(&mut super::stdout(), &plan.input, reports, |_, _, _| {
        Ok(Ok(()))
    })
}

#[cfg(test)]
mod tests {
    use crate::input::{self, Item};

    #[test]
    fn caret_under_the_bad_character() {
        let text = b"f81d4fae-gdec-11d0-a765-00a0c91e6bf6";
        let e = crate::text::read(text, None, false).unwrap_err();
        let item = Item {
            bytes: text,
            len: text.len(),
            number: 3,
            from_stdin: true,
        };
        let r = input::block(&item, &e);
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
