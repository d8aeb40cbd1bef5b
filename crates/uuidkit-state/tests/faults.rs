//! The state file under faults: its lock held by another process, a stored
//! mark at the end of its range, a clock far behind a stored mark.

use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use uuidkit::clock::{ManualClock, SystemClock};
use uuidkit::generator::GenErrorKind;
use uuidkit::layout::{MAX_GREGORIAN_TIMESTAMP, MAX_UNIX_TS_MS};
use uuidkit::rng::ThreadRng;
use uuidkit::{Generator, Uuid, V1Generator, V7Generator};
use uuidkit_state::format::{GregorianMark, StateRecord, V7Mark};
use uuidkit_state::{
    BlockOrigin, BlockPolicy, FileStore, MemoryStore, Reserver, StateErrorKind, StateStore,
};

const MS: u64 = 1_000_000;
const T: u64 = 1_700_000_000_000 * MS;
const NODE: [u8; 6] = [0x9F, 0x6B, 0xDE, 0xCE, 0xD8, 0x46];

/// How many UUIDs of `sets` repeat one seen before.
fn duplicates(sets: &[Vec<Uuid>]) -> usize {
    let mut seen = HashSet::new();
    sets.iter().flatten().filter(|u| !seen.insert(**u)).count()
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
    let end = uuidkit_state::BlockPolicy::default().reserve_gregorian(
        Some(&GregorianMark {
            hwm: MAX_GREGORIAN_TIMESTAMP,
            clock_seq: 1,
            node: NODE,
        }),
        MAX_GREGORIAN_TIMESTAMP,
        None,
        uuidkit_state::Fresh {
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
