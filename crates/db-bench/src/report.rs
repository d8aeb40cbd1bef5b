//! The Markdown report: per server, a table of every kind with its ratio to
//! the `bigserial` baseline.

use std::fmt::Write;

use crate::{Config, Kind, Measurement};

/// One server's results.
#[derive(Clone, Debug, PartialEq)]
pub struct ServerResult {
    /// "PostgreSQL" or "MariaDB".
    pub server: &'static str,
    /// The settings that matter, `name = value`.
    pub settings: Vec<String>,
    /// One per kind, in the order run.
    pub measurements: Vec<Measurement>,
}

impl ServerResult {
    /// The baseline's measurement, if it was run.
    ///
    /// ```
    /// use db_bench::report::ServerResult;
    /// let r = ServerResult { server: "PostgreSQL", settings: vec![], measurements: vec![] };
    /// assert!(r.baseline().is_none());
    /// ```
    #[must_use]
    pub fn baseline(&self) -> Option<&Measurement> {
        self.measurements.iter().find(|m| m.kind == Kind::Bigserial)
    }

    /// `metric` of `m` divided by the baseline's, if both are known and the
    /// baseline's is not zero.
    ///
    /// ```
    /// use db_bench::{Kind, Measurement, report::ServerResult};
    /// let m = |kind, index_bytes| Measurement {
    ///     kind, rows: 10, insert_secs: 1.0, index_bytes, leaf_pages: 1, leaf_density: None, wal_bytes: None,
    ///     page_splits: None, lookup_us: 1.0, scan_ms: 1.0,
    /// };
    /// let r = ServerResult { server: "x", settings: vec![], measurements: vec![m(Kind::Bigserial, 100), m(Kind::V4, 250)] };
    /// assert_eq!(r.ratio(&r.measurements[1], |m| Some(m.index_bytes as f64)), Some(2.5));
    /// ```
    #[must_use]
    pub fn ratio(
        &self,
        m: &Measurement,
        metric: impl Fn(&Measurement) -> Option<f64>,
    ) -> Option<f64> {
        let base = metric(self.baseline()?)?;
        let value = metric(m)?;
        (base != 0.0).then(|| value / base)
    }
}

const MIB: f64 = 1024.0 * 1024.0;

fn num(v: Option<f64>, decimals: usize) -> String {
    v.map_or_else(|| "–".to_string(), |v| format!("{v:.decimals$}"))
}

fn times(v: Option<f64>) -> String {
    v.map_or_else(|| "–".to_string(), |v| format!("{v:.2}×"))
}

/// A thousands-separated integer.
fn grouped(v: f64) -> String {
    let digits = format!("{:.0}", v.max(0.0));
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The table of one server's results (GitHub-flavoured Markdown).
///
/// ```
/// use db_bench::{Kind, Measurement, report};
/// let m = |kind, secs| Measurement {
///     kind, rows: 1000, insert_secs: secs, index_bytes: 1 << 20, leaf_pages: 64, leaf_density: Some(90.0),
///     wal_bytes: Some(2 << 20), page_splits: None, lookup_us: 50.0, scan_ms: 3.0,
/// };
/// let r = report::ServerResult {
///     server: "PostgreSQL", settings: vec![],
///     measurements: vec![m(Kind::Bigserial, 0.5), m(Kind::V4, 1.0)],
/// };
/// let table = report::table(&r);
/// assert!(table.contains("| v4 | 1,000 | 0.50× | 1.0 | 64 | 1.00× | 90.0 |"), "{table}");
/// ```
#[must_use]
pub fn table(r: &ServerResult) -> String {
    let pg = r.measurements.iter().any(|m| m.wal_bytes.is_some());
    let mut out =
        String::from("| key | rows/s | × bigserial | PK index MiB | leaf pages | × bigserial |");
    out.push_str(if pg {
        " leaf density % | WAL MiB | × bigserial |"
    } else {
        " page splits | × bigserial |"
    });
    out.push_str(" lookup µs | range scan ms |\n|---|");
    let columns = if pg { 10 } else { 9 };
    out.push_str(&"---:|".repeat(columns));
    out.push('\n');
    for m in &r.measurements {
        let _ = write!(
            out,
            "| {} | {} | {} | {:.1} | {} | {} |",
            m.kind.label(),
            grouped(m.rows_per_sec()),
            times(r.ratio(m, |m| Some(m.rows_per_sec()))),
            m.index_bytes as f64 / MIB,
            grouped(m.leaf_pages as f64),
            times(r.ratio(m, |m| Some(m.leaf_pages as f64))),
        );
        let _ = if pg {
            write!(
                out,
                " {} | {} | {} |",
                num(m.leaf_density, 1),
                num(m.wal_bytes.map(|b| b as f64 / MIB), 1),
                times(r.ratio(m, |m| m.wal_bytes.map(|b| b as f64))),
            )
        } else {
            write!(
                out,
                " {} | {} |",
                m.page_splits
                    .map_or_else(|| "–".to_string(), |s| grouped(s as f64)),
                times(r.ratio(m, |m| m.page_splits.map(|s| s as f64))),
            )
        };
        let scan = if m.kind.time_ordered() {
            ""
        } else {
            " (full scan)"
        };
        let _ = writeln!(out, " {:.1} | {:.1}{scan} |", m.lookup_us, m.scan_ms);
    }
    out
}

/// The whole report: the run's parameters, then per server its settings,
/// its table and its plot (`plots[i]` is the image path for `results[i]`).
///
/// ```
/// use db_bench::{Config, report};
/// let r = report::ServerResult { server: "MariaDB", settings: vec!["version = 10".into()], measurements: vec![] };
/// let md = report::markdown(&[r], &Config::default(), &["docs/img/x.png".into()]);
/// assert!(md.contains("### MariaDB") && md.contains("![MariaDB](docs/img/x.png)"), "{md}");
/// ```
#[must_use]
pub fn markdown(results: &[ServerResult], config: &Config, plots: &[String]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} rows per kind, {} rows per batch; {} point lookups (median); {} range scans of {} rows (median); \
         one row every {} µs of simulated time; seed {}.\n",
        grouped(config.rows as f64),
        grouped(config.batch as f64),
        grouped(config.lookups as f64),
        config.scans,
        grouped(config.scan_rows as f64),
        config.step_ns as f64 / 1000.0,
        config.seed
    );
    for (i, r) in results.iter().enumerate() {
        let _ = writeln!(out, "### {}\n", r.server);
        let _ = writeln!(out, "Settings: {}.\n", r.settings.join(", "));
        out.push_str(&table(r));
        if let Some(plot) = plots.get(i) {
            let _ = writeln!(out, "\n![{}]({plot})", r.server);
        }
        out.push('\n');
    }
    out
}
