//! The bridge between [`uuidkit::Uuid`] and the standard library's `uuid.UUID`.
//!
//! Every UUID this module returns is a plain `uuid.UUID`, not a subclass: so
//! `isinstance`, `==`, `hash`, ordering, `str`/`repr`, `copy` and `pickle`
//! behave exactly as the standard module's (they *are* its methods), and a
//! pickle loads where uuidkit is not installed (docs/python-design.md P1).
//!
//! `uuid.UUID(int=…)` runs a Python `__init__` that checks its arguments and
//! stores two slots through `object.__setattr__`, which costs more than making
//! the UUID. [`UuidType::object`] does what that `__init__` ends with and
//! nothing else: it allocates the instance and stores the two slots (`int`
//! and `is_safe`), as `ffi/instance.rs` does it. The value is already a valid
//! 128-bit integer, so none of the checks can fail.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBytes, PyString, PyType};
use uuidkit::Uuid;

use crate::ffi::instance::Maker;
use crate::ffi::long::Ints;

/// What making a `uuid.UUID` needs, looked up once per interpreter.
pub struct UuidType {
    /// `uuid.UUID`.
    pub class: Py<PyType>,
    /// `uuid.SafeUUID.unknown`, what `uuid.UUID.__init__` stores by default.
    unknown: Py<PyAny>,
    /// How an instance is made (`ffi/instance.rs`).
    maker: Maker,
    /// How this interpreter's `int`s are made.
    ints: Ints,
    int_name: Py<PyString>,
}

static UUID_TYPE: PyOnceLock<UuidType> = PyOnceLock::new();

impl UuidType {
    /// The interpreter's `uuid.UUID` and the parts needed to fill one in.
    pub fn get(py: Python<'_>) -> PyResult<&UuidType> {
        UUID_TYPE.get_or_try_init(py, || {
            let module = py.import("uuid")?;
            let class = module.getattr("UUID")?.cast_into::<PyType>()?;
            let dict = class.getattr("__dict__")?;
            let maker = Maker::new(&class, &dict.get_item("int")?, &dict.get_item("is_safe")?)?;
            let unknown = module.getattr("SafeUUID")?.getattr("unknown")?;
            Ok(UuidType {
                maker,
                ints: Ints::new(py),
                class: class.unbind(),
                unknown: unknown.unbind(),
                int_name: PyString::intern(py, "int").unbind(),
            })
        })
    }

    /// A new `uuid.UUID` holding `u`, as `uuid.UUID(int=u)` would make it.
    #[inline]
    pub fn object<'py>(&self, py: Python<'py>, u: Uuid) -> PyResult<Bound<'py, PyAny>> {
        // SAFETY: `new_raw` returns a new reference or NULL with an
        // exception set.
        unsafe { Bound::from_owned_ptr_or_err(py, self.new_raw(py, u)) }
    }

    /// [`UuidType::object`] as CPython's C functions return it: a new
    /// reference, or NULL with the exception set. The hot paths use this
    /// directly, with no `Result` to build and take apart.
    #[inline]
    pub fn new_raw(&self, py: Python<'_>, u: Uuid) -> *mut ffi::PyObject {
        let int = self.ints.new_raw(py, u.as_u128());
        if int.is_null() {
            return int;
        }
        let class = self.class.as_ptr().cast::<ffi::PyTypeObject>();
        // SAFETY: `maker` was made for this class; `int` and the `unknown`
        // reference are owned and move into the new object; `py` attests
        // that the thread is attached.
        unsafe {
            self.maker
                .make(class, int, self.unknown.clone_ref(py).into_ptr())
        }
    }

    /// The UUID in `obj`: a `uuid.UUID` (or subclass, or anything with an
    /// `int` attribute in `0..2**128`, as the standard module's functions
    /// accept for namespaces).
    pub fn value(&self, obj: &Bound<'_, PyAny>) -> PyResult<Uuid> {
        let int = obj.getattr(self.int_name.bind(obj.py())).map_err(|_| {
            PyTypeError::new_err(format!(
                "expected a uuid.UUID, found {}",
                obj.get_type()
                    .name()
                    .map_or_else(|_| "?".into(), |n| n.to_string())
            ))
        })?;
        int.extract::<u128>()
            .map(Uuid::from_u128)
            .map_err(|_| PyValueError::new_err("expected a UUID's int in 0..2**128"))
    }
}

/// `UuidType::get(py)?.object(py, u)`, for one-off conversions.
pub fn to_py(py: Python<'_>, u: Uuid) -> PyResult<Bound<'_, PyAny>> {
    UuidType::get(py)?.object(py, u)
}

/// The UUID in a `uuid.UUID` argument.
pub fn from_py(obj: &Bound<'_, PyAny>) -> PyResult<Uuid> {
    UuidType::get(obj.py())?.value(obj)
}

/// A `list` of `uuid.UUID`s (see `ffi/list.rs`: the items made with the
/// collector paused and the interpreter offered to other threads now and
/// then, the list made and filled at once after).
pub fn list<'py>(py: Python<'py>, uuids: &[Uuid]) -> PyResult<Bound<'py, pyo3::types::PyList>> {
    let t = UuidType::get(py)?;
    crate::ffi::list::filled(py, uuids.len(), |i| t.new_raw(py, uuids[i]))
}

/// The raw bytes of `obj`'s buffer in C order, as
/// `memoryview(obj).tobytes()` gives them (whatever the item format), or
/// `None` if `obj` has no buffer protocol. A `bytes` is returned as is.
pub fn buffer_bytes<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, PyBytes>>> {
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Ok(Some(b.clone()));
    }
    let py = obj.py();
    let view = match pyo3::types::PyMemoryView::from(obj) {
        Ok(v) => v,
        // `memoryview` raises `TypeError` for an object without the buffer
        // protocol; any other error (a `BufferError`) is the exporter's.
        Err(e) if e.is_instance_of::<PyTypeError>(py) => return Ok(None),
        Err(e) => return Err(e),
    };
    Ok(Some(
        view.call_method0(pyo3::intern!(py, "tobytes"))?
            .cast_into::<PyBytes>()?,
    ))
}

/// A name as the standard module takes it: `str` (encoded as UTF-8), or any
/// object with the buffer protocol (`bytes`, `bytearray`, `memoryview`,
/// `array`…), whose raw bytes are hashed as `hashlib` would hash them.
/// Anything else (a list of ints included) is a `TypeError` naming `name`.
pub fn name_bytes<'a>(name: &'a Bound<'_, PyAny>) -> PyResult<std::borrow::Cow<'a, [u8]>> {
    if let Ok(s) = name.cast::<PyString>() {
        return Ok(std::borrow::Cow::Borrowed(s.to_str()?.as_bytes()));
    }
    if let Ok(b) = name.cast::<PyBytes>() {
        return Ok(std::borrow::Cow::Borrowed(b.as_bytes()));
    }
    match buffer_bytes(name)? {
        Some(b) => Ok(std::borrow::Cow::Owned(b.as_bytes().to_vec())),
        None => Err(PyTypeError::new_err(format!(
            "name: expected str or a bytes-like object, found {}",
            name.get_type()
                .name()
                .map_or_else(|_| "?".into(), |n| n.to_string())
        ))),
    }
}
