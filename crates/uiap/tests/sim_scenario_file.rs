//! The scenario format: every key lands where the docs say, every error says what and where.

use core::time::Duration;

use uiap::config::Config;
use uiap::device::INFINITE_LIFETIME;
use uiap::sim::scenario::{Action, LinkEntry};
use uiap::sim::{NodeId, Scenario, SegmentParams};
use uiap::space::{Uid, UidSpace};
use uiap::time::Instant;

const EXAMPLE: &str = include_str!("../examples/partition.json");

fn parse(text: &str) -> Scenario {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn json_error(text: &str) -> String {
    serde_json::from_str::<Scenario>(text)
        .map(|s| panic!("accepted {text}: {s:?}"))
        .unwrap_err()
        .to_string()
}

fn validation_error(text: &str) -> (String, String) {
    let err = parse(text).validate().unwrap_err();
    (err.path().to_owned(), err.to_string())
}

#[test]
fn the_example_file_runs_as_documented() {
    let scenario = parse(EXAMPLE);
    assert_eq!((scenario.seed, scenario.until), (7, Instant::from_secs(40)));
    assert_eq!(scenario.config.start_jitter, Duration::from_millis(250));
    let mut sim = scenario.build().unwrap();
    sim.run_until(scenario.until);
    let outcomes: Vec<&str> = sim
        .claims()
        .iter()
        .map(|c| c.outcome.expect("every claim ends").kind.as_str())
        .collect();
    // Partitioned at first: a and b both get 0x2a; after the merge c's 0x2b is denied by b's
    // range, a's reclaim finds the duplicate and loses, c's prefix succeeds.
    assert_eq!(outcomes, ["succeeded", "succeeded", "denied", "succeeded"]);
    assert!(
        sim.claims()[0].lost.is_some(),
        "a's reclaim at 20 s was denied"
    );
}

#[test]
fn config_keys_override_the_defaults() {
    let scenario = parse(
        r#"{"config": {
            "claim_period_ms": 100, "claim_timeout_ms": 200, "start_jitter_ms": 0,
            "message_ttl_ms": 300, "proxy_max_lifetime_ms": 400, "conflict_window_ms": 500,
            "conflict_rate_limit_ms": 600, "renew_min_lifetime_ms": 700,
            "new_attempts": 4, "reclaim_attempts": 5, "hop_limit": 6, "renew_at_percent": 50,
            "message_table_capacity": 7, "proxy_capacity": 8, "conflict_limit": 9,
            "max_claims": 10, "proxy_min_prefix_bits": 11, "forward_rate": 12,
            "loss_notice_interval_ms": 13, "notice_forward_rate": 14, "proxy_defense": false, "auto_renew": true, "random_device_id": false
        }}"#,
    );
    let ms = Duration::from_millis;
    assert_eq!(
        scenario.config,
        Config {
            claim_period: ms(100),
            claim_timeout: ms(200),
            start_jitter: ms(0),
            message_ttl: ms(300),
            proxy_max_lifetime: ms(400),
            conflict_window: ms(500),
            conflict_rate_limit: ms(600),
            renew_min_lifetime: ms(700),
            new_attempts: 4,
            reclaim_attempts: 5,
            hop_limit: 6,
            renew_at_percent: 50,
            message_table_capacity: 7,
            proxy_capacity: 8,
            conflict_limit: 9,
            max_claims: 10,
            proxy_min_prefix_bits: 11,
            forward_rate: 12,
            loss_notice_interval: ms(13),
            notice_forward_rate: 14,
            proxy_defense: false,
            auto_renew: true,
            random_device_id: false,
        }
    );
    let one = parse(r#"{"config": {"hop_limit": 3}}"#).config;
    assert_eq!(
        one,
        Config {
            hop_limit: 3,
            ..Config::default()
        },
        "the rest stays default"
    );
}

#[test]
fn every_key_lands_in_its_field() {
    let scenario = parse(
        r#"{
        "seed": 9, "until_ms": 1500.5,
        "segments": [
            {"name": "lan"},
            {"name": "wifi", "delay_ms": 3, "jitter_ms": 0.25, "loss": 0.5, "duplicate": 0.25,
             "reorder": 0.125, "reorder_ms": 10}
        ],
        "devices": [
            {"name": "a", "segments": ["lan", "wifi"]},
            {"name": "b", "segments": ["wifi"], "id": "00000000000000FF"}
        ],
        "actions": [
            {"at_ms": 1, "claim": {"device": "a", "domain": "fff:0:1:0", "range": ["20", "2f"],
                                   "lifetime": "infinite", "reclaim": true, "proxy": true}},
            {"claim": {"device": "b", "domain": "fff:0:1:0", "prefix": "c0a0/12"}},
            {"at_ms": 2, "release": 1},
            {"at_ms": 3, "reclaim": 0},
            {"at_ms": 4, "link_down": {"device": "a", "segment": "wifi"}},
            {"at_ms": 5, "link_up": {"device": "a", "segment": "wifi"}},
            {"at_ms": 6, "leave": "b"},
            {"at_ms": 7, "join": "b"}
        ]
    }"#,
    );
    assert_eq!(
        (scenario.seed, scenario.until),
        (9, Instant::from_micros(1_500_500))
    );
    let ms = Duration::from_millis;
    assert_eq!(scenario.segments[0].params, SegmentParams::default());
    assert_eq!(
        scenario.segments[1].params,
        SegmentParams {
            delay: ms(3),
            jitter: Duration::from_micros(250),
            loss: 0.5,
            duplicate: 0.25,
            reorder: 0.125,
            reorder_delay: ms(10),
        }
    );
    assert_eq!(scenario.devices[1].id.map(|d| d.get()), Some(0xff));
    assert_eq!(scenario.devices[0].id, None);
    let at: Vec<u64> = scenario.actions.iter().map(|a| a.at.as_micros()).collect();
    assert_eq!(at, [1_000, 0, 2_000, 3_000, 4_000, 5_000, 6_000, 7_000]);
    let Action::Claim(range) = &scenario.actions[0].action else {
        panic!("{:?}", scenario.actions[0]);
    };
    assert_eq!(range.device, "a");
    assert_eq!(range.spec.domain.to_string(), "fff:0:1:0");
    assert_eq!(
        range.spec.space,
        UidSpace::Range {
            low: Uid::from_octets(&[0x20]).unwrap(),
            high: Uid::from_octets(&[0x2f]).unwrap()
        }
    );
    assert_eq!(range.spec.lifetime, INFINITE_LIFETIME);
    assert!(range.spec.reclaim && range.spec.proxy);
    let Action::Claim(prefix) = &scenario.actions[1].action else {
        panic!("{:?}", scenario.actions[1]);
    };
    assert_eq!(
        prefix.spec.space,
        UidSpace::Prefix(Uid::new(&[0xc0, 0xa0], 12).unwrap())
    );
    assert_eq!(prefix.spec.lifetime, 3600);
    assert!(!prefix.spec.reclaim && !prefix.spec.proxy);
    let link = LinkEntry {
        device: "a".into(),
        segment: "wifi".into(),
    };
    let rest: Vec<&Action> = scenario.actions[2..].iter().map(|a| &a.action).collect();
    assert_eq!(
        rest,
        [
            &Action::Release(1),
            &Action::Reclaim(0),
            &Action::LinkDown(link.clone()),
            &Action::LinkUp(link),
            &Action::Leave("b".into()),
            &Action::Join("b".into()),
        ]
    );
    let sim = scenario.build().unwrap();
    assert_eq!(sim.device(NodeId(0)).device_id().get(), 1, "position + 1");
    assert_eq!(sim.device(NodeId(1)).device_id().get(), 0xff);
    assert_eq!(sim.device(NodeId(0)).interfaces().len(), 2);
    assert_eq!(sim.claims().len(), 2);
}

#[test]
fn an_empty_document_is_an_empty_site_for_a_minute() {
    let scenario = parse("{}");
    assert_eq!(scenario.until, Instant::from_secs(60));
    assert_eq!(scenario.config, Config::default());
    let mut sim = scenario.build().unwrap();
    assert!(sim.run(scenario.until));
    assert_eq!(sim.node_count(), 0);
}

#[test]
fn values_wrong_in_themselves_are_refused_with_line_and_column() {
    for (text, message) in [
        (
            r#"{"until_ms": -1}"#,
            "expected a number of milliseconds from 0 to 10^12, found -1 at line 1 column 16",
        ),
        (
            r#"{"until_ms": 1e13}"#,
            "expected a number of milliseconds from 0 to 10^12, found 10000000000000 at line 1 column 18",
        ),
        (
            r#"{"config": {"hop_limit": 300}}"#,
            "invalid value: integer `300`, expected u8 at line 1 column 28",
        ),
        (
            r#"{"devices": [{"name": "a", "id": "0000000000000000"}]}"#,
            "expected a device id of 16 hex digits, not all zero, found \"0000000000000000\" at line 1 column 52",
        ),
        (
            r#"{"devices": [{"name": "a", "id": "ff"}]}"#,
            "expected a device id of 16 hex digits, not all zero, found \"ff\" at line 1 column 38",
        ),
        (
            r#"{"actions": [{"claim": {"device": "a", "domain": "1:2:3", "unique": "ab"}}]}"#,
            "expected a domain ID like fff:0:1:0 in domain, found \"1:2:3\" (too few quads: expected 4 colon-separated quads, found 3 and end of input at 5) at line 1 column 74",
        ),
        (
            r#"{"actions": [{"claim": {"device": "a", "domain": "fff:0:1:0", "prefix": "2a/9"}}]}"#,
            "expected a valid UID in prefix, found \"2a/9\" (bit length mismatch: expected 1 to 8 bits for 1 octets, found 9) at line 1 column 80",
        ),
        (
            r#"{"actions": [{"claim": {"device": "a", "domain": "fff:0:1:0", "unique": "2a/x"}}]}"#,
            "expected a bit length in unique, found \"x\" at line 1 column 80",
        ),
        (
            r#"{"actions": [{"claim": {"device": "a", "domain": "fff:0:1:0", "range": ["2a", "1a"]}}]}"#,
            "expected a space valid in domain fff:0:1:0, found an invalid one (reversed range: expected low <= high, found low > high) at line 1 column 85",
        ),
        (
            r#"{"actions": [{"claim": {"device": "a", "domain": "fff:0:1:0", "range": ["2a"]}}]}"#,
            "invalid length 1, expected a tuple of size 2 at line 1 column 77",
        ),
        (
            r#"{"actions": [{"claim": {"device": "a", "domain": "fff:0:1:0"}}]}"#,
            "expected a claim with exactly one of unique, prefix, range, found 0 at line 1 column 62",
        ),
        (
            r#"{"actions": [{"claim": {"device": "a", "domain": "fff:0:1:0", "unique": "2a", "lifetime": 4294967296}}]}"#,
            "invalid value: integer `4294967296`, expected a lifetime in seconds (0 to 4294967295) or \"infinite\" at line 1 column 100",
        ),
        (
            r#"{"actions": [{"at_ms": 5}]}"#,
            "expected an action with exactly one of claim, release, reclaim, link_down, link_up, leave, join, found 0 at line 1 column 26",
        ),
        (
            r#"{"actions": [{"link_up": {"device": "a"}}]}"#,
            "missing field `segment` at line 1 column 40",
        ),
        (
            "[7]",
            "invalid type: sequence, expected an object at line 1 column 0",
        ),
        (
            r#"{"config": [1]}"#,
            "invalid type: sequence, expected an object at line 1 column 11",
        ),
    ] {
        assert_eq!(json_error(text), message, "{text}");
    }
}

#[test]
fn references_are_checked_with_their_place_in_the_document() {
    let site = r#""segments": [{"name": "lan"}, {"name": "wan"}],
        "devices": [{"name": "a", "segments": ["lan"]}, {"name": "b", "segments": ["wan"]}]"#;
    let claim = r#"{"claim": {"device": "a", "domain": "fff:0:1:0", "unique": "2a"}}"#;
    for (actions, path, message) in [
        (
            r#"[{"claim": {"device": "c", "domain": "fff:0:1:0", "unique": "2a"}}]"#.to_owned(),
            "actions[0].claim.device",
            "expected a declared device name, found \"c\"",
        ),
        (
            format!("[{claim}, {{\"reclaim\": 1}}]"),
            "actions[1].reclaim",
            "expected a claim index below 1, found 1",
        ),
        (
            format!("[{{\"release\": 0}}, {claim}]"),
            "actions[0].release",
            "expected a claim index below 0, found 0",
        ),
        (
            r#"[{"link_down": {"device": "x", "segment": "lan"}}]"#.to_owned(),
            "actions[0].link_down.device",
            "expected a declared device name, found \"x\"",
        ),
        (
            r#"[{"link_up": {"device": "a", "segment": "dsl"}}]"#.to_owned(),
            "actions[0].link_up.segment",
            "expected a declared segment name, found \"dsl\"",
        ),
        (
            r#"[{"link_up": {"device": "a", "segment": "wan"}}]"#.to_owned(),
            "actions[0].link_up.segment",
            "expected a segment device a is on, found \"wan\"",
        ),
        (
            r#"[{"leave": "a"}, {"join": "z"}]"#.to_owned(),
            "actions[1].join",
            "expected a declared device name, found \"z\"",
        ),
        (
            r#"[{"leave": "z"}]"#.to_owned(),
            "actions[0].leave",
            "expected a declared device name, found \"z\"",
        ),
    ] {
        let text = format!("{{{site}, \"actions\": {actions}}}");
        let (p, m) = validation_error(&text);
        assert_eq!(
            (p.as_str(), m),
            (path, format!("{path}: {message}")),
            "{text}"
        );
        assert!(parse(&text).build().is_err());
    }
    for (text, path, found) in [
        (
            r#"{"segments": [{"name": "l"}, {"name": "l"}]}"#,
            "segments[1].name",
            "expected a new segment name, found \"l\" again",
        ),
        (
            r#"{"devices": [{"name": "d"}, {"name": "e"}, {"name": "d"}]}"#,
            "devices[2].name",
            "expected a new device name, found \"d\" again",
        ),
    ] {
        assert_eq!(
            validation_error(text),
            (path.to_owned(), format!("{path}: {found}"))
        );
    }
}

#[test]
fn same_document_same_run() {
    let run = || {
        let scenario = parse(EXAMPLE);
        let mut sim = scenario.build().unwrap();
        sim.record_transcript();
        sim.run_until(scenario.until);
        sim.transcript()
    };
    let first = run();
    assert!(first.len() > 50, "{} lines", first.len());
    assert_eq!(first, run());
}

/// What the daemon refuses is refused, and so is what no run finishes: each with its place
/// and range.
#[test]
fn settings_the_daemon_refuses_and_unbounded_runs_are_refused() {
    use std::fmt::Write;
    let mesh = {
        let mut segments = String::new();
        for i in 0..101 {
            let _ = write!(segments, "{}\"s{i}\"", if i > 0 { "," } else { "" });
        }
        let devices: Vec<String> = (0..100)
            .map(|i| format!(r#"{{"name":"d{i}","segments":[{segments}]}}"#))
            .collect();
        let declared: Vec<String> = (0..101).map(|i| format!(r#"{{"name":"s{i}"}}"#)).collect();
        format!(
            r#"{{"segments":[{}],"devices":[{}]}}"#,
            declared.join(","),
            devices.join(",")
        )
    };
    for (doc, message) in [
        (
            r#"{"config":{"new_attempts":0}}"#.to_string(),
            "config.new_attempts: expected 1 to 10, found 0",
        ),
        (
            r#"{"config":{"hop_limit":0}}"#.to_string(),
            "config.hop_limit: expected 1 to 255, found 0",
        ),
        (
            r#"{"until_ms":1000000000000}"#.to_string(),
            "until_ms: expected 0 to 86400000, found 1000000000000",
        ),
        (mesh, "devices[].segments: expected 0 to 10000, found 10100"),
    ] {
        let scenario: uiap::sim::Scenario = serde_json::from_str(&doc).unwrap();
        let Err(err) = scenario.build() else {
            panic!("built, expected {message}")
        };
        assert_eq!(err.to_string(), message);
    }
    // Each dimension within its bound, but 3,000 claims renewing every 7.5 s for a day would
    // record 34,560,000 renewals (docs/uiap-design.md D78); 1,000 of them, 11,520,000.
    let renewing = |claims: usize| {
        let actions: Vec<String> = (0..claims)
            .map(|i| {
                format!(
                    r#"{{"claim":{{"device":"a","domain":"fff:0:1:0","unique":"{i:04x}","lifetime":10}}}}"#
                )
            })
            .collect();
        let doc = format!(
            r#"{{"until_ms":86400000,"config":{{"auto_renew":true}},"devices":[{{"name":"a"}}],"actions":[{}]}}"#,
            actions.join(",")
        );
        serde_json::from_str::<uiap::sim::Scenario>(&doc).unwrap()
    };
    let err = renewing(3000).validate().unwrap_err().to_string();
    assert_eq!(
        err,
        "config.auto_renew: expected claims that renew at most 20000000 times in all over the \
         run, found up to 34560000 renewals (each claim renews at renew_at_percent of its \
         lifetime until until_ms)"
    );
    assert!(renewing(1000).validate().is_ok());
}
