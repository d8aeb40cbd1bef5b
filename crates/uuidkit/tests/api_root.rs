//! The crate root holds only what most programs name; everything else lives in
//! a module named for its concept (docs/api-layout.md). This test names every
//! root item, and fails when `src/lib.rs` declares a public root item that is
//! not on the list below, so that generator plumbing put back at the root is
//! caught, and a root item moved away is noticed here too.

use std::collections::BTreeSet;

// Each root item, by its root path: this file does not compile when one of
// them leaves the root.
#[cfg(feature = "prost")]
#[allow(unused_imports)]
use uuidkit::proto;
#[cfg(feature = "serde")]
#[allow(unused_imports)]
use uuidkit::serde;
#[allow(unused_imports)]
use uuidkit::{
    Braced, GenError, Generator, Hyphenated, NameHash, NonNilUuid, ParseError, Simple, Timestamp,
    Urn, Uuid, V1Generator, V6Generator, V7Generator, V8Distributed, V8TimeGenerator, Variant,
    Version, clock, encoding, error, fmt, generator, layout, namespace, node, rand_core, uuid,
};
#[cfg(feature = "std")]
#[allow(unused_imports)]
use uuidkit::{SharedV7, rng, sync};

/// The types and traits at the root: the UUID types and what is compared
/// with or passed to them, the four text forms, the generators a program
/// makes with their trait, the two errors a program handles, and the
/// `uuid` crate's `Timestamp`, where a program moving from it names it.
const ITEMS: &[&str] = &[
    "Braced",
    "GenError",
    "Generator",
    "Hyphenated",
    "NameHash",
    "NonNilUuid",
    "ParseError",
    "SharedV7",
    "Simple",
    "Timestamp",
    "Urn",
    "Uuid",
    "V1Generator",
    "V6Generator",
    "V7Generator",
    "V8Distributed",
    "V8TimeGenerator",
    "Variant",
    "Version",
];

/// The modules, one per concept (`fmt`: the text forms, under the `uuid`
/// crate's name for them), and the re-exported `rand_core` crate.
const MODULES: &[&str] = &[
    "clock",
    "encoding",
    "error",
    "facade",
    "fmt",
    "generator",
    "layout",
    "namespace",
    "node",
    "proto",
    "rand_core",
    "rng",
    "serde",
    "snowflake",
    "sync",
];

/// Hidden hooks for the project's own tests and fuzz targets.
const HIDDEN: &[&str] = &["__differential", "__test_only"];

/// The macros exported at the root (`#[macro_export]` puts every one there,
/// wherever it is written).
const MACROS: &[&str] = &["uuid"];

fn src(path: &str) -> String {
    let path = format!("{}/src/{path}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {path}: {e}"))
}

/// The names that `pub` items at the top level of `lib.rs` put at the root:
/// `pub use` (each name of a list, or its `as` rename), `pub mod`, and any
/// other `pub` item. rustfmt keeps them unindented, and nested items indented.
fn root_names(lib: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let mut lines = lib.lines();
    while let Some(line) = lines.next() {
        let Some(rest) = line.strip_prefix("pub ") else {
            continue;
        };
        let Some(tree) = rest.strip_prefix("use ") else {
            let mut words = rest.split_whitespace().skip(1);
            let name = words.next().expect("a name after the item's keyword");
            let end = name
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(name.len());
            names.insert(name[..end].to_owned());
            continue;
        };
        let mut tree = tree.to_owned();
        while !tree.contains(';') {
            tree.push_str(lines.next().expect("a `pub use` ends with `;`"));
        }
        let tree = tree.trim_end_matches(';');
        let list = match tree.split_once('{') {
            Some((_, list)) => list.trim_end_matches('}'),
            None => tree,
        };
        for item in list.split(',').map(str::trim).filter(|i| !i.is_empty()) {
            let name = item.rsplit(" as ").next().unwrap_or(item);
            names.insert(name.rsplit("::").next().unwrap_or(name).to_owned());
        }
    }
    names
}

fn exported_macros() -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let mut dirs = vec![std::path::PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/src"
    ))];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("reading src/") {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                dirs.push(path);
                continue;
            }
            let text = std::fs::read_to_string(&path).expect("reading a source file");
            let mut exported = false;
            for line in text.lines().map(str::trim) {
                if line == "#[macro_export]" {
                    exported = true;
                } else if let Some(rest) = line.strip_prefix("macro_rules! ") {
                    if exported {
                        names.insert(rest.trim_end_matches(" {").to_owned());
                    }
                    exported = false;
                }
            }
        }
    }
    names
}

fn set(lists: &[&[&str]]) -> BTreeSet<String> {
    lists
        .iter()
        .flat_map(|l| l.iter().map(|s| (*s).to_owned()))
        .collect()
}

#[test]
fn root_declares_exactly_the_listed_items() {
    let found = root_names(&src("lib.rs"));
    let allowed = set(&[ITEMS, MODULES, HIDDEN]);
    let extra: Vec<_> = found.difference(&allowed).collect();
    let missing: Vec<_> = allowed.difference(&found).collect();
    assert!(
        extra.is_empty(),
        "public items at the crate root that are not on its list: {extra:?}; \
         put them in the module of their concept (docs/api-layout.md), or add them to \
         the list there and here"
    );
    assert!(
        missing.is_empty(),
        "listed root items that lib.rs does not declare: {missing:?}"
    );
}

#[test]
fn root_exports_exactly_the_listed_macros() {
    assert_eq!(exported_macros(), set(&[MACROS]));
}

#[test]
fn the_scanner_sees_each_form_of_root_item() {
    let lib = "pub use a::b::{C, D as E,\n    F};\npub use g::H;\npub use i as j;\n\
               pub mod k;\npub mod l {\n    pub struct Inner;\n    pub use m::N;\n}\npub fn o() {}\npub struct S<T>(T);\npub const U: u8 = 0;\n\
               pub(crate) use p::Q;\nmod r;\n";
    let names: Vec<_> = root_names(lib).into_iter().collect();
    assert_eq!(names, ["C", "E", "F", "H", "S", "U", "j", "k", "l", "o"]);
}
