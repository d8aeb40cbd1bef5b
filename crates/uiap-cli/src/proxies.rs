//! `uiap proxies`: the claims of other devices the local uiapd defends by proxy, and `--flush`
//! to forget them (docs/uiap-design.md D43).

use std::process::ExitCode;

use uiap_control::ProxyView;

/// Arguments of `uiap proxies`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Forget every proxied claim after listing them (root only).
    #[arg(long)]
    pub flush: bool,
    /// Print the proxied claims as a JSON array.
    #[arg(long)]
    pub json: bool,
    /// Where uiapd listens.
    #[command(flatten)]
    pub daemon: crate::ControlArgs,
}

/// Prints the table: one proxied claim per line.
pub fn print(proxies: &[ProxyView]) {
    outln!(
        "{:<16}  {:<19}  {:<32}  EXPIRES IN",
        "ORIGIN",
        "DOMAIN",
        "SPACE"
    );
    for p in proxies {
        outln!(
            "{:<16}  {:<19}  {:<32}  {} s",
            p.origin,
            p.domain,
            p.space.to_string(),
            p.expires_in
        );
    }
}

/// Exit codes: 0, or 1 on error.
pub fn run(args: &Args) -> ExitCode {
    let (proxies, flushed) = match args.daemon.client().proxies(args.flush) {
        Ok(answer) => answer,
        Err(e) => return crate::failed("proxies", &e),
    };
    if args.json {
        outln!(
            "{}",
            serde_json::to_string(&proxies).unwrap_or_else(|_| "[]".into())
        );
    } else {
        print(&proxies);
    }
    if let Some(n) = flushed {
        eprintln!("uiap proxies: flushed {n} proxied claim(s)");
    }
    ExitCode::SUCCESS
}
