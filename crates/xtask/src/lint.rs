//! `cargo xtask lint`: file size and self-contained, non-narrating sources.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::MAX_FILE_LINES;

/// Text that must not appear in code or docs, and why. Matched case-insensitively.
const FORBIDDEN: &[(&str, &str)] = &[
    ("../shared", "cites a file outside the repository"),
    ("shared/", "cites a file outside the repository"),
    (
        "uiap-decisions",
        "cites a file outside the repository (cite docs/ instead)",
    ),
    ("spec-checklist", "cites a file outside the repository"),
    (
        "decisions #",
        "cites a file outside the repository (cite docs/ instead)",
    ),
    (
        "(issue ",
        "narrates history (issue numbers belong in commits)",
    ),
    (
        "issue 1",
        "narrates history (issue numbers belong in commits)",
    ),
    (
        "issue 2",
        "narrates history (issue numbers belong in commits)",
    ),
    (
        "issue 3",
        "narrates history (issue numbers belong in commits)",
    ),
    (
        "issue 4",
        "narrates history (issue numbers belong in commits)",
    ),
    (
        "issue 5",
        "narrates history (issue numbers belong in commits)",
    ),
    (
        "issue 6",
        "narrates history (issue numbers belong in commits)",
    ),
    (
        "issue 7",
        "narrates history (issue numbers belong in commits)",
    ),
    (
        "issue 8",
        "narrates history (issue numbers belong in commits)",
    ),
    (
        "issue 9",
        "narrates history (issue numbers belong in commits)",
    ),
    ("kept for history", "narrates history"),
];

/// Text that must not appear in code (BENCHMARKS.md is where machines and figures belong).
const FORBIDDEN_IN_CODE: &[(&str, &str)] = &[
    (
        "measured on",
        "narrates history (figures belong in BENCHMARKS.md)",
    ),
    ("zen 5", "names a machine (figures belong in BENCHMARKS.md)"),
    ("zen 4", "names a machine (figures belong in BENCHMARKS.md)"),
];

/// Files the rules do not apply to: this lint's own table.
fn exempt(path: &Path) -> bool {
    path.ends_with("crates/xtask/src/lint.rs")
}

pub(crate) fn run(root: &Path) -> ExitCode {
    let mut files = Vec::new();
    collect(&root.join("crates"), &mut files);
    collect(&root.join("docs"), &mut files);
    collect(&root.join("benchmarks"), &mut files);
    for top in ["README.md", "ARCHITECTURE.md", "BENCHMARKS.md"] {
        files.push(root.join(top));
    }
    let mut problems = Vec::new();
    for path in &files {
        if exempt(path) {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        let rel = path
            .strip_prefix(root)
            .unwrap_or(path)
            .display()
            .to_string();
        check_text(&rel, &text, &mut problems);
        if is_library_source(path) {
            check_cpu_specific(&rel, &text, &mut problems);
            let n = code_lines(&text);
            if n > MAX_FILE_LINES {
                problems.push(format!(
                    "{rel}: {n} lines of non-test code (at most {MAX_FILE_LINES}): split it by concept"
                ));
            }
        }
    }
    check_readme_layout(root, &mut problems);
    if problems.is_empty() {
        println!("xtask lint: {} files checked, no problems", files.len());
        ExitCode::SUCCESS
    } else {
        for p in &problems {
            eprintln!("{p}");
        }
        eprintln!("xtask lint: {} problem(s)", problems.len());
        ExitCode::FAILURE
    }
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let name = e.file_name();
        let name = name.to_string_lossy();
        if p.is_dir() {
            // Build output, fuzzer state and vendored third-party data.
            if !matches!(
                name.as_ref(),
                "target" | "corpus" | "artifacts" | "coverage" | "testdata"
            ) {
                collect(&p, out);
            }
        } else if name.ends_with(".rs") || name.ends_with(".md") || name.ends_with(".toml") {
            out.push(p);
        }
    }
}

/// A `.rs` file under some crate's `src/` (not tests, benches or fuzz targets).
fn is_library_source(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "rs")
        && path.components().any(|c| c.as_os_str() == "src")
        && !path.components().any(|c| c.as_os_str() == "fuzz")
}

/// Lines before the file's `#[cfg(test)]` module, which by convention ends it.
fn code_lines(text: &str) -> usize {
    let lines: Vec<&str> = text.lines().collect();
    let end = lines
        .windows(2)
        .position(|w| w[0].trim() == "#[cfg(test)]" && w[1].trim_start().starts_with("mod "))
        .unwrap_or(lines.len());
    lines[..end].len()
}

/// The README's layout section names every directory under `crates/`, and nothing else, so that
/// a newcomer's first map cannot go stale.
fn check_readme_layout(root: &Path, problems: &mut Vec<String>) {
    let mut on_disk: Vec<String> = std::fs::read_dir(root.join("crates"))
        .map(|entries| {
            entries
                .flatten()
                .filter(|e| e.path().is_dir())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    on_disk.sort();
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap_or_default();
    let listed = layout_crates(&readme);
    for name in &on_disk {
        if !listed.contains(name) {
            problems.push(format!(
                "README.md: the layout section does not list crates/{name}: add a line for it"
            ));
        }
    }
    for name in &listed {
        if !on_disk.contains(name) {
            problems.push(format!(
                "README.md: the layout section lists crates/{name}, which does not exist"
            ));
        }
    }
}

/// The crate names that start lines of the code block under `## Layout`.
fn layout_crates(readme: &str) -> Vec<String> {
    let Some(section) = readme.split("\n## Layout\n").nth(1) else {
        return Vec::new();
    };
    let block = section.split("```").nth(1).unwrap_or("");
    block
        .lines()
        .filter_map(|line| line.strip_prefix("crates/"))
        .filter_map(|rest| rest.split_whitespace().next())
        .map(str::to_owned)
        .collect()
}

/// Code for one CPU or another (`target_arch`) lives in the uuidkit library alone: CI checks
/// that crate for a second architecture, and no other.
fn check_cpu_specific(rel: &str, text: &str, problems: &mut Vec<String>) {
    if rel.starts_with("crates/uuidkit/") {
        return;
    }
    for (n, line) in text.lines().enumerate() {
        if line.contains("target_arch") {
            problems.push(format!(
                "{rel}:{}: `target_arch` outside crates/uuidkit: code for one CPU belongs in \
                 uuidkit's arch/ (the one crate CI checks for aarch64)",
                n + 1
            ));
        }
    }
}

fn check_text(rel: &str, text: &str, problems: &mut Vec<String>) {
    let code = rel.ends_with(".rs");
    for (n, line) in text.lines().enumerate() {
        let lower = line.to_lowercase();
        let rules = FORBIDDEN
            .iter()
            .chain(FORBIDDEN_IN_CODE.iter().filter(|_| code));
        for (pat, why) in rules {
            if lower.contains(pat) {
                problems.push(format!("{rel}:{}: `{pat}` {why}", n + 1));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_layout_section_is_read_from_its_code_block_only() {
        let readme = "# x\n\ncrates/not-here in prose\n\n## Layout\n\n```text\ncrates/a   the a\n                 more of a\ncrates/b-c the b\n```\n\ncrates/after\n";
        assert_eq!(layout_crates(readme), ["a", "b-c"]);
        assert!(layout_crates("# no layout\n").is_empty());
    }

    #[test]
    fn cpu_specific_code_is_found_outside_the_library_only() {
        let mut problems = Vec::new();
        let text = "#[cfg(target_arch = \"x86_64\")]\nfn f() {}\n";
        check_cpu_specific("crates/uuidkit/src/arch/mod.rs", text, &mut problems);
        assert!(problems.is_empty(), "{problems:?}");
        check_cpu_specific("crates/uiap/src/wire.rs", text, &mut problems);
        assert_eq!(problems.len(), 1);
        assert!(problems[0].starts_with("crates/uiap/src/wire.rs:1: `target_arch`"));
    }

    #[test]
    fn test_module_lines_do_not_count() {
        let text = "fn a() {}\nfn b() {}\n#[cfg(test)]\nmod tests {\n  fn c() {}\n}\n";
        assert_eq!(code_lines(text), 2);
        assert_eq!(code_lines("fn a() {}\n"), 1);
    }

    #[test]
    fn narration_and_outside_references_are_found() {
        let mut p = Vec::new();
        check_text(
            "x.rs",
            "// see uiap-decisions.md #4\nlet a = 1; // fine\n// Issue 3: begins",
            &mut p,
        );
        assert_eq!(p.len(), 2, "{p:?}");
        assert!(p[0].starts_with("x.rs:1:"));
        assert!(p[1].starts_with("x.rs:3:"));
    }
}
