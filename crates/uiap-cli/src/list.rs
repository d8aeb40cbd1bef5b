//! `uiap list`: the claims of the local uiapd.

use std::process::ExitCode;

/// Arguments of `uiap list`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Print the claims as a JSON array.
    #[arg(long)]
    pub json: bool,
    /// Where uiapd listens.
    #[command(flatten)]
    pub daemon: crate::ControlArgs,
}

/// Exit codes: 0, or 1 on error.
pub fn run(args: &Args) -> ExitCode {
    let claims = match args.daemon.client().list() {
        Ok(claims) => claims,
        Err(e) => return crate::failed("list", &e),
    };
    if args.json {
        outln!(
            "{}",
            serde_json::to_string(&claims).unwrap_or_else(|_| "[]".into())
        );
        return ExitCode::SUCCESS;
    }
    outln!(
        "{:>4}  {:<10}  {:<19}  {:<32}  {:>10}  {:>10}  RENEW  PROXY",
        "ID",
        "STATE",
        "DOMAIN",
        "SPACE",
        "LIFETIME",
        "EXPIRES IN"
    );
    for c in claims {
        let lifetime = if c.lifetime == u32::MAX {
            "infinite".to_string()
        } else {
            c.lifetime.to_string()
        };
        // Only a held claim counts down; an infinite one never ends.
        let expires = match c.expires_in {
            Some(s) => format!("{s} s"),
            None if c.state.is_held() => "never".into(),
            None => "-".into(),
        };
        let yes = |b: bool| if b { "yes" } else { "no" };
        outln!(
            "{:>4}  {:<10}  {:<19}  {:<32}  {:>10}  {:>10}  {:<5}  {}",
            c.id,
            c.state.as_str(),
            c.domain,
            c.space.to_string(),
            lifetime,
            expires,
            yes(c.renew),
            yes(c.proxy)
        );
    }
    ExitCode::SUCCESS
}
