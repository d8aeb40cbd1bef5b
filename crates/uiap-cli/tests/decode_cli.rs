//! `uiap decode HEX`: JSON on success, the precise error and exit 1 on failure.

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::{Value, json};

const EXAMPLE: &str =
    "0100002000000e10 0211223344556677 00000001 deadbeef 0001000200030000 00 01 02 00 c0a8";

fn uiap() -> Command {
    Command::cargo_bin("uiap").unwrap()
}

fn decode_json(args: &[&str]) -> Value {
    let out = uiap()
        .arg("decode")
        .args(args)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    assert_eq!(text.lines().count(), 1, "one line: {text}");
    serde_json::from_str(&text).unwrap()
}

#[test]
fn decodes_the_prefix_attempt_example_to_one_json_object() {
    assert_eq!(
        decode_json(&[EXAMPLE]),
        json!({
            "length": 38,
            "version": 1,
            "type": "claim-attempt",
            "proxy": false,
            "reclaim": false,
            "hop_limit": 32,
            "lifetime": 3600,
            "origin": "0211223344556677",
            "sequence": 1,
            "message_id": "0211223344556677/1",
            "claim_ref": 3735928559u32,
            "domain": "1:2:3:0",
            "justification": "left",
            "space": { "format": "prefix", "uid": { "hex": "c0a8", "bits": 16 } },
        })
    );
}

#[test]
fn decodes_a_loss_notice_by_what_it_reports() {
    assert_eq!(
        decode_json(&[
            "01200020 0000012c 0211223344556677 00000009 00000028 0000000000000000 00000000"
        ]),
        json!({
            "length": 36,
            "version": 1,
            "type": "loss-notice",
            "hop_limit": 32,
            "origin": "0211223344556677",
            "sequence": 9,
            "message_id": "0211223344556677/9",
            "lost": 40,
            "window_ms": 300,
        })
    );
    // One that names a claim is refused, at the octet.
    uiap()
        .args([
            "decode",
            "01200020 0000012c 0211223344556677 00000009 00000028 0000000000000000 00010100 2a",
        ])
        .assert()
        .failure()
        .stderr(
            predicate::str::contains("loss-notice names a claim")
                .and(predicate::str::contains("at octet 33")),
        );
}

#[test]
fn decodes_a_right_justified_range_deny_from_several_arguments() {
    let v = decode_json(&[
        "01100000 00000e10 ffffffffffffffff 00000007 01020304",
        "0001000200030080",
        "00 82 02 03",
        "0ABC 010000",
    ]);
    assert_eq!(v["type"], "claim-deny");
    assert_eq!(v["hop_limit"], 0);
    assert_eq!(v["origin"], "ffffffffffffffff");
    assert_eq!(v["domain"], "1:2:3:80");
    assert_eq!(v["justification"], "right");
    assert_eq!(
        v["space"],
        json!({ "format": "range", "low": { "hex": "0abc", "bits": 12 }, "high": { "hex": "010000", "bits": 24 } })
    );
}

#[test]
fn decodes_a_unique_value_with_flags_and_canonical_did() {
    let v = decode_json(&[
        "01030020ffffffff0211223344556677fffffffe000000000fff0000000000010080 0200 abc0",
    ]);
    assert_eq!(
        (v["proxy"].clone(), v["reclaim"].clone()),
        (json!(true), json!(true))
    );
    assert_eq!(v["lifetime"], 4294967295u32);
    assert_eq!(v["domain"], "fff:0:0:1");
    assert_eq!(
        v["space"],
        json!({ "format": "unique", "uid": { "hex": "abc0", "bits": 12 } })
    );
}

#[test]
fn pretty_output_is_the_same_object() {
    let out = uiap()
        .args(["decode", "--pretty", EXAMPLE])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    assert!(text.lines().count() > 10);
    assert_eq!(
        serde_json::from_str::<Value>(&text).unwrap(),
        decode_json(&[EXAMPLE])
    );
}

#[test]
fn wire_errors_exit_1_with_the_precise_message() {
    for (hex, message) in [
        (
            "0100",
            "error: truncated message: expected at least 36 octets, found 2 at octet 2\n",
        ),
        (
            &EXAMPLE.replace("c0a8", "c0"),
            "error: length mismatch: expected 38 octets from the uid length fields, found 37 at octet 34\n",
        ),
        (
            &EXAMPLE.replacen("01", "02", 1),
            "error: unknown version: expected 1, found 2 at octet 0\n",
        ),
        (
            &EXAMPLE.replace("0001000200030000", "0001000200030080"),
            "error: prefix in right-justified domain: expected fmt 0 (unique) or 2 (range) when j = 1, found 1 at octet 33\n",
        ),
        (
            &EXAMPLE.replace("0211223344556677", "0000000000000000"),
            "error: reserved device id: expected a non-zero originating device id, found 0 at octet 8\n",
        ),
    ] {
        uiap()
            .args(["decode", hex])
            .assert()
            .code(1)
            .stdout("")
            .stderr(message.to_string());
    }
}

#[test]
fn bad_hex_exits_1_with_the_position() {
    uiap()
        .args(["decode", "01 0g"])
        .assert()
        .code(1)
        .stdout("")
        .stderr("error: invalid hex: expected hex digit, found `g` at 4\n");
    uiap()
        .args(["decode", "010"])
        .assert()
        .code(1)
        .stderr("error: invalid hex: expected an even number of hex digits, found 3\n");
}

#[test]
fn missing_argument_is_a_usage_error() {
    uiap()
        .arg("decode")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("HEX"));
}
