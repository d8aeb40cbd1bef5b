//! `new snowflake` and `inspect --layout`: 64-bit IDs as decimal integers.

use crate::util::{fails, lines, ok, run_with_stdin};

fn ids(args: &[&str]) -> Vec<u64> {
    lines(&ok(args))
        .iter()
        .map(|l| l.parse().expect("a decimal ID"))
        .collect()
}

#[test]
fn new_snowflake_prints_increasing_ids_carrying_the_worker() {
    let v = ids(&[
        "new",
        "snowflake",
        "--layout",
        "twitter",
        "--node",
        "37",
        "-n",
        "10000",
    ]);
    assert_eq!(v.len(), 10_000);
    assert!(v.windows(2).all(|w| w[0] < w[1]));
    assert!(v.iter().all(|id| (id >> 12) & 1023 == 37 && id >> 63 == 0));
    // Sonyflake: the machine ID is the low 16 bits.
    let v = ids(&[
        "new",
        "sf",
        "--layout",
        "sonyflake",
        "--node",
        "0xBEEF",
        "-n",
        "300",
    ]);
    assert!(v.iter().all(|id| id & 0xFFFF == 0xBEEF));
    assert!(v.windows(2).all(|w| w[0] < w[1]));
}

#[test]
fn a_state_file_keeps_the_last_tick_across_runs() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    let s = state.to_str().unwrap();
    let a = ids(&[
        "new",
        "snowflake",
        "--layout",
        "discord",
        "--node",
        "3",
        "--state",
        s,
        "-n",
        "5000",
    ]);
    let b = ids(&[
        "new",
        "snowflake",
        "--layout",
        "discord",
        "--node",
        "3",
        "--state",
        s,
        "-n",
        "5000",
    ]);
    assert!(
        b[0] > *a.last().unwrap(),
        "the second run continues above the first"
    );
    let text = std::fs::read_to_string(&state).unwrap();
    assert!(
        text.contains("\nsnowflake t42.w10.s12.e1420070400000.u1ms 3 "),
        "{text}"
    );
}

#[test]
fn inspect_describes_an_id_of_a_layout() {
    let out = ok(&["inspect", "--layout", "twitter", "1724551110456397824"]);
    assert_eq!(
        out,
        "id:        1724551110456397824\n\
         layout:    twitter (41 time, 10 worker, 12 sequence bits)\n\
         time:      2023-11-14T22:13:20.000Z\n\
         tick:      411165025343\n\
         worker:    37 (datacenter 1, worker 5)\n\
         sequence:  0\n"
    );
    let out = run_with_stdin(&["inspect", "--layout", "sonyflake", "--json"], "1\n12x\n");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "{\"id\":\"1\",\"layout\":\"sonyflake\",\"time\":\"2014-09-01T00:00:00.000Z\",\
         \"unix_ms\":1409529600000,\"tick\":\"0\",\"worker\":1,\"sequence\":0}\n"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("line 2: expected a decimal integer"));
}

#[test]
fn bad_input_is_a_usage_error_that_says_what_is_wrong() {
    let new = |rest: &[&'static str]| [&["new", "snowflake"][..], rest].concat();
    let cases: &[(&[&str], i32, &str)] = &[
        (&["--layout", "twitter"], 2, "snowflake needs a worker"),
        (
            &["--layout", "t41.w10.s14.e0.u1ms", "--node", "1"],
            2,
            "adding up to 63 or 64, found 65",
        ),
        (
            &["--layout", "instagram", "--node", "8192"],
            2,
            "0 to 8191 (13 bits), found 8192",
        ),
        (
            &[
                "--layout", "twitter", "--node", "1", "--strict", "--state", "/tmp/x",
            ],
            2,
            "always strict",
        ),
        (
            &[
                "--layout",
                "twitter",
                "--node",
                "1",
                "--state",
                "/nonexistent-us-dir/s",
            ],
            1,
            "--state /nonexistent-us-dir/s",
        ),
    ];
    for (args, code, want) in cases {
        let e = fails(&new(args), *code);
        assert!(e.contains(want), "{args:?}: {e}");
    }
}
