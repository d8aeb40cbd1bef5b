//! The `uuidkit` command-line tool: generate, inspect, check, convert and bound
//! UUIDs (RFC 9562).
//!
//! `main` parses the arguments, dispatches to one function per mode and maps the
//! result onto the exit-code contract: 0 success, 1 invalid input (or a failure),
//! 2 usage error. A closed stdout (`uuidkit … | head`) ends the run quietly with 0.
#![deny(missing_docs)]

mod cmd;
mod error;
mod flags;
mod input;
mod output;
mod text;
mod time;

use std::io::Write;
use std::process::ExitCode;

use error::{Error, Outcome};
use flags::Mode;

fn main() -> ExitCode {
    let cli = match flags::parse_from(std::env::args_os()) {
        Ok(cli) => cli,
        Err(e) => {
            // Help and version go to stdout with status 0; real errors exit 2.
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    match Mode::from_cli(cli).and_then(run) {
        Ok(Outcome::Success) => ExitCode::SUCCESS,
        Ok(Outcome::SomeInvalid) => ExitCode::from(1),
        Err(e) if e.is_broken_pipe() => ExitCode::SUCCESS,
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "uuidkit: error: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}

fn run(mode: Mode) -> Result<Outcome, Error> {
    match mode {
        Mode::New(plan) => cmd::new::run(&plan),
        Mode::Inspect(args) => cmd::inspect::run(&args),
        Mode::Check(args) => cmd::check::run(&args),
        Mode::Convert(args) => cmd::convert::run(&args),
        Mode::Range(args) => cmd::range::run(&args),
        Mode::Completions(shell) => cmd::doc::completions(shell),
        Mode::Man(sub) => cmd::doc::man(sub.as_deref()),
    }
}
