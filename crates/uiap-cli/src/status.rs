//! `uiap status`: device ID, interfaces and counters of the local uiapd.

use std::process::ExitCode;

/// Arguments of `uiap status`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Print the status object as JSON.
    #[arg(long)]
    pub json: bool,
    /// Where uiapd listens.
    #[command(flatten)]
    pub daemon: crate::ControlArgs,
}

/// Exit codes: 0, or 1 on error.
pub fn run(args: &Args) -> ExitCode {
    let status = match args.daemon.client().status() {
        Ok(status) => status,
        Err(e) => return crate::failed("status", &e),
    };
    if args.json {
        outln!("{}", serde_json::to_string(&status).unwrap_or_default());
        return ExitCode::SUCCESS;
    }
    outln!("device id   {}", status.device_id);
    outln!("claims      {}", status.claims);
    if status.interfaces.is_empty() {
        outln!("interfaces  none (claims succeed as a site of one)");
    }
    for i in &status.interfaces {
        outln!(
            "interface   {} (index {}) {}%{}",
            i.name,
            i.index,
            i.link_local,
            i.name
        );
    }
    for (k, v) in &status.counters {
        outln!("counter     {k} {v}");
    }
    for (k, v) in &status.drops {
        outln!("dropped     {k} {v}");
    }
    for a in &status.auth_failures {
        outln!("auth failed {a}");
    }
    for (k, v) in &status.receive_buffers {
        outln!("rcvbuf      {k} {v} bytes");
    }
    outln!("proxied     {}", status.proxies.len());
    if !status.proxies.is_empty() {
        crate::proxies::print(&status.proxies);
    }
    ExitCode::SUCCESS
}
