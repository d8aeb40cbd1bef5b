//! `db-bench`: runs the index-locality benchmark (see the library docs) and
//! writes `results.md` and one PNG per server into `--out`.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use db_bench::mariadb::MariaDb;
use db_bench::postgres::Postgres;
use db_bench::report::{self, ServerResult};
use db_bench::{Backend, Config, Kind, Workload, plot};

/// Inserts N rows with each kind of primary key into PostgreSQL and MariaDB
/// and reports each kind's ratio to a bigserial key. Without a URL it starts
/// a throwaway server of each kind (test-support's harness).
#[derive(Debug, Parser)]
#[command(version)]
struct Args {
    /// Rows per kind (10000000 for the long run).
    #[arg(long, default_value_t = 1_000_000)]
    rows: usize,
    /// Rows per insert statement or COPY.
    #[arg(long, default_value_t = 5000)]
    batch: usize,
    /// Point lookups per kind.
    #[arg(long, default_value_t = 10_000)]
    lookups: usize,
    /// Range scans per kind.
    #[arg(long, default_value_t = 20)]
    scans: usize,
    /// Rows per range scan [default: 1 % of --rows].
    #[arg(long)]
    scan_rows: Option<usize>,
    /// Simulated microseconds between two rows.
    #[arg(long, default_value_t = 100)]
    step_us: u64,
    /// Seed of the keys' random bits and of the lookups.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Key kinds to run, comma-separated [default: all].
    #[arg(long, value_delimiter = ',')]
    kinds: Vec<Kind>,
    /// Skip PostgreSQL.
    #[arg(long)]
    no_postgres: bool,
    /// Skip MariaDB.
    #[arg(long)]
    no_mariadb: bool,
    /// A PostgreSQL server to use (e.g. postgresql://user@host/db) instead of a throwaway one.
    #[arg(long)]
    postgres_url: Option<String>,
    /// A MariaDB/MySQL server to use (e.g. mysql://root@host/db) instead of a throwaway one.
    #[arg(long)]
    mariadb_url: Option<String>,
    /// Where results.md and the plots go.
    #[arg(long, default_value = "target/db-bench")]
    out: PathBuf,
    /// The path the plots have in results.md [default: --out].
    #[arg(long)]
    img_prefix: Option<String>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("db-bench: {e}");
            ExitCode::FAILURE
        }
    }
}

fn config(args: &Args) -> Config {
    Config {
        rows: args.rows,
        batch: args.batch,
        lookups: args.lookups,
        scans: args.scans,
        scan_rows: args.scan_rows.unwrap_or((args.rows / 100).max(1)),
        step_ns: args.step_us.saturating_mul(1000),
        seed: args.seed,
    }
}

fn run(args: &Args) -> Result<(), String> {
    let config = config(args);
    let kinds = if args.kinds.is_empty() {
        Kind::ALL.to_vec()
    } else {
        args.kinds.clone()
    };
    // Generated once, before any server starts; the same keys go to both.
    let workloads = kinds
        .iter()
        .map(|&k| Workload::new(k, &config))
        .collect::<Result<Vec<_>, _>>()?;
    std::fs::create_dir_all(&args.out).map_err(|e| format!("{}: {e}", args.out.display()))?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let mut results = Vec::new();
    if !args.no_postgres {
        // Kept alive until the run ends; dropping it stops the server.
        let mut server = None;
        let url = match &args.postgres_url {
            Some(url) => url.clone(),
            None => server.insert(test_support::db::Postgres::start()?).url(),
        };
        let mut backend = runtime.block_on(Postgres::connect(&url))?;
        results.push(runtime.block_on(run_server(&mut backend, &workloads, &config))?);
    }
    if !args.no_mariadb {
        let mut server = None;
        let url = match &args.mariadb_url {
            Some(url) => url.clone(),
            None => server.insert(test_support::db::MariaDb::start()?).url(),
        };
        let mut backend = runtime.block_on(MariaDb::connect(&url))?;
        results.push(runtime.block_on(run_server(&mut backend, &workloads, &config))?);
    }
    write(args, &config, &results)
}

async fn run_server<B: Backend>(
    backend: &mut B,
    workloads: &[Workload],
    config: &Config,
) -> Result<ServerResult, String> {
    let settings = backend.settings().await?;
    let mut measurements = Vec::new();
    for w in workloads {
        eprintln!("db-bench: {}: {} …", backend.name(), w.kind.label());
        let m = db_bench::measure(backend, w, config).await?;
        eprintln!(
            "db-bench: {}: {}: {:.0} rows/s, index {} bytes",
            backend.name(),
            w.kind.label(),
            m.rows_per_sec(),
            m.index_bytes
        );
        measurements.push(m);
    }
    Ok(ServerResult {
        server: backend.name(),
        settings,
        measurements,
    })
}

fn write(args: &Args, config: &Config, results: &[ServerResult]) -> Result<(), String> {
    let mut plots = Vec::new();
    for r in results {
        let file = format!("locality-{}.png", r.server.to_lowercase());
        if r.baseline().is_some() {
            plot::draw(r, &args.out.join(&file))?;
        }
        let prefix = args
            .img_prefix
            .clone()
            .unwrap_or_else(|| args.out.display().to_string());
        plots.push(format!("{}/{file}", prefix.trim_end_matches('/')));
    }
    let md = report::markdown(results, config, &plots);
    let path = args.out.join("results.md");
    std::fs::write(&path, &md).map_err(|e| format!("{}: {e}", path.display()))?;
    print!("{md}");
    Ok(())
}
