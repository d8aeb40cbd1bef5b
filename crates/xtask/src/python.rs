//! The Python package's test suite, run by `cargo xtask test` after the Rust
//! tests: it builds the `uuidkit` wheel with maturin, installs it into a
//! virtual environment and runs pytest there.
//!
//! The environment is `$UUIDKIT_PY_VENV`, else `target/py-venv`; when it
//! lacks maturin or pytest, [`ensure_venv`] makes it (`python3 -m venv`)
//! and installs [`PIP_PACKAGES`] from the registry. If that fails (no
//! `python3-venv`, no network), the suite is a missing prerequisite like any
//! other: listed as not run, or under `CI=true` a failure.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::step;

/// The environment variable naming the virtual environment.
const VENV_VAR: &str = "UUIDKIT_PY_VENV";

/// What the suite needs in the environment: the build tool, the test
/// runner, and the peer the compatibility tests compare against.
pub const PIP_PACKAGES: [&str; 3] = ["maturin", "pytest", "uuid-utils"];

/// The tools of the environment that are missing.
fn missing_tools(venv: &Path) -> Vec<&'static str> {
    ["python", "maturin", "pytest"]
        .into_iter()
        .filter(|tool| !venv.join("bin").join(tool).is_file())
        .collect()
}

/// The virtual environment with what the suite needs, made or completed
/// if it lacks something; else why there is none.
pub fn ensure_venv(target: &Path) -> Result<PathBuf, String> {
    let venv = std::env::var_os(VENV_VAR).map_or_else(|| target.join("py-venv"), PathBuf::from);
    if missing_tools(&venv).is_empty() {
        return Ok(venv);
    }
    let v = venv.display();
    if !venv.join("bin/python").is_file() {
        let made = step(
            &format!("python3 -m venv {v}"),
            Command::new("python3").arg("-m").arg("venv").arg(&venv),
        );
        if !made {
            return Err(format!(
                "cannot make the virtual environment {v} with `python3 -m venv` \
                 (Debian: the python3-venv package)"
            ));
        }
    }
    step(
        &format!("pip install {}", PIP_PACKAGES.join(" ")),
        Command::new(venv.join("bin/python"))
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
            ])
            .args(PIP_PACKAGES),
    );
    let missing = missing_tools(&venv);
    if missing.is_empty() {
        Ok(venv)
    } else {
        Err(format!(
            "no {} in the virtual environment {v} (`pip install {}` failed; \
             or set {VENV_VAR} to an environment that has them)",
            missing.join(", "),
            PIP_PACKAGES.join(" ")
        ))
    }
}

/// Builds, installs and tests the Python package in `venv`. Returns false
/// if a step failed, or if there is no environment under CI; otherwise a
/// missing environment is appended to the skip log.
pub fn test(root: &Path, target: &Path, venv: Result<PathBuf, String>, skip_log: &Path) -> bool {
    let venv = match venv {
        Ok(v) => v,
        Err(reason) => {
            let line = format!("uuidkit-py pytest suite: {reason}");
            if test_support::is_ci() {
                eprintln!("xtask: {line} (a missing prerequisite under CI=true)");
                return false;
            }
            let logged = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(skip_log)
                .and_then(|mut f| writeln!(f, "{line}"));
            return logged.is_ok();
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
