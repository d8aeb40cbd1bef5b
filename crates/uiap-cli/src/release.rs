//! `uiap release`: give a claim up.

use std::process::ExitCode;

/// Arguments of `uiap release`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The claim's ID (as printed by `uiap claim` and `uiap list`).
    #[arg(value_name = "ID")]
    pub id: u64,
    /// Where uiapd listens.
    #[command(flatten)]
    pub daemon: crate::ControlArgs,
}

/// Exit codes: 0 released, 1 error (including an unknown ID).
pub fn run(args: &Args) -> ExitCode {
    match args.daemon.client().release(args.id) {
        Ok(()) => {
            outln!("released id={}", args.id);
            ExitCode::SUCCESS
        }
        Err(e) => crate::failed("release", &e),
    }
}
