//! The integer and raw forms: `-f int` (the 128-bit value in decimal) and
//! `-f bin` (16 bytes a UUID, nothing between), written by `new`, `convert`
//! and `range`, and read back with `--from`.

use crate::util::*;

const A6: &str = "017f22e2-79b0-7cc3-98c4-dc0c0c07398f";

#[test]
fn int_is_the_value_in_decimal_and_reads_back() {
    let want = format!("{}\n", bits(A6));
    assert_eq!(ok(&["convert", "-f", "int", A6]), want);
    assert_eq!(ok(&["convert", "--to", "decimal", A6]), want);
    assert_eq!(
        ok(&["convert", "--from", "int", want.trim_end()]),
        format!("{A6}\n")
    );
    assert_eq!(
        ok(&[
            "convert",
            "-f",
            "int",
            "00000000-0000-0000-0000-000000000000",
            "ffffffff-ffff-ffff-ffff-ffffffffffff"
        ]),
        format!("0\n{}\n", u128::MAX)
    );
    // Generated ones are their hex values.
    let out = ok(&["new", "v7", "-n", "3", "-f", "int"]);
    let ints: Vec<u128> = out.lines().map(|l| l.parse().unwrap()).collect();
    assert_eq!(ints.len(), 3);
    for v in ints {
        assert_eq!((v >> 76) & 0xf, 7, "{v}");
    }
    let range = ok(&[
        "range",
        "-f",
        "int",
        "2022-02-22T19:22:22Z",
        "2022-02-22T19:22:22Z",
    ]);
    assert_eq!(range.lines().count(), 2);
    assert_eq!(
        range.lines().next().unwrap().parse::<u128>().unwrap() >> 80,
        1_645_557_742_000
    );
}

#[test]
fn bad_integers_are_refused_with_the_reason() {
    let out = run_with_stdin(
        &["convert", "--from", "int"],
        "12\n-5\n340282366920938463463374607431768211456\n1e5\n",
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "00000000-0000-0000-0000-00000000000c\n"
    );
    let err = String::from_utf8(out.stderr).unwrap();
    assert_contains!(
        err,
        "line 2: invalid character '-' at position 0: expected a decimal digit"
    );
    assert_contains!(
        err,
        "line 3: 340282366920938463463374607431768211456 is too large for 128 bits"
    );
    assert_contains!(err, "line 4: invalid character 'e' at position 1");
    // Without --from, digits are hex, as they always were: no silent reading as decimal.
    let e = fails(&["inspect", "12"], 1);
    assert_contains!(e, "invalid length 2");
}

#[test]
fn bin_is_sixteen_bytes_each_and_reads_back_as_records() {
    let u = uuidkit::Uuid::parse(A6).unwrap();
    let out = uk(&["convert", "-f", "bin", A6, A6]).output().unwrap();
    assert_success(&out, &["convert", "-f", "bin"]);
    assert_eq!(out.stdout.len(), 32);
    assert_eq!(&out.stdout[..16], u.as_bytes());
    assert_eq!(&out.stdout[16..], u.as_bytes());
    let generated = uk(&["new", "v4", "-n", "1000", "-f", "raw"])
        .output()
        .unwrap();
    assert_eq!(generated.stdout.len(), 16_000);
    // Read back: every record, a 0x0a byte inside one included.
    let mut records = generated.stdout.clone();
    records[..16].copy_from_slice(&[b'\n'; 16]);
    let back = uk(&["convert", "--from", "bin", "-f", "bin"])
        .write_stdin(records.clone())
        .output()
        .unwrap();
    assert_success(&back, &["convert", "--from", "bin"]);
    assert_eq!(back.stdout, records);
    let text = uk(&["convert", "--from", "bin"])
        .write_stdin(records[16..48].to_vec())
        .output()
        .unwrap();
    let want: String = records[16..48]
        .chunks(16)
        .map(|c| format!("{}\n", uuidkit::Uuid::from_bytes(c.try_into().unwrap())))
        .collect();
    assert_eq!(String::from_utf8(text.stdout).unwrap(), want);
}

#[test]
fn a_short_final_record_is_an_error_naming_it() {
    let mut input = uuidkit::Uuid::parse(A6).unwrap().as_bytes().to_vec();
    input.extend_from_slice(&[1, 2, 3, 4, 5, 6, 7]);
    let out = uk(&["convert", "--from", "bin"])
        .write_stdin(input.clone())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(String::from_utf8(out.stdout).unwrap(), format!("{A6}\n"));
    assert_contains!(
        String::from_utf8(out.stderr).unwrap(),
        "uuidkit: record 2: a short final record: 7 bytes, expected 16"
    );
    let out = uk(&["check", "--from", "bin"])
        .write_stdin(input)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_contains!(
        String::from_utf8(out.stdout).unwrap(),
        "record 2: a short final record"
    );
}

#[test]
fn bin_takes_no_arguments_and_no_upper_case() {
    let e = fails(&["convert", "--from", "bin", A6], 2);
    assert_contains!(e, "--from bin reads 16-byte records from standard input");
    let e = fails(&["new", "v4", "-f", "bin", "-U"], 2);
    assert_contains!(e, "-U does not apply to -f bin");
    let e = fails(&["new", "v4", "-f", "int", "-U"], 2);
    assert_contains!(e, "-U does not apply to -f int");
}
