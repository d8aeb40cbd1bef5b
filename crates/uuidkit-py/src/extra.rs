//! What the standard module lacks: v7 at a given time and its bounds,
//! timestamps as `datetime`, v8 name-based UUIDs with modern hashes, and
//! batches for bulk loads.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};
use rand_core::Rng;
use uuidkit::rng::ThreadRng;
use uuidkit::{NameHash, Uuid, Variant};

use crate::args::{batch_len, detached_if_large, type_name, uuids};
use crate::convert::{buffer_bytes, from_py, list, name_bytes, to_py};
use crate::time::{unix_nanos_to_datetime, when_to_unix_ms};

/// A v7 UUID for a given time: `uuid7_at(datetime)` or `uuid7_at(unix_ms=…)`,
/// with 74 fresh random bits. For backfilling and tests; unlike `uuid7()` it
/// is not ordered with other calls within the millisecond.
#[pyfunction]
#[pyo3(signature = (when=None, *, unix_ms=None))]
pub fn uuid7_at<'py>(
    py: Python<'py>,
    when: Option<&Bound<'py, PyAny>>,
    unix_ms: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let ms = when_to_unix_ms(when, unix_ms)?;
    let mut rng = ThreadRng;
    let r = rng.next_u64();
    let u = Uuid::new_v7_from_parts(ms, (r >> 52) as u16, rng.next_u64());
    to_py(py, u)
}

/// The smallest v7 UUID of a millisecond (a `datetime` or `unix_ms=`): with
/// `v7_max` it bounds a time range in a query on a v7 key.
#[pyfunction]
#[pyo3(signature = (when=None, *, unix_ms=None))]
pub fn v7_min<'py>(
    py: Python<'py>,
    when: Option<&Bound<'py, PyAny>>,
    unix_ms: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    to_py(py, Uuid::v7_min(when_to_unix_ms(when, unix_ms)?))
}

/// The largest v7 UUID of a millisecond (a `datetime` or `unix_ms=`).
#[pyfunction]
#[pyo3(signature = (when=None, *, unix_ms=None))]
pub fn v7_max<'py>(
    py: Python<'py>,
    when: Option<&Bound<'py, PyAny>>,
    unix_ms: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    to_py(py, Uuid::v7_max(when_to_unix_ms(when, unix_ms)?))
}

/// What `u` is, for a message about the versions a function takes: its
/// version, or for a UUID not of the RFC 9562 variant (whose version nibble
/// means nothing) its variant.
fn kind_of(u: Uuid) -> String {
    let variant = match u.variant() {
        Variant::Rfc9562 => return format!("version {}", u.version_nibble()),
        Variant::Ncs => "the NCS",
        Variant::Microsoft => "the Microsoft",
        _ => "the reserved future",
    };
    format!(
        "{variant} variant (not RFC 9562's; version nibble {})",
        u.version_nibble()
    )
}

/// When a time-based UUID (v1, v6, v7) was made, as an aware UTC `datetime`
/// (microsecond resolution). Raises `ValueError` for other versions.
#[pyfunction]
pub fn timestamp<'py>(u: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let value = from_py(u)?;
    let nanos = value.unix_nanos().ok_or_else(|| {
        PyValueError::new_err(format!(
            "no timestamp: expected a v1, v6 or v7 UUID, found {}",
            kind_of(value)
        ))
    })?;
    unix_nanos_to_datetime(u.py(), nanos)
}

/// The Unix milliseconds of a v7 UUID (its 48-bit field, exact), or
/// `ValueError` for other versions.
#[pyfunction]
pub fn unix_ms(u: &Bound<'_, PyAny>) -> PyResult<u64> {
    let value = from_py(u)?;
    value.unix_ts_ms().ok_or_else(|| {
        PyValueError::new_err(format!(
            "no unix_ms: expected a v7 UUID, found {}",
            kind_of(value)
        ))
    })
}

/// The hash of `uuid8_name`, by name.
fn name_hash(name: &str) -> PyResult<NameHash> {
    Ok(match name {
        "sha256" => NameHash::Sha256,
        "sha512" => NameHash::Sha512,
        "sha3_256" => NameHash::Sha3_256,
        "sha3_512" => NameHash::Sha3_512,
        "shake_128" => NameHash::Shake128,
        "shake_256" => NameHash::Shake256,
        _ => {
            return Err(PyValueError::new_err(format!(
                "unknown hash: expected one of sha256, sha512, sha3_256, sha3_512, \
                 shake_128, shake_256, found {name:?}"
            )));
        }
    })
}

/// A name-based v8 UUID (RFC 9562 Appendix B.2) with a modern hash: the
/// leftmost 128 bits of `hash(namespace.bytes + name)`, version and variant
/// set. `hash` is named as in `hashlib`; the default is SHA-256.
#[pyfunction]
#[pyo3(signature = (namespace, name, hash="sha256"))]
pub fn uuid8_name<'py>(
    py: Python<'py>,
    namespace: &Bound<'py, PyAny>,
    name: &Bound<'py, PyAny>,
    hash: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let hash = name_hash(hash)?;
    let ns = from_py(namespace)?;
    to_py(py, Uuid::new_v8_name(hash, &ns, &name_bytes(name)?))
}

/// `n` v7 UUIDs from the process-wide generator, strictly increasing and
/// ordered with every other `uuid7()` call: one clock reading and one update
/// of the shared state for the whole batch, made with the interpreter
/// released when large.
fn v7_batch(py: Python<'_>, n: usize) -> PyResult<Vec<Uuid>> {
    let mut out = uuids(n)?;
    detached_if_large(py, n, || Uuid::fill_v7(&mut out));
    Ok(out)
}

/// `n` v7 UUIDs as a list of `uuid.UUID`, increasing, as `n` calls of
/// `uuid7()` would give but faster. `n` is an `int` in `0..=2**30`; a batch
/// that does not fit in memory is a `MemoryError`.
#[pyfunction]
pub fn uuid7_batch<'py>(py: Python<'py>, n: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
    list(py, &v7_batch(py, batch_len(n)?)?)
}

/// `n` v7 UUIDs as `16 * n` bytes (each UUID's 16 bytes, big-endian as
/// `UUID.bytes`), for bulk loads that want bytes (`COPY … BINARY`, Parquet).
/// Made straight into the `bytes` object, with the interpreter released
/// when large.
#[pyfunction]
pub fn uuid7_batch_bytes<'py>(
    py: Python<'py>,
    n: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyBytes>> {
    let n = batch_len(n)?;
    PyBytes::new_with(py, n * 16, |buf| {
        // SAFETY: `Uuid` is `repr(transparent)` over `[u8; 16]` (alignment
        // 1, every bit pattern valid), and `buf` holds exactly `n` of them.
        let out = unsafe { std::slice::from_raw_parts_mut(buf.as_mut_ptr().cast::<Uuid>(), n) };
        detached_if_large(py, n, || Uuid::fill_v7(out));
        Ok(())
    })
}

/// `n` random v4 UUIDs as a list of `uuid.UUID` (`n` as for `uuid7_batch`).
#[pyfunction]
pub fn uuid4_batch<'py>(py: Python<'py>, n: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
    let n = batch_len(n)?;
    let mut out = uuids(n)?;
    detached_if_large(py, n, || Uuid::fill_v4(&mut out));
    list(py, &out)
}

/// A `uuid.UUID` from its 16 bytes (big-endian, as `UUID.bytes`), for
/// instance a slice of `uuid7_batch_bytes`: `bytes`, `bytearray`, a
/// `memoryview` or any other object with the buffer protocol, whatever its
/// item format (its raw bytes in C order, as `memoryview(data).tobytes()`).
/// Raises `ValueError` unless exactly 16 bytes are given, `TypeError` for an
/// object with no buffer.
///
/// ```python
/// u = uuidkit.uuid7()
/// assert uuidkit.from_bytes(memoryview(u.bytes).cast("H")) == u
/// ```
#[pyfunction]
pub fn from_bytes<'py>(py: Python<'py>, data: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let Some(bytes) = buffer_bytes(data)? else {
        return Err(PyTypeError::new_err(format!(
            "data: expected a bytes-like object (bytes, bytearray, memoryview or another buffer), \
             found {}",
            type_name(data)
        )));
    };
    let bytes: [u8; 16] = bytes.as_bytes().try_into().map_err(|_| {
        PyValueError::new_err(format!(
            "wrong length: expected 16 bytes, found {}",
            bytes.as_bytes().len()
        ))
    })?;
    to_py(py, Uuid::from_bytes(bytes))
}
