//! `uiapd`: the UIAP daemon. Parses the configuration, sets up logging, and runs
//! [`uiapd::run_with_signals`] until SIGTERM or SIGINT.

use std::process::ExitCode;

use clap::Parser;
use uiapd::config::Args;

fn main() -> ExitCode {
    let config = match Args::parse().into_config() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("uiapd: {e}");
            return ExitCode::from(2);
        }
    };
    let filter = match tracing_subscriber::EnvFilter::try_new(&config.log_level) {
        Ok(f) => f,
        Err(e) => {
            eprintln!(
                "uiapd: log-level: expected a level or tracing filter (info, uiapd=debug, …), found `{}`: {e}",
                config.log_level
            );
            return ExitCode::from(2);
        }
    };
    use std::io::IsTerminal;
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::stderr().is_terminal())
        .with_writer(std::io::stderr)
        .init();
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("uiapd: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(uiapd::run_with_signals(config)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("uiapd: {e}");
            ExitCode::FAILURE
        }
    }
}
