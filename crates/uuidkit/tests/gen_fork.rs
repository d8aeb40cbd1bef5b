//! After a real `fork()`, parent and child produce different v4 and v7 values
//! (RFC 9562 §6.9: reseed the CSPRNG on fork).

use uuidkit::Uuid;

const N: usize = 1000;

fn generate() -> [Uuid; 2 * N] {
    let mut out = [Uuid::NIL; 2 * N];
    for i in 0..N {
        out[i] = Uuid::new_v4();
        out[N + i] = Uuid::now_v7();
    }
    out
}

#[test]
fn parent_and_child_never_share_values() {
    // Seed this thread's generator and the v7 state before forking, so the child
    // inherits both.
    let warm = generate();
    assert!(!warm[0].is_nil());
    let mut fds = [0i32; 2];
    // SAFETY: plain pipe(2) on a valid two-element array.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
    // SAFETY: the child only generates UUIDs into a stack array, writes them to
    // the pipe and calls _exit; it does not allocate.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0, "fork failed");
    if pid == 0 {
        let out = generate();
        let bytes: &[u8] = unsafe {
            core::slice::from_raw_parts(out.as_ptr().cast::<u8>(), core::mem::size_of_val(&out))
        };
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
    let parent = generate();
    let mut buf = vec![0u8; 2 * N * 16];
    let mut off = 0;
    while off < buf.len() {
        let n = unsafe { libc::read(fds[0], buf[off..].as_mut_ptr().cast(), buf.len() - off) };
        assert!(n > 0, "child wrote {off} bytes");
        off += n as usize;
    }
    let mut status = 0;
    assert_eq!(unsafe { libc::waitpid(pid, &mut status, 0) }, pid);
    assert!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0);
    let child: Vec<Uuid> = buf
        .chunks_exact(16)
        .map(|c| Uuid::from_bytes(c.try_into().unwrap()))
        .collect();
    assert!(
        child[..N]
            .iter()
            .all(|u| u.version() == Some(uuidkit::Version::Random))
    );
    assert!(
        child[N..]
            .iter()
            .all(|u| u.version() == Some(uuidkit::Version::SortRand))
    );
    let mut all: Vec<Uuid> = parent.iter().chain(child.iter()).copied().collect();
    all.sort_unstable();
    all.dedup();
    assert_eq!(all.len(), 4 * N, "parent and child share no v4 or v7 value");
    // The 58-bit random tails of v7 differ, too, not only the whole values.
    let tails = |v: &[Uuid]| -> std::collections::HashSet<u64> {
        v.iter()
            .map(|u| (u.as_u128() as u64) & ((1 << 58) - 1))
            .collect()
    };
    assert!(tails(&parent[N..]).is_disjoint(&tails(&child[N..])));
}
