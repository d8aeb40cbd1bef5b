//! `uiap release`: give a claim up.

use std::process::ExitCode;

use uiapd::control::{Request, call};

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
    match call(&args.daemon.control, &Request::Release { id: args.id }) {
        Ok(r) if r.ok => {
            outln!("released id={}", args.id);
            ExitCode::SUCCESS
        }
        Ok(r) => {
            let e = r
                .error
                .map(|e| format!("{}: {}", e.kind, e.message))
                .unwrap_or_else(|| "failed".into());
            eprintln!("uiap release: {e}");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("uiap release: {e}");
            ExitCode::FAILURE
        }
    }
}
