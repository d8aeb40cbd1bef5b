//! A `list` of new objects, made only once every item exists, with the
//! garbage collector paused while the items are made.

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
/// The items are made first, into memory no Python code can reach (a
/// `MemoryError` if it cannot be had); every [`YIELD_EVERY`] items the
/// interpreter is released for a moment, so that a large batch does not
/// stall the other threads. Only then is the list allocated and filled, with
/// nothing in between that could release the interpreter, allocate or run a
/// collection: no other code (a thread walking `gc.get_objects()`, a
/// collection) ever sees the list with an empty item.
///
/// The cyclic garbage collector is paused while the items are made: when
/// they are GC-tracked objects (a `uuid.UUID` is), a million of them would
/// trigger thousands of collections that cannot free anything, as none of
/// them is in a cycle. The pause never outlives a stretch of holding the
/// interpreter: the state found is restored before each release and at the
/// end (also on error), so other threads never see the collector switched
/// off by a batch, and a `gc.disable()` / `gc.enable()` they make meanwhile
/// is kept.
pub fn filled<'py>(
    py: Python<'py>,
    len: usize,
    mut item: impl FnMut(usize) -> *mut ffi::PyObject,
) -> PyResult<Bound<'py, PyList>> {
    let size = ffi::Py_ssize_t::try_from(len)
        .map_err(|_| pyo3::exceptions::PyMemoryError::new_err("list too long"))?;
    let mut items = Owned(Vec::new(), py);
    items
        .0
        .try_reserve_exact(len)
        .map_err(|_| pyo3::exceptions::PyMemoryError::new_err("list too long"))?;
    let mut pause = GcPause::start(py);
    for i in 0..len {
        if i > 0 && i % YIELD_EVERY == 0 {
            drop(pause);
            py.detach(|| ());
            pause = GcPause::start(py);
        }
        let new = item(i);
        if new.is_null() {
            return Err(PyErr::fetch(py));
        }
        items.0.push(new);
    }
    drop(pause);
    // SAFETY: `PyList_New` returns a new list of `len` empty (NULL) items,
    // or NULL with the exception set. Each item is set below before anything
    // else runs.
    let list = unsafe { Bound::from_owned_ptr_or_err(py, ffi::PyList_New(size))? };
    for (i, new) in std::mem::take(&mut items.0).into_iter().enumerate() {
        // SAFETY: `i < len` (there are `len` items), the slot is empty, and
        // the list takes over the new reference.
        unsafe { set_item(list.as_ptr(), i as ffi::Py_ssize_t, new) };
    }
    // SAFETY: `PyList_New` made a list.
    Ok(unsafe { list.cast_into_unchecked() })
}

/// New references, released when dropped (on an error before the list
/// takes them over).
struct Owned<'py>(Vec<*mut ffi::PyObject>, Python<'py>);

impl Drop for Owned<'_> {
    fn drop(&mut self) {
        for &p in &self.0 {
            // SAFETY: each is an owned reference, dropped with the
            // interpreter attached (`self.1`).
            unsafe { ffi::Py_DECREF(p) };
        }
    }
}

/// The collector switched off while this lives, then back to the state it
/// was found in.
struct GcPause<'py> {
    was_enabled: bool,
    _py: Python<'py>,
}

impl<'py> GcPause<'py> {
    fn start(py: Python<'py>) -> Self {
        // SAFETY: called with the interpreter attached; `PyGC_Disable`
        // returns whether it was enabled.
        let was_enabled = unsafe { ffi::PyGC_Disable() } == 1;
        GcPause {
            was_enabled,
            _py: py,
        }
    }
}

impl Drop for GcPause<'_> {
    fn drop(&mut self) {
        if self.was_enabled {
            // SAFETY: the interpreter is attached (`_py`) and has stayed so
            // since `start`: no other thread could change the state.
            unsafe { ffi::PyGC_Enable() };
        }
    }
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
