//! Arguments checked one way everywhere: a wrong type is a `TypeError`, a
//! value out of range a `ValueError`, each saying "expected X, found Y"; and
//! buffers for many UUIDs, which fail as `MemoryError` instead of aborting.

use pyo3::exceptions::{PyMemoryError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyInt;
use uuidkit::Uuid;

/// The name of `obj`'s type, for messages.
pub fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map_or_else(|_| "?".into(), |n| n.to_string())
}

/// The `int` argument `name` (any `int`, `bool` included, as the standard
/// module takes them), if it lies in `lo..=hi`.
pub fn int_in(name: &str, obj: &Bound<'_, PyAny>, lo: i64, hi: i64) -> PyResult<i64> {
    if !obj.is_instance_of::<PyInt>() {
        return Err(PyTypeError::new_err(format!(
            "{name}: expected an int, found {}",
            type_name(obj)
        )));
    }
    match obj.extract::<i64>() {
        Ok(v) if (lo..=hi).contains(&v) => Ok(v),
        _ => Err(PyValueError::new_err(format!(
            "{name} out of range: expected {lo}..={hi}, found {}",
            obj.str().map_or_else(|_| "?".into(), |s| s.to_string())
        ))),
    }
}

/// The most UUIDs one batch call makes (16 GiB as bytes): a guard against a
/// mistyped count, not a limit anyone should reach.
pub const MAX_BATCH: usize = 1 << 30;

/// A batch size: an `int` in `0..=MAX_BATCH`.
pub fn batch_len(n: &Bound<'_, PyAny>) -> PyResult<usize> {
    int_in("batch size", n, 0, MAX_BATCH as i64).map(|n| n as usize)
}

/// `n` Nil UUIDs to fill in, or `MemoryError` if the memory cannot be had.
pub fn uuids(n: usize) -> PyResult<Vec<Uuid>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| {
        PyMemoryError::new_err(format!(
            "cannot allocate {} bytes for a batch of {n} UUIDs",
            n.saturating_mul(16)
        ))
    })?;
    v.resize(n, Uuid::NIL);
    Ok(v)
}

/// From this many UUIDs on, a batch is made with the interpreter released
/// (other threads run meanwhile); below it, releasing costs more than it
/// gives.
pub const DETACH_FROM: usize = 4096;

/// `f()`, with the interpreter released while it runs if `n` is at least
/// [`DETACH_FROM`].
pub fn detached_if_large<T: Send>(py: Python<'_>, n: usize, f: impl FnOnce() -> T + Send) -> T {
    if n >= DETACH_FROM { py.detach(f) } else { f() }
}
