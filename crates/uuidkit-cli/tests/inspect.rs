//! `uuidkit inspect`: fields per version, JSON keys, stdin, errors.

use serde_json::Value;

use crate::util::*;

fn json(uuid: &str) -> Value {
    let out = ok(&["inspect", "--json", uuid]);
    assert_eq!(out.lines().count(), 1, "{out}");
    serde_json::from_str(&out).expect("valid JSON")
}

#[test]
fn a6_v7_time() {
    let j = json("017f22e2-79b0-7cc3-98c4-dc0c0c07398f");
    assert_eq!(j["uuid"], "017f22e2-79b0-7cc3-98c4-dc0c0c07398f");
    assert_eq!(j["variant"], "rfc9562");
    assert_eq!(j["version"], 7);
    assert_eq!(j["time"], "2022-02-22T19:22:22.000Z");
    assert_eq!(j["unix_ts_ms"], 1_645_557_742_000u64);
    assert_eq!(j["rand_a"], 0xcc3);
    assert_eq!(j["rand_b"], 0x18c4dc0c0c07398fu64.to_string());
    assert_eq!(j["clock_seq"], Value::Null);
    assert_eq!(j["node"], Value::Null);
    let text = ok(&["inspect", "017F22E2-79B0-7CC3-98C4-DC0C0C07398F"]);
    assert_contains!(text, "time:           2022-02-22T19:22:22.000Z");
    assert_contains!(text, "heuristic");
    assert_contains!(
        text,
        "2022-02-22T19:22:22.000797Z if rand_a holds method-3 sub-millisecond precision"
    );
}

#[test]
fn a1_v1_and_a5_v6_with_100ns_precision() {
    for (u, v, other) in [
        (
            "c232ab00-9414-11ec-b3c8-9f6bdeced846",
            1,
            ("as_v6", "1ec9414c-232a-6b00-b3c8-9f6bdeced846"),
        ),
        (
            "1ec9414c-232a-6b00-b3c8-9f6bdeced846",
            6,
            ("as_v1", "c232ab00-9414-11ec-b3c8-9f6bdeced846"),
        ),
    ] {
        let j = json(u);
        assert_eq!(j["version"], v);
        assert_eq!(j["time"], "2022-02-22T19:22:22.0000000Z");
        assert_eq!(j["clock_seq"], 0x33c8);
        assert_eq!(j["node"], "9f:6b:de:ce:d8:46");
        assert_eq!(j["node_kind"], "random");
        assert_eq!(j["timestamp"], 0x1EC9414C232AB00u64.to_string());
        assert_eq!(j[other.0], other.1);
    }
    let text = ok(&["inspect", "c232ab00-9414-11ec-b3c8-9f6bdeced846"]);
    assert_contains!(text, "random (multicast bit set)");
    assert_contains!(text, "clock_seq:      13256 (0x33c8)");
}

#[test]
fn sub_microsecond_v1_time_and_ieee_mac() {
    // Figure 1's UUID: a v1 with a real (multicast-clear) MAC, 00:a0:c9:1e:6b:f6.
    let j = json("f81d4fae-7dec-11d0-a765-00a0c91e6bf6");
    // ts60 0x1d07decf81d4fae = Unix 854991792.2168750 s.
    assert_eq!(j["time"], "1997-02-03T17:43:12.2168750Z");
    assert_eq!(j["node"], "00:a0:c9:1e:6b:f6");
    assert_eq!(j["node_kind"], "ieee_mac");
    assert_contains!(
        ok(&["inspect", "f81d4fae-7dec-11d0-a765-00a0c91e6bf6"]),
        "IEEE MAC address"
    );
}

#[test]
fn name_based_origin_is_unknowable() {
    for (u, v, hash) in [
        ("5df41881-3aed-3515-88a7-2f4a814cf09e", 3, "MD5"),
        ("2ed6657d-e927-568b-95e1-2665a8aea6a2", 5, "SHA-1"),
    ] {
        let j = json(u);
        assert_eq!(j["version"], v);
        assert_eq!(j["time"], Value::Null);
        let text = ok(&["inspect", u]);
        assert_contains!(
            text,
            format!("{hash}: the namespace and name cannot be recovered")
        );
    }
    let text = ok(&["inspect", "5c146b14-3c52-8afd-938a-375d0df1fbf6"]);
    assert_contains!(text, "version:        8 (custom)");
    assert_contains!(text, "namespace and name cannot be recovered");
    let j = json("5c146b14-3c52-8afd-938a-375d0df1fbf6");
    assert_eq!(j["custom_a"], 0x5c146b143c52u64);
    assert_eq!(j["custom_b"], 0xafd);
    assert_eq!(j["custom_c"], 0x138a375d0df1fbf6u64.to_string()); // D5: 0b01, not 0b00
}

#[test]
fn a3_v4_and_other_variants() {
    let j = json("919108f7-52d1-4320-9bac-f847db4148a8");
    assert_eq!(
        (j["version"].as_u64(), j["variant"].as_str()),
        (Some(4), Some("rfc9562"))
    );
    for (u, variant) in [
        ("00000000-0000-4000-0000-000000000000", "ncs"),
        ("00000000-0000-4000-c000-000000000000", "microsoft"),
        ("00000000-0000-4000-e000-000000000000", "future"),
    ] {
        let j = json(u);
        assert_eq!(j["variant"], variant);
        assert_eq!(j["version"], Value::Null, "{u}");
    }
    let text = ok(&["inspect", "00000000-0000-4000-c000-000000000000"]);
    assert_contains!(text, "Microsoft (110x)");
    assert_contains!(
        text,
        "version:        none (only the RFC 9562 variant has versions)"
    );
}

#[test]
fn reserved_versions() {
    let j = json("00000000-0000-9000-8000-000000000000");
    assert_eq!(j["version"], 9);
    assert_contains!(
        ok(&["inspect", "00000000-0000-0000-8000-000000000000"]),
        "0 (unused"
    );
    assert_contains!(
        ok(&["inspect", "00000000-0000-f000-8000-000000000000"]),
        "15 (reserved"
    );
}

#[test]
fn nil_and_max_are_named() {
    let j = json("00000000-0000-0000-0000-000000000000");
    assert_eq!(
        (j["variant"].as_str(), j["name"].as_str()),
        (Some("ncs"), Some("nil"))
    );
    let j = json("FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF");
    assert_eq!(j["uuid"], "ffffffff-ffff-ffff-ffff-ffffffffffff");
    assert_eq!(
        (j["variant"].as_str(), j["name"].as_str()),
        (Some("future"), Some("max"))
    );
    assert_contains!(
        ok(&["inspect", "00000000000000000000000000000000"]),
        "the Nil UUID (RFC 9562 §5.9)"
    );
}

#[test]
fn stdin_one_object_per_line_and_errors_with_line_numbers() {
    let input = "017f22e2-79b0-7cc3-98c4-dc0c0c07398f\nnot-a-uuid\n\nurn:uuid:c232ab00-9414-11ec-b3c8-9f6bdeced846\n";
    let out = run_with_stdin(&["inspect", "--json"], input);
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let objs: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(objs.len(), 2);
    assert_eq!(objs[0]["version"], 7);
    assert_eq!(objs[1]["version"], 1);
    for o in &objs {
        for key in ["uuid", "variant", "version", "time", "clock_seq", "node"] {
            assert!(o.get(key).is_some(), "missing {key} in {o}");
        }
    }
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(
        stderr,
        "uuidkit: line 2: invalid character 'n' at position 0: expected a hex digit (input 'not-a-uuid')\n"
    );
}

#[test]
fn text_blocks_are_separated() {
    let out = ok(&[
        "inspect",
        "00000000-0000-0000-0000-000000000000",
        "ffffffff-ffff-ffff-ffff-ffffffffffff",
    ]);
    let blocks: Vec<&str> = out.split("\n\n").collect();
    assert_eq!(blocks.len(), 2, "{out}");
    assert!(blocks[1].starts_with("ffffffff-ffff-ffff-ffff-ffffffffffff\n  variant:"));
}

#[test]
fn b1_v8_time_based_reading_is_labelled_a_heuristic() {
    let j = json("2489e9ad-2ee2-8e00-8ec9-32d5f69181c0");
    assert_eq!(j["version"], 8);
    assert_eq!(j["b1_time"], "2022-02-22T19:22:22.00000000Z");
    assert_eq!(j["time"], Value::Null);
    let text = ok(&["inspect", "2489e9ad-2ee2-8e00-8ec9-32d5f69181c0"]);
    assert_contains!(
        text,
        "2022-02-22T19:22:22.00000000Z if this is the time-based layout of RFC 9562 App. B.1"
    );
}

/// Read back by `node`, whose JSON numbers are doubles: every field comes out
/// exactly (a number above 2^53 would be rounded: A.6's rand_b
/// 1784793296645077391 reads as 1784793296645077500), for the RFC 9562 A.6
/// v7, the A.1 v1, and fields at the top of their ranges.
#[test]
fn json_reads_back_exactly_with_doubles() {
    if !test_support::require(
        "json_reads_back_exactly_with_doubles",
        test_support::command("node", &["--version"]),
    ) {
        return;
    }
    let uuids = [
        "017f22e2-79b0-7cc3-98c4-dc0c0c07398f", // A.6
        "c232ab00-9414-11ec-b3c8-9f6bdeced846", // A.1
        "1ec9414c-232a-6b00-b3c8-9f6bdeced846", // A.5
        "ffffffff-ffff-1fff-bfff-ffffffffffff", // v1, largest timestamp
        "ffffffff-ffff-7fff-bfff-ffffffffffff", // v7, largest fields
        "ffffffff-ffff-8fff-bfff-ffffffffffff", // v8, largest fields
    ];
    let mut args = vec!["inspect", "--json"];
    args.extend(uuids);
    let out = ok(&args);
    // node parses each line with JSON.parse and prints every field with
    // String(): for a number that is the double it was read as.
    let script = "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{for(const l of s.trim().split('\\n')){\
        const o=JSON.parse(l);console.log(Object.keys(o).map(k=>k+'='+String(o[k])).join(' '))}})";
    let mut child = std::process::Command::new("node")
        .args(["-e", script])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(out.as_bytes())
        .unwrap();
    let read = child.wait_with_output().unwrap();
    assert!(read.status.success());
    let read = String::from_utf8(read.stdout).unwrap();
    let read: Vec<&str> = read.lines().collect();
    assert_eq!(read.len(), uuids.len());
    // The exact values, from the UUIDs' bits.
    for (u, line) in uuids.iter().zip(&read) {
        let b = bits(u);
        let want: &[(&str, u128)] = match u.as_bytes()[14] {
            b'7' => &[
                ("unix_ts_ms", b >> 80),
                ("rand_a", (b >> 64) & 0xfff),
                ("rand_b", b & ((1 << 62) - 1)),
            ],
            b'8' => &[
                ("custom_a", b >> 80),
                ("custom_b", (b >> 64) & 0xfff),
                ("custom_c", b & ((1 << 62) - 1)),
            ],
            b'1' => &[
                (
                    "timestamp",
                    (((b >> 64) & 0xfff) << 48) | (((b >> 80) & 0xffff) << 32) | (b >> 96),
                ),
                ("clock_seq", (b >> 48) & 0x3fff),
            ],
            _ => &[
                ("timestamp", ((b >> 80) << 12) | ((b >> 64) & 0xfff)),
                ("clock_seq", (b >> 48) & 0x3fff),
            ],
        };
        for (k, v) in want {
            assert!(
                line.split(' ').any(|f| f == format!("{k}={v}")),
                "{k}={v} not in {line}"
            );
        }
    }
    assert!(
        read[0].contains("rand_b=1784793296645077391"),
        "{}",
        read[0]
    );
}

#[test]
fn table_has_uuidparse_columns_and_names() {
    let v1 = "c232ab00-9414-11ec-b3c8-9f6bdeced846";
    let v7 = "017f22e2-79b0-7cc3-98c4-dc0c0c07398f";
    let nil = "00000000-0000-0000-0000-000000000000";
    let out = ok(&["inspect", "--table", v1, v7, nil]);
    assert_eq!(
        out,
        "UUID                                 VARIANT   TYPE       TIME\n\
         c232ab00-9414-11ec-b3c8-9f6bdeced846 DCE       time-based 2022-02-22T19:22:22.0000000Z\n\
         017f22e2-79b0-7cc3-98c4-dc0c0c07398f DCE       time-v7    2022-02-22T19:22:22.000Z\n\
         00000000-0000-0000-0000-000000000000 NCS       nil\n"
    );
    // Chosen columns, any case, in the order given; no heading line.
    let out = ok(&["inspect", "-o", "TYPE,version,uuid", "--no-headings", v7]);
    assert_eq!(out, format!("time-v7    7       {v7}\n"));
    let out = ok(&["inspect", "-o", "type", "-n", nil]);
    assert_eq!(out, "nil\n");
}

#[test]
fn table_json_is_an_object_of_the_columns_per_line() {
    let v4 = "919108f7-52d1-4320-9bac-f847db4148a8";
    let v6 = "1ec9414c-232a-6b00-b3c8-9f6bdeced846";
    let out = ok(&[
        "inspect",
        "--table",
        "--json",
        "-o",
        "uuid,type,time,version",
        v4,
        v6,
    ]);
    let rows: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        rows[0],
        serde_json::json!({"uuid": v4, "type": "random", "time": null, "version": 4})
    );
    assert_eq!(rows[1]["time"], "2022-02-22T19:22:22.0000000Z");
    assert_eq!(rows[1]["type"], "time-v6");
    assert_eq!(rows.len(), 2);
}

#[test]
fn table_refuses_bad_input_and_bad_columns() {
    let out = run_with_stdin(
        &["inspect", "--table", "-n"],
        "zz\n017f22e2-79b0-7cc3-98c4-dc0c0c07398f\n",
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "017f22e2-79b0-7cc3-98c4-dc0c0c07398f DCE       time-v7    2022-02-22T19:22:22.000Z\n"
    );
    assert_contains!(
        String::from_utf8(out.stderr).unwrap(),
        "uuidkit: line 1: invalid character 'z' at position 0"
    );
    let e = fails(&["inspect", "-o", "uuid,colour"], 2);
    assert_contains!(e, "invalid value 'colour' for '--output <COLUMNS>'");
    let e = fails(
        &[
            "inspect",
            "--no-headings",
            "017f22e2-79b0-7cc3-98c4-dc0c0c07398f",
        ],
        2,
    );
    assert_contains!(e, "-n/--no-headings applies to the table");
}
