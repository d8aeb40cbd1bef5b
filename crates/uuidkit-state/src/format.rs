//! The state file: a versioned, checksummed, human-readable text format.
//!
//! ```text
//! uuidkit-state 1
//! # RFC 9562 section 6.3 generator state, shared by every uuidkit process that uses this file.
//! # Every UUID issued under it is below the high-water mark (hwm) of its version.
//! # The last line checksums all lines above it; a file that fails the check is ignored.
//! v1.hwm 138648505420000000
//! # v1.hwm = 2022-02-22T19:22:22.0000000Z
//! v1.clock_seq 13256
//! v1.node 9f6bdeced846
//! v7.hwm_ms 1645557742000
//! # v7.hwm_ms = 2022-02-22T19:22:22.000Z
//! sha256 06bce941ad7d1eca
//! ```
//!
//! Rules: lines end in `\n`; the first line is the header `uuidkit-state 1`; the
//! last line is `sha256 ` and the first 16 lowercase hex digits of the SHA-256 of
//! every byte before it; lines starting with `#` are comments; every other line is
//! `key value` with the keys `v1.hwm`, `v1.clock_seq`, `v1.node` (likewise `v6.`)
//! and `v7.hwm_ms`, each at most once. A version's keys are all present or all
//! absent. Numbers are decimal without sign or leading zeros; a node is 12
//! lowercase or uppercase hex digits. Up to [`EARLIER_NODES`] lines
//! `v1.earlier NODE CLOCK_SEQ HWM` (likewise `v6.`), newest first, keep the
//! marks of nodes used before the current one, each node at most once, so a
//! generator that comes back to one of them (a node lease renewed after a
//! break) continues that node's own sequence.
//!
//! ```
//! use uuidkit_state::format::{HEADER, StateRecord, V7Mark};
//! let rec = StateRecord { v7: Some(V7Mark { hwm_ms: 1_645_557_742_000 }), ..StateRecord::default() };
//! let text = rec.emit();
//! assert!(text.starts_with(HEADER));
//! assert!(text.contains("v7.hwm_ms 1645557742000\n"));
//! assert_eq!(StateRecord::parse(text.as_bytes()), Ok(rec));
//! ```

use std::fmt::Write as _;
use std::format;
use std::string::String;

use sha2::{Digest, Sha256};

use crate::error::{StateError, StateErrorKind};
pub use crate::snowflake::{SNOWFLAKE_MARKS, SnowflakeMark};

/// The header line of version 1 of the format (without its newline).
pub const HEADER: &str = "uuidkit-state 1";
pub(super) const HEADER_PREFIX: &str = "uuidkit-state ";
const CHECKSUM_PREFIX: &str = "sha256 ";
const CHECKSUM_HEX: usize = 16;
use uuidkit::layout::{
    GREGORIAN_TO_UNIX_100NS, MAX_GREGORIAN_TIMESTAMP as TS60_MAX, MAX_UNIX_TS_MS as MS48_MAX,
};

/// Stored state of a version 1 or version 6 generator (RFC 9562 §6.3).
///
/// ```
/// use uuidkit_state::format::GregorianMark;
/// let s = GregorianMark { hwm: 0x1EC9414C232AB00, clock_seq: 0x33C8, node: [0x9F, 0x6B, 0xDE, 0xCE, 0xD8, 0x46] };
/// assert_eq!(s.clock_seq, 13256);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GregorianMark {
    /// High-water mark: every timestamp issued with `clock_seq` and `node` is below
    /// it (60-bit count of 100-ns intervals since 1582-10-15T00:00:00Z).
    pub hwm: u64,
    /// The clock sequence in use (14 bits).
    pub clock_seq: u16,
    /// The node ID in use.
    pub node: [u8; 6],
}

/// Stored state of a version 7 generator (RFC 9562 §6.3).
///
/// Blocks are whole milliseconds (a process owns every counter value of every
/// millisecond of its block), so the millisecond alone is the high-water mark:
/// the counter of the next UUID is free again.
///
/// ```
/// let s = uuidkit_state::format::V7Mark { hwm_ms: 1_645_557_742_000 };
/// assert_eq!(s.hwm_ms, 0x017F22E279B0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct V7Mark {
    /// High-water mark: every v7 UUID issued has a Unix millisecond timestamp below it.
    pub hwm_ms: u64,
}

/// How many nodes before the current one a state file remembers, per v1/v6
/// version; an older node falls out, and a generator that comes back to it
/// starts a new random clock sequence for it (RFC 9562 §6.3).
pub const EARLIER_NODES: usize = 4;

/// Everything a state file holds: one optional record per time-based version,
/// and for v1 and v6 the records of the nodes used before the current one.
///
/// ```
/// use uuidkit_state::format::{StateRecord, V7Mark};
/// let rec = StateRecord { v7: Some(V7Mark { hwm_ms: 1_645_557_742_000 }), ..StateRecord::default() };
/// let text = rec.emit();
/// assert!(text.starts_with("uuidkit-state 1\n"));
/// assert!(text.contains("\nv7.hwm_ms 1645557742000\n# v7.hwm_ms = 2022-02-22T19:22:22.000Z\n"));
/// assert_eq!(StateRecord::parse(text.as_bytes())?, rec);
/// # Ok::<(), uuidkit_state::StateError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct StateRecord {
    /// Version 1 state.
    pub v1: Option<GregorianMark>,
    /// Version 6 state.
    pub v6: Option<GregorianMark>,
    /// Version 7 state.
    pub v7: Option<V7Mark>,
    /// Version 1 state of nodes used before the one in `v1`, newest first.
    pub v1_earlier: [Option<GregorianMark>; EARLIER_NODES],
    /// Version 6 state of nodes used before the one in `v6`, newest first.
    pub v6_earlier: [Option<GregorianMark>; EARLIER_NODES],
    /// Snowflake marks ([`SnowflakeMark`]), most
    /// recently reserved first.
    pub snowflake: [Option<SnowflakeMark>; SNOWFLAKE_MARKS],
}

impl StateRecord {
    /// The v1 mark this record holds for `node`: the current one if it is
    /// `node`'s, else `node`'s among the earlier ones. A v1 generator on
    /// `node` continues this mark's clock sequence, so a caller that wants to
    /// impose a clock sequence compares it with this one.
    ///
    /// ```
    /// use uuidkit_state::format::{GregorianMark, StateRecord};
    /// let a = GregorianMark { hwm: 10, clock_seq: 7, node: [0xA; 6] };
    /// let b = GregorianMark { hwm: 20, clock_seq: 9, node: [0xB; 6] };
    /// let mut rec = StateRecord { v1: Some(b), ..StateRecord::default() };
    /// rec.v1_earlier[0] = Some(a);
    /// assert_eq!(rec.v1_mark([0xA; 6]), Some(a));
    /// assert_eq!(rec.v1_mark([0xB; 6]), Some(b));
    /// assert_eq!(rec.v1_mark([0xC; 6]), None);
    /// assert_eq!(rec.v6_mark([0xB; 6]), None);
    /// ```
    #[must_use]
    pub fn v1_mark(&self, node: [u8; 6]) -> Option<GregorianMark> {
        mark_of(self.v1, &self.v1_earlier, node)
    }

    /// The v6 mark this record holds for `node`; see [`v1_mark`](Self::v1_mark).
    ///
    /// ```
    /// use uuidkit_state::format::{GregorianMark, StateRecord};
    /// let a = GregorianMark { hwm: 10, clock_seq: 7, node: [0xA; 6] };
    /// let rec = StateRecord { v6: Some(a), ..StateRecord::default() };
    /// assert_eq!(rec.v6_mark([0xA; 6]), Some(a));
    /// ```
    #[must_use]
    pub fn v6_mark(&self, node: [u8; 6]) -> Option<GregorianMark> {
        mark_of(self.v6, &self.v6_earlier, node)
    }

    /// Writes the record in the state file format (see the [module docs](super)),
    /// checksum line included.
    ///
    /// ```
    /// use uuidkit_state::format::{GregorianMark, StateRecord};
    /// let node = [0x9F, 0x6B, 0xDE, 0xCE, 0xD8, 0x46];
    /// let rec = StateRecord { v6: Some(GregorianMark { hwm: 1, clock_seq: 2, node }), ..Default::default() };
    /// assert!(rec.emit().contains("\nv6.hwm 1\n# v6.hwm = 1582-10-15T00:00:00.0000001Z\nv6.clock_seq 2\nv6.node 9f6bdeced846\n"));
    /// ```
    #[must_use]
    pub fn emit(&self) -> String {
        let mut s = String::with_capacity(512);
        s.push_str(HEADER);
        s.push('\n');
        s.push_str(
            "# RFC 9562 section 6.3 generator state, shared by every uuidkit process that uses this file.\n\
             # Every UUID issued under it is below the high-water mark (hwm) of its version.\n\
             # The last line checksums all lines above it; a file that fails the check is ignored.\n",
        );
        let gregorian = [
            ("v1", &self.v1, &self.v1_earlier),
            ("v6", &self.v6, &self.v6_earlier),
        ];
        for (name, g, earlier) in gregorian {
            if let Some(g) = g {
                let _ = writeln!(s, "{name}.hwm {}", g.hwm);
                let _ = writeln!(s, "# {name}.hwm = {}", fmt_ts60(g.hwm));
                let _ = writeln!(s, "{name}.clock_seq {}", g.clock_seq);
                let _ = writeln!(s, "{name}.node {}", hex_node(g.node));
            }
            for e in earlier.iter().flatten() {
                let (node, cs, hwm) = (hex_node(e.node), e.clock_seq, e.hwm);
                let _ = writeln!(s, "{name}.earlier {node} {cs} {hwm}");
            }
        }
        if let Some(v7) = &self.v7 {
            let _ = writeln!(s, "v7.hwm_ms {}", v7.hwm_ms);
            let _ = writeln!(s, "# v7.hwm_ms = {}", fmt_ms(v7.hwm_ms));
        }
        super::snowflake_format::emit(&self.snowflake, &mut s);
        let sum = checksum(s.as_bytes());
        s.push_str(CHECKSUM_PREFIX);
        s.push_str(&sum);
        s.push('\n');
        s
    }

    /// Parses a state file. Never panics, whatever the bytes.
    ///
    /// # Errors
    ///
    /// The [`kind`](StateError::kind) says what is wrong and
    /// [`line`](StateError::line) where: [`Empty`](StateErrorKind::Empty) for no
    /// bytes, [`Truncated`](StateErrorKind::Truncated) when the file stops early (no
    /// final newline, no checksum line), [`UnsupportedVersion`](StateErrorKind::UnsupportedVersion)
    /// for another header version, [`ChecksumMismatch`](StateErrorKind::ChecksumMismatch),
    /// and [`Garbage`](StateErrorKind::Garbage) for anything else.
    ///
    /// ```
    /// use uuidkit_state::{StateErrorKind, format::StateRecord};
    /// let good = StateRecord::default().emit();
    /// assert_eq!(StateRecord::parse(good.as_bytes())?, StateRecord::default());
    /// let cut = &good.as_bytes()[..good.len() - 1];
    /// assert_eq!(StateRecord::parse(cut).unwrap_err().kind(), StateErrorKind::Truncated);
    /// let edited = good.replace("ignored", "IGNORED");
    /// assert_eq!(StateRecord::parse(edited.as_bytes()).unwrap_err().kind(), StateErrorKind::ChecksumMismatch);
    /// # Ok::<(), uuidkit_state::StateError>(())
    /// ```
    pub fn parse(bytes: &[u8]) -> Result<StateRecord, StateError> {
        if bytes.is_empty() {
            return Err(StateError::new(StateErrorKind::Empty, None, String::new()));
        }
        // Split into lines; every line must end in '\n'.
        let lines: std::vec::Vec<&[u8]> = bytes.split_inclusive(|&b| b == b'\n').collect();
        let n = lines.len();
        let last = lines[n - 1];
        if last.last() != Some(&b'\n') {
            return Err(StateError::new(
                StateErrorKind::Truncated,
                Some(n),
                format!("expected end of line, found end of file at line {n}"),
            ));
        }
        let text = |i: usize| -> Result<&str, StateError> {
            let l = &lines[i][..lines[i].len() - 1];
            core::str::from_utf8(l).map_err(|_| garbage(i + 1, "UTF-8 text", &escape(l)))
        };
        // Header.
        let head = text(0)?;
        if head != HEADER {
            if let Some(v) = head.strip_prefix(HEADER_PREFIX)
                && !v.is_empty()
                && v.bytes().all(|b| b.is_ascii_digit())
            {
                return Err(StateError::new(
                    StateErrorKind::UnsupportedVersion,
                    Some(1),
                    format!(
                        "expected format version 1, found `{}` at line 1",
                        escape(v.as_bytes())
                    ),
                ));
            }
            return Err(garbage(
                1,
                "header `uuidkit-state 1`",
                &escape(head.as_bytes()),
            ));
        }
        // Checksum line: the last one.
        let tail = text(n - 1)?;
        let Some(sum) = tail.strip_prefix(CHECKSUM_PREFIX).filter(|_| n > 1) else {
            return Err(StateError::new(
                StateErrorKind::Truncated,
                Some(n + 1),
                format!(
                    "expected checksum line, found end of file at line {}",
                    n + 1
                ),
            ));
        };
        let body_len = bytes.len() - lines[n - 1].len();
        let want = checksum(&bytes[..body_len]);
        if sum != want {
            return Err(StateError::new(
                StateErrorKind::ChecksumMismatch,
                Some(n),
                format!(
                    "expected sha256 {want}, found `{}` at line {n}",
                    escape(sum.as_bytes())
                ),
            ));
        }
        // Fields.
        let mut fields = Fields::default();
        for i in 1..n - 1 {
            let l = text(i)?;
            if l.starts_with('#') {
                continue;
            }
            fields.set(i + 1, l)?;
        }
        fields.finish(n)
    }
}

/// Values seen so far, with the line each came from (to report duplicates and gaps).
#[derive(Default)]
struct Fields {
    hwm: [Option<(u64, usize)>; 2],
    clock_seq: [Option<(u16, usize)>; 2],
    node: [Option<([u8; 6], usize)>; 2],
    v7: Option<(u64, usize)>,
    earlier: [std::vec::Vec<(GregorianMark, usize)>; 2],
    snowflake: std::vec::Vec<(SnowflakeMark, usize)>,
}

impl Fields {
    fn set(&mut self, line: usize, l: &str) -> Result<(), StateError> {
        let Some((key, value)) = l.split_once(' ') else {
            return Err(garbage(line, "`key value`", &escape(l.as_bytes())));
        };
        let slot = |name: &str| match name {
            "v1" => Some(0usize),
            "v6" => Some(1),
            _ => None,
        };
        let (ver, field) = key.split_once('.').unwrap_or((key, ""));
        let dup = |prev: Option<usize>| match prev {
            Some(p) => Err(garbage(
                line,
                &format!("one `{key}` line (first at line {p})"),
                "another",
            )),
            None => Ok(()),
        };
        match (slot(ver), field) {
            (Some(v), "hwm") => {
                dup(self.hwm[v].map(|x| x.1))?;
                self.hwm[v] = Some((number(line, value, TS60_MAX, "60-bit timestamp")?, line));
            }
            (Some(v), "clock_seq") => {
                dup(self.clock_seq[v].map(|x| x.1))?;
                let cs = number(
                    line,
                    value,
                    uuidkit::layout::MAX_CLOCK_SEQ.into(),
                    "clock sequence in 0..=16383",
                )?;
                self.clock_seq[v] = Some((cs as u16, line));
            }
            (Some(v), "node") => {
                dup(self.node[v].map(|x| x.1))?;
                self.node[v] = Some((node(line, value)?, line));
            }
            (Some(v), "earlier") => {
                if self.earlier[v].len() == EARLIER_NODES {
                    return Err(garbage(
                        line,
                        &format!("at most {EARLIER_NODES} `{key}` lines"),
                        "another",
                    ));
                }
                self.earlier[v].push((earlier(line, value)?, line));
            }
            (None, "") if ver == "snowflake" => {
                if self.snowflake.len() == SNOWFLAKE_MARKS {
                    return Err(garbage(
                        line,
                        &format!("at most {} `snowflake` lines", SNOWFLAKE_MARKS),
                        "another",
                    ));
                }
                let mark = super::snowflake_format::parse(value).ok_or_else(|| {
                    garbage(
                        line,
                        super::snowflake_format::EXPECTED,
                        &format!("`{}`", escape(value.as_bytes())),
                    )
                })?;
                if self
                    .snowflake
                    .iter()
                    .any(|(m, _)| m.layout == mark.layout && m.worker == mark.worker)
                {
                    return Err(garbage(
                        line,
                        "each snowflake layout and worker once",
                        "another",
                    ));
                }
                self.snowflake.push((mark, line));
            }
            (None, "hwm_ms") if ver == "v7" => {
                dup(self.v7.map(|x| x.1))?;
                self.v7 = Some((
                    number(line, value, MS48_MAX, "48-bit millisecond timestamp")?,
                    line,
                ));
            }
            _ => {
                return Err(garbage(
                    line,
                    "key v1.hwm, v1.clock_seq, v1.node, v1.earlier, v6.hwm, v6.clock_seq, v6.node, v6.earlier, v7.hwm_ms or snowflake",
                    &format!("`{}`", escape(key.as_bytes())),
                ));
            }
        }
        Ok(())
    }

    fn finish(self, checksum_line: usize) -> Result<StateRecord, StateError> {
        let mut out = StateRecord {
            v7: self.v7.map(|(hwm_ms, _)| V7Mark { hwm_ms }),
            ..StateRecord::default()
        };
        for (slot, (mark, _)) in out.snowflake.iter_mut().zip(&self.snowflake) {
            *slot = Some(*mark);
        }
        for (v, name) in [(0usize, "v1"), (1, "v6")] {
            let g = match (self.hwm[v], self.clock_seq[v], self.node[v]) {
                (Some((hwm, _)), Some((clock_seq, _)), Some((node, _))) => Some(GregorianMark {
                    hwm,
                    clock_seq,
                    node,
                }),
                (None, None, None) => None,
                (h, c, n) => {
                    let missing = [
                        (h.is_none(), "hwm"),
                        (c.is_none(), "clock_seq"),
                        (n.is_none(), "node"),
                    ]
                    .into_iter()
                    .find(|x| x.0)
                    .map_or("", |x| x.1);
                    return Err(garbage(
                        checksum_line,
                        &format!("a `{name}.{missing}` line"),
                        "the checksum line",
                    ));
                }
            };
            let mut earlier = [None; EARLIER_NODES];
            for (i, &(mark, line)) in self.earlier[v].iter().enumerate() {
                let seen = g.iter().chain(earlier[..i].iter().flatten());
                if seen.into_iter().any(|m| m.node == mark.node) {
                    return Err(garbage(
                        line,
                        &format!("each `{name}` node once"),
                        &format!("node {} again", hex_node(mark.node)),
                    ));
                }
                earlier[i] = Some(mark);
            }
            if v == 0 {
                (out.v1, out.v1_earlier) = (g, earlier);
            } else {
                (out.v6, out.v6_earlier) = (g, earlier);
            }
        }
        Ok(out)
    }
}

#[cold]
fn garbage(line: usize, expected: &str, found: &str) -> StateError {
    StateError::new(
        StateErrorKind::Garbage,
        Some(line),
        format!("expected {expected}, found {found} at line {line}"),
    )
}

fn number(line: usize, s: &str, max: u64, what: &str) -> Result<u64, StateError> {
    let ok = !s.is_empty()
        && s.len() <= 20
        && s.bytes().all(|b| b.is_ascii_digit())
        && (s == "0" || !s.starts_with('0'));
    match s.parse::<u64>() {
        Ok(v) if ok && v <= max => Ok(v),
        _ => Err(garbage(line, what, &format!("`{}`", escape(s.as_bytes())))),
    }
}

fn node(line: usize, s: &str) -> Result<[u8; 6], StateError> {
    let b = s.as_bytes();
    let mut out = [0u8; 6];
    if b.len() == 12 && b.iter().all(u8::is_ascii_hexdigit) {
        for (i, o) in out.iter_mut().enumerate() {
            *o = (hex(b[2 * i]) << 4) | hex(b[2 * i + 1]);
        }
        return Ok(out);
    }
    Err(garbage(
        line,
        "node of 12 hex digits",
        &format!("`{}`", escape(b)),
    ))
}

/// `node`'s mark among a version's current and earlier ones.
fn mark_of(
    current: Option<GregorianMark>,
    earlier: &[Option<GregorianMark>; EARLIER_NODES],
    node: [u8; 6],
) -> Option<GregorianMark> {
    current
        .iter()
        .chain(earlier.iter().flatten())
        .find(|m| m.node == node)
        .copied()
}

/// An `earlier` value: `NODE CLOCK_SEQ HWM`.
fn earlier(line: usize, s: &str) -> Result<GregorianMark, StateError> {
    let mut parts = s.split(' ');
    let (Some(n), Some(cs), Some(hwm), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(garbage(
            line,
            "`NODE CLOCK_SEQ HWM`",
            &format!("`{}`", escape(s.as_bytes())),
        ));
    };
    let clock_seq = number(
        line,
        cs,
        uuidkit::layout::MAX_CLOCK_SEQ.into(),
        "clock sequence in 0..=16383",
    )?;
    Ok(GregorianMark {
        hwm: number(line, hwm, TS60_MAX, "60-bit timestamp")?,
        clock_seq: clock_seq as u16,
        node: node(line, n)?,
    })
}

fn hex_node(n: [u8; 6]) -> String {
    format!(
        "{:02x}{:02x}{:02x}{:02x}{:02x}{:02x}",
        n[0], n[1], n[2], n[3], n[4], n[5]
    )
}

fn hex(c: u8) -> u8 {
    match c {
        b'0'..=b'9' => c - b'0',
        b'a'..=b'f' => c - b'a' + 10,
        _ => c.wrapping_sub(b'A').wrapping_add(10) & 0xF,
    }
}

/// The first 16 hex digits of SHA-256 over `body`.
fn checksum(body: &[u8]) -> String {
    let d = Sha256::digest(body);
    let mut s = String::with_capacity(CHECKSUM_HEX);
    for b in &d[..CHECKSUM_HEX / 2] {
        let _ = write!(s, "{b:02x}");
    }
    s
}

/// At most 40 bytes of `b`, printable ASCII kept, everything else escaped.
pub(super) fn escape(b: &[u8]) -> String {
    let mut s = String::new();
    for &c in b.iter().take(40) {
        let _ = write!(s, "{}", core::ascii::escape_default(c));
    }
    if b.len() > 40 {
        s.push('…');
    }
    s
}

/// `days` since 1970-01-01 → (year, month, day), proleptic Gregorian.
fn civil(days: i128) -> (i128, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i128::from(m <= 2);
    (y, m, d)
}

/// `unix_ns` (nanoseconds since 1970-01-01T00:00:00Z, negative before) as RFC 3339 in UTC,
/// with exactly `frac_digits` fractional digits (at most 9), truncated, never rounded into the
/// next second. Any year of the proleptic Gregorian calendar prints, from v1's 1582 to v7's
/// 10889, beyond what a calendar library may hold: the file's comments show its marks so, and
/// the `uuidkit` command prints every time so.
///
/// ```
/// use uuidkit_state::format::rfc3339;
/// assert_eq!(rfc3339(1_645_557_742_123_456_789, 3), "2022-02-22T19:22:22.123Z");
/// assert_eq!(rfc3339(-1, 0), "1969-12-31T23:59:59Z");
/// assert_eq!(rfc3339(281_474_976_710_655_000_000, 3), "10889-08-02T05:31:50.655Z");
/// ```
pub fn rfc3339(unix_ns: i128, frac_digits: u32) -> String {
    const NS_PER_SEC: i128 = 1_000_000_000;
    let frac_digits = frac_digits.min(9);
    let secs = unix_ns.div_euclid(NS_PER_SEC);
    let (y, mo, d) = civil(secs.div_euclid(86_400));
    let s = secs.rem_euclid(86_400);
    let mut out = format!(
        "{y:04}-{mo:02}-{d:02}T{:02}:{:02}:{:02}",
        s / 3600,
        s / 60 % 60,
        s % 60
    );
    if frac_digits > 0 {
        let frac = unix_ns.rem_euclid(NS_PER_SEC) / 10i128.pow(9 - frac_digits);
        let _ = write!(out, ".{frac:0w$}", w = frac_digits as usize);
    }
    out.push('Z');
    out
}

/// A Unix millisecond timestamp as RFC 3339 UTC.
pub(crate) fn fmt_ms(ms: u64) -> String {
    rfc3339(i128::from(ms) * 1_000_000, 3)
}

/// A 60-bit Gregorian timestamp as RFC 3339 UTC with 100-ns precision.
pub(crate) fn fmt_ts60(ts: u64) -> String {
    rfc3339(
        (i128::from(ts) - i128::from(GREGORIAN_TO_UNIX_100NS)) * 100,
        7,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::string::ToString;
    use std::vec::Vec;

    const NODE: [u8; 6] = [0x9F, 0x6B, 0xDE, 0xCE, 0xD8, 0x46];

    fn full() -> StateRecord {
        StateRecord {
            v1: Some(GregorianMark {
                hwm: 0x1EC9414C232AB00,
                clock_seq: 0x33C8,
                node: NODE,
            }),
            v6: Some(GregorianMark {
                hwm: TS60_MAX,
                clock_seq: 0x3FFF,
                node: [0; 6],
            }),
            v7: Some(V7Mark {
                hwm_ms: 0x017F22E279B0,
            }),
            ..StateRecord::default()
        }
    }

    /// The exact bytes of a full file: this pins the format.
    #[test]
    fn golden_file() {
        let text = full().emit();
        let want = "uuidkit-state 1\n\
            # RFC 9562 section 6.3 generator state, shared by every uuidkit process that uses this file.\n\
            # Every UUID issued under it is below the high-water mark (hwm) of its version.\n\
            # The last line checksums all lines above it; a file that fails the check is ignored.\n\
            v1.hwm 138648505420000000\n\
            # v1.hwm = 2022-02-22T19:22:22.0000000Z\n\
            v1.clock_seq 13256\n\
            v1.node 9f6bdeced846\n\
            v6.hwm 1152921504606846975\n\
            # v6.hwm = 5236-03-31T21:21:00.6846975Z\n\
            v6.clock_seq 16383\n\
            v6.node 000000000000\n\
            v7.hwm_ms 1645557742000\n\
            # v7.hwm_ms = 2022-02-22T19:22:22.000Z\n";
        assert_eq!(&text[..want.len()], want);
        let sum = &text[want.len()..];
        assert_eq!(sum.len(), "sha256 ".len() + 16 + 1);
        assert_eq!(sum, format!("sha256 {}\n", checksum(want.as_bytes())));
        assert_eq!(StateRecord::parse(text.as_bytes()), Ok(full()));
    }

    /// The example in the module docs is a valid file.
    #[test]
    fn documented_example_parses() {
        let text = "uuidkit-state 1\n\
            # RFC 9562 section 6.3 generator state, shared by every uuidkit process that uses this file.\n\
            # Every UUID issued under it is below the high-water mark (hwm) of its version.\n\
            # The last line checksums all lines above it; a file that fails the check is ignored.\n\
            v1.hwm 138648505420000000\n\
            # v1.hwm = 2022-02-22T19:22:22.0000000Z\n\
            v1.clock_seq 13256\n\
            v1.node 9f6bdeced846\n\
            v7.hwm_ms 1645557742000\n\
            # v7.hwm_ms = 2022-02-22T19:22:22.000Z\n\
            sha256 06bce941ad7d1eca\n";
        let rec = StateRecord { v6: None, ..full() };
        assert_eq!(StateRecord::parse(text.as_bytes()), Ok(rec));
        assert_eq!(rec.emit(), text);
    }

    #[test]
    fn sha256_prefix_is_the_real_digest() {
        // SHA-256("abc") = ba7816bf8f01cfea...
        assert_eq!(checksum(b"abc"), "ba7816bf8f01cfea");
    }

    #[test]
    fn every_truncation_is_rejected_and_classified() {
        let text = full().emit();
        let b = text.as_bytes();
        for cut in 0..b.len() {
            let err = StateRecord::parse(&b[..cut]).unwrap_err();
            let want = if cut == 0 {
                StateErrorKind::Empty
            } else {
                StateErrorKind::Truncated
            };
            assert_eq!(err.kind(), want, "cut at {cut}: {err}");
        }
    }

    #[test]
    fn every_byte_flip_is_rejected() {
        let text = full().emit();
        for i in 0..text.len() {
            for bit in [0x01u8, 0x20, 0x80] {
                let mut b: Vec<u8> = text.as_bytes().to_vec();
                b[i] ^= bit;
                let err = StateRecord::parse(&b).unwrap_err();
                assert!(
                    matches!(
                        err.kind(),
                        StateErrorKind::ChecksumMismatch
                            | StateErrorKind::Garbage
                            | StateErrorKind::Truncated
                            | StateErrorKind::UnsupportedVersion
                    ),
                    "flip {bit:#x} at {i}: {err:?}"
                );
            }
        }
    }

    /// Builds a file with a correct checksum around `body` lines, so that the
    /// field checks (not the checksum) are what reject it.
    fn signed(body: &str) -> Vec<u8> {
        let mut s = String::from("uuidkit-state 1\n");
        s.push_str(body);
        let sum = checksum(s.as_bytes());
        s.push_str(&format!("sha256 {sum}\n"));
        s.into_bytes()
    }

    #[test]
    fn field_errors_name_what_and_where() {
        let cases: &[(&str, usize, &str)] = &[
            (
                "v7.hwm_ms 01\n",
                2,
                "expected 48-bit millisecond timestamp, found `01` at line 2",
            ),
            (
                "v7.hwm_ms 281474976710656\n",
                2,
                "expected 48-bit millisecond timestamp, found `281474976710656` at line 2",
            ),
            (
                "# ok\nv1.clock_seq 16384\n",
                3,
                "expected clock sequence in 0..=16383, found `16384` at line 3",
            ),
            (
                "v1.node 9f6bdeced84\n",
                2,
                "expected node of 12 hex digits, found `9f6bdeced84` at line 2",
            ),
            (
                "v8.hwm 1\n",
                2,
                "expected key v1.hwm, v1.clock_seq, v1.node, v1.earlier, v6.hwm, v6.clock_seq, v6.node, v6.earlier, v7.hwm_ms or snowflake, found `v8.hwm` at line 2",
            ),
            (
                "v7.hwm_ms\n",
                2,
                "expected `key value`, found v7.hwm_ms at line 2",
            ),
            (
                "v7.hwm_ms 1\nv7.hwm_ms 2\n",
                3,
                "expected one `v7.hwm_ms` line (first at line 2), found another at line 3",
            ),
            (
                "v1.hwm 5\nv1.node 000000000000\n",
                4,
                "expected a `v1.clock_seq` line, found the checksum line at line 4",
            ),
            (
                "v6.hwm 1152921504606846976\n",
                2,
                "expected 60-bit timestamp, found `1152921504606846976` at line 2",
            ),
            (
                "v7.hwm_ms +5\n",
                2,
                "expected 48-bit millisecond timestamp, found `+5` at line 2",
            ),
        ];
        for (body, line, msg) in cases {
            let err = StateRecord::parse(&signed(body)).unwrap_err();
            assert_eq!(err.kind(), StateErrorKind::Garbage, "{body:?}");
            assert_eq!(err.line(), Some(*line), "{body:?}");
            assert_eq!(
                err.to_string(),
                format!("invalid state file: {msg}"),
                "{body:?}"
            );
        }
    }

    #[test]
    fn header_and_encoding_errors() {
        let e = StateRecord::parse(b"uuidkit-state 2\nsha256 0\n").unwrap_err();
        assert_eq!(e.kind(), StateErrorKind::UnsupportedVersion);
        assert_eq!(
            e.to_string(),
            "unsupported state file version: expected format version 1, found `2` at line 1"
        );
        let e = StateRecord::parse(b"\x00\xff\n").unwrap_err();
        assert_eq!(e.kind(), StateErrorKind::Garbage);
        assert_eq!(
            e.to_string(),
            "invalid state file: expected UTF-8 text, found \\x00\\xff at line 1"
        );
        let e = StateRecord::parse(b"uuidkit-state 1\n").unwrap_err();
        assert_eq!((e.kind(), e.line()), (StateErrorKind::Truncated, Some(2)));
        let e = StateRecord::parse(b"uuidkit-state 1\nsha256 0000000000000000\n").unwrap_err();
        assert_eq!(
            (e.kind(), e.line()),
            (StateErrorKind::ChecksumMismatch, Some(2))
        );
        let e = StateRecord::parse(b"\n").unwrap_err();
        assert_eq!((e.kind(), e.line()), (StateErrorKind::Garbage, Some(1)));
    }

    #[test]
    fn uppercase_node_and_comments_are_read() {
        let rec = StateRecord::parse(&signed(
            "# hand-written\nv1.node 9F6BDECED846\nv1.clock_seq 0\nv1.hwm 0\n",
        ))
        .unwrap();
        assert_eq!(
            rec.v1,
            Some(GregorianMark {
                hwm: 0,
                clock_seq: 0,
                node: NODE
            })
        );
        assert_eq!((rec.v6, rec.v7), (None, None));
    }

    /// Random bytes and random splices of a good file never panic.
    #[test]
    fn random_input_never_panics() {
        let good = full().emit().into_bytes();
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for _ in 0..20_000 {
            let mut b = good.clone();
            for _ in 0..(next() % 4) {
                let i = (next() as usize) % b.len();
                match next() % 3 {
                    0 => b[i] = next() as u8,
                    1 => {
                        b.remove(i);
                    }
                    _ => b.insert(i, next() as u8),
                }
                if b.is_empty() {
                    break;
                }
            }
            if b == good {
                continue;
            }
            // The checksum covers every byte, so any change is caught.
            assert!(
                StateRecord::parse(&b).is_err(),
                "{:?}",
                String::from_utf8_lossy(&b)
            );
        }
    }

    /// Earlier nodes: one line each, newest first, after the version's
    /// current record; read back as written; at most `EARLIER_NODES`, each
    /// node once.
    #[test]
    fn earlier_nodes_round_trip_and_are_checked() {
        let mark = |n: u8, cs: u16, hwm: u64| GregorianMark {
            hwm,
            clock_seq: cs,
            node: [n; 6],
        };
        let mut rec = full();
        rec.v1_earlier = [
            Some(mark(0xA1, 7, 1_000)),
            Some(mark(0xB2, 0x3FFF, 5)),
            None,
            None,
        ];
        rec.v6_earlier[0] = Some(mark(0xC3, 0, TS60_MAX));
        let text = rec.emit();
        assert!(text.contains(
            "v1.node 9f6bdeced846\nv1.earlier a1a1a1a1a1a1 7 1000\nv1.earlier b2b2b2b2b2b2 16383 5\nv6.hwm"
        ), "{text}");
        assert!(text.contains("\nv6.earlier c3c3c3c3c3c3 0 1152921504606846975\n"));
        assert_eq!(StateRecord::parse(text.as_bytes()).unwrap(), rec);

        let with_body = |body: &str| {
            let mut t = std::format!("{HEADER}\n{body}");
            let sum = checksum(t.as_bytes());
            t.push_str(&std::format!("{CHECKSUM_PREFIX}{sum}\n"));
            StateRecord::parse(t.as_bytes()).map_err(|e| e.to_string())
        };
        let five: String = (1..=5)
            .map(|i| std::format!("v1.earlier 00000000000{i} 1 1\n"))
            .collect();
        assert_eq!(
            with_body(&five).unwrap_err(),
            "invalid state file: expected at most 4 `v1.earlier` lines, found another at line 6"
        );
        assert_eq!(
            with_body("v6.earlier 000000000001 1 1\nv6.earlier 000000000001 2 2\n").unwrap_err(),
            "invalid state file: expected each `v6` node once, found node 000000000001 again at line 3"
        );
        assert_eq!(
            with_body(
                "v1.hwm 1\nv1.clock_seq 1\nv1.node 0000000000aa\nv1.earlier 0000000000AA 1 1\n"
            )
            .unwrap_err(),
            "invalid state file: expected each `v1` node once, found node 0000000000aa again at line 5"
        );
        assert_eq!(
            with_body("v1.earlier 000000000001 1\n").unwrap_err(),
            "invalid state file: expected `NODE CLOCK_SEQ HWM`, found `000000000001 1` at line 2"
        );
        assert_eq!(
            with_body("v1.earlier 000000000001 16384 1\n").unwrap_err(),
            "invalid state file: expected clock sequence in 0..=16383, found `16384` at line 2"
        );
        // Earlier nodes alone (no current record) are a valid file.
        let only = with_body("v6.earlier 000000000001 1 2\n").unwrap();
        assert_eq!(
            (only.v6, only.v6_earlier[0]),
            (
                None,
                Some(mark(0, 1, 2)).map(|m| GregorianMark {
                    node: [0, 0, 0, 0, 0, 1],
                    ..m
                })
            )
        );
    }

    #[test]
    fn dates() {
        assert_eq!(fmt_ms(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(fmt_ms(MS48_MAX), "10889-08-02T05:31:50.655Z");
        assert_eq!(fmt_ts60(0), "1582-10-15T00:00:00.0000000Z");
    }
}
