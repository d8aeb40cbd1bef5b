//! A forked child must not continue its parent's block, nor find a lock
//! held by a thread it does not have (`docs/generator-design.md` G1, G6).
#![cfg(unix)]

use std::collections::HashSet;
use std::os::unix::io::AsRawFd;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use uuidkit::clock::CoarseClock;
use uuidkit::rng::ThreadRng;
use uuidkit::{Generator, Uuid, V1Generator};
use uuidkit_state::{
    self as state, BlockPolicy, FileStore, Reserver, StateConfig, StateStore,
    format::{StateRecord, V7Mark},
};

const N: usize = 2000;

#[test]
fn forked_child_reserves_its_own_block() {
    let dir = std::env::temp_dir().join(format!("uuidkit-state-fork-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let r = Reserver::new(FileStore::new(dir.join("state")), BlockPolicy::default());
    let mut g = V1Generator::builder()
        .store(r.lease_v1())
        .build(CoarseClock::new(), ThreadRng)
        .unwrap();
    let warm = g.generate().unwrap();
    let mut fds = [0i32; 2];
    // SAFETY: plain pipe(2) on a valid two-element array.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
    // SAFETY: the child generates, writes to the pipe and calls _exit.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0, "fork failed");
    if pid == 0 {
        let mut out = [Uuid::NIL; N];
        for slot in out.iter_mut() {
            *slot = match g.generate() {
                Ok(u) => u,
                Err(_) => unsafe { libc::_exit(3) },
            };
        }
        // SAFETY: `out` is plain bytes.
        let bytes = unsafe { core::slice::from_raw_parts(out.as_ptr().cast::<u8>(), N * 16) };
        let mut off = 0;
        while off < bytes.len() {
            let n = unsafe { libc::write(fds[1], bytes[off..].as_ptr().cast(), bytes.len() - off) };
            if n <= 0 {
                unsafe { libc::_exit(2) };
            }
            off += n as usize;
        }
        unsafe { libc::_exit(0) };
    }
    unsafe { libc::close(fds[1]) };
    let parent: Vec<Uuid> = (0..N).map(|_| g.generate().unwrap()).collect();
    let mut buf = vec![0u8; N * 16];
    let mut off = 0;
    while off < buf.len() {
        let n = unsafe { libc::read(fds[0], buf[off..].as_mut_ptr().cast(), buf.len() - off) };
        assert!(n > 0, "child wrote {off} bytes");
        off += n as usize;
    }
    let mut status = 0;
    assert_eq!(unsafe { libc::waitpid(pid, &mut status, 0) }, pid);
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "child status {status}"
    );
    let child: Vec<Uuid> = buf
        .chunks_exact(16)
        .map(|c| Uuid::from_bytes(c.try_into().unwrap()))
        .collect();
    let mut all: HashSet<Uuid> = parent.iter().copied().collect();
    all.insert(warm);
    for u in &child {
        assert!(all.insert(*u), "child repeated {u:?}");
    }
    // Same node and clock sequence (one store), so only the timestamps differ.
    assert_eq!(child[0].node(), parent[0].node());
    assert_eq!(child[0].clock_seq(), parent[0].clock_seq());
    let _ = std::fs::remove_dir_all(&dir);
}

/// Waits at most `limit` for child `pid`; a child still running then is
/// killed (a hang fails the test instead of hanging it). Its wait status, or
/// `None` if it had to be killed.
fn wait_bounded(pid: libc::pid_t, limit: Duration) -> Option<i32> {
    let deadline = Instant::now() + limit;
    loop {
        let mut status = 0;
        // SAFETY: `pid` is our child; WNOHANG never blocks.
        let got = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
        assert!(got >= 0, "waitpid failed");
        if got == pid {
            return Some(status);
        }
        if Instant::now() > deadline {
            // SAFETY: as above; the child is reaped after the kill.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
                libc::waitpid(pid, &mut status, 0);
            }
            return None;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// All the bytes a child wrote to `fd` (its write end closed), as UUIDs.
fn read_uuids(fd: i32) -> Vec<Uuid> {
    let mut bytes = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        // SAFETY: reading into our buffer from our pipe.
        let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
        assert!(n >= 0, "read");
        if n == 0 {
            break;
        }
        bytes.extend_from_slice(&buf[..n as usize]);
    }
    // SAFETY: our pipe's read end.
    unsafe { libc::close(fd) };
    bytes
        .chunks_exact(16)
        .map(|c| Uuid::from_bytes(c.try_into().unwrap()))
        .collect()
}

/// `docs/generator-design.md` G6: a thread calls `state::stored_v7` in a loop
/// (holding the process-wide state's lock most of the time) while the main
/// thread forks again and again. Each child must complete its own stored
/// calls, bounded by a timeout, and no UUID may repeat. With a plain mutex
/// nearly every child finds the lock held by a thread it does not have, and
/// waits for ever.
#[test]
fn a_child_forked_while_a_thread_is_inside_stored_v7_completes() {
    let _global = crate::support::global();
    const ROUNDS: usize = 20;
    const PER_CHILD: usize = 50;
    let dir = std::env::temp_dir().join(format!("uuidkit-stored-fork-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    state::configure(StateConfig::new(dir.join("state")));
    let stop = Arc::new(AtomicBool::new(false));
    let calls = Arc::new(AtomicU64::new(0));
    let looping = {
        let (stop, calls) = (stop.clone(), calls.clone());
        std::thread::spawn(move || {
            let mut mine = Vec::new();
            while !stop.load(Ordering::Relaxed) {
                mine.push(state::stored_v7().unwrap().0);
                calls.fetch_add(1, Ordering::Relaxed);
            }
            mine
        })
    };
    while calls.load(Ordering::Relaxed) < 100 {
        std::thread::yield_now();
    }
    let mut all: Vec<Uuid> = Vec::new();
    for round in 0..ROUNDS {
        let mut fds = [0i32; 2];
        // SAFETY: pipe(2) on a valid two-element array.
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
        // SAFETY: the child makes its stored calls (the point of the test),
        // writes less than a pipe's buffer and leaves with `_exit`.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0, "fork failed");
        if pid == 0 {
            let mut out = [Uuid::NIL; PER_CHILD];
            for slot in &mut out {
                match state::stored_v7() {
                    Ok((u, _)) => *slot = u,
                    Err(_) => unsafe { libc::_exit(3) },
                }
            }
            if state::stored_v1().is_err() {
                unsafe { libc::_exit(4) };
            }
            // SAFETY: `out` is plain bytes, and fits the pipe's buffer.
            let n = unsafe { libc::write(fds[1], out.as_ptr().cast(), PER_CHILD * 16) };
            unsafe { libc::_exit(if n == (PER_CHILD * 16) as isize { 0 } else { 2 }) };
        }
        // SAFETY: the parent's copy of the write end.
        unsafe { libc::close(fds[1]) };
        let status = wait_bounded(pid, Duration::from_secs(20));
        let uuids = read_uuids(fds[0]);
        let Some(status) = status else {
            panic!("round {round}: the child hung (it found a lock held) and was killed");
        };
        assert!(
            libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
            "round {round}: child status {status:#x}"
        );
        assert_eq!(uuids.len(), PER_CHILD, "round {round}");
        all.extend(uuids);
    }
    stop.store(true, Ordering::Relaxed);
    all.extend(looping.join().unwrap());
    let distinct: HashSet<Uuid> = all.iter().copied().collect();
    assert_eq!(
        distinct.len(),
        all.len(),
        "a UUID repeated across the forks"
    );
    state::release();
    let _ = std::fs::remove_dir_all(&dir);
}

/// `flock(2)` on one open file description.
fn flock(file: &std::fs::File, op: i32) -> bool {
    // SAFETY: flock on a descriptor we keep open.
    unsafe { libc::flock(file.as_raw_fd(), op) == 0 }
}

/// G6: a forked child holds duplicates of every descriptor open in its
/// parent at the fork, among them the one a store's helper thread is queued
/// with for the state file's lock. When the parent gets and releases that
/// lock, it must be free for everyone, although the child (still running)
/// holds its duplicate: released by an unlock, not only by a close.
#[test]
fn a_lock_released_in_the_parent_is_free_while_a_child_holds_its_descriptor() {
    let dir = std::env::temp_dir().join(format!("uuidkit-lock-dup-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let store = FileStore::new(dir.join("state")).with_lock_timeout(Duration::from_millis(50));
    let record = |old: Option<&StateRecord>| {
        let hwm_ms = old.and_then(|r| r.v7).map_or(1_000, |m| m.hwm_ms + 1);
        StateRecord {
            v7: Some(V7Mark { hwm_ms }),
            ..Default::default()
        }
    };
    assert!(store.transact(&mut |old| record(old)).is_persisted());
    let lock_file = || {
        std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(dir.join("state.lock"))
            .unwrap()
    };
    let outside = lock_file();
    assert!(flock(&outside, libc::LOCK_EX));
    // Busy: the store falls back, leaving a helper queued in `flock`.
    assert!(!store.transact(&mut |old| record(old)).is_persisted());
    // SAFETY: the child only waits for its signal.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0, "fork failed");
    if pid == 0 {
        loop {
            // SAFETY: waits for the parent's SIGKILL.
            unsafe { libc::pause() };
        }
    }
    // The child holds a duplicate of `outside` too: unlock, not just close.
    assert!(flock(&outside, libc::LOCK_UN));
    drop(outside);
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut persisted = false;
    while !persisted && Instant::now() < deadline {
        persisted = store.transact(&mut |old| record(old)).is_persisted();
        std::thread::sleep(Duration::from_millis(10));
    }
    let probe = lock_file();
    let free = flock(&probe, libc::LOCK_EX | libc::LOCK_NB);
    // SAFETY: our child; reaped after the kill.
    unsafe {
        libc::kill(pid, libc::SIGKILL);
        libc::waitpid(pid, std::ptr::null_mut(), 0);
    }
    assert!(persisted, "the store never got its lock back");
    assert!(free, "the lock stayed held through the child's descriptor");
    let _ = std::fs::remove_dir_all(&dir);
}
