//! Prerequisites of the workspace's tests, checked one way everywhere.
//!
//! A test that needs something the machine may lack (root, a command such as
//! `nft`, a database server, a CPU feature) asks for it here first:
//!
//! ```
//! fn needs_ip() {
//!     if !test_support::require("needs_ip", test_support::command("sh", &["-c", "true"])) {
//!         return; // recorded as skipped (outside CI only)
//!     }
//!     // … the test proper …
//! }
//! needs_ip();
//! ```
//!
//! - Under `CI=true` a missing prerequisite **fails** the test: CI installs
//!   everything the suite needs, so a skip there would hide lost coverage.
//! - Elsewhere the test returns early and one line is appended to the file
//!   named by [`SKIP_LOG_VAR`]; the README's test command (`cargo xtask test`)
//!   prints those lines at the end, so a skip is never invisible.
#![deny(missing_docs)]

pub mod db;
pub mod fork;
pub mod netns;
pub mod proc;
pub mod turn;
pub mod uiapd;
pub mod workspace;

use std::fmt::Display;
use std::io::Write;
use std::process::Command;

/// The environment variable naming the file skipped tests are listed in.
pub const SKIP_LOG_VAR: &str = "UUIDKIT_SKIP_LOG";

/// Whether this run is CI's (`CI` set to anything but `false`/`0`/empty).
///
/// ```
/// // CI sets `CI=true`; the README's test command also runs outside it.
/// if test_support::is_ci() {
///     assert!(std::env::var("CI").is_ok());
/// }
/// ```
pub fn is_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0")
}

/// `Ok` if the check passed, else why the test cannot run.
pub type Prerequisite = Result<(), String>;

/// Decides whether `test` runs: `true` if `prerequisite` holds. Otherwise,
/// under CI it panics with the reason; elsewhere it records the skip (see
/// the crate docs) and returns `false`.
///
/// # Panics
/// Under CI, when the prerequisite is missing.
///
/// ```
/// assert!(test_support::require("doc", Ok(())));
/// ```
pub fn require(test: &str, prerequisite: Prerequisite) -> bool {
    match prerequisite {
        Ok(()) => true,
        Err(reason) => {
            skip(test, reason);
            false
        }
    }
}

/// Records that `test` did not run because of `reason` (see [`require`]).
///
/// # Panics
/// Under CI: a missing prerequisite fails the run there.
///
/// ```no_run
/// test_support::skip("my_test", "needs an IPv6 loopback");
/// ```
pub fn skip(test: &str, reason: impl Display) {
    if is_ci() {
        panic!("{test}: prerequisite missing under CI=true: {reason}");
    }
    let line = one_line(&format!("{test}: {reason}"));
    eprintln!("SKIPPED {line}");
    if let Some(path) = std::env::var_os(SKIP_LOG_VAR) {
        // One `write` of one line on an O_APPEND file: lines from parallel
        // tests never interleave.
        let opened = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path);
        if let Ok(mut f) = opened {
            let _ = f.write_all(format!("{line}\n").as_bytes());
        }
    }
}

/// `text` on one line: a reason quoting a program's output (a server log)
/// must stay one entry in the skip log.
fn one_line(text: &str) -> String {
    let parts: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    parts.join(" | ")
}

/// The effective user is root.
///
/// ```
/// # // SAFETY: geteuid has no preconditions.
/// assert_eq!(test_support::root().is_ok(), unsafe { libc::geteuid() } == 0);
/// ```
pub fn root() -> Prerequisite {
    // SAFETY: geteuid has no preconditions and cannot fail.
    if unsafe { libc::geteuid() } == 0 {
        Ok(())
    } else {
        Err("needs root".into())
    }
}

/// `program args…` runs and exits 0 (for example `command("nft", &["--version"])`).
///
/// ```
/// assert!(test_support::command("sh", &["-c", "exit 0"]).is_ok());
/// assert!(test_support::command("sh", &["-c", "exit 3"]).is_err());
/// ```
pub fn command(program: &str, args: &[&str]) -> Prerequisite {
    match Command::new(program).args(args).output() {
        Ok(o) if o.status.success() => Ok(()),
        Ok(o) => Err(format!(
            "`{program} {}` failed ({}): {}",
            args.join(" "),
            o.status,
            String::from_utf8_lossy(&o.stderr).trim()
        )),
        Err(e) => Err(format!("`{program}` is not available: {e}")),
    }
}

/// Every prerequisite holds; the first missing one is the reason.
///
/// ```
/// use test_support::{all, command};
/// assert!(all([Ok(()), command("sh", &["-c", "true"])]).is_ok());
/// assert_eq!(all([Ok(()), Err("no".to_string())]), Err("no".to_string()));
/// ```
pub fn all(prerequisites: impl IntoIterator<Item = Prerequisite>) -> Prerequisite {
    prerequisites.into_iter().collect()
}

/// A CPU feature that `std::arch::is_x86_feature_detected!` knows, checked by
/// the caller and named here: `cpu_feature("avx2", is_x86_feature_detected!("avx2"))`.
///
/// ```
/// assert!(test_support::cpu_feature("sse2", true).is_ok());
/// assert_eq!(test_support::cpu_feature("avx9", false), Err("this CPU lacks avx9".to_string()));
/// ```
pub fn cpu_feature(name: &str, detected: bool) -> Prerequisite {
    if detected {
        Ok(())
    } else {
        Err(format!("this CPU lacks {name}"))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_reason_of_several_lines_is_logged_as_one() {
        assert_eq!(
            super::one_line("t: install failed:\n  ERROR 1051\n\nAborting\n"),
            "t: install failed: | ERROR 1051 | Aborting"
        );
    }
}
