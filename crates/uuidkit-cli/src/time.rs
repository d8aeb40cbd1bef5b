//! Times on the command line: parsing `--at`/`range` arguments and printing RFC 3339.
//!
//! Internally a time is a count of nanoseconds since 1970-01-01T00:00:00Z (`i128`),
//! wide enough for every UUID timestamp: v1/v6 reach back to 1582 and v7 forward to
//! the year 10889, beyond what a calendar library may represent, so dates are plain
//! civil-date arithmetic: here for parsing, in `uuidkit_state::format` for printing.

/// Nanoseconds since the Unix epoch (negative before 1970).
pub type Nanos = i128;

const NS_PER_SEC: i128 = 1_000_000_000;
const NS_PER_MS: i128 = 1_000_000;

use uuidkit::layout::{
    GREGORIAN_TO_UNIX_100NS, MAX_GREGORIAN_TIMESTAMP, MAX_UNIX_TS_MS, MAX_V8_TIME_10NS,
};

/// 100-ns intervals from 1582-10-15T00:00:00Z (the Gregorian epoch of v1/v6) to the Unix epoch.
const GREGORIAN_OFFSET: i128 = GREGORIAN_TO_UNIX_100NS as i128;

/// Parses RFC 3339 (`2022-02-22T19:22:22Z`, `…+01:00`, fractional seconds), a bare date
/// (`2022-02-22`, midnight UTC) or `@UNIX_MS` (`@1645557742000`, `@1645557742000.5`).
pub fn parse(s: &str) -> Result<Nanos, String> {
    if let Some(ms) = s.strip_prefix('@') {
        return parse_unix_ms(ms).ok_or_else(|| {
            format!("expected @ followed by Unix milliseconds (like @1645557742000), found '{s}'")
        });
    }
    if is_bare_date(s) {
        return s
            .parse::<jiff::civil::Date>()
            .map(|d| d.to_zoned(jiff::tz::TimeZone::UTC))
            .and_then(|z| z)
            .map(|z| z.timestamp().as_nanosecond())
            .map_err(|e| format!("invalid date '{s}': {e}"));
    }
    match s.parse::<jiff::Timestamp>() {
        Ok(t) => Ok(t.as_nanosecond()),
        // Every time this tool prints parses back: v7 reaches the year 10889,
        // beyond the calendar library's range, and its edges.
        Err(e) => {
            if let Some(t) = parse_rfc3339_wide(s) {
                return Ok(t);
            }
            let hint = if s.parse::<jiff::civil::DateTime>().is_ok() {
                "; it has no UTC offset: append Z (UTC) or +hh:mm".to_string()
            } else {
                format!(" ({e})")
            };
            Err(format!(
                "expected RFC 3339 like 2022-02-22T19:22:22Z, a date like 2022-02-22, \
                 or @UNIX_MS like @1645557742000, found '{s}'{hint}"
            ))
        }
    }
}

/// RFC 3339 in UTC or with an offset, with a year of four or more digits
/// (`10889-08-02T05:31:50.655Z`): `None` unless every field is in range.
fn parse_rfc3339_wide(s: &str) -> Option<Nanos> {
    let (date, rest) = s.split_once(['T', 't', ' '])?;
    let (y, rest_date) = date.split_once('-')?;
    let (mo, d) = rest_date.split_once('-')?;
    let num = |t: &str, n: usize| -> Option<i128> {
        (t.len() == n && t.bytes().all(|b| b.is_ascii_digit())).then(|| t.parse().ok())?
    };
    let year = (y.len() >= 4 && y.len() <= 6 && y.bytes().all(|b| b.is_ascii_digit()))
        .then(|| y.parse::<i128>().ok())??;
    let (month, day) = (num(mo, 2)?, num(d, 2)?);
    let (time, offset) = match rest.strip_suffix(['Z', 'z']) {
        Some(t) => (t, 0),
        None => {
            let at = rest.rfind(['+', '-'])?;
            let (t, off) = rest.split_at(at);
            let (oh, om) = off[1..].split_once(':')?;
            let mins = num(oh, 2)? * 60 + num(om, 2)?;
            (t, if off.starts_with('-') { -mins } else { mins })
        }
    };
    let (hms, frac) = time.split_once('.').unwrap_or((time, ""));
    let mut parts = hms.split(':');
    let (h, mi, sec) = (
        num(parts.next()?, 2)?,
        num(parts.next()?, 2)?,
        num(parts.next()?, 2)?,
    );
    let frac_ok = frac.len() <= 9 && frac.bytes().all(|b| b.is_ascii_digit());
    let time_ok = h < 24 && mi < 60 && sec < 60 && frac_ok && !(time.ends_with('.'));
    if parts.next().is_some() || !time_ok || !(1..=12).contains(&month) {
        return None;
    }
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let month_days = [
        31,
        if leap { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    if day < 1 || day > month_days[month as usize - 1] {
        return None;
    }
    let mut ns: i128 = 0;
    for (i, b) in frac.bytes().enumerate() {
        ns += i128::from(b - b'0') * 10i128.pow(8 - i as u32);
    }
    let secs = days_from_civil(year, month, day) * 86_400 + h * 3600 + mi * 60 + sec - offset * 60;
    Some(secs * NS_PER_SEC + ns)
}

/// A proleptic Gregorian date to days since 1970-01-01 (the inverse of the
/// calendar [`format_rfc3339`] prints with).
fn days_from_civil(y: i128, m: i128, d: i128) -> i128 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn is_bare_date(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter()
            .enumerate()
            .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())
}

/// `[-]DIGITS[.DIGITS]` milliseconds, to nanoseconds (fraction truncated at 1 ns).
fn parse_unix_ms(s: &str) -> Option<Nanos> {
    let (neg, s) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    let (int, frac) = match s.split_once('.') {
        Some((i, f)) => (i, f),
        None => (s, ""),
    };
    let digits = |t: &str| t.bytes().all(|b| b.is_ascii_digit());
    if int.is_empty() || int.len() > 20 || !digits(int) || !digits(frac) {
        return None;
    }
    if s.contains('.') && frac.is_empty() {
        return None;
    }
    let mut ns = int.parse::<i128>().ok()? * NS_PER_MS;
    let mut scale = NS_PER_MS / 10;
    for b in frac.bytes() {
        ns += i128::from(b - b'0') * scale;
        scale /= 10;
    }
    Some(if neg { -ns } else { ns })
}

/// Prints a time as RFC 3339 in UTC with exactly `frac_digits` (0–9) fractional digits,
/// truncating (never rounding into the next second): the state file's own printer, one
/// calendar for both.
pub use uuidkit_state::format::rfc3339 as format_rfc3339;

/// The error for a time outside `lo..=hi`, the range of `what`, saying which
/// end it crossed (`digits`: the fractional digits the kind resolves).
#[cold]
fn out_of_range(t: Nanos, what: &str, lo: Nanos, hi: Nanos, digits: u32) -> String {
    let side = if t < lo {
        "before its first"
    } else {
        "after its last"
    };
    format!(
        "time {} is out of range for {what}: it is {side} timestamp; expected {} to {}",
        format_rfc3339(t, digits),
        format_rfc3339(lo, digits),
        format_rfc3339(hi, digits)
    )
}

/// The 60-bit Gregorian timestamp (100-ns units since 1582-10-15) of `t`, truncated
/// to 100 ns, or an error naming the representable range.
pub fn to_ts60(t: Nanos) -> Result<u64, String> {
    let ts = t.div_euclid(100) + GREGORIAN_OFFSET;
    if (0..=i128::from(MAX_GREGORIAN_TIMESTAMP)).contains(&ts) {
        Ok(ts as u64)
    } else {
        let (lo, hi) = (from_ts60(0), from_ts60(MAX_GREGORIAN_TIMESTAMP) + 99);
        Err(out_of_range(t, "v1/v6", lo, hi, 7))
    }
}

/// The time-based v8 timestamp (10-ns units since 1970, RFC 9562 Appendix
/// B.1) of `t`, truncated to 10 ns, or an error naming the range (to 2335).
pub fn to_v8_10ns(t: Nanos) -> Result<u64, String> {
    let units = t.div_euclid(10);
    if (0..=i128::from(MAX_V8_TIME_10NS)).contains(&units) {
        Ok(units as u64)
    } else {
        let hi = i128::from(MAX_V8_TIME_10NS) * 10 + 9;
        Err(out_of_range(t, "v8 (time-based)", 0, hi, 8))
    }
}

/// The time of a 60-bit Gregorian timestamp.
pub fn from_ts60(ts: u64) -> Nanos {
    (i128::from(ts) - GREGORIAN_OFFSET) * 100
}

/// The v7 millisecond timestamp at or before `t` (`ceil = false`) or at or after it.
pub fn to_unix_ms(t: Nanos, ceil: bool) -> Result<u64, String> {
    let ms = if ceil {
        t.div_euclid(NS_PER_MS) + i128::from(t.rem_euclid(NS_PER_MS) != 0)
    } else {
        t.div_euclid(NS_PER_MS)
    };
    if (0..=i128::from(MAX_UNIX_TS_MS)).contains(&ms) {
        Ok(ms as u64)
    } else {
        let hi = from_unix_ms(MAX_UNIX_TS_MS) + NS_PER_MS - 1;
        Err(out_of_range(t, "v7", 0, hi, 3))
    }
}

/// The time of a v7 millisecond timestamp.
pub fn from_unix_ms(ms: u64) -> Nanos {
    i128::from(ms) * NS_PER_MS
}

#[cfg(test)]
mod tests {
    use super::*;

    const A1: Nanos = 1_645_557_742_000_000_000; // 2022-02-22T19:22:22Z

    #[test]
    fn parses_every_form() {
        assert_eq!(parse("2022-02-22T19:22:22Z").unwrap(), A1);
        assert_eq!(parse("2022-02-22T14:22:22-05:00").unwrap(), A1);
        assert_eq!(parse("@1645557742000").unwrap(), A1);
        assert_eq!(parse("@1645557742000.5").unwrap(), A1 + 500_000);
        assert_eq!(parse("@-1").unwrap(), -1_000_000);
        assert_eq!(
            parse("2022-02-22").unwrap(),
            A1 - (19 * 3600 + 22 * 60 + 22) * NS_PER_SEC
        );
        assert_eq!(
            parse("2022-02-22T19:22:22.1234567Z").unwrap(),
            A1 + 123_456_700
        );
    }

    #[test]
    fn rejects_with_reasons() {
        let e = parse("2022-02-22T19:22:22").unwrap_err();
        assert!(e.contains("no UTC offset"), "{e}");
        let e = parse("@12x").unwrap_err();
        assert!(e.contains("found '@12x'"), "{e}");
        assert!(parse("@").is_err());
        assert!(parse("@1.").is_err());
        assert!(parse("yesterday").is_err());
        assert!(parse("2022-13-01").is_err());
    }

    #[test]
    fn formats_rfc3339() {
        assert_eq!(format_rfc3339(A1, 3), "2022-02-22T19:22:22.000Z");
        assert_eq!(
            format_rfc3339(A1 + 123_456_789, 7),
            "2022-02-22T19:22:22.1234567Z"
        );
        assert_eq!(format_rfc3339(0, 0), "1970-01-01T00:00:00Z");
        assert_eq!(format_rfc3339(-1, 9), "1969-12-31T23:59:59.999999999Z");
        assert_eq!(
            format_rfc3339(from_ts60(0), 7),
            "1582-10-15T00:00:00.0000000Z"
        );
        // D3: the 60-bit timestamp ends in 5236, not 5623.
        assert!(format_rfc3339(from_ts60(MAX_GREGORIAN_TIMESTAMP), 7).starts_with("5236-03-31T"));
        assert!(format_rfc3339(from_unix_ms(MAX_UNIX_TS_MS), 3).starts_with("10889-08-02T"));
    }

    #[test]
    fn wide_years_parse_with_every_field_checked() {
        let last = from_unix_ms(MAX_UNIX_TS_MS);
        assert_eq!(parse("10889-08-02T05:31:50.655Z"), Ok(last));
        assert_eq!(parse("10889-08-02T07:31:50.655+02:00"), Ok(last));
        assert_eq!(
            parse("9999-12-31T23:59:59.999999999Z").map(|t| format_rfc3339(t, 9)),
            Ok("9999-12-31T23:59:59.999999999Z".to_string())
        );
        assert!(
            parse("10000-02-29T00:00:00Z").is_ok(),
            "10000 is a leap year"
        );
        for bad in [
            "10001-02-29T00:00:00Z",
            "10000-13-01T00:00:00Z",
            "10000-01-01T24:00:00Z",
            "10000-01-01T00:00:00",
            "10000-01-01T00:00:00.Z",
            "10000-1-01T00:00:00Z",
            "10000-01-01T00:00:00+1:00",
        ] {
            let e = parse(bad).unwrap_err();
            assert!(e.contains(&format!("found '{bad}'")), "{e}");
        }
    }

    #[test]
    fn gregorian_round_trip() {
        assert_eq!(to_ts60(A1).unwrap(), 0x1EC9414C232AB00);
        assert_eq!(from_ts60(0x1EC9414C232AB00), A1);
        assert!(to_ts60(from_ts60(0) - 100).is_err());
        assert_eq!(to_unix_ms(A1, false).unwrap(), 0x017F22E279B0);
        assert_eq!(to_unix_ms(A1 + 1, true).unwrap(), 0x017F22E279B1);
        assert_eq!(to_unix_ms(A1 + 1, false).unwrap(), 0x017F22E279B0);
        let e = to_unix_ms(-1, false).unwrap_err();
        assert!(e.contains("out of range for v7"), "{e}");
    }

    /// What `parse` promises for any input: an error says what was expected
    /// and quotes the whole input; a time in years 1 to 10889 prints and parses
    /// back to itself.
    fn parse_keeps_its_promises(s: &str) -> Result<(), proptest::test_runner::TestCaseError> {
        match parse(s) {
            Err(e) => {
                proptest::prop_assert!(
                    e.starts_with("expected ") || e.starts_with("invalid date "),
                    "{}",
                    e
                );
                proptest::prop_assert!(
                    e.contains(&format!("'{s}'")),
                    "{} does not quote {:?}",
                    e,
                    s
                );
            }
            Ok(t) => {
                const YEAR_1: Nanos = -62_135_596_800 * NS_PER_SEC;
                const YEAR_10890: Nanos = 281_500_000_000 * NS_PER_SEC;
                if (YEAR_1..YEAR_10890).contains(&t) {
                    let text = format_rfc3339(t, 9);
                    proptest::prop_assert_eq!(parse(&text), Ok(t), "{} from {:?}", text, s);
                }
            }
        }
        Ok(())
    }

    proptest::proptest! {
        #[test]
        fn parse_never_panics(s in "\\PC{0,40}") {
            parse_keeps_its_promises(&s)?;
        }

        #[test]
        fn parse_never_panics_on_near_misses(s in "@?-?[0-9]{0,24}(\\.[0-9]{0,12})?|[0-9]{4}-[0-9]{2}-[0-9]{2}([T ][0-9:.]{0,18}(Z|[+-][0-9:]{0,6})?)?") {
            parse_keeps_its_promises(&s)?;
        }

        /// Printing with 9 digits and parsing back is the identity, from 1582
        /// to the last v7 time in 10889 (the calendar library stops at 9999).
        #[test]
        fn rfc3339_round_trip(t in -12_219_292_800_000_000_000i128..281_474_976_710_656_000_000i128) {
            let text = format_rfc3339(t, 9);
            proptest::prop_assert_eq!(parse(&text).unwrap(), t, "{}", text);
        }

        /// Truncation to 100 ns: from_ts60(to_ts60(t)) <= t < that + 100 ns.
        #[test]
        fn ts60_truncates(t in -12_219_292_800_000_000_000i128..100_000_000_000_000_000_000i128) {
            let back = from_ts60(to_ts60(t).unwrap());
            proptest::prop_assert!(back <= t && t < back + 100);
        }
    }
}
