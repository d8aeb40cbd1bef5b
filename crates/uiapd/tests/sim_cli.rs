//! `uiap sim SCENARIO.json`, end to end.

use assert_cmd::Command;
use serde_json::Value;

const EXAMPLE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../uiap/examples/partition.json"
);

fn run(path: &str) -> assert_cmd::assert::Assert {
    Command::cargo_bin("uiap")
        .unwrap()
        .args(["sim", path])
        .assert()
}

#[test]
fn example_scenario_prints_outcomes_then_statistics() {
    let out = run(EXAMPLE).success().get_output().stdout.clone();
    let text = String::from_utf8(out).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let (stats, events) = lines.split_last().unwrap();
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
