//! Generator state in stable storage (RFC 9562 §6.3) for the generators of
//! [`uuidkit`]: v1, v6, v7 UUIDs and Snowflake IDs that stay unique and
//! ordered across processes and restarts.
//!
//! A crate of its own, beside `uuidkit`, because it talks to things outside
//! the process (a file, its lock, the clock's sleeps) and `uuidkit`'s core
//! does not: a program that keeps no state builds none of it. It reaches the
//! generators only through their public [`Reserve`](uuidkit::generator::Reserve)
//! seam, and learns of a `fork()` from [`uuidkit::sync::forked_since`].
//!
//! # How it works
//!
//! A [`StateStore`] holds, per time-based version, a *high-water mark*: every
//! timestamp ever issued under the store is below it. A generator bound to a
//! store (the builder's `store` with a lease from [`Reserver::lease_v1`],
//! [`lease_v6`](Reserver::lease_v6) or [`lease_v7`](Reserver::lease_v7): the
//! generators' one [`Reserve`](uuidkit::generator::Reserve) seam) *reserves a block*: it
//! locks the store, reads the marks, claims the range from `max(now, mark)` to
//! a short time ([`BlockPolicy::block`]) later, writes the new mark, unlocks,
//! and then generates from memory until the block is used up. So the file is
//! touched about once per block, and:
//!
//! * processes sharing a store never share a timestamp (their blocks are
//!   disjoint), even with the same node ID;
//! * a crash (even `kill -9`) cannot cause reuse: after a restart, generation
//!   continues above the stored mark; for v1/v6, if the clock is now behind the
//!   mark by more than [`BlockPolicy::behind_tolerance`], the clock sequence is
//!   incremented instead (RFC 9562 §6.1); v7 always continues above the mark.
//! * v1/v6 sequences belong to their node: a generator on another node (a
//!   new node lease, [`NodeSource`](uuidkit::node::NodeSource)) starts a new clock
//!   sequence, and never continues another node's. The file keeps the marks
//!   of the last [`EARLIER_NODES`] nodes it replaced, so a node that comes
//!   back continues its own sequence.
//!
//! Defaults ([`BlockPolicy`]): 100 ms blocks, 1 s tolerance. One reservation
//! (lock, read, check, write, `fsync`, rename, `fsync` the directory) costs a
//! few milliseconds, so the file cost per UUID all but vanishes.
//!
//! # Which timestamps, and waiting
//!
//! Blocks are disjoint, so with `n` busy processes each one owns about one
//! block in `n`. A v7 generator whose block starts ahead of the clock simply
//! uses the block's timestamps (v7 may run ahead, RFC 9562 §6.2). A v1/v6
//! generator never runs ahead of its clock, so it *waits* for the clock to
//! reach the start of its block (at most about `(n - 1) × block`, or the
//! tolerance). When a generator is dropped it gives back the unused tail of its
//! block (if nobody reserved after it), so short-lived processes neither wait
//! nor push the mark ahead. A forked child never continues its parent's block:
//! it reserves its own.
//!
//! # Safety status
//!
//! Like libuuid's `uuid_generate_time_safe`, every reservation returns a
//! [`Status`]: safe when the state was read and written back; otherwise it says
//! why. Bad state is never fatal: a missing, empty, truncated, garbage,
//! checksum-failing or unreadable file counts as "no state" (fresh random clock
//! sequence, start at the clock) and a good file is written back; a location
//! that cannot be locked or written falls back to state in this process.
//!
//! # Process-wide generators
//!
//! [`stored_v1`], [`stored_v6`] and [`stored_v7`] use process-wide generators bound to
//! the store set by [`configure`] (by default the file at
//! [`FileStore::default_path`]), and return the status with each UUID. Call
//! [`release`] before exiting to give back the unused tails of their blocks.
//! Only these functions, and generators given a lease, touch stable storage:
//! [`Uuid::now_v7`](uuidkit::Uuid::now_v7), [`Uuid::fill_v7`](uuidkit::Uuid::fill_v7)
//! and [`Uuid::new_v4`](uuidkit::Uuid::new_v4) stay in memory whatever the
//! environment says, and `UUIDKIT_STATE` only chooses the default path.
//!
//! # The file
//!
//! [`FileStore`] keeps the state in a small text file (the [`format`](mod@format)
//! module defines it, and [`StateRecord`] holds it), by default at `$XDG_STATE_HOME/uuidkit/state` (root:
//! `/var/lib/uuidkit/state`), overridable by `UUIDKIT_STATE` or the API.
//!
//! ```text
//! uuidkit-state 1
//! # RFC 9562 section 6.3 generator state, shared by every uuidkit process that uses this file.
//! # Every UUID issued under it is below the high-water mark (hwm) of its version.
//! # The last line checksums all lines above it; a file that fails the check is ignored.
//! v1.hwm 138648505420000000
//! # v1.hwm = 2022-02-22T19:22:22.0000000Z
//! v1.clock_seq 13256
//! v1.node 9f6bdeced846
//! v7.hwm_ms 1645557742000
//! # v7.hwm_ms = 2022-02-22T19:22:22.000Z
//! sha256 06bce941ad7d1eca
//! ```
//!
//! ```
//! use uuidkit_state::{BlockPolicy, FileStore, Reserver};
//! let dir = std::env::temp_dir().join(format!("uuidkit-mod-doc-{}", std::process::id()));
//! # std::fs::create_dir_all(&dir).unwrap();
//! let reserver = Reserver::new(FileStore::new(dir.join("state")), BlockPolicy::default());
//! let (block, status) = reserver.reserve_v7(1_645_557_742_000);
//! assert_eq!(block.start_ms, 1_645_557_742_000);
//! assert!(!status.is_safe()); // first use: there was no state
//! let (next, status) = reserver.reserve_v7(1_645_557_742_000);
//! assert_eq!(next.start_ms, block.end_ms); // blocks never overlap
//! assert!(status.is_safe());
//! # std::fs::remove_dir_all(&dir).unwrap();
//! ```

mod error;
mod file;
pub mod format;
mod global;
mod lease;
mod lock;
mod path;
mod reserve;
mod snowflake;
mod snowflake_format;
mod status;

use core::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use uuidkit::sync::ForkSafeMutex;

pub use error::{StateError, StateErrorKind};
pub use file::{ENV_VAR, FileStore, MAX_LOCK_TIMEOUT};
use format::{EARLIER_NODES, GregorianMark, StateRecord};
pub use global::{StateConfig, configure, release, stored_v1, stored_v6, stored_v7};
pub use lease::{GregorianLease, V7Lease};
pub use reserve::{BlockOrigin, BlockPolicy, Fresh, GregorianBlock, V7Block};
pub use snowflake::{SnowflakeBlock, SnowflakeLease};
pub use status::Status;

/// Stable storage for generator state (RFC 9562 §6.3).
///
/// Implementations run each transaction under an exclusive lock shared by every
/// generator (in every process) that uses the same storage.
///
/// ```
/// use uuidkit_state::{MemoryStore, StateStore, format::{StateRecord, V7Mark}};
/// let store = MemoryStore::new();
/// store.transact(&mut |_| StateRecord { v7: Some(V7Mark { hwm_ms: 9 }), ..Default::default() });
/// let mut seen = None;
/// store.transact(&mut |old: Option<&StateRecord>| { seen = old.copied(); *old.unwrap() });
/// assert_eq!(seen.unwrap().v7, Some(V7Mark { hwm_ms: 9 }));
/// ```
pub trait StateStore: Send + Sync + fmt::Debug {
    /// Runs one transaction: under the lock, reads the stored record (`None`
    /// when there is no usable state), calls `update` exactly once with it, and
    /// stores the record `update` returns. Never fails: problems are reported
    /// in the returned [`Status`].
    fn transact(&self, update: &mut dyn FnMut(Option<&StateRecord>) -> StateRecord) -> Status;

    /// As [`transact`](Self::transact), for a [strict](Reserver::strict)
    /// reserver: stored state that exists but cannot be read (truncated,
    /// garbage, a checksum that fails) is left exactly as it is instead of
    /// being replaced, and reported as a write error of kind
    /// [`StateErrorKind::Damaged`], so the reserver refuses. The marks it held
    /// are unknown, so no reservation could be shown to lie above them; the
    /// file stays for the operator to inspect, restore or remove. The default
    /// is `transact`, for stores whose state cannot be damaged.
    ///
    /// ```
    /// use uuidkit_state::{FileStore, StateErrorKind, StateStore, format::StateRecord};
    /// let path = std::env::temp_dir().join(format!("uuidkit-doc-strict-{}", std::process::id()));
    /// std::fs::write(&path, b"uuidkit-state 1\nv7.hwm_ms 17")?; // cut short
    /// let status = FileStore::new(&path).transact_strict(&mut |_| StateRecord::default());
    /// assert_eq!(status.write_error().map(|e| e.kind()), Some(StateErrorKind::Damaged));
    /// assert_eq!(std::fs::read(&path)?, b"uuidkit-state 1\nv7.hwm_ms 17");
    /// # std::fs::remove_file(&path)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    fn transact_strict(
        &self,
        update: &mut dyn FnMut(Option<&StateRecord>) -> StateRecord,
    ) -> Status {
        self.transact(update)
    }
}

/// A [`StateStore`] in this process's memory: for tests, and for generators that
/// share state between threads but need no persistence. It starts with no
/// state (the first transaction reports [`StateErrorKind::Missing`]).
///
/// ```
/// use uuidkit_state::{MemoryStore, StateStore, format::{StateRecord, V7Mark}};
/// let rec = StateRecord { v7: Some(V7Mark { hwm_ms: 5 }), ..Default::default() };
/// let store = MemoryStore::with_record(rec);
/// assert!(store.transact(&mut |old| *old.unwrap()).is_safe());
/// assert_eq!(store.record(), Some(rec));
/// ```
#[derive(Debug, Default)]
pub struct MemoryStore {
    record: ForkSafeMutex<Option<StateRecord>>,
}

impl MemoryStore {
    /// An empty store.
    ///
    /// ```
    /// assert_eq!(uuidkit_state::MemoryStore::new().record(), None);
    /// ```
    #[must_use]
    pub fn new() -> MemoryStore {
        MemoryStore::default()
    }

    /// A store holding `record`.
    ///
    /// ```
    /// let s = uuidkit_state::MemoryStore::with_record(Default::default());
    /// assert!(s.record().is_some());
    /// ```
    #[must_use]
    pub fn with_record(record: StateRecord) -> MemoryStore {
        MemoryStore {
            record: ForkSafeMutex::new(Some(record)),
        }
    }

    /// The stored record.
    ///
    /// ```
    /// assert_eq!(uuidkit_state::MemoryStore::new().record(), None);
    /// ```
    pub fn record(&self) -> Option<StateRecord> {
        *self.record.lock()
    }
}

impl StateStore for MemoryStore {
    fn transact(&self, update: &mut dyn FnMut(Option<&StateRecord>) -> StateRecord) -> Status {
        let mut rec = self.record.lock();
        let read = match &*rec {
            Some(_) => None,
            None => Some(StateError::new(
                StateErrorKind::Missing,
                None,
                std::string::String::from("empty memory store"),
            )),
        };
        *rec = Some(update(rec.as_ref()));
        Status::new(read, None)
    }
}

/// A [`StateStore`] and a [`BlockPolicy`]: reserves blocks and releases their
/// unused tails. Cheap to clone (the store is shared).
///
/// ```
/// use uuidkit_state::{BlockPolicy, Fresh, MemoryStore, Reserver};
/// let r = Reserver::new(MemoryStore::new(), BlockPolicy::default());
/// let fresh = Fresh { clock_seq: 1, node: [0; 6] };
/// let (a, _) = r.reserve_v1(1_000, None, fresh);
/// let (b, status) = r.reserve_v1(1_000, None, fresh);
/// assert!(status.is_safe());
/// assert_eq!((b.start, b.clock_seq, b.node), (a.end, a.clock_seq, a.node));
/// ```
#[derive(Clone, Debug)]
pub struct Reserver {
    store: Arc<dyn StateStore>,
    policy: BlockPolicy,
    last_status: Arc<ForkSafeMutex<Option<Status>>>,
    /// The `by` of the first [`BlockOrigin::ClockBehind`] reservation (0: none).
    behind: Arc<AtomicU64>,
    /// State unavailable is an error, not a fallback.
    strict: bool,
}

/// Which v1/v6 record of a [`StateRecord`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Gregorian {
    V1,
    V6,
}

impl Gregorian {
    fn name(self) -> &'static str {
        match self {
            Gregorian::V1 => "v1",
            Gregorian::V6 => "v6",
        }
    }

    /// The version's current mark and the marks of its earlier nodes.
    fn slots(
        self,
        rec: &mut StateRecord,
    ) -> (
        &mut Option<GregorianMark>,
        &mut [Option<GregorianMark>; EARLIER_NODES],
    ) {
        match self {
            Gregorian::V1 => (&mut rec.v1, &mut rec.v1_earlier),
            Gregorian::V6 => (&mut rec.v6, &mut rec.v6_earlier),
        }
    }
}

/// Makes `node` the current node of a version whose current mark is
/// `current`: if another node is current, it moves to the front of
/// `earlier` (the oldest there falls out), and `node`'s own earlier mark, if
/// any, leaves `earlier` to become current, so its sequence continues
/// rather than starting again. Returns the mark to reserve from.
fn recall(
    current: &mut Option<GregorianMark>,
    earlier: &mut [Option<GregorianMark>; EARLIER_NODES],
    node: [u8; 6],
) -> Option<GregorianMark> {
    if current.is_some_and(|m| m.node == node) {
        return *current;
    }
    let found = earlier
        .iter()
        .position(|m| m.is_some_and(|m| m.node == node));
    let recalled = found.and_then(|i| earlier[i].take());
    let old = *current;
    match (old, found) {
        (Some(old), _) => {
            // The slot that frees up: the recalled node's, else the oldest.
            earlier[..=found.unwrap_or(EARLIER_NODES - 1)].rotate_right(1);
            earlier[0] = Some(old);
        }
        (None, Some(i)) => earlier[i..].rotate_left(1),
        (None, None) => {}
    }
    *current = recalled;
    recalled.or(old)
}

impl Reserver {
    /// Reserves from `store` with `policy`.
    ///
    /// ```
    /// use uuidkit_state::{BlockPolicy, MemoryStore, Reserver};
    /// let r = Reserver::new(MemoryStore::new(), BlockPolicy::default());
    /// assert_eq!(r.policy(), BlockPolicy::default());
    /// ```
    pub fn new(store: impl StateStore + 'static, policy: BlockPolicy) -> Reserver {
        Reserver::shared(Arc::new(store), policy)
    }

    /// Reserves from a shared store (so that several generators in this process
    /// share one lock and one in-process fallback).
    ///
    /// ```
    /// use std::sync::Arc;
    /// use uuidkit_state::{BlockPolicy, MemoryStore, Reserver, StateStore};
    /// let store: Arc<dyn StateStore> = Arc::new(MemoryStore::new());
    /// let a = Reserver::shared(store.clone(), BlockPolicy::default());
    /// let b = Reserver::shared(store, BlockPolicy::default());
    /// let (x, _) = a.reserve_v7(100);
    /// let (y, _) = b.reserve_v7(100);
    /// assert_eq!(y.start_ms, x.end_ms);
    /// ```
    /// The policy is clamped to [`BlockPolicy::MAX_BLOCK`] and
    /// [`BlockPolicy::MAX_BEHIND_TOLERANCE`].
    pub fn shared(store: Arc<dyn StateStore>, policy: BlockPolicy) -> Reserver {
        Reserver {
            store,
            policy: policy.clamped(),
            last_status: Arc::default(),
            behind: Arc::default(),
            strict: false,
        }
    }

    /// Strict mode: when a reservation cannot be persisted (the lock was not
    /// taken within the store's timeout, the file cannot be written, no
    /// location is known), the generator returns an error of kind
    /// [`GenErrorKind::Store`](uuidkit::generator::GenErrorKind::Store) and issues nothing,
    /// instead of falling back to state in this process
    /// ([`BlockOrigin::Fallback`]). For callers that need the cross-process
    /// guarantee or nothing; the lease's status says what went wrong.
    ///
    /// ```
    /// use uuidkit::{clock::SystemClock, generator::GenErrorKind, rng::ThreadRng};
    /// use uuidkit::{Generator, V7Generator};
    /// use uuidkit_state::{BlockPolicy, FileStore, Reserver};
    /// let r = Reserver::new(FileStore::new("/nonexistent-dir/state"), BlockPolicy::default()).strict(true);
    /// let mut g = V7Generator::builder().store(r.lease_v7()).build(SystemClock, ThreadRng)?;
    /// let err = g.generate().unwrap_err();
    /// assert_eq!(err.kind(), GenErrorKind::Store);
    /// assert!(err.to_string().contains("no state directory"), "{err}");
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    #[must_use]
    pub fn strict(mut self, strict: bool) -> Reserver {
        self.strict = strict;
        self
    }

    /// Whether the reserver is strict ([`strict`](Self::strict)).
    ///
    /// ```
    /// use uuidkit_state::{BlockPolicy, MemoryStore, Reserver};
    /// assert!(!Reserver::new(MemoryStore::new(), BlockPolicy::default()).is_strict());
    /// ```
    #[must_use]
    pub fn is_strict(&self) -> bool {
        self.strict
    }

    /// One reservation's transaction: a strict reserver leaves damaged state
    /// as it is ([`StateStore::transact_strict`]).
    fn reserve(&self, update: &mut dyn FnMut(Option<&StateRecord>) -> StateRecord) -> Status {
        if self.strict {
            self.store.transact_strict(update)
        } else {
            self.store.transact(update)
        }
    }

    /// The error a strict reserver's lease returns for `status`, if any.
    pub(crate) fn refuse(&self, status: &Status) -> Result<(), uuidkit::GenError> {
        match &status.write {
            Some(e) if self.strict => Err(uuidkit::GenError::store_unavailable(e.kind().class())),
            _ => Ok(()),
        }
    }

    /// A lease for a [`V1Generator`](uuidkit::V1Generator): pass it to the
    /// generator builder's `store`. See [`GregorianLease`].
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, rng::ThreadRng};
    /// use uuidkit::{Generator, V1Generator};
    /// use uuidkit_state::{BlockPolicy, MemoryStore, Reserver};
    /// let r = Reserver::new(MemoryStore::new(), BlockPolicy::default());
    /// let clock = ManualClock::new(1_645_557_742_000_000_000);
    /// let mut g = V1Generator::builder().store(r.lease_v1()).build(&clock, ThreadRng)?;
    /// let u = g.generate()?;
    /// let stored = r.store().transact(&mut |old| *old.unwrap());
    /// assert!(stored.is_safe());
    /// assert_eq!(u.gregorian_timestamp(), Some(0x1EC9414C232AB00));
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    #[must_use]
    pub fn lease_v1(&self) -> GregorianLease {
        GregorianLease::new(self.clone(), Gregorian::V1)
    }

    /// A lease for a [`V6Generator`](uuidkit::V6Generator), on the v6 record.
    /// See [`GregorianLease`].
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, rng::ThreadRng};
    /// use uuidkit::{Generator, V6Generator};
    /// use uuidkit_state::{BlockPolicy, MemoryStore, Reserver};
    /// let r = Reserver::new(MemoryStore::new(), BlockPolicy::default());
    /// let clock = ManualClock::new(1_645_557_742_000_000_000);
    /// let mut g = V6Generator::builder().store(r.lease_v6()).build(&clock, ThreadRng)?;
    /// g.generate()?;
    /// let mut stored = None;
    /// r.store().transact(&mut |old| { stored = old.copied(); *old.unwrap() });
    /// assert!(stored.unwrap().v6.is_some() && stored.unwrap().v1.is_none());
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    #[must_use]
    pub fn lease_v6(&self) -> GregorianLease {
        GregorianLease::new(self.clone(), Gregorian::V6)
    }

    /// A lease for a [`V7Generator`](uuidkit::V7Generator). See [`V7Lease`].
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, rng::ThreadRng};
    /// use uuidkit::{Generator, V7Generator};
    /// use uuidkit_state::{BlockPolicy, MemoryStore, Reserver};
    /// let r = Reserver::new(MemoryStore::new(), BlockPolicy::default());
    /// let clock = ManualClock::new(1_645_557_742_000_000_000);
    /// let mut g = V7Generator::builder().store(r.lease_v7()).build(&clock, ThreadRng)?;
    /// g.generate()?;
    /// assert_eq!(g.store().block().map(|b| (b.start_ms, b.end_ms)), Some((1_645_557_742_000, 1_645_557_742_100)));
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    #[must_use]
    pub fn lease_v7(&self) -> V7Lease {
        V7Lease::new(self.clone())
    }

    /// The status of the latest reservation made through this reserver or a
    /// clone of it (its leases included); `None` before the first.
    ///
    /// ```
    /// use uuidkit_state::{BlockPolicy, MemoryStore, Reserver, StateErrorKind};
    /// let r = Reserver::new(MemoryStore::new(), BlockPolicy::default());
    /// assert_eq!(r.last_status(), None);
    /// r.reserve_v7(1_000);
    /// assert_eq!(r.last_status().unwrap().reason().map(|e| e.kind()), Some(StateErrorKind::Missing));
    /// r.clone().reserve_v7(1_000);
    /// assert!(r.last_status().unwrap().is_safe());
    /// ```
    #[must_use]
    pub fn last_status(&self) -> Option<Status> {
        self.last_status.lock().clone()
    }

    /// How far the clock was behind the stored mark at the first reservation
    /// made through this reserver (or a clone) that found it behind by more
    /// than the tolerance, in the version's timestamp unit (100 ns for v1/v6,
    /// 1 ms for v7); `None` if none did. For a one-time warning: generation
    /// itself carries on (v7 above the mark, v1/v6 with a new clock sequence).
    ///
    /// ```
    /// use uuidkit_state::{BlockPolicy, MemoryStore, Reserver, format::{StateRecord, V7Mark}};
    /// let ahead = StateRecord { v7: Some(V7Mark { hwm_ms: 70_000 }), ..Default::default() };
    /// let r = Reserver::new(MemoryStore::with_record(ahead), BlockPolicy::default());
    /// assert_eq!(r.clock_behind(), None);
    /// let (b, _) = r.reserve_v7(10_000);
    /// assert_eq!((b.start_ms, r.clock_behind()), (70_000, Some(60_000)));
    /// ```
    #[must_use]
    pub fn clock_behind(&self) -> Option<u64> {
        Some(self.behind.load(Ordering::Relaxed)).filter(|&by| by != 0)
    }

    fn record(&self, status: &Status, origin: BlockOrigin) {
        *self.last_status.lock() = Some(status.clone());
        if let BlockOrigin::ClockBehind { by } = origin {
            let _ = self
                .behind
                .compare_exchange(0, by, Ordering::Relaxed, Ordering::Relaxed);
        }
    }

    /// The block policy.
    ///
    /// ```
    /// use uuidkit_state::{BlockPolicy, MemoryStore, Reserver};
    /// assert_eq!(Reserver::new(MemoryStore::new(), BlockPolicy::default()).policy().block.as_millis(), 100);
    /// ```
    #[must_use]
    pub fn policy(&self) -> BlockPolicy {
        self.policy
    }

    /// The store.
    ///
    /// ```
    /// use uuidkit_state::{BlockPolicy, MemoryStore, Reserver};
    /// let r = Reserver::new(MemoryStore::new(), BlockPolicy::default());
    /// assert!(format!("{:?}", r.store()).contains("MemoryStore"));
    /// ```
    #[must_use]
    pub fn store(&self) -> &Arc<dyn StateStore> {
        &self.store
    }

    pub(crate) fn reserve_gregorian(
        &self,
        which: Gregorian,
        now: u64,
        node: Option<[u8; 6]>,
        fresh: Fresh,
    ) -> (GregorianBlock, Status) {
        let mut out = None;
        let status = self.reserve(&mut |old| {
            let mut rec = old.copied().unwrap_or_default();
            let (slot, earlier) = which.slots(&mut rec);
            let stored = match node {
                Some(n) => recall(slot, earlier, n),
                None => *slot,
            };
            let b = self
                .policy
                .reserve_gregorian(stored.as_ref(), now, node, fresh);
            *slot = Some(b.stored());
            out = Some(b);
            rec
        });
        // `transact` calls the closure exactly once.
        let mut block =
            out.unwrap_or_else(|| self.policy.reserve_gregorian(None, now, node, fresh));
        if !status.is_persisted() {
            // Others may reserve this range with the stored clock sequence
            // and node: never use them (RFC 9562 §6.3, state unavailable).
            block = GregorianBlock {
                origin: BlockOrigin::Fallback,
                ..self.policy.reserve_gregorian(None, now, node, fresh)
            };
        }
        let status = self.with_ahead(status, block.origin, |by| {
            let tolerance = self.policy.behind_tolerance.as_nanos();
            std::format!(
                "expected the stored {} mark at most {tolerance} ns ahead of the clock, found it \
                 {} ns ahead; the clock sequence changed",
                which.name(),
                u128::from(by) * 100
            )
        });
        self.record(&status, block.origin);
        (block, status)
    }

    /// `status`, noting a block whose origin says the stored mark was ahead
    /// of the clock (by `by`, in the version's unit), in `message(by)`.
    fn with_ahead(
        &self,
        mut status: Status,
        origin: BlockOrigin,
        message: impl FnOnce(u64) -> std::string::String,
    ) -> Status {
        if let BlockOrigin::ClockBehind { by } = origin {
            status.ahead = Some(StateError::new(
                StateErrorKind::AheadOfClock,
                None,
                message(by),
            ));
        }
        status
    }

    /// Reserves a v1 block at `now` (60-bit Gregorian timestamp) through one
    /// store transaction; see [`BlockPolicy::reserve_gregorian`].
    ///
    /// ```
    /// use uuidkit_state::{BlockOrigin, BlockPolicy, Fresh, MemoryStore, Reserver};
    /// let r = Reserver::new(MemoryStore::new(), BlockPolicy::default());
    /// let (b, status) = r.reserve_v1(5, Some([2; 6]), Fresh { clock_seq: 9, node: [0; 6] });
    /// assert_eq!((b.start, b.clock_seq, b.node, b.origin), (5, 9, [2; 6], BlockOrigin::NoState));
    /// assert!(!status.is_safe());
    /// ```
    #[must_use]
    pub fn reserve_v1(
        &self,
        now: u64,
        node: Option<[u8; 6]>,
        fresh: Fresh,
    ) -> (GregorianBlock, Status) {
        self.reserve_gregorian(Gregorian::V1, now, node, fresh)
    }

    /// Reserves a v6 block; as [`reserve_v1`](Self::reserve_v1), with its own record.
    ///
    /// ```
    /// use uuidkit_state::{BlockPolicy, Fresh, MemoryStore, Reserver};
    /// let r = Reserver::new(MemoryStore::new(), BlockPolicy::default());
    /// let fresh = Fresh { clock_seq: 9, node: [0; 6] };
    /// let (v1, _) = r.reserve_v1(5, None, fresh);
    /// let (v6, _) = r.reserve_v6(5, None, fresh);
    /// assert_eq!((v1.start, v6.start), (5, 5), "v1 and v6 UUIDs never collide, so their marks are separate");
    /// ```
    #[must_use]
    pub fn reserve_v6(
        &self,
        now: u64,
        node: Option<[u8; 6]>,
        fresh: Fresh,
    ) -> (GregorianBlock, Status) {
        self.reserve_gregorian(Gregorian::V6, now, node, fresh)
    }

    /// Reserves a v7 block at `now_ms` (Unix milliseconds) through one store
    /// transaction; see [`BlockPolicy::reserve_v7`].
    ///
    /// ```
    /// use uuidkit_state::{BlockPolicy, MemoryStore, Reserver};
    /// let r = Reserver::new(MemoryStore::new(), BlockPolicy::default());
    /// let (b, _) = r.reserve_v7(1_000);
    /// assert_eq!((b.start_ms, b.end_ms), (1_000, 1_100));
    /// ```
    #[must_use]
    pub fn reserve_v7(&self, now_ms: u64) -> (V7Block, Status) {
        let mut out = None;
        let status = self.reserve(&mut |old| {
            let mut rec = old.copied().unwrap_or_default();
            let b = self.policy.reserve_v7(rec.v7.as_ref(), now_ms);
            rec.v7 = Some(b.stored());
            out = Some(b);
            rec
        });
        let mut block = out.unwrap_or_else(|| self.policy.reserve_v7(None, now_ms));
        if !status.is_persisted() && !matches!(block.origin, BlockOrigin::ClockBehind { .. }) {
            block.origin = BlockOrigin::Fallback;
        }
        let status = self.with_ahead(status, block.origin, |by| {
            std::format!(
                "expected the stored v7 mark at most {} ms ahead of the clock, found it {by} ms \
                 ahead; UUIDs are timestamped from {} on",
                self.policy.behind_tolerance.as_millis(),
                format::fmt_ms(block.start_ms)
            )
        });
        self.record(&status, block.origin);
        (block, status)
    }

    pub(crate) fn release_gregorian(
        &self,
        which: Gregorian,
        block: &GregorianBlock,
        next: u64,
    ) -> Status {
        self.store.transact(&mut |old| {
            let mut rec = old.copied().unwrap_or_default();
            let (slot, _) = which.slots(&mut rec);
            if let Some(m) = slot
                && *m == block.stored()
                && next >= block.start
                && next < block.end
            {
                m.hwm = next;
            }
            rec
        })
    }

    /// Gives back the unused tail of a v1 block: if the stored mark is still
    /// this block's end (nobody reserved after it), lowers it to `next` (one past
    /// the last timestamp issued), so that the next process need not start
    /// ahead of the clock. Otherwise changes nothing.
    ///
    /// ```
    /// use uuidkit_state::{BlockPolicy, Fresh, MemoryStore, Reserver};
    /// let r = Reserver::new(MemoryStore::new(), BlockPolicy::default());
    /// let fresh = Fresh { clock_seq: 9, node: [0; 6] };
    /// let (b, _) = r.reserve_v1(1_000, None, fresh);
    /// r.release_v1(&b, 1_001);
    /// assert_eq!(r.reserve_v1(1_000, None, fresh).0.start, 1_001);
    /// ```
    pub fn release_v1(&self, block: &GregorianBlock, next: u64) -> Status {
        self.release_gregorian(Gregorian::V1, block, next)
    }

    /// As [`release_v1`](Self::release_v1), for v6.
    ///
    /// ```
    /// use uuidkit_state::{BlockPolicy, Fresh, MemoryStore, Reserver};
    /// let r = Reserver::new(MemoryStore::new(), BlockPolicy::default());
    /// let fresh = Fresh { clock_seq: 9, node: [0; 6] };
    /// let (b, _) = r.reserve_v6(1_000, None, fresh);
    /// assert!(r.release_v6(&b, 1_500).is_safe());
    /// ```
    pub fn release_v6(&self, block: &GregorianBlock, next: u64) -> Status {
        self.release_gregorian(Gregorian::V6, block, next)
    }

    /// As [`release_v1`](Self::release_v1), for v7: `next_ms` is one past the
    /// last millisecond issued.
    ///
    /// ```
    /// use uuidkit_state::{BlockPolicy, MemoryStore, Reserver};
    /// let r = Reserver::new(MemoryStore::new(), BlockPolicy::default());
    /// let (b, _) = r.reserve_v7(1_000);
    /// r.release_v7(&b, 1_001);
    /// assert_eq!(r.reserve_v7(1_000).0.start_ms, 1_001);
    /// ```
    pub fn release_v7(&self, block: &V7Block, next_ms: u64) -> Status {
        self.store.transact(&mut |old| {
            let mut rec = old.copied().unwrap_or_default();
            if let Some(m) = &mut rec.v7
                && *m == block.stored()
                && next_ms >= block.start_ms
                && next_ms < block.end_ms
            {
                m.hwm_ms = next_ms;
            }
            rec
        })
    }
}

/// The examples of `docs/migrating-to-uuidkit-state.md`, run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/migrating-to-uuidkit-state.md")]
pub struct MigrationDoc;

/// The examples of `docs/snowflake.md`, run as doctests here, where both
/// the generators and the state file they are restarted on are in reach.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/snowflake.md")]
pub struct SnowflakeDoc;
