//! `uuidkit.Snowflake`: 64-bit time-ordered IDs of a layout (Twitter, Discord, Instagram,
//! Sonyflake, TSID, or a custom split) as Python `int`s, with a fixed worker.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use uuidkit::clock::SystemClock;
use uuidkit::node::StaticNode;
use uuidkit::rng::ThreadRng;
use uuidkit::snowflake::{Layout, SnowflakeGenerator};
use uuidkit::sync::ForkSafeMutex;

use crate::args::{batch_len, int_in};
use crate::stdlib::gen_error;

type Inner = SnowflakeGenerator<SystemClock, ThreadRng, uuidkit::generator::NoReserve, StaticNode>;

/// A snowflake generator: `Snowflake("twitter", worker=37)()` is the next ID, an `int`.
///
/// `layout` is a preset name (`twitter`, `discord`, `instagram`, `sonyflake`, `tsid`) or a
/// custom split `tT.wW.sS.eEPOCH_MS.uUNIT`; `worker` must fit the layout's worker field, and
/// only its uniqueness among the generators of the ID space keeps their IDs apart. Calls are
/// serialised, so one generator's IDs increase across threads. A used-up millisecond waits for
/// the next; a clock more than 10 s behind the last ID is a `RuntimeError`, never a repeat. In a
/// child made by `fork()`, the generator refuses its parent's worker (`RuntimeError`): make a new
/// one there with a worker of its own.
#[pyclass(module = "uuidkit", frozen)]
pub struct Snowflake {
    inner: ForkSafeMutex<Inner>,
    layout: Layout,
    worker: u64,
}

#[pymethods]
impl Snowflake {
    #[new]
    #[pyo3(signature = (layout="twitter", *, worker))]
    fn new(layout: &str, worker: &Bound<'_, PyAny>) -> PyResult<Self> {
        let layout: Layout = layout
            .parse()
            .map_err(|e: uuidkit::GenError| PyValueError::new_err(format!("layout: {e}")))?;
        let max = i64::try_from(layout.max_worker()).unwrap_or(i64::MAX);
        let worker = int_in("worker", worker, 0, max)? as u64;
        let inner = SnowflakeGenerator::builder(layout)
            .worker(worker)
            .build(SystemClock, ThreadRng)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(Snowflake {
            inner: ForkSafeMutex::new(inner),
            layout,
            worker,
        })
    }

    /// The next ID.
    fn __call__(&self, py: Python<'_>) -> PyResult<u64> {
        py.detach(|| self.inner.lock().generate())
            .map_err(gen_error)
    }

    /// `n` increasing IDs, as a list.
    fn batch(&self, py: Python<'_>, n: &Bound<'_, PyAny>) -> PyResult<Vec<u64>> {
        let mut out = vec![0u64; batch_len(n)?];
        py.detach(|| self.inner.lock().fill(&mut out))
            .map_err(gen_error)?;
        Ok(out)
    }

    /// `(unix_ms, worker, sequence)` of an ID of this generator's layout.
    fn decompose(&self, id: u64) -> PyResult<(u64, u64, u64)> {
        let p = self
            .layout
            .decompose(id)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok((self.layout.unix_ms_of(p.tick), p.worker, p.sequence))
    }

    /// The layout, as a preset name or a descriptor.
    #[getter]
    fn layout(&self) -> String {
        self.layout.to_string()
    }

    fn __repr__(&self) -> String {
        format!(
            "uuidkit.Snowflake({:?}, worker={})",
            self.layout.to_string(),
            self.worker
        )
    }
}
