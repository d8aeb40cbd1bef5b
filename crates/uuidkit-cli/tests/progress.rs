//! The progress bar: on stderr, above 1 M UUIDs, only when stderr is a terminal and
//! stdout is not. `script` (util-linux, Debian's essential bsdutils) gives the run a
//! pseudo-terminal and records what reached it.

use std::process::Command;

use crate::util::*;

fn on_a_terminal(shell_cmd: &str) -> String {
    let out = Command::new("script")
        .args(["-qec", shell_cmd, "/dev/null"])
        .output()
        .expect("`script` (util-linux) runs the command on a pseudo-terminal");
    assert!(
        out.status.success(),
        "{:?}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn shown_for_long_runs_to_a_file() {
    let tty = on_a_terminal(&format!("'{}' new v4 -n 2000000 > /dev/null", bin()));
    assert_contains!(tty, "/2,000,000 UUIDs");
}

#[test]
fn not_shown_up_to_one_million() {
    let tty = on_a_terminal(&format!("'{}' new v4 -n 1000000 > /dev/null", bin()));
    assert_eq!(tty, "");
}

#[test]
fn not_shown_when_stderr_is_not_a_terminal() {
    let tty = on_a_terminal(&format!(
        "'{}' new v4 -n 2000000 > /dev/null 2>/dev/null",
        bin()
    ));
    assert_eq!(tty, "");
}
