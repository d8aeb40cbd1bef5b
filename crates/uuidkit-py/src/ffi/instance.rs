//! A `uuid.UUID` instance made directly: what `uuid.UUID.__init__` ends
//! with (two slots stored), without the Python code before it.
//!
//! Two ways, chosen once at import ([`Maker::new`]): where this build can
//! read the instance layout ([`slot_layout`]), the object is allocated and
//! its slots written in place ([`Layout::fill`]); elsewhere (the stable ABI,
//! a layout other than expected) it is allocated by `PyType_GenericAlloc`
//! and the slots stored through their member descriptors' setter.

use pyo3::exceptions::PyTypeError;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyType;

/// How `uuid.UUID` instances are made in this interpreter.
pub struct Maker {
    int_descr: Py<PyAny>,
    is_safe_descr: Py<PyAny>,
    /// The `tp_descr_set` of the member descriptor type.
    descr_set: ffi::descrsetfunc,
    /// Where the slots are, if this build can see it.
    layout: Option<Layout>,
}

impl Maker {
    /// The way for `class`, whose `int` and `is_safe` are `int_descr` and
    /// `is_safe_descr`.
    ///
    /// # Errors
    /// `TypeError` if the two are not member descriptors of one type with a
    /// setter (an interpreter whose `uuid.UUID` is not what this expects).
    pub fn new(
        class: &Bound<'_, PyType>,
        int_descr: &Bound<'_, PyAny>,
        is_safe_descr: &Bound<'_, PyAny>,
    ) -> PyResult<Maker> {
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
        Ok(Maker {
            layout: slot_layout(class, int_descr, is_safe_descr),
            int_descr: int_descr.clone().unbind(),
            is_safe_descr: is_safe_descr.clone().unbind(),
            descr_set,
        })
    }

    /// A new instance of `class` holding `int` and `is_safe` (a new
    /// reference, or NULL with an exception set).
    ///
    /// # Safety
    /// `class` is the class this was made for; `int` and `is_safe` are owned
    /// references, which this takes over (also on failure); the thread is
    /// attached.
    #[inline]
    pub unsafe fn make(
        &self,
        class: *mut ffi::PyTypeObject,
        int: *mut ffi::PyObject,
        is_safe: *mut ffi::PyObject,
    ) -> *mut ffi::PyObject {
        if let Some(layout) = self.layout {
            // SAFETY: `layout` was read from this class and checked (see
            // `slot_layout`); the references move into the slots.
            return unsafe { layout.fill(class, int, is_safe) };
        }
        // SAFETY: `class` is `uuid.UUID`, a heap type whose instances are
        // plain objects with slots; `PyType_GenericAlloc` zero-fills them and
        // takes care of GC tracking. The setter stores (and takes its own
        // references to) the values; ours are released either way.
        unsafe {
            let raw = ffi::PyType_GenericAlloc(class, 0);
            let stored = !raw.is_null()
                && (self.descr_set)(self.int_descr.as_ptr(), raw, int) == 0
                && (self.descr_set)(self.is_safe_descr.as_ptr(), raw, is_safe) == 0;
            ffi::Py_DECREF(int);
            ffi::Py_DECREF(is_safe);
            if !stored && !raw.is_null() {
                ffi::Py_DECREF(raw);
                return std::ptr::null_mut();
            }
            raw
        }
    }
}

/// How a `uuid.UUID` instance is laid out, where this build can see it: its
/// size and where its `int` and `is_safe` slots are. With it a new instance
/// is made as `PyType_GenericAlloc` makes one, without the general code
/// around it: allocated by the garbage collector's allocator, zero-filled
/// word by word (the body is a few words: the two slots, and `__weakref__`
/// before 3.12), the two slots stored, then tracked.
#[derive(Clone, Copy)]
pub struct Layout {
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
