//! Uniqueness under faults: a fork after first use, a state file whose lock
//! is held, a stored mark at the end of its range, a clock that goes back.
#![cfg(unix)]

use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use uuidkit::clock::{CoarseClock, ManualClock, SystemClock};
use uuidkit::generator::{ClockBackPolicy, GenErrorKind};
use uuidkit::layout::{MAX_GREGORIAN_TIMESTAMP, MAX_UNIX_TS_MS};
use uuidkit::rng::ThreadRng;
use uuidkit::state::{
    BlockOrigin, BlockPolicy, FileStore, GregorianMark, MemoryStore, Reserver, StateErrorKind,
    StateRecord, StateStore, V7Mark,
};
use uuidkit::{
    Generator, Uuid, V1Generator, V6Generator, V7Generator, V8Distributed, V8TimeGenerator,
};

const MS: u64 = 1_000_000;
const T: u64 = 1_700_000_000_000 * MS;
const NODE: [u8; 6] = [0x9F, 0x6B, 0xDE, 0xCE, 0xD8, 0x46];

/// Forks `children` processes; each of them, and then this one, fills a
/// buffer allocated before the fork with `per` UUIDs from `make` (nothing is
/// allocated after the fork: the test harness has other threads). Returns
/// each process's UUIDs, this one's last.
fn fork_and_collect(children: usize, per: usize, mut make: impl FnMut() -> Uuid) -> Vec<Vec<Uuid>> {
    let mut buf = vec![Uuid::NIL; per];
    let mut readers = Vec::new();
    for _ in 0..children {
        let mut fds = [0i32; 2];
        // SAFETY: pipe(2) on a valid two-element array.
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
        // SAFETY: the child only generates into `buf`, writes it to the pipe
        // and calls `_exit`; it does not allocate.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0, "fork failed");
        if pid == 0 {
            for slot in buf.iter_mut() {
                *slot = make();
            }
            // SAFETY: the bytes of `buf`, which outlives the slice.
            let bytes = unsafe { std::slice::from_raw_parts(buf.as_ptr().cast::<u8>(), per * 16) };
            let mut off = 0;
            while off < bytes.len() {
                // SAFETY: writing initialised bytes to our pipe.
                let n =
                    unsafe { libc::write(fds[1], bytes[off..].as_ptr().cast(), bytes.len() - off) };
                if n <= 0 {
                    // SAFETY: ends the child at once.
                    unsafe { libc::_exit(2) };
                }
                off += n as usize;
            }
            // SAFETY: as above.
            unsafe { libc::_exit(0) };
        }
        // SAFETY: the parent's copy of the write end.
        unsafe { libc::close(fds[1]) };
        readers.push((pid, fds[0]));
    }
    let mut all = Vec::new();
    for (pid, fd) in readers {
        let mut bytes = vec![0u8; per * 16];
        let mut off = 0;
        while off < bytes.len() {
            // SAFETY: reading into our buffer from our pipe.
            let n = unsafe { libc::read(fd, bytes[off..].as_mut_ptr().cast(), bytes.len() - off) };
            assert!(n > 0, "child {pid} wrote {off} of {} bytes", bytes.len());
            off += n as usize;
        }
        let mut status = 0;
        // SAFETY: `pid` is our child; `fd` our pipe.
        unsafe {
            libc::close(fd);
            assert_eq!(libc::waitpid(pid, &mut status, 0), pid);
        }
        assert!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0);
        all.push(
            bytes
                .chunks_exact(16)
                .map(|c| Uuid::from_bytes(c.try_into().unwrap()))
                .collect(),
        );
    }
    all.push((0..per).map(|_| make()).collect());
    all
}

fn duplicates(sets: &[Vec<Uuid>]) -> usize {
    let mut seen = HashSet::new();
    sets.iter().flatten().filter(|u| !seen.insert(**u)).count()
}

/// A process-wide generator used before the fork (as a pre-fork server
/// does): with a random node, and with a node given (the same in every
/// process, as `node=uuid.getnode()` gives), no process repeats another's.
#[test]
fn v1_and_v6_generators_used_before_a_fork_never_repeat_in_the_children() {
    let mut random = V1Generator::system();
    let mut given = V1Generator::builder()
        .node(NODE)
        .build(CoarseClock::new(), ThreadRng)
        .unwrap();
    let mut v6 = V6Generator::builder()
        .node(NODE)
        .build(CoarseClock::new(), ThreadRng)
        .unwrap();
    for g in [&mut random as &mut dyn Generator, &mut given, &mut v6] {
        let first = g.generate().unwrap();
        let sets = fork_and_collect(4, 2_000, || g.generate().unwrap());
        assert_eq!(duplicates(&sets), 0, "{first}: a child repeated a UUID");
        let seqs: HashSet<u16> = sets.iter().map(|s| s[0].clock_seq().unwrap()).collect();
        assert_eq!(seqs.len(), 5, "every process has its own clock sequence");
    }
}

/// v7 and v8 generators: a child never continues its parent's counter run,
/// and stays above what its parent issued before the fork.
#[test]
fn counter_generators_used_before_a_fork_start_a_fresh_run_in_the_children() {
    let mut v7 = V7Generator::new(SystemClock, ThreadRng);
    let mut v8 = V8TimeGenerator::new(SystemClock, ThreadRng);
    let mut dist = V8Distributed::builder()
        .node(0x2A, 8)
        .build(SystemClock, ThreadRng)
        .unwrap();
    for g in [&mut v7 as &mut dyn Generator, &mut v8, &mut dist] {
        let first = g.generate().unwrap();
        let sets = fork_and_collect(3, 2_000, || g.generate().unwrap());
        assert_eq!(duplicates(&sets), 0);
        for s in &sets {
            assert!(s.iter().all(|u| *u > first), "order across the fork");
            assert!(s.windows(2).all(|w| w[0] < w[1]));
        }
        // The ordered prefix (timestamp and counter, the top 80 bits for v7)
        // is never shared: each process counts on its own run.
        let prefixes: Vec<HashSet<u128>> = sets
            .iter()
            .map(|s| s.iter().map(|u| u.as_u128() >> 48).collect())
            .collect();
        if first.version() == Some(uuidkit::Version::SortRand) {
            for (i, a) in prefixes.iter().enumerate() {
                for b in &prefixes[i + 1..] {
                    assert_eq!(a.intersection(b).count(), 0, "a shared v7 counter run");
                }
            }
        }
    }
}

#[test]
fn the_process_wide_v7_and_v4_never_repeat_across_forks() {
    let first = Uuid::now_v7();
    let sets = fork_and_collect(4, 2_000, Uuid::now_v7);
    assert_eq!(duplicates(&sets), 0);
    assert!(sets.iter().flatten().all(|u| *u > first));
    let _ = Uuid::new_v4();
    assert_eq!(duplicates(&fork_and_collect(4, 2_000, Uuid::new_v4)), 0);
}

fn temp_state(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("uuidkit-faults-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("state")
}

/// Holds the state file's lock as another process would (`flock`).
fn hold_lock(state: &Path) -> File {
    let mut lock = state.as_os_str().to_owned();
    lock.push(".lock");
    let f = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(PathBuf::from(lock))
        .unwrap();
    // SAFETY: flock on a descriptor we own.
    assert_eq!(unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX) }, 0);
    f
}

/// Two processes that both fall back while the lock is held must not both
/// take the file's clock sequence and node from the same timestamp.
#[test]
fn a_fallback_never_reuses_the_stored_clock_sequence_or_node() {
    let path = temp_state("fallback");
    let stored = GregorianMark {
        hwm: T / 100 + uuidkit::layout::GREGORIAN_TO_UNIX_100NS,
        clock_seq: 0x0123,
        node: NODE,
    };
    let rec = StateRecord {
        v1: Some(stored),
        v6: Some(stored),
        ..StateRecord::default()
    };
    assert!(FileStore::new(&path).transact(&mut |_| rec).is_persisted());
    let _held = hold_lock(&path);
    let clock = ManualClock::new(T).with_resolution(1_000_000);
    let mut all = Vec::new();
    for _ in 0..2 {
        // Each reserver is another process's view of the file.
        let store = FileStore::new(&path).with_lock_timeout(Duration::from_millis(20));
        let r = Reserver::new(store, BlockPolicy::default());
        let mut g = V1Generator::builder()
            .store(r.lease_v1())
            .build(&clock, ThreadRng)
            .unwrap();
        for _ in 0..100 {
            all.push(g.generate().unwrap());
        }
        let status = g.store().status().unwrap().clone();
        assert_eq!(
            status.write_error().map(|e| e.kind()),
            Some(StateErrorKind::Unlockable)
        );
        assert!(status.to_string().contains("lock timeout"), "{status}");
        assert_eq!(g.store().block().unwrap().origin, BlockOrigin::Fallback);
        assert_ne!(g.clock_seq(), stored.clock_seq);
        assert_ne!(g.node(), stored.node);
    }
    assert_eq!(duplicates(&[all]), 0);
}

#[test]
fn strict_mode_refuses_to_fall_back() {
    let path = temp_state("strict");
    let _held = hold_lock(&path);
    let store = FileStore::new(&path).with_lock_timeout(Duration::from_millis(20));
    let r = Reserver::new(store, BlockPolicy::default()).strict(true);
    let mut v1 = V1Generator::builder()
        .store(r.lease_v1())
        .build(SystemClock, ThreadRng)
        .unwrap();
    let mut v7 = V7Generator::builder()
        .store(r.lease_v7())
        .build(SystemClock, ThreadRng)
        .unwrap();
    for err in [v1.generate().unwrap_err(), v7.generate().unwrap_err()] {
        assert_eq!(err.kind(), GenErrorKind::Store);
        assert!(err.to_string().contains("not lockable"), "{err}");
    }
    drop(_held);
    // The store's queued request gets the lock once it is free (each try
    // after a timed-out one waits at most 10 ms for it).
    let tries = (0..1_000).position(|_| v7.generate().is_ok());
    assert!(tries.is_some(), "the lock is free again");
    assert!(v7.store().status().unwrap().is_persisted());
}

/// The wait blocks until the holder lets go (no polling window to miss).
#[test]
fn a_waiter_gets_the_lock_when_it_is_released() {
    let path = temp_state("wait");
    let held = hold_lock(&path);
    let (tx, rx) = mpsc::channel();
    let p = path.clone();
    std::thread::spawn(move || {
        let store = FileStore::new(&p).with_lock_timeout(Duration::from_secs(30));
        tx.send(store.transact(&mut |_| StateRecord::default()))
            .unwrap();
    });
    assert!(
        rx.recv_timeout(Duration::from_millis(300)).is_err(),
        "waits while the lock is held"
    );
    drop(held);
    let status = rx.recv_timeout(Duration::from_secs(30)).unwrap();
    assert!(status.is_persisted(), "{status}");
}

/// Runs `f` on another thread; a hang (the defect) fails instead of
/// stalling the suite.
fn within_a_minute<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || tx.send(f()).unwrap());
    rx.recv_timeout(Duration::from_secs(60))
        .expect("generation hung instead of reporting an error")
}

#[test]
fn a_mark_at_the_end_of_its_range_is_an_error_not_a_loop() {
    let path = temp_state("edge");
    let rec = StateRecord {
        v7: Some(V7Mark {
            hwm_ms: MAX_UNIX_TS_MS,
        }),
        v1: Some(GregorianMark {
            hwm: MAX_GREGORIAN_TIMESTAMP,
            clock_seq: 1,
            node: NODE,
        }),
        ..StateRecord::default()
    };
    assert!(FileStore::new(&path).transact(&mut |_| rec).is_persisted());
    let p = path.clone();
    let (v7, v1, v1_status) = within_a_minute(move || {
        let r = Reserver::new(FileStore::new(&p), BlockPolicy::default());
        let mut v7 = V7Generator::builder()
            .store(r.lease_v7())
            .build(SystemClock, ThreadRng)
            .unwrap();
        let mut v1 = V1Generator::builder()
            .store(r.lease_v1())
            .build(SystemClock, ThreadRng)
            .unwrap();
        let (a, b) = (v7.generate(), v1.generate());
        (a, b, v1.store().status().cloned())
    });
    // v7 never goes below a mark: nothing is left above this one.
    assert_eq!(v7.unwrap_err().kind(), GenErrorKind::TimestampOutOfRange);
    // v1 may restart at the clock on another clock sequence (§6.1), and says so.
    assert_eq!(v1.unwrap().clock_seq(), Some(2));
    let status = v1_status.unwrap();
    assert_eq!(
        status.reason().map(|e| e.kind()),
        Some(StateErrorKind::AheadOfClock)
    );

    // A v1 mark at the end that the clock has reached: nothing is left.
    let end = uuidkit::state::BlockPolicy::default().reserve_gregorian(
        Some(&GregorianMark {
            hwm: MAX_GREGORIAN_TIMESTAMP,
            clock_seq: 1,
            node: NODE,
        }),
        MAX_GREGORIAN_TIMESTAMP,
        None,
        uuidkit::state::Fresh {
            clock_seq: 0,
            node: NODE,
        },
    );
    assert_eq!(
        end.start, end.end,
        "an empty block, which the lease reports"
    );
}

#[test]
fn blocks_are_bounded_and_a_far_future_mark_is_reported() {
    let huge = BlockPolicy {
        block: Duration::from_millis(1_000_000_000_000_000),
        ..BlockPolicy::default()
    };
    assert_eq!(
        huge.checked().unwrap_err().to_string(),
        "invalid generator config: expected block in 1..=10000 ms, found 1000000000000000"
    );
    let r = Reserver::new(MemoryStore::new(), huge);
    let (b, _) = r.reserve_v7(1_700_000_000_000);
    assert_eq!(
        b.end_ms - b.start_ms,
        10_000,
        "clamped to the largest block"
    );

    // 2058, as a crash under a huge block once left it.
    let far = StateRecord {
        v7: Some(V7Mark {
            hwm_ms: 2_800_000_000_000,
        }),
        ..StateRecord::default()
    };
    let r = Reserver::new(MemoryStore::with_record(far), BlockPolicy::default());
    let mut g = V7Generator::builder()
        .store(r.lease_v7())
        .build(ManualClock::new(T), ThreadRng)
        .unwrap();
    g.generate().unwrap();
    let status = g.store().status().unwrap();
    assert!(!status.is_safe(), "{status}");
    assert_eq!(
        status.reason().unwrap().kind(),
        StateErrorKind::AheadOfClock
    );
    assert!(status.to_string().contains("2058-"), "{status}");
}

/// No time-ordered generator goes back silently by default: within 10 s it
/// holds above its last UUID, beyond it reports.
#[test]
fn time_ordered_generators_never_go_back_silently() {
    let clock = ManualClock::new(T).with_resolution(1_000);
    let mut v6 = V6Generator::new(&clock, ThreadRng);
    let mut v6r = V6Generator::builder()
        .retain()
        .build(&clock, ThreadRng)
        .unwrap();
    let mut v7 = V7Generator::new(&clock, ThreadRng);
    let mut v8 = V8TimeGenerator::new(&clock, ThreadRng);
    let mut dist = V8Distributed::builder()
        .node(7, 8)
        .build(&clock, ThreadRng)
        .unwrap();
    let gens: [&mut dyn Generator; 5] = [&mut v6, &mut v6r, &mut v7, &mut v8, &mut dist];
    for g in gens {
        clock.set(T);
        let mut last = g.generate().unwrap();
        for back in [MS, 1_000 * MS, 5_000 * MS] {
            clock.step_back(back);
            let u = g.generate().unwrap();
            assert!(u > last, "{back} ns back: {u} after {last}");
            last = u;
        }
        clock.set(T - 3_600_000 * MS);
        assert_eq!(g.generate().unwrap_err().kind(), GenErrorKind::ClockBehind);
        clock.set(T);
        assert!(
            g.generate().unwrap() > last,
            "resumes once the clock is back"
        );
    }
    // Reset is a choice, made explicitly.
    let mut g = V6Generator::builder()
        .clock_back(ClockBackPolicy::Reset, 0)
        .build(&clock, ThreadRng)
        .unwrap();
    let a = g.generate().unwrap();
    clock.step_back(MS);
    assert!(g.generate().unwrap() < a);
}
