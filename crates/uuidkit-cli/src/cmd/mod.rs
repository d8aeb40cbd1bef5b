//! One module per mode, and the loop that `inspect`, `check` and `convert`
//! share.

pub mod check;
pub mod convert;
pub mod doc;
pub mod inspect;
pub mod new;
pub mod range;
pub mod snowflake;

use std::io;

use uuidkit::Uuid;

use crate::error::{Error, Outcome};
use crate::flags::InputPlan;
use crate::input;
use crate::output::Output;
use crate::text::InputError;

/// Buffered stdout.
pub fn stdout() -> Output<crate::error::Stream<io::StdoutLock<'static>>> {
    Output::new(crate::error::stdout())
}

/// How rejected inputs are reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reports {
    /// On stdout, a block each with a caret under the mistake
    /// ([`input::block`]): `check`, whose output the report is.
    Blocks,
    /// On stderr, a line each ([`input::rejection`]), in order with the
    /// output: `inspect` and `convert`.
    Lines,
    /// Not at all (`check -q`): the exit status tells.
    Silent,
}

/// The one per-line loop: reads every input of `input` (the arguments, or
/// stdin line by line) as a UUID and hands it, with its text, to `handle`,
/// which writes what the command makes of it or refuses it with a message
/// (`Ok(Err(…))`). Inputs that do not read, and refused ones, are reported as
/// `reports` says; the run goes on, and ends with [`Outcome::SomeInvalid`]
/// if any was. An `Err` from `handle` (a failed write) ends the run; a
/// broken pipe ends it with the outcome so far.
pub fn each_uuid<W: io::Write>(
    out: &mut Output<W>,
    input: &InputPlan,
    reports: Reports,
    mut handle: impl FnMut(&mut Output<W>, &[u8], Uuid) -> Result<Result<(), String>, Error>,
) -> Result<Outcome, Error> {
    let mut invalid = false;
    let run = input::for_each(&input.uuids, out, |out, item| {
        let read = item
            .text()
            .and_then(|t| crate::text::read(t, input.from, input.strict).map(|u| (t, u)));
        let refused = match read {
            Ok((text, u)) => handle(out, text, u)?.err().map(InputError::whole),
            Err(e) => Some(e),
        };
        if let Some(e) = refused {
            invalid = true;
            match reports {
                Reports::Blocks => {
                    for line in input::block(&item, &e).lines() {
                        out.line(line.as_bytes())?;
                    }
                }
                Reports::Lines => out.report(&input::rejection(&item, &e))?,
                Reports::Silent => {}
            }
        }
        Ok(())
    })
    .and_then(|()| out.flush().map_err(Error::from));
    match run {
        // A reader that went away (`| head`) ends the run quietly, with the
        // status earned so far.
        Err(e) if !e.is_broken_pipe() => Err(e),
        _ if invalid => Ok(Outcome::SomeInvalid),
        _ => Ok(Outcome::Success),
    }
}
