//! `uuidkit.State`: the RFC 9562 §6.3 state file, so that processes sharing
//! it make v1, v6 and v7 UUIDs that are unique and increasing together.

use std::path::PathBuf;
use std::time::Duration;

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use uuidkit::clock::SystemClock;
use uuidkit::rng::ThreadRng;
use uuidkit::sync::{ForkSafeGuard, ForkSafeMutex};
use uuidkit::{Generator, Uuid, V1Generator, V6Generator, V7Generator};
use uuidkit_state::{
    BlockPolicy, FileStore, GregorianLease, MAX_LOCK_TIMEOUT, Reserver, Status, V7Lease,
};

use crate::args::int_in;
use crate::convert::UuidType;
use crate::stdlib::gen_error;

/// The three generators bound to one state file, each holding a lease.
struct Bound3 {
    v1: V1Generator<SystemClock, ThreadRng, GregorianLease>,
    v6: V6Generator<SystemClock, ThreadRng, GregorianLease>,
    v7: V7Generator<SystemClock, ThreadRng, V7Lease>,
    /// The status of the latest reservation by any of the three.
    last: Option<Status>,
}

/// Generators whose state lives in a file shared by every process that opens
/// it (RFC 9562 §6.3). Each reserves a short block of timestamps under a file
/// lock and then works from memory, so processes never share a timestamp, and
/// each one's UUIDs increase; a restart (even after `kill -9`) continues above
/// what the file records.
///
/// `State(path, *, block_ms=100, lock_timeout_ms=2000, strict=False)`:
/// `block_ms` (1..=10000) is how far past its start a reserved block
/// reaches; `lock_timeout_ms` (0..=60000) how long a reservation waits for
/// another process's lock (with the GIL released) before it falls back to
/// state in this process, with a fresh random clock sequence and node; with
/// `strict=True` that is a `RuntimeError` instead. A damaged state file is
/// repaired (the status says so), but with `strict=True` it is kept byte for
/// byte and reserving raises `RuntimeError`; a file that is not a state file
/// is never replaced. Call `close()` (or use
/// `with State(…) as s:`) to give back the unused end of the current blocks;
/// it is also done when the object is collected. A forked child reserves its
/// own blocks.
#[pyclass(module = "uuidkit", frozen)]
pub struct State {
    path: PathBuf,
    /// Held with the interpreter lock released (see `generate`), so a fork
    /// by another thread may come meanwhile: a fork-safe lock, which the
    /// child finds free.
    inner: ForkSafeMutex<Option<Bound3>>,
}

impl State {
    fn lock(&self) -> ForkSafeGuard<'_, Option<Bound3>> {
        self.inner.lock()
    }

    /// Runs `f` on the generators with the GIL released: waiting for the
    /// file lock (up to the lock timeout) and the file's I/O must not stop
    /// the interpreter's other threads, nor Ctrl-C.
    fn generate<'py>(
        &self,
        py: Python<'py>,
        f: impl FnOnce(&mut Bound3) -> (Result<Uuid, uuidkit::GenError>, Option<Status>) + Send,
    ) -> PyResult<pyo3::Bound<'py, PyAny>> {
        let u = py.detach(|| {
            let mut guard = self.lock();
            let b = guard.as_mut().ok_or(Closed)?;
            let (u, status) = f(b);
            if status.is_some() {
                b.last = status;
            }
            u.map_err(Failed)
        });
        let u = match u {
            Ok(u) => u,
            Err(Closed) => {
                return Err(PyRuntimeError::new_err(
                    "state closed: expected an open State",
                ));
            }
            Err(Failed(e)) => return Err(gen_error(e)),
        };
        UuidType::get(py)?.object(py, u)
    }
}

/// Why a `State` call returned no UUID, carried out of the GIL-free section.
enum Unissued {
    Closed,
    Failed(uuidkit::GenError),
}
use Unissued::{Closed, Failed};

#[pymethods]
impl State {
    #[new]
    #[pyo3(
        signature = (path, *, block_ms=None, lock_timeout_ms=None, strict=false),
        text_signature = "(path, *, block_ms=100, lock_timeout_ms=2000, strict=False)"
    )]
    fn new(
        path: PathBuf,
        block_ms: Option<&Bound<'_, PyAny>>,
        lock_timeout_ms: Option<&Bound<'_, PyAny>>,
        strict: bool,
    ) -> PyResult<Self> {
        if let Some(at) = path.to_string_lossy().chars().position(|c| c == '\0') {
            return Err(PyValueError::new_err(format!(
                "path: expected no NUL character, found one at position {at}"
            )));
        }
        let max_block = BlockPolicy::MAX_BLOCK.as_millis() as u64;
        // Any int: one out of range (of any size) is a ValueError giving the
        // range, a non-int a TypeError naming the argument.
        let block_ms =
            block_ms.map_or(Ok(100), |b| int_in("block_ms", b, 1, max_block as i64))? as u64;
        let max_wait = MAX_LOCK_TIMEOUT.as_millis() as u64;
        let lock_timeout_ms = lock_timeout_ms.map_or(Ok(2000), |t| {
            int_in("lock_timeout_ms", t, 0, max_wait as i64)
        })? as u64;
        let policy = BlockPolicy {
            block: Duration::from_millis(block_ms),
            ..BlockPolicy::default()
        };
        let store =
            FileStore::new(path.clone()).with_lock_timeout(Duration::from_millis(lock_timeout_ms));
        let reserver = Reserver::new(store, policy).strict(strict);
        let bound = Bound3 {
            v1: V1Generator::builder()
                .store(reserver.lease_v1())
                .build(SystemClock, ThreadRng)
                .map_err(gen_error)?,
            v6: V6Generator::builder()
                .store(reserver.lease_v6())
                .build(SystemClock, ThreadRng)
                .map_err(gen_error)?,
            v7: V7Generator::builder()
                .store(reserver.lease_v7())
                .build(SystemClock, ThreadRng)
                .map_err(gen_error)?,
            last: None,
        };
        Ok(State {
            path,
            inner: ForkSafeMutex::new(Some(bound)),
        })
    }

    /// The next v1 UUID under the file's state (its node and clock sequence
    /// are the file's).
    fn uuid1<'py>(&self, py: Python<'py>) -> PyResult<pyo3::Bound<'py, PyAny>> {
        self.generate(py, |b| {
            let u = b.v1.generate();
            (u, b.v1.store().status().cloned())
        })
    }

    /// The next v6 UUID under the file's state.
    fn uuid6<'py>(&self, py: Python<'py>) -> PyResult<pyo3::Bound<'py, PyAny>> {
        self.generate(py, |b| {
            let u = b.v6.generate();
            (u, b.v6.store().status().cloned())
        })
    }

    /// The next v7 UUID under the file's state.
    fn uuid7<'py>(&self, py: Python<'py>) -> PyResult<pyo3::Bound<'py, PyAny>> {
        self.generate(py, |b| {
            let u = b.v7.generate();
            (u, b.v7.store().status().cloned())
        })
    }

    /// The state file's path.
    #[getter]
    fn path(&self) -> PathBuf {
        self.path.clone()
    }

    /// How the latest reservation went: `"safe"` when the file was read and
    /// written back, else `"unsafe: "` and why (a missing or damaged file is
    /// rewritten; an unwritable one leaves the state in this process).
    /// `None` before the first UUID.
    #[getter]
    fn status(&self, py: Python<'_>) -> Option<String> {
        // Detached: another thread may hold the generators while it waits
        // for the file lock.
        py.detach(|| {
            self.lock()
                .as_ref()
                .and_then(|b| b.last.as_ref())
                .map(ToString::to_string)
        })
    }

    /// Gives back the unused end of the current blocks; the object cannot
    /// generate afterwards. Idempotent.
    fn close(&self, py: Python<'_>) {
        // Giving back waits for the file lock: detached, as `generate`.
        py.detach(|| drop(self.lock().take()));
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_args))]
    fn __exit__(&self, py: Python<'_>, _args: &pyo3::Bound<'_, pyo3::types::PyTuple>) -> bool {
        self.close(py);
        false
    }

    fn __repr__(&self) -> String {
        format!("uuidkit.State({:?})", self.path.display().to_string())
    }
}
