//! Times: every kind checks `--at` against its own range and says which end
//! was crossed; every time the tool prints (1582 to 10889) can be given back
//! to `--at` and `range`.

use crate::util::*;

/// The `time` (or v8's `b1_time`) that `inspect --json` prints for `u`.
fn printed_time(u: &str) -> String {
    let out = ok(&["inspect", "--json", u]);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    let t = if v["version"] == 8 {
        &v["b1_time"]
    } else {
        &v["time"]
    };
    t.as_str().unwrap().to_string()
}

#[test]
fn every_kind_takes_back_the_times_it_prints_up_to_its_last() {
    let cases = [
        ("v7", "ffffffff-ffff-7fff-bfff-ffffffffffff"), // 10889, the last v7 millisecond
        ("v7", "ddc48e6e-8000-7000-8000-000000000000"), // after 2554: past u64 nanoseconds
        ("v7", "e8d4a510-0000-7000-8000-000000000000"), // the year 10000 and on
        ("v1", "ffffffff-ffff-1fff-a12e-c1e0d3d3cc20"), // 5236, the last 100 ns
        ("v6", "00000000-0000-6000-8000-000000000000"), // 1582, the first
        ("v8", "ffffffff-ffff-8fff-8dc3-96696db25ffd"), // 2335, the last 10 ns
    ];
    for (kind, u) in cases {
        let t = printed_time(u);
        let again = ok(&["new", kind, "--at", &t, "-n", "1"]);
        assert_eq!(printed_time(again.trim()), t, "{kind} --at {t}");
    }
    // range takes them too, up to the last v7 millisecond.
    let t = printed_time("ffffffff-ffff-7fff-bfff-ffffffffffff");
    let out = ok(&["range", &t, &t]);
    assert_eq!(
        lines(&out),
        [
            "ffffffff-ffff-7000-8000-000000000000",
            "ffffffff-ffff-7fff-bfff-ffffffffffff"
        ]
    );
}

#[test]
fn v7_at_after_2554_keeps_its_time_and_order() {
    let out = ok(&[
        "new",
        "v7",
        "--at",
        "2600-01-01T00:00:00.123Z",
        "-n",
        "1000",
    ]);
    let ls = lines(&out);
    assert!(ls.windows(2).all(|w| w[0] < w[1]));
    assert!(
        ls.iter()
            .all(|l| (bits(l) >> 80) as u64 == 19_880_899_200_123),
        "{}",
        ls[0]
    );
    for method in ["counter", "random", "submillis"] {
        let one = ok(&[
            "new",
            "v7",
            "--method",
            method,
            "--at",
            "10889-08-02T05:31:50.655999Z",
        ]);
        assert_eq!(bits(one.trim()) >> 80, (1 << 48) - 1, "{method}");
    }
}

#[test]
fn v8_at_after_its_end_is_refused_not_wrapped() {
    let err = fails(&["new", "v8", "--at", "2336-01-01T00:00:00Z"], 2);
    assert_eq!(
        err,
        "uuidkit: error: invalid value for --at: time 2336-01-01T00:00:00.00000000Z is out of range \
         for v8 (time-based): it is after its last timestamp; expected 1970-01-01T00:00:00.00000000Z \
         to 2335-05-07T23:44:06.06846975Z\n"
    );
    // 2335 itself is fine, and stays 2335.
    let u = ok(&["new", "v8", "--at", "2335-01-01T00:00:00Z"]);
    assert_eq!(printed_time(u.trim()), "2335-01-01T00:00:00.00000000Z");
}

#[test]
fn out_of_range_says_which_end_for_every_kind() {
    let cases = [
        ("v7", "1969-12-31T23:59:59Z", "v7: it is before its first"),
        (
            "v7",
            "10889-08-02T05:31:50.656Z",
            "v7: it is after its last",
        ),
        (
            "v8",
            "1969-12-31T23:59:59Z",
            "v8 (time-based): it is before its first",
        ),
        (
            "v1",
            "1582-10-14T23:59:59Z",
            "v1/v6: it is before its first",
        ),
        ("v6", "5236-04-01T00:00:00Z", "v1/v6: it is after its last"),
    ];
    for (kind, at, says) in cases {
        let err = fails(&["new", kind, "--at", at], 2);
        assert_contains!(
            err,
            format!("is out of range for {says} timestamp; expected ")
        );
    }
    let err = fails(&["range", "2024-01-01", "10889-08-03T00:00:00Z"], 2);
    assert_contains!(
        err,
        "invalid END: time 10889-08-03T00:00:00.000Z is out of range for v7: it is after its last"
    );
}
