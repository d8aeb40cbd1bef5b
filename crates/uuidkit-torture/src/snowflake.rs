//! The 64-bit rows' machinery: IDs checked by the same [`Tally`](crate::Tally) as UUIDs (an ID
//! `x` is the UUID whose value is `x`, so order and equality are the ID's), and the worker
//! processes that hold an etcd lease for their worker ID.
//!
//! A worker process leases a worker of the layout's width under a shared prefix, generates
//! through the lease's clock-and-source pair at a steady rate, and appends every ID (8 bytes,
//! little-endian) to its output file as it is made. When its worker is lost it drops the lease
//! and leases again, until its run time is over. In the negative control the deadline is off and a
//! lost worker is kept: a worker paused past its TTL goes on with its old worker when it resumes.

use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use uuidkit::Uuid;
use uuidkit::clock::SystemClock;
use uuidkit::rng::ThreadRng;
use uuidkit::snowflake::{Layout, SnowflakeGenerator};
use uuidkit_lease::etcd::{EtcdConfig, EtcdLease};

/// IDs as the tally's UUIDs: the value, so that order and equality are the ID's.
pub fn as_uuids(ids: &[u64]) -> Vec<Uuid> {
    ids.iter()
        .map(|&id| Uuid::from_u128(u128::from(id)))
        .collect()
}

/// IDs read back from a worker's output file.
pub fn read_ids(path: &Path) -> Vec<u64> {
    std::fs::read(path)
        .unwrap_or_default()
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
        .collect()
}

/// One lease-holding worker process.
#[derive(Clone, Debug)]
pub struct LeaseWorker {
    /// The etcd cluster's client endpoints.
    pub endpoints: Vec<String>,
    /// The key prefix the workers share.
    pub prefix: String,
    /// The layout (its worker width is the lease's).
    pub layout: Layout,
    /// The lease's TTL.
    pub ttl: Duration,
    /// Where the IDs go.
    pub out: PathBuf,
    /// How long to run.
    pub run: Duration,
    /// IDs per second.
    pub rate: u64,
    /// Whether the lease's deadline is enforced (off: the negative control).
    pub deadline: bool,
}

impl LeaseWorker {
    /// Starts the worker: `exe` (the torture binary) with `--sf-lease-worker …`.
    ///
    /// # Panics
    /// If the process cannot be started.
    pub fn spawn(&self, exe: &Path) -> Child {
        let _ = std::fs::remove_file(&self.out);
        Command::new(exe)
            .arg("--sf-lease-worker")
            .arg(self.endpoints.join(","))
            .arg(&self.prefix)
            .arg(self.layout.to_string())
            .arg(self.ttl.as_millis().to_string())
            .arg(&self.out)
            .arg(self.run.as_millis().to_string())
            .arg(self.rate.to_string())
            .arg(if self.deadline { "on" } else { "off" })
            .stdout(Stdio::null())
            .spawn()
            .expect("start a lease worker")
    }
}

/// The negative control after its lease is lost: the same worker, as a static one, at the same
/// rate until the run is over.
fn keep_worker(
    layout: Layout,
    worker: u64,
    file: &mut std::fs::File,
    start: Instant,
    run: Duration,
    rate: u64,
    mut made: u64,
) {
    let mut g = SnowflakeGenerator::builder(layout)
        .worker(worker)
        .build(SystemClock, ThreadRng)
        .expect("generator");
    let mut batch: Vec<u8> = Vec::with_capacity(8 * 4096);
    while start.elapsed() < run {
        let due = (start.elapsed().as_secs_f64() * rate as f64) as u64;
        while made < due {
            batch.extend_from_slice(&g.generate().expect("id").to_le_bytes());
            made += 1;
        }
        file.write_all(&batch).expect("write");
        batch.clear();
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// The worker's side: `args` are what [`LeaseWorker::spawn`] passed after the flag.
///
/// # Panics
/// On bad arguments or an unwritable output.
pub fn run_lease_worker(args: &[String]) {
    let [endpoints, prefix, layout, ttl, out, run, rate, deadline] = args else {
        panic!("lease worker arguments: {args:?}")
    };
    let layout: Layout = layout.parse().expect("layout");
    let config = EtcdConfig {
        timing: uuidkit_lease::Timing {
            ttl: Duration::from_millis(ttl.parse().expect("ttl")),
            margin: Duration::from_millis(200),
            answer_limit: Duration::from_millis(600),
            attempts: 4,
            ..uuidkit_lease::Timing::default()
        },
        ..EtcdConfig::new(
            endpoints.split(',').map(str::to_string).collect(),
            prefix,
            layout.worker_bits(),
        )
    };
    let run = Duration::from_millis(run.parse().expect("run"));
    let rate: u64 = rate.parse().expect("rate");
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(out)
        .expect("output");
    let start = Instant::now();
    let mut made = 0u64;
    let mut batch: Vec<u8> = Vec::with_capacity(8 * 4096);
    while start.elapsed() < run {
        let Ok(lease) = EtcdLease::acquire(&config, &mut ThreadRng) else {
            std::thread::sleep(Duration::from_millis(50));
            continue;
        };
        lease.slot().enforce_deadline(deadline == "on");
        let (clock, source) = lease.slot().pair();
        let mut g = SnowflakeGenerator::builder(layout)
            .node_source(source)
            .build(clock, ThreadRng)
            .expect("generator");
        let mut last = None;
        'tenure: while start.elapsed() < run {
            let due = (start.elapsed().as_secs_f64() * rate as f64) as u64;
            while made < due {
                match g.generate() {
                    Ok(id) => {
                        batch.extend_from_slice(&id.to_le_bytes());
                        last = Some(id);
                    }
                    Err(_) if deadline == "on" => break 'tenure,
                    Err(_) => {
                        // The control is the classic failure: a worker ID taken once and kept
                        // through a pause. Without this, whether the control finds duplicates
                        // would depend on whether the resumed generating thread runs before
                        // the lease's renewal thread reports the loss.
                        file.write_all(&batch).expect("write");
                        let worker = last
                            .and_then(|id| layout.decompose(id).ok())
                            .map_or(0, |p| p.worker);
                        keep_worker(layout, worker, &mut file, start, run, rate, made);
                        return;
                    }
                }
                made += 1;
            }
            file.write_all(&batch).expect("write");
            batch.clear();
            std::thread::sleep(Duration::from_millis(1));
        }
        file.write_all(&batch).expect("write");
        batch.clear();
    }
}
