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
