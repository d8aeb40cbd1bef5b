//! `uuid4()`'s UUIDs, made [`v4::BATCH`] at a time: the cache behind the
//! fast-call entry point (`ffi/fastcall.rs`).

/// The cache.
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

/// Registers the fork handler of the cache, once per process; before the
/// first UUID.
pub fn init() {
    v4::init();
}

/// The next v4 UUID of the cache. Must be called with the interpreter lock
/// held (a C function CPython calls has it).
#[inline]
pub fn next_v4() -> uuidkit::Uuid {
    v4::next()
}
