//! Forked children of a test process that send bytes back through a pipe: the harness of the
//! tests that check what a generator does across `fork()`.
//!
//! A child of a process with other threads (the test harness has some) may only do what is
//! async-signal-safe until it exits: no allocation, no lock another thread may hold. The child
//! side here ([`write_all`], [`Forked::spawn`]'s exit) allocates nothing; what `body` does is the
//! caller's to keep within that rule, or to run with no other thread ([`collect`]).
//!
//! ```
//! // SAFETY: the child writes a buffer made before the fork and exits; it allocates nothing.
//! let child = unsafe {
//!     test_support::fork::Forked::spawn(|out| {
//!         if test_support::fork::write_all(out, b"hello") { 0 } else { 2 }
//!     })
//! };
//! let (bytes, code) = child.finish();
//! assert_eq!((&bytes[..], code), (&b"hello"[..], Some(0)));
//! ```

use std::time::{Duration, Instant};

use libc::c_int;

/// A new pipe: `[read end, write end]`.
///
/// # Panics
/// When pipe(2) fails.
#[must_use]
pub fn pipe() -> [c_int; 2] {
    let mut fds = [0 as c_int; 2];
    // SAFETY: pipe(2) on a valid two-element array.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0, "pipe");
    fds
}

/// Writes all of `bytes` to `fd`; false if a write fails. Allocates nothing, so a forked child
/// may call it.
#[must_use]
pub fn write_all(fd: c_int, bytes: &[u8]) -> bool {
    let mut off = 0;
    while off < bytes.len() {
        // SAFETY: writing initialised bytes to a descriptor the caller owns.
        let n = unsafe { libc::write(fd, bytes[off..].as_ptr().cast(), bytes.len() - off) };
        if n <= 0 {
            return false;
        }
        off += n.unsigned_abs();
    }
    true
}

/// Reads `fd` to its end (or to a read error).
#[must_use]
pub fn read_to_end(fd: c_int) -> Vec<u8> {
    let mut bytes = Vec::new();
    let mut buf = [0u8; 65_536];
    loop {
        // SAFETY: reading into our buffer from a descriptor the caller owns.
        let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
        if n <= 0 {
            return bytes;
        }
        bytes.extend_from_slice(&buf[..n.unsigned_abs()]);
    }
}

/// Ends this process at once with `code`, without running the parent's exit handlers or
/// flushing its buffers twice: how a forked child leaves.
pub fn exit(code: c_int) -> ! {
    // SAFETY: _exit(2) is async-signal-safe and ends the process.
    unsafe { libc::_exit(code) }
}

/// A forked child and the read end of the pipe it writes to. Killed and reaped when dropped
/// unfinished.
#[derive(Debug)]
pub struct Forked {
    pid: libc::pid_t,
    out: c_int,
}

impl Forked {
    /// Forks; the child runs `body` with the write end of its pipe and exits with the code
    /// `body` returns (through [`exit`]), the parent gets the child.
    ///
    /// # Safety
    /// If other threads are running, `body` must only do what is async-signal-safe: it must not
    /// allocate (fill buffers made before the fork) nor take a lock. With no other thread
    /// running, anything goes.
    ///
    /// # Panics
    /// When the pipe or the fork fails.
    pub unsafe fn spawn(body: impl FnOnce(c_int) -> c_int) -> Forked {
        let [read, write] = pipe();
        // SAFETY: the caller keeps the child to what its state allows (see above).
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0, "fork failed");
        if pid == 0 {
            // SAFETY: the child's copy of the read end, unused by it.
            unsafe { libc::close(read) };
            exit(body(write));
        }
        // SAFETY: the parent's copy of the write end: the read end sees the end of the pipe
        // once the child exits.
        unsafe { libc::close(write) };
        Forked { pid, out: read }
    }

    /// The child's process id.
    #[must_use]
    pub fn pid(&self) -> libc::pid_t {
        self.pid
    }

    /// Reads exactly `buf.len()` bytes; the number read if the pipe ended first.
    ///
    /// # Errors
    /// The bytes read before the pipe ended, when fewer than `buf.len()`.
    pub fn read_exact(&mut self, buf: &mut [u8]) -> Result<(), usize> {
        let mut off = 0;
        while off < buf.len() {
            // SAFETY: reading into the caller's buffer from our pipe.
            let n =
                unsafe { libc::read(self.out, buf[off..].as_mut_ptr().cast(), buf.len() - off) };
            if n <= 0 {
                return Err(off);
            }
            off += n.unsigned_abs();
        }
        Ok(())
    }

    /// Reads what the child writes to its end, then waits for its exit: (the bytes, its exit
    /// code, `None` if a signal ended it).
    ///
    /// # Panics
    /// When waitpid(2) fails.
    #[must_use]
    pub fn finish(mut self) -> (Vec<u8>, Option<c_int>) {
        let bytes = read_to_end(self.out);
        (bytes, self.wait())
    }

    /// Waits for the exit (after closing the pipe, so a child still writing gets an error
    /// rather than blocking): its exit code, `None` if a signal ended it.
    ///
    /// # Panics
    /// When waitpid(2) fails.
    #[must_use]
    pub fn wait(&mut self) -> Option<c_int> {
        self.close();
        let mut status = 0;
        // SAFETY: our child, not yet reaped.
        let got = unsafe { libc::waitpid(self.pid, &mut status, 0) };
        assert_eq!(got, self.pid, "waitpid");
        self.pid = 0;
        libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status))
    }
}

impl Forked {
    /// [`wait`](Forked::wait), for at most `limit`: a child still running then is killed and
    /// reaped, and gives `None`, as one a signal ended does.
    ///
    /// # Panics
    /// When waitpid(2) fails.
    ///
    /// ```
    /// use std::time::Duration;
    /// // SAFETY: the child allocates nothing: it sleeps and exits.
    /// let mut child = unsafe {
    ///     test_support::fork::Forked::spawn(|_| {
    ///         // SAFETY: sleep(3) is async-signal-safe.
    ///         unsafe { libc::sleep(5) };
    ///         0
    ///     })
    /// };
    /// assert_eq!(child.wait_within(Duration::from_millis(50)), None);
    /// ```
    #[must_use]
    pub fn wait_within(&mut self, limit: Duration) -> Option<c_int> {
        self.close();
        let start = Instant::now();
        let mut status = 0;
        loop {
            // SAFETY: our child, not yet reaped.
            let got = unsafe { libc::waitpid(self.pid, &mut status, libc::WNOHANG) };
            if got == self.pid {
                self.pid = 0;
                return libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
            }
            assert_eq!(got, 0, "waitpid");
            if start.elapsed() > limit {
                self.kill();
                return None;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Kills and reaps the child, unless it was reaped already.
    fn kill(&mut self) {
        if self.pid > 0 {
            // SAFETY: our child, not yet reaped.
            unsafe {
                libc::kill(self.pid, libc::SIGKILL);
                libc::waitpid(self.pid, std::ptr::null_mut(), 0);
            }
            self.pid = 0;
        }
    }

    fn close(&mut self) {
        if self.out >= 0 {
            // SAFETY: our pipe's read end, closed once.
            unsafe { libc::close(self.out) };
            self.out = -1;
        }
    }
}

impl Drop for Forked {
    fn drop(&mut self) {
        self.close();
        self.kill();
    }
}

/// Forks `children` processes; child `i` sends back the bytes `make(i)` returns, then this
/// process runs `make(children)`. Returns each process's bytes, this one's last. Call it with no
/// other thread running: the children allocate.
///
/// # Panics
/// When a pipe or a fork fails, or a child fails.
///
/// ```
/// let all = test_support::fork::collect(2, |i| vec![i as u8; 3]);
/// assert_eq!(all, [vec![0; 3], vec![1; 3], vec![2; 3]]);
/// ```
pub fn collect(children: usize, mut make: impl FnMut(usize) -> Vec<u8>) -> Vec<Vec<u8>> {
    let forked: Vec<Forked> = (0..children)
        .map(|i| {
            // SAFETY: the caller runs no other thread, so the child may allocate.
            unsafe { Forked::spawn(|out| if write_all(out, &make(i)) { 0 } else { 2 }) }
        })
        .collect();
    let mut all: Vec<Vec<u8>> = forked
        .into_iter()
        .map(|child| {
            let pid = child.pid();
            let (bytes, code) = child.finish();
            assert_eq!(code, Some(0), "child {pid} failed");
            bytes
        })
        .collect();
    all.push(make(children));
    all
}
