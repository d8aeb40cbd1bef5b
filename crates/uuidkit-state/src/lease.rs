//! The leases: a [`Reserver`] seen through the generators' [`Reserve`] seam.
//!
//! A lease holds the block its generator draws from. Asked for a timestamp,
//! it answers from that block while the timestamp (and, for v1/v6, the clock
//! sequence and node) fits; otherwise it reserves the next block through the
//! store. When that block continues where the generator is (the usual case),
//! the answer is the block's end; when it does not (first block, another
//! process reserved in between, the clock is behind the stored mark, a new
//! clock sequence), the answer is a state just below the block's start to
//! resume from, so the timestamp that prompted the request is never handed
//! out. A forked child's lease no longer holds ([`Reserve::is_held`]), so it
//! reserves its own block before its first UUID; dropping the generator gives
//! back the unused tail of the block.

use uuidkit::generator::{GenError, Reservation, Reserve};
use uuidkit::generator::{V1State, V7State};
use uuidkit::node::RandomNode;
use uuidkit::rand_core::Rng;
use uuidkit::rng::ThreadRng;
use uuidkit::sync::{fork_generation, forked_since};

use super::{Fresh, Gregorian, GregorianBlock, Reserver, Status, V7Block};

/// A random 48-bit node with the multicast bit set (RFC 9562 §6.10), from
/// one draw of `rng`: the node a v1 generator makes for itself.
fn random_node(rng: &mut ThreadRng) -> [u8; 6] {
    RandomNode::new(48, rng)
        .ok()
        .and_then(|n| n.id().as_bytes6())
        .unwrap_or([0x01, 0, 0, 0, 0, 0])
}

/// The lease of a [`V1Generator`](uuidkit::V1Generator) or
/// [`V6Generator`](uuidkit::V6Generator) on a [`Reserver`]; made by
/// [`Reserver::lease_v1`] or [`Reserver::lease_v6`].
///
/// Guarantees, for every generator leasing from the same store (in any
/// process): no two issue the same timestamp with the same clock sequence and
/// node, so no UUID is issued twice, even across crashes and restarts; each
/// generator's timestamps increase while the clock does not go back. The
/// generator takes the stored clock sequence, and the stored node unless it
/// was given one ([`V1Builder::node`](uuidkit::generator::V1Builder::node)); with another
/// node the store draws a new clock sequence.
///
/// ```
/// use uuidkit::{clock::CoarseClock, rng::ThreadRng};
/// use uuidkit_state::{BlockPolicy, MemoryStore, Reserver};
/// use uuidkit::{Generator, V1Generator};
/// let r = Reserver::new(MemoryStore::new(), BlockPolicy::default());
/// let mut a = V1Generator::builder().store(r.lease_v1()).build(CoarseClock::new(), ThreadRng)?;
/// let mut b = V1Generator::builder().store(r.lease_v1()).build(CoarseClock::new(), ThreadRng)?;
/// let (x, y) = (a.generate()?, b.generate()?);
/// assert_eq!(x.node(), y.node()); // one node, from the store
/// assert_ne!(x.gregorian_timestamp(), y.gregorian_timestamp()); // disjoint blocks
/// # Ok::<(), uuidkit::GenError>(())
/// ```
#[derive(Debug)]
pub struct GregorianLease {
    reserver: Reserver,
    which: Gregorian,
    current: Option<GregorianBlock>,
    status: Option<Status>,
    fork: u64,
    clock_seq: Option<u16>,
}

impl GregorianLease {
    /// Uses `clock_seq` (truncated to 14 bits) instead of a random one when
    /// the store holds no usable record for this version, or holds only other
    /// nodes': a caller's clock sequence is honoured wherever it can be. A
    /// stored clock sequence for the same node, current or earlier, is kept
    /// (changing it is how RFC 9562 §6.3 marks a clock set back), so a caller
    /// that insists compares it with
    /// [`StateRecord::v1_mark`](super::StateRecord::v1_mark) (or `v6_mark`)
    /// first.
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, rng::ThreadRng};
    /// use uuidkit::{Generator, V1Generator};
    /// use uuidkit_state::{BlockPolicy, MemoryStore, Reserver};
    /// let r = Reserver::new(MemoryStore::new(), BlockPolicy::default());
    /// let clock = ManualClock::new(1_645_557_742_000_000_000);
    /// let mut g = V1Generator::builder().store(r.lease_v1().with_clock_seq(0x33C8)).build(&clock, ThreadRng)?;
    /// assert_eq!(g.generate()?.clock_seq(), Some(0x33C8));
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    #[must_use]
    pub fn with_clock_seq(mut self, clock_seq: u16) -> GregorianLease {
        self.clock_seq = Some(clock_seq);
        self
    }

    pub(crate) fn new(reserver: Reserver, which: Gregorian) -> GregorianLease {
        GregorianLease {
            reserver,
            which,
            current: None,
            status: None,
            fork: fork_generation(),
            clock_seq: None,
        }
    }

    /// The status of the reservation the current block came from (`None`
    /// before the first UUID): safe, or why not.
    ///
    /// ```
    /// use uuidkit::{clock::SystemClock, rng::ThreadRng};
    /// use uuidkit::{Generator, V1Generator};
    /// use uuidkit_state::{BlockPolicy, MemoryStore, Reserver};
    /// let r = Reserver::new(MemoryStore::new(), BlockPolicy::default());
    /// let mut g = V1Generator::builder().store(r.lease_v1()).build(SystemClock, ThreadRng)?;
    /// assert!(g.store().status().is_none());
    /// g.generate()?;
    /// assert!(!g.store().status().unwrap().is_safe()); // the store was empty
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    #[must_use]
    pub fn status(&self) -> Option<&Status> {
        self.status.as_ref()
    }

    /// The block UUIDs are currently drawn from.
    ///
    /// ```
    /// use uuidkit::{clock::SystemClock, rng::ThreadRng};
    /// use uuidkit::{Generator, V1Generator};
    /// use uuidkit_state::{BlockPolicy, MemoryStore, Reserver};
    /// let r = Reserver::new(MemoryStore::new(), BlockPolicy::default());
    /// let mut g = V1Generator::builder().store(r.lease_v1()).build(SystemClock, ThreadRng)?;
    /// let u = g.generate()?;
    /// let b = g.store().block().unwrap();
    /// assert_eq!(u.clock_seq(), Some(b.clock_seq));
    /// assert!((b.start..b.end).contains(&u.gregorian_timestamp().unwrap()));
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    #[must_use]
    pub fn block(&self) -> Option<GregorianBlock> {
        self.current
    }

    fn fits(b: &GregorianBlock, state: &V1State, needed: u64) -> bool {
        b.start <= needed
            && needed < b.end
            && state.clock_seq == b.clock_seq
            && state.node == b.node
    }
}

impl Reserve<V1State> for GregorianLease {
    fn reserve(&mut self, state: &V1State, needed: u64) -> Result<Reservation<V1State>, GenError> {
        if !self.is_held() {
            // The parent's block is not ours to use, nor to give back.
            self.current = None;
            self.fork = fork_generation();
        }
        if let Some(b) = self.current.filter(|b| Self::fits(b, state, needed)) {
            return Ok(Reservation::Until(b.end));
        }
        let mut rng = ThreadRng;
        let fresh = Fresh {
            clock_seq: self.clock_seq.unwrap_or(rng.next_u64() as u16),
            node: random_node(&mut rng),
        };
        let node = state.node_given.then_some(state.node);
        let (b, status) = self
            .reserver
            .reserve_gregorian(self.which, needed, node, fresh);
        let refused = self.reserver.refuse(&status);
        self.current = Some(b).filter(|_| refused.is_ok());
        self.status = Some(status);
        refused?;
        if b.start >= b.end {
            // The mark is at the end of the 60-bit field: nothing is left.
            return Err(GenError::timestamp_out_of_range(
                uuidkit::layout::MAX_GREGORIAN_TIMESTAMP,
                b.start,
            ));
        }
        if Self::fits(&b, state, needed) {
            return Ok(Reservation::Until(b.end));
        }
        Ok(Reservation::ResumeFrom(V1State {
            timestamp: b.start.saturating_sub(1),
            clock_seq: b.clock_seq,
            node: b.node,
            node_given: state.node_given,
            valid: b.start > 0,
        }))
    }

    #[inline]
    fn is_held(&self) -> bool {
        !forked_since(self.fork)
    }

    /// Gives back the unused tail of the block (see [`Reserver::release_v1`]).
    fn release(&mut self, last: &V1State) {
        if let Some(b) = self.current.filter(|_| self.is_held()) {
            let next = last.timestamp.saturating_add(1).max(b.start);
            self.reserver.release_gregorian(self.which, &b, next);
        }
    }
}

/// The lease of a [`V7Generator`](uuidkit::V7Generator) on a [`Reserver`];
/// made by [`Reserver::lease_v7`].
///
/// Guarantees, for every generator leasing from the same store (in any
/// process): no two issue UUIDs with the same millisecond, so none is issued
/// twice; after a crash or restart, output continues above everything issued
/// before, even if the clock was set back. If the clock is behind the current
/// block by more than the generator's clock-back tolerance and its policy is
/// [`ClockBackPolicy::Reset`](uuidkit::generator::ClockBackPolicy::Reset), following the
/// clock would break that promise, so the generator returns
/// [`GenErrorKind::ClockBehind`](uuidkit::generator::GenErrorKind::ClockBehind) instead (and resumes above its last UUID once
/// the clock is back). A stored mark found ahead of the clock when a block is
/// reserved is different: the store put the generator there, so it carries on
/// above the mark at once, ahead of its clock, until the clock catches up
/// ([`Reserver::clock_behind`] says by how much it was behind).
///
/// ```
/// use uuidkit::{clock::SystemClock, rng::ThreadRng};
/// use uuidkit_state::{BlockPolicy, MemoryStore, Reserver};
/// use uuidkit::{Generator, V7Generator};
/// let r = Reserver::new(MemoryStore::new(), BlockPolicy::default());
/// let mut a = V7Generator::builder().store(r.lease_v7()).build(SystemClock, ThreadRng)?;
/// let mut b = V7Generator::builder().store(r.lease_v7()).build(SystemClock, ThreadRng)?;
/// let (x, y) = (a.generate()?, b.generate()?);
/// assert_ne!(x.unix_ts_ms(), y.unix_ts_ms()); // disjoint blocks
/// # Ok::<(), uuidkit::GenError>(())
/// ```
#[derive(Debug)]
pub struct V7Lease {
    reserver: Reserver,
    current: Option<V7Block>,
    status: Option<Status>,
    fork: u64,
}

impl V7Lease {
    pub(crate) fn new(reserver: Reserver) -> V7Lease {
        V7Lease {
            reserver,
            current: None,
            status: None,
            fork: fork_generation(),
        }
    }

    /// The status of the reservation the current block came from (`None`
    /// before the first UUID): safe, or why not.
    ///
    /// ```
    /// use uuidkit::{clock::SystemClock, rng::ThreadRng};
    /// use uuidkit::{Generator, V7Generator};
    /// use uuidkit_state::{BlockPolicy, MemoryStore, Reserver};
    /// let r = Reserver::new(MemoryStore::new(), BlockPolicy::default());
    /// let mut g = V7Generator::builder().store(r.lease_v7()).build(SystemClock, ThreadRng)?;
    /// g.generate()?;
    /// assert_eq!(g.store().status().unwrap().reason().unwrap().kind(), uuidkit_state::StateErrorKind::Missing);
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    #[must_use]
    pub fn status(&self) -> Option<&Status> {
        self.status.as_ref()
    }

    /// The block UUIDs are currently drawn from.
    ///
    /// ```
    /// use uuidkit::{clock::SystemClock, rng::ThreadRng};
    /// use uuidkit::{Generator, V7Generator};
    /// use uuidkit_state::{BlockPolicy, MemoryStore, Reserver};
    /// let r = Reserver::new(MemoryStore::new(), BlockPolicy::default());
    /// let mut g = V7Generator::builder().store(r.lease_v7()).build(SystemClock, ThreadRng)?;
    /// let ms = g.generate()?.unix_ts_ms().unwrap();
    /// let b = g.store().block().unwrap();
    /// assert!(b.start_ms <= ms && ms < b.end_ms);
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    #[must_use]
    pub fn block(&self) -> Option<V7Block> {
        self.current
    }
}

impl Reserve<V7State> for V7Lease {
    fn reserve(&mut self, _state: &V7State, needed: u64) -> Result<Reservation<V7State>, GenError> {
        if !self.is_held() {
            // The parent's block is not ours to use, nor to give back.
            self.current = None;
            self.fork = fork_generation();
        }
        if let Some(b) = self.current {
            if b.start_ms <= needed && needed < b.end_ms {
                return Ok(Reservation::Until(b.end_ms));
            }
            if needed < b.start_ms {
                // The generator followed the clock below its block (the clock
                // is far behind, policy Reset): that would go below what this
                // store has issued.
                return Err(GenError::clock_behind(
                    b.start_ms.saturating_mul(1_000_000),
                    needed.saturating_mul(1_000_000),
                ));
            }
        }
        let (b, status) = self.reserver.reserve_v7(needed);
        let refused = self.reserver.refuse(&status);
        self.current = Some(b).filter(|_| refused.is_ok());
        self.status = Some(status);
        refused?;
        if b.start_ms >= b.end_ms {
            // The mark is at the end of the 48-bit field: nothing is left.
            return Err(GenError::timestamp_out_of_range(
                uuidkit::layout::MAX_UNIX_TS_MS,
                b.start_ms,
            ));
        }
        if b.start_ms <= needed && needed < b.end_ms {
            return Ok(Reservation::Until(b.end_ms));
        }
        Ok(Reservation::ResumeFrom(V7State {
            unix_ts_ms: b.start_ms.saturating_sub(1),
            counter: u128::MAX,
            valid: b.start_ms > 0,
        }))
    }

    #[inline]
    fn is_held(&self) -> bool {
        !forked_since(self.fork)
    }

    /// Gives back the unused tail of the block (see [`Reserver::release_v7`]).
    fn release(&mut self, last: &V7State) {
        if let Some(b) = self.current.filter(|_| self.is_held()) {
            let next = last.unix_ts_ms.saturating_add(1).max(b.start_ms);
            self.reserver.release_v7(&b, next);
        }
    }
}
