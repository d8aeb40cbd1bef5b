//! The project in `crates/uuidkit-db-tests/current-drivers`: a user's program
//! on the drivers' current releases (rusqlite 0.43, sqlx 0.9), outside the
//! workspace. The workspace itself cannot hold rusqlite 0.43: its lockfile
//! resolves every optional dependency of its members, and rusqlite 0.43's
//! libsqlite3-sys is not the one sqlx links (both `links = "sqlite3"`).

use std::path::Path;

use crate::{cargo, step};

/// The project's directory, under the workspace root.
const PROJECT: &str = "crates/uuidkit-db-tests/current-drivers";

/// Runs the project's tests with its committed lockfile (`--locked`: cargo
/// must resolve these manifests to exactly that lockfile), in the
/// workspace's target directory so the dependencies both build are built
/// once.
pub fn test(root: &Path, target: &Path) -> bool {
    let manifest = root.join(PROJECT).join("Cargo.toml");
    let mut cmd = cargo();
    cmd.current_dir(root)
        .args(["test", "--locked", "--manifest-path"])
        .arg(&manifest)
        .env("CARGO_TARGET_DIR", target);
    step(
        &format!("cargo test --locked --manifest-path {PROJECT}/Cargo.toml"),
        &mut cmd,
    )
}
