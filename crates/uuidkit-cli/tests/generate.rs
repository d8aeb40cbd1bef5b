//! `uuidkit new`: every kind, every flag, every RFC 9562 vector reachable from the CLI.

use crate::util::*;

const DNS_NAME: &[&str] = &["--namespace", "dns", "--name", "www.example.com"];

fn new(args: &[&str]) -> String {
    let mut v = vec!["new"];
    v.extend_from_slice(args);
    ok(&v)
}

#[test]
fn a4_v5_contract_example() {
    assert_eq!(
        ok(&[
            "new",
            "v5",
            "--namespace",
            "dns",
            "--name",
            "www.example.com"
        ]),
        "2ed6657d-e927-568b-95e1-2665a8aea6a2\n"
    );
}

#[test]
fn a2_v3() {
    let mut args = vec!["v3"];
    args.extend_from_slice(DNS_NAME);
    assert_eq!(new(&args), "5df41881-3aed-3515-88a7-2f4a814cf09e\n");
}

#[test]
fn b2_v8_sha256_is_the_default_hash() {
    let mut args = vec!["v8"];
    args.extend_from_slice(DNS_NAME);
    assert_eq!(new(&args), "5c146b14-3c52-8afd-938a-375d0df1fbf6\n");
    args.extend_from_slice(&["--hash", "sha256"]);
    assert_eq!(new(&args), "5c146b14-3c52-8afd-938a-375d0df1fbf6\n");
}

/// Expected values computed independently with Python's hashlib (leftmost 128 bits,
/// version 8 and variant overwritten, as App. B.2 describes).
#[test]
fn v8_every_hash() {
    for (hash, want) in [
        ("sha512", "94ee4ddb-9f36-8018-9ccf-86a4441691e0"),
        ("sha3-256", "fc506eca-a1f4-8315-87c8-c71449dfd324"),
        ("sha3-512", "83120d41-2935-8110-964c-6bd77c735fbc"),
        ("shake128", "54e7e64f-0dba-8913-8b69-cd3dbf220c7a"),
        ("shake256", "10e1aa77-4f8c-8a0f-be35-354cc01a76ac"),
    ] {
        let mut args = vec!["v8", "--hash", hash];
        args.extend_from_slice(DNS_NAME);
        assert_eq!(new(&args), format!("{want}\n"), "{hash}");
    }
}

/// Python's uuid module gives the same values (namespaces other than DNS, custom namespace).
#[test]
fn name_based_other_namespaces() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["v5", "--namespace", "url", "--name", "https://example.com/"],
            "dd2c1780-811a-5296-81c5-178a0ef488bc",
        ),
        (
            &["v3", "--namespace", "@oid", "--name", "1.3.6.1"],
            "dd1a1cef-13d5-368a-ad82-eca71acd4cd1",
        ),
        (
            &["v5", "--namespace", "X500", "--name", "cn=x"],
            "a951fb6d-5aab-5a72-8e2e-9aa8df8d1f8f",
        ),
        (
            &[
                "v5",
                "--namespace",
                "f81d4fae-7dec-11d0-a765-00a0c91e6bf6",
                "--name",
                "hello",
            ],
            "86fdd67e-cdb6-5f98-b399-8d79f97b627a",
        ),
        (
            &[
                "v5",
                "--namespace",
                "{F81D4FAE-7DEC-11D0-A765-00A0C91E6BF6}",
                "--name",
                "hello",
            ],
            "86fdd67e-cdb6-5f98-b399-8d79f97b627a",
        ),
        (
            &["v5", "--namespace", "dns", "--name-hex", "00ff10"],
            "8471d115-cf8a-5c2b-8249-e9ca89efa659",
        ),
        (
            &[
                "v5",
                "--namespace",
                "dns",
                "--name-hex",
                "0x7777772e6578616d706c652e636f6d",
            ],
            "2ed6657d-e927-568b-95e1-2665a8aea6a2",
        ),
    ];
    for (args, want) in cases {
        assert_eq!(new(args), format!("{want}\n"), "{args:?}");
    }
}

#[test]
fn a1_v1_contract_example() {
    assert_eq!(
        ok(&[
            "new",
            "v1",
            "--at",
            "2022-02-22T19:22:22Z",
            "--clock-seq",
            "0x33c8",
            "--node",
            "9f:6b:de:ce:d8:46"
        ]),
        "c232ab00-9414-11ec-b3c8-9f6bdeced846\n"
    );
}

#[test]
fn a5_v6_contract_example() {
    assert_eq!(
        ok(&[
            "new",
            "v6",
            "--at",
            "2022-02-22T19:22:22Z",
            "--clock-seq",
            "0x33c8",
            "--node",
            "9f:6b:de:ce:d8:46"
        ]),
        "1ec9414c-232a-6b00-b3c8-9f6bdeced846\n"
    );
}

#[test]
fn v1_v6_at_other_spellings_of_the_same_time() {
    // An offset, @unix-ms, decimal clock sequence, dash-separated and bare MACs.
    let out = new(&[
        "v1",
        "--at",
        "2022-02-22T14:22:22-05:00",
        "--clock-seq",
        "13256",
        "--node",
        "9F-6B-DE-CE-D8-46",
    ]);
    assert_eq!(out, "c232ab00-9414-11ec-b3c8-9f6bdeced846\n");
    let out = new(&[
        "v6",
        "--at",
        "@1645557742000",
        "--clock-seq",
        "0x33C8",
        "--node",
        "9f6bdeced846",
    ]);
    assert_eq!(out, "1ec9414c-232a-6b00-b3c8-9f6bdeced846\n");
}

#[test]
fn v1_at_fixed_time_counts_100ns_ticks() {
    let out = new(&[
        "v1",
        "--at",
        "2022-02-22T19:22:22Z",
        "--clock-seq",
        "0x33c8",
        "--node",
        "9f:6b:de:ce:d8:46",
        "-n",
        "3",
    ]);
    assert_eq!(
        lines(&out),
        [
            "c232ab00-9414-11ec-b3c8-9f6bdeced846",
            "c232ab01-9414-11ec-b3c8-9f6bdeced846",
            "c232ab02-9414-11ec-b3c8-9f6bdeced846"
        ]
    );
}

#[test]
fn v1_at_the_gregorian_epoch() {
    let out = new(&[
        "v1",
        "--at",
        "1582-10-15T00:00:00Z",
        "--clock-seq",
        "0",
        "--node",
        "00:00:00:00:00:00",
    ]);
    assert_eq!(out, "00000000-0000-1000-8000-000000000000\n");
}

#[test]
fn v1_v6_default_node_is_random_with_multicast_bit() {
    for kind in ["v1", "v6"] {
        for extra in [
            &[][..],
            &["--node", "random"],
            &["--at", "2022-02-22T19:22:22Z"],
        ] {
            let mut args = vec![kind, "-n", "20"];
            args.extend_from_slice(extra);
            for l in lines(&new(&args)) {
                let want = if kind == "v1" { 1 } else { 6 };
                assert_eq!(version_variant(l), (want, 0b10), "{l}");
                let node = bits(l) & 0xffff_ffff_ffff;
                assert_eq!(
                    node >> 40 & 1,
                    1,
                    "multicast bit clear in {l} ({kind} {extra:?})"
                );
            }
        }
    }
}

#[test]
fn v1_with_mac_keeps_it_and_clock_seq() {
    let out = new(&[
        "v1",
        "-n",
        "50",
        "--node",
        "02:00:5e:10:00:01",
        "--clock-seq",
        "7",
    ]);
    let ls = lines(&out);
    assert_eq!(ls.len(), 50);
    for l in &ls {
        assert!(l.ends_with("-8007-02005e100001"), "{l}");
    }
    let mut sorted = ls.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), 50, "duplicates");
}

#[test]
fn v6_is_time_ordered() {
    let out = new(&["v6", "-n", "1000"]);
    let ls = lines(&out);
    // v6 orders by timestamp first: the 60-bit time in the top bits.
    let ts: Vec<u128> = ls.iter().map(|l| bits(l) >> 64).collect();
    assert!(
        ts.windows(2).all(|w| w[0] < w[1]),
        "v6 timestamps not increasing"
    );
}

#[test]
fn v4_shape() {
    let out = new(&["v4", "-n", "1000"]);
    let ls = lines(&out);
    assert_eq!(ls.len(), 1000);
    for l in &ls {
        assert!(is_canonical(l), "{l}");
        assert_eq!(version_variant(l), (4, 0b10), "{l}");
    }
    let mut u = ls.clone();
    u.sort();
    u.dedup();
    assert_eq!(u.len(), 1000);
}

#[test]
fn v7_sorted_unique_and_now() {
    let before = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis();
    let out = new(&["v7", "-n", "100000"]);
    let ls = lines(&out);
    assert_eq!(ls.len(), 100_000);
    assert!(
        ls.windows(2).all(|w| w[0] < w[1]),
        "not strictly increasing"
    );
    for l in [ls[0], ls[99_999]] {
        assert_eq!(version_variant(l), (7, 0b10));
    }
    let ms = bits(ls[0]) >> 80;
    assert!(
        ms + 1 >= before && ms < before + 60_000,
        "timestamp {ms} far from {before}"
    );
}

#[test]
fn v7_every_method_is_sorted() {
    for m in ["counter", "random", "submillis", "1", "2", "3"] {
        let out = new(&["v7", "--method", m, "-n", "20000"]);
        let ls = lines(&out);
        assert_eq!(ls.len(), 20_000);
        assert!(
            ls.windows(2).all(|w| w[0] < w[1]),
            "method {m} not increasing"
        );
        assert!(ls.iter().all(|l| version_variant(l) == (7, 0b10)));
    }
}

#[test]
fn a6_v7_at_given_time() {
    for at in [
        "2022-02-22T19:22:22Z",
        "@1645557742000",
        "2022-02-22T19:22:22.000999Z",
    ] {
        let out = new(&["v7", "--at", at, "-n", "100"]);
        let ls = lines(&out);
        assert!(ls.windows(2).all(|w| w[0] < w[1]));
        for l in &ls {
            assert!(l.starts_with("017f22e2-79b0-7"), "{at}: {l}");
        }
    }
}

#[test]
fn b1_v8_time_based_layout() {
    // App. B.1: 2022-02-22T19:22:22Z as 10-ns units (0x2489E9AD2EE2E00), low 60 bits,
    // custom_a = top 48, custom_b = next 12; custom_c random.
    let out = new(&["v8", "--at", "2022-02-22T19:22:22Z"]);
    assert!(out.starts_with("2489e9ad-2ee2-8e00-"), "{out}");
    assert_eq!(version_variant(out.trim()), (8, 0b10));
    let out = new(&["v8", "-n", "100"]);
    let ls = lines(&out);
    assert!(
        ls.windows(2).all(|w| w[0] < w[1]),
        "time-based v8 not increasing"
    );
}

#[test]
fn nil_and_max() {
    assert_eq!(new(&["nil"]), "00000000-0000-0000-0000-000000000000\n");
    assert_eq!(new(&["max"]), "ffffffff-ffff-ffff-ffff-ffffffffffff\n");
    assert_eq!(
        new(&["max", "-f", "simple", "-U"]),
        "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF\n"
    );
}

#[test]
fn formats_and_case() {
    let mut base = vec!["v5"];
    base.extend_from_slice(DNS_NAME);
    for (f, want) in [
        ("canonical", "2ed6657d-e927-568b-95e1-2665a8aea6a2"),
        ("hyphenated", "2ed6657d-e927-568b-95e1-2665a8aea6a2"),
        ("simple", "2ed6657de927568b95e12665a8aea6a2"),
        ("braced", "{2ed6657d-e927-568b-95e1-2665a8aea6a2}"),
        ("urn", "urn:uuid:2ed6657d-e927-568b-95e1-2665a8aea6a2"),
    ] {
        let mut a = base.clone();
        a.extend_from_slice(&["--format", f]);
        assert_eq!(new(&a), format!("{want}\n"), "{f}");
        a.push("--upper");
        let upper = want.to_uppercase().replace("URN:UUID:", "urn:uuid:");
        assert_eq!(new(&a), format!("{upper}\n"), "{f} upper");
    }
}

#[test]
fn counts() {
    assert_eq!(new(&["v4", "-n", "0"]), "");
    assert_eq!(lines(&new(&["v4", "--count", "7"])).len(), 7);
    assert_eq!(lines(&new(&["v4", "-C", "3"])).len(), 3);
    assert_eq!(lines(&new(&["v7", "-n", "10_000"])).len(), 10_000);
    // Every integer flag takes `+` and `_` alike.
    assert_eq!(lines(&new(&["v4", "-n", "+5"])).len(), 5);
    assert_eq!(lines(&ok(&["-C", "+1_2"])).len(), 12);
    // Name-based: the same UUID, N times.
    let mut a = vec!["v5", "-n", "2"];
    a.extend_from_slice(DNS_NAME);
    assert_eq!(new(&a), "2ed6657d-e927-568b-95e1-2665a8aea6a2\n".repeat(2));
}

#[test]
fn kind_aliases() {
    for (alias, version) in [
        ("4", 4),
        ("uuid4", 4),
        ("random", 4),
        ("7", 7),
        ("uuid7", 7),
        ("time", 1),
    ] {
        let out = new(&[alias]);
        assert_eq!(version_variant(out.trim()).0, version, "{alias}");
    }
    assert_eq!(
        ok(&["gen", "nil"]),
        "00000000-0000-0000-0000-000000000000\n"
    );
    assert_eq!(
        ok(&["generate", "max"]),
        "ffffffff-ffff-ffff-ffff-ffffffffffff\n"
    );
}

#[test]
fn no_arguments_prints_one_v4() {
    let out = ok(&[]);
    let ls = lines(&out);
    assert_eq!(ls.len(), 1);
    assert!(is_canonical(ls[0]));
    assert_eq!(version_variant(ls[0]), (4, 0b10));
}

// ---- bad input of each kind: usage errors, exit 2, nothing on stdout ----

#[test]
fn unknown_kind() {
    let e = fails(&["new", "v9"], 2);
    assert_contains!(e, "invalid value 'v9'");
    assert_contains!(e, "v1, v3, v4, v5, v6, v7, v8, nil, max");
}

#[test]
fn bad_namespace() {
    let e = fails(&["new", "v5", "--namespace", "dnss", "--name", "x"], 2);
    assert_contains!(e, "invalid value 'dnss' for '--namespace <NS>'");
    assert_contains!(
        e,
        "expected dns, url, oid, x500 (optionally prefixed with @) or a UUID, found 'dnss'"
    );
    assert_contains!(
        e,
        "(invalid character 'n' at position 1: expected a hex digit)"
    );
    let e = fails(
        &[
            "new",
            "v5",
            "--namespace",
            "6ba7b810-9dad-11d1-80b4-00c04fd430cg",
            "--name",
            "x",
        ],
        2,
    );
    assert_contains!(
        e,
        "invalid character 'g' at position 35: expected a hex digit"
    );
}

#[test]
fn bad_time() {
    let e = fails(&["new", "v7", "--at", "2022-02-22T19:22:22"], 2);
    assert_contains!(e, "invalid value '2022-02-22T19:22:22' for '--at <TIME>'");
    assert_contains!(e, "no UTC offset");
    let e = fails(&["new", "v7", "--at", "yesterday"], 2);
    assert_contains!(e, "expected RFC 3339 like 2022-02-22T19:22:22Z");
    let e = fails(&["new", "v7", "--at", "@12ab"], 2);
    assert_contains!(e, "expected @ followed by Unix milliseconds");
    let e = fails(&["new", "v7", "--at", "1969-12-31T23:59:59Z"], 2);
    assert_contains!(e, "out of range for v7");
    let e = fails(&["new", "v1", "--at", "1582-10-14T23:59:59Z"], 2);
    assert_contains!(
        e,
        "out of range for v1/v6: it is before its first timestamp; \
         expected 1582-10-15T00:00:00.0000000Z to 5236-03-31T"
    );
}

#[test]
fn bad_node_clock_seq_count_name_hex() {
    let e = fails(&["new", "v1", "--node", "9f:6b:de:ce:d8"], 2);
    assert_contains!(e, "expected `random` or a MAC address");
    let e = fails(&["new", "v1", "--clock-seq", "0x4000"], 2);
    assert_contains!(
        e,
        "expected a 14-bit clock sequence (0 to 16383 = 0x3fff), found 0x4000"
    );
    // A negative count reaches the count's own check (no clap tip about `--`).
    for args in [
        &["new", "v4", "-n", "-1"][..],
        &["-C", "-1"],
        &["new", "v1", "--clock-seq", "-1"],
    ] {
        let e = fails(args, 2);
        assert_contains!(e, "found '-1'");
        assert!(!e.contains("tip:"), "{e}");
    }
    let e = fails(&["new", "v8", "--site-node", "--node-bits", "-5"], 2);
    assert_contains!(e, "expected a node width of 1 to 48 bits, found '-5'");
    let e = fails(&["new", "v4", "-n", "many"], 2);
    assert_contains!(e, "expected a non-negative integer, found 'many'");
    let e = fails(&["new", "v5", "--namespace", "dns", "--name-hex", "abc"], 2);
    assert_contains!(e, "expected an even number of hex digits, found 3");
    let e = fails(
        &[
            "new",
            "v8",
            "--namespace",
            "dns",
            "--name",
            "x",
            "--hash",
            "md4",
        ],
        2,
    );
    assert_contains!(e, "invalid value 'md4' for '--hash <HASH>'");
}

#[test]
fn flags_that_do_not_apply() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["new", "v4", "--name", "x"],
            "--name does not apply to v4: it applies to v3, v5 and name-based v8",
        ),
        (&["new", "v4", "--at", "@0"], "--at does not apply to v4"),
        (
            &["new", "v7", "--node", "random"],
            "--node does not apply to v7: it applies to v1 and v6",
        ),
        (
            &["new", "v1", "--method", "counter"],
            "--method does not apply to v1: it applies to v7",
        ),
        (
            &[
                "new",
                "v5",
                "--hash",
                "sha512",
                "--namespace",
                "dns",
                "--name",
                "x",
            ],
            "--hash does not apply to v5",
        ),
        (
            &["new", "nil", "--state", "/tmp/x"],
            "--state does not apply to nil",
        ),
        (
            &["new", "v5", "--name", "x"],
            "v5 is name-based: it needs --namespace",
        ),
        (
            &["new", "v3", "--namespace", "dns"],
            "v3 is name-based: it needs --name TEXT, --name-hex HEX or --name-file FILE",
        ),
        (
            &["new", "v7", "--at", "@0", "--state", "/tmp/x"],
            "--at and --state cannot be combined",
        ),
    ];
    for (args, msg) in cases {
        let e = fails(args, 2);
        assert_contains!(e, *msg);
        assert!(e.starts_with("uuidkit: error: "), "{e}");
    }
    let e = fails(
        &[
            "new",
            "v5",
            "--namespace",
            "dns",
            "--name",
            "x",
            "--name-hex",
            "00",
        ],
        2,
    );
    assert_contains!(e, "cannot be used with");
}

#[test]
fn v1_at_the_end_of_time() {
    // @103072857660683.6975 is 10 000 ticks before the last 60-bit timestamp (5236-03-31).
    let at = "@103072857660683.6975";
    let fixed = ["--clock-seq", "0", "--node", "00:00:00:00:00:00"];
    let mut args = vec!["new", "v1", "--at", at, "-n", "10001"];
    args.extend_from_slice(&fixed);
    let out = ok(&args);
    assert_eq!(
        out.lines().last(),
        Some("ffffffff-ffff-1fff-8000-000000000000")
    );
    let mut args = vec!["new", "v1", "--at", at, "-n", "10002"];
    args.extend_from_slice(&fixed);
    let e = fails(&args, 2);
    assert_contains!(e, "runs past the end of the 60-bit v1/v6 timestamp");
    assert_contains!(e, "expected at most 10001");
}

/// Names are data: `--name`/`-N` take the next argument whatever it is, and
/// `--name-file` hashes a file's (or stdin's) bytes as they are.
#[test]
fn names_starting_with_a_dash_and_names_from_files() {
    let dns = uuidkit::namespace::DNS;
    for name in ["-foo", "--", "-n", "--name=x"] {
        let want = uuidkit::Uuid::new_v5(&dns, name.as_bytes()).to_string();
        assert_eq!(
            new(&["v5", "--namespace", "dns", "--name", name]).trim(),
            want,
            "{name}"
        );
        assert_eq!(
            ok(&["-s", "-n", "@dns", "-N", name]).trim(),
            want,
            "-N {name}"
        );
    }
    let bytes: &[u8] = b"line 1\nline 2\n\x00\xff not UTF-8, no trailing newline";
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("name");
    std::fs::write(&file, bytes).unwrap();
    for (kind, want) in [
        ("v3", uuidkit::Uuid::new_v3(&dns, bytes)),
        ("v5", uuidkit::Uuid::new_v5(&dns, bytes)),
        (
            "v8",
            uuidkit::Uuid::new_v8_name(uuidkit::NameHash::Sha256, &dns, bytes),
        ),
    ] {
        let by_file = new(&[
            kind,
            "--namespace",
            "dns",
            "--name-file",
            file.to_str().unwrap(),
        ]);
        assert_eq!(by_file.trim(), want.to_string(), "{kind}");
        let by_stdin = uk(&["new", kind, "--namespace", "dns", "--name-file", "-"])
            .write_stdin(bytes)
            .output()
            .unwrap();
        assert_success(&by_stdin, &[kind, "--name-file", "-"]);
        assert_eq!(
            String::from_utf8(by_stdin.stdout).unwrap().trim(),
            want.to_string()
        );
    }
    let missing = dir.path().join("missing");
    let err = fails(
        &[
            "new",
            "v5",
            "--namespace",
            "dns",
            "--name-file",
            missing.to_str().unwrap(),
        ],
        1,
    );
    assert_eq!(
        err,
        format!(
            "uuidkit: error: --name-file {}: cannot read it: No such file or directory (os error 2)\n",
            missing.display()
        )
    );
    let err = fails(
        &[
            "new",
            "v5",
            "--namespace",
            "dns",
            "--name",
            "a",
            "--name-file",
            "-",
        ],
        2,
    );
    assert_contains!(err, "cannot be used with");
    let err = fails(&["new", "v4", "--name-file", "-"], 2);
    assert_contains!(err, "--name-file does not apply to v4");
}
