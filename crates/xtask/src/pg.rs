//! The PostgreSQL extension (`crates/uuidkit-pg`), built outside the
//! workspace: its pgrx features are mutually exclusive, so the workspace's
//! `--all-features` cannot build it.
//!
//! `cargo xtask test` packages it here with the pinned `cargo pgrx` for the
//! PostgreSQL the tests start (`cargo pgrx package`, into
//! `target/uuidkit-pg/package`), then runs the workspace's tests with
//! [`PACKAGE_VAR`] naming the package: the crate `uuidkit-pg-tests` loads it
//! into throwaway servers. Without `cargo pgrx` (or PostgreSQL's server
//! headers) that is a missing prerequisite like any other: listed as not
//! run, or under `CI=true` a failure.
//!
//! `cargo xtask pg-bench [CRITERION ARGS…]` packages it the same way and
//! runs its benchmarks (`cargo bench -p uuidkit-pg-tests --bench sql`).

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use test_support::db::Postgres;

use crate::{cargo, step};

/// The variable the extension's tests read the package directory from
/// (`uuidkit_pg_tests::PACKAGE_VAR`).
pub const PACKAGE_VAR: &str = "UUIDKIT_PG_PACKAGE";

/// The extension crate, relative to the workspace root.
const CRATE: &str = "crates/uuidkit-pg";

/// The exact pgrx version the extension pins (`pgrx = "=X.Y.Z"`), which
/// `cargo pgrx` must match.
fn pinned_pgrx(root: &Path) -> Result<String, String> {
    let manifest = root.join(CRATE).join("Cargo.toml");
    let text = std::fs::read_to_string(&manifest)
        .map_err(|e| format!("cannot read {}: {e}", manifest.display()))?;
    text.lines()
        .find_map(|l| l.trim().strip_prefix("pgrx = \"="))
        .and_then(|rest| rest.split('"').next())
        .map(str::to_string)
        .ok_or_else(|| {
            format!(
                "{}: expected a line `pgrx = \"=X.Y.Z\"`",
                manifest.display()
            )
        })
}

/// What packaging needs: `cargo pgrx` at the pinned version, and the
/// `pg_config` of the server the tests start. Returns that `pg_config`.
fn prerequisites(root: &Path) -> Result<PathBuf, String> {
    let version = pinned_pgrx(root)?;
    let install = format!("cargo install --locked cargo-pgrx --version {version}");
    let out = cargo()
        .args(["pgrx", "--version"])
        .output()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    let found = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if !out.status.success() {
        return Err(format!(
            "`cargo pgrx` is not installed (install it: {install})"
        ));
    }
    if found != format!("cargo-pgrx {version}") {
        return Err(format!(
            "expected cargo-pgrx {version} (the extension pins pgrx ={version}), found {found:?} \
             (install it: {install})"
        ));
    }
    let pg_config = Postgres::pg_config("--bindir")?.join("pg_config");
    let headers = run_pg_config(&pg_config, "--includedir-server")?.join("postgres.h");
    if !headers.is_file() {
        return Err(format!(
            "PostgreSQL's server headers are not installed (no {}; Debian: postgresql-server-dev-NN)",
            headers.display()
        ));
    }
    Ok(pg_config)
}

fn run_pg_config(pg_config: &Path, flag: &str) -> Result<PathBuf, String> {
    let out = Command::new(pg_config)
        .arg(flag)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", pg_config.display()))?;
    Ok(PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
}

/// Builds and packages the extension; returns the package directory.
/// `Err(None)`: the build failed (its output said why); `Err(Some(reason))`:
/// a prerequisite is missing.
fn package(root: &Path, target: &Path) -> Result<PathBuf, Option<String>> {
    let pg_config = prerequisites(root).map_err(Some)?;
    let out_dir = target.join("uuidkit-pg").join("package");
    let _ = std::fs::remove_dir_all(&out_dir);
    let built = step(
        "cargo pgrx package (the PostgreSQL extension, crates/uuidkit-pg)",
        cargo()
            .current_dir(root)
            .args(["pgrx", "package", "--manifest-path"])
            .arg(root.join(CRATE).join("Cargo.toml"))
            .arg("--pg-config")
            .arg(&pg_config)
            .arg("--out-dir")
            .arg(&out_dir)
            // Its own target directory: it is its own workspace.
            .env("CARGO_TARGET_DIR", target.join("uuidkit-pg"))
            // pgrx's build reads this instead of `cargo pgrx init`'s ~/.pgrx.
            .env("PGRX_PG_CONFIG_PATH", &pg_config),
    );
    if built { Ok(out_dir) } else { Err(None) }
}

/// For `cargo xtask test`: the package the tests should load, if it could
/// be built. Returns `(package, ok)`: `ok` is false if the build failed, or
/// if a prerequisite is missing under CI; otherwise a missing prerequisite is
/// appended to the skip log (the tests then skip too).
pub fn package_for_tests(root: &Path, target: &Path, skip_log: &Path) -> (Option<PathBuf>, bool) {
    match package(root, target) {
        Ok(dir) => (Some(dir), true),
        Err(None) => (None, false),
        Err(Some(reason)) => {
            let line = format!("uuidkit-pg extension package: {reason}");
            (None, crate::missing_prerequisite(skip_log, &line))
        }
    }
}

/// `cargo xtask pg-bench [CRITERION ARGS…]`.
pub fn bench(root: &Path, extra: Vec<String>) -> ExitCode {
    let target = crate::target_dir(root);
    let dir = match package(root, &target) {
        Ok(dir) => dir,
        Err(reason) => {
            if let Some(reason) = reason {
                eprintln!("xtask: cannot package the extension: {reason}");
            }
            return ExitCode::FAILURE;
        }
    };
    let ok = step(
        "cargo bench -p uuidkit-pg-tests --bench sql",
        cargo()
            .current_dir(root)
            .args(["bench", "-p", "uuidkit-pg-tests", "--bench", "sql", "--"])
            .args(extra)
            .env(PACKAGE_VAR, &dir),
    );
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
