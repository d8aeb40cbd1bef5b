//! `uuidkit convert --to facade` and `--from facade`: the vector every surface
//! checks, both modes both ways, and the refusals.

use std::io::Write;

use crate::util::*;

/// uuidv47's demo key (`k0 = 0x0123456789abcdef`, `k1 = 0xfedcba9876543210`)
/// and v7, its uuidv47 façade, and the full mode's.
const KEY_HEX: &str = "efcdab89674523011032547698badcfe";
const V7: &str = "018f2d9f-9a2a-7def-8c3f-7b1a2c4d5e6f";
const UUIDV47: &str = "2463c780-7fca-4def-8c3f-7b1a2c4d5e6f";
const FULL: &str = "20d59025-677f-4fbd-9e0a-a9812b2c8948";

fn key_file(text: &str) -> tempfile::NamedTempFile {
    let mut f = tempfile::NamedTempFile::new().unwrap();
    f.write_all(text.as_bytes()).unwrap();
    f
}

#[test]
fn the_shared_vector_both_ways_in_both_modes() {
    let key = key_file(&format!("{KEY_HEX}\n"));
    let k = key.path().to_str().unwrap();
    for (mode, shown) in [("uuidv47", UUIDV47), ("full", FULL)] {
        let enc = [
            "convert",
            "--to",
            "facade",
            "--key-file",
            k,
            "--mode",
            mode,
            V7,
        ];
        assert_eq!(ok(&enc), format!("{shown}\n"), "{mode}");
        let dec = [
            "convert",
            "--from",
            "facade",
            "--key-file",
            k,
            "--mode",
            mode,
            shown,
        ];
        assert_eq!(ok(&dec), format!("{V7}\n"), "{mode}");
    }
    // full is the default mode, and -f applies to the façade.
    assert_eq!(
        ok(&["convert", "--to", "facade", "--key-file", k, V7]),
        format!("{FULL}\n")
    );
    assert_eq!(
        ok(&[
            "convert",
            "--to",
            "facade",
            "--key-file",
            k,
            "-f",
            "simple",
            V7
        ]),
        format!("{}\n", FULL.replace('-', ""))
    );
}

#[test]
fn streams_refusing_what_cannot_be_converted_by_line() {
    let key = key_file(KEY_HEX);
    let k = key.path().to_str().unwrap();
    let out = run_with_stdin(
        &["convert", "--from", "facade", "--key-file", k],
        &format!("{FULL}\n{V7}\n{FULL}\n"),
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("{V7}\n{V7}\n")
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("line 2") && err.contains("cannot decode a version 7 UUID: expected a façade"),
        "{err}"
    );
    let err = fails(&["convert", "--to", "facade", "--key-file", k, FULL], 1);
    assert!(
        err.contains("cannot make a façade of a version 4 UUID: expected version 7"),
        "{err}"
    );
}

#[test]
fn usage_errors_name_the_missing_or_bad_key() {
    let err = fails(&["convert", "--to", "facade", V7], 2);
    assert!(err.contains("expected --key-file FILE"), "{err}");
    let bad = key_file("0011");
    let b = bad.path().to_str().unwrap();
    let err = fails(&["convert", "--to", "facade", "--key-file", b, V7], 2);
    assert!(
        err.contains("a façade key has 32 hex digits (16 bytes), got 4"),
        "{err}"
    );
    let err = fails(&["convert", "--key-file", b, V7], 2);
    assert!(
        err.contains("apply to --to facade and --from facade only"),
        "{err}"
    );
    let err = fails(&["convert", "--mode", "full", V7], 2);
    assert!(
        err.contains("apply to --to facade and --from facade only"),
        "{err}"
    );
    let err = fails(
        &[
            "convert",
            "--to",
            "facade",
            "--from",
            "facade",
            "--key-file",
            b,
            V7,
        ],
        2,
    );
    assert!(err.contains("go opposite ways"), "{err}");
    let err = fails(
        &[
            "convert",
            "--to",
            "facade",
            "--key-file",
            "/nonexistent/k",
            V7,
        ],
        2,
    );
    assert!(err.contains("cannot read the façade key file"), "{err}");
}
