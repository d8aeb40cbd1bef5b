//! One module per mode, and the loop that `inspect`, `check` and `convert`
//! share.

pub mod check;
pub mod convert;
pub mod doc;
pub mod inspect;
pub mod new;
pub mod range;
pub mod snowflake;
pub mod table;

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
/// stdin or the files, line by line or record by record) as a UUID and
/// hands it, with the input it came from, to `handle`,
/// which writes what the command makes of it or refuses it with a message
/// (`Ok(Err(…))`). Inputs that do not read, and refused ones, are reported as
/// `reports` says; the run goes on, and ends with [`Outcome::SomeInvalid`]
/// if any was. An `Err` from `handle` (a failed write) ends the run; a
/// broken pipe ends it with the outcome so far.
pub fn each_uuid<W: io::Write>(
    out: &mut Output<W>,
    input: &InputPlan,
    reports: Reports,
    handle: impl FnMut(&mut Output<W>, &input::Item<'_>, Uuid) -> Result<Result<(), String>, Error>,
) -> Result<Outcome, Error> {
    each_uuid_counted(out, input, reports, handle).map(|(outcome, _)| outcome)
}

/// [`each_uuid`], with the number of inputs refused.
pub fn each_uuid_counted<W: io::Write>(
    out: &mut Output<W>,
    input: &InputPlan,
    reports: Reports,
    mut handle: impl FnMut(&mut Output<W>, &input::Item<'_>, Uuid) -> Result<Result<(), String>, Error>,
) -> Result<(Outcome, u64), Error> {
    let mut invalid = 0u64;
    let records = input.records();
    let run = input::for_each_of(&input.uuids, &input.files, records, out, |out, item| {
        let read = item
            .text()
            .and_then(|t| crate::text::read(t, input.from, input.strict));
        let refused = match read {
            Ok(u) => handle(out, &item, u)?.err().map(InputError::whole),
            Err(e) => Some(e),
        };
        if let Some(e) = refused {
            invalid += 1;
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
        _ if invalid > 0 => Ok((Outcome::SomeInvalid, invalid)),
        _ => Ok((Outcome::Success, 0)),
    }
}
