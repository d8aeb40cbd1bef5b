//! New UUIDs: v7 (the default key), v4, v7 at a given time, v6, and the
//! name-based v5, v3 and SHA-256 v8.
//!
//! `v7()` is RFC 9562 §6.2 Method 1: 48-bit Unix milliseconds, a 16-bit
//! counter seeded with 15 random bits at each new millisecond (its top bit a
//! rollover guard; an overflow advances the timestamp), then 58 random bits.
//! Its state is one 64-bit word updated by one atomic read-modify-write per
//! UUID, with no lock ([`SharedV7`](crate::lib::SharedV7)):
//!
//! - with the library in `shared_preload_libraries`, the word is in the
//!   cluster's shared memory: every `v7()` of every session is greater than
//!   every `v7()` that returned before it began;
//! - otherwise each backend has its own word: a session's values increase,
//!   and values of different sessions are ordered only by their millisecond.
//!
//! `v7_scope()` says which applies. Time-based generation is `PARALLEL
//! RESTRICTED` (run by the session's own backend), so that a session's
//! values stay in one backend's order in the per-backend mode too.

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};

use pgrx::prelude::*;
use pgrx::shmem::AssertPGRXSharedMemory;
use pgrx::{PgAtomic, pg_shmem_init};

use crate::error::{bad_value, time_out_of_range};
use crate::lib::{
    GenError, Generator, ManualClock, NameHash, SharedV7, SystemClock, ThreadRng, Uuid,
    V6Generator, V7Generator, namespace,
};
use crate::time::v7_millis;
use crate::to_pg;

/// The cluster-wide v7 state, in shared memory when the library is preloaded.
static CLUSTER_V7: PgAtomic<AssertPGRXSharedMemory<SharedV7>> =
    // SAFETY: the name is this extension's own.
    unsafe { PgAtomic::new(c"uuidkit v7 state") };

/// Whether [`CLUSTER_V7`] was set up (set in the postmaster before any
/// backend is forked, so every backend inherits it).
static IN_SHARED_MEMORY: AtomicBool = AtomicBool::new(false);

/// Sets up the shared-memory state if the library is being preloaded.
pub(crate) fn init() {
    // SAFETY: a flag PostgreSQL sets while it loads shared_preload_libraries.
    if unsafe { pg_sys::process_shared_preload_libraries_in_progress } {
        // SAFETY: zero state is a valid `SharedV7`; it is only ever touched
        // through its atomic word.
        pg_shmem_init!(CLUSTER_V7 = unsafe { AssertPGRXSharedMemory::new(SharedV7::new()) });
        IN_SHARED_MEMORY.store(true, Ordering::Relaxed);
    }
}

/// A v7 UUID for now (RFC 9562 §5.7, §6.2 Method 1): cluster-wide monotonic
/// with `shared_preload_libraries`, else per backend (see the module docs).
#[pg_extern(volatile, parallel_restricted)]
pub(crate) fn v7() -> pgrx::Uuid {
    let id = if IN_SHARED_MEMORY.load(Ordering::Relaxed) {
        CLUSTER_V7.get().now_v7()
    } else {
        Uuid::now_v7()
    };
    to_pg(id)
}

/// `'cluster'` when `v7()` is ordered across all sessions (the library is in
/// `shared_preload_libraries`), `'backend'` when only within each session.
#[pg_extern(stable, parallel_safe)]
fn v7_scope() -> &'static str {
    if IN_SHARED_MEMORY.load(Ordering::Relaxed) {
        "cluster"
    } else {
        "backend"
    }
}

/// A v4 UUID: 122 bits from the backend's fork-safe CSPRNG.
#[pg_extern(volatile, parallel_safe)]
fn v4() -> pgrx::Uuid {
    to_pg(Uuid::new_v4())
}

/// A v7 UUID whose timestamp is `at`'s millisecond (rounded down), with a
/// random counter seed and random bits: for backfilling keys of past rows.
#[pg_extern(name = "v7", volatile, strict, parallel_safe)]
fn v7_at(at: TimestampWithTimeZone) -> pgrx::Uuid {
    let ms = v7_millis(at, false);
    // The fields after the timestamp from a fresh generator (a random
    // counter seed, random bits), laid out at `ms`: a generator's clock
    // counts nanoseconds in a `u64`, which ends in 2554, and v7's
    // milliseconds run to 10889.
    let fresh = V7Generator::new(ManualClock::new(0), ThreadRng)
        .generate()
        .unwrap_or_else(|e: GenError| time_out_of_range(e.to_string()));
    match (fresh.rand_a(), fresh.rand_b()) {
        (Some(a), Some(b)) => to_pg(Uuid::new_v7_from_parts(ms, a, b)),
        _ => unreachable!("a v7 generator makes v7 UUIDs"),
    }
}

thread_local! {
    /// This backend's v6 generator (PostgreSQL runs one thread per backend), on
    /// the precise clock: each UUID carries the 100-ns tick it was made in.
    static V6: RefCell<V6Generator<SystemClock, ThreadRng>> =
        RefCell::new(V6Generator::system());
}

/// A v6 UUID (RFC 9562 §5.6) from this backend's generator: a fresh random
/// clock sequence and multicast node per UUID, timestamps increasing within
/// the session.
#[pg_extern(volatile, parallel_restricted)]
fn v6() -> pgrx::Uuid {
    // With the default settings the only error is a clock past 5236.
    let id = V6.with(|g| g.borrow_mut().generate());
    to_pg(id.unwrap_or_else(|e: GenError| time_out_of_range(e.to_string())))
}

/// The v5 UUID (SHA-1, RFC 9562 §5.5) of `name`'s UTF-8 bytes in `namespace`.
#[pg_extern(immutable, strict, parallel_safe)]
fn v5(namespace: pgrx::Uuid, name: &str) -> pgrx::Uuid {
    to_pg(Uuid::new_v5(&crate::from_pg(namespace), name.as_bytes()))
}

/// The v3 UUID (MD5, RFC 9562 §5.3) of `name`'s UTF-8 bytes in `namespace`.
#[pg_extern(immutable, strict, parallel_safe)]
fn v3(namespace: pgrx::Uuid, name: &str) -> pgrx::Uuid {
    to_pg(Uuid::new_v3(&crate::from_pg(namespace), name.as_bytes()))
}

/// The SHA-256 v8 UUID (RFC 9562 Appendix B.2) of `name` in `namespace`.
#[pg_extern(immutable, strict, parallel_safe)]
fn v8_sha256(namespace: pgrx::Uuid, name: &str) -> pgrx::Uuid {
    let ns = crate::from_pg(namespace);
    to_pg(Uuid::new_v8_name(NameHash::Sha256, &ns, name.as_bytes()))
}

/// The RFC 9562 namespace named `dns`, `url`, `oid` or `x500` (any case).
#[pg_extern(immutable, strict, parallel_safe)]
fn namespace(name: &str) -> pgrx::Uuid {
    let id = match name.to_ascii_lowercase().as_str() {
        "dns" => namespace::DNS,
        "url" => namespace::URL,
        "oid" => namespace::OID,
        "x500" => namespace::X500,
        _ => bad_value(format!(
            "unknown namespace {name:?}: expected dns, url, oid or x500"
        )),
    };
    to_pg(id)
}
