//! `uuidkit check`: exit codes, positioned errors with line numbers and carets.

use crate::util::*;

#[test]
fn all_valid_exits_0_silently() {
    let out = ok(&[
        "check",
        "f81d4fae-7dec-11d0-a765-00a0c91e6bf6",
        "F81D4FAE7DEC11D0A76500A0C91E6BF6",
        "{f81d4fae-7dec-11d0-a765-00a0c91e6bf6}",
        "URN:UUID:f81d4fae-7dec-11d0-a765-00a0c91e6bf6",
        "00000000-0000-0000-0000-000000000000",
    ]);
    assert_eq!(out, "");
    let out = run_with_stdin(
        &["check"],
        "f81d4fae-7dec-11d0-a765-00a0c91e6bf6\r\n\n017f22e2-79b0-7cc3-98c4-dc0c0c07398f\n",
    );
    assert_success(&out, &["check", "<stdin>"]);
    assert!(out.stdout.is_empty());
}

#[test]
fn bad_character_with_line_number_and_caret() {
    let input = "f81d4fae-7dec-11d0-a765-00a0c91e6bf6\n\nf81d4fae-gdec-11d0-a765-00a0c91e6bf6\n";
    let out = run_with_stdin(&["check"], input);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "line 3: invalid character 'g' at position 9: expected a hex digit\n\
         \x20   f81d4fae-gdec-11d0-a765-00a0c91e6bf6\n\
         \x20            ^\n"
    );
    assert!(out.stderr.is_empty());
}

#[test]
fn wrong_length_and_groups() {
    let out = uk(&[
        "check",
        "f81d4fae-7dec-11d0-a765-00a0c91e6bf",
        "abc",
        "f81d4fae-7dec-11d0-a765-00a0c91e6bf6",
        "f81d4fae7-dec-11d0-a765-00a0c91e6bf6",
    ])
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert_contains!(text, "argument 1: group 5 has 11 digits: expected 12");
    assert_contains!(
        text,
        "argument 2: invalid length 3: expected 36 (hyphenated), 32, 38 or 45\n    abc\n"
    );
    assert!(!text.contains("argument 3"), "{text}");
    assert_contains!(text, "argument 4: ");
}

#[test]
fn strict_accepts_only_the_rfc_form() {
    assert_eq!(
        ok(&["check", "--strict", "F81D4FAE-7DEC-11d0-a765-00a0c91e6bf6"]),
        ""
    );
    for bad in [
        "f81d4fae7dec11d0a76500a0c91e6bf6",
        "{f81d4fae-7dec-11d0-a765-00a0c91e6bf6}",
        "urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6",
    ] {
        let out = uk(&["check", "--strict", bad]).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{bad}");
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(text.starts_with("argument 1: "), "{text}");
        // Lenient accepts them.
        assert_eq!(ok(&["check", bad]), "");
    }
}

#[test]
fn control_characters_and_spaces_are_shown_and_pointed_at() {
    let out = run_with_stdin(
        &["check"],
        " f81d4fae-7dec-11d0-a765-00a0c91e6bf6\nf81d4fae-7dec-11d0-a765-00a0c91e6b\tf\n",
    );
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert_contains!(
        text,
        "line 1: invalid character ' ' at position 0: expected a hex digit\n     f81d4fae-7dec-11d0-a765-00a0c91e6bf6\n    ^\n"
    );
    assert_contains!(
        text,
        "line 2: invalid character '\\t' at position 34: expected a hex digit\n    f81d4fae-7dec-11d0-a765-00a0c91e6b\\tf\n"
    );
    assert_contains!(text, &format!("\n{}^\n", " ".repeat(4 + 34)));
}

#[test]
fn quiet_prints_nothing() {
    let out = uk(&["check", "-q", "nope"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty() && out.stderr.is_empty());
}

#[test]
fn non_utf8_input_is_an_error_not_a_panic() {
    let out = uk(&["check"])
        .write_stdin(&b"f81d4fae-7dec-11d0-a765-00a0c91e6b\xff6\n"[..])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert_contains!(text, "line 1: invalid byte 0xff at position 34");
    assert!(out.stderr.is_empty());
}

/// Bytes that are not UTF-8 are invalid input (exit 1, reported with the
/// bytes shown as `\xff`), the same as an argument and as a line of stdin,
/// for every command that reads UUIDs.
#[test]
fn non_utf8_is_invalid_input_as_argument_and_on_stdin() {
    use std::os::unix::ffi::OsStrExt;
    let arg = std::ffi::OsStr::from_bytes(b"ab\xffc");
    for cmd in ["check", "inspect", "convert"] {
        let by_arg = std::process::Command::new(bin())
            .arg(cmd)
            .arg(arg)
            .output()
            .unwrap();
        let by_stdin = uk(&[cmd]).write_stdin(&b"ab\xffc\n"[..]).output().unwrap();
        for (out, label) in [(&by_arg, "argument 1"), (&by_stdin, "line 1")] {
            assert_eq!(out.status.code(), Some(1), "{cmd} {label}: {out:?}");
            let text = String::from_utf8([&out.stdout[..], &out.stderr[..]].concat()).unwrap();
            assert_contains!(
                text,
                format!("{label}: invalid byte 0xff at position 2: expected a hex digit")
            );
            assert_contains!(text, "ab\\xffc");
        }
    }
}

/// Messages that quote what the user typed show invisible characters
/// escaped, in usage errors as in reports: a bidirectional override, a
/// zero-width space or an escape sequence cannot disguise the text.
#[test]
fn usage_errors_escape_what_would_not_show() {
    let cases: [(&[&str], &str); 4] = [
        (&["new", "v1", "--node", "ab\u{202e}c"], "ab\\u{202e}c"),
        (
            &["new", "v5", "--namespace", "x\u{200b}y", "--name", "a"],
            "x\\u{200b}y",
        ),
        (
            &["new", "v7", "--at", "2024\u{202e}-01-01"],
            "2024\\u{202e}-01-01",
        ),
        (&["new", "v1", "--clock-seq", "1\u{1b}[31m"], "1\\u{1b}[31m"),
    ];
    for (args, escaped) in cases {
        let err = fails(args, 2);
        assert!(
            !err.chars()
                .any(|c| matches!(c, '\u{202e}' | '\u{200b}' | '\u{1b}')),
            "{args:?}: {err:?}"
        );
        assert_contains!(err, format!("'{escaped}'"));
    }
    // And through check --strict, a broken braced form is not asked for '}'.
    let out = uk(&["check", "--strict", "{017f22e2-79b0-7cc3-98c4-dc0c0c07398f"])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "argument 1: invalid character '{' at position 0: expected a hex digit\n    \
         {017f22e2-79b0-7cc3-98c4-dc0c0c07398f\n    ^\n"
    );
    let out = uk(&["check", "--", "-"]).output().unwrap();
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "argument 1: invalid length 1: expected 36 (hyphenated), 32, 38 or 45\n    -\n"
    );
    let e = fails(&["new", "v1", "--clock-seq", "0x+5"], 2);
    assert_contains!(
        e,
        "expected a clock sequence as a decimal or 0x-hex number, found '0x+5'"
    );
}
