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

use crate::long::Ints;

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
    /// Where the `int` and `is_safe` slots are in an instance, read from
    /// their descriptors where the ABI shows them: then a new instance is
    /// allocated and filled directly.
    layout: Option<Layout>,
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
            let layout = slot_layout(&class, &int_descr, &is_safe_descr);
            Ok(UuidType {
                layout,
                ints: Ints::new(py),
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
        if let Some(layout) = self.layout {
            // SAFETY: `layout` was read from this class and checked (see
            // `slot_layout`); `int` and `unknown` are owned references whose
            // ownership moves into the slots.
            return unsafe { layout.fill(class, int, self.unknown.clone_ref(py).into_ptr()) };
        }
        // SAFETY: `class` is `uuid.UUID`, a heap type whose instances are plain
        // objects with slots; `PyType_GenericAlloc` zero-fills them and takes
        // care of GC tracking. The setter stores (and takes its own
        // references to) the values; `int` is released either way.
        unsafe {
            let raw = ffi::PyType_GenericAlloc(class, 0);
            if !raw.is_null()
                && ((self.descr_set)(self.int_descr.as_ptr(), raw, int) < 0
                    || (self.descr_set)(self.is_safe_descr.as_ptr(), raw, self.unknown.as_ptr())
                        < 0)
            {
                ffi::Py_DECREF(raw);
                ffi::Py_DECREF(int);
                return std::ptr::null_mut();
            }
            ffi::Py_DECREF(int);
            raw
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

/// How many UUIDs [`list`] makes between two chances for other threads to
/// run: about a millisecond's work, as often as the interpreter itself
/// offers the lock to a waiting thread.
const YIELD_EVERY: usize = 16 * 1024;

/// A `list` of `uuid.UUID`s.
///
/// The list is allocated at its full length first (a `MemoryError` if it
/// cannot be), then filled. Every [`YIELD_EVERY`] UUIDs the interpreter is
/// released for a moment, so that a large batch does not stall the other
/// threads.
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
    let len = ffi::Py_ssize_t::try_from(uuids.len())
        .map_err(|_| pyo3::exceptions::PyMemoryError::new_err("list too long"))?;
    // SAFETY: `PyList_New` returns a new list of `len` empty (NULL) items,
    // or NULL with the exception set. A list with empty items may be
    // released and traversed, not handed out: it is returned only when
    // every item is set.
    let list = unsafe { Bound::from_owned_ptr_or_err(py, ffi::PyList_New(len))? };
    // SAFETY: as above; `PyGC_Disable` returns whether it was enabled.
    let _resume = Resume(unsafe { ffi::PyGC_Disable() } == 1);
    for (c, chunk) in uuids.chunks(YIELD_EVERY).enumerate() {
        if c > 0 {
            py.detach(|| ());
        }
        for (i, &u) in chunk.iter().enumerate() {
            let item = t.new_raw(py, u);
            if item.is_null() {
                return Err(PyErr::fetch(py));
            }
            let at = (c * YIELD_EVERY + i) as ffi::Py_ssize_t;
            // SAFETY: `at < len`, the slot is empty, and the list takes over
            // the new reference `item`.
            unsafe { set_item(list.as_ptr(), at, item) };
        }
    }
    // SAFETY: `PyList_New` made a list.
    Ok(unsafe { list.cast_into_unchecked() })
}

/// Stores `item` in the empty slot `at` of a new `list`, taking over the
/// reference.
///
/// # Safety
/// `list` is a list from `PyList_New` with `at` below its length and that
/// slot empty; `item` is an owned reference.
#[inline]
unsafe fn set_item(list: *mut ffi::PyObject, at: ffi::Py_ssize_t, item: *mut ffi::PyObject) {
    // SAFETY: the caller's contract; `PyList_SetItem` cannot fail for an
    // index in range of a list.
    #[cfg(not(Py_LIMITED_API))]
    unsafe {
        ffi::PyList_SET_ITEM(list, at, item);
    }
    #[cfg(Py_LIMITED_API)]
    unsafe {
        ffi::PyList_SetItem(list, at, item);
    }
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

/// How a `uuid.UUID` instance is laid out, where this build can see it: its
/// size and where its `int` and `is_safe` slots are. With it a new instance
/// is made as `PyType_GenericAlloc` makes one, without the general code
/// around it: allocated by the garbage collector's allocator, zero-filled
/// word by word (the body is a few words: the two slots, and `__weakref__`
/// before 3.12), the two slots stored, then tracked.
#[derive(Clone, Copy)]
struct Layout {
    /// `tp_basicsize`: the header and the slots, a whole number of words.
    size: usize,
    int_at: usize,
    is_safe_at: usize,
}

impl Layout {
    /// A new instance of `class` with `int` and `is_safe` in its slots (a
    /// new reference, or NULL with an exception set).
    ///
    /// # Safety
    ///
    /// `self` was read from `class` by [`slot_layout`]; `int` and `is_safe`
    /// are owned references, which this takes over (also on failure).
    #[inline]
    unsafe fn fill(
        self,
        class: *mut ffi::PyTypeObject,
        int: *mut ffi::PyObject,
        is_safe: *mut ffi::PyObject,
    ) -> *mut ffi::PyObject {
        type Word = *mut ffi::PyObject;
        const WORD: usize = std::mem::size_of::<Word>();
        const HEAD: usize = std::mem::size_of::<ffi::PyObject>();
        // SAFETY (whole block): `PyObject_GC_New` returns an initialised
        // header (type, reference count, the type's reference for a heap
        // type) followed by `size - HEAD` uninitialised bytes, or NULL with an
        // exception set. Every word of the body is written before the object
        // is tracked (the collector may look at it from then on) or seen by
        // anyone; `int_at` and `is_safe_at` are word-aligned offsets inside
        // the body (checked by `slot_layout`).
        unsafe {
            let raw = ffi::PyObject_GC_New::<ffi::PyObject>(class);
            if raw.is_null() {
                ffi::Py_DECREF(int);
                ffi::Py_DECREF(is_safe);
                return raw;
            }
            let base = raw.cast::<u8>();
            let mut at = HEAD;
            while at < self.size {
                base.add(at).cast::<Word>().write(std::ptr::null_mut());
                at += WORD;
            }
            base.add(self.int_at).cast::<Word>().write(int);
            base.add(self.is_safe_at).cast::<Word>().write(is_safe);
            ffi::PyObject_GC_Track(raw.cast());
            raw
        }
    }
}

/// The layout of `uuid.UUID` instances, if this build can read it and it is
/// what `__slots__` makes: a garbage-collected type of fixed size with no
/// per-instance dictionary, whose two slots are object references inside
/// the instance.
#[cfg(not(Py_LIMITED_API))]
fn slot_layout(
    class: &Bound<'_, PyType>,
    int_descr: &Bound<'_, PyAny>,
    is_safe_descr: &Bound<'_, PyAny>,
) -> Option<Layout> {
    /// `Py_T_OBJECT_EX`, the member type of a `__slots__` entry.
    const T_OBJECT_EX: std::os::raw::c_int = 16;
    /// `Py_TPFLAGS_MANAGED_DICT` and `Py_TPFLAGS_INLINE_VALUES` (3.13): a
    /// dictionary outside the slots, which needs more than zeroing.
    const DICT: std::os::raw::c_ulong = (1 << 4) | (1 << 2);
    /// `Py_TPFLAGS_MANAGED_WEAKREF` (3.12; `uuid.UUID` has it from 3.12 on,
    /// for its `__weakref__` slot): the weak-reference list is kept in the
    /// two words before the collector's header, which `PyObject_GC_New`
    /// zeroes on 3.12 and 3.13. Later versions are not assumed to.
    const WEAKREF: std::os::raw::c_ulong = 1 << 3;
    let weakref_ok = cfg!(not(Py_3_14));
    let word = std::mem::size_of::<*mut ffi::PyObject>();
    // SAFETY: `class` is a live type object.
    let (ty, flags) = unsafe {
        let raw = class.as_ptr().cast::<ffi::PyTypeObject>();
        (&*raw, ffi::PyType_GetFlags(raw))
    };
    let size = usize::try_from(ty.tp_basicsize).ok()?;
    let plain = ty.tp_itemsize == 0
        && ty.tp_dictoffset == 0
        && flags & ffi::Py_TPFLAGS_HAVE_GC != 0
        && flags & DICT == 0
        && (flags & WEAKREF == 0 || weakref_ok)
        && size % word == 0
        && size >= std::mem::size_of::<ffi::PyObject>();
    if !plain {
        return None;
    }
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
        let at = usize::try_from(def.offset).ok()?;
        (def.type_code == T_OBJECT_EX
            && at % word == 0
            && at >= std::mem::size_of::<ffi::PyObject>()
            && at + word <= size)
            .then_some(at)
    };
    Some(Layout {
        size,
        int_at: offset(int_descr)?,
        is_safe_at: offset(is_safe_descr)?,
    })
}

/// Under the stable ABI the layout is hidden: the setter is used.
#[cfg(Py_LIMITED_API)]
fn slot_layout(
    _: &Bound<'_, PyType>,
    _: &Bound<'_, PyAny>,
    _: &Bound<'_, PyAny>,
) -> Option<Layout> {
    None
}
