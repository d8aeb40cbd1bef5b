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

/// `uuid4()`: a v4 UUID as a new `uuid.UUID` (CPython's `METH_FASTCALL` entry
/// point).
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
    call("uuid4", nargs, v4::next)
}

/// `uuid7()`: a v7 UUID as a new `uuid.UUID` (CPython's `METH_FASTCALL` entry
/// point).
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

/// `uuid4()`'s UUIDs, made [`v4::BATCH`] at a time.
///
/// `Uuid::new_v4` reaches the thread's generator through a thread-local,
/// which in a shared library is a call into the dynamic loader for every
/// UUID; a batch draws its random bits in one fill and is then handed out
/// one UUID at a time from a plain static. The interpreter lock guards it:
/// only `uuid4` touches it, always holding the lock (a C function), and it
/// calls nothing that could run Python code (and so re-enter) while using
/// it. PyO3 refuses to load the module into a second interpreter, so no
/// other lock can be held at the same time. A build without the lock
/// (free-threaded CPython) uses `Uuid::new_v4` directly.
///
/// Fork safety: the UUIDs left in the batch at a `fork()` are the parent's.
/// A `pthread_atfork` handler empties the batch in the child, so the child's
/// next UUID comes from a new batch, drawn from the library's generator,
/// which reseeds itself in a child.
#[cfg(not(Py_GIL_DISABLED))]
mod v4 {
    use std::cell::UnsafeCell;
    use std::sync::Once;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use uuidkit::Uuid;

    /// How many UUIDs a batch holds: 1 KiB of random bits.
    pub const BATCH: usize = 64;

    struct Batch {
        /// The next UUID to hand out; `BATCH` when the batch is used up.
        /// Atomic only so that the fork handler can store to it.
        next: AtomicUsize,
        uuids: UnsafeCell<[Uuid; BATCH]>,
    }

    // SAFETY: `uuids` is only used by `next`, with the interpreter lock held
    // (see the module documentation).
    unsafe impl Sync for Batch {}

    static CURRENT: Batch = Batch {
        next: AtomicUsize::new(BATCH),
        uuids: UnsafeCell::new([Uuid::NIL; BATCH]),
    };

    /// In a new child: forget the parent's batch. Only an atomic store,
    /// which is async-signal-safe.
    extern "C" fn discard() {
        CURRENT.next.store(BATCH, Ordering::Relaxed);
    }

    /// Registers the fork handler, once per process; before the first UUID.
    pub fn init() {
        static REGISTER: Once = Once::new();
        REGISTER.call_once(|| {
            // SAFETY: registering a handler that only does an atomic store.
            #[cfg(unix)]
            unsafe {
                libc::pthread_atfork(None, None, Some(discard));
            }
        });
    }

    /// The next v4 UUID. Must be called with the interpreter lock held.
    #[inline]
    pub fn next() -> Uuid {
        let mut i = CURRENT.next.load(Ordering::Relaxed);
        // SAFETY: the interpreter lock is held (the caller's contract) and
        // nothing in here releases it or runs Python code.
        let uuids = unsafe { &mut *CURRENT.uuids.get() };
        if i >= BATCH {
            Uuid::fill_v4(uuids);
            i = 0;
        }
        CURRENT.next.store(i + 1, Ordering::Relaxed);
        uuids[i]
    }
}

/// Without the interpreter lock: one UUID at a time.
#[cfg(Py_GIL_DISABLED)]
mod v4 {
    pub fn init() {}

    pub fn next() -> uuidkit::Uuid {
        uuidkit::Uuid::new_v4()
    }
}

/// Adds `uuid4` and `uuid7` to `module`.
pub fn add(module: &Bound<'_, PyModule>) -> PyResult<()> {
    v4::init();
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
