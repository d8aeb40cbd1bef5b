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

/// A hex UUID cut to 26 digits is valid base32 more often than not; read
/// without `--from` it is always refused, with a message asking for
/// `--from`, and `convert` prints nothing for it.
#[test]
fn a_hex_uuid_cut_to_26_digits_is_never_read_as_a_uuid() {
    let full = ok(&["new", "v4", "-n", "2000", "-f", "simple"]);
    let cut: String = lines(&full)
        .iter()
        .map(|u| format!("{}\n", &u[..26]))
        .collect();
    let out = run_with_stdin(&["check"], &cut);
    assert_eq!(out.status.code(), Some(1));
    let report = String::from_utf8(out.stdout).unwrap();
    let refused = report
        .lines()
        .filter(|l| {
            l.starts_with("line ")
                && l.contains(": 26 characters without a TypeID prefix: expected a hex UUID")
        })
        .count();
    assert_eq!(refused, 2000, "{}", &report[..report.len().min(2000)]);
    let out = run_with_stdin(&["convert"], &cut);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8(out.stderr).unwrap();
    assert_contains!(err, "--from base32, --from typeid or --from base32hex");
}

/// The ULID specification's example, and uuidkit's own `-f base32` output
/// (upper case), ask for `--from` without it (not a TypeID's lower-case
/// error) and read as ULIDs with `--from base32`.
#[test]
fn a_ulid_asks_for_from_and_reads_with_from_base32() {
    let ulid = "01ARZ3NDEKTSV4RRFFQ69G5FAV";
    let e = fails(&["convert", ulid], 1);
    assert_contains!(e, "26 characters without a TypeID prefix");
    assert!(!e.contains("lower"), "{e}");
    assert_eq!(
        ok(&["convert", "--from", "base32", ulid]),
        "01563e3a-b5d3-d676-4c61-efb99302bd5b\n"
    );
    let own = ok(&["new", "v7", "-f", "base32"]);
    let out = uk(&["check", own.trim_end()]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let report = String::from_utf8(out.stdout).unwrap();
    assert_contains!(report, "argument 1: 26 characters without a TypeID prefix");
    assert!(!report.contains("lower"), "{report}");
    assert_eq!(ok(&["check", "--from", "base32", own.trim_end()]), "");
}

/// What `new -f F` writes, `check --from F` accepts and `convert --from F`
/// reads back as the same UUIDs, for every form (and in upper case where the
/// form has case); a form other than the one named is refused.
#[test]
fn every_form_reads_back_with_the_matching_from() {
    let canonical = ok(&["new", "v7", "-n", "300"]);
    let forms = [
        "canonical",
        "simple",
        "braced",
        "urn",
        "base32",
        "base32hex",
        "base58",
        "base64url",
        "typeid",
    ];
    for (i, form) in forms.iter().enumerate() {
        let cases: &[&[&str]] = if i < 4 { &[&[], &["-U"]] } else { &[&[]] };
        for extra in cases {
            let mut args = vec!["convert", "-f", form];
            args.extend_from_slice(extra);
            let out = run_with_stdin(&args, &canonical);
            assert_success(&out, &args);
            let written = String::from_utf8(out.stdout).unwrap();
            let checked = run_with_stdin(&["check", "--from", form], &written);
            assert_success(&checked, &["check", "--from", form]);
            assert!(checked.stdout.is_empty(), "{form}");
            let back = run_with_stdin(&["convert", "--from", form], &written);
            assert_success(&back, &["convert", "--from", form]);
            assert_eq!(
                String::from_utf8(back.stdout).unwrap(),
                canonical,
                "{form} {extra:?}"
            );
        }
    }
    let e = fails(
        &[
            "convert",
            "--from",
            "canonical",
            "017f22e279b07cc398c4dc0c0c07398f",
        ],
        1,
    );
    assert_contains!(
        e,
        "not the canonical form: expected 8-4-4-4-12 hex digits, found the simple form"
    );
    let e = fails(
        &[
            "convert",
            "--from",
            "simple",
            "017f22e2-79b0-7cc3-98c4-dc0c0c07398f",
        ],
        1,
    );
    assert_contains!(
        e,
        "not the simple form: expected 32 hex digits, found the canonical form"
    );
}

/// A length in a message counts characters, and says the bytes as well
/// where they differ (`€` is three bytes).
#[test]
fn lengths_in_messages_count_characters() {
    let out = uk(&["check", "--from", "base58", "1BzmjTFLHWXwiSK4y3H5i€"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert_contains!(
        text,
        "argument 1: invalid base58 length 22 characters (24 bytes): expected 22 characters"
    );
    let out = uk(&["check", "user_01h455vb4pex5vsknk084sn0€"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_contains!(
        text,
        "invalid TypeID suffix length 25 characters (27 bytes) at position 5"
    );
}

/// `n` ascending UUIDs, one per line (values `base + i * step`).
fn ascending(n: u128, base: u128) -> Vec<String> {
    (0..n)
        .map(|i| uuidkit::Uuid::from_u128(base + i * 0x1_0000_0001).to_string())
        .collect()
}

fn check_stdin(args: &[&str], lines: &[String]) -> (Option<i32>, String, String) {
    let input: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let out = run_with_stdin(args, &input);
    (
        out.status.code(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn unique_reports_the_first_duplicate_with_both_lines_and_counts() {
    let mut lines = ascending(10, 1 << 100);
    lines.reverse();
    lines.insert(6, lines[2].clone());
    lines.push(lines[2].clone());
    lines.push(lines[0].clone());
    let (code, out, err) = check_stdin(&["check", "--unique"], &lines);
    assert_eq!(code, Some(1), "{err}");
    assert_eq!(
        out,
        format!(
            "line 7: duplicate of line 3: {}\nchecked 13 UUIDs: 3 duplicates\n",
            lines[2]
        )
    );
    // Unique input: exit 0, the summary only.
    lines.truncate(11);
    lines.remove(6);
    let (code, out, _) = check_stdin(&["check", "--unique"], &lines);
    assert_eq!(
        (code, out.as_str()),
        (Some(0), "checked 10 UUIDs: 0 duplicates\n")
    );
    // -q: nothing, the status tells.
    lines.push(lines[4].clone());
    let (code, out, _) = check_stdin(&["check", "--unique", "-q"], &lines);
    assert_eq!((code, out.as_str()), (Some(1), ""));
}

#[test]
fn sorted_reports_the_first_order_fault_and_strict_refuses_equals() {
    let mut lines = ascending(8, 5);
    lines.swap(3, 4);
    lines.insert(6, lines[5].clone());
    let (code, out, _) = check_stdin(&["check", "--sorted"], &lines);
    assert_eq!(code, Some(1));
    assert_eq!(
        out,
        format!(
            "line 5: out of order: {} is below {} of line 4\nchecked 9 UUIDs: 1 out of order\n",
            lines[4], lines[3]
        )
    );
    let (_, out, _) = check_stdin(&["check", "--sorted=strict", "--unique"], &lines);
    assert_eq!(
        out,
        format!(
            "line 5: out of order: {} is below {} of line 4\nline 7: duplicate of line 6: {}\n\
             checked 9 UUIDs: 1 duplicates, 2 out of order (duplicates counted between \
             neighbours only: the input is out of order)\n",
            lines[4], lines[3], lines[6]
        )
    );
    // In order, equal neighbours allowed unless strict.
    let mut sorted = ascending(5, 0);
    sorted.insert(2, sorted[2].clone());
    let (code, out, _) = check_stdin(&["check", "--sorted"], &sorted);
    assert_eq!(
        (code, out.as_str()),
        (Some(0), "checked 6 UUIDs: 0 out of order\n")
    );
    let (code, out, _) = check_stdin(&["check", "--sorted=strict"], &sorted);
    assert_eq!(code, Some(1));
    assert_contains!(
        out,
        &format!("line 4: out of order: {0} equals {0} of line 3", sorted[2])
    );
}

#[test]
fn version_reports_the_first_other_and_files_name_their_lines() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.txt"), dir.path().join("b.txt"));
    let v7 = "017f22e2-79b0-7cc3-98c4-dc0c0c07398f";
    let v4 = "919108f7-52d1-4320-9bac-f847db4148a8";
    std::fs::write(&a, format!("{v7}\n")).unwrap();
    std::fs::write(&b, format!("{v7}\n\n{v4}\n")).unwrap();
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    let out = uk(&[
        "check",
        "--unique",
        "--version",
        "7",
        "--file",
        a,
        "--file",
        b,
    ])
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        format!(
            "{b} line 1: duplicate of {a} line 1: {v7}\n{b} line 3: not version 7: {v4} is version 4\n\
             checked 3 UUIDs: 1 duplicates, 1 not version 7\n"
        )
    );
    let e = fails(&["check", "--version", "9"], 2);
    assert_contains!(e, "--version");
    let e = fails(&["check", "--file", "/nonexistent/ids.txt"], 1);
    assert_contains!(e, "cannot open /nonexistent/ids.txt");
}

#[test]
fn unique_past_its_memory_limit_says_what_to_do() {
    let lines = ascending(20_000, 1);
    let (code, _, err) = check_stdin(&["check", "--unique", "--memory-limit", "512K"], &lines);
    assert_eq!(code, Some(1));
    assert_contains!(err, "distinct UUIDs: keeping them would take");
    assert_contains!(err, "LC_ALL=C sort FILE | uuidkit check --unique --sorted");
    // Sorted, the same input needs no table.
    let (code, out, _) = check_stdin(
        &["check", "--unique", "--sorted", "--memory-limit", "512K"],
        &lines,
    );
    assert_eq!(
        (code, out.as_str()),
        (
            Some(0),
            "checked 20000 UUIDs: 0 duplicates, 0 out of order\n"
        )
    );
    let e = fails(&["check", "--unique", "--memory-limit", "lots"], 2);
    assert_contains!(e, "expected a size in bytes");
}
