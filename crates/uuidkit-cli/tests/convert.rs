//! `uuidkit convert`: v1 ↔ v6 (RFC 9562 A.1 ↔ A.5) and text forms, streaming.

use crate::util::*;

const A1: &str = "c232ab00-9414-11ec-b3c8-9f6bdeced846";
const A5: &str = "1ec9414c-232a-6b00-b3c8-9f6bdeced846";

#[test]
fn a1_to_a5_and_back() {
    assert_eq!(ok(&["convert", "--to", "v6", A1]), format!("{A5}\n"));
    assert_eq!(ok(&["convert", "--to", "v1", A5]), format!("{A1}\n"));
    // Already there: unchanged.
    assert_eq!(ok(&["convert", "--to", "v6", A5]), format!("{A5}\n"));
    assert_eq!(ok(&["convert", "--to", "1", A1]), format!("{A1}\n"));
}

#[test]
fn text_forms_only() {
    assert_eq!(
        ok(&[
            "convert",
            "--format",
            "urn",
            "--upper",
            "{C232AB00-9414-11EC-B3C8-9F6BDECED846}"
        ]),
        "urn:uuid:C232AB00-9414-11EC-B3C8-9F6BDECED846\n"
    );
    assert_eq!(
        ok(&["convert", "-f", "simple", A1]),
        "c232ab00941411ecb3c89f6bdeced846\n"
    );
    assert_eq!(
        ok(&["convert", "-f", "braced", "--to", "v6", A1]),
        format!("{{{A5}}}\n")
    );
}

#[test]
fn to_takes_a_text_form_as_f_does() {
    // RFC 9562 A.1 in each short form (computed independently, in Python), written
    // by --to and by -f alike.
    for (form, text) in [
        ("base32", "626ANG150M27PB7J4ZDFFCXP26"),
        ("base58", "Qys2KsgsAKw9ZKupo76FCh"),
        ("base64url", "wjKrAJQUEeyzyJ9r3s7YRg"),
        ("simple", "c232ab00941411ecb3c89f6bdeced846"),
    ] {
        let want = format!("{text}\n");
        assert_eq!(ok(&["convert", "--to", form, A1]), want, "{form}");
        assert_eq!(ok(&["convert", "-f", form, A1]), want, "{form}");
        assert_eq!(
            ok(&["convert", "--to", form, "-f", form, A1]),
            want,
            "{form}"
        );
        // And back, from that form.
        assert_eq!(ok(&["convert", "--from", form, text]), format!("{A1}\n"));
    }
    assert_eq!(
        ok(&["convert", "--to", "typeid", "--prefix", "user", A1]),
        "user_626ang150m27pb7j4zdffcxp26\n"
    );
    // A version and a form together: convert, then write.
    let a5_base32 = ok(&["convert", "-f", "base32", A5]);
    assert_eq!(
        ok(&["convert", "--to", "v6", "-f", "base32", A1]),
        a5_base32
    );
    let e = fails(&["convert", "--to", "base58", "-f", "simple", A1], 2);
    assert_contains!(e, "--to base58 and -f simple name two output forms");
    let e = fails(&["convert", "--to", "base58", "--prefix", "user", A1], 2);
    assert_contains!(e, "--prefix applies to -f typeid only");
}

#[test]
fn streams_stdin_line_by_line() {
    let input: String = (0..5000).map(|_| format!("{A1}\n")).collect();
    let out = run_with_stdin(&["convert", "--to", "v6"], &input);
    assert_success(&out, &["convert"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text, format!("{A5}\n").repeat(5000));
}

#[test]
fn other_versions_and_bad_lines_are_reported_and_skipped() {
    let input = format!("{A1}\n919108f7-52d1-4320-9bac-f847db4148a8\nzzz\n{A5}\n");
    let out = run_with_stdin(&["convert", "--to", "v6"], &input);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        format!("{A5}\n{A5}\n")
    );
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(
        err,
        "uuidkit: line 2: cannot convert a version 4 UUID: expected version 1 or 6 \
         (input '919108f7-52d1-4320-9bac-f847db4148a8')\n\
         uuidkit: line 3: invalid character 'z' at position 0: expected a hex digit (input 'zzz')\n"
    );
    let e = fails(
        &[
            "convert",
            "--to",
            "v1",
            "00000000-0000-0000-0000-000000000000",
        ],
        1,
    );
    assert_contains!(e, "argument 1: cannot convert a UUID of another variant");
    let e = fails(&["convert", "--to", "v7", A1], 2);
    assert_contains!(e, "invalid value 'v7'");
}

#[test]
fn figure_1_to_figure_4_urn() {
    // RFC 9562 Figures 1 and 4: the same UUID, hyphenated and as a URN.
    assert_eq!(
        ok(&[
            "convert",
            "-f",
            "urn",
            "f81d4fae-7dec-11d0-a765-00a0c91e6bf6"
        ]),
        "urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6\n"
    );
    assert_eq!(
        ok(&["convert", "urn:uuid:F81D4FAE-7DEC-11D0-A765-00A0C91E6BF6"]),
        "f81d4fae-7dec-11d0-a765-00a0c91e6bf6\n"
    );
}

/// Writes to stderr (fd 2) that `uuidkit ARGS…` makes with `stdin`, counted
/// by `strace`, with the process's stderr.
fn stderr_writes(test: &str, args: &[&str], stdin: &[u8]) -> Option<(usize, String)> {
    if !test_support::require(test, test_support::command("strace", &["-V"])) {
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let (input, trace) = (dir.path().join("in"), dir.path().join("trace"));
    std::fs::write(&input, stdin).unwrap();
    let out = std::process::Command::new("strace")
        .args(["-f", "-e", "trace=write", "-o"])
        .arg(&trace)
        .arg(bin())
        .args(args)
        .stdin(std::fs::File::open(&input).unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let trace = std::fs::read_to_string(&trace).unwrap();
    let writes = trace.lines().filter(|l| l.contains(" write(2,")).count();
    Some((writes, String::from_utf8(out.stderr).unwrap()))
}

/// Rejections are buffered: thousands of bad lines take a handful of writes,
/// not one (or one per character) each; and a huge bad line is echoed in part,
/// with its length.
#[test]
fn rejections_are_buffered_and_long_inputs_cut() {
    let many = "bad\n".repeat(5_000);
    for cmd in ["convert", "inspect"] {
        let Some((writes, err)) = stderr_writes(
            "rejections_are_buffered_and_long_inputs_cut",
            &[cmd],
            many.as_bytes(),
        ) else {
            return;
        };
        assert_eq!(err.lines().count(), 5_000);
        assert!(writes <= 10, "{cmd}: {writes} writes for 5000 reports");
        let huge = format!("{}\n", "a".repeat(1_000_000));
        let (writes, err) = stderr_writes(
            "rejections_are_buffered_and_long_inputs_cut",
            &[cmd],
            huge.as_bytes(),
        )
        .unwrap();
        assert_eq!(writes, 1, "{cmd}");
        assert_eq!(
            err,
            format!(
                "uuidkit: line 1: too long: expected at most 1024 bytes (no text form of a UUID \
                 has more than 90), found 1000000 bytes (input '{}…', 1000000 bytes)\n",
                "a".repeat(80)
            )
        );
    }
}

/// Order is kept between good output and reports of bad lines.
#[test]
fn rejections_keep_their_place_among_outputs() {
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg("printf 'bad1\\nc232ab00-9414-11ec-b3c8-9f6bdeced846\\nbad3\\n' | \"$0\" convert --to v6 2>&1")
        .arg(bin())
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "uuidkit: line 1: invalid length 4: expected 36 (hyphenated), 32, 38 or 45 (input 'bad1')\n\
         1ec9414c-232a-6b00-b3c8-9f6bdeced846\n\
         uuidkit: line 3: invalid length 4: expected 36 (hyphenated), 32, 38 or 45 (input 'bad3')\n"
    );
}

/// Invisible characters in echoed input are escaped: controls, bidirectional
/// overrides, zero-width characters, the byte-order mark.
#[test]
fn echoed_input_escapes_what_would_not_show() {
    let input = "a\u{202e}b\u{200b}c\u{feff}d\u{1b}[31m\te\n";
    for cmd in ["convert", "inspect"] {
        let out = run_with_stdin(&[cmd], input);
        let err = String::from_utf8(out.stderr).unwrap();
        assert_contains!(
            err,
            "(input 'a\\u{202e}b\\u{200b}c\\u{feff}d\\u{1b}[31m\\te')"
        );
    }
    let out = run_with_stdin(&["check"], input);
    let text = String::from_utf8(out.stdout).unwrap();
    assert_contains!(
        text,
        "\n    a\\u{202e}b\\u{200b}c\\u{feff}d\\u{1b}[31m\\te\n"
    );
}

/// One base64url text in 64 begins with `-`: as a positional argument it
/// is a value, after other flags or before them, as every command reads it.
#[test]
fn values_that_begin_with_a_hyphen_are_values() {
    let text = "-B1Prn3sEdCnZQCgyR5r9g";
    let want = ok(&["convert", "--from", "base64url", "--", text]);
    assert_eq!(want.len(), 37);
    assert_eq!(ok(&["convert", "--from", "base64url", text]), want);
    assert_eq!(
        ok(&["convert", "--from", "base64url", text, "-f", "base64url"]),
        format!("{text}\n")
    );
    assert_eq!(
        ok(&["convert", "--from", "base64url", text, "-U"]),
        want.to_uppercase()
    );
    // Values keep their order, wherever the flags stand among them.
    let other = "AYkKXayWd0u8zrMCCZqAVw";
    let both = ok(&[
        "convert",
        other,
        "--from",
        "base64url",
        text,
        "-f",
        "simple",
        "--",
        other,
    ]);
    let simple = |t: &str| ok(&["convert", "--from", "base64url", "-f", "simple", "--", t]);
    assert_eq!(
        both,
        format!("{}{}", simple(other), simple(text)) + &simple(other)
    );
    assert_eq!(ok(&["check", "--from", "base64url", text]), "");
    assert_eq!(ok(&["check", "--from", "base64url", "-q", text]), "");
    let described = ok(&["inspect", "--from", "base64url", text, "--json"]);
    assert_contains!(described, want.trim());
    // An unknown flag before any value is still a usage error.
    let e = fails(&["convert", "--bogus", text], 2);
    assert_contains!(e, "--bogus");
}

/// `--to typeid` (or `-f typeid`) without `--prefix` would drop an input
/// TypeID's prefix: that line is refused, naming the prefix; `--prefix` keeps
/// or changes it, and `--prefix=` drops it on purpose.
#[test]
fn a_typeid_prefix_is_never_dropped_unsaid() {
    let id = "user_01h455vb4pex5vsknk084sn02q";
    let out = run_with_stdin(
        &["convert", "--to", "typeid"],
        &format!("{id}\n01h455vb4pex5vsknk084sn02q\n"),
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty(), "{out:?}");
    let err = String::from_utf8(out.stderr).unwrap();
    assert_contains!(
        err,
        "uuidkit: line 1: the input's TypeID prefix 'user' would be dropped: expected --prefix user to keep it, or --prefix= to drop it"
    );
    assert_contains!(err, "line 2: 26 characters");
    assert_eq!(
        ok(&["convert", "--to", "typeid", "--prefix", "user", id]),
        format!("{id}\n")
    );
    assert_eq!(
        ok(&["convert", "-f", "typeid", "--prefix", "post", id]),
        "post_01h455vb4pex5vsknk084sn02q\n"
    );
    assert_eq!(
        ok(&["convert", "--to", "typeid", "--prefix=", id]),
        "01h455vb4pex5vsknk084sn02q\n"
    );
    assert_eq!(
        ok(&[
            "convert",
            "--to",
            "typeid",
            "--from",
            "typeid",
            "01h455vb4pex5vsknk084sn02q"
        ]),
        "01h455vb4pex5vsknk084sn02q\n"
    );
}

/// `-U` with a form that has one case is a usage error, not ignored.
#[test]
fn upper_with_a_caseless_form_is_a_usage_error() {
    for form in ["base32", "base32hex", "base58", "base64url", "typeid"] {
        let e = fails(
            &[
                "convert",
                "-U",
                "-f",
                form,
                "017f22e2-79b0-7cc3-98c4-dc0c0c07398f",
            ],
            2,
        );
        assert_contains!(
            e,
            format!("-U does not apply to -f {form}: it applies to the hex forms")
        );
        let e = fails(&["new", "v4", "-U", "-f", form], 2);
        assert_contains!(e, format!("-U does not apply to -f {form}"));
        let e = fails(&["range", "-U", "-f", form, "2024-01-01", "2024-01-02"], 2);
        assert_contains!(e, format!("-U does not apply to -f {form}"));
    }
}
