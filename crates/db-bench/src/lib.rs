//! The index-locality benchmark: how each kind of UUID primary key fares
//! against a `bigserial` key on real PostgreSQL and MariaDB servers.
//!
//! For each [`Kind`] the program creates `bench (id <key> PRIMARY KEY, n
//! BIGINT NOT NULL)`, inserts the rows in batches (PostgreSQL `COPY`, MariaDB
//! multi-row `INSERT`), and measures insert throughput, the primary key's
//! size, PostgreSQL's leaf density and WAL bytes, InnoDB's page splits, a
//! point lookup and a time-range scan. `n` is the row's insertion number, so
//! every lookup and scan checks the rows it gets back.
//!
//! The keys come from a simulated clock that advances a fixed step per row
//! (injected time: the same run gives the same keys on any machine), and
//! are generated before the timed insert, which measures the server alone.
//!
//! ```
//! use db_bench::{Config, Kind, Workload};
//! let config = Config { rows: 1000, scan_rows: 10, ..Config::default() };
//! let w = Workload::new(Kind::V7Counter, &config)?;
//! assert_eq!(w.scan(100, 109), db_bench::Scan::Uuid(w.keys.as_ref().unwrap()[100], w.keys.as_ref().unwrap()[109]));
//! assert_eq!(w.lookups.len(), config.lookups);
//! # Ok::<(), String>(())
//! ```
#![deny(missing_docs)]

extern crate sqlx_0_8 as sqlx;

mod keys;
pub mod mariadb;
pub mod plot;
pub mod postgres;
pub mod report;

pub use keys::{Kind, START_UNIX_NS};

use std::future::Future;
use std::time::Instant;

use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};
use uuidkit::Uuid;

/// What one run does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// Rows inserted per kind.
    pub rows: usize,
    /// Rows per insert statement (or `COPY`).
    pub batch: usize,
    /// Point lookups timed per kind.
    pub lookups: usize,
    /// Range scans timed per kind.
    pub scans: usize,
    /// Rows each range scan returns.
    pub scan_rows: usize,
    /// Simulated time between two rows, in nanoseconds.
    pub step_ns: u64,
    /// Seed of the keys' random bits and of the lookups' choice.
    pub seed: u64,
    /// Times each kind is run (round-robin); the median run is reported.
    pub rounds: usize,
}

impl Default for Config {
    /// 1 M rows, 5,000 a batch, 10,000 lookups, 20 scans of 1 % of the rows,
    /// a row every 100 µs (10,000 rows a second of simulated time), one round.
    ///
    /// ```
    /// let c = db_bench::Config::default();
    /// assert_eq!((c.rows, c.scan_rows), (1_000_000, 10_000));
    /// ```
    fn default() -> Config {
        Config {
            rows: 1_000_000,
            batch: 5000,
            lookups: 10_000,
            scans: 20,
            scan_rows: 10_000,
            step_ns: 100_000,
            seed: 1,
            rounds: 1,
        }
    }
}

/// A primary key value as the benchmark binds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Key {
    /// A `bigserial` / `AUTO_INCREMENT` value (row `n` has `n + 1`).
    Serial(i64),
    /// A UUID.
    Uuid(Uuid),
}

/// One kind's keys, and the rows its lookups and scans visit.
#[derive(Clone, Debug)]
pub struct Workload {
    /// The kind.
    pub kind: Kind,
    /// The keys in insertion order (`None`: the server assigns them).
    pub keys: Option<Vec<Uuid>>,
    /// Rows looked up, by insertion number.
    pub lookups: Vec<usize>,
    /// First rows of the scans, by insertion number.
    pub scan_starts: Vec<usize>,
}

impl Workload {
    /// Generates the keys and picks the lookups and scans (seeded).
    ///
    /// # Errors
    /// The configuration cannot work (no rows, a scan longer than the table,
    /// a zero batch) or a generator failed.
    ///
    /// ```
    /// use db_bench::{Config, Kind, Workload};
    /// let err = Workload::new(Kind::V4, &Config { rows: 10, ..Config::default() }).unwrap_err();
    /// assert_eq!(err, "--scan-rows: expected 1 to 10 (the rows), found 10000");
    /// ```
    pub fn new(kind: Kind, config: &Config) -> Result<Workload, String> {
        check(config)?;
        let keys = kind
            .keys(config.rows, config.step_ns, config.seed)
            .map_err(|e| format!("{}: {e}", kind.label()))?;
        let mut rng = ChaCha8Rng::seed_from_u64(config.seed ^ 0x5eed);
        let mut pick = |n: usize| usize::try_from(rng.next_u64() % n as u64).unwrap_or(0);
        let lookups = (0..config.lookups).map(|_| pick(config.rows)).collect();
        let last_start = config.rows - config.scan_rows + 1;
        let scan_starts = (0..config.scans).map(|_| pick(last_start)).collect();
        Ok(Workload {
            kind,
            keys,
            lookups,
            scan_starts,
        })
    }

    /// The key of row `n` (insertion number).
    ///
    /// ```
    /// use db_bench::{Config, Key, Kind, Workload};
    /// let w = Workload::new(Kind::Bigserial, &Config { rows: 10, scan_rows: 2, ..Config::default() })?;
    /// assert_eq!(w.key(0), Key::Serial(1));
    /// # Ok::<(), String>(())
    /// ```
    #[must_use]
    pub fn key(&self, n: usize) -> Key {
        match &self.keys {
            Some(keys) => Key::Uuid(keys[n]),
            None => Key::Serial(i64::try_from(n).unwrap_or(i64::MAX) + 1),
        }
    }
}

fn check(c: &Config) -> Result<(), String> {
    let bad = |flag: &str, expected: &str, found: usize| {
        Err(format!("{flag}: expected {expected}, found {found}"))
    };
    if c.rows == 0 {
        return bad("--rows", "at least 1", 0);
    }
    if c.batch == 0 {
        return bad("--batch", "at least 1", 0);
    }
    if c.scan_rows == 0 || c.scan_rows > c.rows {
        return bad(
            "--scan-rows",
            &format!("1 to {} (the rows)", c.rows),
            c.scan_rows,
        );
    }
    Ok(())
}

/// The figures of one kind on one server.
#[derive(Clone, Debug, PartialEq)]
pub struct Measurement {
    /// The kind.
    pub kind: Kind,
    /// Rows inserted.
    pub rows: usize,
    /// Seconds the inserts took, all batches.
    pub insert_secs: f64,
    /// The primary key index's size in bytes (InnoDB: the clustered index,
    /// which holds the rows).
    pub index_bytes: u64,
    /// Leaf pages of the primary key index (PostgreSQL `pgstatindex`,
    /// InnoDB `n_leaf_pages`).
    pub leaf_pages: u64,
    /// PostgreSQL `pgstatindex` average leaf density, percent.
    pub leaf_density: Option<f64>,
    /// PostgreSQL WAL bytes written by the inserts.
    pub wal_bytes: Option<u64>,
    /// InnoDB `index_page_splits` during the inserts.
    pub page_splits: Option<u64>,
    /// Median point lookup, microseconds (one round trip each).
    pub lookup_us: f64,
    /// Median range scan, milliseconds.
    pub scan_ms: f64,
}

impl Measurement {
    /// Rows inserted per second.
    ///
    /// ```
    /// let m = db_bench::Measurement {
    ///     kind: db_bench::Kind::V4, rows: 1000, insert_secs: 0.5, index_bytes: 0, leaf_pages: 0, leaf_density: None,
    ///     wal_bytes: None, page_splits: None, lookup_us: 1.0, scan_ms: 1.0,
    /// };
    /// assert_eq!(m.rows_per_sec(), 2000.0);
    /// ```
    #[must_use]
    pub fn rows_per_sec(&self) -> f64 {
        self.rows as f64 / self.insert_secs
    }
}

/// The counters a server reports around the inserts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// PostgreSQL: bytes of WAL written.
    pub wal_bytes: Option<u64>,
    /// InnoDB: index page splits.
    pub page_splits: Option<u64>,
}

/// The rows a range scan asks for, all bounds inclusive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scan {
    /// A `bigserial` key range.
    Serial(i64, i64),
    /// A UUID key range: the rows inserted in a span of time, for a
    /// time-ordered kind.
    Uuid(Uuid, Uuid),
    /// By insertion number, the column `n`, which has no index: what a
    /// random key (v4) without a time column has to do, a full scan.
    N(i64, i64),
}

impl Workload {
    /// How the rows `first..=last` are scanned: by key range when the kind is
    /// time-ordered, else by [`Scan::N`].
    ///
    /// ```
    /// use db_bench::{Config, Kind, Scan, Workload};
    /// let config = Config { rows: 100, scan_rows: 10, ..Config::default() };
    /// let w = Workload::new(Kind::Bigserial, &config)?;
    /// assert_eq!(w.scan(5, 14), Scan::Serial(6, 15));
    /// let w = Workload::new(Kind::V4, &config)?;
    /// assert_eq!(w.scan(5, 14), Scan::N(5, 14));
    /// # Ok::<(), String>(())
    /// ```
    #[must_use]
    pub fn scan(&self, first: usize, last: usize) -> Scan {
        let n = |i: usize| i64::try_from(i).unwrap_or(i64::MAX);
        match (self.kind.time_ordered(), self.key(first), self.key(last)) {
            (true, Key::Serial(lo), Key::Serial(hi)) => Scan::Serial(lo, hi),
            (true, Key::Uuid(lo), Key::Uuid(hi)) => Scan::Uuid(lo, hi),
            _ => Scan::N(n(first), n(last)),
        }
    }
}

/// The primary key index's size, as the server reports it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct IndexStats {
    /// Bytes (InnoDB: the clustered index, which holds the rows).
    pub bytes: u64,
    /// Leaf pages.
    pub leaf_pages: u64,
    /// Average leaf density, percent, if the server reports it.
    pub leaf_density: Option<f64>,
}

/// What the benchmark needs of a server; one implementation per server.
pub trait Backend {
    /// The server's name in the report.
    fn name(&self) -> &'static str;
    /// The settings that matter for the figures, as `name = value` lines.
    fn settings(&mut self) -> impl Future<Output = Result<Vec<String>, String>>;
    /// Creates an empty `bench` table keyed by `kind` (dropping any old one).
    fn create(&mut self, kind: Kind) -> impl Future<Output = Result<(), String>>;
    /// A reading of the counters, taken before and after the inserts.
    fn counters(&mut self) -> impl Future<Output = Result<Counters, String>>;
    /// Inserts rows `first..first + keys.len()` (`keys` `None`: the server
    /// assigns them; `count` rows).
    fn insert(
        &mut self,
        keys: Option<&[Uuid]>,
        first: usize,
        count: usize,
    ) -> impl Future<Output = Result<(), String>>;
    /// The primary key's size.
    fn index_stats(&mut self) -> impl Future<Output = Result<IndexStats, String>>;
    /// Looks up `key`; returns the row's `n`.
    fn lookup(&mut self, key: Key) -> impl Future<Output = Result<i64, String>>;
    /// Fetches the rows in `range`; returns their `n`.
    fn scan(&mut self, range: Scan) -> impl Future<Output = Result<Vec<i64>, String>>;
}

/// Runs one workload on `backend` and measures it.
///
/// # Errors
/// A server error, or a lookup or scan that returned the wrong rows (the key
/// order is not the one the kind promises).
pub async fn measure<B: Backend>(
    backend: &mut B,
    w: &Workload,
    config: &Config,
) -> Result<Measurement, String> {
    let server = backend.name();
    let context = |e: String| format!("{server}, {}: {e}", w.kind.label());
    backend.create(w.kind).await.map_err(context)?;
    let before = backend.counters().await.map_err(context)?;
    let started = Instant::now();
    let mut first = 0;
    while first < config.rows {
        let count = config.batch.min(config.rows - first);
        let keys = w.keys.as_ref().map(|k| &k[first..first + count]);
        backend.insert(keys, first, count).await.map_err(context)?;
        first += count;
    }
    let insert_secs = started.elapsed().as_secs_f64();
    let after = backend.counters().await.map_err(context)?;
    let index = backend.index_stats().await.map_err(context)?;

    let mut lookups = Vec::with_capacity(w.lookups.len());
    for &n in &w.lookups {
        let started = Instant::now();
        let got = backend.lookup(w.key(n)).await.map_err(context)?;
        lookups.push(started.elapsed().as_secs_f64() * 1e6);
        if usize::try_from(got).ok() != Some(n) {
            return Err(context(format!("the lookup of row {n} found row {got}")));
        }
    }

    let mut scans = Vec::with_capacity(w.scan_starts.len());
    for &start in &w.scan_starts {
        let last = start + config.scan_rows - 1;
        let started = Instant::now();
        let mut got = backend.scan(w.scan(start, last)).await.map_err(context)?;
        scans.push(started.elapsed().as_secs_f64() * 1e3);
        got.sort_unstable();
        if !got
            .iter()
            .copied()
            .eq((start..=last).map(|n| i64::try_from(n).unwrap_or(-1)))
        {
            return Err(context(format!(
                "the scan of rows {start}..={last} returned {} other rows",
                got.len()
            )));
        }
    }
    let diff = |a: Option<u64>, b: Option<u64>| Some(b?.saturating_sub(a?));
    Ok(Measurement {
        kind: w.kind,
        rows: config.rows,
        insert_secs,
        index_bytes: index.bytes,
        leaf_pages: index.leaf_pages,
        leaf_density: index.leaf_density,
        wal_bytes: diff(before.wal_bytes, after.wal_bytes),
        page_splits: diff(before.page_splits, after.page_splits),
        lookup_us: median(&mut lookups),
        scan_ms: median(&mut scans),
    })
}

/// Of several runs of one kind, the one with the median insert throughput
/// (the upper median of an even count); `None` for no runs.
///
/// ```
/// use db_bench::{Kind, Measurement, median_run};
/// let run = |insert_secs| Measurement {
///     kind: Kind::V4, rows: 100, insert_secs, index_bytes: 0, leaf_pages: 0, leaf_density: None,
///     wal_bytes: None, page_splits: None, lookup_us: 1.0, scan_ms: 1.0,
/// };
/// assert_eq!(median_run(vec![run(3.0), run(1.0), run(2.0)]), Some(run(2.0)));
/// assert_eq!(median_run(vec![]), None);
/// ```
#[must_use]
pub fn median_run(mut runs: Vec<Measurement>) -> Option<Measurement> {
    runs.sort_by(|a, b| a.rows_per_sec().total_cmp(&b.rows_per_sec()));
    let mid = runs.len() / 2;
    (mid < runs.len()).then(|| runs.swap_remove(mid))
}

/// The median of `values` (NaN if empty); a few slow outliers from other
/// work on the machine do not move it.
fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(f64::NAN)
}

/// A driver error as text.
pub(crate) fn err(e: sqlx::Error) -> String {
    e.to_string()
}

/// Runs `sql` (one or more statements, no parameters) on `conn`; an error
/// quotes the start of the statement.
pub(crate) async fn exec<'c, DB, E>(conn: E, sql: &'c str) -> Result<(), String>
where
    DB: sqlx::Database,
    E: sqlx::Executor<'c, Database = DB>,
{
    sqlx::raw_sql(sql)
        .execute(conn)
        .await
        .map(drop)
        .map_err(|e| format!("{}: {e}", sql.get(..120).unwrap_or(sql)))
}
