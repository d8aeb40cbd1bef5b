//! The workspace's own commands.
//!
//! - `cargo xtask test [ARGS…]`: the README's test command. Runs
//!   `cargo test --workspace --all-features [ARGS…]`, then prints every test
//!   that did not run for lack of a prerequisite, with the reason (see the
//!   `test-support` crate). Under `CI=true` such tests fail instead. Then
//!   it builds the Python package and runs its pytest suite (see `python.rs`).
//! - `cargo xtask lint`: what rustfmt and clippy do not check: source files
//!   that grew past [`MAX_FILE_LINES`] lines of non-test code, and code or
//!   docs that cite files outside the repository or narrate history.
//! - `cargo xtask bench [--report | CRITERION ARGS…]`: uuidkit's comparison
//!   benches and the ratio tables of BENCHMARKS.md.
#![deny(missing_docs)]

mod bench;
mod lint;
mod python;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

/// The environment variable the `test-support` crate appends skips to.
const SKIP_LOG_VAR: &str = "UUIDKIT_SKIP_LOG";

/// The longest a non-test source file may grow.
pub const MAX_FILE_LINES: usize = 800;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let root = workspace_root();
    match args.next().as_deref() {
        Some("test") => test(&root, args.collect()),
        Some("lint") => lint::run(&root),
        Some("bench") => bench::run(&root, args.collect()),
        _ => {
            eprintln!(
                "usage: cargo xtask test [CARGO TEST ARGS…] | cargo xtask lint \
                 | cargo xtask bench [--report | CRITERION ARGS…]"
            );
            ExitCode::from(2)
        }
    }
}

fn workspace_root() -> PathBuf {
    // crates/xtask → the workspace root.
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

/// Runs one step; returns whether it succeeded, saying so when it did not.
fn step(name: &str, cmd: &mut Command) -> bool {
    eprintln!("xtask: {name}");
    match cmd.status() {
        Ok(s) if s.success() => true,
        Ok(s) => {
            eprintln!("xtask: {name} failed ({s})");
            false
        }
        Err(e) => {
            eprintln!("xtask: {name} could not start: {e}");
            false
        }
    }
}

/// The workspace's target directory.
fn target_dir(root: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"))
}

fn test(root: &Path, extra: Vec<String>) -> ExitCode {
    let target = target_dir(root);
    let _ = std::fs::create_dir_all(&target);
    let log = target.join("skipped-tests.txt");
    let _ = std::fs::remove_file(&log);

    let mut ok = step(
        "cargo test --workspace --all-features",
        cargo()
            .current_dir(root)
            .args(["test", "--workspace", "--all-features"])
            .args(&extra)
            .env(SKIP_LOG_VAR, &log),
    );
    ok &= python::test(root, &target, &log);
    ok &= report_skips(&log);
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Prints what did not run. Returns false only if the log cannot be read.
fn report_skips(log: &Path) -> bool {
    let text = match std::fs::read_to_string(log) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => {
            eprintln!(
                "xtask: cannot read the list of skipped tests {}: {e}",
                log.display()
            );
            return false;
        }
    };
    let mut lines: Vec<&str> = text.lines().filter(|l| !l.is_empty()).collect();
    lines.sort_unstable();
    lines.dedup();
    if lines.is_empty() {
        println!("\nxtask: every test ran; none was skipped for a missing prerequisite.");
    } else {
        println!(
            "\nxtask: {} test(s) did NOT run (a missing prerequisite; under CI=true they fail):",
            lines.len()
        );
        for l in lines {
            println!("  skipped {l}");
        }
    }
    true
}
