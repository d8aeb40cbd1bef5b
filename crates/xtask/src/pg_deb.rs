//! `cargo xtask pg-deb [--pg-config PATH] [--out DIR]`: a Debian package of
//! the PostgreSQL extension, for the PostgreSQL whose `pg_config` is given
//! (by default the one the tests use: on Debian 12, PostgreSQL 15).
//!
//! The package is the tree `pg.rs` lays out (the library in `pg_config
//! --pkglibdir`, the control file and every versioned SQL script in
//! `pg_config --sharedir`/extension), with a copyright file and the control
//! data: `postgresql-N-uuidkit`, version the extension's, the architecture
//! `dpkg --print-architecture` names, depending on `postgresql-N`. It is
//! built with `dpkg-deb --root-owner-group`, so every file is root's
//! whoever builds it. `cargo xtask test` builds it too and names it to the
//! tests in [`DEB_VAR`]: they install it with `dpkg -i` into the system's
//! PostgreSQL, use and update the extension there, and remove it.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

/// The variable the extension's tests read the `.deb` from
/// (`uuidkit_pg_tests::DEB_VAR`).
pub const DEB_VAR: &str = "UUIDKIT_PG_DEB";

/// What the package's control file says beside the name, version,
/// architecture and dependency.
const MAINTAINER: &str = "uuidkit developers <uuidkit@example.invalid>";
const HOMEPAGE: &str = "https://example.invalid/uuidkit";

/// The copyright file Debian's policy asks of every package.
const COPYRIGHT: &str = "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: uuidkit
Source: https://example.invalid/uuidkit

Files: *
Copyright: the uuidkit developers
License: MIT or Apache-2.0
";

fn run(what: &str, cmd: &mut Command) -> Result<String, String> {
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run {what}: {e} (Debian's dpkg is needed)"))?;
    if !out.status.success() {
        return Err(format!(
            "{what} failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// Every file under `dir`, and the sum of their sizes.
fn files(dir: &Path) -> Result<(Vec<PathBuf>, u64), String> {
    let mut out = (Vec::new(), 0);
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d).map_err(|e| format!("{}: {e}", d.display()))? {
            let path = entry.map_err(|e| format!("{}: {e}", d.display()))?.path();
            let meta = path
                .symlink_metadata()
                .map_err(|e| format!("{}: {e}", path.display()))?;
            if meta.is_dir() {
                todo.push(path);
            } else {
                out.1 += meta.len();
                out.0.push(path);
            }
        }
    }
    Ok(out)
}

/// Builds the `.deb` of the laid-out extension `package` (for the
/// PostgreSQL `major`, at `version`) in `out`; returns its path.
pub fn build(package: &Path, major: &str, version: &str, out: &Path) -> Result<PathBuf, String> {
    let arch = run(
        "dpkg --print-architecture",
        Command::new("dpkg").arg("--print-architecture"),
    )?;
    let name = format!("postgresql-{major}-uuidkit");
    let full_version = format!("{version}-1");
    let stage = out.join(format!("{name}_{full_version}_{arch}"));
    let _ = std::fs::remove_dir_all(&stage);
    let mkdir = |d: &Path| {
        std::fs::create_dir_all(d).map_err(|e| format!("cannot create {}: {e}", d.display()))
    };
    let write = |p: &Path, text: &str| {
        std::fs::write(p, text).map_err(|e| format!("cannot write {}: {e}", p.display()))
    };
    let (payload, _) = files(package)?;
    for from in &payload {
        let to = stage.join(from.strip_prefix(package).unwrap_or(from));
        mkdir(to.parent().unwrap_or(&stage))?;
        std::fs::copy(from, &to)
            .map_err(|e| format!("cannot copy {} to {}: {e}", from.display(), to.display()))?;
    }
    let doc = stage.join("usr/share/doc").join(&name);
    mkdir(&doc)?;
    write(&doc.join("copyright"), COPYRIGHT)?;
    let (_, bytes) = files(&stage)?;
    mkdir(&stage.join("DEBIAN"))?;
    write(
        &stage.join("DEBIAN/control"),
        &format!(
            "Package: {name}\n\
             Version: {full_version}\n\
             Architecture: {arch}\n\
             Maintainer: {MAINTAINER}\n\
             Installed-Size: {}\n\
             Depends: postgresql-{major}\n\
             Section: database\n\
             Priority: optional\n\
             Homepage: {HOMEPAGE}\n\
             Description: uuidkit: RFC 9562 UUIDs in PostgreSQL {major}\n \
             The uuidkit extension: v7 keys monotonic across the cluster, v1/v3/v4/v5/v6/v8,\n \
             range bounds, short text forms, TypeID and a ulid column type.\n \
             CREATE EXTENSION uuidkit; ALTER EXTENSION uuidkit UPDATE updates from {}.\n",
            bytes.div_ceil(1024),
            earlier(&payload).join(", ")
        ),
    )?;
    let deb = out.join(format!("{name}_{full_version}_{arch}.deb"));
    run(
        "dpkg-deb --build",
        Command::new("dpkg-deb")
            .args(["--root-owner-group", "--build"])
            .arg(&stage)
            .arg(&deb),
    )?;
    let _ = std::fs::remove_dir_all(&stage);
    Ok(deb)
}

/// The earlier releases among `files` (their full scripts `uuidkit--A.sql`).
fn earlier(files: &[PathBuf]) -> Vec<String> {
    let mut versions: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let name = f.file_name()?.to_str()?;
            let v = name.strip_prefix("uuidkit--")?.strip_suffix(".sql")?;
            v.split_once("--").map(|(from, _)| from.to_string())
        })
        .collect();
    versions.sort();
    versions
}

/// `cargo xtask pg-deb [--pg-config PATH] [--out DIR]`.
pub fn command(root: &Path, args: Vec<String>) -> ExitCode {
    let mut pg_config = None;
    let mut out = None;
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        match (arg.as_str(), args.next()) {
            ("--pg-config", Some(v)) => pg_config = Some(PathBuf::from(v)),
            ("--out", Some(v)) => out = Some(PathBuf::from(v)),
            _ => {
                eprintln!("usage: cargo xtask pg-deb [--pg-config PATH] [--out DIR]");
                return ExitCode::from(2);
            }
        }
    }
    let target = crate::target_dir(root);
    let out = out.unwrap_or_else(|| target.join("uuidkit-pg").join("deb"));
    match crate::pg::deb(root, &target, pg_config.as_deref(), &out) {
        Ok(deb) => {
            println!("{}", deb.display());
            ExitCode::SUCCESS
        }
        Err(reason) => {
            if let Some(reason) = reason {
                eprintln!("xtask: cannot build the Debian package: {reason}");
            }
            ExitCode::FAILURE
        }
    }
}
