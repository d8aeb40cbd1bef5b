//! `uiap sim SCENARIO.json`: run a simulated site and print what happened, as JSON lines.
//!
//! One line per claim event, in time order (`"event"`: `outcome`, then possibly `renewed`,
//! `late_conflict`, `lost`, `expired`), then one `{"stats": …}` line: messages sent and
//! forwarded per type, denies, drops by reason, peak table sizes. The scenario format is
//! documented in `uiap::sim::scenario`.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use serde_json::{Map, Value, json};
use uiap::device::FailureReason;
use uiap::sim::{Outcome, Scenario, Sim};
use uiap::time::Instant;

/// Arguments of `uiap sim`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Example:\n  uiap sim crates/uiap/examples/partition.json")]
pub(crate) struct Args {
    /// The scenario file (JSON; see the `uiap::sim::scenario` docs).
    #[arg(value_name = "SCENARIO.json")]
    scenario: PathBuf,
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
        .and_then(|s| {
            s.build()
                .map(|sim| (s.until, sim))
                .map_err(|e| e.to_string())
        });
    let (until, mut sim) = match built {
        Ok(b) => b,
        Err(e) => {
            eprintln!("error: {}: {e}", args.scenario.display());
            return ExitCode::FAILURE;
        }
    };
    sim.run_until(until);
    let mut out = std::io::stdout().lock();
    for line in lines(&sim) {
        // A closed stdout (broken pipe) is not an error.
        if writeln!(out, "{line}").is_err() {
            return ExitCode::SUCCESS;
        }
    }
    let _ = writeln!(out, "{}", stats(&sim));
    ExitCode::SUCCESS
}

fn time(at: Instant) -> Value {
    json!(at.as_micros())
}

fn outcome_fields(m: &mut Map<String, Value>, kind: &Outcome) {
    m.insert("outcome".into(), json!(kind.as_str()));
    match kind {
        Outcome::Denied(FailureReason::Denied { message })
        | Outcome::Denied(FailureReason::Simultaneous { message })
        | Outcome::Denied(FailureReason::Reclaimed { message }) => {
            m.insert("message".into(), json!(message.to_string()));
        }
        Outcome::Rejected(kind) => {
            m.insert("error".into(), json!(format!("{kind:?}")));
        }
        _ => {}
    }
}

fn lines(sim: &Sim) -> Vec<String> {
    let mut rows: Vec<(Instant, usize, u8, Value)> = Vec::new();
    for (i, c) in sim.claims().iter().enumerate() {
        let base = |event: &str, at: Instant| {
            let mut m = Map::new();
            m.insert("time_us".into(), time(at));
            m.insert("time".into(), json!(at.to_string()));
            m.insert("claim".into(), json!(i));
            m.insert("device".into(), json!(sim.name(c.node)));
            m.insert("event".into(), json!(event));
            m
        };
        if let Some(o) = &c.outcome {
            let mut m = base("outcome", o.at);
            outcome_fields(&mut m, &o.kind);
            rows.push((o.at, i, 0, Value::Object(m)));
        }
        for &at in &c.renewed {
            rows.push((at, i, 1, Value::Object(base("renewed", at))));
        }
        for &at in &c.late_conflicts {
            rows.push((at, i, 2, Value::Object(base("late_conflict", at))));
        }
        if let Some(o) = &c.lost {
            let mut m = base("lost", o.at);
            outcome_fields(&mut m, &o.kind);
            rows.push((o.at, i, 3, Value::Object(m)));
        }
        if let Some(at) = c.expired {
            rows.push((at, i, 4, Value::Object(base("expired", at))));
        }
    }
    rows.sort_by_key(|r| (r.0, r.1, r.2));
    rows.into_iter().map(|r| r.3.to_string()).collect()
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
