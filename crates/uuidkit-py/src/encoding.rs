//! The short encodings and TypeID (docs/encodings.md): a UUID to text and
//! back, with the library's positioned decode errors as `DecodeError`, a
//! `ValueError`.

use pyo3::create_exception;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString, PyTuple};
use uuidkit::Uuid;
use uuidkit::encoding::{DecodeErrorKind, Encoding, TypeId};

use crate::convert::{from_py, to_py};

create_exception!(
    uuidkit,
    DecodeError,
    PyValueError,
    "Text that is not a UUID in a short encoding or a TypeID: a `ValueError` \
     whose message says what, where and which characters were expected. \
     `position` is the 0-based index of the bad character (for a TypeID \
     suffix of the wrong length, where the suffix starts; `None` when the \
     fault is the whole text's length or value), `kind` a short name of the \
     fault and `encoding` the encoding's name (`base32`, `ulid`, `base32hex`, \
     `base58`, `base64url` or `typeid`)."
);

/// The encoding's name as the Python functions spell it.
fn encoding_name(e: Encoding) -> &'static str {
    match e {
        Encoding::Base32 => "base32",
        Encoding::Ulid => "ulid",
        Encoding::Base32Hex => "base32hex",
        Encoding::Base58 => "base58",
        Encoding::Base64Url => "base64url",
        _ => "typeid",
    }
}

/// The Python exception for `e`. For `str` input the library saw `text`, in
/// which every non-ASCII character stands as one byte `0xff` (see
/// [`decode`]): an `InvalidByte` there is that character, and is reported as
/// one, at its index in the `str`.
fn error(py: Python<'_>, e: uuidkit::encoding::DecodeError, text: Option<&str>) -> PyErr {
    let mut message = e.to_string();
    let mut kind = match e.kind() {
        DecodeErrorKind::InvalidLength { .. } => "invalid_length",
        DecodeErrorKind::InvalidCharacter { .. } => "invalid_character",
        DecodeErrorKind::InvalidByte { .. } => "invalid_byte",
        DecodeErrorKind::Overflow => "overflow",
        DecodeErrorKind::PrefixTooLong { .. } => "prefix_too_long",
        _ => "other",
    };
    if let (DecodeErrorKind::InvalidByte { found, .. }, Some(text), Some(at)) =
        (e.kind(), text, e.position())
        && let Some(c) = text.chars().nth(at)
    {
        let byte = format!("byte 0x{found:02x} at");
        message = message.replacen(&byte, &format!("character {c:?} at"), 1);
        kind = "invalid_character";
    }
    let err = DecodeError::new_err(message);
    let value = err.value(py);
    // Setting attributes on a fresh exception instance cannot fail.
    let _ = value.setattr("position", e.position());
    let _ = value.setattr("kind", kind);
    let _ = value.setattr("encoding", encoding_name(e.encoding()));
    err
}

/// Runs `decode` over a `str` or bytes argument.
fn decode<T>(
    text: &Bound<'_, PyAny>,
    decode: impl Fn(&[u8]) -> Result<T, uuidkit::encoding::DecodeError>,
) -> PyResult<T> {
    let py = text.py();
    if let Ok(b) = text.cast::<PyBytes>() {
        return decode(b.as_bytes()).map_err(|e| error(py, e, None));
    }
    let Ok(s) = text.cast::<PyString>() else {
        return Err(PyTypeError::new_err(format!(
            "expected str or bytes, found {}",
            text.get_type().name()?
        )));
    };
    decode_str(py, s.to_str()?, decode)
}

/// Runs `decode` over `s`. Valid text is ASCII, so `s` is decoded from its
/// UTF-8 as it is; only if that fails and `s` is not ASCII is it decoded
/// again with each non-ASCII character as one invalid byte, so that the
/// error's position and lengths count characters, as Python does.
fn decode_str<T>(
    py: Python<'_>,
    s: &str,
    decode: impl Fn(&[u8]) -> Result<T, uuidkit::encoding::DecodeError>,
) -> PyResult<T> {
    decode(s.as_bytes()).map_err(|e| {
        if s.is_ascii() {
            return error(py, e, None);
        }
        let one_byte_each: Vec<u8> = s
            .chars()
            .map(|c| u8::try_from(c).ok().filter(u8::is_ascii).unwrap_or(0xff))
            .collect();
        match decode(&one_byte_each) {
            Err(e) => error(py, e, Some(s)),
            Ok(_) => error(py, e, None),
        }
    })
}

/// The base32 form of a UUID (Crockford's alphabet, upper case, 26
/// characters; sorts like the UUIDs): `to_base32(u) -> str`. Same text as
/// `to_ulid`.
#[pyfunction]
pub fn to_base32(u: &Bound<'_, PyAny>) -> PyResult<String> {
    Ok(from_py(u)?.base32().to_string())
}

/// A UUID from its base32 form: 26 of Crockford's digits in either case,
/// the first 0-7. `I`, `L`, `O` and `U` are errors, not aliases. Raises
/// `DecodeError` (a `ValueError`) naming what is wrong and where.
#[pyfunction]
pub fn from_base32<'py>(text: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    to_py(text.py(), decode(text, Uuid::parse_base32::<[u8]>)?)
}

/// The ULID text of a UUID: its base32 form (26 characters). A v7 UUID is a
/// valid ULID with the same milliseconds.
#[pyfunction]
pub fn to_ulid(u: &Bound<'_, PyAny>) -> PyResult<String> {
    Ok(from_py(u)?.to_ulid().to_string())
}

/// A UUID from a ULID's text (its 128 bits as they are: the version and
/// variant bits of a ULID are random, so the result is usually not a v7
/// UUID; its milliseconds are `u.int >> 80`). Raises `DecodeError` (a
/// `ValueError`) naming what is wrong and where.
#[pyfunction]
pub fn from_ulid<'py>(text: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    to_py(text.py(), decode(text, Uuid::from_ulid::<[u8]>)?)
}

/// The base32hex form of a UUID (RFC 4648 section 7 over its 16 bytes,
/// upper case, no padding, 26 characters; sorts like the UUIDs).
#[pyfunction]
pub fn to_base32hex(u: &Bound<'_, PyAny>) -> PyResult<String> {
    Ok(from_py(u)?.base32hex().to_string())
}

/// A UUID from its base32hex form: 26 digits 0-9 A-V in either case, the
/// last one's two padding bits zero, no `=`. Raises `DecodeError` (a
/// `ValueError`) naming what is wrong and where.
#[pyfunction]
pub fn from_base32hex<'py>(text: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    to_py(text.py(), decode(text, Uuid::parse_base32hex::<[u8]>)?)
}

/// The base58 form of a UUID (Bitcoin's alphabet, the 128-bit number
/// left-padded with `1` to 22 characters; sorts like the UUIDs).
#[pyfunction]
pub fn to_base58(u: &Bound<'_, PyAny>) -> PyResult<String> {
    Ok(from_py(u)?.base58().to_string())
}

/// A UUID from its base58 form: exactly 22 digits (case matters), at most
/// the Max UUID's `YcVfxkQb6JRzqk5kF2tNLv`. Raises `DecodeError` (a
/// `ValueError`) naming what is wrong and where.
#[pyfunction]
pub fn from_base58<'py>(text: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    to_py(text.py(), decode(text, Uuid::parse_base58::<[u8]>)?)
}

/// The base64url form of a UUID (RFC 4648 section 5 over its 16 bytes, no
/// padding, 22 characters; URL- and file-name safe, but does not sort like
/// the UUIDs).
#[pyfunction]
pub fn to_base64url(u: &Bound<'_, PyAny>) -> PyResult<String> {
    Ok(from_py(u)?.base64url().to_string())
}

/// A UUID from its base64url form: exactly 22 characters of `A-Z a-z 0-9 -
/// _`, the last one's four padding bits zero; `+`, `/` and `=` are errors.
/// Raises `DecodeError` (a `ValueError`) naming what is wrong and where.
#[pyfunction]
pub fn from_base64url<'py>(text: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    to_py(text.py(), decode(text, Uuid::parse_base64url::<[u8]>)?)
}

/// The TypeID of a UUID with a type prefix: `prefix_` and the base32 form in
/// lower case, `to_typeid(u, "user") == "user_01h455vb4pex5vsknk084sn02q"`.
/// An empty prefix gives the 26 digits alone. The prefix is at most 63
/// characters of a-z and `_`, starting and ending with a letter; otherwise
/// raises `DecodeError` (a `ValueError`) naming the character and where.
#[pyfunction]
pub fn to_typeid(u: &Bound<'_, PyAny>, prefix: &Bound<'_, PyString>) -> PyResult<String> {
    let (py, u) = (prefix.py(), from_py(u)?);
    let prefix = prefix.to_str()?;
    if !prefix.is_empty() {
        // The prefix is checked as `TypeId::parse` checks it at the start
        // of a text, so that its errors count characters (see `decode_str`).
        let probe = format!("{prefix}_{}", "0".repeat(26));
        decode_str(py, &probe, |s| TypeId::parse(s).map(|_| ()))?;
    }
    let id = TypeId::new(prefix, u).map_err(|e| error(py, e, None))?;
    Ok(id.to_string())
}

/// A TypeID's prefix and UUID: `from_typeid("user_01h455vb4pex5vsknk084sn02q")
/// == ("user", UUID("01890a5d-ac96-774b-bcce-b302099a8057"))`. The prefix is
/// everything before the last `_` (empty if there is none); the suffix must
/// be 26 lower-case base32 digits, the first 0-7. Raises `DecodeError` (a
/// `ValueError`) naming what is wrong and where.
#[pyfunction]
pub fn from_typeid<'py>(text: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyTuple>> {
    let py = text.py();
    let (prefix, u) = decode(text, |s| {
        TypeId::parse(s).map(|id| (id.prefix().to_owned(), id.uuid()))
    })?;
    PyTuple::new(py, [PyString::new(py, &prefix).into_any(), to_py(py, u)?])
}
