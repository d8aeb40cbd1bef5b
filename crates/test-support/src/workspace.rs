//! Binaries of other workspace packages, for tests that run them.
//!
//! Cargo gives a test the path of its own package's binaries only
//! (`CARGO_BIN_EXE_<name>`). A test that needs another package's binary —
//! the `uiapd` daemon for a lease's tests, the `uiap` client for the
//! daemon's — asks [`binary`], which builds it once per test process with
//! the test's own profile, so it is never stale.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock};

/// The path of binary `bin` of workspace package `package`, built for the
/// profile the running test was built with (`cargo build -p PACKAGE --bin
/// BIN`, `--release` for a release test). Built once per process; a build
/// that is up to date costs Cargo's check only. Under a whole-workspace
/// `cargo xtask test`, which builds every package's binaries itself, the
/// binary it built ([`BUILT_VAR`]).
///
/// # Panics
/// When the build fails (its stderr is in the message), or the running
/// executable is not in a Cargo target directory.
///
/// ```no_run
/// let uiap = test_support::workspace::binary("uiap-cli", "uiap");
/// assert!(uiap.ends_with("uiap"));
/// ```
pub fn binary(package: &str, bin: &str) -> PathBuf {
    static BUILT: OnceLock<Mutex<HashMap<String, PathBuf>>> = OnceLock::new();
    let built = BUILT.get_or_init(|| Mutex::new(HashMap::new()));
    let mut built = built.lock().unwrap_or_else(|e| e.into_inner());
    built
        .entry(format!("{package}/{bin}"))
        .or_insert_with(|| build(package, bin))
        .clone()
}

/// The environment variable in which `cargo xtask test` tells the features of its run: `all`
/// (`--all-features`) or a comma-separated list of `package/feature`.
pub const FEATURES_VAR: &str = "UUIDKIT_TEST_FEATURES";

/// The environment variable `cargo xtask test` sets to `1` when its `cargo test --workspace`
/// builds every test target: every package with integration tests then has its binaries in
/// the profile directory, built in that same run with its features, and [`binary`] takes them
/// as they are. A build of one package (`cargo build -p …`) unifies its dependencies' features
/// differently from the whole workspace's test build and would compile most of them again.
pub const BUILT_VAR: &str = "UUIDKIT_TEST_BINARIES_BUILT";

/// The feature arguments of a build of `package` for a test run whose features are `features`
/// (the value of [`FEATURES_VAR`], if set).
///
/// ```
/// use test_support::workspace::feature_args;
/// assert_eq!(feature_args("cli", Some("all")), ["--all-features"]);
/// assert_eq!(feature_args("cli", Some("cli/etcd,lease/pg,cli/tls")), ["--features", "etcd,tls"]);
/// assert!(feature_args("cli", Some("lease/pg")).is_empty());
/// assert!(feature_args("cli", None).is_empty());
/// ```
#[must_use]
pub fn feature_args(package: &str, features: Option<&str>) -> Vec<String> {
    match features {
        None => Vec::new(),
        Some("all") => vec!["--all-features".into()],
        Some(list) => {
            let prefix = format!("{package}/");
            let own: Vec<&str> = list
                .split(',')
                .filter_map(|f| f.strip_prefix(prefix.as_str()))
                .collect();
            if own.is_empty() {
                Vec::new()
            } else {
                vec!["--features".into(), own.join(",")]
            }
        }
    }
}

/// The profile directory (`target/debug`, `target/release`) of the running
/// test or benchmark, which Cargo runs from its `deps` directory.
fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the running executable's path");
    exe.parent()
        .and_then(Path::parent)
        .map(Path::to_path_buf)
        .expect("a test executable in a Cargo target directory")
}

fn build(package: &str, bin: &str) -> PathBuf {
    let profile = profile_dir();
    let built = profile.join(format!("{bin}{}", std::env::consts::EXE_SUFFIX));
    if std::env::var(BUILT_VAR).is_ok_and(|v| v == "1") && built.is_file() {
        return built;
    }
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command.args(["build", "--quiet", "-p", package, "--bin", bin]);
    // With the features the test run was built with (`cargo xtask test` says which): the
    // binary lands where the package's own tests find theirs (`CARGO_BIN_EXE_…`), and one
    // built with fewer features would replace theirs.
    command.args(feature_args(
        package,
        std::env::var(FEATURES_VAR).ok().as_deref(),
    ));
    if profile.file_name().is_some_and(|n| n == "release") {
        command.arg("--release");
    }
    // The same target directory as the running test, wherever that is.
    if let Some(target) = profile.parent() {
        command.arg("--target-dir").arg(target);
    }
    let out = command
        .output()
        .unwrap_or_else(|e| panic!("cannot run cargo to build {bin}: {e}"));
    assert!(
        out.status.success(),
        "cargo build -p {package} --bin {bin} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        built.exists(),
        "cargo built {bin} but {} is missing",
        built.display()
    );
    built
}
