//! The Python package's test suite, run by `cargo xtask test` after the Rust
//! tests: it builds the `uuidkit` wheel with maturin, installs it into a
//! virtual environment and runs pytest there.
//!
//! The environment is `$UUIDKIT_PY_VENV`, else `target/py-venv`, with
//! maturin, pytest and uuid-utils installed (CI makes a fresh one first; see
//! `.ci/run`). Without it the suite is a missing prerequisite like any other:
//! listed as not run, or under `CI=true` a failure.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::step;

/// The environment variable naming the virtual environment.
const VENV_VAR: &str = "UUIDKIT_PY_VENV";

/// The virtual environment, if it has what the suite needs.
fn venv(target: &Path) -> Result<PathBuf, String> {
    let venv = std::env::var_os(VENV_VAR).map_or_else(|| target.join("py-venv"), PathBuf::from);
    let missing: Vec<&str> = ["python", "maturin", "pytest"]
        .into_iter()
        .filter(|tool| !venv.join("bin").join(tool).is_file())
        .collect();
    if missing.is_empty() {
        Ok(venv)
    } else {
        let v = venv.display();
        Err(format!(
            "no {} in the virtual environment {v} (make it: python3 -m venv {v} && \
             {v}/bin/pip install maturin pytest uuid-utils; or set {VENV_VAR})",
            missing.join(", ")
        ))
    }
}

/// Builds, installs and tests the Python package. Returns false if a step
/// failed, or if the environment is missing under CI; otherwise a missing
/// environment is appended to the skip log.
pub fn test(root: &Path, target: &Path, skip_log: &Path) -> bool {
    let venv = match venv(target) {
        Ok(v) => v,
        Err(reason) => {
            let line = format!("uuidkit-py pytest suite: {reason}");
            return crate::missing_prerequisite(skip_log, &line);
        }
    };
    let bin = venv.join("bin");
    let wheels = target.join("py-wheel");
    let _ = std::fs::remove_dir_all(&wheels);
    let built = step(
        "maturin build (the uuidkit wheel)",
        Command::new(bin.join("maturin"))
            .current_dir(root)
            .args([
                "build",
                "--release",
                "-m",
                "crates/uuidkit-py/Cargo.toml",
                "-o",
            ])
            .arg(&wheels)
            .arg("-i")
            .arg(bin.join("python")),
    );
    if !built {
        return false;
    }
    let wheel = std::fs::read_dir(&wheels)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "whl"));
    let Some(wheel) = wheel else {
        eprintln!("xtask: maturin made no wheel in {}", wheels.display());
        return false;
    };
    step(
        "pip install the wheel",
        Command::new(bin.join("python"))
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--force-reinstall",
                "--no-deps",
            ])
            .arg(&wheel),
    ) && step(
        "pytest crates/uuidkit-py/tests/python",
        Command::new(bin.join("python")).current_dir(root).args([
            "-m",
            "pytest",
            "-q",
            "crates/uuidkit-py/tests/python",
        ]),
    )
}
