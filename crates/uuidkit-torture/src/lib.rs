//! The uniqueness torture suite's machinery: the duplicate and order checker
//! with its summary table, a fork helper, and the worker processes that
//! share a state file. The scenarios are in `tests/torture.rs`, which
//! `cargo test` (and so `cargo xtask test` and CI) runs; the decisions they
//! check are recorded in `docs/generator-design.md`.
//!
//! ```
//! use uuidkit::Uuid;
//! use uuidkit_torture::Tally;
//! let mut t = Tally::default();
//! let a = Uuid::from_u128(1);
//! t.add("doc", "example", vec![vec![a, Uuid::from_u128(2)], vec![a]], true);
//! let row = &t.rows()[0];
//! assert_eq!((row.uuids, row.duplicates, row.order_violations), (3, 1, Some(0)));
//! assert!(!row.passed());
//! ```

#![cfg(unix)]

pub mod matrix;
pub mod procs;
pub mod snowflake;

use std::collections::HashSet;
use std::fmt::Write as _;

use uuidkit::Uuid;

/// One scenario's result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// What was done (threads, pre-fork workers, a held lock, …).
    pub scenario: String,
    /// Which generator, through which binding.
    pub generator: String,
    /// UUIDs collected.
    pub uuids: usize,
    /// UUIDs seen before (0 is the promise).
    pub duplicates: usize,
    /// Adjacent pairs of one producer's stream out of order, where order is
    /// promised (0 is the promise); `None` where it is not.
    pub order_violations: Option<usize>,
    /// A negative control: duplicates are expected, and their absence fails.
    pub control: bool,
}

impl Row {
    /// Whether the row holds what the docs promise (or, for a negative
    /// control, whether the checker caught the broken protection).
    pub fn passed(&self) -> bool {
        if self.control {
            self.duplicates > 0
        } else {
            self.duplicates == 0 && self.order_violations.unwrap_or(0) == 0
        }
    }
}

/// Every scenario's result, in order.
#[derive(Clone, Debug, Default)]
pub struct Tally {
    rows: Vec<Row>,
}

/// Duplicates across all `streams`, and order violations within each.
pub fn check(streams: &[Vec<Uuid>]) -> (usize, usize, usize) {
    let total = streams.iter().map(Vec::len).sum();
    let mut seen = HashSet::with_capacity(total);
    let dups = streams
        .iter()
        .flatten()
        .filter(|u| !seen.insert(**u))
        .count();
    let order = streams
        .iter()
        .map(|s| s.windows(2).filter(|w| w[0] >= w[1]).count())
        .sum();
    (total, dups, order)
}

impl Tally {
    /// Checks the streams (one per producer: a thread, a process) of one
    /// scenario and records the row; `ordered` says whether each stream is
    /// promised to increase.
    pub fn add(&mut self, scenario: &str, generator: &str, streams: Vec<Vec<Uuid>>, ordered: bool) {
        let (uuids, duplicates, order) = check(&streams);
        self.push(Row {
            scenario: scenario.into(),
            generator: generator.into(),
            uuids,
            duplicates,
            order_violations: ordered.then_some(order),
            control: false,
        });
    }

    /// As [`add`](Self::add) for ordered streams that all continue from
    /// `first` (made before they were split, by a fork): a stream that
    /// starts at or below it counts as an order violation too.
    pub fn add_after(
        &mut self,
        scenario: &str,
        generator: &str,
        first: Uuid,
        mut streams: Vec<Vec<Uuid>>,
    ) {
        let behind = streams
            .iter()
            .filter(|s| s.first().is_some_and(|u| *u <= first))
            .count();
        streams.push(vec![first]);
        let (uuids, duplicates, order) = check(&streams);
        self.push(Row {
            scenario: scenario.into(),
            generator: generator.into(),
            uuids,
            duplicates,
            order_violations: Some(order + behind),
            control: false,
        });
    }

    /// Records a row as it is (a negative control, say).
    pub fn push(&mut self, row: Row) {
        eprintln!(
            "torture: {} / {}: {} UUIDs, {} duplicates{}",
            row.scenario,
            row.generator,
            row.uuids,
            row.duplicates,
            if row.passed() { "" } else { "  <-- FAILED" }
        );
        self.rows.push(row);
    }

    /// The rows so far.
    pub fn rows(&self) -> &[Row] {
        &self.rows
    }

    /// The summary table, then the closing `N passed, N failed` line.
    pub fn table(&self) -> String {
        let w = |f: fn(&Row) -> usize, title: &str| {
            self.rows.iter().map(f).max().unwrap_or(0).max(title.len())
        };
        let (ws, wg) = (
            w(|r| r.scenario.len(), "scenario"),
            w(|r| r.generator.len(), "generator"),
        );
        let mut out = String::new();
        let _ = writeln!(
            out,
            "| {:ws$} | {:wg$} | {:>9} | {:>10} | {:>16} | result |",
            "scenario", "generator", "UUIDs", "duplicates", "order violations"
        );
        let _ = writeln!(
            out,
            "|{}|{}|-----------|------------|------------------|--------|",
            "-".repeat(ws + 2),
            "-".repeat(wg + 2)
        );
        for r in &self.rows {
            let order = r.order_violations.map_or("n/a".into(), |o| o.to_string());
            let result = match (r.control, r.passed()) {
                (true, true) => "caught",
                (true, false) => "MISSED",
                (false, true) => "ok",
                (false, false) => "FAILED",
            };
            let _ = writeln!(
                out,
                "| {:ws$} | {:wg$} | {:>9} | {:>10} | {:>16} | {result:6} |",
                r.scenario, r.generator, r.uuids, r.duplicates, order
            );
        }
        let failed = self.rows.iter().filter(|r| !r.passed()).count();
        let _ = writeln!(
            out,
            "\n{} passed, {failed} failed",
            self.rows.len() - failed
        );
        out
    }

    /// Whether every row passed.
    pub fn all_passed(&self) -> bool {
        self.rows.iter().all(Row::passed)
    }
}

/// Forks `children` processes; each runs `make(i)` and sends its UUIDs back
/// through a pipe; then this process runs `make(children)`. Returns every
/// process's UUIDs, this one's last. Call it with no other thread running
/// (children allocate). See [`test_support::fork::collect`].
///
/// # Panics
/// If a fork, a pipe or a child fails.
pub fn fork_and_collect(
    children: usize,
    mut make: impl FnMut(usize) -> Vec<Uuid>,
) -> Vec<Vec<Uuid>> {
    test_support::fork::collect(children, |i| {
        make(i).iter().flat_map(|u| *u.as_bytes()).collect()
    })
    .iter()
    .map(|bytes| from_bytes(bytes))
    .collect()
}

/// UUIDs from their 16-byte forms, back to back.
pub fn from_bytes(bytes: &[u8]) -> Vec<Uuid> {
    bytes
        .chunks_exact(16)
        .map(|c| {
            let mut b = [0u8; 16];
            b.copy_from_slice(c);
            Uuid::from_bytes(b)
        })
        .collect()
}
