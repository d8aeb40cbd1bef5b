//! `uiap`: offline UIAP tools and the daemon client.
//!
//! A thin dispatcher: each subcommand lives in its own module, which defines its clap `Args` and a
//! `run(&Args) -> ExitCode`. Add a subcommand by adding a module, a variant of [`Command`] and a
//! match arm below. Exit codes: 0 success, 1 the input was rejected (the error is on stderr),
//! 2 a usage error (from clap).

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// `println!` for output a reader may stop reading (`uiap list | head`): a closed stdout is
/// not worth a panic, the rest of the output is dropped and the exit code stays that of the
/// command.
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}

mod claim;
mod decode;
mod list;
mod proxies;
mod release;
mod sim;
mod status;
mod watch;

/// Command-line interface of `uiap`.
#[derive(Debug, Parser)]
#[command(
    name = "uiap",
    version,
    about = "UIAP (draft-white-zeroconf-uiap-00) tools"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// The subcommands, one module each.
#[derive(Debug, Subcommand)]
enum Command {
    /// Decode one UIAP message given in hex and print it as JSON.
    Decode(decode::Args),
    /// Ask the local uiapd to claim a UID space (exit 0 claimed, 3 denied, 1 error).
    Claim(claim::Args),
    /// Release a claim by its ID.
    Release(release::Args),
    /// List the claims of the local uiapd.
    List(list::Args),
    /// Show the local uiapd's device ID, interfaces and counters.
    Status(status::Args),
    /// List (or with --flush, forget) the claims the local uiapd defends for other devices.
    Proxies(proxies::Args),
    /// Print the events of the claims (renewed, conflict, lost, expired, released, isolated, suppressed) as they happen.
    Watch(watch::Args),
    /// Run a simulated site from a scenario file: who claimed what, who was denied by whom, who holds
    /// what at the end (and which devices overlap), traffic; `--json` for JSON lines.
    Sim(sim::Args),
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Decode(args) => decode::run(&args),
        Command::Claim(args) => claim::run(&args),
        Command::Release(args) => release::run(&args),
        Command::List(args) => list::run(&args),
        Command::Status(args) => status::run(&args),
        Command::Proxies(args) => proxies::run(&args),
        Command::Watch(args) => watch::run(&args),
        Command::Sim(args) => sim::run(&args),
    }
}

/// The options every daemon command shares: where uiapd listens.
#[derive(clap::Args, Debug, Clone)]
struct ControlArgs {
    /// The control socket of uiapd.
    #[arg(long, value_name = "PATH", default_value = uiap_control::DEFAULT_CONTROL)]
    control: std::path::PathBuf,
}

impl ControlArgs {
    /// The daemon these options name.
    fn client(&self) -> uiap_control::Client {
        uiap_control::Client::new(&self.control)
    }
}

/// Says on stderr why `uiap COMMAND` failed (the daemon's error kind and message, or why the
/// call failed); the exit code is 1.
fn failed(command: &str, e: &uiap_control::ControlError) -> ExitCode {
    eprintln!("uiap {command}: {e}");
    ExitCode::FAILURE
}
