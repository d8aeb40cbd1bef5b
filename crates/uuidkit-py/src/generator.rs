//! `uuidkit.V7Generator`: a v7 generator with the RFC 9562 §6.2 method chosen.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyList;
use uuidkit::clock::SystemClock;
use uuidkit::generator::V7Method;
use uuidkit::rng::ThreadRng;
use uuidkit::sync::ForkSafeMutex;
use uuidkit::{Generator, V7Generator as Inner};

use crate::args::{batch_len, int_in, uuids};
use crate::convert::{UuidType, list};
use crate::stdlib::gen_error;
use crate::time::when_to_unix_ms;

/// The §6.2 method from its Python name and widths (`None`: the library's
/// default width). A width the method does not use is an error, not
/// ignored.
fn parse_method(
    name: &str,
    bits: Option<&Bound<'_, PyAny>>,
    increment_bits: Option<&Bound<'_, PyAny>>,
    frac_bits: Option<&Bound<'_, PyAny>>,
) -> PyResult<V7Method> {
    let uses: &[&str] = match name {
        "counter" => &["bits"],
        "monotonic_random" => &["increment_bits"],
        "submillis" => &["frac_bits"],
        "submillis_counter" => &["frac_bits", "bits"],
        _ => {
            return Err(PyValueError::new_err(format!(
                "unknown method: expected counter, monotonic_random, submillis or \
                 submillis_counter, found {name:?}"
            )));
        }
    };
    for (given, arg) in [
        ("bits", bits),
        ("increment_bits", increment_bits),
        ("frac_bits", frac_bits),
    ] {
        if let (Some(v), false) = (arg, uses.contains(&given)) {
            return Err(PyTypeError::new_err(format!(
                "{given} does not apply to the {name} method: expected {}, found {given}={}",
                uses.join(" and "),
                v.repr().map_or_else(|_| "?".into(), |r| r.to_string())
            )));
        }
    }
    let width = |arg: &str, v: Option<&Bound<'_, PyAny>>, lo: i64, hi: i64, default: u8| {
        v.map_or(Ok(default), |v| int_in(arg, v, lo, hi).map(|w| w as u8))
    };
    Ok(match name {
        "counter" => V7Method::Counter {
            bits: width("bits", bits, 12, 42, 42)?,
        },
        "monotonic_random" => V7Method::MonotonicRandom {
            increment_bits: width("increment_bits", increment_bits, 0, 32, 32)?,
        },
        "submillis" => V7Method::SubMillis {
            bits: width("frac_bits", frac_bits, 1, 12, 12)?,
        },
        _ => V7Method::SubMillisCounter {
            frac_bits: width("frac_bits", frac_bits, 1, 12, 12)?,
            counter_bits: width("bits", bits, 1, 41, 18)?,
        },
    })
}

/// The nanoseconds of `ms` for the generator's 64-bit clock, else a
/// `ValueError` naming the argument `arg` (a time after 2554-07-21).
fn unix_ms_to_ns(arg: &str, ms: u64) -> PyResult<u64> {
    const MAX_MS: u64 = u64::MAX / 1_000_000;
    ms.checked_mul(1_000_000).ok_or_else(|| {
        PyValueError::new_err(format!(
            "{arg} out of range for V7Generator.at: expected unix_ms 0..={MAX_MS} (up to \
             2554-07-21, the generator's 64-bit nanosecond clock), found {ms}"
        ))
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
/// bits are freshly seeded, and the child finds the generator free even if
/// another thread was using it (a batch made with the interpreter released)
/// when the fork came.
#[pyclass(module = "uuidkit", frozen)]
pub struct V7Generator {
    inner: ForkSafeMutex<Inner<SystemClock, ThreadRng>>,
    method: String,
}

impl V7Generator {
    /// `f` on the generator. Uncontended, the interpreter stays attached;
    /// when another thread holds the generator (a large batch, made
    /// detached), the interpreter is released while this one waits, and `f`
    /// runs detached too.
    fn with<T: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&mut Inner<SystemClock, ThreadRng>) -> Result<T, uuidkit::GenError> + Send,
    ) -> PyResult<T> {
        let result = match self.inner.try_lock() {
            Some(mut g) => f(&mut g),
            None => py.detach(|| f(&mut self.inner.lock())),
        };
        result.map_err(gen_error)
    }
}

#[pymethods]
impl V7Generator {
    #[new]
    #[pyo3(signature = (method="counter", *, bits=None, increment_bits=None, frac_bits=None))]
    fn new(
        method: &str,
        bits: Option<&Bound<'_, PyAny>>,
        increment_bits: Option<&Bound<'_, PyAny>>,
        frac_bits: Option<&Bound<'_, PyAny>>,
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
        let u = self.with(py, Generator::generate)?;
        UuidType::get(py)?.object(py, u)
    }

    /// The next UUID as if the clock read the given time (a `datetime` or
    /// `unix_ms=`, up to the year 2554: the generator counts time in 64-bit
    /// nanoseconds, so a later time is a `ValueError`). The generator's order
    /// is kept within 10 s: a time up to 10 s before the last one used gives
    /// a UUID after it; one further back is a `RuntimeError` (the clock is
    /// behind), and the generator's state is kept for the next call.
    #[pyo3(signature = (when=None, *, unix_ms=None))]
    fn at<'py>(
        &self,
        py: Python<'py>,
        when: Option<&Bound<'py, PyAny>>,
        unix_ms: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let arg = if when.is_some() { "when" } else { "unix_ms" };
        let ms = when_to_unix_ms(when, unix_ms)?;
        let ns = unix_ms_to_ns(arg, ms)?;
        let u = self.with(py, |g| g.at(ns))?;
        UuidType::get(py)?.object(py, u)
    }

    /// `n` increasing UUIDs, as a list (`n` as for `uuid7_batch`). A large
    /// batch is made with the interpreter released.
    fn batch<'py>(&self, py: Python<'py>, n: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
        let n = batch_len(n)?;
        let mut out = uuids(n)?;
        if n >= crate::args::DETACH_FROM {
            py.detach(|| self.inner.lock().fill(&mut out))
                .map_err(gen_error)?;
        } else {
            self.with(py, |g| g.fill(&mut out))?;
        }
        list(py, &out)
    }

    fn __repr__(&self) -> String {
        format!("uuidkit.V7Generator({:?})", self.method)
    }
}
