//! Every use of CPython's C API below PyO3's safe layer, and every
//! assumption about how CPython lays out its objects, in one place.
//!
//! The rest of the crate calls these through safe functions; what each one
//! assumes is listed here, with what checks it and the versions it was
//! checked on (the pytest suite, run on each).
//!
//! | what | assumes | checked |
//! |---|---|---|
//! | [`fastcall`]: `uuid4`, `uuid7` | the `METH_FASTCALL` convention (`(module, args, nargs)`, stable ABI since 3.10); CPython calls a C function only with the thread attached; a `PyMethodDef` outlives the function object made from it | — (API contract) |
//! | [`instance`]: a `uuid.UUID` made directly | the setter of `member_descriptor` is its type's `tp_descr_set` (read with `PyType_GetSlot`, allowed for static types since 3.10); `uuid.UUID`'s `int` and `is_safe` are `__slots__` members | at import: both descriptors of one type with a setter, else import fails |
//! | [`instance`]: the fast allocation (not under the stable ABI) | `PyMemberDescrObject` with `d_member->offset` and `type_code == Py_T_OBJECT_EX` (16); a fixed-size GC type without a dictionary (`tp_itemsize`, `tp_dictoffset` 0; no `Py_TPFLAGS_MANAGED_DICT` / `INLINE_VALUES`); `tp_basicsize` a whole number of words; on 3.12 and 3.13 the weak-reference list (`Py_TPFLAGS_MANAGED_WEAKREF`) is in words before the GC header that `PyObject_GC_New` zeroes | at import, each read from the class and checked, else the setter path is used; the managed weak-reference list is assumed zeroed on 3.12 and 3.13 only |
//! | [`long`]: `int` digit by digit (3.11 to 3.13, not the stable ABI, not free-threaded) | `PyLongObject` is a `PyVarObject` header (3.11 `ob_size`, 3.12 and 3.13 `lv_tag`, both set by `_PyLong_New`) then 30-bit digits in `u32`s, least significant first, the top one non-zero | `build.rs` enables it for those versions only; at import `sys.int_info` must be `(30, 4)`, else PyO3's conversion is used |
//! | [`list`]: a list filled in place | `PyList_New(n)` makes `n` empty (NULL) items; `PyList_SET_ITEM` into an empty item takes the reference; filled right away, with nothing between that can release the interpreter, allocate or collect, so no other code sees an empty item | `test_a_batch_list_is_never_seen_half_filled` |
//! | `fast.rs`: `uuid4`'s cache, a plain `static` | every call of `uuid4` holds the interpreter lock (a C function CPython calls does) and one interpreter per process uses the module (PyO3 refuses a second); a free-threaded build (`Py_GIL_DISABLED`) has no such lock | at build: the free-threaded build makes each UUID on its own; PyO3 at import |
//! | [`list`]: the collector paused | `PyGC_Disable` / `PyGC_Enable` (3.10) return and restore the previous state; the state is restored before each release of the interpreter | `test_batch_restores_the_garbage_collector_state`, `test_other_threads_never_see_the_collector_paused_by_a_batch` |
//!
//! Versions checked: CPython 3.11.2 (Debian's, which CI uses; the
//! version-specific wheel), and 3.11.7, 3.12.1 and 3.13.0, each with the
//! version-specific wheel and with `abi3`.

pub mod fastcall;
pub mod instance;
pub mod list;
pub mod long;
