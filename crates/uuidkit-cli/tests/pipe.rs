//! `| head`: the reader going away is not an error; no partial line is ever written.

use std::io::{BufRead, BufReader, Read};
use std::process::{Command, Stdio};

use crate::util::*;

/// Reads one line, closes the pipe, and expects a quiet exit 0.
#[test]
fn closed_stdout_ends_quietly() {
    for args in [
        &["new", "v4", "-n", "1000000"][..],
        &["new", "v7", "-n", "1000000"],
        &["-C", "1000000"],
    ] {
        let (code, first, stderr) = first_line_then_close(args, "");
        assert!(is_canonical(first.trim_end()), "{first:?}");
        assert_eq!(code, Some(0), "{args:?}: stderr {stderr:?}");
        assert_eq!(stderr, "", "{args:?}");
    }
}

/// The same through a real shell pipeline, as users type it.
#[test]
fn shell_pipeline_into_head() {
    let script = format!(
        "'{}' new v4 -n 1000000 2>err.txt | head -1; echo \"status=${{PIPESTATUS[0]}}\"; cat err.txt",
        bin()
    );
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new("bash")
        .arg("-c")
        .arg(script)
        .current_dir(dir.path())
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let ls: Vec<&str> = text.lines().collect();
    assert_eq!(ls.len(), 2, "{text}");
    assert!(is_canonical(ls[0]));
    assert_eq!(
        ls[1], "status=0",
        "uuidkit's own exit status, then an empty stderr"
    );
}

/// Whatever the reader gets is whole lines only: every byte count read is a
/// multiple of 37 once the writer has finished a chunk.
#[test]
fn output_is_whole_lines() {
    let out = ok(&["new", "v7", "-n", "200000"]);
    assert_eq!(out.len(), 200_000 * 37);
    assert!(out.lines().all(is_canonical));
    let out = ok(&["new", "v4", "-n", "30000", "-f", "urn"]);
    assert_eq!(out.len(), 30_000 * 46);
}

/// Output to a closed pipe from `inspect`/`convert` too.
#[test]
fn closed_stdout_inspect() {
    let input: String = (0..50_000)
        .map(|_| "017f22e2-79b0-7cc3-98c4-dc0c0c07398f\n")
        .collect();
    let mut child = Command::new(bin())
        .args(["convert", "-f", "urn"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        let _ = stdin.write_all(input.as_bytes());
    });
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    let status = child.wait().unwrap();
    writer.join().unwrap();
    assert_eq!(first, "urn:uuid:017f22e2-79b0-7cc3-98c4-dc0c0c07398f\n");
    assert_eq!((status.code(), stderr.as_str()), (Some(0), ""));
}

/// Runs `uuidkit ARGS…` with stdin from a file of `input`, reads one line
/// of its output and closes the pipe; returns the exit status, that line and
/// stderr.
fn first_line_then_close(args: &[&str], input: &str) -> (Option<i32>, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("input");
    std::fs::write(&path, input).unwrap();
    let mut child = Command::new(bin())
        .args(args)
        .stdin(std::fs::File::open(&path).unwrap())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    // The reader is dropped here: the pipe is closed.
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    (child.wait().unwrap().code(), first, stderr)
}

/// A reader that goes away ends the run quietly, but with the status earned:
/// 1 once an invalid input was seen (the output left is far more than a
/// pipe holds, so the run cannot finish before the pipe is closed).
#[test]
fn closed_stdout_keeps_the_status_of_invalid_input() {
    let a6 = "017f22e2-79b0-7cc3-98c4-dc0c0c07398f";
    let valid: String = (0..100_000).map(|_| format!("{a6}\n")).collect();
    let bad_then_valid = format!("not-a-uuid\n{valid}");
    let (code, first, err) = first_line_then_close(&["convert"], &bad_then_valid);
    assert_eq!(first, format!("{a6}\n"));
    assert_eq!(code, Some(1), "convert: {err}");
    assert_contains!(err, "line 1: ");
    assert!(!err.contains("error:"), "quietly: {err}");
    let (code, first, err) = first_line_then_close(&["inspect"], &bad_then_valid);
    assert!(first.contains(a6), "{first}");
    assert_eq!(code, Some(1), "inspect: {err}");
    assert!(!err.contains("error:"), "quietly: {err}");
    // check writes only its reports: many invalid lines.
    let invalid: String = (0..100_000).map(|i| format!("bad-{i}\n")).collect();
    let (code, first, err) = first_line_then_close(&["check"], &invalid);
    assert!(first.starts_with("line 1: "), "{first}");
    assert_eq!((code, err.as_str()), (Some(1), ""));
    // All valid: still 0.
    let (code, _, err) = first_line_then_close(&["convert"], &valid);
    assert_eq!((code, err.as_str()), (Some(0), ""));
}

/// A closed stdin (`uuidkit check <&-`) is not an empty input: exit 1 with a
/// message, for every command that reads it.
#[test]
fn closed_stdin_is_exit_1_with_a_message() {
    for args in [
        &["check"][..],
        &["inspect"],
        &["convert"],
        &["new", "v5", "--namespace", "dns", "--name-file", "-"],
    ] {
        let out = Command::new("sh")
            .arg("-c")
            .arg("exec \"$0\" \"$@\" <&-")
            .arg(bin())
            .args(args)
            .output()
            .unwrap();
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert_contains!(err, "standard input is closed: nothing can be read");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    // With the inputs as arguments, stdin is not read.
    let out = Command::new("sh")
        .arg("-c")
        .arg("exec \"$0\" check 017f22e2-79b0-7cc3-98c4-dc0c0c07398f <&-")
        .arg(bin())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
}

/// A read error names the stream it came from.
#[test]
fn read_errors_name_the_stream() {
    for cmd in ["check", "inspect", "convert"] {
        let dir = tempfile::tempdir().unwrap();
        let out = Command::new(bin())
            .arg(cmd)
            .stdin(std::fs::File::open(dir.path()).unwrap())
            .output()
            .unwrap();
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(1), "{cmd}: {err}");
        assert_eq!(
            err, "uuidkit: error: reading standard input: Is a directory (os error 21)\n",
            "{cmd}"
        );
    }
}

/// Every command line that writes to stdout, one per mode and help form.
const WRITERS: &[&[&str]] = &[
    &[],
    &["-7", "-C", "3"],
    &["new", "v4"],
    &["new", "v7", "-n", "10"],
    &["new", "v1", "--at", "2022-02-22T19:22:22Z"],
    &["new", "v5", "--namespace", "dns", "--name", "x"],
    &["inspect", "017f22e2-79b0-7cc3-98c4-dc0c0c07398f"],
    &["inspect", "--json", "017f22e2-79b0-7cc3-98c4-dc0c0c07398f"],
    &[
        "convert",
        "--to",
        "v6",
        "c232ab00-9414-11ec-b3c8-9f6bdeced846",
    ],
    &["check", "not-a-uuid"],
    &["range", "2024-01-01", "2024-01-02"],
    &["completions", "bash"],
    &["man"],
    &["man", "new"],
    &["--help"],
    &["-h"],
    &["--version"],
    &["-V"],
    &["new", "--help"],
    &["help", "inspect"],
];

/// A write that fails (a full device) is exit 1 with a message, everywhere.
#[test]
fn write_errors_are_exit_1_with_a_message() {
    if !test_support::require(
        "write_errors_are_exit_1_with_a_message",
        std::fs::metadata("/dev/full")
            .map(drop)
            .map_err(|e| format!("needs /dev/full: {e}")),
    ) {
        return;
    }
    for args in WRITERS {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let out = Command::new(bin())
            .args(*args)
            .stdout(full)
            .output()
            .unwrap();
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert_eq!(
            err, "uuidkit: error: writing standard output: No space left on device (os error 28)\n",
            "{args:?}"
        );
    }
}

/// A closed stdout (`uuidkit … >&-`) is exit 1 with a message, everywhere:
/// nothing was written, so nothing may claim success.
#[test]
fn closed_stdout_is_exit_1_with_a_message() {
    for args in WRITERS {
        let out = Command::new("sh")
            .arg("-c")
            .arg("exec \"$0\" \"$@\" >&-")
            .arg(bin())
            .args(*args)
            .output()
            .unwrap();
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert_eq!(
            err, "uuidkit: error: i/o error: standard output is closed: nothing can be written\n",
            "{args:?}"
        );
    }
}

/// A line longer than any form is reported with its length, and the run
/// goes on with the next line, in memory that does not grow with the line:
/// a line of 1 GB passes under a 200 MB address-space limit.
#[test]
fn an_overlong_line_is_reported_in_bounded_memory() {
    let a6 = "017f22e2-79b0-7cc3-98c4-dc0c0c07398f";
    for (cmd, stream) in [("check", "out"), ("convert", "err")] {
        let script = format!(
            "ulimit -v 200000; {{ head -c 1000000000 /dev/zero; printf '\\n{a6}\\n'; }} \
             | '{}' {cmd} >out 2>err; echo $?",
            bin()
        );
        let dir = tempfile::tempdir().unwrap();
        let out = Command::new("sh")
            .arg("-c")
            .arg(script)
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), "1\n", "{cmd}");
        let report = std::fs::read_to_string(dir.path().join(stream)).unwrap();
        assert_contains!(
            report,
            "line 1: too long: expected at most 1024 bytes (no text form of a UUID has more than 90), found 1000000000 bytes"
        );
        assert_eq!(report.matches("line ").count(), 1, "{cmd}: {report}");
        if cmd == "convert" {
            let written = std::fs::read_to_string(dir.path().join("out")).unwrap();
            assert_eq!(written, format!("{a6}\n"));
        }
    }
}
