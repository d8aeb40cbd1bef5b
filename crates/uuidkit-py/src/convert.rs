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
//! and `is_safe`) through their member descriptors. The value is already a
//! valid 128-bit integer, so none of the checks can fail.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyString, PyType};
use uuidkit::Uuid;

/// What making a `uuid.UUID` needs, looked up once per interpreter.
pub struct UuidType {
    /// `uuid.UUID`.
    pub class: Py<PyType>,
    int_descr: Py<PyAny>,
    is_safe_descr: Py<PyAny>,
    /// `uuid.SafeUUID.unknown`, what `uuid.UUID.__init__` stores by default.
    unknown: Py<PyAny>,
    /// The `tp_descr_set` of the member descriptor type.
    descr_set: ffi::descrsetfunc,
    /// The byte offsets of the `int` and `is_safe` slots in an instance, read
    /// from their descriptors where the ABI shows them: then a new instance
    /// is filled by two stores.
    offsets: Option<(usize, usize)>,
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
            let int_descr = dict.get_item("int")?;
            let is_safe_descr = dict.get_item("is_safe")?;
            let unknown = module.getattr("SafeUUID")?.getattr("unknown")?;
            // Both slots are `member_descriptor`s: one setter for both.
            // SAFETY: `int_descr` is a live object; reading its type's slot is
            // what `PyType_GetSlot` is for (static types allowed since 3.10).
            let descr_set = unsafe {
                let ty = ffi::Py_TYPE(int_descr.as_ptr());
                ffi::PyType_GetSlot(ty, ffi::Py_tp_descr_set)
            };
            if descr_set.is_null() || !int_descr.get_type().is(is_safe_descr.get_type()) {
                return Err(PyTypeError::new_err(
                    "uuid.UUID's slots are not member descriptors: unsupported Python",
                ));
            }
            // SAFETY: a non-null `tp_descr_set` slot holds a `descrsetfunc`.
            let descr_set: ffi::descrsetfunc = unsafe { std::mem::transmute(descr_set) };
            let offsets = slot_offsets(&class, &int_descr, &is_safe_descr);
            Ok(UuidType {
                offsets,
                class: class.unbind(),
                int_descr: int_descr.unbind(),
                is_safe_descr: is_safe_descr.unbind(),
                unknown: unknown.unbind(),
                descr_set,
                int_name: PyString::intern(py, "int").unbind(),
            })
        })
    }

    /// A new `uuid.UUID` holding `u`, as `uuid.UUID(int=u)` would make it.
    #[inline]
    pub fn object<'py>(&self, py: Python<'py>, u: Uuid) -> PyResult<Bound<'py, PyAny>> {
        let int = int_object(py, u.as_u128())?;
        // SAFETY: `class` is `uuid.UUID`, a heap type whose instances are plain
        // objects with slots; `PyType_GenericAlloc` zero-fills them and takes
        // care of GC tracking. The offsets were checked against the instance
        // size and the slots' type (object references) when they were read, and
        // the slots of a new instance are empty, so a store of an owned
        // reference is what the descriptor's setter would do. On failure the
        // new reference is released by `Bound`'s drop.
        unsafe {
            let class = self.class.as_ptr().cast::<ffi::PyTypeObject>();
            let raw = ffi::PyType_GenericAlloc(class, 0);
            let obj = Bound::from_owned_ptr_or_err(py, raw)?;
            if let Some((int_at, safe_at)) = self.offsets {
                let base = raw.cast::<u8>();
                base.add(int_at)
                    .cast::<*mut ffi::PyObject>()
                    .write(int.into_ptr());
                let unknown = self.unknown.clone_ref(py).into_ptr();
                base.add(safe_at)
                    .cast::<*mut ffi::PyObject>()
                    .write(unknown);
            } else if (self.descr_set)(self.int_descr.as_ptr(), raw, int.as_ptr()) < 0
                || (self.descr_set)(self.is_safe_descr.as_ptr(), raw, self.unknown.as_ptr()) < 0
            {
                return Err(PyErr::fetch(py));
            }
            Ok(obj)
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

/// A `list` of `uuid.UUID`s.
///
/// The cyclic garbage collector is paused while the list is filled: every
/// UUID is a GC-tracked object, so a million of them would trigger thousands
/// of collections (the later ones scanning the growing list) that cannot
/// free anything, as none of these objects is in a cycle. The previous state
/// is restored, also on error.
pub fn list<'py>(py: Python<'py>, uuids: &[Uuid]) -> PyResult<Bound<'py, pyo3::types::PyList>> {
    struct Resume(bool);
    impl Drop for Resume {
        fn drop(&mut self) {
            if self.0 {
                // SAFETY: called with the interpreter attached (the guard
                // lives inside a function holding `py`).
                unsafe { ffi::PyGC_Enable() };
            }
        }
    }
    let t = UuidType::get(py)?;
    // SAFETY: as above; `PyGC_Disable` returns whether it was enabled.
    let _resume = Resume(unsafe { ffi::PyGC_Disable() } == 1);
    let items = uuids
        .iter()
        .map(|&u| t.object(py, u))
        .collect::<PyResult<Vec<_>>>()?;
    pyo3::types::PyList::new(py, items)
}

/// A name as the standard module takes it: `str` (encoded as UTF-8) or bytes.
pub fn name_bytes<'a>(name: &'a Bound<'_, PyAny>) -> PyResult<std::borrow::Cow<'a, [u8]>> {
    if let Ok(s) = name.cast::<PyString>() {
        return Ok(std::borrow::Cow::Borrowed(s.to_str()?.as_bytes()));
    }
    if let Ok(b) = name.cast::<pyo3::types::PyBytes>() {
        return Ok(std::borrow::Cow::Borrowed(b.as_bytes()));
    }
    if let Ok(v) = name.extract::<Vec<u8>>() {
        return Ok(std::borrow::Cow::Owned(v));
    }
    Err(PyTypeError::new_err(format!(
        "expected a name as str or bytes, found {}",
        name.get_type()
            .name()
            .map_or_else(|_| "?".into(), |n| n.to_string())
    )))
}

/// The offsets of the two slots, if this build can read them and they are
/// what `__slots__` makes: object references inside the instance.
#[cfg(not(Py_LIMITED_API))]
fn slot_offsets(
    class: &Bound<'_, PyType>,
    int_descr: &Bound<'_, PyAny>,
    is_safe_descr: &Bound<'_, PyAny>,
) -> Option<(usize, usize)> {
    /// `Py_T_OBJECT_EX`, the member type of a `__slots__` entry.
    const T_OBJECT_EX: std::os::raw::c_int = 16;
    let member_type = class
        .py()
        .import("types")
        .ok()?
        .getattr("MemberDescriptorType")
        .ok()?;
    let offset = |d: &Bound<'_, PyAny>| -> Option<usize> {
        if !d.get_type().is(&member_type) {
            return None;
        }
        // SAFETY: `d` is a `member_descriptor`, whose C layout is
        // `PyMemberDescrObject`; its `d_member` points at a static definition.
        let def = unsafe { &*(*d.as_ptr().cast::<ffi::PyMemberDescrObject>()).d_member };
        let size = unsafe { (*class.as_ptr().cast::<ffi::PyTypeObject>()).tp_basicsize };
        let ptr = std::mem::size_of::<*mut ffi::PyObject>() as ffi::Py_ssize_t;
        (def.type_code == T_OBJECT_EX && def.offset >= ptr * 2 && def.offset + ptr <= size)
            .then_some(def.offset as usize)
    };
    Some((offset(int_descr)?, offset(is_safe_descr)?))
}

/// Under the stable ABI the descriptors' layout is hidden: the setter is used.
#[cfg(Py_LIMITED_API)]
fn slot_offsets(
    _: &Bound<'_, PyType>,
    _: &Bound<'_, PyAny>,
    _: &Bound<'_, PyAny>,
) -> Option<(usize, usize)> {
    None
}

/// A Python `int` of `value`. On CPython 3.11 (not the stable ABI) the
/// object is built digit by digit: `_PyLong_FromByteArray` (what PyO3 uses
/// there) goes byte by byte and was the largest cost of a new UUID. Later
/// versions changed the layout of `int`, and 3.13 has a fast public
/// constructor that PyO3 uses.
#[cfg(all(Py_3_11, not(Py_3_12), not(Py_LIMITED_API), not(PyPy)))]
#[inline]
fn int_object(py: Python<'_>, value: u128) -> PyResult<Bound<'_, PyAny>> {
    unsafe extern "C" {
        fn _PyLong_New(size: ffi::Py_ssize_t) -> *mut ffi::PyObject;
    }
    /// 3.11's `PyLongObject`: a variable-size header, then 30-bit digits,
    /// least significant first, `ob_size` of them with the top one non-zero.
    #[repr(C)]
    struct Long {
        head: ffi::PyVarObject,
        digits: [u32; 5],
    }
    const SHIFT: u32 = 30;
    let mut digits = [0u32; 5];
    let mut n = 0;
    let mut v = value;
    while v != 0 {
        digits[n] = (v & ((1 << SHIFT) - 1)) as u32;
        v >>= SHIFT;
        n += 1;
    }
    if n <= 1 {
        // Small values (and 0, which has no digits) the ordinary way.
        return Ok((value as u64).into_pyobject(py)?.into_any());
    }
    // SAFETY: `_PyLong_New(n)` returns an `int` with room for `n` digits and
    // `ob_size == n` (or NULL with an exception set); `n <= 5` and the top
    // digit is non-zero, so the value is normalised as CPython requires.
    unsafe {
        let raw = _PyLong_New(n as ffi::Py_ssize_t);
        let obj = Bound::from_owned_ptr_or_err(py, raw)?;
        let long = raw.cast::<Long>();
        std::ptr::copy_nonoverlapping(digits.as_ptr(), (*long).digits.as_mut_ptr(), n);
        Ok(obj)
    }
}

/// A Python `int` of `value`, by PyO3's conversion.
#[cfg(not(all(Py_3_11, not(Py_3_12), not(Py_LIMITED_API), not(PyPy))))]
#[inline]
fn int_object(py: Python<'_>, value: u128) -> PyResult<Bound<'_, PyAny>> {
    Ok(value.into_pyobject(py)?.into_any())
}
