//! The generators of issue 3 bound to a [`Reserver`]: `with_store` on
//! [`V1Generator`], [`V6Generator`] and [`V7Generator`].
//!
//! The binding uses the generators' [`Reserve`] seam: the generator calls the
//! lease when its timestamp reaches the end of the current block. When the
//! next block continues where the last one ended (the usual case), the lease
//! answers with the new limit and generation goes on. When it does not (first
//! block, another process reserved in between, the clock is behind, a new
//! clock sequence), the lease declines, and the wrapper re-seeds the generator
//! with [`with_state`](V1Generator::with_state) at the block's start and
//! retries: the declined timestamp is never handed out.

use core::cell::{Cell, RefCell};
use core::time::Duration;

use rand_core::Rng;

use super::{Fresh, Gregorian, GregorianBlock, Reserver, Status, V7Block};
use crate::GREGORIAN_TO_UNIX_100NS as GREGORIAN_OFFSET;
use crate::generator::{GenError, GenErrorKind, Reserve};
use crate::v1::V1State;
use crate::{Clock, Uuid, V1Generator, V6Generator, V7Generator, V7State};

/// The code of the [`GenError::store`] a lease returns to ask for a re-seed
/// (never seen by users: the wrappers catch it).
const RESEED: u64 = 0x5EED;

/// A child process must not continue its parent's block.
use crate::fork::generation as fork_generation;

/// Unix nanoseconds → 60-bit Gregorian ticks.
fn ts60(unix_ns: u64) -> u64 {
    unix_ns / 100 + GREGORIAN_OFFSET
}

/// Waits until `clock` reaches `target_ns` (sleeping in short steps while far,
/// relaxing while near, so a [`ManualClock`](crate::ManualClock) that advances
/// on relax makes progress too).
fn wait_until<C: Clock>(clock: &C, target_ns: u64) {
    loop {
        let now = clock.now_ns();
        if now >= target_ns {
            return;
        }
        clock.relax();
        // A real clock hardly moves during `relax`: sleep while far from the
        // target. A manual clock that advanced a millisecond or more: go on.
        let moved = clock.now_ns().saturating_sub(now);
        if target_ns - now > 2_000_000 && moved < 1_000_000 {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}

/// The [`Reserve`] for v1/v6 generators.
#[derive(Debug, Clone)]
pub(crate) struct GregorianLease {
    reserver: Reserver,
    which: Gregorian,
    node: Option<[u8; 6]>,
    current: Cell<Option<GregorianBlock>>,
    pending: Cell<bool>,
    status: RefCell<Option<Status>>,
}

impl GregorianLease {
    fn take_block(&self, now: u64) -> GregorianBlock {
        let mut rng = crate::ThreadRng;
        let r = rng.next_u64();
        let fresh = Fresh {
            clock_seq: r as u16,
            node: (rng.next_u64() >> 16).to_be_bytes()[2..8]
                .try_into()
                .unwrap_or([1; 6]),
        };
        let (b, status) = self
            .reserver
            .reserve_gregorian(self.which, now, self.node, fresh);
        self.current.set(Some(b));
        *self.status.borrow_mut() = Some(status);
        b
    }

    fn fits(b: &GregorianBlock, state: &V1State, needed: u64) -> bool {
        b.start <= needed
            && needed < b.end
            && state.clock_seq == b.clock_seq
            && state.node == b.node
    }
}

impl Reserve<V1State> for GregorianLease {
    fn reserve(&mut self, state: &V1State, needed: u64) -> Result<u64, GenError> {
        if let Some(b) = self.current.get() {
            if Self::fits(&b, state, needed) {
                return Ok(b.end);
            }
        }
        let b = self.take_block(needed);
        if Self::fits(&b, state, needed) {
            return Ok(b.end);
        }
        self.pending.set(true);
        Err(GenError::store(RESEED))
    }
}

/// The [`Reserve`] for v7 generators.
#[derive(Debug, Clone)]
pub(crate) struct V7Lease {
    reserver: Reserver,
    current: Cell<Option<V7Block>>,
    floor_ms: Cell<u64>,
    pending: Cell<bool>,
    status: RefCell<Option<Status>>,
}

impl V7Lease {
    fn take_block(&self, now_ms: u64) -> V7Block {
        let (b, status) = self.reserver.reserve_v7(now_ms);
        self.current.set(Some(b));
        *self.status.borrow_mut() = Some(status);
        b
    }
}

impl Reserve<V7State> for V7Lease {
    fn reserve(&mut self, _state: &V7State, needed: u64) -> Result<u64, GenError> {
        if let Some(b) = self.current.get() {
            if b.start_ms <= needed && needed < b.end_ms {
                return Ok(b.end_ms);
            }
        }
        let b = self.take_block(needed);
        if b.start_ms <= needed && needed < b.end_ms {
            self.floor_ms.set(b.start_ms);
            return Ok(b.end_ms);
        }
        self.pending.set(true);
        Err(GenError::store(RESEED))
    }
}

/// What the v1 and v6 wrappers need from their generator.
trait GregorianGen: Sized {
    type Clk: Clock;
    fn clk(&self) -> &Self::Clk;
    fn next(&mut self) -> Result<Uuid, GenError>;
    fn lease(&self) -> &GregorianLease;
    fn seq(&self) -> u16;
    fn last_ts(&self) -> V1State;
    /// Restore `state` and re-attach the lease (which resets the generator's
    /// cached limit, so the next UUID consults the lease).
    fn reseed(self, state: V1State) -> Self;
}

macro_rules! gregorian_gen {
    ($g:ident) => {
        impl<C: Clock, R: Rng> GregorianGen for $g<C, R, GregorianLease> {
            type Clk = C;
            #[inline]
            fn clk(&self) -> &C {
                self.clock()
            }
            #[inline]
            fn next(&mut self) -> Result<Uuid, GenError> {
                self.generate()
            }
            #[inline]
            fn lease(&self) -> &GregorianLease {
                self.reserve_ref()
            }
            #[inline]
            fn seq(&self) -> u16 {
                self.clock_seq()
            }
            fn last_ts(&self) -> V1State {
                self.state()
            }
            fn reseed(self, state: V1State) -> Self {
                let lease = self.reserve_ref().clone();
                self.with_state(state).with_reserve(lease)
            }
        }
    };
}
gregorian_gen!(V1Generator);
gregorian_gen!(V6Generator);

/// The shared v1/v6 wrapper logic.
#[derive(Debug)]
struct Bound<G> {
    inner_gen: Option<G>,
    seq: u16,
    fork: u64,
}

impl<G: GregorianGen> Bound<G> {
    fn new(inner_gen: G) -> Self {
        Bound {
            seq: inner_gen.seq(),
            inner_gen: Some(inner_gen),
            fork: fork_generation(),
        }
    }

    #[inline]
    fn generate(&mut self) -> Result<Uuid, GenError> {
        loop {
            if crate::fork::current() != self.fork {
                self.fork = fork_generation();
                self.renew();
                continue;
            }
            let Some(g) = self.inner_gen.as_mut() else {
                return Err(GenError::store(RESEED));
            };
            match g.next() {
                // The usual case: the clock sequence is the block's.
                Ok(u) if g.seq() == self.seq => return Ok(u),
                // The generator changed its clock sequence by itself: the clock
                // went back within this process. Drop the UUID; the store decides
                // (continue above the mark, or a new clock sequence).
                Ok(_) => self.renew(),
                Err(e) if e.kind() == GenErrorKind::Store && g.lease().pending.replace(false) => {
                    self.adopt()
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// A new reservation at the clock's time, then adopt it.
    #[cold]
    fn renew(&mut self) {
        if let Some(g) = &self.inner_gen {
            g.lease().take_block(ts60(g.clk().now_ns()));
        }
        self.adopt();
    }

    /// Re-seed the generator at the start of the lease's current block, after
    /// waiting for the clock to reach it (v1/v6 never run ahead of the clock).
    #[cold]
    fn adopt(&mut self) {
        let Some(g) = self.inner_gen.take() else {
            return;
        };
        let Some(b) = g.lease().current.get() else {
            self.inner_gen = Some(g);
            return;
        };
        wait_until(
            g.clk(),
            (b.start.saturating_sub(GREGORIAN_OFFSET + 1)).saturating_mul(100),
        );
        let g = g.reseed(V1State {
            timestamp: b.start.saturating_sub(1),
            clock_seq: b.clock_seq,
            node: b.node,
            valid: b.start > 0,
        });
        self.seq = b.clock_seq;
        self.inner_gen = Some(g);
    }

    fn status(&self) -> Option<Status> {
        self.inner_gen
            .as_ref()
            .and_then(|g| g.lease().status.borrow().clone())
    }

    fn release(&mut self) {
        if let Some(g) = &self.inner_gen {
            let lease = g.lease();
            if let Some(b) = lease.current.get() {
                let next = g.last_ts().timestamp.saturating_add(1).max(b.start);
                lease.reserver.release_gregorian(lease.which, &b, next);
            }
        }
    }
}

macro_rules! stored_gregorian {
    ($(#[$doc:meta])* $name:ident, $g:ident, $which:expr, $ver:literal, $retain:literal) => {
        $(#[$doc])*
        #[derive(Debug)]
        pub struct $name<C: Clock, R: Rng> {
            inner: Bound<$g<C, R, GregorianLease>>,
        }

        impl<C: Clock, R: Rng> $g<C, R> {
            /// Binds the generator to stable storage (RFC 9562 §6.3): timestamps
            /// come from blocks reserved through `reserver`, with the stored
            /// clock sequence and node (the generator's own are replaced). See
            /// the [`state`](crate::state) module.
            ///
            /// ```
            /// use uuidkit::state::{BlockPolicy, MemoryStore, Reserver};
            /// use uuidkit::{SystemClock, ThreadRng};
            #[doc = concat!("let mut g = uuidkit::", stringify!($g), "::new(SystemClock, ThreadRng)", $retain)]
            ///     .with_store(Reserver::new(MemoryStore::new(), BlockPolicy::default()));
            /// let a = g.generate()?;
            /// assert!(!g.status().unwrap().is_safe()); // the store was empty
            /// assert_ne!(a, g.generate()?);
            /// # Ok::<(), uuidkit::GenError>(())
            /// ```
            pub fn with_store(self, reserver: Reserver) -> $name<C, R> {
                self.bind(reserver, None)
            }

            /// As [`with_store`](Self::with_store), but insists on `node`: if the
            /// store holds another node, the clock sequence is drawn afresh.
            ///
            /// ```
            /// use uuidkit::state::{BlockPolicy, MemoryStore, Reserver};
            /// use uuidkit::{SystemClock, ThreadRng};
            /// let node = [0x9F, 0x6B, 0xDE, 0xCE, 0xD8, 0x46];
            #[doc = concat!("let mut g = uuidkit::", stringify!($g), "::new(SystemClock, ThreadRng)", $retain)]
            ///     .with_store_and_node(Reserver::new(MemoryStore::new(), BlockPolicy::default()), node);
            /// assert_eq!(g.generate()?.node(), Some(node));
            /// # Ok::<(), uuidkit::GenError>(())
            /// ```
            pub fn with_store_and_node(self, reserver: Reserver, node: [u8; 6]) -> $name<C, R> {
                self.bind(reserver, Some(node))
            }

            fn bind(self, reserver: Reserver, node: Option<[u8; 6]>) -> $name<C, R> {
                let lease = GregorianLease {
                    reserver,
                    which: $which,
                    node,
                    current: Cell::new(None),
                    pending: Cell::new(false),
                    status: RefCell::new(None),
                };
                $name { inner: Bound::new(self.with_reserve(lease)) }
            }
        }

        impl<C: Clock, R: Rng> $name<C, R> {
            #[doc = concat!("The next v", $ver, " UUID: from the current block, reserving the next one")]
            /// when it is used up (waiting, if another process's reservation
            /// starts ahead of the clock, until the clock reaches it).
            ///
            /// # Errors
            #[doc = concat!("As [`", stringify!($g), "::generate`]; the store itself never fails")]
            /// (problems are reported by [`status`](Self::status)).
            ///
            /// ```
            /// use uuidkit::state::{BlockPolicy, MemoryStore, Reserver};
            /// use uuidkit::{SystemClock, ThreadRng};
            /// let r = Reserver::new(MemoryStore::new(), BlockPolicy::default());
            #[doc = concat!("let mut g = uuidkit::", stringify!($g), "::new(SystemClock, ThreadRng)", $retain, ".with_store(r);")]
            #[doc = concat!("assert_eq!(g.generate()?.version().map(|v| v.number()), Some(", $ver, "));")]
            /// # Ok::<(), uuidkit::GenError>(())
            /// ```
            #[inline]
            pub fn generate(&mut self) -> Result<Uuid, GenError> {
                self.inner.generate()
            }

            /// Fills `out`, as repeated [`generate`](Self::generate) calls.
            ///
            /// # Errors
            /// As [`generate`](Self::generate).
            ///
            /// ```
            /// use uuidkit::state::{BlockPolicy, MemoryStore, Reserver};
            /// use uuidkit::{SystemClock, ThreadRng, Uuid};
            /// let r = Reserver::new(MemoryStore::new(), BlockPolicy::default());
            #[doc = concat!("let mut g = uuidkit::", stringify!($g), "::new(SystemClock, ThreadRng)", $retain, ".with_store(r);")]
            /// let mut out = [Uuid::NIL; 8];
            /// g.fill(&mut out)?;
            /// assert!(out.iter().all(|u| !u.is_nil()));
            /// # Ok::<(), uuidkit::GenError>(())
            /// ```
            pub fn fill(&mut self, out: &mut [Uuid]) -> Result<(), GenError> {
                for slot in out {
                    *slot = self.inner.generate()?;
                }
                Ok(())
            }

            /// The status of the reservation the last UUID's block came from
            /// (`None` before the first UUID): safe, or why not.
            ///
            /// ```
            /// use uuidkit::state::{BlockPolicy, MemoryStore, Reserver};
            /// use uuidkit::{SystemClock, ThreadRng};
            /// let r = Reserver::new(MemoryStore::new(), BlockPolicy::default());
            #[doc = concat!("let mut g = uuidkit::", stringify!($g), "::new(SystemClock, ThreadRng)", $retain, ".with_store(r);")]
            /// assert!(g.status().is_none());
            /// g.generate()?;
            /// assert!(g.status().is_some());
            /// # Ok::<(), uuidkit::GenError>(())
            /// ```
            pub fn status(&self) -> Option<Status> {
                self.inner.status()
            }

            /// The block UUIDs are currently drawn from.
            ///
            /// ```
            /// use uuidkit::state::{BlockPolicy, MemoryStore, Reserver};
            /// use uuidkit::{SystemClock, ThreadRng};
            /// let r = Reserver::new(MemoryStore::new(), BlockPolicy::default());
            #[doc = concat!("let mut g = uuidkit::", stringify!($g), "::new(SystemClock, ThreadRng)", $retain, ".with_store(r);")]
            /// let u = g.generate()?;
            /// let b = g.block().unwrap();
            /// assert_eq!(u.clock_seq(), Some(b.clock_seq));
            /// # Ok::<(), uuidkit::GenError>(())
            /// ```
            pub fn block(&self) -> Option<GregorianBlock> {
                self.inner.inner_gen.as_ref().and_then(|g| g.lease().current.get())
            }
        }

        impl<C: Clock, R: Rng> Drop for $name<C, R> {
            /// Gives back the unused tail of the block (see [`Reserver::release_v1`]).
            fn drop(&mut self) {
                self.inner.release();
            }
        }
    };
}

stored_gregorian!(
    /// A [`V1Generator`] bound to stable storage; made by
    /// [`V1Generator::with_store`].
    ///
    /// Guarantees, for every generator sharing the store (in any process): no
    /// two issue the same timestamp with the same clock sequence and node, so no
    /// UUID is issued twice, even across crashes and restarts; each generator's
    /// timestamps increase while the clock does not go back.
    ///
    /// ```
    /// use uuidkit::state::{BlockPolicy, MemoryStore, Reserver};
    /// use uuidkit::{CoarseClock, ThreadRng, V1Generator};
    /// let r = Reserver::new(MemoryStore::new(), BlockPolicy::default());
    /// let mut a = V1Generator::new(CoarseClock::new(), ThreadRng).with_store(r.clone());
    /// let mut b = V1Generator::new(CoarseClock::new(), ThreadRng).with_store(r);
    /// let (x, y) = (a.generate()?, b.generate()?);
    /// assert_eq!(x.node(), y.node()); // one node, from the store
    /// assert_ne!(x.gregorian_timestamp(), y.gregorian_timestamp()); // disjoint blocks
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    StoredV1, V1Generator, Gregorian::V1, "1", ""
);

stored_gregorian!(
    /// A [`V6Generator`] bound to stable storage; made by
    /// [`V6Generator::with_store`]. Guarantees as for [`StoredV1`]; the
    /// generator's own choice between fresh and retained clock sequence and
    /// node is kept (timestamps are disjoint between processes either way).
    ///
    /// ```
    /// use uuidkit::state::{BlockPolicy, MemoryStore, Reserver};
    /// use uuidkit::{CoarseClock, ThreadRng, V6Generator};
    /// let r = Reserver::new(MemoryStore::new(), BlockPolicy::default());
    /// let mut g = V6Generator::new(CoarseClock::new(), ThreadRng).retain().with_store(r);
    /// let (a, b) = (g.generate()?, g.generate()?);
    /// assert!(a < b);
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    StoredV6, V6Generator, Gregorian::V6, "6", ".retain()"
);

/// A [`V7Generator`] bound to stable storage; made by
/// [`V7Generator::with_store`].
///
/// Guarantees, for every generator sharing the store (in any process): no two
/// issue UUIDs with the same millisecond, so none is issued twice; after a
/// crash or restart, output continues above everything issued before, even if
/// the clock was set back. If the clock is behind the current block by more
/// than the generator's clock-back tolerance and its policy is
/// [`ClockBackPolicy::Reset`](crate::ClockBackPolicy::Reset), following the
/// clock would break that promise, so [`generate`](Self::generate) returns
/// [`GenErrorKind::ClockBehind`] instead.
///
/// ```
/// use uuidkit::state::{BlockPolicy, MemoryStore, Reserver};
/// use uuidkit::{SystemClock, ThreadRng, V7Generator};
/// let r = Reserver::new(MemoryStore::new(), BlockPolicy::default());
/// let mut a = V7Generator::new(SystemClock, ThreadRng).with_store(r.clone());
/// let mut b = V7Generator::new(SystemClock, ThreadRng).with_store(r);
/// let (x, y) = (a.generate()?, b.generate()?);
/// assert_ne!(x.unix_ts_ms(), y.unix_ts_ms()); // disjoint blocks
/// # Ok::<(), uuidkit::GenError>(())
/// ```
#[derive(Debug)]
pub struct StoredV7<C: Clock, R: Rng> {
    inner_gen: Option<V7Generator<C, R, V7Lease>>,
    fork: u64,
    last_ms: u64,
}

impl<C: Clock, R: Rng> V7Generator<C, R> {
    /// Binds the generator to stable storage (RFC 9562 §6.3): its milliseconds
    /// come from blocks reserved through `reserver`. See the
    /// [`state`](crate::state) module.
    ///
    /// ```
    /// use uuidkit::state::{BlockPolicy, MemoryStore, Reserver, StateRecord, V7Mark};
    /// use uuidkit::{ManualClock, ThreadRng, V7Generator};
    /// let clock = ManualClock::new(1_645_557_742_000_000_000);
    /// // A previous run reserved up to 5 s ahead of this clock.
    /// let stored = StateRecord { v7: Some(V7Mark { hwm_ms: 1_645_557_747_000 }), ..Default::default() };
    /// let r = Reserver::new(MemoryStore::with_record(stored), BlockPolicy::default());
    /// let mut g = V7Generator::new(&clock, ThreadRng).with_store(r);
    /// assert_eq!(g.generate()?.unix_ts_ms(), Some(1_645_557_747_000));
    /// assert!(g.status().unwrap().is_safe());
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub fn with_store(self, reserver: Reserver) -> StoredV7<C, R> {
        let lease = V7Lease {
            reserver,
            current: Cell::new(None),
            floor_ms: Cell::new(0),
            pending: Cell::new(false),
            status: RefCell::new(None),
        };
        StoredV7 {
            inner_gen: Some(self.with_reserve(lease)),
            fork: fork_generation(),
            last_ms: 0,
        }
    }
}

impl<C: Clock, R: Rng> StoredV7<C, R> {
    /// The next v7 UUID: from the current block, reserving the next one when it
    /// is used up.
    ///
    /// # Errors
    /// As [`V7Generator::generate`], and [`GenErrorKind::ClockBehind`] as the
    /// type documents; the store itself never fails (problems are reported by
    /// [`status`](Self::status)).
    ///
    /// ```
    /// use uuidkit::state::{BlockPolicy, MemoryStore, Reserver};
    /// use uuidkit::{SystemClock, ThreadRng, V7Generator};
    /// let r = Reserver::new(MemoryStore::new(), BlockPolicy::default());
    /// let mut g = V7Generator::new(SystemClock, ThreadRng).with_store(r);
    /// let (a, b) = (g.generate()?, g.generate()?);
    /// assert!(a < b);
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    #[inline]
    pub fn generate(&mut self) -> Result<Uuid, GenError> {
        loop {
            if crate::fork::current() != self.fork {
                self.fork = fork_generation();
                self.renew();
                continue;
            }
            let Some(g) = self.inner_gen.as_mut() else {
                return Err(GenError::store(RESEED));
            };
            match g.generate() {
                Ok(u) => {
                    let ms = (u.as_u128() >> 80) as u64;
                    let floor = g.reserve_ref().floor_ms.get();
                    if ms >= floor {
                        self.last_ms = ms;
                        return Ok(u);
                    }
                    // The generator followed the clock below its block (clock far
                    // behind, policy Reset): drop the UUID, put the generator back
                    // above everything it issued, and report the clock.
                    self.restore(floor);
                    return Err(Self::behind(u, floor));
                }
                Err(e)
                    if e.kind() == GenErrorKind::Store
                        && g.reserve_ref().pending.replace(false) =>
                {
                    self.adopt()
                }
                Err(e) => return Err(e),
            }
        }
    }

    #[cold]
    fn behind(u: Uuid, floor_ms: u64) -> GenError {
        GenError::new(
            GenErrorKind::ClockBehind,
            floor_ms.saturating_mul(1_000_000),
            ((u.as_u128() >> 80) as u64).saturating_mul(1_000_000),
        )
    }

    /// Re-seeds the generator above the last UUID it handed out.
    #[cold]
    fn restore(&mut self, floor_ms: u64) {
        if let Some(g) = self.inner_gen.take() {
            let ms = self.last_ms.max(floor_ms.saturating_sub(1));
            let state = V7State {
                unix_ts_ms: ms,
                counter: u128::MAX,
                valid: true,
            };
            self.inner_gen = Some(g.with_state(state));
        }
    }

    #[cold]
    fn renew(&mut self) {
        if let Some(g) = &self.inner_gen {
            g.reserve_ref().take_block(g.clock().now_ns() / 1_000_000);
        }
        self.adopt();
    }

    /// Re-seed the generator just below the lease's current block.
    #[cold]
    fn adopt(&mut self) {
        let Some(g) = self.inner_gen.take() else {
            return;
        };
        let Some(b) = g.reserve_ref().current.get() else {
            self.inner_gen = Some(g);
            return;
        };
        g.reserve_ref().floor_ms.set(b.start_ms);
        let lease = g.reserve_ref().clone();
        let g = if b.start_ms > 0 {
            g.with_state(V7State {
                unix_ts_ms: b.start_ms - 1,
                counter: u128::MAX,
                valid: true,
            })
        } else {
            g
        };
        // Re-attaching resets the generator's cached limit.
        let g = g.with_reserve(lease);
        self.inner_gen = Some(g);
    }

    /// Fills `out`, as repeated [`generate`](Self::generate) calls.
    ///
    /// # Errors
    /// As [`generate`](Self::generate).
    ///
    /// ```
    /// use uuidkit::state::{BlockPolicy, MemoryStore, Reserver};
    /// use uuidkit::{SystemClock, ThreadRng, Uuid, V7Generator};
    /// let r = Reserver::new(MemoryStore::new(), BlockPolicy::default());
    /// let mut g = V7Generator::new(SystemClock, ThreadRng).with_store(r);
    /// let mut out = [Uuid::NIL; 100];
    /// g.fill(&mut out)?;
    /// assert!(out.windows(2).all(|w| w[0] < w[1]));
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub fn fill(&mut self, out: &mut [Uuid]) -> Result<(), GenError> {
        for slot in out {
            *slot = self.generate()?;
        }
        Ok(())
    }

    /// The status of the reservation the last UUID's block came from (`None`
    /// before the first UUID): safe, or why not.
    ///
    /// ```
    /// use uuidkit::state::{BlockPolicy, MemoryStore, Reserver};
    /// use uuidkit::{SystemClock, ThreadRng, V7Generator};
    /// let r = Reserver::new(MemoryStore::new(), BlockPolicy::default());
    /// let mut g = V7Generator::new(SystemClock, ThreadRng).with_store(r);
    /// g.generate()?;
    /// assert_eq!(g.status().unwrap().reason().unwrap().kind(), uuidkit::state::StateErrorKind::Missing);
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub fn status(&self) -> Option<Status> {
        self.inner_gen
            .as_ref()
            .and_then(|g| g.reserve_ref().status.borrow().clone())
    }

    /// The block UUIDs are currently drawn from.
    ///
    /// ```
    /// use uuidkit::state::{BlockPolicy, MemoryStore, Reserver};
    /// use uuidkit::{SystemClock, ThreadRng, V7Generator};
    /// let r = Reserver::new(MemoryStore::new(), BlockPolicy::default());
    /// let mut g = V7Generator::new(SystemClock, ThreadRng).with_store(r);
    /// let ms = g.generate()?.unix_ts_ms().unwrap();
    /// let b = g.block().unwrap();
    /// assert!(b.start_ms <= ms && ms < b.end_ms);
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub fn block(&self) -> Option<V7Block> {
        self.inner_gen
            .as_ref()
            .and_then(|g| g.reserve_ref().current.get())
    }
}

impl<C: Clock, R: Rng> Drop for StoredV7<C, R> {
    /// Gives back the unused tail of the block (see [`Reserver::release_v7`]).
    fn drop(&mut self) {
        if let Some(g) = &self.inner_gen {
            let lease = g.reserve_ref();
            if let Some(b) = lease.current.get() {
                let next = g.state().unix_ts_ms.saturating_add(1).max(b.start_ms);
                lease.reserver.release_v7(&b, next);
            }
        }
    }
}
