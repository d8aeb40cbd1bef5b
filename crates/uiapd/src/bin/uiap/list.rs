//! `uiap list`: the claims of the local uiapd.

use std::path::PathBuf;
use std::process::ExitCode;

use uiapd::control::Request;

/// Arguments of `uiap list`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Print the claims as a JSON array.
    #[arg(long)]
    pub json: bool,
    /// The control socket of uiapd.
    #[arg(long, value_name = "PATH", default_value = uiapd::config::DEFAULT_CONTROL)]
    pub control: PathBuf,
}

/// Exit codes: 0, or 1 on error.
pub fn run(args: &Args) -> ExitCode {
    let Ok(response) = crate::ok_response("list", &args.control, &Request::List) else {
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
        "{:>4}  {:<9}  {:<19}  {:<32}  {:>10}  PROXY",
        "ID",
        "STATE",
        "DOMAIN",
        "SPACE",
        "LIFETIME"
    );
    for c in claims {
        let lifetime = if c.lifetime == u32::MAX {
            "infinite".to_string()
        } else {
            c.lifetime.to_string()
        };
        outln!(
            "{:>4}  {:<9}  {:<19}  {:<32}  {:>10}  {}",
            c.id,
            c.state,
            c.domain,
            c.space.to_string(),
            lifetime,
            if c.proxy { "yes" } else { "no" }
        );
    }
    ExitCode::SUCCESS
}
