//! The PostgreSQL extension (`crates/uuidkit-pg`), built outside the
//! workspace: its pgrx features are mutually exclusive, so the workspace's
//! `--all-features` cannot build it.
//!
//! `cargo xtask test` packages it here for the PostgreSQL the tests start,
//! into `target/uuidkit-pg/package`, then runs the workspace's tests with
//! [`PACKAGE_VAR`] naming the package: the crate `uuidkit-pg-tests` loads it
//! into throwaway servers. The package is what `cargo pgrx package` makes,
//! without `cargo-pgrx` (a large program to install): `cargo build` of the
//! library with the pgrx feature of that PostgreSQL, then the control file
//! and the SQL script that pgrx's own schema code writes from the library
//! (see `pg_schema.rs`). Without PostgreSQL's server headers that is a
//! missing prerequisite like any other: listed as not run, or under
//! `CI=true` a failure.
//!
//! `cargo xtask pg-bench [CRITERION ARGS…]` packages it the same way and
//! runs its benchmarks (`cargo bench -p uuidkit-pg-tests --bench sql`);
//! `cargo xtask pg-clippy` lints it with the package build's arguments;
//! `cargo xtask pg-deb` packages it and makes a Debian package of it
//! (`pg_deb.rs`). Besides the generated script, the package carries the
//! scripts kept in `crates/uuidkit-pg/sql`: each earlier release's full
//! script and the update scripts between releases.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use test_support::db::Postgres;

use crate::{cargo, pg_schema, step};

/// The variable the extension's tests read the package directory from
/// (`uuidkit_pg_tests::PACKAGE_VAR`).
pub const PACKAGE_VAR: &str = "UUIDKIT_PG_PACKAGE";

/// The extension crate, relative to the workspace root.
const CRATE: &str = "crates/uuidkit-pg";

/// The extension's manifest.
fn manifest(root: &Path) -> Result<(PathBuf, String), String> {
    let path = root.join(CRATE).join("Cargo.toml");
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    Ok((path, text))
}

/// The value of the first line `key = "value"` of `manifest` (the
/// package's `version` comes before any dependency's).
fn manifest_value(manifest: &(PathBuf, String), key: &str) -> Result<String, String> {
    let prefix = format!("{key} = \"");
    manifest
        .1
        .lines()
        .find_map(|l| l.trim().strip_prefix(prefix.as_str()))
        .and_then(|rest| rest.split('"').next())
        .map(str::to_string)
        .ok_or_else(|| format!("{}: expected a line `{key} = \"…\"`", manifest.0.display()))
}

/// What packaging needs: the extension pinning the pgrx this program reads
/// schemas with, and the `pg_config` given (else that of the server the
/// tests start) with its server headers. Returns that `pg_config`.
fn prerequisites(root: &Path, pg_config: Option<&Path>) -> Result<PathBuf, String> {
    let pinned = manifest_value(&manifest(root)?, "pgrx")?;
    if pinned != format!("={}", pg_schema::PGRX_VERSION) {
        return Err(format!(
            "{CRATE}/Cargo.toml pins pgrx {pinned:?}, xtask reads schemas of pgrx ={} \
             (pgrx-sql-entity-graph in crates/xtask/Cargo.toml): expected the same version",
            pg_schema::PGRX_VERSION
        ));
    }
    let pg_config = match pg_config {
        Some(p) => p.to_path_buf(),
        None => Postgres::pg_config("--bindir")?.join("pg_config"),
    };
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

/// The pgrx feature for the PostgreSQL of `pg_config` (`pg15` for
/// "PostgreSQL 15.18 (Debian 15.18-0+deb12u1)").
fn pg_feature(pg_config: &Path) -> Result<String, String> {
    let version = run_pg_config(pg_config, "--version")?;
    let version = version.to_string_lossy();
    version
        .strip_prefix("PostgreSQL ")
        .and_then(|v| v.split(|c: char| !c.is_ascii_digit()).next())
        .filter(|major| !major.is_empty())
        .map(|major| format!("pg{major}"))
        .ok_or_else(|| {
            format!("pg_config --version: expected \"PostgreSQL N…\", found {version:?}")
        })
}

/// `path` under `root`, as `make install DESTDIR=root` places it.
fn under(root: &Path, path: &Path) -> PathBuf {
    root.join(path.strip_prefix("/").unwrap_or(path))
}

/// `cargo SUBCOMMAND` of the extension's library, in release for the
/// PostgreSQL of `pg_config`, into `target`. Its lints (`clippy`) and its
/// package (`build`) run with these same arguments, so the second reuses
/// the first's bindings: generating them from the server headers is most of
/// a cold build.
fn release_cargo(
    subcommand: &str,
    root: &Path,
    target: &Path,
    pg_config: &Path,
    manifest: &Path,
) -> Result<Command, String> {
    let mut cmd = cargo();
    cmd.current_dir(root)
        .args([
            subcommand,
            "--release",
            "--lib",
            "--no-default-features",
            "--features",
        ])
        .arg(pg_feature(pg_config)?)
        .arg("--manifest-path")
        .arg(manifest)
        // As `cargo pgrx` builds it: the linker must keep the section
        // holding the SQL schema, which nothing references.
        .args(["--config", pg_schema::KEEP_SECTION])
        // Its own target directory: it is its own workspace.
        .env("CARGO_TARGET_DIR", target)
        // pgrx's build reads this instead of `cargo pgrx init`'s ~/.pgrx.
        .env("PGRX_PG_CONFIG_PATH", pg_config);
    Ok(cmd)
}

/// `cargo xtask pg-clippy`: the extension's lints, as warnings that fail,
/// built as [`package_for_tests`] builds it.
pub fn clippy(root: &Path) -> ExitCode {
    let target = crate::target_dir(root).join("uuidkit-pg");
    let ok = prerequisites(root, None).and_then(|pg_config| {
        let mut cmd = release_cargo("clippy", root, &target, &pg_config, &manifest(root)?.0)?;
        cmd.args(["--", "-D", "warnings"]);
        Ok(step("cargo clippy (the PostgreSQL extension)", &mut cmd))
    });
    match ok {
        Ok(ok) => crate::exit(ok),
        Err(e) => {
            eprintln!("xtask: cannot lint the extension: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Builds the extension with plain `cargo build` and lays out what `cargo
/// pgrx package` would: the library, the control file and the SQL script
/// under the installation's directories in `out`.
fn build_and_lay_out(
    root: &Path,
    target: &Path,
    pg_config: &Path,
    out: &Path,
) -> Result<bool, String> {
    let manifest = manifest(root)?;
    let built = step(
        "cargo build (the PostgreSQL extension, crates/uuidkit-pg)",
        &mut release_cargo("build", root, target, pg_config, &manifest.0)?,
    );
    if !built {
        return Ok(false);
    }
    let version = manifest_value(&manifest, "version")?;
    let control = std::fs::read_to_string(root.join(CRATE).join("uuidkit.control"))
        .map_err(|e| format!("cannot read {CRATE}/uuidkit.control: {e}"))?
        .replace("@CARGO_VERSION@", &version);
    let library = target.join("release").join("libuuidkit_pg.so");
    let sql = pg_schema::sql(&library, &control, "uuidkit_pg")?;
    let ext = under(out, &run_pg_config(pg_config, "--sharedir")?).join("extension");
    let lib = under(out, &run_pg_config(pg_config, "--pkglibdir")?);
    for dir in [&ext, &lib] {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let write = |path: PathBuf, bytes: &[u8]| {
        std::fs::write(&path, bytes).map_err(|e| format!("cannot write {}: {e}", path.display()))
    };
    write(ext.join("uuidkit.control"), control.as_bytes())?;
    write(ext.join(format!("uuidkit--{version}.sql")), sql.as_bytes())?;
    for script in versioned_scripts(&root.join(CRATE).join("sql"), &version)? {
        let to = ext.join(script.file_name().unwrap_or_default());
        std::fs::copy(&script, &to)
            .map_err(|e| format!("cannot copy {} to {}: {e}", script.display(), to.display()))?;
    }
    std::fs::copy(&library, lib.join("uuidkit.so"))
        .map_err(|e| format!("cannot copy {}: {e}", library.display()))?;
    Ok(true)
}

/// The SQL scripts kept in `dir` (the extension's `sql/`) beside the one
/// generated for `version`: the frozen full scripts of earlier releases
/// (`uuidkit--A.sql`, as that release generated them) and the hand-written
/// update scripts (`uuidkit--A--B.sql`). Checks that every earlier release
/// can be updated to `version` through them, so that a release cannot be
/// packaged without its update script.
fn versioned_scripts(dir: &Path, version: &str) -> Result<Vec<PathBuf>, String> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    let mut scripts = Vec::new();
    let mut releases = Vec::new();
    let mut updates = std::collections::BTreeMap::new();
    for entry in entries {
        let path = entry
            .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
            .path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        let versions = name
            .strip_prefix("uuidkit--")
            .and_then(|n| n.strip_suffix(".sql"))
            .ok_or_else(|| {
                format!(
                    "{}: expected uuidkit--A.sql or uuidkit--A--B.sql",
                    path.display()
                )
            })?;
        match versions.split_once("--") {
            Some((from, to)) => {
                updates.insert(from.to_string(), to.to_string());
            }
            None if versions == version => {
                return Err(format!(
                    "{}: the script of the version being built ({version}) is generated, not kept",
                    path.display()
                ));
            }
            None => releases.push(versions.to_string()),
        }
        scripts.push(path);
    }
    for release in &releases {
        let mut at = release.as_str();
        for _ in 0..=updates.len() {
            if at == version {
                break;
            }
            at = updates.get(at).map(String::as_str).ok_or_else(|| {
                format!(
                    "{}: no update script from {at} (uuidkit--{at}--….sql) on the way from \
                     release {release} to {version}",
                    dir.display()
                )
            })?;
        }
        if at != version {
            return Err(format!(
                "{}: the update scripts from {release} loop",
                dir.display()
            ));
        }
    }
    scripts.sort();
    Ok(scripts)
}

/// Builds and packages the extension; returns the package directory.
/// `Err(None)`: the build failed (its output said why); `Err(Some(reason))`:
/// a prerequisite is missing.
fn package(root: &Path, target: &Path) -> Result<PathBuf, Option<String>> {
    package_for(root, target, None).map(|(dir, _)| dir)
}

/// [`package`] for the PostgreSQL of `pg_config` (by default the tests');
/// also returns the `pg_config` used.
fn package_for(
    root: &Path,
    target: &Path,
    pg_config: Option<&Path>,
) -> Result<(PathBuf, PathBuf), Option<String>> {
    let pg_config = prerequisites(root, pg_config).map_err(Some)?;
    let ext_target = target.join("uuidkit-pg");
    let out_dir = ext_target.join("package");
    let _ = std::fs::remove_dir_all(&out_dir);
    match build_and_lay_out(root, &ext_target, &pg_config, &out_dir) {
        Ok(true) => Ok((out_dir, pg_config)),
        Ok(false) => Err(None),
        Err(e) => {
            eprintln!("xtask: packaging the PostgreSQL extension failed: {e}");
            Err(None)
        }
    }
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

/// Packages the extension for the PostgreSQL of `pg_config` (by default
/// the tests') and builds its Debian package in `out` (see `pg_deb.rs`);
/// returns the `.deb`. Errors as [`package`]'s.
pub fn deb(
    root: &Path,
    target: &Path,
    pg_config: Option<&Path>,
    out: &Path,
) -> Result<PathBuf, Option<String>> {
    let (dir, pg_config) = package_for(root, target, pg_config)?;
    let major = pg_feature(&pg_config).map_err(Some)?;
    let major = major.trim_start_matches("pg");
    let version = manifest_value(&manifest(root).map_err(Some)?, "version").map_err(Some)?;
    crate::pg_deb::build(&dir, major, &version, out).map_err(Some)
}

/// For `cargo xtask test`, after [`package_for_tests`] made `package`: its
/// Debian package, for the tests that install it. Returns `(deb, ok)` as
/// [`package_for_tests`] does; without `dpkg-deb` the tests that need the
/// `.deb` are not run (under CI, a failure).
pub fn deb_for_tests(
    root: &Path,
    target: &Path,
    package: &Path,
    skip_log: &Path,
) -> (Option<PathBuf>, bool) {
    let made = prerequisites(root, None).and_then(|pg_config| {
        let major = pg_feature(&pg_config)?;
        let version = manifest_value(&manifest(root)?, "version")?;
        let out = target.join("uuidkit-pg").join("deb");
        crate::pg_deb::build(package, major.trim_start_matches("pg"), &version, &out)
    });
    match made {
        Ok(deb) => (Some(deb), true),
        Err(reason) => {
            let line = format!("uuidkit-pg Debian package: {reason}");
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

#[cfg(test)]
mod tests {
    use super::versioned_scripts;

    /// A `sql/` directory holding files of these names.
    fn dir(names: &[&str]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for name in names {
            std::fs::write(dir.path().join(name), "-- a script\n").unwrap();
        }
        dir
    }

    fn names(dir: &tempfile::TempDir, version: &str) -> Result<Vec<String>, String> {
        versioned_scripts(dir.path(), version).map(|paths| {
            paths
                .iter()
                .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
                .collect()
        })
    }

    #[test]
    fn every_earlier_release_must_reach_the_built_version() {
        let ok = dir(&[
            "uuidkit--0.1.0.sql",
            "uuidkit--0.1.0--0.2.0.sql",
            "uuidkit--0.2.0.sql",
            "uuidkit--0.2.0--0.3.0.sql",
        ]);
        assert_eq!(names(&ok, "0.3.0").unwrap().len(), 4);

        let gap = dir(&[
            "uuidkit--0.1.0.sql",
            "uuidkit--0.1.0--0.2.0.sql",
            "uuidkit--0.2.0.sql",
        ]);
        let err = names(&gap, "0.3.0").unwrap_err();
        assert!(err.contains("no update script from 0.2.0"), "{err}");
    }

    #[test]
    fn the_built_versions_script_and_stray_files_are_refused() {
        let kept = dir(&[
            "uuidkit--0.1.0.sql",
            "uuidkit--0.1.0--0.2.0.sql",
            "uuidkit--0.2.0.sql",
        ]);
        let err = names(&kept, "0.2.0").unwrap_err();
        assert!(err.contains("is generated, not kept"), "{err}");

        let stray = dir(&["uuidkit--0.1.0.sql", "notes.txt"]);
        let err = names(&stray, "0.2.0").unwrap_err();
        assert!(err.contains("expected uuidkit--A.sql"), "{err}");

        let looped = dir(&[
            "uuidkit--0.1.0.sql",
            "uuidkit--0.1.0--0.1.5.sql",
            "uuidkit--0.1.5--0.1.0.sql",
        ]);
        let err = names(&looped, "0.2.0").unwrap_err();
        assert!(err.contains("loop"), "{err}");
    }
}
