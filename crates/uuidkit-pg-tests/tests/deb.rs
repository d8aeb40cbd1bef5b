//! The Debian package (`cargo xtask pg-deb`), installed for real: `dpkg -i` into the system's
//! PostgreSQL, `CREATE EXTENSION uuidkit` in a throwaway cluster of that installation, the
//! update from every earlier release there (`upgrade::check_updates`), then `dpkg -r` and
//! `dpkg --purge`, after which PostgreSQL's directories the package wrote into list exactly what
//! they listed before, and its documentation directory is gone. It needs root; the package is
//! removed again by a guard whatever happens, and the test refuses to run where the package is
//! already installed (it would remove it).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use test_support::db::Postgres;
use uuidkit_pg_tests::DEB_VAR;

fn run(program: &str, args: &[&str]) -> Result<String, String> {
    let out = Command::new(program)
        .args(args)
        .output()
        .map_err(|e| format!("cannot run {program}: {e}"))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(format!(
            "{program} {args:?} failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// The `.deb`, as root, with `dpkg`; or why the test cannot run.
fn prerequisites() -> Result<PathBuf, String> {
    let deb = std::env::var_os(DEB_VAR)
        .map(PathBuf::from)
        .ok_or_else(|| {
            format!("{DEB_VAR} is not set: `cargo xtask test` builds the package and sets it")
        })?;
    if !deb.is_file() {
        return Err(format!("{DEB_VAR}={}: no such file", deb.display()));
    }
    let uid = run("id", &["-u"])?;
    if uid.trim() != "0" {
        return Err(format!(
            "installing a package needs root (running as uid {})",
            uid.trim()
        ));
    }
    Ok(deb)
}

/// The package's status in dpkg's database (`install ok installed`, …), or `None` if dpkg
/// does not know it.
fn status(package: &str) -> Option<String> {
    run("dpkg-query", &["-W", "-f=${Status}", package])
        .ok()
        .filter(|s| !s.is_empty())
}

/// Removes the package when dropped, so that a failing test leaves the system as it was.
struct Installed<'a>(&'a str);

impl Drop for Installed<'_> {
    fn drop(&mut self) {
        if let Err(e) = run("dpkg", &["--purge", self.0]) {
            eprintln!("removing {} after the test: {e}", self.0);
        }
    }
}

/// Every path under `dirs` (recursively).
fn listing(dirs: &[PathBuf]) -> BTreeSet<PathBuf> {
    let mut out = BTreeSet::new();
    let mut todo: Vec<PathBuf> = dirs.to_vec();
    while let Some(dir) = todo.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                todo.push(path.clone());
            }
            out.insert(path);
        }
    }
    out
}

/// The fields `names` of the package's control data.
fn control_fields<const N: usize>(deb: &str, names: [&str; N]) -> [String; N] {
    let mut args = vec!["-f", deb];
    args.extend(names);
    let fields = run("dpkg-deb", &args).unwrap();
    names.map(|name| {
        fields
            .lines()
            .find_map(|l| l.strip_prefix(name)?.strip_prefix(": "))
            .unwrap_or_else(|| panic!("{deb}: no {name} field in {fields}"))
            .trim()
            .to_string()
    })
}

/// In a throwaway cluster of the system's installation: `CREATE EXTENSION uuidkit` from the
/// installed package, then the updates from every earlier release. Returns the version created
/// and what the updates compared.
fn create_and_update() -> (String, crate::upgrade::Updated) {
    let settings = [
        ("shared_preload_libraries", "uuidkit"),
        ("uuidkit.worker_id", "5"),
    ];
    let pg = Postgres::start_with(&settings).unwrap();
    pg.query("CREATE EXTENSION uuidkit").unwrap();
    assert_eq!(pg.query("SELECT uuidkit.v7_scope()").unwrap(), "cluster");
    let created = pg
        .query("SELECT extversion FROM pg_extension WHERE extname = 'uuidkit'")
        .unwrap();
    (
        created.trim().to_string(),
        crate::upgrade::check_updates(&pg),
    )
}

#[test]
fn the_debian_package_installs_creates_updates_and_removes_cleanly() {
    let name = "the_debian_package_installs_creates_updates_and_removes_cleanly";
    let deb = match prerequisites() {
        Ok(deb) => deb,
        Err(reason) => return test_support::skip(name, reason),
    };
    let deb_str = deb.to_str().unwrap();
    let [package, version, arch] = control_fields(deb_str, ["Package", "Version", "Architecture"]);
    let package = package.as_str();
    // One run at a time on a machine: two would install and remove the same package.
    let lock = std::fs::File::create(std::env::temp_dir().join("uuidkit-pg-deb-test.lock"))
        .and_then(|f| f.lock().map(|()| f))
        .unwrap();
    if let Some(s) = status(package).filter(|s| !s.ends_with("not-installed")) {
        return test_support::skip(
            name,
            format!("{package} is installed here ({s}): the test would remove it"),
        );
    }

    // What the package writes: files under these directories.
    let payload: Vec<PathBuf> = run("dpkg-deb", &["-c", deb_str])
        .unwrap()
        .lines()
        .filter_map(|l| l.split_whitespace().last())
        .filter(|p| !p.ends_with('/'))
        .map(|p| Path::new("/").join(p.trim_start_matches("./")))
        .collect();
    // PostgreSQL's two directories are listed whole before and after; the package's own
    // documentation directory must not exist before or after (the rest of /usr/share/doc is
    // other packages', which the machine may be installing meanwhile).
    let dirs: Vec<PathBuf> = [
        Postgres::pg_config("--sharedir").unwrap().join("extension"),
        Postgres::pg_config("--pkglibdir").unwrap(),
    ]
    .into();
    let doc = Path::new("/usr/share/doc").join(package);
    assert!(
        payload
            .iter()
            .all(|f| f.starts_with(&doc) || dirs.iter().any(|d| f.starts_with(d))),
        "the package writes outside {dirs:?} and {}: {payload:#?}",
        doc.display()
    );
    assert!(!doc.exists(), "{} exists before the install", doc.display());
    let before = listing(&dirs);

    let guard = Installed(package);
    run("dpkg", &["-i", deb_str]).unwrap();
    assert_eq!(status(package).as_deref(), Some("install ok installed"));
    for file in &payload {
        assert!(file.is_file(), "{} not installed", file.display());
    }
    let (created, updated) = create_and_update();

    run("dpkg", &["-r", package]).unwrap();
    let left: Vec<&PathBuf> = payload.iter().filter(|f| f.exists()).collect();
    assert!(left.is_empty(), "left after dpkg -r: {left:#?}");
    run("dpkg", &["--purge", package]).unwrap();
    assert!(
        status(package).is_none_or(|s| s.ends_with("not-installed")),
        "{package} still known to dpkg"
    );
    drop(guard);
    assert!(!doc.exists(), "{} left after dpkg --purge", doc.display());
    let after = listing(&dirs);
    let added: Vec<_> = after.difference(&before).collect();
    let removed: Vec<_> = before.difference(&after).collect();
    assert!(
        added.is_empty() && removed.is_empty(),
        "after dpkg --purge: left behind {added:#?}, gone {removed:#?}"
    );
    // What ran, for the test log: a skipped test prints none of it.
    println!(
        "{package} {version} ({arch}): dpkg -i installed {} files; CREATE EXTENSION uuidkit {} (v7 scope \
         cluster); ALTER EXTENSION UPDATE from {} to {}: {} objects as a fresh install's, {} functions called \
         alike, column defaults kept; dpkg -r left {} of {} files; dpkg --purge: {} entries under {} as before",
        payload.len(),
        created,
        updated.from.join(", "),
        updated.to,
        updated.objects,
        updated.functions,
        left.len(),
        payload.len(),
        after.len(),
        dirs.iter()
            .map(|d| d.display().to_string())
            .collect::<Vec<_>>()
            .join(" and "),
    );
    drop(lock);
}
