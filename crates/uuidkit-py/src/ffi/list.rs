//! A `list` of new objects, allocated at its full length and filled in
//! place, with the garbage collector paused meanwhile.

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyList;

/// How many items [`filled`] makes between two chances for other threads to
/// run: for `uuid.UUID`s, about a millisecond's work, as often as the
/// interpreter itself offers the lock to a waiting thread.
const YIELD_EVERY: usize = 16 * 1024;

/// A `list` of `len` items, item `i` being `item(i)`: a new reference, or
/// NULL with the exception set (which ends the fill and is returned).
///
/// The list is allocated at its full length first (a `MemoryError` if it
/// cannot be), then filled. Every [`YIELD_EVERY`] items the interpreter is
/// released for a moment, so that a large batch does not stall the other
/// threads.
///
/// The cyclic garbage collector is paused while the list is filled: when the
/// items are GC-tracked objects (a `uuid.UUID` is), a million of them would
/// trigger thousands of collections (the later ones scanning the growing
/// list) that cannot free anything, as none of them is in a cycle. The
/// previous state is restored, also on error.
pub fn filled<'py>(
    py: Python<'py>,
    len: usize,
    mut item: impl FnMut(usize) -> *mut ffi::PyObject,
) -> PyResult<Bound<'py, PyList>> {
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
    let size = ffi::Py_ssize_t::try_from(len)
        .map_err(|_| pyo3::exceptions::PyMemoryError::new_err("list too long"))?;
    // SAFETY: `PyList_New` returns a new list of `len` empty (NULL) items,
    // or NULL with the exception set. A list with empty items may be
    // released and traversed, not handed out: it is returned only when
    // every item is set.
    let list = unsafe { Bound::from_owned_ptr_or_err(py, ffi::PyList_New(size))? };
    // SAFETY: as above; `PyGC_Disable` returns whether it was enabled.
    let _resume = Resume(unsafe { ffi::PyGC_Disable() } == 1);
    for i in 0..len {
        if i > 0 && i % YIELD_EVERY == 0 {
            py.detach(|| ());
        }
        let new = item(i);
        if new.is_null() {
            return Err(PyErr::fetch(py));
        }
        // SAFETY: `i < len`, the slot is empty, and the list takes over the
        // new reference.
        unsafe { set_item(list.as_ptr(), i as ffi::Py_ssize_t, new) };
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
