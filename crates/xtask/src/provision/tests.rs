//! Provisioning on machines that are directory trees: an empty one stands
//! for a fresh machine, and the fake installer "installs" a package by
//! creating what its probe looks for.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use super::*;

/// Makes `probe` hold under `root`: programs become scripts that exit 0.
fn materialise(root: &Path, probe: &Probe) {
    let file = |path: &str, script: bool| {
        let p = root.join(path.trim_start_matches('/').replace('*', "15"));
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, "#!/bin/sh\nexit 0\n").unwrap();
        if script {
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
    };
    match *probe {
        Probe::Program(name) => file(&format!("/usr/bin/{name}"), true),
        Probe::Path(path) => file(path, false),
        Probe::Runs(argv) => file(&format!("/usr/bin/{}", argv[0]), true),
        Probe::Any(ps) => materialise(root, &ps[0]),
        Probe::All(ps) => ps.iter().for_each(|p| materialise(root, p)),
    }
}

fn machine(root: &Path) -> Machine {
    Machine::at(
        root.to_path_buf(),
        vec!["/usr/bin".into(), "/usr/sbin".into()],
    )
}

/// An installer on a directory tree, recording what it was asked to do.
struct Fake {
    root: PathBuf,
    user_is_root: bool,
    apt_works: bool,
    cargo_works: bool,
    apt_calls: Vec<Vec<String>>,
    cargo_calls: Vec<(String, String)>,
    tool_versions: Vec<(String, String)>,
}

impl Fake {
    fn new(root: &Path, user_is_root: bool) -> Fake {
        Fake {
            root: root.to_path_buf(),
            user_is_root,
            apt_works: true,
            cargo_works: true,
            apt_calls: Vec::new(),
            cargo_calls: Vec::new(),
            tool_versions: Vec::new(),
        }
    }
}

impl Installer for Fake {
    fn has_apt(&self) -> bool {
        true
    }
    fn is_root(&self) -> bool {
        self.user_is_root
    }
    fn apt_install(&mut self, packages: &[&str]) -> bool {
        self.apt_calls
            .push(packages.iter().map(|p| (*p).to_string()).collect());
        if self.apt_works {
            for p in PACKAGES.iter().filter(|p| packages.contains(&p.name)) {
                materialise(&self.root, &p.found);
            }
        }
        self.apt_works
    }
    fn tool_version(&self, program: &str) -> Option<String> {
        let (_, v) = self.tool_versions.iter().find(|(t, _)| t == program)?;
        Some(format!("{program} {v}"))
    }
    fn cargo_install(&mut self, tool: &CargoTool, version: &str) -> bool {
        self.cargo_calls.push((tool.name.into(), version.into()));
        if self.cargo_works {
            self.tool_versions
                .push((tool.program.into(), version.into()));
        }
        self.cargo_works
    }
}

fn all_names() -> Vec<String> {
    PACKAGES.iter().map(|p| p.name.to_string()).collect()
}

#[test]
fn a_fresh_machine_as_root_gets_every_package_in_one_install() {
    let dir = tempfile::tempdir().unwrap();
    let mut fake = Fake::new(dir.path(), true);
    let outcome = provision(&machine(dir.path()), &mut fake, &no_files);
    assert_eq!(fake.apt_calls, vec![all_names()]);
    assert!(outcome.complete(), "{outcome:?}");
    assert_eq!(outcome.command_line(), None);
    assert!(outcome.left_out().is_empty());
    // Run again: nothing is missing, nothing is installed.
    let again = provision(&machine(dir.path()), &mut fake, &no_files);
    assert!(again.complete());
    assert_eq!(fake.apt_calls.len(), 1);
}

#[test]
fn a_fresh_machine_as_a_user_gets_one_line_and_builds_without_the_c_libraries() {
    let dir = tempfile::tempdir().unwrap();
    let mut fake = Fake::new(dir.path(), false);
    let outcome = provision(&machine(dir.path()), &mut fake, &no_files);
    assert!(fake.apt_calls.is_empty(), "apt-get ran without root");
    assert_eq!(outcome.packages.len(), PACKAGES.len());
    let line = outcome.command_line().unwrap();
    assert!(!line.contains('\n'), "{line}");
    let want = format!(
        "run: sudo apt-get update && sudo apt-get install -y {}",
        all_names().join(" ")
    );
    assert!(line.ends_with(&want), "{line}");
    assert_eq!(
        outcome.left_out(),
        vec![(
            Build::Crate("uuidkit-db-tests"),
            vec!["libpq-dev", "libmariadb-dev-compat"]
        )]
    );
}

#[test]
fn only_what_is_missing_is_named() {
    let dir = tempfile::tempdir().unwrap();
    for p in PACKAGES {
        if !["libmariadb-dev-compat", "nftables"].contains(&p.name) {
            materialise(dir.path(), &p.found);
        }
    }
    let mut fake = Fake::new(dir.path(), false);
    let outcome = provision(&machine(dir.path()), &mut fake, &no_files);
    assert_eq!(
        outcome.command_line().unwrap(),
        "xtask: missing libmariadb-dev-compat, nftables; to install, run: \
         sudo apt-get update && sudo apt-get install -y libmariadb-dev-compat nftables"
    );
    assert_eq!(
        outcome.left_out(),
        vec![(
            Build::Crate("uuidkit-db-tests"),
            vec!["libmariadb-dev-compat"]
        )]
    );
}

#[test]
fn a_failed_install_as_root_leaves_the_command_without_sudo() {
    let dir = tempfile::tempdir().unwrap();
    let mut fake = Fake::new(dir.path(), true);
    fake.apt_works = false;
    let outcome = provision(&machine(dir.path()), &mut fake, &no_files);
    assert_eq!(fake.apt_calls.len(), 1);
    assert!(!outcome.complete());
    let line = outcome.command_line().unwrap();
    assert!(
        line.contains("run: apt-get update && apt-get install -y "),
        "{line}"
    );
    assert!(!line.contains("sudo"), "{line}");
}

/// A workspace without lock files.
fn no_files(_: &str) -> Option<String> {
    None
}

/// A workspace whose lock file locks wasm-bindgen.
fn workspace_locks_wasm_bindgen(path: &str) -> Option<String> {
    (path == "Cargo.lock").then(|| LOCK_WITH_WASM_BINDGEN.to_string())
}

const LOCK_WITH_WASM_BINDGEN: &str = "\
[[package]]
name = \"wasm-bindgen\"
version = \"0.2.100\"
source = \"registry+https://github.com/rust-lang/crates.io-index\"

[[package]]
name = \"wasm-bindgen-backend\"
version = \"0.2.100\"
";

#[test]
fn cargo_tools_follow_the_lock_file() {
    assert_eq!(
        locked_version(LOCK_WITH_WASM_BINDGEN, "wasm-bindgen").as_deref(),
        Some("0.2.100")
    );
    assert_eq!(
        locked_version(LOCK_WITH_WASM_BINDGEN, "wasm-bindgen-cli"),
        None
    );
    let dir = tempfile::tempdir().unwrap();
    for p in PACKAGES {
        materialise(dir.path(), &p.found);
    }
    // Not used by the workspace: not installed.
    let mut fake = Fake::new(dir.path(), false);
    assert!(provision(&machine(dir.path()), &mut fake, &no_files).complete());
    assert!(fake.cargo_calls.is_empty());
    // Used: installed at the locked version, also without root; once there,
    // not again.
    let outcome = provision(
        &machine(dir.path()),
        &mut fake,
        &workspace_locks_wasm_bindgen,
    );
    assert!(outcome.complete());
    assert_eq!(
        fake.cargo_calls,
        [("wasm-bindgen-cli".into(), "0.2.100".into())]
    );
    assert!(
        provision(
            &machine(dir.path()),
            &mut fake,
            &workspace_locks_wasm_bindgen
        )
        .complete()
    );
    assert_eq!(fake.cargo_calls.len(), 1);
    // Installed at another version (one whose text merely contains the
    // locked one): installed again; failing, named.
    fake.tool_versions = vec![("wasm-bindgen-test-runner".into(), "0.2.1000".into())];
    fake.cargo_works = false;
    let outcome = provision(
        &machine(dir.path()),
        &mut fake,
        &workspace_locks_wasm_bindgen,
    );
    assert_eq!(fake.cargo_calls.len(), 2);
    assert_eq!(
        outcome.command_line().unwrap(),
        "xtask: missing wasm-bindgen-cli 0.2.100; to install, run: \
         cargo install --locked --force --debug wasm-bindgen-cli --version 0.2.100"
    );
}

#[test]
fn probes_look_under_the_root_and_along_the_search_path() {
    let dir = tempfile::tempdir().unwrap();
    let m = machine(dir.path());
    assert!(!m.found(&Probe::Program("nft")));
    materialise(dir.path(), &Probe::Path("/usr/sbin/nft"));
    // Not executable-checked, but a file in a searched directory.
    assert!(m.found(&Probe::Program("nft")));
    assert!(!m.found(&Probe::Path("/usr/lib/llvm-*/lib/libclang.so")));
    materialise(dir.path(), &Probe::Path("/usr/lib/llvm-*/lib/libclang.so"));
    assert!(m.found(&Probe::Path("/usr/lib/llvm-*/lib/libclang.so")));
    assert!(!m.found(&Probe::All(&[Probe::Program("ip"), Probe::Program("nft")])));
    assert!(m.found(&Probe::Any(&[Probe::Program("ip"), Probe::Program("nft")])));
    assert!(!m.found(&Probe::Runs(&["python3", "-c", "import venv"])));
    let failing = dir.path().join("usr/bin/python3");
    std::fs::create_dir_all(failing.parent().unwrap()).unwrap();
    std::fs::write(&failing, "#!/bin/sh\nexit 1\n").unwrap();
    std::fs::set_permissions(&failing, std::fs::Permissions::from_mode(0o755)).unwrap();
    assert!(!m.found(&Probe::Runs(&["python3", "-c", "import venv"])));
    materialise(dir.path(), &Probe::Runs(&["python3"]));
    assert!(m.found(&Probe::Runs(&["python3", "-c", "import venv"])));
}

/// `cargo metadata --no-deps` of this workspace.
fn this_workspace() -> Workspace {
    let out = crate::cargo()
        .args([
            "metadata",
            "--no-deps",
            "--format-version",
            "1",
            "--offline",
        ])
        .current_dir(crate::workspace_root())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Workspace::from_metadata(&String::from_utf8_lossy(&out.stdout)).unwrap()
}

#[test]
fn every_build_in_the_table_is_a_crate_or_feature_of_the_workspace() {
    let ws = this_workspace();
    let builds = PACKAGES
        .iter()
        .flat_map(|p| p.builds)
        .chain(CARGO_TOOLS.iter().flat_map(|t| t.builds));
    for b in builds {
        let args = cargo_args(&ws, &[(*b, vec!["x"])]);
        match b {
            Build::Feature(f) => {
                assert!(ws.has_feature(f), "{f} is not a workspace feature");
                assert!(!args[1].split(',').any(|x| x == *f), "{args:?}");
            }
            Build::Crate(k) => {
                assert!(ws.has_crate(k), "{k} is not a workspace crate");
                assert!(args.ends_with(&["--exclude".into(), (*k).into()]));
            }
        }
    }
}

#[test]
fn leaving_out_the_database_tests_keeps_every_other_feature() {
    let ws = this_workspace();
    assert_eq!(cargo_args(&ws, &[]), ["--all-features"]);
    let left_out = [(Build::Crate("uuidkit-db-tests"), vec!["libpq-dev"])];
    let args = cargo_args(&ws, &left_out);
    assert_eq!(args[0], "--features");
    assert_eq!(args[2..], ["--exclude", "uuidkit-db-tests"]);
    let on: Vec<&str> = args[1].split(',').collect();
    // The library's driver features build without the C client libraries: only the test
    // crate's clients need them.
    for f in [
        "uuidkit/serde",
        "uuidkit/postgres",
        "uuidkit/sqlx-mysql",
        "uuidkit/sqlx-0_8-sqlite",
        "uuidkit/rusqlite",
        "uuidkit/diesel",
        "uiap/serde",
    ] {
        assert!(on.contains(&f), "{f} missing from {on:?}");
    }
    assert!(
        !on.iter().any(|f| f.starts_with("uuidkit-db-tests/")),
        "{on:?}"
    );
    assert_eq!(
        ws.not_built(&left_out),
        ["every test of uuidkit-db-tests: not built (it needs libpq-dev)"]
    );
}

#[test]
fn a_feature_that_turns_on_a_left_out_one_is_left_out_too() {
    let json = r#"{"packages": [
        {"name": "a", "features": {"x": ["y"], "y": ["b/z"], "w": ["dep:q"]}, "targets": []},
        {"name": "b", "features": {"z": [], "v": []}, "targets": []}
    ]}"#;
    let ws = Workspace::from_metadata(json).unwrap();
    let args = cargo_args(&ws, &[(Build::Feature("b/z"), vec!["libz"])]);
    assert_eq!(args, ["--features", "a/w,b/v"]);
    let args = cargo_args(&ws, &[(Build::Crate("b"), vec!["protoc"])]);
    assert_eq!(args, ["--features", "a/w", "--exclude", "b"]);
}
