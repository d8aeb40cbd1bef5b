//! A forked child must not continue its parent's block.
#![cfg(unix)]

use std::collections::HashSet;

use uuidkit::state::{BlockPolicy, FileStore, Reserver};
use uuidkit::{CoarseClock, Generator, ThreadRng, Uuid, V1Generator};

const N: usize = 2000;

#[test]
fn forked_child_reserves_its_own_block() {
    let dir = std::env::temp_dir().join(format!("uuidkit-state-fork-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let r = Reserver::new(FileStore::new(dir.join("state")), BlockPolicy::default());
    let mut g = V1Generator::new(CoarseClock::new(), ThreadRng).with_store(r.lease_v1());
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
