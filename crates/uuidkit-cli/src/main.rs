//! The `uuidkit` command-line tool: generate, inspect, check, convert and bound
//! UUIDs (RFC 9562).
//!
//! `main` parses the arguments, dispatches to one function per mode and maps the
//! result onto the exit-code contract: 0 success, 1 invalid input (or a failure),
//! 2 usage error. A reader that goes away (`uuidkit … | head`) ends the run quietly
//! with the status earned so far (1 once an invalid input was seen, else 0); any
//! other write error, help and version included, and a stdout that was closed from
//! the start (`uuidkit … >&-`), is exit 1 with a message naming the stream, as is a
//! closed stdin (`<&-`) for a command that reads it.
#![deny(missing_docs)]

mod cmd;
mod error;
mod flags;
mod input;
mod output;
mod stdio;
mod text;
mod time;

use std::io::Write;
use std::process::ExitCode;

use error::{Error, Outcome};
use flags::Mode;

fn main() -> ExitCode {
    // Before anything opens a file: with stdout closed, the next file opened
    // would take its descriptor and receive the output.
    if let Err(e) = stdio::stdout_is_open() {
        return fail(&Error::Io(e));
    }
    let cli = match flags::parse_from(std::env::args_os()) {
        Ok(cli) => cli,
        Err(e) if e.use_stderr() => {
            // What the user typed, made visible. The command has no styles
            // (flags/mod.rs), so the only escape sequences left are the user's
            // (which plain `to_string` would silently drop).
            let text = input::escape_hidden(&e.render().ansi().to_string());
            let _ = std::io::stderr().write_all(text.as_bytes());
            return ExitCode::from(2);
        }
        // Help and version go to stdout with status 0, if they get there.
        Err(e) => {
            let mut out = error::stdout();
            return match write!(out, "{}", e.render()).and_then(|()| out.flush()) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => fail(&Error::Io(e)),
            };
        }
    };
    match Mode::from_cli(cli).and_then(run) {
        Ok(Outcome::Success) => ExitCode::SUCCESS,
        Ok(Outcome::SomeInvalid) => ExitCode::from(1),
        Err(e) if e.is_broken_pipe() => ExitCode::SUCCESS,
        Err(e) => fail(&e),
    }
}

/// Reports `e` on stderr; its exit status.
fn fail(e: &Error) -> ExitCode {
    let text = input::escape_hidden(&format!("uuidkit: error: {e}\n"));
    let _ = std::io::stderr().write_all(text.as_bytes());
    ExitCode::from(e.exit_code())
}

fn run(mode: Mode) -> Result<Outcome, Error> {
    match mode {
        Mode::New(plan) => cmd::new::run(&plan),
        Mode::Inspect(plan) => cmd::inspect::run(&plan),
        Mode::Check(plan) => cmd::check::run(&plan),
        Mode::Convert(plan) => cmd::convert::run(&plan),
        Mode::Range(plan) => cmd::range::run(&plan),
        Mode::Completions(shell) => cmd::doc::completions(shell),
        Mode::Man(sub) => cmd::doc::man(sub.as_deref()),
        Mode::Snowflake(plan) => cmd::new::snowflake::run(&plan),
        Mode::InspectSnowflake(plan) => cmd::snowflake::inspect(&plan),
    }
}
