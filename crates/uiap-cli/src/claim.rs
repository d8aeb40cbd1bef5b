//! `uiap claim`: ask the local uiapd to claim a UID space.

use std::process::ExitCode;

use uiap_control::{ClaimAnswer, ClaimRequest, SpaceText};

/// Arguments of `uiap claim`.
#[derive(clap::Args, Debug)]
#[command(group(clap::ArgGroup::new("space").required(true).args(["uid", "range", "prefix"])))]
pub struct Args {
    /// The Domain ID, e.g. `fff:0:1:0`.
    #[arg(long, value_name = "DID")]
    pub domain: String,
    /// A single UID: hex digits, optionally `/BITS` significant bits.
    #[arg(long, value_name = "HEX[/BITS]")]
    pub uid: Option<String>,
    /// A range of UIDs, both ends included.
    #[arg(long, value_name = "LO-HI")]
    pub range: Option<String>,
    /// Every UID beginning with these bits (left-justified domains only).
    #[arg(long, value_name = "HEX/BITS")]
    pub prefix: Option<String>,
    /// Lifetime in seconds (4294967295 = infinite). Without `--renew` the claim is defended
    /// for this long and then expires.
    #[arg(long, value_name = "S", default_value_t = uiap_control::DEFAULT_LIFETIME)]
    pub lifetime: u32,
    /// Have uiapd renew the claim before its lifetime ends, for as long as it runs.
    #[arg(long)]
    pub renew: bool,
    /// Claim on behalf of another device (X flag: neighbours may defend it by proxy).
    #[arg(long)]
    pub proxy: bool,
    /// Give up after this many seconds without an answer (exit 1); the unanswered claim is
    /// cancelled by uiapd. Default: wait for the answer.
    #[arg(long, value_name = "S")]
    pub timeout: Option<u64>,
    /// Where uiapd listens.
    #[command(flatten)]
    pub daemon: crate::ControlArgs,
}

/// Exit codes: 0 claimed, 3 denied, 1 error.
pub fn run(args: &Args) -> ExitCode {
    let space = match (&args.uid, &args.range, &args.prefix) {
        (Some(u), _, _) => SpaceText::Uid(u.clone()),
        (_, Some(r), _) => SpaceText::Range(r.clone()),
        (_, _, Some(p)) => SpaceText::Prefix(p.clone()),
        _ => {
            eprintln!("uiap claim: expected one of --uid, --range or --prefix, found none");
            return ExitCode::FAILURE;
        }
    };
    let request = ClaimRequest {
        lifetime: args.lifetime,
        proxy: args.proxy,
        renew: args.renew,
        ..ClaimRequest::new(args.domain.clone(), space)
    };
    let limit = args.timeout.map(std::time::Duration::from_secs);
    // A rate-limited claim is announced at once; the answer follows when it has run.
    let mut progress = |reason: &str| eprintln!("uiap claim: {reason}");
    let answer = match args.daemon.client().claim(&request, limit, &mut progress) {
        Ok(answer) => answer,
        Err(e) => return crate::failed("claim", &e),
    };
    // A claim refused before it started (a local conflict) has no id: id 0 names none.
    let detail = |c: &uiap_control::ClaimView| {
        let id = if c.id == 0 {
            String::new()
        } else {
            format!(" id={}", c.id)
        };
        format!("{id} domain={} {}", c.domain, c.space)
    };
    let why = |r: Option<&str>| r.map(|s| format!(" ({s})")).unwrap_or_default();
    match answer {
        ClaimAnswer::Claimed {
            claim,
            note,
            auth_failures,
            ..
        } => {
            outln!("claimed{}{}", detail(&claim), why(note.as_deref()));
            if let Some(failed) = auth_failures {
                // Heard but not authenticated: if a neighbour sent them, it could not deny the
                // claim; the source address proves nothing (docs/uiap-design.md D62, D74).
                eprintln!(
                    "uiap claim: warning: claimed, but {failed}; if a neighbour without the key \
                     or with another key sent them, it could not deny the claim (uiap status \
                     lists the addresses)"
                );
            }
            ExitCode::SUCCESS
        }
        ClaimAnswer::Denied { claim, reason } => {
            outln!("denied{}{}", detail(&claim), why(Some(&reason)));
            ExitCode::from(3)
        }
        ClaimAnswer::Failed { reason, .. } => {
            eprintln!("uiap claim: failed{}", why(Some(&reason)));
            ExitCode::FAILURE
        }
    }
}
