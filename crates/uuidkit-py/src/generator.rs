//! `uuidkit.V7Generator`: a v7 generator with the RFC 9562 §6.2 method chosen.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyList;
use uuidkit::{
    ForkSafeMutex, Generator, SystemClock, ThreadRng, Uuid, V7Generator as Inner, V7Method,
};

use crate::convert::{UuidType, list};
use crate::stdlib::gen_error;
use crate::time::when_to_unix_ms;

/// The §6.2 method from its Python name and widths (`None`: the library's
/// default width).
fn parse_method(
    name: &str,
    bits: Option<u8>,
    increment_bits: Option<u8>,
    frac_bits: Option<u8>,
) -> PyResult<V7Method> {
    let width = |w: Option<u8>, default: u8| w.unwrap_or(default);
    Ok(match name {
        "counter" => V7Method::Counter {
            bits: width(bits, 42),
        },
        "monotonic_random" => V7Method::MonotonicRandom {
            increment_bits: width(increment_bits, 32),
        },
        "submillis" => V7Method::SubMillis {
            bits: width(frac_bits, 12),
        },
        "submillis_counter" => V7Method::SubMillisCounter {
            frac_bits: width(frac_bits, 12),
            counter_bits: width(bits, 18),
        },
        _ => {
            return Err(PyValueError::new_err(format!(
                "unknown method: expected counter, monotonic_random, submillis or \
                 submillis_counter, found {name:?}"
            )));
        }
    })
}

/// A v7 generator with its own state and a chosen RFC 9562 §6.2 method:
///
/// - `"counter"` (Method 1): `bits` (12..=42, default 42) counter bits after
///   the timestamp, the rest random;
/// - `"monotonic_random"` (Method 2): the 74 bits grow by a random increment
///   of up to `increment_bits` (0..=32, default 32) bits;
/// - `"submillis"` (Method 3): `frac_bits` (1..=12, default 12) bits of
///   sub-millisecond time;
/// - `"submillis_counter"`: Method 3's `frac_bits` then a `bits`-wide counter
///   (default 12 and 18).
///
/// Calls are serialised, so the UUIDs of one generator increase in
/// happens-before order across threads. After `fork()` the child's random
/// bits are freshly seeded.
#[pyclass(module = "uuidkit", frozen)]
pub struct V7Generator {
    inner: ForkSafeMutex<Inner<SystemClock, ThreadRng>>,
    method: String,
}

impl V7Generator {
    fn with<T>(
        &self,
        f: impl FnOnce(&mut Inner<SystemClock, ThreadRng>) -> Result<T, uuidkit::GenError>,
    ) -> PyResult<T> {
        let mut g = self.inner.lock();
        f(&mut g).map_err(gen_error)
    }
}

#[pymethods]
impl V7Generator {
    #[new]
    #[pyo3(signature = (method="counter", *, bits=None, increment_bits=None, frac_bits=None))]
    fn new(
        method: &str,
        bits: Option<u8>,
        increment_bits: Option<u8>,
        frac_bits: Option<u8>,
    ) -> PyResult<Self> {
        let m = parse_method(method, bits, increment_bits, frac_bits)?;
        let inner = Inner::builder()
            .method(m)
            .build(SystemClock, ThreadRng)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(V7Generator {
            inner: ForkSafeMutex::new(inner),
            method: method.to_owned(),
        })
    }

    /// The next UUID, for the current time.
    fn __call__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let u = self.with(Generator::generate)?;
        UuidType::get(py)?.object(py, u)
    }

    /// The next UUID as if the clock read the given time (a `datetime` or
    /// `unix_ms=`); the generator's order is kept, so a time before the last
    /// one used gives a UUID after it.
    #[pyo3(signature = (when=None, *, unix_ms=None))]
    fn at<'py>(
        &self,
        py: Python<'py>,
        when: Option<&Bound<'py, PyAny>>,
        unix_ms: Option<i128>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let ms = when_to_unix_ms(when, unix_ms)?;
        let u = self.with(|g| g.at(ms * 1_000_000))?;
        UuidType::get(py)?.object(py, u)
    }

    /// `n` increasing UUIDs, as a list.
    fn batch<'py>(&self, py: Python<'py>, n: usize) -> PyResult<Bound<'py, PyList>> {
        let mut out = vec![Uuid::NIL; n];
        self.with(|g| g.fill(&mut out))?;
        list(py, &out)
    }

    fn __repr__(&self) -> String {
        format!("uuidkit.V7Generator({:?})", self.method)
    }
}
