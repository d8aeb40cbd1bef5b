//! What the `uuidkit` command and the lease crate pull in (docs/uiap-design.md D57): a client of
//! the daemon, never the daemon, and — in their default builds — no async runtime.

use std::process::Command;

use test_support::turn::Turn;

/// The packages `package` depends on (normal dependencies, this host, its default features), one
/// name each.
fn normal_dependencies(package: &str) -> Vec<String> {
    dependencies_with(package, &[])
}

/// The same with the features `features` on (besides the defaults).
fn dependencies_with(package: &str, features: &[&str]) -> Vec<String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .args([
            "tree", "--quiet", "-e", "normal", "--prefix", "none", "--format", "{p}",
        ])
        .args(["-p", package])
        .args(features.iter().flat_map(|f| ["--features", f]))
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
    let _turn = Turn::of_caller();
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
    // The command's etcd and PostgreSQL leases are features, off by default: they bring tokio
    // through the lease crate (which owns the runtime), never the daemon.
    for feature in ["etcd", "postgres"] {
        let deps = dependencies_with("uuidkit-cli", &[feature]);
        assert!(deps.iter().any(|d| d == "tokio"), "--features {feature}");
        assert!(!deps.iter().any(|d| d == "uiapd"), "--features {feature}");
    }
    // The site lease is a client of the control protocol.
    assert!(
        normal_dependencies("uuidkit-cli")
            .iter()
            .any(|d| d == "uiap-control")
    );
}
