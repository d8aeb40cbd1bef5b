//! Worker processes that share one state file: the torture binary runs
//! itself with `--worker …` and generates through a lease, writing every
//! batch of UUIDs to its output file as soon as it is issued (so a `kill -9`
//! loses only what was never handed out).

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use uuidkit::clock::{CoarseClock, SystemClock};
use uuidkit::rng::ThreadRng;
use uuidkit::{Generator, Uuid, V1Generator, V6Generator, V7Generator};
use uuidkit_state::{BlockPolicy, FileStore, Reserver, StateStore, Status, format::StateRecord};

/// What one worker does.
#[derive(Clone, Debug)]
pub struct Worker {
    /// `v1`, `v6` or `v7`.
    pub kind: &'static str,
    /// The shared state file.
    pub state: PathBuf,
    /// Where the worker writes its UUIDs.
    pub out: PathBuf,
    /// How many UUIDs.
    pub count: usize,
    /// The lock timeout.
    pub lock_timeout_ms: u64,
    /// Stop itself (`SIGSTOP`) inside its `n`th reservation, holding the lock.
    pub stop_at: Option<usize>,
    /// The block length ([`BlockPolicy::block`]).
    pub block_ms: u64,
}

impl Worker {
    /// Starts the worker: `exe` (this test binary) with `--worker …`.
    ///
    /// # Panics
    /// If the process cannot be started.
    pub fn spawn(&self, exe: &Path) -> Child {
        let _ = std::fs::remove_file(&self.out);
        Command::new(exe)
            .arg("--worker")
            .arg(self.kind)
            .arg(&self.state)
            .arg(&self.out)
            .arg(self.count.to_string())
            .arg(self.lock_timeout_ms.to_string())
            .arg(self.stop_at.map_or("-".into(), |n| n.to_string()))
            .arg(self.block_ms.to_string())
            .stdout(Stdio::piped())
            .spawn()
            .expect("start a worker")
    }
}

/// The UUIDs a worker wrote.
pub fn read(out: &Path) -> Vec<Uuid> {
    crate::from_bytes(&std::fs::read(out).unwrap_or_default())
}

/// Waits for `child` to end; returns the fallbacks it reported.
///
/// # Panics
/// If it failed.
pub fn finish(child: Child) -> usize {
    let out = child.wait_with_output().expect("wait for a worker");
    assert!(out.status.success(), "worker failed: {:?}", out.status);
    let text = String::from_utf8_lossy(&out.stdout);
    text.trim()
        .strip_prefix("fallbacks ")
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("worker said {text:?}"))
}

/// Waits until process `pid` is stopped (state `T` in `/proc`).
///
/// # Panics
/// If it is not within a minute.
pub fn wait_stopped(pid: u32) {
    let start = Instant::now();
    loop {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let state = stat
            .rsplit(')')
            .next()
            .and_then(|s| s.split_whitespace().next());
        if state == Some("T") {
            return;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "worker {pid} never stopped"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Sends `signal` to `pid`.
pub fn signal(pid: u32, signal: libc::c_int) {
    // SAFETY: kill(2) on our own child.
    unsafe { libc::kill(pid as libc::pid_t, signal) };
}

/// A store that stops its process inside its `n`th transaction, while it
/// holds the lock (a process stopped with `^Z` mid-reservation, or killed).
#[derive(Debug)]
struct StopInside {
    inner: FileStore,
    left: AtomicUsize,
}

impl StateStore for StopInside {
    fn transact(&self, update: &mut dyn FnMut(Option<&StateRecord>) -> StateRecord) -> Status {
        let stop = self.left.fetch_sub(1, Ordering::Relaxed) == 1;
        self.inner.transact(&mut |old| {
            let rec = update(old);
            if stop {
                // SAFETY: raise(3) with a valid signal.
                unsafe { libc::raise(libc::SIGSTOP) };
            }
            rec
        })
    }
}

/// The worker's side: `args` are what [`Worker::spawn`] passed after
/// `--worker`. Prints `fallbacks N` (reservations not persisted).
///
/// # Panics
/// On bad arguments, or when generation fails.
pub fn run(args: &[String]) {
    let [kind, state, out, count, timeout, stop, block] = args else {
        panic!("worker arguments: {args:?}")
    };
    let count: usize = count.parse().expect("count");
    let store = FileStore::new(state)
        .with_lock_timeout(Duration::from_millis(timeout.parse().expect("timeout")));
    let policy = BlockPolicy {
        block: Duration::from_millis(block.parse().expect("block")),
        ..BlockPolicy::default()
    };
    let reserver = match stop.parse::<usize>() {
        Ok(n) => Reserver::new(
            StopInside {
                inner: store,
                left: AtomicUsize::new(n),
            },
            policy,
        ),
        Err(_) => Reserver::new(store, policy),
    };
    let mut g: Box<dyn Generator> = match kind.as_str() {
        "v1" => Box::new(
            V1Generator::builder()
                .store(reserver.lease_v1())
                .build(CoarseClock::new(), ThreadRng)
                .expect("v1"),
        ),
        "v6" => Box::new(
            V6Generator::builder()
                .retain()
                .store(reserver.lease_v6())
                .build(CoarseClock::new(), ThreadRng)
                .expect("v6"),
        ),
        _ => Box::new(
            V7Generator::builder()
                .store(reserver.lease_v7())
                .build(SystemClock, ThreadRng)
                .expect("v7"),
        ),
    };
    let mut file: File = OpenOptions::new()
        .create(true)
        .append(true)
        .open(out)
        .expect("output");
    let mut batch = vec![Uuid::NIL; 1024];
    let (mut left, mut fallbacks, mut last) = (count, 0, None);
    while left > 0 {
        let n = left.min(batch.len());
        for slot in &mut batch[..n] {
            *slot = g.generate().expect("generate");
            let status = reserver.last_status();
            if status != last {
                fallbacks += usize::from(status.as_ref().is_some_and(|s| !s.is_persisted()));
                last = status;
            }
        }
        let bytes: Vec<u8> = batch[..n].iter().flat_map(|u| *u.as_bytes()).collect();
        file.write_all(&bytes).expect("write");
        left -= n;
    }
    drop(g); // gives back the unused tail of the block
    println!("fallbacks {fallbacks}");
}

/// libfaketime, which the rows that step a process's clock preload (Debian: `faketime`).
pub const FAKETIME: &str = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1";

/// Whether libfaketime is there; if not, `test` is reported skipped (a failure under `CI=true`).
pub fn require_faketime(test: &str) -> bool {
    test_support::require(
        test,
        Path::new(FAKETIME)
            .is_file()
            .then_some(())
            .ok_or("libfaketime (Debian: faketime)".into()),
    )
}
