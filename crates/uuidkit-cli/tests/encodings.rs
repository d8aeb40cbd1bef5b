//! The short encodings: `-f` on `new` and `convert`, `--prefix`, `--from` on
//! `convert`, `inspect` and `check`, and TypeIDs read as they are. The
//! expected texts are RFC 9562's A.6 example in each encoding, checked
//! against independent references in the library's own tests.

use crate::util::*;

const A6: &str = "017f22e2-79b0-7cc3-98c4-dc0c0c07398f";

/// A6 in each `-f` form, written by the library (`uuidkit::Uuid`) itself,
/// so that the CLI is checked to pass the library's text through unchanged.
fn a6_forms() -> Vec<(&'static str, String)> {
    let u = uuidkit::Uuid::parse(A6).unwrap();
    vec![
        ("base32", u.base32().to_string()),
        ("base32hex", u.base32hex().to_string()),
        ("base58", u.base58().to_string()),
        ("base64url", u.base64url().to_string()),
        (
            "typeid",
            uuidkit::encoding::TypeId::new("", u).unwrap().to_string(),
        ),
    ]
}

#[test]
fn convert_writes_and_reads_every_encoding() {
    for (format, text) in a6_forms() {
        assert_eq!(
            ok(&["convert", "-f", format, A6]),
            format!("{text}\n"),
            "{format}"
        );
        let back = ok(&["convert", "--from", format, &text]);
        assert_eq!(back, format!("{A6}\n"), "{format}");
        // From one encoding straight to another.
        let b58 = ok(&["convert", "--from", format, "-f", "base58", &text]);
        assert_eq!(b58, format!("{}\n", a6_forms()[2].1), "{format}");
    }
    // The hex forms are still what they were.
    assert_eq!(ok(&["convert", "-f", "canonical", A6]), format!("{A6}\n"));
    // `ulid` writes base32's text; it has one case, so `-U` is refused.
    assert_eq!(
        ok(&["convert", "-f", "ulid", A6]),
        format!("{}\n", a6_forms()[0].1)
    );
    let e = fails(&["convert", "-f", "ulid", "-U", A6], 2);
    assert_contains!(e, "-U does not apply to -f ulid");
}

#[test]
fn typeid_prefix_on_new_and_convert() {
    let suffix = a6_forms()[4].1.clone();
    let out = ok(&["convert", "-f", "typeid", "--prefix", "user", A6]);
    assert_eq!(out, format!("user_{suffix}\n"));
    let out = ok(&[
        "new", "v7", "-n", "3", "-f", "typeid", "--prefix", "my_type",
    ]);
    for line in lines(&out) {
        let id = uuidkit::encoding::TypeId::parse(line).unwrap();
        assert_eq!(id.prefix(), "my_type");
        assert_eq!(id.uuid().version(), Some(uuidkit::Version::SortRand));
    }
    assert_eq!(lines(&out).len(), 3);
    let out = ok(&["new", "nil", "-f", "base58"]);
    assert_eq!(out, "1111111111111111111111\n");
}

#[test]
fn bad_prefixes_and_misplaced_prefixes_are_usage_errors() {
    let err = fails(&["new", "v4", "-f", "typeid", "--prefix", "user_"], 2);
    assert!(
        err.contains("invalid TypeID prefix character '_' at position 4: expected a-z"),
        "{err}"
    );
    let err = fails(&["new", "v4", "--prefix", "user"], 2);
    assert!(err.contains("--prefix applies to -f typeid only"), "{err}");
    let err = fails(&["convert", "-f", "base58", "--prefix", "user", A6], 2);
    assert!(err.contains("--prefix applies to -f typeid only"), "{err}");
}

#[test]
fn inspect_and_check_take_a_prefixed_typeid_as_it_is() {
    let typeid = format!("user_{}", a6_forms()[4].1);
    let described = ok(&["inspect", &typeid]);
    assert_eq!(described, ok(&["inspect", A6]));
    assert!(
        described.contains("7 (Unix Epoch time-based)"),
        "{described}"
    );
    assert_eq!(ok(&["check", &typeid]), "");
    // Other encodings need --from.
    let b58 = a6_forms()[2].1.clone();
    assert_eq!(ok(&["inspect", "--from", "base58", &b58]), described);
    assert_eq!(ok(&["check", "--from", "base58", &b58]), "");
}

#[test]
fn errors_name_the_position_and_the_alphabet() {
    let bad = "user_01h455vb4pex5vsknk084sn0Lq";
    let out = uk(&["check", bad]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        format!(
            "argument 1: invalid TypeID suffix character 'L' at position 29: expected 0-9 or a-z without i, l, o and u (lower case)\n    {bad}\n{}^\n",
            " ".repeat(4 + 29)
        )
    );
    let out = run_with_stdin(&["convert", "--from", "base58"], "1BzmjTFLHWXwiSK4y3H5i0\n");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        "uuidkit: line 1: invalid base58 character '0' at position 21: expected 1-9, A-Z or a-z, without I, O and l (input '1BzmjTFLHWXwiSK4y3H5i0')\n"
    );
    let out = uk(&["inspect", "--from", "base32", "8ZZZZZZZZZZZZZZZZZZZZZZZZZ"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("invalid base32 character '8' at position 0: expected 0-7"),
        "{err}"
    );
    let err = fails(&["check", "--strict", "--from", "base32", "x"], 2);
    assert!(err.contains("cannot be used with"), "{err}");
}

/// Every encoding the library lists is a `-f`, `--from` and `convert --to`
/// form under its identifier, written as the library writes it and read
/// back: a new library encoding is on the command line without a CLI edit.
#[test]
fn every_library_encoding_is_a_cli_form() {
    use uuidkit::encoding::Encoding;
    // Values whose base64url text begins with '-' among them (the one
    // alphabet with a '-', which clap would take for a flag).
    let uuids: Vec<uuidkit::Uuid> = (0..64u128)
        .map(|i| {
            uuidkit::Uuid::from_u128(
                i.wrapping_mul(0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c835) | (i << 122),
            )
        })
        .chain([uuidkit::Uuid::NIL, uuidkit::Uuid::MAX])
        .collect();
    let input: String = uuids.iter().map(|u| format!("{u}\n")).collect();
    let help = ok(&["convert", "--help"]);
    assert!(!Encoding::ALL.is_empty());
    for &e in Encoding::ALL {
        let mut buf = [0u8; 26];
        let want: String = uuids
            .iter()
            .map(|&u| format!("{}\n", e.encode(u, &mut buf)))
            .collect();
        for args in [["convert", "-f", e.id()], ["convert", "--to", e.id()]] {
            let out = run_with_stdin(&args, &input);
            assert_success(&out, &args);
            assert_eq!(String::from_utf8(out.stdout).unwrap(), want, "{args:?}");
        }
        let out = run_with_stdin(&["convert", "--from", e.id()], &want);
        assert_success(&out, &["convert", "--from", e.id()]);
        assert_eq!(String::from_utf8(out.stdout).unwrap(), input, "{e}");
        assert_contains!(help, format!("{}:", e.id()));
    }
}
