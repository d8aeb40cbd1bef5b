//! uuidgen (util-linux) and `python -m uuid` muscle memory at the top level.

use crate::util::*;

#[test]
fn uuidgen_name_based() {
    let v5 = "2ed6657d-e927-568b-95e1-2665a8aea6a2\n";
    assert_eq!(ok(&["-s", "-n", "@dns", "-N", "www.example.com"]), v5);
    assert_eq!(
        ok(&["--sha1", "--namespace", "@dns", "--name", "www.example.com"]),
        v5
    );
    assert_eq!(
        ok(&[
            "-s",
            "-n",
            "@dns",
            "-N",
            "7777772e6578616d706c652e636f6d",
            "-x"
        ]),
        v5
    );
    assert_eq!(
        ok(&["-m", "-n", "@dns", "-N", "www.example.com"]),
        "5df41881-3aed-3515-88a7-2f4a814cf09e\n"
    );
    assert_eq!(
        ok(&[
            "--md5",
            "-n",
            "6ba7b810-9dad-11d1-80b4-00c04fd430c8",
            "-N",
            "www.example.com"
        ]),
        "5df41881-3aed-3515-88a7-2f4a814cf09e\n"
    );
}

#[test]
fn python_dash_u() {
    assert_eq!(
        ok(&["-u", "uuid5", "-n", "@dns", "-N", "www.example.com"]),
        "2ed6657d-e927-568b-95e1-2665a8aea6a2\n"
    );
    assert_eq!(
        ok(&["-u", "uuid3", "-n", "@dns", "-N", "www.example.com"]),
        "5df41881-3aed-3515-88a7-2f4a814cf09e\n"
    );
    assert_eq!(
        ok(&["-u", "uuid8", "-n", "@dns", "-N", "www.example.com"]),
        "5c146b14-3c52-8afd-938a-375d0df1fbf6\n"
    );
    for (k, v) in [
        ("uuid1", 1),
        ("uuid4", 4),
        ("uuid6", 6),
        ("uuid7", 7),
        ("uuid8", 8),
    ] {
        let out = ok(&["-u", k]);
        assert_eq!(version_variant(out.trim()), (v, 0b10), "{k}");
    }
}

#[test]
fn uuidgen_kinds_and_count() {
    for (flag, v) in [
        ("-r", 4),
        ("--random", 4),
        ("-t", 1),
        ("--time", 1),
        ("-6", 6),
        ("--time-v6", 6),
        ("-7", 7),
        ("--time-v7", 7),
    ] {
        let out = ok(&[flag, "-C", "3"]);
        let ls = lines(&out);
        assert_eq!(ls.len(), 3, "{flag}");
        for l in ls {
            assert_eq!(version_variant(l), (v, 0b10), "{flag}: {l}");
        }
    }
    assert_eq!(lines(&ok(&["-C", "4"])).len(), 4, "-C alone: v4");
}

#[test]
fn compat_usage_errors() {
    let e = fails(&["-r", "-t"], 2);
    assert_contains!(e, "cannot be used with");
    let e = fails(&["-n", "@dns", "-N", "x"], 2);
    assert_contains!(
        e,
        "need a name-based kind: -m (v3), -s (v5) or -u uuid3|uuid5|uuid8"
    );
    let e = fails(&["-s", "-N", "x"], 2);
    assert_contains!(e, "v5 is name-based: it needs -n NAMESPACE and -N NAME");
    let e = fails(&["-s", "-n", "@dns", "-N", "xyz", "-x"], 2);
    assert_contains!(e, "invalid value 'xyz' for -N with -x");
    let e = fails(&["-s", "-n", "@nope", "-N", "x"], 2);
    assert_contains!(e, "invalid value '@nope'");
    let e = fails(&["-u", "uuid2"], 2);
    assert_contains!(e, "invalid value 'uuid2'");
    // A subcommand and a compat flag do not mix.
    let e = fails(&["-r", "new", "v4"], 2);
    assert_contains!(e, "error:");
}

/// `-u uuid8` is CPython's `uuid.uuid8()`: 122 random custom bits, no time.
#[test]
fn python_uuid8_is_random() {
    let out = ok(&["-u", "uuid8", "-C", "1000"]);
    let all: Vec<u128> = lines(&out)
        .into_iter()
        .map(|l| {
            assert_eq!(version_variant(l), (8, 0b10), "{l}");
            bits(l)
        })
        .collect();
    assert_eq!(all.len(), 1000);
    let distinct: std::collections::HashSet<_> = all.iter().collect();
    assert_eq!(distinct.len(), 1000);
    // A time-based layout starts with the time: UUIDs made within a second
    // share their first 32 bits; random ones almost never do.
    let firsts: std::collections::HashSet<_> = all.iter().map(|b| b >> 96).collect();
    assert!(
        firsts.len() > 990,
        "{} distinct first 32 bits",
        firsts.len()
    );
    // Every one of the 122 free bits varies (the run is not one UUID, counted up).
    let ored = all.iter().fold(0, |acc, b| acc | (b ^ all[0]));
    assert_eq!(ored.count_ones(), 122, "{ored:032x}");
}
