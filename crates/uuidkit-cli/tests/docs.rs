//! Help, version, completions and man pages.

use crate::util::*;

#[test]
fn help_and_version_exit_0() {
    let h = ok(&["--help"]);
    assert_contains!(h, "Usage: uuidkit");
    assert_contains!(h, "Exit status: 0 success, 1 invalid input");
    assert_contains!(ok(&["new", "--help"]), "--clock-seq");
    assert_eq!(
        ok(&["--version"]),
        format!("uuidkit {}\n", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn completions_for_every_shell() {
    for (shell, marker) in [
        ("bash", "_uuidkit()"),
        ("zsh", "#compdef uuidkit"),
        ("fish", "complete -c uuidkit"),
        ("elvish", "uuidkit"),
        ("powershell", "uuidkit"),
    ] {
        let out = ok(&["completions", shell]);
        assert_contains!(out, marker);
        assert_contains!(out, "inspect");
    }
    let e = fails(&["completions", "tcsh"], 2);
    assert_contains!(e, "invalid value 'tcsh'");
}

#[test]
fn man_pages() {
    let page = ok(&["man"]);
    assert!(
        page.starts_with(".ie \\n(.g .ds Aq") || page.contains(".TH uuidkit"),
        "{page}"
    );
    assert_contains!(page, ".TH uuidkit 1");
    assert_contains!(page, "inspect");
    let sub = ok(&["man", "new"]);
    assert_contains!(sub, ".TH uuidkit-new 1");
    assert_contains!(sub, "clock\\-seq");
    // Every subcommand the page lists has a page of its own.
    let listed: Vec<&str> = page
        .split("uuidkit\\-")
        .skip(1)
        .filter_map(|rest| rest.split_once("(1)").map(|(name, _)| name))
        .collect();
    assert!(listed.contains(&"help"), "{listed:?}");
    for name in &listed {
        assert_contains!(ok(&["man", name]), format!(".TH uuidkit-{name} 1"));
    }
    let e = fails(&["man", "nope"], 2);
    assert_contains!(e, "no subcommand 'nope': expected one of new, inspect");
}
