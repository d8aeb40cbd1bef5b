//! `uiap list`: the claims of the local uiapd.

use std::process::ExitCode;

use uiapd::control::Request;

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
    let Ok(response) = crate::ok_response("list", &args.daemon.control, &Request::List) else {
        return ExitCode::FAILURE;
    };
    let claims = response.claims.unwrap_or_default();
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
        let expires = match (c.expires_in, c.state.as_str()) {
            (Some(s), _) => format!("{s} s"),
            (None, "held" | "conflicted") => "never".into(),
            (None, _) => "-".into(),
        };
        let yes = |b: bool| if b { "yes" } else { "no" };
        outln!(
            "{:>4}  {:<10}  {:<19}  {:<32}  {:>10}  {:>10}  {:<5}  {}",
            c.id,
            c.state,
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
