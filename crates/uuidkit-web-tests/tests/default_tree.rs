//! The integrations are features, none on by default: with its default
//! features `uuidkit` depends on exactly the crates below, so a program that
//! turns none on builds nothing it did not build before they existed.

use std::collections::BTreeSet;
use std::process::Command;

/// `cargo tree -p uuidkit -e normal` with default features, each package
/// once, as `name version`. A change here is a change to every user's
/// build: if one is meant (a new release of one of these in Cargo.lock, or a
/// dependency the core type now needs), update the list in the same commit
/// and say why there.
const EXPECTED: &[&str] = &[
    "block-buffer v0.12.1",
    "cfg-if v1.0.5",
    "cpufeatures v0.3.1",
    "crypto-common v0.2.2",
    "digest v0.11.3",
    "getrandom v0.4.3",
    "hybrid-array v0.4.15",
    "keccak v0.2.2",
    "libc v0.2.191",
    "rand_core v0.10.1",
    "sha1 v0.11.0",
    "sha2 v0.11.0",
    "sha3 v0.12.0",
    "shake v0.1.0",
    "sponge-cursor v0.1.0",
    "typenum v1.20.1",
    "uuidkit v0.1.0",
];

/// The packages in uuidkit's normal dependency tree with `features` on
/// besides the defaults, as `name version`.
///
/// For one fixed target, not the host: `cpufeatures` (x86_64) and `libc`
/// (unix) are per-target dependencies, and the list must not depend on the
/// machine the test runs on. No build is needed, only the lock file.
fn tree(features: &[&str]) -> BTreeSet<String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .args(["tree", "--quiet", "-p", "uuidkit", "-e", "normal"])
        .args(["--prefix", "none", "--format", "{p}"])
        .args(["--target", "x86_64-unknown-linux-gnu"])
        .args(features.iter().flat_map(|f| ["--features", f]))
        .output()
        .expect("cargo tree runs");
    assert!(
        out.status.success(),
        "cargo tree -p uuidkit: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter_map(|line| {
            let mut words = line.split_whitespace();
            Some(format!("{} {}", words.next()?, words.next()?))
        })
        .collect()
}

/// What is in `actual` and not in `expected` (`+`), and the reverse (`-`),
/// one package a line.
fn difference(expected: &BTreeSet<String>, actual: &BTreeSet<String>) -> String {
    let added = actual.difference(expected).map(|p| format!("+ {p}\n"));
    let removed = expected.difference(actual).map(|p| format!("- {p}\n"));
    added.chain(removed).collect()
}

#[test]
fn the_default_dependency_tree_is_fixed() {
    let expected: BTreeSet<String> = EXPECTED.iter().map(|p| (*p).to_owned()).collect();
    let actual = tree(&[]);
    assert!(
        actual == expected,
        "uuidkit's default dependency tree changed (+ entered, - left):\n{}",
        difference(&expected, &actual)
    );
    // The check sees a dependency where there is one: an integration's
    // crate enters the tree with its feature, and only then.
    let with_juniper = tree(&["juniper"]);
    let entered = difference(&expected, &with_juniper);
    assert!(entered.contains("+ juniper v"), "{entered}");
    assert!(!entered.lines().any(|l| l.starts_with("- ")), "{entered}");
}
