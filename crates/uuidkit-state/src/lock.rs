//! Waiting for the state file's lock: in the kernel's queue, with a timeout
//! (`docs/generator-design.md` G2).
//!
//! `flock` waits in the kernel, which wakes a waiter as soon as the lock is
//! free, so waiters are served in turn rather than whoever polls at the right
//! moment (a poller sleeping between tries can lose to busy neighbours
//! indefinitely). `flock` has no timeout, so when the lock is busy a helper
//! thread blocks in it, holding the descriptor, while the caller waits on a
//! channel. If the time runs out first, the helper stays queued as this
//! store's *pending* request: the next transaction adopts it (and gets the
//! lock the moment the helper does) instead of queueing anew; a helper that
//! gets the lock while nobody waits releases it at once. So a store has at
//! most one helper, and one stuck lock costs one full wait: until a lock
//! succeeds, later transactions wait at most 10 ms.
//!
//! Forks (`docs/generator-design.md` G6): a lock is released by an explicit
//! unlock, never by closing alone, since a forked child may hold a duplicate
//! of the descriptor; and a child never waits on a helper queued by its
//! parent, which it does not have.

use core::time::Duration;
use std::fs::File;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex, MutexGuard};

use uuidkit::sync::ForkSafeMutex;
#[cfg(unix)]
use uuidkit::sync::fork_generation;
use uuidkit::sync::forked_since;

/// How long a transaction waits after one that timed out: long enough for a
/// pending helper to be woken when the lock frees, short enough that a stuck
/// lock does not slow every block down.
const CONTENDED_WAIT: Duration = Duration::from_millis(10);

/// Whether anyone waits for a helper's lock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Handoff {
    Waiting,
    Abandoned,
}

/// The descriptor that holds the exclusive lock. Dropping it unlocks, then
/// closes: closing alone releases the lock only with the last descriptor of
/// its open file, and a child forked while this one was open (a helper
/// queued in `flock`) holds a duplicate until it exits.
#[derive(Debug)]
#[cfg_attr(not(unix), allow(dead_code))]
pub(super) struct Held(File);

impl Drop for Held {
    fn drop(&mut self) {
        #[cfg(unix)]
        {
            use std::os::unix::io::AsRawFd;
            let _ = flock(self.0.as_raw_fd(), libc::LOCK_UN);
        }
    }
}

/// A helper thread queued for the lock.
#[derive(Debug)]
struct Pending {
    handoff: Arc<Mutex<Handoff>>,
    rx: Receiver<io::Result<Held>>,
    /// The fork generation the helper was started in: a forked child has no
    /// such thread.
    generation: u64,
}

/// How a wait on a [`Pending`] request ended.
enum Wait {
    Locked(Held),
    Failed(io::Error),
    TimedOut(Pending),
    /// The helper got the lock while nobody waited and released it.
    Gone,
}

fn guard(m: &Mutex<Handoff>) -> MutexGuard<'_, Handoff> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Pending {
    /// Queues a helper thread for an exclusive lock on `file`.
    #[cfg(unix)]
    fn spawn(file: File) -> io::Result<Pending> {
        use std::os::unix::io::AsRawFd;
        let handoff = Arc::new(Mutex::new(Handoff::Waiting));
        let (tx, rx) = mpsc::channel();
        let shared = Arc::clone(&handoff);
        std::thread::Builder::new()
            .name("uuidkit-state-lock".into())
            .spawn(move || {
                let res = flock(file.as_raw_fd(), libc::LOCK_EX).map(|()| Held(file));
                let h = guard(&shared);
                if res.is_ok() && *h == Handoff::Abandoned {
                    // Nobody waits: let the next process in at once.
                    drop(res);
                    return;
                }
                // A closed channel drops the lock, which releases it.
                let _ = tx.send(res);
                drop(h);
            })?;
        Ok(Pending {
            handoff,
            rx,
            generation: fork_generation(),
        })
    }

    /// Waits at most `timeout` for the helper's lock.
    fn wait(self, timeout: Duration) -> Wait {
        *guard(&self.handoff) = Handoff::Waiting;
        match self.rx.recv_timeout(timeout) {
            Ok(Ok(f)) => Wait::Locked(f),
            Ok(Err(e)) => Wait::Failed(e),
            Err(RecvTimeoutError::Disconnected) => Wait::Gone,
            Err(RecvTimeoutError::Timeout) => {
                // The helper sends under the handoff lock: either its answer
                // is in the channel now, or it will see `Abandoned`.
                let mut h = guard(&self.handoff);
                match self.rx.try_recv() {
                    Ok(Ok(f)) => Wait::Locked(f),
                    Ok(Err(e)) => Wait::Failed(e),
                    Err(mpsc::TryRecvError::Disconnected) => Wait::Gone,
                    Err(mpsc::TryRecvError::Empty) => {
                        *h = Handoff::Abandoned;
                        drop(h);
                        Wait::TimedOut(self)
                    }
                }
            }
        }
    }
}

/// The lock-taking of one [`FileStore`](super::FileStore).
#[derive(Debug, Default)]
pub(super) struct Locker {
    pending: ForkSafeMutex<Option<Pending>>,
    /// The last attempt timed out: the next one does not wait.
    contended: AtomicBool,
}

impl Locker {
    /// Takes the exclusive lock, through `file` (a fresh descriptor of the
    /// lock file) or through this store's pending helper, waiting at most
    /// `timeout` (at most 10 ms after an attempt that timed out, until one
    /// succeeds). Returns the descriptor that holds the lock; dropping it
    /// releases the lock.
    ///
    /// # Errors
    /// [`io::ErrorKind::TimedOut`] when the lock stays busy; what `flock`
    /// reports otherwise.
    pub(super) fn lock(&self, file: File, timeout: Duration) -> io::Result<Held> {
        let wait = if self.contended.load(Ordering::Relaxed) {
            timeout.min(CONTENDED_WAIT)
        } else {
            timeout
        };
        let mut pending = self.pending.lock();
        if pending.as_ref().is_some_and(|p| forked_since(p.generation)) {
            // Queued by the parent's helper thread, which this forked child
            // does not have: no answer will come, and its handoff lock may
            // be held for ever. Left alone, never touched.
            core::mem::forget(pending.take());
        }
        let res = match pending.take().map(|p| p.wait(wait)) {
            Some(Wait::Locked(f)) => Ok(f),
            Some(Wait::Failed(e)) => Err(e),
            Some(Wait::TimedOut(p)) => {
                *pending = Some(p);
                Err(timed_out(timeout))
            }
            Some(Wait::Gone) | None => self.fresh(file, wait, &mut pending, timeout),
        };
        self.contended.store(res.is_err(), Ordering::Relaxed);
        res
    }

    /// A first try without waiting; then a helper queued in the kernel.
    #[cfg(unix)]
    fn fresh(
        &self,
        file: File,
        wait: Duration,
        pending: &mut Option<Pending>,
        timeout: Duration,
    ) -> io::Result<Held> {
        use std::os::unix::io::AsRawFd;
        match flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) {
            Ok(()) => return Ok(Held(file)),
            Err(e) if e.raw_os_error() == Some(libc::EWOULDBLOCK) => {}
            Err(e) => return Err(e),
        }
        match Pending::spawn(file)?.wait(wait) {
            Wait::Locked(f) => Ok(f),
            Wait::Failed(e) => Err(e),
            Wait::TimedOut(p) => {
                *pending = Some(p);
                Err(timed_out(timeout))
            }
            Wait::Gone => Err(timed_out(timeout)),
        }
    }

    #[cfg(not(unix))]
    fn fresh(
        &self,
        _file: File,
        _wait: Duration,
        _pending: &mut Option<Pending>,
        _timeout: Duration,
    ) -> io::Result<Held> {
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "file locking needs a Unix system",
        ))
    }
}

#[cold]
fn timed_out(timeout: Duration) -> io::Error {
    io::Error::new(
        io::ErrorKind::TimedOut,
        std::format!(
            "held by another process for longer than the {} ms lock timeout",
            timeout.as_millis()
        ),
    )
}

/// `flock(fd, op)`, retried when a signal interrupts it.
#[cfg(unix)]
fn flock(fd: std::os::unix::io::RawFd, op: libc::c_int) -> io::Result<()> {
    loop {
        // SAFETY: flock on a descriptor the caller keeps open; no memory is passed.
        if unsafe { libc::flock(fd, op) } == 0 {
            return Ok(());
        }
        let err = io::Error::last_os_error();
        if err.raw_os_error() != Some(libc::EINTR) {
            return Err(err);
        }
    }
}
