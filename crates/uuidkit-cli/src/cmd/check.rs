//! `uuidkit check`: validate UUIDs, report each invalid one with its position.
//!
//! The report goes to stdout (it is what the command produces), one block per
//! invalid input, in the style of regex's parse errors:
//!
//! ```text
//! line 3: invalid character 'g' at position 9: expected a hex digit
//!     f81d4fae-gdec-11d0-a765-00a0c91e6bf6
//!              ^
//! ```
//!
//! `--unique`, `--sorted[=strict]` and `--version N` check the stream as a
//! whole: each reports the first UUID at fault with its place and that of
//! the UUID it conflicts with, counts the rest, and adds a summary line; any
//! fault is exit 1. Order is that of the 128-bit values (PostgreSQL's, and
//! `LC_ALL=C sort`'s on lower-case hex text).
//!
//! Memory: `--sorted` compares each UUID with the one before it only, for
//! duplicates too, so memory stays the same whatever the input's length;
//! after an order fault, duplicates are those of neighbours only (the
//! summary says so). `--unique` alone keeps a table of the UUIDs seen within
//! `--memory-limit`, and past it stops with a message that points to
//! sorting first (`sort` is an external sort that every system has, and the
//! sorted check then needs no table), rather than spilling runs to disk of
//! its own.

use std::hash::{BuildHasher, RandomState};
use std::io;

use uuidkit::{Uuid, Variant};

use crate::error::{Error, Outcome};
use crate::flags::{CheckPlan, Sorted};
use crate::input::{Item, Place};
use crate::output::Output;

use super::Reports;

/// Runs `check`: every input that reads as a UUID is valid, and with
/// `--unique`, `--sorted` or `--version`, the stream is as they ask.
pub fn run(plan: &CheckPlan) -> Result<Outcome, Error> {
    let reports = if plan.quiet {
        Reports::Silent
    } else {
        Reports::Blocks
    };
    let mut out = super::stdout();
    if !plan.unique && plan.sorted.is_none() && plan.version.is_none() {
        return super::each_uuid(&mut out, &plan.input, reports, |_, _, _| Ok(Ok(())));
    }
    let mut t = Tally::new(plan);
    let (outcome, invalid) =
        super::each_uuid_counted(&mut out, &plan.input, reports, |out, item, u| {
            t.see(out, item, u)?;
            Ok(Ok(()))
        })?;
    if !plan.quiet {
        out.line(t.summary(invalid).as_bytes())?;
        out.flush()?;
    }
    Ok(if t.faults() > 0 {
        Outcome::SomeInvalid
    } else {
        outcome
    })
}

/// Where an input was: a file's index plus one (0 for stdin or the
/// arguments) in the top 16 bits, its line, record or argument number in
/// the rest.
type Loc = u64;

/// What the stream-wide checks have found so far.
struct Tally<'p> {
    plan: &'p CheckPlan,
    uuids: u64,
    prev: Option<(Uuid, Loc)>,
    duplicates: u64,
    disorder: u64,
    other_version: u64,
    seen: Option<Seen>,
}

impl<'p> Tally<'p> {
    fn new(plan: &'p CheckPlan) -> Tally<'p> {
        Tally {
            plan,
            uuids: 0,
            prev: None,
            duplicates: 0,
            disorder: 0,
            other_version: 0,
            seen: (plan.unique && plan.sorted.is_none()).then(|| Seen::new(plan.memory_limit)),
        }
    }

    fn faults(&self) -> u64 {
        self.duplicates + self.disorder + self.other_version
    }

    /// Checks one UUID, reporting it if it is the first at fault of its kind.
    fn see<W: io::Write>(
        &mut self,
        out: &mut Output<W>,
        item: &Item<'_>,
        u: Uuid,
    ) -> Result<(), Error> {
        let plan = self.plan;
        let here = self.loc(item);
        self.uuids += 1;
        if let Some(n) = plan.version {
            let rfc = u.variant() == Variant::Rfc9562;
            if !rfc || u.version_nibble() != n {
                self.other_version += 1;
                if self.other_version == 1 && !plan.quiet {
                    let what = if rfc {
                        format!("version {}", u.version_nibble())
                    } else {
                        "not of the RFC 9562 variant".to_string()
                    };
                    let msg = format!("{}: not version {n}: {u} is {what}", self.label(here));
                    out.line(msg.as_bytes())?;
                }
            }
        }
        let first_dup = match &mut self.seen {
            Some(seen) => match seen.insert(u.as_u128(), here) {
                Ok(first) => first,
                Err(needed) => {
                    out.flush()?;
                    return Err(Error::Failed(too_many(
                        seen.len(),
                        needed,
                        plan.memory_limit,
                    )));
                }
            },
            None if plan.unique => self.prev.filter(|p| p.0 == u).map(|p| p.1),
            None => None,
        };
        if let Some(first) = first_dup {
            self.duplicates += 1;
            if self.duplicates == 1 && !plan.quiet {
                let msg = format!(
                    "{}: duplicate of {}: {u}",
                    self.label(here),
                    self.label(first)
                );
                out.line(msg.as_bytes())?;
            }
        }
        if let (Some(order), Some((p, at))) = (plan.sorted, self.prev) {
            let fault = match order {
                Sorted::Ascending => u < p,
                Sorted::Strict => u <= p,
            };
            if fault {
                self.disorder += 1;
                if self.disorder == 1 && !plan.quiet {
                    let how = if u == p { "equals" } else { "is below" };
                    let msg = format!(
                        "{}: out of order: {u} {how} {p} of {}",
                        self.label(here),
                        self.label(at)
                    );
                    out.line(msg.as_bytes())?;
                }
            }
        }
        self.prev = Some((u, here));
        Ok(())
    }

    fn loc(&self, item: &Item<'_>) -> Loc {
        let file = match item.place {
            Place::Line(Some(p)) | Place::Record(Some(p)) => self
                .plan
                .input
                .files
                .iter()
                .position(|f| std::ptr::eq(f.as_path(), p))
                .map_or(0, |i| (i as u64 + 1).min(0xffff)),
            _ => 0,
        };
        (file << 48) | (item.number & ((1 << 48) - 1))
    }

    /// "line 3", "ids.txt line 3", "record 5" or "argument 2".
    fn label(&self, loc: Loc) -> String {
        let input = &self.plan.input;
        let (file, n) = ((loc >> 48) as usize, loc & ((1 << 48) - 1));
        let unit = if !input.uuids.is_empty() {
            "argument"
        } else if input.records() {
            "record"
        } else {
            "line"
        };
        match file.checked_sub(1).and_then(|i| input.files.get(i)) {
            Some(path) if path.as_os_str() != "-" => format!("{} {unit} {n}", path.display()),
            _ => format!("{unit} {n}"),
        }
    }

    /// The closing line: the counts of what was asked.
    fn summary(&self, invalid: u64) -> String {
        let plan = self.plan;
        let mut parts = Vec::new();
        if plan.unique {
            parts.push(format!("{} duplicates", self.duplicates));
        }
        if plan.sorted.is_some() {
            parts.push(format!("{} out of order", self.disorder));
        }
        if let Some(n) = plan.version {
            parts.push(format!("{} not version {n}", self.other_version));
        }
        if invalid > 0 {
            parts.push(format!("{invalid} invalid"));
        }
        let mut s = format!("checked {} UUIDs: {}", self.uuids, parts.join(", "));
        if plan.unique && self.seen.is_none() && self.disorder > 0 {
            s.push_str(" (duplicates counted between neighbours only: the input is out of order)");
        }
        s
    }
}

/// The error of `--unique` past `--memory-limit`.
fn too_many(distinct: usize, needed: u64, limit: u64) -> String {
    let mib = |b: u64| b.div_ceil(1 << 20);
    format!(
        "more than {distinct} distinct UUIDs: keeping them would take {} MiB, past \
         --memory-limit {} MiB; sort the input first and check it in bounded memory \
         (LC_ALL=C sort FILE | uuidkit check --unique --sorted), or raise --memory-limit",
        mib(needed),
        mib(limit)
    )
}

/// The UUIDs seen, each with where it was first seen: open addressing with
/// linear probing, at most three-quarters full, the Nil UUID (the empty
/// slot's key) kept apart. Its memory is counted exactly: 24 bytes a slot,
/// and while it doubles, the old table and the new one.
struct Seen {
    keys: Vec<u128>,
    at: Vec<Loc>,
    len: usize,
    nil: Option<Loc>,
    seed: [u64; 2],
    limit: u64,
}

/// The bytes of one slot: a key and a place.
const SLOT: u64 = 24;

impl Seen {
    fn new(limit: u64) -> Seen {
        // Seeded from the standard library's per-process random keys, so
        // that no input can be built to collide.
        let keys = RandomState::new();
        Seen {
            keys: vec![0; 16],
            at: vec![0; 16],
            len: 0,
            nil: None,
            seed: [keys.hash_one(1u8), keys.hash_one(2u8)],
            limit,
        }
    }

    fn len(&self) -> usize {
        self.len + usize::from(self.nil.is_some())
    }

    fn slot(&self, k: u128) -> usize {
        let a = (k as u64) ^ self.seed[0];
        let b = ((k >> 64) as u64) ^ self.seed[1];
        let m = u128::from(a) * u128::from(b);
        ((m as u64) ^ ((m >> 64) as u64)) as usize & (self.keys.len() - 1)
    }

    /// Adds `k`, seen at `at`; where it was first seen if it was before.
    /// `Err(bytes)` if the table must grow to `bytes`, past the limit.
    fn insert(&mut self, k: u128, at: Loc) -> Result<Option<Loc>, u64> {
        if k == 0 {
            let first = self.nil;
            self.nil = first.or(Some(at));
            return Ok(first);
        }
        if (self.len + 1) * 4 > self.keys.len() * 3 {
            self.grow()?;
        }
        let mask = self.keys.len() - 1;
        let mut i = self.slot(k);
        loop {
            match self.keys[i] {
                0 => {
                    self.keys[i] = k;
                    self.at[i] = at;
                    self.len += 1;
                    return Ok(None);
                }
                s if s == k => return Ok(Some(self.at[i])),
                _ => i = (i + 1) & mask,
            }
        }
    }

    fn grow(&mut self) -> Result<(), u64> {
        let cap = self.keys.len();
        let needed = 3 * cap as u64 * SLOT;
        if needed > self.limit {
            return Err(needed);
        }
        let keys = std::mem::replace(&mut self.keys, vec![0; 2 * cap]);
        let at = std::mem::replace(&mut self.at, vec![0; 2 * cap]);
        let mask = 2 * cap - 1;
        for (k, a) in keys.into_iter().zip(at).filter(|(k, _)| *k != 0) {
            let mut i = self.slot(k);
            while self.keys[i] != 0 {
                i = (i + 1) & mask;
            }
            self.keys[i] = k;
            self.at[i] = a;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::Seen;
    use crate::input::{self, Item, Place};

    #[test]
    fn seen_finds_every_repeat_and_keeps_to_its_limit() {
        let mut seen = Seen::new(1 << 20);
        for k in 0..10_000u128 {
            assert_eq!(seen.insert(k * 0x1_0000_0001, k as u64 + 1), Ok(None));
        }
        for k in 0..10_000u128 {
            assert_eq!(seen.insert(k * 0x1_0000_0001, 0), Ok(Some(k as u64 + 1)));
        }
        assert_eq!(seen.len(), 10_000);
        // 16384 slots now; growing to 32768 would hold 3 * 16384 * 24 bytes.
        let mut seen = Seen::new(3 * 16_384 * 24 - 1);
        let mut k = 1u128;
        let err = loop {
            match seen.insert(k, 0) {
                Ok(_) => k += 1,
                Err(bytes) => break bytes,
            }
        };
        assert_eq!((k, err), (12_289, 3 * 16_384 * 24));
    }

    #[test]
    fn caret_under_the_bad_character() {
        let text = b"f81d4fae-gdec-11d0-a765-00a0c91e6bf6";
        let e = crate::text::read(text, None, false).unwrap_err();
        let item = Item {
            bytes: text,
            len: text.len(),
            number: 3,
            place: Place::Line(None),
        };
        let r = input::block(&item, &e);
        let lines: Vec<&str> = r.lines().collect();
        assert!(lines[0].starts_with("line 3: "), "{r}");
        assert_eq!(lines[1], "    f81d4fae-gdec-11d0-a765-00a0c91e6bf6");
        assert_eq!(lines[2], "             ^");
    }

    #[test]
    fn control_characters_are_escaped_and_counted() {
        let e = input::echo(b"a\tb", Some(2), 3);
        assert_eq!((e.shown.as_str(), e.column), ("a\\tb", Some(3)));
        let e = input::echo("é-x".as_bytes(), Some(3), 4);
        assert_eq!(e.column, Some(2));
    }
}
