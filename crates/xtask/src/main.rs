//! The workspace's own commands.
//!
//! - `cargo xtask test [ARGS…]`: the README's test command. Runs
//!   `cargo test --workspace --all-features [ARGS…]`, then prints every test
//!   that did not run for lack of a prerequisite, with the reason (see the
//!   `test-support` crate). Under `CI=true` such tests fail instead. Then
//!   it builds the Python package and runs its pytest suite (see `python.rs`).
//!   Before the Rust tests it builds and packages the PostgreSQL extension,
//!   whose tests (the crate `uuidkit-pg-tests`) load it (see `pg.rs`).
//! - `cargo xtask lint`: what rustfmt and clippy do not check: source files
//!   that grew past [`MAX_FILE_LINES`] lines of non-test code, and code or
//!   docs that cite files outside the repository or narrate history.
//! - `cargo xtask bench [--report | CRITERION ARGS…]`: uuidkit's comparison
//!   benches and the ratio tables of BENCHMARKS.md.
//! - `cargo xtask pg-bench [CRITERION ARGS…]`: the PostgreSQL extension's
//!   benchmarks (see `pg.rs`).
#![deny(missing_docs)]

mod bench;
mod lint;
mod pg;
mod pg_schema;
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
        Some("pg-bench") => pg::bench(&root, args.collect()),
        _ => {
            eprintln!(
                "usage: cargo xtask test [CARGO TEST ARGS…] | cargo xtask lint \
                 | cargo xtask bench [--report | CRITERION ARGS…] \
                 | cargo xtask pg-bench [CRITERION ARGS…]"
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

    let (pg_package, mut ok) = pg::package_for_tests(root, &target, &log);
    let mut tests = cargo();
    tests
        .current_dir(root)
        .args(["test", "--workspace", "--all-features"])
        .args(&extra)
        .env(SKIP_LOG_VAR, &log);
    if let Some(dir) = &pg_package {
        tests.env(pg::PACKAGE_VAR, dir);
    }
    ok &= step("cargo test --workspace --all-features", &mut tests);
    ok &= python::test(root, &target, &log);
    ok &= report_skips(&log);
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// A prerequisite of a step is missing: under CI that is a failure (returns
/// false); otherwise `line` is appended to the skip log (returns whether it
/// could be).
pub(crate) fn missing_prerequisite(skip_log: &Path, line: &str) -> bool {
    if test_support::is_ci() {
        eprintln!("xtask: {line} (a missing prerequisite under CI=true)");
        return false;
    }
    eprintln!("xtask: not run: {line}");
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(skip_log)
        .and_then(|mut f| std::io::Write::write_all(&mut f, format!("{line}\n").as_bytes()))
        .is_ok()
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
