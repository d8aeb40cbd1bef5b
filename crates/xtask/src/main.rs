//! The workspace's own commands.
//!
//! - `cargo xtask test [ARGS…]`: the README's test command. First it sets
//!   up what the tests need (`cargo xtask provision`, below); then it runs
//!   `cargo test --workspace --all-features [ARGS…]` (less the features
//!   whose system libraries are missing), builds the Python package and runs
//!   its pytest suite (see `python.rs`), and prints every test that did not
//!   run for lack of a prerequisite, with the reason (see the `test-support`
//!   crate). Under `CI=true` a missing prerequisite fails the run instead.
//!   Before the Rust tests it builds and packages the PostgreSQL extension,
//!   whose tests (the crate `uuidkit-pg-tests`) load it (see `pg.rs`);
//!   after them it runs the tests of a user's project on the database
//!   drivers' current releases (see `drivers.rs`) and the wasm32 tests
//!   under Node.js (see `wasm.rs`).
//! - `cargo xtask provision`: installs the system packages and cargo tools
//!   the tests need (see `provision/needs.rs`; packages only as root), and
//!   makes the Python virtual environment. What it cannot install it names
//!   in one line with the command to run; under `CI=true` that is a failure.
//! - `cargo xtask lint`: what rustfmt and clippy do not check: source files
//!   that grew past [`MAX_FILE_LINES`] lines of non-test code, and code or
//!   docs that cite files outside the repository or narrate history.
//! - `cargo xtask bench [--report | CRITERION ARGS…]`: uuidkit's comparison
//!   benches and the ratio tables of benchmarks/library.md.
//! - `cargo xtask pg-bench [CRITERION ARGS…]`: the PostgreSQL extension's
//!   benchmarks (see `pg.rs`).
//! - `cargo xtask pg-clippy`: the PostgreSQL extension's lints.
//! - `cargo xtask pg-deb [--pg-config PATH] [--out DIR]`: the PostgreSQL
//!   extension's Debian package (see `pg_deb.rs`).
#![deny(missing_docs)]

mod bench;
mod drivers;
mod lint;
mod pg;
mod pg_deb;
mod pg_schema;
mod provision;
mod python;
mod wasm;

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
        Some("provision") => exit(provision_all(&root).is_some()),
        Some("lint") => lint::run(&root),
        Some("bench") => bench::run(&root, args.collect()),
        Some("pg-bench") => pg::bench(&root, args.collect()),
        Some("pg-clippy") => pg::clippy(&root),
        Some("pg-deb") => pg_deb::command(&root, args.collect()),
        _ => {
            eprintln!(
                "usage: cargo xtask test [CARGO TEST ARGS…] | cargo xtask provision \
                 | cargo xtask lint \
                 | cargo xtask bench [--report | CRITERION ARGS…] \
                 | cargo xtask pg-bench [CRITERION ARGS…] | cargo xtask pg-clippy \
                 | cargo xtask pg-deb [--pg-config PATH] [--out DIR]"
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

fn exit(ok: bool) -> ExitCode {
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// What the tests need, as far as it could be set up.
struct Prepared {
    /// The feature arguments of `cargo test`.
    cargo_args: Vec<String>,
    /// One line per test target or suite that will not run, and why.
    not_run: Vec<String>,
    /// The Python virtual environment, or why there is none.
    venv: Result<PathBuf, String>,
}

/// Installs what the tests need and makes the Python environment; `None`
/// if something is missing under CI (which then fails).
fn provision_all(root: &Path) -> Option<Prepared> {
    let machine = provision::Machine::this();
    let read = |path: &str| std::fs::read_to_string(root.join(path)).ok();
    let outcome = provision::provision(
        &machine,
        &mut provision::System { machine: &machine },
        &read,
    );
    let venv = python::ensure_venv(&target_dir(root));
    if let Some(line) = outcome.command_line() {
        eprintln!("{line}");
    }
    if test_support::is_ci() && (!outcome.complete() || venv.is_err()) {
        if let Err(e) = &venv {
            eprintln!("xtask: {e}");
        }
        eprintln!("xtask: a missing prerequisite under CI=true");
        return None;
    }
    let left_out = outcome.left_out();
    let metadata = cargo()
        .current_dir(root)
        .args(["metadata", "--no-deps", "--format-version", "1"])
        .output();
    let ws = match metadata
        .map(|o| provision::Workspace::from_metadata(&String::from_utf8_lossy(&o.stdout)))
    {
        Ok(Ok(ws)) => ws,
        Ok(Err(e)) => {
            eprintln!("xtask: {e}");
            return None;
        }
        Err(e) => {
            eprintln!("xtask: cargo metadata could not start: {e}");
            return None;
        }
    };
    Some(Prepared {
        cargo_args: provision::cargo_args(&ws, &left_out),
        not_run: ws.not_built(&left_out),
        venv,
    })
}

/// What [`test_support::workspace::FEATURES_VAR`] says for the feature arguments of `cargo
/// test`: `all`, or the list given to `--features`.
fn features_value(cargo_args: &[String]) -> String {
    match cargo_args.iter().position(|a| a == "--features") {
        Some(i) => cargo_args.get(i + 1).cloned().unwrap_or_default(),
        None => "all".into(),
    }
}

fn test(root: &Path, extra: Vec<String>) -> ExitCode {
    let Some(prepared) = provision_all(root) else {
        return ExitCode::FAILURE;
    };
    let target = target_dir(root);
    let _ = std::fs::create_dir_all(&target);
    let log = target.join("skipped-tests.txt");
    let _ = std::fs::remove_file(&log);
    let mut ok = log_skips(&log, &prepared.not_run);
    let (pg_package, packaged) = pg::package_for_tests(root, &target, &log);
    ok &= packaged;
    let pg_deb = pg_package.as_deref().and_then(|dir| {
        let (deb, made) = pg::deb_for_tests(root, &target, dir, &log);
        ok &= made;
        deb
    });

    let what = format!(
        "cargo test --workspace --no-fail-fast {}",
        prepared.cargo_args.join(" ")
    );
    let mut tests = cargo();
    tests
        .current_dir(root)
        // Every failure in one run: without this, cargo stops at the first
        // test target that fails and the rest never run.
        .args(["test", "--workspace", "--no-fail-fast"])
        .args(&prepared.cargo_args)
        .args(&extra)
        .env(SKIP_LOG_VAR, &log)
        .env(
            test_support::workspace::FEATURES_VAR,
            features_value(&prepared.cargo_args),
        );
    if extra.is_empty() {
        // Every test target is built: the packages' binaries with them.
        tests.env(test_support::workspace::BUILT_VAR, "1");
    }
    if let Some(dir) = &pg_package {
        tests.env(pg::PACKAGE_VAR, dir);
    }
    if let Some(deb) = &pg_deb {
        tests.env(pg_deb::DEB_VAR, deb);
    }
    ok &= step(&what, &mut tests);
    ok &= drivers::test(root, &target);
    ok &= wasm::test(root, &log);
    ok &= python::test(root, &target, prepared.venv, &log);
    ok &= report_skips(&log);
    exit(ok)
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
    log_skips(skip_log, &[line.to_owned()])
}

/// Appends `lines` to the list of what did not run.
fn log_skips(log: &Path, lines: &[String]) -> bool {
    use std::io::Write;
    if lines.is_empty() {
        return true;
    }
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .and_then(|mut f| f.write_all(text.as_bytes()))
        .map_err(|e| eprintln!("xtask: cannot write {}: {e}", log.display()))
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
