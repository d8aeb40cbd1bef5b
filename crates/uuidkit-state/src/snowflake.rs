//! Snowflake state in the state file: the last tick per layout and worker
//! ([`SnowflakeMark`]), blocks of ticks reserved under them, and the lease a
//! [`SnowflakeGenerator`](uuidkit::snowflake::SnowflakeGenerator) binds to
//! ([`SnowflakeLease`]).
//!
//! Unlike v7 (whose random bits keep two processes apart in a fallback), a
//! snowflake ID has no bits of its own beside the worker: two processes with
//! one worker can only be kept apart by disjoint ticks, which only a
//! persisted reservation proves. So a reservation that could not be
//! persisted is an error for a snowflake lease, strict or not.

use super::{BlockOrigin, BlockPolicy, Reserver, StateRecord, Status};
use uuidkit::generator::{GenError, Reservation, Reserve};
use uuidkit::snowflake::{Layout, SnowflakeState};
use uuidkit::sync::{fork_generation, forked_since};

/// How many snowflake marks a state file keeps, most recently reserved
/// first. When a worker's mark falls out, its tick joins its layout's
/// *floor* (the mark of every worker of the layout with none of its own), so
/// nothing issued is ever forgotten, only merged.
pub const SNOWFLAKE_MARKS: usize = 16;

/// The stored mark of one layout and worker, or a layout's floor.
///
/// ```
/// use uuidkit::snowflake::Layout;
/// use uuidkit_state::format::SnowflakeMark;
/// let m = SnowflakeMark { layout: Layout::TWITTER, worker: Some(37), hwm: 1_000 };
/// assert_eq!(m.worker, Some(37));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SnowflakeMark {
    /// The layout whose ticks `hwm` counts.
    pub layout: Layout,
    /// The worker; `None` for the layout's floor.
    pub worker: Option<u64>,
    /// High-water mark: every ID issued under the layout and worker (for a
    /// floor: under any worker of the layout without a mark of its own) has
    /// a tick below it.
    pub hwm: u64,
}

impl StateRecord {
    /// The mark that bounds the ticks issued under `layout` and `worker`:
    /// the worker's own, else the layout's floor.
    ///
    /// ```
    /// use uuidkit::snowflake::Layout;
    /// use uuidkit_state::format::{SnowflakeMark, StateRecord};
    /// let mut rec = StateRecord::default();
    /// rec.snowflake[0] = Some(SnowflakeMark { layout: Layout::TWITTER, worker: None, hwm: 50 });
    /// rec.snowflake[1] = Some(SnowflakeMark { layout: Layout::TWITTER, worker: Some(3), hwm: 90 });
    /// assert_eq!(rec.snowflake_mark(Layout::TWITTER, 3), Some(90));
    /// assert_eq!(rec.snowflake_mark(Layout::TWITTER, 4), Some(50));
    /// assert_eq!(rec.snowflake_mark(Layout::DISCORD, 3), None);
    /// ```
    #[must_use]
    pub fn snowflake_mark(&self, layout: Layout, worker: u64) -> Option<u64> {
        let of = |w: Option<u64>| {
            self.snowflake
                .iter()
                .flatten()
                .find(|m| m.layout == layout && m.worker == w)
                .map(|m| m.hwm)
        };
        of(Some(worker)).or_else(|| of(None))
    }

    /// This record's snowflake marks, each raised to `other`'s for the same
    /// layout and worker, with `other`'s that this record lacks added (a
    /// file's marks and the ones a process holds in memory).
    pub(crate) fn merged_snowflake(
        &self,
        other: &StateRecord,
    ) -> [Option<SnowflakeMark>; SNOWFLAKE_MARKS] {
        let mut out = *self;
        for m in other.snowflake.iter().flatten().rev() {
            let kept = out
                .snowflake
                .iter_mut()
                .flatten()
                .find(|x| x.layout == m.layout && x.worker == m.worker);
            match (kept, m.worker) {
                (Some(x), _) => x.hwm = x.hwm.max(m.hwm),
                (None, Some(w)) => {
                    let _ = out.put_snowflake(m.layout, w, m.hwm);
                }
                (None, None) => {}
            }
        }
        out.snowflake
    }

    /// Records `hwm` as the mark of `layout` and `worker`, first in the list;
    /// the oldest worker's mark falls into its layout's floor when the list
    /// is full. `false` when nothing could fall out (every entry is a floor
    /// of another layout), and then nothing changed.
    pub(crate) fn put_snowflake(&mut self, layout: Layout, worker: u64, hwm: u64) -> bool {
        let mut list: [Option<SnowflakeMark>; SNOWFLAKE_MARKS + 1] = [None; SNOWFLAKE_MARKS + 1];
        list[0] = Some(SnowflakeMark {
            layout,
            worker: Some(worker),
            hwm,
        });
        let mut n = 1;
        for m in self.snowflake.iter().flatten() {
            if !(m.layout == layout && m.worker == Some(worker)) {
                list[n] = Some(*m);
                n += 1;
            }
        }
        // Each round folds the oldest worker's mark into its layout's floor: the
        // list shrinks, or (a new floor) holds one worker fewer.
        while n > SNOWFLAKE_MARKS {
            let Some(oldest) = (1..n)
                .rev()
                .find(|&i| list[i].is_some_and(|m| m.worker.is_some()))
            else {
                return false;
            };
            let gone = list[oldest].take().expect("found above");
            let floor = (0..n)
                .find(|&i| list[i].is_some_and(|m| m.layout == gone.layout && m.worker.is_none()));
            match floor {
                Some(i) => {
                    let f = list[i].as_mut().expect("found above");
                    f.hwm = f.hwm.max(gone.hwm);
                    list[oldest..n].rotate_left(1);
                    n -= 1;
                }
                None => {
                    list[oldest] = Some(SnowflakeMark {
                        worker: None,
                        ..gone
                    });
                }
            }
        }
        self.snowflake.copy_from_slice(&list[..SNOWFLAKE_MARKS]);
        true
    }
}

/// A block of ticks reserved for one layout and worker.
///
/// ```
/// use uuidkit::snowflake::Layout;
/// use uuidkit_state::{BlockOrigin, BlockPolicy};
/// let b = BlockPolicy::default().reserve_snowflake(Layout::TWITTER, None, 1_000);
/// assert_eq!((b.start, b.end, b.origin), (1_000, 1_100, BlockOrigin::NoState));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SnowflakeBlock {
    /// First tick of the block.
    pub start: u64,
    /// One past its last tick: the new mark.
    pub end: u64,
    /// Why the block starts where it does.
    pub origin: BlockOrigin,
}

impl BlockPolicy {
    /// The block for `layout` at the clock's tick `now`, above the `stored`
    /// mark (the worker's own, or its layout's floor): from the later of the
    /// two, [`block`](Self::block) long in the layout's ticks (at least one),
    /// never past the end of the layout's time field.
    ///
    /// ```
    /// use uuidkit::snowflake::Layout;
    /// use uuidkit_state::{BlockOrigin, BlockPolicy};
    /// let p = BlockPolicy::default();
    /// let b = p.reserve_snowflake(Layout::SONYFLAKE, Some(7_000), 1_000); // 10-ms ticks, 70 s ahead
    /// assert_eq!((b.start, b.end, b.origin), (7_000, 7_010, BlockOrigin::ClockBehind { by: 6_000 }));
    /// ```
    #[must_use]
    pub fn reserve_snowflake(
        &self,
        layout: Layout,
        stored: Option<u64>,
        now: u64,
    ) -> SnowflakeBlock {
        let ticks = |d: core::time::Duration| {
            u64::try_from(d.as_nanos() / u128::from(layout.tick_ns())).unwrap_or(u64::MAX)
        };
        let last = layout.max_tick().saturating_add(1);
        let now = now.min(last);
        let (start, origin) = match stored {
            None => (now, BlockOrigin::NoState),
            Some(hwm) if hwm > now.saturating_add(ticks(self.behind_tolerance)) => {
                (hwm, BlockOrigin::ClockBehind { by: hwm - now })
            }
            Some(hwm) => (now.max(hwm), BlockOrigin::Continued),
        };
        let start = start.min(last);
        SnowflakeBlock {
            start,
            end: start.saturating_add(ticks(self.block).max(1)).min(last),
            origin,
        }
    }
}

impl Reserver {
    /// A lease for a [`SnowflakeGenerator`](uuidkit::snowflake::SnowflakeGenerator)
    /// of `layout`. See [`SnowflakeLease`].
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, rng::ThreadRng, snowflake::{Layout, SnowflakeGenerator}};
    /// use uuidkit_state::{BlockPolicy, MemoryStore, Reserver};
    /// let r = Reserver::new(MemoryStore::new(), BlockPolicy::default());
    /// let clock = ManualClock::new(Layout::TWITTER.unix_ns_of(5_000));
    /// let mut g = SnowflakeGenerator::builder(Layout::TWITTER).worker(3).store(r.lease_snowflake(Layout::TWITTER)).build(&clock, ThreadRng)?;
    /// g.generate()?;
    /// assert_eq!(g.store().block().map(|b| (b.start, b.end)), Some((5_000, 5_100)));
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    #[must_use]
    pub fn lease_snowflake(&self, layout: Layout) -> SnowflakeLease {
        SnowflakeLease {
            reserver: self.clone(),
            layout,
            current: None,
            status: None,
            fork: fork_generation(),
        }
    }

    /// Reserves a block of `layout`'s ticks for `worker` at the clock's tick
    /// `now`, through one store transaction.
    ///
    /// ```
    /// use uuidkit::snowflake::Layout;
    /// use uuidkit_state::{BlockPolicy, MemoryStore, Reserver};
    /// let r = Reserver::new(MemoryStore::new(), BlockPolicy::default());
    /// let (a, _) = r.reserve_snowflake(Layout::TWITTER, 1, 1_000);
    /// let (b, _) = r.reserve_snowflake(Layout::TWITTER, 1, 1_000);
    /// let (c, _) = r.reserve_snowflake(Layout::TWITTER, 2, 1_000);
    /// assert_eq!((a.start, b.start, c.start), (1_000, 1_100, 1_000)); // one worker's blocks never overlap
    /// ```
    #[must_use]
    pub fn reserve_snowflake(
        &self,
        layout: Layout,
        worker: u64,
        now: u64,
    ) -> (SnowflakeBlock, Status) {
        let mut out = None;
        let mut full = false;
        let status = self.reserve(&mut |old| {
            let mut rec = old.copied().unwrap_or_default();
            let b = self
                .policy
                .reserve_snowflake(layout, rec.snowflake_mark(layout, worker), now);
            full = !rec.put_snowflake(layout, worker, b.end);
            out = Some(b);
            rec
        });
        let block = out.unwrap_or_else(|| self.policy.reserve_snowflake(layout, None, now));
        let mut status = self.with_ahead(status, block.origin, |by| {
            std::format!(
                "expected the stored {layout} mark of worker {worker} at most {} ms ahead of the \
                 clock, found it {} ms ahead; IDs are stamped from {} on",
                self.policy.behind_tolerance.as_millis(),
                u128::from(by) * u128::from(layout.tick_ns()) / 1_000_000,
                super::format::fmt_ms(layout.unix_ms_of(block.start))
            )
        });
        if full && status.write.is_none() {
            status.write = Some(super::StateError::new(
                super::StateErrorKind::Garbage,
                None,
                std::format!(
                    "expected room for a snowflake mark, found {SNOWFLAKE_MARKS} layouts' floors"
                ),
            ));
        }
        self.record(&status, block.origin);
        (block, status)
    }
}

/// The lease of a [`SnowflakeGenerator`](uuidkit::snowflake::SnowflakeGenerator)
/// on a [`Reserver`]; made by [`Reserver::lease_snowflake`].
///
/// Guarantees, for every generator of the layout leasing from the same store
/// (in any process, forked children included): no two issue an ID with the
/// same worker and tick, so none is issued twice, even across crashes and
/// restarts with the clock set back (the generator then continues above the
/// stored mark, ahead of its clock). A reservation that cannot be persisted
/// (the lock not taken in time, the file not writable) is an error of kind
/// [`GenErrorKind::Store`](uuidkit::generator::GenErrorKind::Store): a snowflake
/// ID has no random bits to fall back on.
///
/// ```
/// use uuidkit::{clock::ManualClock, rng::ThreadRng, snowflake::{Layout, SnowflakeGenerator}};
/// use uuidkit_state::{BlockPolicy, MemoryStore, Reserver};
/// let r = Reserver::new(MemoryStore::new(), BlockPolicy::default());
/// let clock = ManualClock::new(Layout::TWITTER.unix_ns_of(5_000));
/// let build = || SnowflakeGenerator::builder(Layout::TWITTER).worker(3).store(r.lease_snowflake(Layout::TWITTER)).build(&clock, ThreadRng);
/// let (mut a, mut b) = (build()?, build()?);
/// let (x, y) = (a.generate()?, b.generate()?);
/// assert_eq!(Layout::TWITTER.decompose(y)?.tick, Layout::TWITTER.decompose(x)?.tick + 100); // disjoint blocks
/// # Ok::<(), uuidkit::GenError>(())
/// ```
#[derive(Debug)]
pub struct SnowflakeLease {
    reserver: Reserver,
    layout: Layout,
    current: Option<(u64, SnowflakeBlock)>,
    status: Option<Status>,
    fork: u64,
}

impl SnowflakeLease {
    /// The status of the reservation the current block came from.
    ///
    /// ```
    /// use uuidkit::snowflake::Layout;
    /// use uuidkit_state::{BlockPolicy, MemoryStore, Reserver};
    /// let r = Reserver::new(MemoryStore::new(), BlockPolicy::default());
    /// assert!(r.lease_snowflake(Layout::TWITTER).status().is_none());
    /// ```
    #[must_use]
    pub fn status(&self) -> Option<&Status> {
        self.status.as_ref()
    }

    /// The block IDs are drawn from now.
    ///
    /// ```
    /// use uuidkit::snowflake::Layout;
    /// use uuidkit_state::{BlockPolicy, MemoryStore, Reserver};
    /// let r = Reserver::new(MemoryStore::new(), BlockPolicy::default());
    /// assert!(r.lease_snowflake(Layout::TWITTER).block().is_none());
    /// ```
    #[must_use]
    pub fn block(&self) -> Option<SnowflakeBlock> {
        self.current.map(|c| c.1)
    }
}

impl Reserve<SnowflakeState> for SnowflakeLease {
    fn reserve(
        &mut self,
        state: &SnowflakeState,
        needed: u64,
    ) -> Result<Reservation<SnowflakeState>, GenError> {
        if !self.is_held() {
            // The parent's block is not ours to use, nor to give back.
            self.current = None;
            self.fork = fork_generation();
        }
        let fits = |c: &(u64, SnowflakeBlock)| {
            c.0 == state.worker && c.1.start <= needed && needed < c.1.end
        };
        if let Some(c) = self.current.filter(fits) {
            return Ok(Reservation::Until(c.1.end));
        }
        let (b, status) = self
            .reserver
            .reserve_snowflake(self.layout, state.worker, needed);
        let refused = match &status.write {
            Some(e) => Err(GenError::store_unavailable(e.kind().class())),
            None => Ok(()),
        };
        self.current = Some((state.worker, b)).filter(|_| refused.is_ok());
        self.status = Some(status);
        refused?;
        if b.start >= b.end {
            return Err(self.layout.past_the_end(b.start));
        }
        if b.start <= needed && needed < b.end {
            return Ok(Reservation::Until(b.end));
        }
        Ok(Reservation::ResumeFrom(SnowflakeState {
            tick: b.start.saturating_sub(1),
            sequence: u64::MAX,
            worker: state.worker,
            valid: b.start > 0,
        }))
    }

    #[inline]
    fn is_held(&self) -> bool {
        !forked_since(self.fork)
    }

    /// Gives back the unused tail of the block, if nobody reserved after it.
    fn release(&mut self, last: &SnowflakeState) {
        let Some((worker, b)) = self.current.filter(|_| self.is_held()) else {
            return;
        };
        let next = last.tick.saturating_add(1).max(b.start);
        if !last.valid || last.worker != worker || next >= b.end {
            return;
        }
        let layout = self.layout;
        self.reserver.store.transact(&mut |old| {
            let mut rec = old.copied().unwrap_or_default();
            if rec.snowflake_mark(layout, worker) == Some(b.end) {
                let _ = rec.put_snowflake(layout, worker, next);
            }
            rec
        });
    }
}
