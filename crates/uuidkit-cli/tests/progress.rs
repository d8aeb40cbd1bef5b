//! The progress bar: on stderr, above 1 M UUIDs, only when stderr is a terminal and
//! stdout is not. `script` (util-linux, Debian's essential bsdutils) gives the run a
//! pseudo-terminal and records what reached it.

use std::process::Command;

use crate::util::*;

/// What `shell_cmd` writes to its terminal, or `None` (recorded by
/// `test_support`) when `script` is missing.
fn on_a_terminal(test: &str, shell_cmd: &str) -> Option<String> {
    if !test_support::require(test, test_support::command("script", &["--version"])) {
        return None;
    }
    let out = Command::new("script")
        .args(["-qec", shell_cmd, "/dev/null"])
        .output()
        .expect("`script` (util-linux) runs the command on a pseudo-terminal");
    assert!(
        out.status.success(),
        "{:?}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn shown_for_long_runs_to_a_file() {
    let cmd = format!("'{}' new v4 -n 2000000 > /dev/null", bin());
    if let Some(tty) = on_a_terminal("shown_for_long_runs_to_a_file", &cmd) {
        assert_contains!(tty, "/2,000,000 UUIDs");
    }
}

#[test]
fn not_shown_up_to_one_million() {
    let cmd = format!("'{}' new v4 -n 1000000 > /dev/null", bin());
    if let Some(tty) = on_a_terminal("not_shown_up_to_one_million", &cmd) {
        assert_eq!(tty, "");
    }
}

#[test]
fn not_shown_when_stderr_is_not_a_terminal() {
    let cmd = format!("'{}' new v4 -n 2000000 > /dev/null 2>/dev/null", bin());
    if let Some(tty) = on_a_terminal("not_shown_when_stderr_is_not_a_terminal", &cmd) {
        assert_eq!(tty, "");
    }
}
