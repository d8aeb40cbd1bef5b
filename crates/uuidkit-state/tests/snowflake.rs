//! Snowflake IDs and the state file: a restart with the clock behind, two
//! generators of one worker, forked children, a reservation that cannot be
//! persisted, marks that fall out of the file.
#![cfg(unix)]

use std::collections::HashSet;
use std::path::Path;

use uuidkit::clock::ManualClock;
use uuidkit::generator::GenErrorKind;
use uuidkit::rng::ThreadRng;
use uuidkit::snowflake::{Layout, SnowflakeGenerator};
use uuidkit_state::{
    BlockPolicy, FileStore, MemoryStore, Reserver, StateErrorKind, StateStore, format::StateRecord,
};

const MS: u64 = 1_000_000;
const T: u64 = 1_700_000_000_000 * MS;

fn run(
    r: &Reserver,
    layout: Layout,
    worker: u64,
    clock: &ManualClock,
    n: usize,
) -> Result<Vec<u64>, uuidkit::GenError> {
    let mut g = SnowflakeGenerator::builder(layout)
        .worker(worker)
        .store(r.lease_snowflake(layout))
        .build(clock, ThreadRng)?;
    (0..n).map(|_| g.generate()).collect()
}

fn file(dir: &Path) -> Reserver {
    Reserver::new(FileStore::new(dir.join("state")), BlockPolicy::default())
}

/// A restart whose clock is 30 s behind the last run's continues above
/// every ID the file has seen, and says the clock was behind.
#[test]
fn a_restart_with_the_clock_behind_continues_above_the_stored_tick() {
    let dir = tempfile::tempdir().unwrap();
    let l = Layout::TWITTER;
    let clock = ManualClock::new(T).advancing_on_relax(MS / 8);
    let first = run(&file(dir.path()), l, 5, &clock, 20_000).unwrap();
    clock.set(T - 30_000 * MS);
    let r = file(dir.path());
    let mut g = SnowflakeGenerator::builder(l)
        .worker(5)
        .store(r.lease_snowflake(l))
        .build(&clock, ThreadRng)
        .unwrap();
    let second: Vec<u64> = (0..20_000).map(|_| g.generate().unwrap()).collect();
    let top = *first.iter().max().unwrap();
    assert!(
        second.iter().all(|&id| id > top),
        "a restart behind went below"
    );
    let status = g.store().status().unwrap();
    assert_eq!(
        status.ahead_error().map(|e| e.kind()),
        Some(StateErrorKind::AheadOfClock),
        "{status:?}"
    );
    let text = std::fs::read_to_string(dir.path().join("state")).unwrap();
    assert!(
        text.contains("\nsnowflake t41.w10.s12.e1288834974657.u1ms 5 "),
        "{text}"
    );
    // Without the file, the same restart repeats IDs: the file is what prevents it.
    let clock = ManualClock::new(T).advancing_on_relax(MS / 8);
    let mem = Reserver::new(MemoryStore::new(), BlockPolicy::default());
    let a = run(&mem, l, 5, &clock, 20_000).unwrap();
    clock.set(T);
    let mut g = SnowflakeGenerator::builder(l)
        .worker(5)
        .build(&clock, ThreadRng)
        .unwrap();
    let b: Vec<u64> = (0..20_000).map(|_| g.generate().unwrap()).collect();
    let a: HashSet<u64> = a.into_iter().collect();
    assert!(
        b.iter().any(|id| a.contains(id)),
        "the control repeated nothing"
    );
}

/// Two generators of one worker on one file take disjoint blocks of ticks.
#[test]
fn two_generators_of_one_worker_never_share_a_tick() {
    let dir = tempfile::tempdir().unwrap();
    let l = Layout::SONYFLAKE;
    let clock = ManualClock::new(T).advancing_on_relax(MS);
    let (r1, r2) = (file(dir.path()), file(dir.path()));
    let mut a = SnowflakeGenerator::builder(l)
        .worker(0xBEEF)
        .store(r1.lease_snowflake(l))
        .build(&clock, ThreadRng)
        .unwrap();
    let mut b = SnowflakeGenerator::builder(l)
        .worker(0xBEEF)
        .store(r2.lease_snowflake(l))
        .build(&clock, ThreadRng)
        .unwrap();
    let mut seen = HashSet::new();
    for _ in 0..5_000 {
        assert!(seen.insert(a.generate().unwrap()));
        assert!(seen.insert(b.generate().unwrap()));
    }
    // Another worker is not held back by them: it starts at the clock.
    let clock2 = ManualClock::new(T);
    let c = run(&file(dir.path()), l, 1, &clock2, 1).unwrap();
    assert_eq!(l.decompose(c[0]).unwrap().tick, l.tick_of(T).unwrap());
}

/// A reservation that cannot be persisted is an error, strict or not: a
/// snowflake ID has no random bits to keep two processes apart.
#[test]
fn a_reservation_that_cannot_be_persisted_is_refused() {
    let r = Reserver::new(
        FileStore::new("/nonexistent-uuidkit-dir/state"),
        BlockPolicy::default(),
    );
    assert!(!r.is_strict());
    let e = run(&r, Layout::TWITTER, 1, &ManualClock::new(T), 1).unwrap_err();
    assert_eq!(e.kind(), GenErrorKind::Store);
    assert!(e.to_string().contains("state unavailable"), "{e}");
}

/// Forty workers pass through one file; the oldest marks fall into the
/// layout's floor, and each worker restarted with the clock behind still
/// continues above what it issued.
#[test]
fn workers_whose_marks_fell_out_stay_above_what_they_issued() {
    let store = std::sync::Arc::new(MemoryStore::new());
    let r = Reserver::shared(store.clone(), BlockPolicy::default());
    let l = Layout::DISCORD;
    let clock = ManualClock::new(T).advancing_on_relax(MS / 8);
    let mut top = Vec::new();
    for w in 0..40 {
        let ids = run(&r, l, w, &clock, 3_000).unwrap();
        top.push(*ids.iter().max().unwrap());
    }
    let rec: StateRecord = store.record().unwrap();
    assert!(rec.snowflake.iter().flatten().any(|m| m.worker.is_none()));
    clock.set(T - 60_000 * MS);
    for w in 0..40u64 {
        let ids = run(&r, l, w, &clock, 10).unwrap();
        assert!(ids[0] > top[w as usize], "worker {w}");
    }
    let _ = store.transact(&mut |old| *old.unwrap());
}

/// Forked children of a parent whose generator has a state file and a fixed
/// worker each reserve blocks of their own: no ID is repeated.
#[test]
fn forked_children_with_a_state_file_never_repeat_their_parent() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state");
    let l = Layout::TWITTER;
    let r = Reserver::new(FileStore::new(&path), BlockPolicy::default());
    let mut g = SnowflakeGenerator::builder(l)
        .worker(9)
        .store(r.lease_snowflake(l))
        .build(uuidkit::clock::SystemClock, ThreadRng)
        .unwrap();
    g.generate().unwrap();
    let per = 20_000;
    let mut buf = vec![0u64; per];
    let mut pipes = Vec::new();
    for _ in 0..3 {
        let mut fds = [0i32; 2];
        // SAFETY: pipe(2) on a two-element array.
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
        // SAFETY: the child fills a buffer made before the fork, writes it and
        // leaves with `_exit`.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0);
        if pid == 0 {
            let mut code = 0;
            for slot in buf.iter_mut() {
                match g.generate() {
                    Ok(id) => *slot = id,
                    Err(_) => code = 3,
                }
            }
            // SAFETY: the bytes of `buf`.
            let bytes = unsafe { std::slice::from_raw_parts(buf.as_ptr().cast::<u8>(), per * 8) };
            let mut off = 0;
            while off < bytes.len() {
                // SAFETY: our pipe.
                let n =
                    unsafe { libc::write(fds[1], bytes[off..].as_ptr().cast(), bytes.len() - off) };
                if n <= 0 {
                    // SAFETY: ends the child.
                    unsafe { libc::_exit(2) };
                }
                off += n as usize;
            }
            // SAFETY: ends the child.
            unsafe { libc::_exit(code) };
        }
        // SAFETY: the parent's copy of the write end.
        unsafe { libc::close(fds[1]) };
        pipes.push((pid, fds[0]));
    }
    let mut all: Vec<u64> = (0..per).map(|_| g.generate().unwrap()).collect();
    for (pid, fd) in pipes {
        let mut bytes = Vec::new();
        let mut chunk = [0u8; 65_536];
        loop {
            // SAFETY: our pipe, our buffer.
            let n = unsafe { libc::read(fd, chunk.as_mut_ptr().cast(), chunk.len()) };
            assert!(n >= 0);
            if n == 0 {
                break;
            }
            bytes.extend_from_slice(&chunk[..n as usize]);
        }
        let mut status = 0;
        // SAFETY: our child and pipe.
        unsafe {
            libc::close(fd);
            libc::waitpid(pid, &mut status, 0);
        }
        assert!(
            libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
            "child {status:#x}"
        );
        all.extend(
            bytes
                .chunks_exact(8)
                .map(|c| u64::from_ne_bytes(c.try_into().unwrap())),
        );
    }
    let n = all.len();
    all.sort_unstable();
    all.dedup();
    assert_eq!(all.len(), n, "duplicates across the fork");
    assert_eq!(n, 4 * per);
}
