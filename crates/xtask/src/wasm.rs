//! uuidkit's tests on `wasm32-unknown-unknown` (the crate `wasm-tests`),
//! run by `cargo xtask test` under Node.js with `wasm-bindgen-test-runner`.
//!
//! They need the target's standard library (added with `rustup` when it is
//! missing), Node.js, and the runner at exactly the wasm-bindgen version
//! `Cargo.lock` names (provisioning installs it: `provision/needs.rs`).
//! Whatever is missing makes the suite a missing prerequisite: listed as not
//! run, or under `CI=true` a failure.

use std::path::Path;
use std::process::Command;

use crate::{cargo, missing_prerequisite, provision, step};

/// The target the suite is built for.
const TARGET: &str = "wasm32-unknown-unknown";

/// The runner Cargo hands each test binary to.
const RUNNER: &str = "wasm-bindgen-test-runner";

/// Runs the suite; false if it failed, or a prerequisite is missing under CI.
pub fn test(root: &Path, skip_log: &Path) -> bool {
    if let Err(why) = prerequisites(root) {
        return missing_prerequisite(skip_log, &format!("wasm-tests on {TARGET}: {why}"));
    }
    step(
        &format!("cargo test -p wasm-tests --target {TARGET} (under Node.js)"),
        cargo()
            .current_dir(root)
            .args(["test", "-p", "wasm-tests", "--target", TARGET])
            .env("CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER", RUNNER),
    )
}

/// Why the suite cannot run, if it cannot.
fn prerequisites(root: &Path) -> Result<(), String> {
    let installed = Command::new("rustup")
        .args(["target", "list", "--installed"])
        .output()
        .map_err(|e| format!("rustup could not start: {e}"))?;
    let has_target = |out: &[u8]| String::from_utf8_lossy(out).lines().any(|l| l == TARGET);
    if !has_target(&installed.stdout)
        && !step(
            &format!("rustup target add {TARGET}"),
            Command::new("rustup").args(["target", "add", TARGET]),
        )
    {
        return Err(format!(
            "the target's standard library is missing; to install, run: rustup target add {TARGET}"
        ));
    }
    let node = Command::new("node").arg("--version").output();
    if !node.is_ok_and(|o| o.status.success()) {
        return Err("Node.js (`node`) is missing (Debian: the nodejs package)".into());
    }
    let tool = provision::CARGO_TOOLS
        .iter()
        .find(|t| t.program == RUNNER)
        .ok_or("no provisioning row installs the runner")?;
    let read = |path: &str| std::fs::read_to_string(root.join(path)).ok();
    let wanted = tool
        .wanted(&read)
        .ok_or("Cargo.lock names no wasm-bindgen")?;
    let found = provision::program_version(RUNNER);
    if found
        .as_deref()
        .is_some_and(|v| provision::reports_version(v, &wanted))
    {
        return Ok(());
    }
    Err(format!(
        "{RUNNER} {wanted} is missing (found: {}); to install, run: {}",
        found.as_deref().unwrap_or("none"),
        provision::install_command(tool, &wanted).join(" ")
    ))
}
