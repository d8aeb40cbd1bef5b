//! What the `uuidkit` command and the lease crate pull in (docs/uiap-design.md D57): a client of
//! the daemon, never the daemon, and no async runtime.

use std::process::Command;

/// The packages `package` depends on (normal dependencies, this host), one name each.
fn normal_dependencies(package: &str) -> Vec<String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .args([
            "tree", "--quiet", "-e", "normal", "--prefix", "none", "--format", "{p}",
        ])
        .args(["-p", package])
        .output()
        .expect("cargo tree runs");
    assert!(
        out.status.success(),
        "cargo tree -p {package}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_owned))
        .collect()
}

#[test]
fn the_command_and_the_lease_pull_in_no_daemon_and_no_runtime() {
    for package in ["uuidkit-cli", "uuidkit-lease", "uiap-control"] {
        let deps = normal_dependencies(package);
        assert!(deps.iter().any(|d| d == package), "{package}: {deps:?}");
        for daemon_side in ["uiapd", "tokio", "mio", "nix", "socket2"] {
            assert!(
                !deps.iter().any(|d| d == daemon_side),
                "{package} depends on {daemon_side}"
            );
        }
    }
    // The check sees a runtime where there is one.
    assert!(normal_dependencies("uiapd").iter().any(|d| d == "tokio"));
    // The site lease is a client of the control protocol.
    assert!(
        normal_dependencies("uuidkit-cli")
            .iter()
            .any(|d| d == "uiap-control")
    );
}
