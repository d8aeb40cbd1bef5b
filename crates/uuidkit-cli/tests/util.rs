//! Helpers: run the binary, check exit codes and streams exactly.

use std::process::Output;

/// The binary under test.
pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_uuidkit")
}

/// `uuidkit ARGS…` as an assert_cmd command.
pub fn uk(args: &[&str]) -> assert_cmd::Command {
    let mut c = assert_cmd::Command::new(bin());
    c.args(args);
    c
}

/// Runs `uuidkit ARGS…` with `stdin`, returning the raw output.
pub fn run_with_stdin(args: &[&str], stdin: &str) -> Output {
    uk(args).write_stdin(stdin).output().expect("spawn uuidkit")
}

/// Runs `uuidkit ARGS…`, asserts exit 0 and an empty stderr, returns stdout.
pub fn ok(args: &[&str]) -> String {
    let out = uk(args).output().expect("spawn uuidkit");
    assert_success(&out, args);
    String::from_utf8(out.stdout).expect("utf-8 stdout")
}

/// Asserts exit 0 and an empty stderr.
pub fn assert_success(out: &Output, what: &[&str]) {
    assert!(
        out.status.success() && out.stderr.is_empty(),
        "uuidkit {what:?}: status {:?}, stderr {:?}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Runs `uuidkit ARGS…`, asserts exit `code` and an empty stdout, returns stderr.
pub fn fails(args: &[&str], code: i32) -> String {
    let out = uk(args).output().expect("spawn uuidkit");
    assert_eq!(
        out.status.code(),
        Some(code),
        "uuidkit {args:?}: stderr {:?}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stdout.is_empty(), "uuidkit {args:?} wrote to stdout");
    String::from_utf8(out.stderr).expect("utf-8 stderr")
}

/// The output's lines.
pub fn lines(s: &str) -> Vec<&str> {
    s.lines().collect()
}

/// True for the canonical lowercase hyphenated form.
pub fn is_canonical(s: &str) -> bool {
    s.len() == 36
        && s.char_indices().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => c == '-',
            _ => matches!(c, '0'..='9' | 'a'..='f'),
        })
}

/// The UUID's 128 bits, from its canonical form.
pub fn bits(s: &str) -> u128 {
    u128::from_str_radix(&s.replace('-', ""), 16).expect("hex")
}

/// Version nibble and variant bits (top two of octet 8).
pub fn version_variant(s: &str) -> (u8, u8) {
    let b = bits(s);
    (((b >> 76) & 0xf) as u8, ((b >> 62) & 0b11) as u8)
}

/// Asserts that `text` contains `needle`, showing both on failure.
macro_rules! assert_contains {
    ($text:expr, $needle:expr) => {{
        let (t, n): (&str, &str) = (&$text, &$needle);
        assert!(t.contains(n), "expected {n:?} in:\n{t}");
    }};
}
