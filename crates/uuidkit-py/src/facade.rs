//! The keyed v7 ↔ v4 façade (`uuidkit::facade`, docs/facade-design.md): one
//! key format (16 bytes, or 32 hex digits), two modes.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};
use uuidkit::facade::{Facade, FacadeKey, FacadeMode};

use crate::convert::{from_py, to_py};

/// The façade for a `key` (16 `bytes`, or a `str` of 32 hex digits) and a
/// `mode` (`"full"` or `"uuidv47"`).
fn facade(key: &Bound<'_, PyAny>, mode: &str) -> PyResult<Facade> {
    let key = if let Ok(b) = key.cast::<PyBytes>() {
        let bytes: [u8; 16] = b.as_bytes().try_into().map_err(|_| {
            PyValueError::new_err(format!(
                "a façade key has 16 bytes, got {}",
                b.as_bytes().len()
            ))
        })?;
        FacadeKey::from_bytes(bytes)
    } else if let Ok(s) = key.cast::<PyString>() {
        FacadeKey::parse_hex(s.to_str()?).map_err(|e| PyValueError::new_err(e.to_string()))?
    } else {
        return Err(PyTypeError::new_err(format!(
            "a façade key is bytes (16) or str (32 hex digits), found {}",
            key.get_type().name()?
        )));
    };
    let mode: FacadeMode = mode
        .parse()
        .map_err(|e: uuidkit::facade::UnknownMode| PyValueError::new_err(e.to_string()))?;
    Ok(Facade::new(&key, mode))
}

/// The façade of a v7 UUID: `facade_encode(u, key, mode="full") -> UUID`, a
/// version 4 UUID. `key` is 16 bytes or 32 hex digits; mode `"full"`
/// permutes all 122 bits (shows nothing of the v7), `"uuidv47"` masks the
/// time only, byte-identical to uuidv47 (its random bits, and so a counter,
/// show). Raises `ValueError` for a UUID that is not a v7, a bad key or mode.
#[pyfunction]
#[pyo3(signature = (u, key, mode="full"))]
pub fn facade_encode<'py>(
    u: &Bound<'py, PyAny>,
    key: &Bound<'py, PyAny>,
    mode: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let f = facade(key, mode)?;
    let shown = f
        .encode(from_py(u)?)
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    to_py(u.py(), shown)
}

/// The v7 UUID a façade came from: `facade_decode(u, key, mode="full") ->
/// UUID`, with the key and mode it was made with. Raises `ValueError` for a
/// UUID that is not a v4 (so cannot be a façade), a bad key or mode; any v4
/// decodes (there is no tag to check).
#[pyfunction]
#[pyo3(signature = (u, key, mode="full"))]
pub fn facade_decode<'py>(
    u: &Bound<'py, PyAny>,
    key: &Bound<'py, PyAny>,
    mode: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let f = facade(key, mode)?;
    let v7 = f
        .decode(from_py(u)?)
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    to_py(u.py(), v7)
}
