//! Parsing with the library's positioned errors, as `ValueError` subclasses.

use pyo3::create_exception;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};
use uuidkit::Uuid;
use uuidkit::error::ParseErrorKind;

use crate::convert::UuidType;

create_exception!(
    uuidkit,
    ParseError,
    PyValueError,
    "Text that is not a UUID: a `ValueError` whose message is \"what, where, \
     expected what\" and whose `position` is the 0-based offset of the fault \
     (`None` when the fault is the input's length), `kind` a short name of it."
);

/// The Python exception for `e`, with `position` and `kind` attributes.
fn error(py: Python<'_>, e: uuidkit::ParseError) -> PyErr {
    let err = ParseError::new_err(e.to_string());
    let value = err.value(py);
    let kind = match e.kind() {
        ParseErrorKind::InvalidLength { .. } => "invalid_length",
        ParseErrorKind::InvalidCharacter { .. } => "invalid_character",
        ParseErrorKind::InvalidByte { .. } => "invalid_byte",
        ParseErrorKind::UnexpectedEnd { .. } => "unexpected_end",
        ParseErrorKind::GroupLength { .. } => "group_length",
        ParseErrorKind::GroupCount { .. } => "group_count",
        ParseErrorKind::NotHyphenated { .. } => "not_hyphenated",
        _ => "other",
    };
    // Setting attributes on a fresh exception instance cannot fail.
    let _ = value.setattr("position", e.position());
    let _ = value.setattr("kind", kind);
    err
}

/// Runs `parse` over a `str` or bytes-like argument.
fn parse_with<'py>(
    text: &Bound<'py, PyAny>,
    parse: fn(&[u8]) -> Result<Uuid, uuidkit::ParseError>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = text.py();
    let result = if let Ok(s) = text.cast::<PyString>() {
        parse(s.to_str()?.as_bytes())
    } else if let Ok(b) = text.cast::<PyBytes>() {
        parse(b.as_bytes())
    } else {
        return Err(PyTypeError::new_err(format!(
            "expected str or bytes, found {}",
            text.get_type().name()?
        )));
    };
    let u = result.map_err(|e| error(py, e))?;
    UuidType::get(py)?.object(py, u)
}

/// A UUID from text in any of the four common forms, any case: hyphenated
/// (`f81d4fae-7dec-11d0-a765-00a0c91e6bf6`), 32 digits, `{braced}`, or
/// `urn:uuid:`. Raises `ParseError` (a `ValueError`) naming what is wrong and
/// where.
#[pyfunction]
pub fn parse<'py>(text: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    parse_with(text, Uuid::parse::<[u8]>)
}

/// A UUID from RFC 9562's hyphenated form only (any case). Raises
/// `ParseError` (a `ValueError`) naming what is wrong and where.
#[pyfunction]
pub fn parse_strict<'py>(text: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    parse_with(text, Uuid::parse_strict::<[u8]>)
}
