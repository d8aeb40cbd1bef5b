//! Real processes sharing one state file.
//!
//! The test binary re-executes itself (`std::env::current_exe()`) with
//! `UUIDKIT_TEST_WORKER` set; the child runs the same test function, sees the
//! variable and acts as a worker: it generates UUIDs through a `FileStore`
//! and writes each one (16 bytes, unbuffered, so a `kill -9` loses nothing that
//! was handed out) to the file named by `UUIDKIT_TEST_OUT`. A clock offset for
//! the "restarted with the clock set back" case comes in `UUIDKIT_TEST_OFFSET_MS`.

use std::collections::HashSet;
use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use uuidkit::clock::{Clock, CoarseClock, SystemClock};
use uuidkit::rng::ThreadRng;
use uuidkit::{Generator, Uuid, V1Generator, V6Generator, V7Generator};
use uuidkit_state::{BlockPolicy, FileStore, Reserver, format::StateRecord};

const NODE: [u8; 6] = [0x9F, 0x6B, 0xDE, 0xCE, 0xD8, 0x46];

/// A real clock shifted by a fixed offset (the "clock set back" hook).
#[derive(Clone, Copy, Debug)]
struct Offset<C> {
    inner: C,
    offset_ns: i64,
}

impl<C: Clock> Clock for Offset<C> {
    fn now_ns(&self) -> u64 {
        self.inner.now_ns().saturating_add_signed(self.offset_ns)
    }
    fn resolution_ns(&self) -> u64 {
        self.inner.resolution_ns()
    }
    fn relax(&self) {
        self.inner.relax()
    }
}

/// If this process is a worker, do the work and return true.
fn worker() -> bool {
    let Ok(version) = std::env::var("UUIDKIT_TEST_WORKER") else {
        return false;
    };
    let var = |k: &str| std::env::var(k).unwrap_or_else(|_| panic!("worker needs {k}"));
    let state = PathBuf::from(var("UUIDKIT_TEST_STATE"));
    let out = PathBuf::from(var("UUIDKIT_TEST_OUT"));
    let count: u64 = var("UUIDKIT_TEST_COUNT").parse().unwrap();
    let offset_ms: i64 = var("UUIDKIT_TEST_OFFSET_MS").parse().unwrap();
    let unbuffered = std::env::var("UUIDKIT_TEST_UNBUFFERED").is_ok();
    let reserver = Reserver::new(FileStore::new(&state), BlockPolicy::default());
    let mut file = File::create(&out).unwrap();
    let mut buf: Vec<u8> = Vec::with_capacity(16 * 4096);
    let mut emit = |u: Uuid| {
        if unbuffered {
            file.write_all(u.as_bytes()).unwrap();
        } else {
            buf.extend_from_slice(u.as_bytes());
        }
    };
    let offset_ns = offset_ms * 1_000_000;
    let coarse = Offset {
        inner: CoarseClock::new(),
        offset_ns,
    };
    match version.as_str() {
        "v1" => {
            let mut g = V1Generator::builder()
                .node(NODE)
                .store(reserver.lease_v1())
                .build(coarse, ThreadRng)
                .unwrap();
            (0..count).for_each(|_| emit(g.generate().unwrap()));
        }
        "v6" => {
            let mut g = V6Generator::builder()
                .node(NODE)
                .store(reserver.lease_v6())
                .build(coarse, ThreadRng)
                .unwrap();
            (0..count).for_each(|_| emit(g.generate().unwrap()));
        }
        "v7" => {
            let clock = Offset {
                inner: SystemClock,
                offset_ns,
            };
            let mut g = V7Generator::builder()
                .store(reserver.lease_v7())
                .build(clock, ThreadRng)
                .unwrap();
            (0..count).for_each(|_| emit(g.generate().unwrap()));
        }
        other => panic!("unknown worker version {other}"),
    }
    if !unbuffered {
        file.write_all(&buf).unwrap();
    }
    true
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("uuidkit-state-mp-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

fn spawn(
    test: &str,
    version: &str,
    state: &Path,
    out: &Path,
    count: u64,
    offset_ms: i64,
    unbuffered: bool,
) -> Child {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args(["--exact", test, "--nocapture", "--test-threads=1"])
        .env("UUIDKIT_TEST_WORKER", version)
        .env("UUIDKIT_TEST_STATE", state)
        .env("UUIDKIT_TEST_OUT", out)
        .env("UUIDKIT_TEST_COUNT", count.to_string())
        .env("UUIDKIT_TEST_OFFSET_MS", offset_ms.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit());
    if unbuffered {
        cmd.env("UUIDKIT_TEST_UNBUFFERED", "1");
    }
    cmd.spawn().unwrap()
}

/// The whole UUIDs in a worker's output (a trailing partial one, cut by a kill, is dropped).
fn read_uuids(path: &Path) -> Vec<Uuid> {
    let bytes = fs::read(path).unwrap();
    bytes
        .chunks_exact(16)
        .map(|c| Uuid::from_bytes(c.try_into().unwrap()))
        .collect()
}

/// The order each version promises within one process: v6 and v7 sort as
/// bytes; v1 does not (time_low comes first), so its timestamps are compared.
fn key(version: &str, u: &Uuid) -> u128 {
    match version {
        "v1" => u128::from(u.gregorian_timestamp().unwrap()),
        _ => u.as_u128(),
    }
}

fn four_processes(test: &str, version: &str) {
    if worker() {
        return;
    }
    let dir = scratch(version);
    let state = dir.join("state");
    const N: u64 = 250_000;
    let outs: Vec<PathBuf> = (0..4).map(|i| dir.join(format!("out{i}"))).collect();
    let children: Vec<Child> = outs
        .iter()
        .map(|o| spawn(test, version, &state, o, N, 0, false))
        .collect();
    for mut c in children {
        assert!(c.wait().unwrap().success(), "a {version} worker failed");
    }
    let mut all = HashSet::with_capacity(4 * N as usize);
    for (i, o) in outs.iter().enumerate() {
        let uuids = read_uuids(o);
        assert_eq!(uuids.len(), N as usize, "worker {i} wrote all its UUIDs");
        for w in uuids.windows(2) {
            assert!(
                key(version, &w[0]) < key(version, &w[1]),
                "{version} worker {i}: {:?} then {:?}",
                w[0],
                w[1]
            );
        }
        for u in &uuids {
            assert_eq!(
                u.version().map(|v| v.number()),
                Some(version[1..].parse().unwrap())
            );
            if version != "v7" {
                assert_eq!(u.node(), Some(NODE), "every process uses the same node ID");
            }
            assert!(all.insert(*u), "{version}: duplicate {u:?}");
        }
    }
    assert_eq!(all.len(), 4 * N as usize);
    // The file is valid and covers everything issued.
    let rec = FileStore::new(&state).load().unwrap();
    match version {
        "v7" => {
            let hwm = rec.v7.unwrap().hwm_ms;
            assert!(all.iter().all(|u| u.unix_ts_ms().unwrap() < hwm));
        }
        _ => {
            let m = if version == "v1" { rec.v1 } else { rec.v6 }.unwrap();
            assert_eq!(m.node, NODE);
            assert!(all.iter().all(|u| u.gregorian_timestamp().unwrap() < m.hwm));
        }
    }
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn four_processes_v1_same_node_no_duplicates() {
    four_processes(
        "multiprocess::four_processes_v1_same_node_no_duplicates",
        "v1",
    );
}

#[test]
fn four_processes_v6_same_node_no_duplicates() {
    four_processes(
        "multiprocess::four_processes_v6_same_node_no_duplicates",
        "v6",
    );
}

#[test]
fn four_processes_v7_no_duplicates() {
    four_processes("multiprocess::four_processes_v7_no_duplicates", "v7");
}

/// kill -9 in the middle of a run, then a restart with the clock 5 s back.
fn kill_and_restart(test: &str, version: &str) {
    if worker() {
        return;
    }
    let dir = scratch(&format!("kill-{version}"));
    let state = dir.join("state");
    let (pre_out, post_out) = (dir.join("pre"), dir.join("post"));
    let mut child = spawn(test, version, &state, &pre_out, u64::MAX, 0, true);
    let deadline = Instant::now() + Duration::from_secs(120);
    while fs::metadata(&pre_out).map(|m| m.len()).unwrap_or(0) < 16 * 30_000 {
        assert!(Instant::now() < deadline, "worker made no progress");
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap(); // SIGKILL: no destructor, no release of the block
    child.wait().unwrap();
    let pre = read_uuids(&pre_out);
    let stored: StateRecord = FileStore::new(&state).load().unwrap();

    let mut restarted = spawn(test, version, &state, &post_out, 30_000, -5_000, false);
    assert!(restarted.wait().unwrap().success());
    let post = read_uuids(&post_out);
    assert_eq!(post.len(), 30_000);

    let mut seen: HashSet<Uuid> = pre.iter().copied().collect();
    assert_eq!(seen.len(), pre.len(), "no duplicate before the crash");
    for u in &post {
        assert!(seen.insert(*u), "{version}: {u:?} issued twice");
    }
    match version {
        "v7" => {
            let hwm = stored.v7.unwrap().hwm_ms;
            let max_pre = pre.iter().max().unwrap();
            assert!(pre.iter().all(|u| u.unix_ts_ms().unwrap() < hwm));
            assert!(
                post.iter().all(|u| u > max_pre),
                "v7 continues above everything issued before"
            );
            assert!(post[0].unix_ts_ms().unwrap() >= hwm);
        }
        _ => {
            let m = if version == "v1" {
                stored.v1
            } else {
                stored.v6
            }
            .unwrap();
            assert!(
                pre.iter().all(|u| u.gregorian_timestamp().unwrap() < m.hwm
                    && u.clock_seq() == Some(m.clock_seq))
            );
            // The clock is now 5 s behind the mark: a new clock sequence.
            let cs = (m.clock_seq + 1) & 0x3FFF;
            assert!(
                post.iter().all(|u| u.clock_seq() == Some(cs)),
                "{version}: clock sequence incremented"
            );
            assert!(
                post[0].gregorian_timestamp().unwrap() < m.hwm,
                "{version}: the restart really is behind"
            );
        }
    }
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn kill_9_then_restart_5s_back_v1() {
    kill_and_restart("multiprocess::kill_9_then_restart_5s_back_v1", "v1");
}

#[test]
fn kill_9_then_restart_5s_back_v6() {
    kill_and_restart("multiprocess::kill_9_then_restart_5s_back_v6", "v6");
}

#[test]
fn kill_9_then_restart_5s_back_v7() {
    kill_and_restart("multiprocess::kill_9_then_restart_5s_back_v7", "v7");
}
