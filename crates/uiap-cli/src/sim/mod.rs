//! `uiap sim SCENARIO.json`: run a simulated site and tell what happened.
//!
//! By default the report is for a person: one line per claim event in time order, naming the
//! devices, and for a denial the devices that held an overlapping claim at that moment; then
//! the claims held at the end and every pair of devices holding overlapping spaces (what the
//! protocol exists to prevent); then the traffic. With `--json` the same as JSON lines: one
//! object per claim event (`"event"`: `outcome`, then possibly `renewed`, `late_conflict`,
//! `lost`, `expired`), one `{"summary": …}` and one `{"stats": …}` line
//! (docs/uiap-design.md D38). The scenario format is documented in docs/uiap-scenario.md.

mod report;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use serde_json::{Map, Value, json};
use uiap::sim::{Outcome, Scenario, Sim};
use uiap::time::Instant;

use report::{Report, Row, denial_text, rejection_text, space_text};

/// Arguments of `uiap sim`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Example:\n  uiap sim crates/uiap/examples/partition.json")]
pub(crate) struct Args {
    /// The scenario file (JSON; see docs/uiap-scenario.md).
    #[arg(value_name = "SCENARIO.json")]
    scenario: PathBuf,
    /// Print JSON lines instead of sentences.
    #[arg(long)]
    json: bool,
}

/// Runs `uiap sim`.
pub(crate) fn run(args: &Args) -> ExitCode {
    let text = match std::fs::read_to_string(&args.scenario) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: cannot read {}: {e}", args.scenario.display());
            return ExitCode::FAILURE;
        }
    };
    let built = serde_json::from_str::<Scenario>(&text)
        .map_err(|e| e.to_string())
        .and_then(|s| s.build().map(|sim| (s, sim)).map_err(|e| e.to_string()));
    let (scenario, mut sim) = match built {
        Ok(b) => b,
        Err(e) => {
            eprintln!("error: {}: {e}", args.scenario.display());
            return ExitCode::FAILURE;
        }
    };
    sim.run_until(scenario.until);
    if let Some(at) = sim.stats().stopped_full {
        // The simulator's memory bound (docs/uiap-design.md D78): nothing after this instant
        // was simulated, so no report is printed as if the run were whole.
        eprintln!(
            "error: {}: the run needs more than {} events queued at once at {} (deliveries in \
             flight: every device that forwards a flood sends it on each of its other segments, to \
             every member); it stopped there, which is the simulator's memory bound: put fewer \
             devices on several shared segments, or start fewer claims at once",
            args.scenario.display(),
            uiap::sim::MAX_QUEUED,
            seconds(at),
        );
        return ExitCode::FAILURE;
    }
    let report = Report::new(&sim, &scenario);
    let lines = if args.json {
        json_lines(&sim, &report)
    } else {
        text_lines(&sim, &report)
    };
    let mut out = std::io::stdout().lock();
    for line in lines {
        // A closed stdout (broken pipe) is not an error.
        if writeln!(out, "{line}").is_err() {
            return ExitCode::SUCCESS;
        }
    }
    ExitCode::SUCCESS
}

/// Seconds with milliseconds: `12.167 s`.
fn seconds(at: Instant) -> String {
    let us = at.as_micros();
    format!("{}.{:03} s", us / 1_000_000, us % 1_000_000 / 1000)
}

fn claim_text(sim: &Sim, i: usize) -> String {
    let c = &sim.claims()[i];
    format!("claim {i} ({} in {})", space_text(c), c.spec.domain)
}

/// "held by b (claim 1)" or what it means that nobody did.
fn holders_text(held_by: &[(String, usize)]) -> String {
    if held_by.is_empty() {
        return "no other device held an overlapping claim at that moment".into();
    }
    let names: Vec<String> = held_by
        .iter()
        .map(|(d, c)| format!("{d} (claim {c})"))
        .collect();
    format!("held by {}", names.join(", "))
}

fn outcome_sentence(o: Outcome, row: &Row) -> String {
    match o {
        Outcome::Succeeded => "succeeded".into(),
        Outcome::Denied(reason) => {
            format!("{}; {}", denial_text(reason), holders_text(&row.held_by))
        }
        Outcome::Rejected(kind) => rejection_text(kind),
    }
}

fn text_lines(sim: &Sim, report: &Report) -> Vec<String> {
    let mut lines = Vec::new();
    for r in &report.rows {
        let what = claim_text(sim, r.claim);
        let told = match (r.event, r.outcome) {
            ("outcome", Some(o)) => format!("{what} {}", outcome_sentence(o, r)),
            ("lost", Some(o)) => format!("{what} lost on reclaim, {}", outcome_sentence(o, r)),
            ("renewed", _) => format!("{what} renewed"),
            ("late_conflict", _) => {
                format!(
                    "{what}: a Claim-Deny came after it succeeded (another device claims it too)"
                )
            }
            _ => format!("{what} expired"),
        };
        lines.push(format!("{:>12}  {}: {told}", seconds(r.at), r.device));
    }
    lines.push(String::new());
    lines.push(format!(
        "At the end ({}), {} claim{} held:",
        seconds(sim.now()),
        report.holders.len(),
        if report.holders.len() == 1 { "" } else { "s" }
    ));
    for h in &report.holders {
        lines.push(format!(
            "  {}: claim {}, {} in {}",
            h.device, h.claim, h.space, h.domain
        ));
    }
    if report.overlaps.is_empty() {
        lines.push("No two devices hold overlapping spaces.".into());
    } else {
        lines.push(format!(
            "{} pair{} of claims held by different devices overlap (what UIAP exists to prevent):",
            report.overlaps.len(),
            if report.overlaps.len() == 1 { "" } else { "s" }
        ));
        for &(a, b) in &report.overlaps {
            let (a, b) = (&report.holders[a], &report.holders[b]);
            lines.push(format!(
                "  {} (claim {}, {}) and {} (claim {}, {}) in {}",
                a.device, a.claim, a.space, b.device, b.claim, b.space, a.domain
            ));
        }
    }
    let t = sim.totals();
    let s = sim.stats();
    lines.push(format!(
        "Traffic: {} Claim-Attempts sent and {} forwarded, {} Claim-Denies sent and {} forwarded; {} of {} datagrams lost in transit, {} duplicated; {} dropped by devices.",
        t.attempts_sent,
        t.attempts_forwarded,
        t.denies_sent,
        t.denies_forwarded,
        s.lost,
        s.delivered + s.lost,
        s.duplicated,
        t.total_drops()
    ));
    lines
}

fn json_lines(sim: &Sim, report: &Report) -> Vec<String> {
    let mut lines: Vec<String> = report
        .rows
        .iter()
        .map(|r| json_row(sim, r).to_string())
        .collect();
    let holder = |h: &report::Holding| json!({"claim": h.claim, "device": h.device, "domain": h.domain, "space": h.space});
    let overlaps: Vec<Value> = report
        .overlaps
        .iter()
        .map(|&(a, b)| json!([holder(&report.holders[a]), holder(&report.holders[b])]))
        .collect();
    lines.push(
        json!({"summary": {
            "holders": report.holders.iter().map(holder).collect::<Vec<_>>(),
            "overlaps": overlaps,
        }})
        .to_string(),
    );
    lines.push(stats(sim).to_string());
    lines
}

fn json_row(sim: &Sim, r: &Row) -> Value {
    let mut m = Map::new();
    m.insert("time_us".into(), json!(r.at.as_micros()));
    m.insert("time".into(), json!(r.at.to_string()));
    m.insert("claim".into(), json!(r.claim));
    m.insert("device".into(), json!(r.device));
    m.insert("space".into(), json!(space_text(&sim.claims()[r.claim])));
    m.insert("event".into(), json!(r.event));
    if let Some(o) = r.outcome {
        m.insert("outcome".into(), json!(o.as_str()));
        if let Outcome::Denied(
            uiap::device::FailureReason::Denied { message }
            | uiap::device::FailureReason::Simultaneous { message }
            | uiap::device::FailureReason::Reclaimed { message },
        ) = o
        {
            m.insert("message".into(), json!(message.to_string()));
        }
        if !o.succeeded() {
            m.insert("reason".into(), json!(outcome_sentence(o, r)));
        }
        if matches!(o, Outcome::Denied(_)) {
            let held: Vec<Value> = r
                .held_by
                .iter()
                .map(|(d, c)| json!({"device": d, "claim": c}))
                .collect();
            m.insert("held_by".into(), json!(held));
        }
    }
    Value::Object(m)
}

fn stats(sim: &Sim) -> Value {
    let t = sim.totals();
    let s = sim.stats();
    let drops: Map<String, Value> = t
        .drops()
        .map(|(k, v)| (k.as_str().to_owned(), json!(v)))
        .collect();
    json!({ "stats": {
        "devices": sim.node_count(),
        "time_us": sim.now().as_micros(),
        "events": s.events,
        "delivered": s.delivered,
        "lost_in_transit": s.lost,
        "duplicated_in_transit": s.duplicated,
        "sent": { "claim_attempt": t.attempts_sent, "claim_deny": t.denies_sent },
        "forwarded": { "claim_attempt": t.attempts_forwarded, "claim_deny": t.denies_forwarded },
        "floods": t.floods_originated,
        "denies": t.denies_sent,
        "proxy_denies": t.proxy_denies,
        "late_conflicts": t.late_conflicts,
        "hop_limit_exhausted": t.hop_limit_exhausted,
        "device_id_collisions": t.device_id_collisions,
        "peak_message_table": t.peak_message_table,
        "peak_proxy_table": t.peak_proxy_table,
        "drops": drops,
    }})
}
