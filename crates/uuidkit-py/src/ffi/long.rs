//! Python `int`s of 128-bit values, as fast as this build allows.
//!
//! PyO3 converts a `u128` through `_PyLong_FromByteArray` (3.11, 3.12) or
//! `PyLong_FromNativeBytes` (3.13, which calls the same code): a loop over
//! the 16 bytes that was the largest single cost of a new UUID. Where the
//! layout of `int` is known (CPython 3.11 to 3.13, not the stable ABI, with
//! the interpreter lock) and the interpreter uses 30-bit digits in 32-bit
//! words (the default on 64-bit platforms; CPython can be built with 15-bit
//! ones, checked at import), the `int` is allocated by `_PyLong_New` and its
//! digits are written directly: the same object, normalised as CPython
//! requires, in a fraction of the instructions.

use pyo3::ffi;
use pyo3::prelude::*;

/// How `int`s are made in this interpreter.
#[derive(Clone, Copy)]
pub struct Ints {
    /// Digit by digit (see the module documentation), else by PyO3.
    digits: bool,
}

impl Ints {
    /// Chooses the way for this interpreter.
    pub fn new(py: Python<'_>) -> Ints {
        Ints {
            digits: digits::usable(py),
        }
    }

    /// A new `int` of `value` (a new reference, or NULL with an exception
    /// set).
    #[inline]
    pub fn new_raw(self, py: Python<'_>, value: u128) -> *mut ffi::PyObject {
        if self.digits {
            return digits::new_raw(value);
        }
        // PyO3's conversion of a `u128` cannot fail (its error type is
        // `Infallible`).
        let Ok(int) = value.into_pyobject(py);
        int.into_ptr()
    }
}

/// The digit-by-digit `int`, where this build knows the layout (`build.rs`).
#[cfg(int_digits)]
mod digits {
    use pyo3::ffi;
    use pyo3::prelude::*;

    unsafe extern "C" {
        /// CPython's allocator of an `int` with room for `size` digits
        /// (private, exported by 3.11 to 3.13): a new reference to a
        /// positive `int` whose size (3.11 `ob_size`, 3.12 and 3.13 the
        /// digit count in `lv_tag`) says `size` and whose digits are not
        /// initialised, or NULL with `MemoryError` set. Needs the thread
        /// attached; called here with 2 to 5 only.
        fn _PyLong_New(size: ffi::Py_ssize_t) -> *mut ffi::PyObject;
    }

    /// `PyLongObject` of 3.11 to 3.13: the object header and one word (3.11
    /// `ob_size`, 3.12 and 3.13 `lv_tag`, which `_PyLong_New` sets), then
    /// the 30-bit digits, least significant first, the top one non-zero.
    #[repr(C)]
    struct Long {
        head: ffi::PyVarObject,
        digits: [u32; 5],
    }

    /// Whether the interpreter's digits are what [`Long`] says.
    pub fn usable(py: Python<'_>) -> bool {
        let info = || -> PyResult<(u32, u32)> {
            let info = py.import("sys")?.getattr("int_info")?;
            Ok((
                info.getattr("bits_per_digit")?.extract()?,
                info.getattr("sizeof_digit")?.extract()?,
            ))
        };
        info().is_ok_and(|i| i == (30, 4))
    }

    /// A new `int` of `value`.
    #[inline]
    pub fn new_raw(value: u128) -> *mut ffi::PyObject {
        const MASK: u64 = (1 << 30) - 1;
        // The five digits from the two halves, by constant shifts.
        let (lo, hi) = (value as u64, (value >> 64) as u64);
        let d = [
            (lo & MASK) as u32,
            (lo >> 30 & MASK) as u32,
            ((lo >> 60 | hi << 4) & MASK) as u32,
            (hi >> 26 & MASK) as u32,
            (hi >> 56) as u32,
        ];
        // How many are significant: a random 128-bit value has all five.
        let n = match d {
            [.., 0, 0, 0, 0] => return small(value),
            [.., 0, 0, 0] => 2,
            [.., 0, 0] => 3,
            [.., 0] => 4,
            _ => 5,
        };
        // SAFETY: `_PyLong_New(n)` returns a positive `int` with room for `n`
        // digits (or NULL with an exception set); `2 <= n <= 5`, only digits
        // below `n` are written, and the top one is non-zero, so the value
        // is normalised as CPython requires.
        unsafe {
            let raw = _PyLong_New(n);
            if !raw.is_null() {
                let out = (&raw mut (*raw.cast::<Long>()).digits).cast::<u32>();
                out.write(d[0]);
                out.add(1).write(d[1]);
                if n > 2 {
                    out.add(2).write(d[2]);
                }
                if n > 3 {
                    out.add(3).write(d[3]);
                }
                if n > 4 {
                    out.add(4).write(d[4]);
                }
            }
            raw
        }
    }

    /// A value below 2**30 the ordinary way: small values are shared
    /// objects, and 0 has no digits.
    #[cold]
    fn small(value: u128) -> *mut ffi::PyObject {
        // SAFETY: returns a new reference (or NULL with an exception set).
        unsafe { ffi::PyLong_FromUnsignedLongLong(value as u64) }
    }
}

/// Without a known layout: never used.
#[cfg(not(int_digits))]
mod digits {
    use pyo3::ffi;
    use pyo3::prelude::*;

    pub fn usable(_: Python<'_>) -> bool {
        false
    }

    pub fn new_raw(_: u128) -> *mut ffi::PyObject {
        unreachable!("`usable` is false in this build")
    }
}
