//! `uiap watch`: print the events of the local uiapd's claims as they happen.

use std::process::ExitCode;

/// Arguments of `uiap watch`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Only this claim's events (default: every claim's).
    #[arg(value_name = "ID")]
    pub id: Option<u64>,
    /// Exit after this many events (default: run until interrupted).
    #[arg(long, value_name = "N")]
    pub count: Option<u64>,
    /// Print each event as a JSON object.
    #[arg(long)]
    pub json: bool,
    /// Where uiapd listens.
    #[command(flatten)]
    pub daemon: crate::ControlArgs,
}

/// Exit codes: 0 after `--count` events, 1 on error (including the daemon ending the stream).
pub fn run(args: &Args) -> ExitCode {
    let mut w = match args.daemon.client().watch(args.id) {
        Ok(w) => w,
        Err(e) => return crate::failed("watch", &e),
    };
    let mut seen = 0;
    while args.count.is_none_or(|n| seen < n) {
        match w.next_event(None) {
            Ok(Some(e)) if args.json => {
                outln!("{}", serde_json::to_string(&e).unwrap_or_default());
            }
            Ok(Some(e)) => {
                let reason = e.reason.map(|r| format!(": {r}")).unwrap_or_default();
                outln!(
                    "claim {} ({} in {}) {}{reason}",
                    e.id,
                    e.claim.space,
                    e.claim.domain,
                    e.kind
                );
            }
            Ok(None) => continue,
            Err(e) => return crate::failed("watch", &e),
        }
        seen += 1;
    }
    ExitCode::SUCCESS
}
