//! A private PostgreSQL installation with a package's files added, so a
//! test can load an extension without writing to the system's directories.
//!
//! PostgreSQL finds its share and library directories relative to the real
//! path of its own executable: when `postgres` runs from
//! `ROOT/usr/lib/postgresql/15/bin`, the server reads extension control files
//! from `ROOT/usr/share/postgresql/15/extension` and `$libdir` is
//! `ROOT/usr/lib/postgresql/15/lib` (the configured directories under
//! `ROOT`). So the private installation is a real copy of `postgres` (a
//! symbolic link would be followed back to the system's directory) and, for
//! the share and library directories, trees of symbolic links to the
//! system's files, merged with copies of the package's.

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};
use std::process::Command;

use super::process::{find_program, run};

/// Builds the installation under `root` for the server in `bin`, with the
/// files of `package` (laid out under the configured directories, as
/// `cargo pgrx package` and `make install DESTDIR=…` write them) added.
/// Returns the directory holding its `postgres`.
pub(super) fn build(bin: &Path, package: &Path, root: &Path) -> Result<PathBuf, String> {
    let bindir = pg_config(bin, "--bindir")?;
    let under = |root: &Path, dir: &Path| -> PathBuf {
        root.join(
            dir.components()
                .filter(|c| matches!(c, Component::Normal(_)))
                .collect::<PathBuf>(),
        )
    };
    let mut added = 0;
    for flag in ["--sharedir", "--pkglibdir"] {
        let dir = pg_config(bin, flag)?;
        let extra = under(package, &dir);
        added += usize::from(extra.is_dir());
        link_merged(&dir, &extra, &under(root, &dir))?;
    }
    if added == 0 {
        return Err(format!(
            "the package {} has no files under PostgreSQL's share or library directory \
             (expected {} or {})",
            package.display(),
            under(package, &pg_config(bin, "--sharedir")?).display(),
            under(package, &pg_config(bin, "--pkglibdir")?).display()
        ));
    }
    let server_dir = under(root, &bindir);
    mkdir(&server_dir)?;
    let (from, to) = (bin.join("postgres"), server_dir.join("postgres"));
    if std::fs::hard_link(&from, &to).is_err() {
        std::fs::copy(&from, &to)
            .map_err(|e| format!("cannot copy {} to {}: {e}", from.display(), to.display()))?;
    }
    Ok(server_dir)
}

/// One of `pg_config`'s directories for the server in `bin`.
pub(super) fn pg_config(bin: &Path, flag: &str) -> Result<PathBuf, String> {
    let program = find_program("pg_config", &[bin.join("pg_config")])?;
    let out = run("pg_config", Command::new(program).arg(flag))?;
    let text = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if text.starts_with('/') {
        Ok(PathBuf::from(text))
    } else {
        Err(format!(
            "pg_config {flag}: expected an absolute directory, found {text:?}"
        ))
    }
}

fn mkdir(dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))
}

/// The names in directory `dir` (none if it does not exist).
fn names(dir: &Path) -> Result<BTreeSet<std::ffi::OsString>, String> {
    match std::fs::read_dir(dir) {
        Ok(entries) => entries
            .map(|e| e.map(|e| e.file_name()))
            .collect::<Result<_, _>>()
            .map_err(|e| format!("cannot read {}: {e}", dir.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(BTreeSet::new()),
        Err(e) => Err(format!("cannot read {}: {e}", dir.display())),
    }
}

/// Makes `out` a directory of symbolic links to every entry of `base`, with
/// copies of the entries of `extra` in place of any of the same name; two
/// directories of the same name are merged the same way. `extra`'s files are
/// copied, not linked, so the server's unprivileged user can read them
/// wherever they were built.
fn link_merged(base: &Path, extra: &Path, out: &Path) -> Result<(), String> {
    mkdir(out)?;
    let (base_names, extra_names) = (names(base)?, names(extra)?);
    for name in base_names.union(&extra_names) {
        let (b, x, o) = (base.join(name), extra.join(name), out.join(name));
        if x.is_dir() {
            link_merged(&b, &x, &o)?;
        } else if extra_names.contains(name) {
            std::fs::copy(&x, &o)
                .map_err(|e| format!("cannot copy {} to {}: {e}", x.display(), o.display()))?;
        } else {
            std::os::unix::fs::symlink(&b, &o)
                .map_err(|e| format!("cannot link {} to {}: {e}", o.display(), b.display()))?;
        }
    }
    Ok(())
}
