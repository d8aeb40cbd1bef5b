//! `uiap sim SCENARIO.json`, end to end.

use assert_cmd::Command;
use serde_json::Value;

const EXAMPLE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../uiap/examples/partition.json"
);

const LOSSY: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../uiap/examples/lossy.json");

fn run(path: &str) -> assert_cmd::assert::Assert {
    Command::cargo_bin("uiap")
        .unwrap()
        .args(["sim", "--json", path])
        .assert()
}

fn run_text(path: &str) -> String {
    let out = Command::cargo_bin("uiap")
        .unwrap()
        .args(["sim", path])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    String::from_utf8(out).unwrap()
}

fn json_lines(path: &str) -> Vec<Value> {
    let out = run(path).success().get_output().stdout.clone();
    String::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn example_scenario_prints_outcomes_then_statistics() {
    let out = run(EXAMPLE).success().get_output().stdout.clone();
    let text = String::from_utf8(out).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let (stats, rest) = lines.split_last().unwrap();
    let (summary_line, events) = rest.split_last().unwrap();
    let summary: Vec<(u64, &str, &str, &str)> = events
        .iter()
        .map(|e| {
            (
                e["claim"].as_u64().unwrap(),
                e["device"].as_str().unwrap(),
                e["event"].as_str().unwrap(),
                e["outcome"].as_str().unwrap(),
            )
        })
        .collect();
    // Partitioned: a and b both get 0x2a; after the merge c's 0x2b is denied by b's range;
    // a's reclaim at 20 s detects the duplicate and loses; c's prefix succeeds.
    assert_eq!(
        summary,
        [
            (1, "b", "outcome", "succeeded"),
            (0, "a", "outcome", "succeeded"),
            (2, "c", "outcome", "denied"),
            (0, "a", "lost", "denied"),
            (3, "c", "outcome", "succeeded"),
        ]
    );
    let times: Vec<u64> = events
        .iter()
        .map(|e| e["time_us"].as_u64().unwrap())
        .collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]), "time order");
    assert!(
        times[0] >= 3_500_000 && times[0] <= 3_750_000 + 10_000,
        "{}",
        times[0]
    );
    // Denials name who held the overlapping claim then: b's range, claim 1.
    let held: Vec<&Value> = events.iter().filter_map(|e| e.get("held_by")).collect();
    assert_eq!(held.len(), 2, "{events:?}");
    assert!(
        held.iter()
            .all(|h| **h == serde_json::json!([{"device": "b", "claim": 1}]))
    );
    let holders: Vec<(u64, &str)> = summary_line["summary"]["holders"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| (h["claim"].as_u64().unwrap(), h["device"].as_str().unwrap()))
        .collect();
    assert_eq!(holders, [(1, "b"), (3, "c")]);
    assert_eq!(summary_line["summary"]["overlaps"], serde_json::json!([]));
    let s = &stats["stats"];
    assert_eq!(s["devices"], 4);
    assert_eq!(
        s["sent"]["claim_attempt"], s["floods"],
        "every claimant has one interface"
    );
    assert!(s["denies"].as_u64().unwrap() >= 2);
    assert!(s["forwarded"]["claim_deny"].as_u64().unwrap() >= 1);
    assert!(s["drops"].is_object());
    // Same seed, same output.
    let again = run(EXAMPLE).success().get_output().stdout.clone();
    assert_eq!(text.as_bytes(), &again[..]);
}

#[test]
fn bad_scenarios_say_what_and_where_and_exit_1() {
    let dir = std::env::temp_dir().join(format!("uiap-sim-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (body, message) in [
        // Refused while deserializing: what and where (line, column).
        (
            r#"{"devices": [{"name": 3}]}"#,
            "invalid type: integer `3`, expected a string at line 1 column 23",
        ),
        (
            r#"{"segments": [{"name": "l", "loss": 2}]}"#,
            "expected a probability from 0 to 1, found 2 at line 1 column 38",
        ),
        (
            r#"{"devices": [{"name": "a"}], "actions": [{"at_ms": 0, "claim": {"device": "a", "domain": "1:2:3:0", "unique": "abc"}}]}"#,
            "expected an even number of hex digits in unique, found \"abc\" at line 1 column 117",
        ),
        (
            r#"{"sed": 1}"#,
            "unknown field `sed`, expected one of `seed`, `until_ms`, `config`, `segments`, `devices`, `actions` at line 1 column 6",
        ),
        (
            r#"{"segments": [["lan"]]}"#,
            "invalid type: sequence, expected an object at line 1 column 14",
        ),
        (
            r#"{"actions": [{"at_ms": 0, "leave": "a", "join": "a"}]}"#,
            "expected an action with exactly one of claim, release, reclaim, link_down, link_up, leave, join, found 2 at line 1 column 53",
        ),
        // Refused by validation: what, and where in the document.
        (
            r#"{"actions": [{"at_ms": 0, "release": 0}]}"#,
            "actions[0].release: expected a claim index below 0, found 0",
        ),
        (
            r#"{"devices": [{"name": "a", "segments": ["x"]}]}"#,
            "devices[0].segments[0]: expected a declared segment name, found \"x\"",
        ),
        (
            r#"{"devices": [{"name": "a"}, {"name": "a"}]}"#,
            "devices[1].name: expected a new device name, found \"a\" again",
        ),
    ] {
        let path = dir.join("s.json");
        std::fs::write(&path, body).unwrap();
        let out = run(path.to_str().unwrap())
            .code(1)
            .get_output()
            .stderr
            .clone();
        let err = String::from_utf8(out).unwrap();
        assert_eq!(
            err.trim_end(),
            format!("error: {}: {message}", path.display())
        );
    }
    run(dir.join("missing.json").to_str().unwrap())
        .code(1)
        .stderr(predicates::str::starts_with("error: cannot read"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// At 30 % loss some claims succeed over a held range: the report says who, and lists every
/// pair of devices left holding overlapping spaces (docs/uiap-design.md D38). The pairs are
/// checked against an independent recomputation from the holders.
#[test]
fn a_lossy_site_reports_its_overlapping_holders() {
    use uiap::space::{DomainId, conflicts};
    use uiap_control::SpaceText;

    let lines = json_lines(LOSSY);
    let summary = &lines[lines.len() - 2]["summary"];
    let holders = summary["holders"].as_array().unwrap();
    let parse = |h: &Value| {
        let domain: DomainId = h["domain"].as_str().unwrap().parse().unwrap();
        let (kind, text) = h["space"].as_str().unwrap().split_once(' ').unwrap();
        let space = match kind {
            "uid" => SpaceText::Uid(text.into()),
            "range" => SpaceText::Range(text.into()),
            _ => SpaceText::Prefix(text.into()),
        };
        (
            h["device"].as_str().unwrap().to_owned(),
            domain,
            space.parse(&domain).unwrap(),
        )
    };
    let mut expected = Vec::new();
    for (i, a) in holders.iter().enumerate() {
        for b in &holders[i + 1..] {
            let ((da, ma, sa), (db, mb, sb)) = (parse(a), parse(b));
            if da != db && conflicts(&ma, &sa, &mb, &sb) {
                expected.push(serde_json::json!([a, b]));
            }
        }
    }
    assert!(
        !expected.is_empty(),
        "the example is meant to show overlaps"
    );
    assert_eq!(summary["overlaps"], Value::Array(expected));

    let text = run_text(LOSSY);
    assert!(text.contains("held by gateway (claim 0)"), "{text}");
    assert!(
        text.contains(
            "pairs of claims held by different devices overlap (what UIAP exists to prevent):"
        ),
        "{text}"
    );
    assert!(
        text.contains("gateway (claim 0, range 00-3f) and sensor-"),
        "{text}"
    );
    // People read names, not device IDs (16 hex digits).
    assert!(
        !text
            .split_whitespace()
            .any(|w| w.len() >= 16 && w.chars().all(|c| c.is_ascii_hexdigit() || c == '/')),
        "{text}"
    );
}

/// A claim the device refuses at once is told as a sentence, not as Rust debug text.
#[test]
fn a_rejection_is_a_sentence() {
    let dir = std::env::temp_dir().join(format!("uiap-sim-reject-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("s.json");
    std::fs::write(
        &path,
        r#"{"segments":[{"name":"l"}],"devices":[{"name":"a","segments":["l"]}],"actions":[
            {"claim":{"device":"a","domain":"fff:0:0:1","range":["00","0f"]}},
            {"at_ms":10,"claim":{"device":"a","domain":"fff:0:0:1","unique":"05"}}]}"#,
    )
    .unwrap();
    let text = run_text(path.to_str().unwrap());
    assert!(
        text.contains("a: claim 1 (uid 05 in fff:0:0:1) refused at once: the device already has an overlapping claim"),
        "{text}"
    );
    assert!(!text.contains("LocalConflict"), "{text}");
    let lines = json_lines(path.to_str().unwrap());
    assert_eq!(
        lines[0]["reason"],
        "refused at once: the device already has an overlapping claim"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
