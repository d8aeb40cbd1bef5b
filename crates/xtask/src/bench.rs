//! `cargo xtask bench`: runs uuidkit's comparison benches and prints the
//! tables of benchmarks/library.md, each figure a criterion median and each ratio
//! uuidkit's time over a peer's from the same run.
//!
//! - `cargo xtask bench [CRITERION ARGS…]` runs `cargo bench -p uuidkit
//!   --bench core --bench generators -- [ARGS…]`, then prints the tables.
//! - `cargo xtask bench --report` prints the tables from the last run's
//!   results (`target/criterion`) without running anything.

use std::path::Path;
use std::process::ExitCode;

use crate::{cargo, step};

/// A peer library's column: its criterion id and its heading.
const UUID: &str = "uuid";
const UUID_SIMD: &str = "uuid-simd";

/// One row: an operation measured for uuidkit and, where they have it, for
/// the peers. `per` divides a batch's time into a per-UUID one.
struct Row {
    label: &'static str,
    group: &'static str,
    ours: &'static str,
    /// The peers' criterion ids, in the order of [`PEERS`]; `None` where
    /// the peer has no counterpart.
    peers: [Option<&'static str>; 2],
    per: u32,
    /// As `per`, for the peers' figures.
    peer_per: u32,
    /// The targets, as a peer index and the highest ratio allowed.
    targets: &'static [(usize, f64)],
    /// A target against another figure of the same group (not a peer's):
    /// its criterion id, its name in the target column, the highest ratio.
    floor: Option<(&'static str, &'static str, f64)>,
}

const PEERS: [&str; 2] = ["uuid (fast-rng)", "uuid-simd"];

const fn row(label: &'static str, group: &'static str, peers: [Option<&'static str>; 2]) -> Row {
    Row {
        label,
        group,
        ours: "uuidkit",
        peers,
        per: 1,
        peer_per: 1,
        targets: &[],
        floor: None,
    }
}

const BOTH: [Option<&str>; 2] = [Some(UUID), Some(UUID_SIMD)];
const UUID_ONLY: [Option<&str>; 2] = [Some(UUID), None];
const NONE: [Option<&str>; 2] = [None, None];
/// The `uuid` crate's `hyphenated().encode_lower` per UUID of a batch.
const EACH: [Option<&str>; 2] = [Some("uuid_encode_lower_each"), None];

/// The tables, in benchmarks/library.md's order.
#[allow(clippy::too_many_lines)] // A table: one entry per row of benchmarks/library.md.
fn tables() -> Vec<(&'static str, Vec<Row>)> {
    let with = |r: Row, targets: &'static [(usize, f64)]| Row { targets, ..r };
    let ours = |r: Row, ours: &'static str, per: u32| Row { ours, per, ..r };
    let batch = |r: Row| Row {
        peer_per: 4096,
        ..r
    };
    vec![
        (
            "Text: parse and format",
            vec![
                with(
                    row("parse, hyphenated", "parse_hyphenated", BOTH),
                    &[(0, 0.2), (1, 1.0)],
                ),
                with(
                    batch(ours(
                        row(
                            "parse, hyphenated, 4,096 distinct texts (per text)",
                            "parse_hyphenated_distinct",
                            BOTH,
                        ),
                        "uuidkit",
                        4096,
                    )),
                    &[(0, 0.2), (1, 1.0)],
                ),
                row(
                    "parse, hyphenated, `unwrap`ped",
                    "parse_hyphenated_unwrapped",
                    BOTH,
                ),
                row("parse, simple", "parse_simple", BOTH),
                row(
                    "parse, invalid (error with position)",
                    "parse_invalid",
                    BOTH,
                ),
                with(
                    row(
                        "format hyphenated into a buffer",
                        "format_hyphenated_buffer",
                        BOTH,
                    ),
                    &[(0, 0.4), (1, 1.0)],
                ),
                row("format simple into a buffer", "format_simple_buffer", BOTH),
                with(row("`to_string()`", "to_string", BOTH), &[(0, 1.0)]),
                row(
                    "`Uuid::from_u128(x).to_string()`",
                    "to_string_from_u128",
                    UUID_ONLY,
                ),
            ],
        ),
        (
            "Name-based: v3, v5, v8",
            vec![
                row("v5, 15-byte name", "v5", UUID_ONLY),
                row("v5, 200-byte name", "v5_200_byte_name", UUID_ONLY),
                row("v3, 15-byte name", "v3", UUID_ONLY),
                row("v8, SHA-256, 15-byte name", "v8_name_sha256", NONE),
            ],
        ),
        (
            "Generators",
            vec![
                with(row("`new_v4`", "new_v4", UUID_ONLY), &[(0, 0.5)]),
                ours(
                    row("`fill_v4`, per UUID of 1024", "new_v4", UUID_ONLY),
                    "uuidkit_fill_1024",
                    1024,
                ),
                Row {
                    floor: Some(("system_time_now", "`SystemTime::now()`", 1.4)),
                    ..with(row("`now_v7`", "now_v7", UUID_ONLY), &[(0, 0.4)])
                },
                ours(
                    row("`fill_v7`, per UUID of 1024", "now_v7", UUID_ONLY),
                    "uuidkit_fill_v7_1024",
                    1024,
                ),
                ours(
                    row("`V7Generator::generate`", "now_v7", UUID_ONLY),
                    "uuidkit_V7Generator",
                    1,
                ),
                ours(
                    row("`V7Generator::fill`, per UUID of 1024", "now_v7", UUID_ONLY),
                    "uuidkit_V7Generator_fill_1024",
                    1024,
                ),
                row(
                    "`now_v7`, two threads at once",
                    "now_v7_2threads",
                    UUID_ONLY,
                ),
                row(
                    "v1 (`Wait`: at most one UUID per 100-ns tick)",
                    "now_v1",
                    UUID_ONLY,
                ),
                ours(
                    row("v1, `AdvanceTimestamp`", "now_v1", UUID_ONLY),
                    "uuidkit_advance",
                    1,
                ),
                ours(
                    row("v6, fresh clock sequence and node", "now_v6", UUID_ONLY),
                    "uuidkit_fresh",
                    1,
                ),
                ours(
                    row("v6, fresh, `AdvanceTimestamp`", "now_v6", UUID_ONLY),
                    "uuidkit_fresh_advance",
                    1,
                ),
            ],
        ),
        (
            "Lines of text in bulk, per UUID of 4096",
            vec![
                batch(ours(
                    row("`encode_lines_lower`", "lines_4096", EACH),
                    "uuidkit_encode_lines_lower",
                    4096,
                )),
                batch(ours(
                    row("`encode_lower` per UUID", "lines_4096", EACH),
                    "uuidkit_encode_lower_each",
                    4096,
                )),
                ours(
                    row("`fill_v7` then `encode_lines_lower`", "lines_4096", NONE),
                    "uuidkit_fill_v7_and_lines",
                    4096,
                ),
            ],
        ),
    ]
}

pub(crate) fn run(root: &Path, args: Vec<String>) -> ExitCode {
    let report_only = args.iter().any(|a| a == "--report");
    if !report_only {
        let ok = step(
            "cargo bench -p uuidkit --bench core --bench generators",
            cargo()
                .current_dir(root)
                .args([
                    "bench",
                    "-p",
                    "uuidkit",
                    "--bench",
                    "core",
                    "--bench",
                    "generators",
                    "--",
                ])
                .args(&args),
        );
        if !ok {
            return ExitCode::FAILURE;
        }
    }
    let criterion = crate::target_dir(root).join("criterion");
    println!("{}", machine());
    let mut missing = 0;
    for (title, rows) in tables() {
        println!("\n### {title}\n");
        println!(
            "| operation | uuidkit | {} | ratio | {} | ratio | target |",
            PEERS[0], PEERS[1]
        );
        println!("|---|---|---|---|---|---|---|");
        for r in rows {
            missing += print_row(&criterion, &r);
        }
    }
    if missing > 0 {
        eprintln!("xtask bench: {missing} figure(s) missing (run the benches first)");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

/// Prints one table row; returns how many of its figures were missing.
fn print_row(criterion: &Path, r: &Row) -> usize {
    let per = f64::from(r.per);
    let ours = median_ns(criterion, r.group, r.ours).map(|t| t / per);
    let mut missing = usize::from(ours.is_none());
    let mut cells = vec![r.label.to_string(), ns(ours)];
    let mut verdicts = Vec::new();
    for (i, peer) in r.peers.iter().enumerate() {
        let Some(id) = peer else {
            cells.extend(["—".to_string(), "—".to_string()]);
            continue;
        };
        let theirs = median_ns(criterion, r.group, id).map(|t| t / f64::from(r.peer_per));
        missing += usize::from(theirs.is_none());
        let ratio = ours.zip(theirs).map(|(a, b)| a / b);
        cells.push(ns(theirs));
        cells.push(ratio.map_or("?".into(), |x| format!("{x:.3}×")));
        for &(_, max) in r.targets.iter().filter(|(p, _)| *p == i) {
            let met = ratio.is_some_and(|x| x <= max);
            verdicts.push(format!(
                "≤ {max}× {} {}",
                PEERS[i].split(' ').next().unwrap_or(""),
                if met { "✔" } else { "✘" }
            ));
        }
    }
    if let Some((id, name, max)) = r.floor {
        let floor = median_ns(criterion, r.group, id);
        missing += usize::from(floor.is_none());
        let ratio = ours.zip(floor).map(|(a, b)| a / b);
        verdicts.push(format!(
            "≤ {max}× {name} ({}: {}) {}",
            ns(floor),
            ratio.map_or("?".into(), |x| format!("{x:.3}×")),
            if ratio.is_some_and(|x| x <= max) {
                "✔"
            } else {
                "✘"
            }
        ));
    }
    cells.push(if verdicts.is_empty() {
        "—".into()
    } else {
        verdicts.join(", ")
    });
    println!("| {} |", cells.join(" | "));
    missing
}

fn ns(t: Option<f64>) -> String {
    match t {
        Some(t) if t >= 1000.0 => format!("{:.2} µs", t / 1000.0),
        Some(t) if t >= 100.0 => format!("{t:.0} ns"),
        Some(t) if t >= 10.0 => format!("{t:.1} ns"),
        Some(t) => format!("{t:.2} ns"),
        None => "?".into(),
    }
}

/// The median of the last run of `group/id`, in nanoseconds.
fn median_ns(criterion: &Path, group: &str, id: &str) -> Option<f64> {
    let path = criterion.join(group).join(id).join("new/estimates.json");
    let text = std::fs::read_to_string(path).ok()?;
    // {"mean":{…},"median":{"confidence_interval":{…},"point_estimate":X,…},…}
    let median = &text[text.find("\"median\"")?..];
    let at = median.find("\"point_estimate\":")? + "\"point_estimate\":".len();
    let number: String = median[at..]
        .chars()
        .take_while(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '-' | '+'))
        .collect();
    number.parse().ok()
}

/// The CPU, its core count and the compiler, for the table's heading.
fn machine() -> String {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = cpuinfo
        .lines()
        .find_map(|l| {
            l.strip_prefix("model name")
                .map(|m| m.trim_start_matches([' ', '\t', ':']))
        })
        .unwrap_or("unknown CPU");
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let rustc = std::process::Command::new("rustc")
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    format!("Machine: {model}, {cores} cores; {rustc}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_is_read_from_criterions_estimates() {
        let dir = std::env::temp_dir().join(format!("xtask-bench-{}", std::process::id()));
        let at = dir.join("g/id/new");
        std::fs::create_dir_all(&at).unwrap();
        std::fs::write(
            at.join("estimates.json"),
            r#"{"mean":{"confidence_interval":{"confidence_level":0.95,"lower_bound":1.0,"upper_bound":3.0},"point_estimate":2.0,"standard_error":0.1},"median":{"confidence_interval":{"confidence_level":0.95,"lower_bound":1.5,"upper_bound":2.5},"point_estimate":1.875e1,"standard_error":0.1}}"#,
        )
        .unwrap();
        assert_eq!(median_ns(&dir, "g", "id"), Some(18.75));
        assert_eq!(median_ns(&dir, "g", "other"), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn figures_are_printed_with_their_unit() {
        assert_eq!(ns(Some(1.234)), "1.23 ns");
        assert_eq!(ns(Some(23.45)), "23.4 ns");
        assert_eq!(ns(Some(280.4)), "280 ns");
        assert_eq!(ns(Some(2345.0)), "2.35 µs");
        assert_eq!(ns(None), "?");
    }
}
