//! `uuid4()` and `uuid7()`, the two calls made millions of times, as plain
//! C functions rather than through PyO3's `#[pyfunction]` trampoline.
//!
//! The trampoline exists to catch panics and to count, in a thread-local,
//! that the thread is attached to the interpreter; for a function that takes
//! no argument, cannot panic and returns a new object it is a fifth of the
//! call. CPython calls a C function only from a thread that holds the
//! interpreter, which is what `Python::assume_attached` requires. A panic
//! could not unwind out of an `extern "C"` function anyway: it would abort.
//!
//! They are `METH_FASTCALL` functions, not `METH_NOARGS` ones, although they
//! take no argument: CPython's specialising interpreter (3.11 and later)
//! calls a `METH_FASTCALL` builtin straight from the bytecode, where a
//! `METH_NOARGS` one goes through the generic call path (three more C
//! functions). The price is checking the argument count here; keyword
//! arguments are refused by CPython before the call.

use std::ffi::c_char;
use std::ptr;

use pyo3::exceptions::PyTypeError;
use pyo3::ffi;
use pyo3::prelude::*;
use uuidkit::Uuid;

use crate::convert::UuidType;

/// A `PyMethodDef` that can live in a `static`: CPython only reads it.
#[repr(transparent)]
struct MethodDef(ffi::PyMethodDef);

// SAFETY: the definition is never written after initialisation, and the
// pointers in it are to `'static` data (names, docs, functions).
unsafe impl Sync for MethodDef {}

const fn fastcall(
    name: &'static std::ffi::CStr,
    doc: &'static std::ffi::CStr,
    f: ffi::PyCFunctionFast,
) -> MethodDef {
    MethodDef(ffi::PyMethodDef {
        ml_name: name.as_ptr(),
        ml_meth: ffi::PyMethodDefPointer { PyCFunctionFast: f },
        ml_flags: ffi::METH_FASTCALL,
        ml_doc: doc.as_ptr().cast::<c_char>(),
    })
}

/// Returns `make()` as a new `uuid.UUID`, or NULL with the exception set;
/// `name` and `nargs` are the function's and its argument count.
#[inline(always)]
fn call(name: &str, nargs: ffi::Py_ssize_t, make: fn() -> Uuid) -> *mut ffi::PyObject {
    // SAFETY: CPython calls C functions with the thread attached.
    let py = unsafe { Python::assume_attached() };
    if nargs != 0 {
        return too_many(py, name, nargs);
    }
    match UuidType::get(py) {
        Ok(t) => t.new_raw(py, make()),
        Err(e) => {
            e.restore(py);
            ptr::null_mut()
        }
    }
}

/// The `TypeError` CPython raises for arguments to a function taking none.
#[cold]
#[inline(never)]
fn too_many(py: Python<'_>, name: &str, nargs: ffi::Py_ssize_t) -> *mut ffi::PyObject {
    PyTypeError::new_err(format!("{name}() takes no arguments ({nargs} given)")).restore(py);
    ptr::null_mut()
}

/// `uuidkit.uuid4()`, called by CPython as a `PyCFunctionFast`: `args` holds
/// `nargs` borrowed references (none expected) and the result is a new
/// reference or NULL with the exception set. Never unwinds: nothing in it
/// panics.
///
/// # Safety
///
/// Only CPython calls it, from a thread attached to the interpreter (what
/// `call` assumes); `_module` and `_args` are never read, so any pointers
/// will do, and `nargs` is only compared.
unsafe extern "C" fn uuid4(
    _module: *mut ffi::PyObject,
    _args: *mut *mut ffi::PyObject,
    nargs: ffi::Py_ssize_t,
) -> *mut ffi::PyObject {
    call("uuid4", nargs, crate::fast::next_v4)
}

/// `uuidkit.uuid7()`, as [`uuid4`]: the process-wide monotonic v7 generator.
///
/// # Safety
///
/// Only CPython calls it, from a thread attached to the interpreter (what
/// `call` assumes); `_module` and `_args` are never read, so any pointers
/// will do, and `nargs` is only compared.
unsafe extern "C" fn uuid7(
    _module: *mut ffi::PyObject,
    _args: *mut *mut ffi::PyObject,
    nargs: ffi::Py_ssize_t,
) -> *mut ffi::PyObject {
    call("uuid7", nargs, Uuid::now_v7)
}

static UUID4: MethodDef = fastcall(
    c"uuid4",
    c"uuid4()\n--\n\n\
      A random v4 UUID (RFC 9562 section 5.4), as uuid.uuid4(): 122 bits from a\n\
      ChaCha12 generator per thread, seeded by the OS and reseeded after fork().",
    uuid4,
);

static UUID7: MethodDef = fastcall(
    c"uuid7",
    c"uuid7()\n--\n\n\
      A v7 UUID (RFC 9562 section 5.7) for the current time, as CPython 3.14's\n\
      uuid.uuid7(): 48-bit Unix milliseconds, a 16-bit counter, 58 random bits.\n\n\
      Monotonic across threads (if one call happens-before another, the second\n\
      UUID is greater) and after fork() (the child continues the counter with\n\
      freshly seeded random bits). The counter is seeded with 15 random bits at\n\
      each new millisecond and carries into the next one: the timestamp runs\n\
      ahead of the clock only while more than 32,768 UUIDs a millisecond are\n\
      made (a large uuid7_batch), and the clock then catches up.",
    uuid7,
);

/// Adds `uuid4` and `uuid7` to `module`.
pub fn add(module: &Bound<'_, PyModule>) -> PyResult<()> {
    crate::fast::init();
    let py = module.py();
    let name = module.name()?;
    for def in [&UUID4, &UUID7] {
        // SAFETY: `def` is a `'static` definition; CPython keeps the pointer
        // and never writes through it. The result is a new reference or NULL.
        let f = unsafe {
            let raw = ffi::PyCFunction_NewEx(
                ptr::from_ref(&def.0).cast_mut(),
                module.as_ptr(),
                name.as_ptr(),
            );
            Bound::from_owned_ptr_or_err(py, raw)?
        };
        module.add(
            f.getattr("__name__")?
                .cast_into::<pyo3::types::PyString>()?,
            f,
        )?;
    }
    Ok(())
}
