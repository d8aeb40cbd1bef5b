//! `--node-from` and `--site-node`: the run's node lease, and the writer that writes nothing once
//! it is lost (docs/uiap-design.md D51–D56; docs/distributed-generation.md).
//!
//! Every source (the UIAP site lease, etcd, PostgreSQL: the rows of `backend.rs`) is run the
//! same way, as a [`Lease`]: the lease is acquired before the first UUID and dropped (released) when the run ends, on every path out of
//! it; a run killed by a signal frees its node too, when the site lease's connection closes
//! (D54) or when an etcd or PostgreSQL lease's TTL runs out. The generators read the node from
//! the lease's slot before every UUID and stop with an error once it is lost — or once the
//! lease's deadline passed without a confirmed renewal. UUIDs made before the loss may still sit
//! in the output buffer: [`Guarded`] checks the slot right before every write and refuses to
//! write once the loss is signalled, and it never starts a write that could block on a full pipe
//! (it waits for room with the slot in view, and writes at most what the pipe takes at once). So
//! nothing reaches stdout after the loss was signalled, except a write that had already started
//! — at most one pipe buffer's worth of UUIDs made before the loss.
//!
//! [`Guarded`] waits on stdout with `poll`: elsewhere than on Unix a leased node fails with the
//! reason.

#[cfg(unix)]
use std::io::{self, Write};
#[cfg(unix)]
use std::os::fd::{AsRawFd, RawFd};
#[cfg(unix)]
use std::sync::Arc;
#[cfg(unix)]
use std::time::Duration;

#[cfg(unix)]
use uuidkit::node::NodeLost;
#[cfg(unix)]
use uuidkit::node::NodeSource;
#[cfg(unix)]
use uuidkit_lease::Lease;

use super::backend::check_built;
use crate::error::{Error, Outcome};
use crate::flags::{LeasePlan, NewPlan};
#[cfg(unix)]
use crate::output::Output;

/// Runs `new` with the node of a lease, held from before the first UUID to the end of the run,
/// whichever way it ends: then released.
#[cfg(unix)]
pub fn run(plan: &NewPlan, lease: &LeasePlan) -> Result<Outcome, Error> {
    check_built(lease)?;
    let held = acquire(lease)?;
    let source = super::Source::new(plan, Some(held.slot().clone()))?;
    let out = Output::new(Guarded::new(crate::error::stdout(), held.slot().clone()));
    super::generate(plan, source, out).map_err(|e| explain(e, held.name(), held.loss()))
}

/// A leased node where there is no `poll` to guard stdout with.
#[cfg(not(unix))]
pub fn run(_plan: &NewPlan, lease: &LeasePlan) -> Result<Outcome, Error> {
    check_built(lease)?;
    Err(Error::Failed(
        "--node-from/--site-node: a leased node needs a Unix system (the writer that stops at a \
         loss waits on stdout with poll, and the site lease reaches uiapd over a Unix socket)"
            .into(),
    ))
}

/// Acquires the lease `plan` names through its backend's registry (drawing its node with the
/// lease's randomness, which tests seed), saying what the claim waits for as it waits and the
/// lease's warnings once it is held. Dropping the lease returned releases it.
#[cfg(unix)]
pub(super) fn acquire(plan: &LeasePlan) -> Result<Box<dyn Lease>, Error> {
    let backend = super::backend::backend(plan);
    let registry = match (backend.registry)(plan) {
        Some(registry) => registry.map_err(|e| super::backend::refused(backend, &e))?,
        // A backend this binary lacks: `check_built` refuses it, with the feature to build.
        None => {
            check_built(plan)?;
            return Err(Error::Failed(format!("{}: not built in", backend.flag)));
        }
    };
    // What the claim waits for is said as it waits; the wait is bounded by the lease's answer
    // limit (docs/uiap-design.md D61).
    let mut waiting = |what: &str| {
        let _ = writeln!(io::stderr(), "uuidkit: {}: waiting: {what}", backend.flag);
    };
    let lease = registry
        .acquire(&mut super::rng::GenRng::for_lease(), &mut waiting)
        .map_err(|e| super::backend::refused(backend, &e))?;
    for warning in lease.warnings() {
        let _ = writeln!(
            io::stderr(),
            "uuidkit: warning: {}: {warning}",
            backend.flag
        );
    }
    Ok(lease)
}

/// Turns a lost node (a generator's error, or a write refused by [`Guarded`]) into the
/// lost-node error naming the `node` ("site node"…), with `whole`, the lease's text of the loss,
/// where there is one (the [`NodeLost`]'s detail may be cut short); other errors pass.
#[cfg(unix)]
pub(super) fn explain(e: Error, node: &str, whole: Option<String>) -> Error {
    let lost = match &e {
        Error::Io(io) => io.get_ref().and_then(|r| r.downcast_ref::<NodeLost>()),
        Error::Lost(lost) => Some(lost),
        _ => None,
    };
    match (lost, whole) {
        (Some(_), Some(whole)) => Error::Failed(crate::error::lost_message(node, &whole)),
        (Some(lost), None) => Error::Failed(crate::error::lost_message(node, lost)),
        (None, _) => e,
    }
}

/// The most bytes one write hands the kernel: what a pipe with room for a write takes at once
/// (`PIPE_BUF`), so a write that found room never blocks. Each write also ends at a line end,
/// so a refused write never leaves half a UUID behind.
#[cfg(unix)]
const MAX_WRITE: usize = 4096;

/// How often a wait for room in the pipe looks at the slot.
#[cfg(unix)]
const WAIT_TICK: Duration = Duration::from_millis(20);

/// A writer that checks the lease's slot before every write (see the module docs).
#[cfg(unix)]
pub struct Guarded<W> {
    inner: W,
    slot: Arc<dyn NodeSource>,
    /// The descriptor to wait on when it is a pipe, socket or terminal; `None` for a file.
    fd: Option<RawFd>,
}

#[cfg(unix)]
impl<W: Write + AsRawFd> Guarded<W> {
    /// Wraps `inner`, which writes to the descriptor it exposes.
    pub fn new(inner: W, slot: Arc<dyn NodeSource>) -> Guarded<W> {
        let fd = inner.as_raw_fd();
        // SAFETY: fstat fills a plain struct for a descriptor we were handed.
        let regular = unsafe {
            let mut st: libc::stat = std::mem::zeroed();
            libc::fstat(fd, &mut st) == 0 && (st.st_mode & libc::S_IFMT) == libc::S_IFREG
        };
        Guarded {
            inner,
            slot,
            fd: (!regular).then_some(fd),
        }
    }
}

#[cfg(unix)]
impl<W> Guarded<W> {
    fn check(&self) -> io::Result<()> {
        self.slot.current().map(drop).map_err(io::Error::other)
    }

    /// Waits until the descriptor has room for [`MAX_WRITE`] bytes, checking the slot meanwhile.
    fn wait_for_room(&self) -> io::Result<()> {
        let Some(fd) = self.fd else {
            return Ok(());
        };
        loop {
            self.check()?;
            let mut p = libc::pollfd {
                fd,
                events: libc::POLLOUT,
                revents: 0,
            };
            // SAFETY: one valid pollfd.
            let n = unsafe { libc::poll(&mut p, 1, WAIT_TICK.as_millis() as libc::c_int) };
            if n > 0 {
                return Ok(());
            }
            if n < 0 {
                let e = io::Error::last_os_error();
                if e.kind() != io::ErrorKind::Interrupted {
                    return Err(e);
                }
            }
        }
    }
}

#[cfg(unix)]
impl<W: Write> Write for Guarded<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.wait_for_room()?;
        self.check()?;
        let head = &buf[..buf.len().min(MAX_WRITE)];
        let end = match head.iter().rposition(|&b| b == b'\n') {
            Some(i) if head.len() < buf.len() => i + 1,
            _ => head.len(),
        };
        self.inner.write(&head[..end])
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::io::Read;
    use uuidkit::node::NodeLostKind;

    #[test]
    fn nothing_is_written_once_the_slot_is_lost() {
        let slot = Arc::new(uuidkit::node::NodeSlot::new(16).unwrap());
        slot.set(7).unwrap();
        let file = tempfile::tempfile().unwrap();
        let mut g = Guarded::new(file, slot.clone());
        assert!(g.fd.is_none(), "a regular file is never waited on");
        let mut lines = Vec::new();
        for i in 0..300 {
            lines.extend_from_slice(format!("line {i:030}\n").as_bytes());
        }
        g.write_all(&lines).unwrap();
        slot.lose(NodeLost::new(NodeLostKind::Conflict).with_detail("test"));
        let e = g.write_all(b"b").unwrap_err();
        let e = explain(Error::Io(e), "site node", None);
        assert!(matches!(e, Error::Failed(_)), "a loss is a failure: {e:?}");
        assert_eq!(e.exit_code(), 1);
        assert_eq!(
            e.to_string(),
            "site node lost: conflict (another device holds the node): test; stopped, nothing written after the loss"
        );
        // With the lease's whole text of the loss, that text is what is said.
        let whole =
            "conflict (another device holds the node): a reason longer than a NodeLost keeps";
        let e = explain(
            Error::Lost(NodeLost::new(NodeLostKind::Conflict)),
            "site node",
            Some(whole.into()),
        );
        assert_eq!(
            e.to_string(),
            format!("site node lost: {whole}; stopped, nothing written after the loss")
        );
        let mut file = g.inner;
        use std::io::Seek;
        file.rewind().unwrap();
        let mut back = Vec::new();
        file.read_to_end(&mut back).unwrap();
        assert_eq!(back, lines);
    }

    #[test]
    fn a_full_pipe_is_waited_on_with_the_slot_in_view() {
        let (reader, writer) = std::os::unix::net::UnixStream::pair().unwrap();
        let slot = Arc::new(uuidkit::node::NodeSlot::new(8).unwrap());
        slot.set(1).unwrap();
        let mut g = Guarded::new(writer, slot.clone());
        assert!(g.fd.is_some());
        // Fill the socket's buffer: nobody reads.
        let loser = {
            let slot = slot.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(300));
                slot.lose(NodeLost::new(NodeLostKind::SourceGone));
            })
        };
        let start = std::time::Instant::now();
        let line = [b'x', b'x', b'x', b'\n'];
        let e = g.write_all(&line.repeat(1 << 18)).unwrap_err();
        loser.join().unwrap();
        assert!(
            e.get_ref()
                .and_then(|r| r.downcast_ref::<NodeLost>())
                .is_some(),
            "{e}"
        );
        assert!(start.elapsed() < Duration::from_secs(5));
        // Whatever was written ends at a line end.
        drop(g);
        let mut got = Vec::new();
        let mut reader = reader;
        reader.read_to_end(&mut got).unwrap();
        assert!(!got.is_empty() && got.ends_with(b"\n") && got.len() % 4 == 0);
    }
}
