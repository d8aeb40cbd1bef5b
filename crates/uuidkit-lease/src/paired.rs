//! A generator's clock and node source made as a pair from one [`LeaseSlot`], so that the
//! lease's deadline costs no clock reading of its own (docs/distributed-generation.md, "The
//! lease deadline").
//!
//! A [`LeaseSlot`] on its own reads the boot clock at every [`current`](NodeSource::current),
//! beside the generator's own reading of the wall clock: two clock readings per UUID, the
//! larger part of its cost. A pair needs one. The [`LeaseClock`] gives the generator wall-clock
//! time made from the boot clock (a reading plus the wall-clock time of the boot clock's zero,
//! sampled at every grant and renewal) and keeps that reading; the [`LeaseSource`] compares the
//! deadline with the reading kept. Generators read their clock before they ask their node
//! source, so the reading compared is the very one the UUID's time was made from: a UUID whose
//! time falls past the deadline is never made, however long the process stood still in
//! between.
//!
//! The two belong to **one generator**: given to the same builder, they are read by the same
//! thread in that order. A source whose clock has not been read yet (the first question a
//! v1/v6 generator asks, before its first reading) reads the boot clock itself.
//!
//! What the generator's clock follows: the boot clock, which never goes back and counts time
//! stopped and suspended, moved with the wall clock at each grant and renewal. A step of the
//! wall clock between renewals shows at the next one, as a step of the generator's clock, which
//! the generator meets with its clock-back policy as it would a step of the system clock.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use uuidkit::clock::Clock;
use uuidkit::node::{HoldWindow, NodeId, NodeLost, NodeSource};

use crate::deadline::{MAX_DEADLINE_TICK, tick};
use crate::{BootClock, BootTime, LeaseSlot};

/// No reading kept yet.
const UNREAD: u64 = u64::MAX;
// `LeaseSource::holds` relies on it: no reading kept is past every deadline.
const _: () = assert!(tick(UNREAD) > MAX_DEADLINE_TICK);

/// The generator's side of a pair: wall-clock time from one reading of the lease's boot clock,
/// kept for the [`LeaseSource`] made with it. Made by [`LeaseSlot::pair`], whose docs say how the two work together.
///
/// ```
/// use std::sync::Arc;
/// use std::time::Duration;
/// use uuidkit::clock::Clock;
/// use uuidkit_lease::{LeaseSlot, MANUAL_UNIX_AT_ZERO, ManualBootClock};
///
/// let boot = Arc::new(ManualBootClock::new(Duration::from_secs(10)));
/// let slot = Arc::new(LeaseSlot::new(8, boot.clone(), Duration::ZERO)?);
/// let (clock, _source) = slot.pair();
/// assert_eq!(clock.now_ns(), MANUAL_UNIX_AT_ZERO + 10_000_000_000);
/// # Ok::<(), uuidkit_lease::LeaseError>(())
/// ```
#[derive(Debug)]
pub struct LeaseClock<C: BootClock = BootTime> {
    slot: Arc<LeaseSlot<C>>,
    /// The last reading of the boot clock, in nanoseconds, or [`UNREAD`].
    read: Arc<AtomicU64>,
}

/// The node source of a pair: the slot's node, its deadline compared with the last reading of
/// the [`LeaseClock`] made with it. Made by [`LeaseSlot::pair`], whose docs say how the two work together.
///
/// ```
/// use std::sync::Arc;
/// use std::time::Duration;
/// use uuidkit::{clock::Clock, node::NodeSource};
/// use uuidkit_lease::{BootClock, LeaseSlot, ManualBootClock};
///
/// let boot = Arc::new(ManualBootClock::new(Duration::ZERO));
/// let slot = Arc::new(LeaseSlot::new(8, boot.clone(), Duration::ZERO)?);
/// slot.grant(5, boot.now(), Duration::from_secs(2))?; // deadline: 2 s
/// let (clock, source) = slot.pair();
/// boot.set(Duration::from_millis(1999));
/// clock.now_ns(); // the generator reads its clock before it asks for its node
/// boot.set(Duration::from_secs(3));
/// assert!(source.current().is_ok()); // the reading the UUID's time comes from was in time
/// clock.now_ns();
/// assert!(source.current().is_err()); // this one was not
/// # Ok::<(), uuidkit_lease::LeaseError>(())
/// ```
#[derive(Debug)]
pub struct LeaseSource<C: BootClock = BootTime> {
    slot: Arc<LeaseSlot<C>>,
    read: Arc<AtomicU64>,
}

impl<C: BootClock> LeaseSlot<C> {
    /// A clock and a node source for one generator ([module docs](crate::LeaseClock)): the
    /// deadline is then checked against the generator's own clock reading, with no second one.
    ///
    /// ```
    /// use std::time::Duration;
    /// use uuidkit::{rng::ThreadRng, Generator, V8Distributed};
    /// use uuidkit_lease::{BootClock, BootTime, LeaseSlot};
    ///
    /// let slot = std::sync::Arc::new(LeaseSlot::new(12, BootTime, Duration::from_millis(100))?);
    /// slot.grant(0x2A, BootTime.now(), Duration::from_secs(30))?;
    /// let (clock, source) = slot.pair();
    /// let mut g = V8Distributed::builder().node_source(source).build(clock, ThreadRng)?;
    /// let u = g.generate()?;
    /// assert_eq!((u.as_u128() >> 64 & 0xFFF) as u64 >> 0, 0x2A); // 12 node bits, first in custom_b
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn pair(self: &Arc<Self>) -> (LeaseClock<C>, LeaseSource<C>) {
        let read = Arc::new(AtomicU64::new(UNREAD));
        (
            LeaseClock {
                slot: self.clone(),
                read: read.clone(),
            },
            LeaseSource {
                slot: self.clone(),
                read,
            },
        )
    }
}

impl<C: BootClock> Clock for LeaseClock<C> {
    #[inline(always)]
    fn now_ns(&self) -> u64 {
        let nanos = self.slot.clock().now_nanos();
        // Relaxed: the source that reads it is read by the same generator, on the same thread.
        // Kept as read: the source turns it into ticks, a shift. (A boot clock reaches UNREAD
        // after 584 years; a reading that did would only make the source read the clock again.)
        self.read.store(nanos, Ordering::Relaxed);
        self.slot.unix_at_zero().saturating_add(nanos)
    }
}

impl<C: BootClock> NodeSource for LeaseSource<C> {
    #[inline]
    fn bits(&self) -> u8 {
        self.slot.bits()
    }

    // Always: it runs before every UUID, and a call costs as much as its loads.
    #[inline(always)]
    fn current(&self) -> Result<NodeId, NodeLost> {
        match self.read.load(Ordering::Relaxed) {
            UNREAD => self.slot.current(),
            nanos => self.slot.current_by(|| tick(nanos)),
        }
    }

    // Always, as `current`: once a generator holds the node, this is what it asks before
    // every UUID — the deadline word and the epoch, not the node. No reading kept yet
    // (`UNREAD`) needs no test of its own: its tick, 2^44 − 1, is past every deadline the
    // word can hold (40 bits of ticks), so the answer is `false` and the generator asks
    // `current`, which reads the boot clock itself.
    #[inline(always)]
    fn holds(&self, epoch: u64) -> bool {
        self.slot
            .still_holds(epoch, tick(self.read.load(Ordering::Relaxed)))
    }

    // The deadline as a reading of the pair's clock: the boot clock's zero in Unix time plus
    // the deadline's boot time, the very sum `LeaseClock::now_ns` makes of a reading, so a
    // generator's reading is below it exactly when `holds` would find it before the deadline.
    // The zero is sampled before the word is written (`publish`), so a window made while a
    // renewal is published has a word that is no longer the slot's. Closed until the clock
    // has been read: a source not read with its own clock has no readings to vouch for.
    #[inline]
    fn hold_window(&self, epoch: u64) -> Option<HoldWindow> {
        let open = match self.read.load(Ordering::Relaxed) {
            UNREAD => None,
            _ => self.slot.window(epoch),
        };
        Some(match open {
            Some((mark, deadline)) => HoldWindow {
                mark,
                before: self.slot.unix_at_zero().saturating_add(deadline),
            },
            None => HoldWindow { mark: 0, before: 0 },
        })
    }

    // Always: with a window this is what a generator asks before every UUID — one load and
    // a compare.
    #[inline(always)]
    fn holds_marked(&self, _epoch: u64, mark: u64) -> bool {
        self.slot.word_is(mark)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{MANUAL_UNIX_AT_ZERO, ManualBootClock};
    use std::time::Duration;
    use uuidkit::rng::ThreadRng;
    use uuidkit::{Generator, V1Generator, V8Distributed};

    const MS: u64 = 1_000_000;

    fn granted(ttl: Duration) -> (Arc<ManualBootClock>, Arc<LeaseSlot<Arc<ManualBootClock>>>) {
        let boot = Arc::new(ManualBootClock::new(Duration::from_secs(1)));
        let slot = Arc::new(LeaseSlot::new(48, boot.clone(), Duration::ZERO).unwrap());
        slot.grant(0x0200_0000_0001, boot.now(), ttl).unwrap();
        (boot, slot)
    }

    #[test]
    fn a_source_not_read_with_its_clock_yet_reads_the_boot_clock_itself() {
        let (boot, slot) = granted(Duration::from_secs(2));
        let (_clock, source) = slot.pair();
        assert!(source.current().is_ok());
        boot.advance(Duration::from_secs(2));
        assert!(source.current().is_err());
    }

    #[test]
    fn a_source_not_read_with_its_clock_yet_holds_no_tenure_however_late_its_deadline() {
        // A TTL of 2^62 ns: a deadline beyond what the word holds, kept as its latest.
        let (_boot, slot) = granted(Duration::from_nanos(1 << 62));
        let (clock, source) = slot.pair();
        let node = source.current().unwrap();
        assert!(
            !source.holds(node.epoch()),
            "no reading kept: ask `current`"
        );
        clock.now_ns();
        assert!(source.holds(node.epoch()));
    }

    #[test]
    fn the_deadline_is_checked_against_the_reading_the_uuid_is_made_from() {
        // A v8 generator makes UUIDs until its node is lost, the boot clock 1 ms further at
        // each: every UUID made carries a time before the deadline, the last one the
        // millisecond before it.
        let (boot, slot) = granted(Duration::from_millis(50));
        let (clock, source) = slot.pair();
        let deadline_ms = (MANUAL_UNIX_AT_ZERO + 1_050 * MS) / MS;
        let mut g = V8Distributed::builder()
            .node_source(source)
            .build(&clock, ThreadRng)
            .unwrap();
        let mut made = Vec::new();
        for _ in 0..100 {
            boot.advance(Duration::from_millis(1));
            match g.generate() {
                Ok(u) => made.push(u),
                Err(e) => {
                    assert_eq!(e.kind(), uuidkit::generator::GenErrorKind::NodeLost, "{e}");
                    break;
                }
            }
        }
        assert_eq!(made.len(), 49, "one per millisecond until the deadline");
        assert!(
            made.iter()
                .all(|u| (u.as_u128() >> 80) as u64 <= deadline_ms)
        );
        assert_eq!((made[48].as_u128() >> 80) as u64, deadline_ms - 1);
    }

    #[test]
    fn v1_asks_before_its_first_reading_and_checks_after_every_one() {
        let (boot, slot) = granted(Duration::from_secs(1));
        let (clock, source) = slot.pair();
        let mut g = V1Generator::builder()
            .node_source(source)
            .build(&clock, ThreadRng)
            .unwrap();
        let u = g.generate().unwrap();
        assert_eq!(u.node(), Some([2, 0, 0, 0, 0, 1]));
        boot.advance(Duration::from_secs(1));
        assert!(g.generate().is_err());
    }

    #[test]
    fn holds_answers_for_the_tenure_asked_about_only() {
        let (boot, slot) = granted(Duration::from_secs(2));
        let (clock, source) = slot.pair();
        let first = source.current().unwrap();
        clock.now_ns();
        assert!(source.holds(first.epoch()));
        assert!(!source.holds(first.epoch() + 1), "no such tenure");
        // Renewed: the same tenure, a later deadline.
        slot.renew(boot.now(), Duration::from_secs(2)).unwrap();
        boot.advance(Duration::from_millis(1_500));
        clock.now_ns();
        assert!(source.holds(first.epoch()));
        // Granted anew, the same value: another tenure.
        let again = slot
            .grant(first.value(), boot.now(), Duration::from_secs(2))
            .unwrap();
        assert_eq!(
            (again.value(), again.epoch() > first.epoch()),
            (first.value(), true)
        );
        assert!(!source.holds(first.epoch()));
        assert!(source.holds(again.epoch()));
        // Past the deadline of the reading kept: lost, whatever the tenure.
        boot.advance(Duration::from_secs(2));
        clock.now_ns();
        assert!(!source.holds(again.epoch()));
        assert!(source.current().is_err());
        // Lost by the registry's word: lost, though the deadline had not passed.
        let third = slot
            .grant(first.value(), boot.now(), Duration::from_secs(2))
            .unwrap();
        clock.now_ns();
        assert!(source.holds(third.epoch()));
        slot.lose(NodeLost::new(uuidkit::node::NodeLostKind::Conflict));
        assert!(!source.holds(third.epoch()));
    }

    #[test]
    fn a_v1_generator_starts_a_new_clock_sequence_for_a_new_tenure_of_its_node() {
        let (boot, slot) = granted(Duration::from_secs(2));
        let (clock, source) = slot.pair();
        // Not held to the clock's ticks: the boot clock here moves only when told.
        let mut g = V1Generator::builder()
            .rollover(uuidkit::generator::RolloverPolicy::AdvanceTimestamp)
            .node_source(source)
            .build(&clock, ThreadRng)
            .unwrap();
        let a = g.generate().unwrap();
        boot.advance(Duration::from_millis(1));
        assert_eq!(
            g.generate().unwrap().clock_seq(),
            a.clock_seq(),
            "same tenure"
        );
        slot.grant(0x0200_0000_0001, boot.now(), Duration::from_secs(2))
            .unwrap();
        let seqs: Vec<_> = (0..2).map(|_| g.generate().unwrap().clock_seq()).collect();
        assert_ne!(seqs[0], a.clock_seq(), "a new tenure, a new clock sequence");
        assert_eq!(seqs[1], seqs[0]);
    }

    type PairedSnowflake = uuidkit::snowflake::SnowflakeGenerator<
        LeaseClock<Arc<ManualBootClock>>,
        ThreadRng,
        uuidkit::generator::NoReserve,
        LeaseSource<Arc<ManualBootClock>>,
    >;

    /// Twitter's layout on a pair of a slot that holds worker 5 for `ttl` from a boot time of
    /// 1 s.
    fn snowflake_on_a_pair(
        ttl: Duration,
    ) -> (
        Arc<ManualBootClock>,
        Arc<LeaseSlot<Arc<ManualBootClock>>>,
        PairedSnowflake,
    ) {
        let boot = Arc::new(ManualBootClock::new(Duration::from_secs(1)));
        let slot = Arc::new(LeaseSlot::new(10, boot.clone(), Duration::ZERO).unwrap());
        slot.grant(5, boot.now(), ttl).unwrap();
        let (clock, source) = slot.pair();
        let g =
            uuidkit::snowflake::SnowflakeGenerator::builder(uuidkit::snowflake::Layout::TWITTER)
                .node_source(source)
                .build(clock, ThreadRng)
                .unwrap();
        (boot, slot, g)
    }

    /// A snowflake generator on a pair (Twitter's layout, 1 ms ticks; the deadline, in 2^20 ns
    /// ticks, falls inside one of them) made to read the boot clock every 37 µs: it makes IDs
    /// for every reading before the deadline — several a tick, by its one-step path — and none
    /// for a reading at or past it.
    #[test]
    fn a_snowflake_generator_makes_ids_up_to_the_deadline_and_none_past_it() {
        let (boot, slot, mut g) = snowflake_on_a_pair(Duration::from_millis(50));
        let deadline = slot.deadline().unwrap();
        let (mut made, mut per_tick) = (0, std::collections::BTreeMap::<u64, u32>::new());
        loop {
            let at = boot.now();
            match g.generate() {
                Ok(id) => {
                    assert!(
                        tick(at.as_nanos() as u64) < tick(deadline.as_nanos() as u64),
                        "an ID for a reading in the deadline's tick or past it: {at:?}"
                    );
                    assert_eq!(id >> 12 & 0x3FF, 5);
                    *per_tick.entry(id >> 22).or_default() += 1;
                    made += 1;
                }
                Err(e) => {
                    assert_eq!(e.kind(), uuidkit::generator::GenErrorKind::NodeLost, "{e}");
                    assert!(tick(at.as_nanos() as u64) >= tick(deadline.as_nanos() as u64));
                    break;
                }
            }
            boot.advance(Duration::from_micros(37));
        }
        let before = (tick(deadline.as_nanos() as u64) << crate::deadline::TICK_SHIFT)
            - Duration::from_secs(1).as_nanos() as u64;
        assert_eq!(
            made as u64,
            before.div_ceil(37_000),
            "every reading before it made one"
        );
        // Every whole tick made all its readings' IDs; the deadline's tick those before it.
        let counts: Vec<u32> = per_tick.values().copied().collect();
        let (last, whole) = counts.split_last().unwrap();
        assert!(whole.iter().all(|&n| n >= 26) && *last >= 1, "{per_tick:?}");
    }

    /// Between two readings in one tick the slot's word changes: a loss stops the very next ID,
    /// a renewal does not, and a new tenure of the same worker is taken up in the next tick.
    #[test]
    fn a_snowflake_generator_on_a_pair_sees_a_loss_or_a_renewal_at_the_next_id() {
        let (boot, slot, mut g) = snowflake_on_a_pair(Duration::from_secs(2));
        for _ in 0..3 {
            g.generate().unwrap();
        }
        slot.renew(boot.now(), Duration::from_secs(2)).unwrap();
        let a = g.generate().unwrap();
        slot.lose(NodeLost::new(uuidkit::node::NodeLostKind::Conflict));
        assert_eq!(
            g.generate().unwrap_err().kind(),
            uuidkit::generator::GenErrorKind::NodeLost
        );
        slot.grant(5, boot.now(), Duration::from_secs(2)).unwrap();
        // A new tenure starts in a tick the last one did not use.
        boot.advance(Duration::from_millis(1));
        let b = g.generate().unwrap();
        assert!(b > a);
        assert_eq!(g.generate().unwrap(), b + 1);
    }

    #[test]
    fn the_clock_follows_the_wall_clock_sampled_at_each_renewal() {
        let (boot, slot) = granted(Duration::from_secs(10));
        let (clock, _source) = slot.pair();
        assert_eq!(clock.now_ns(), MANUAL_UNIX_AT_ZERO + 1_000 * MS);
        boot.advance(Duration::from_millis(3));
        assert_eq!(clock.now_ns(), MANUAL_UNIX_AT_ZERO + 1_003 * MS);
        // With the system's boot clock: within a second of the wall clock.
        let slot = Arc::new(LeaseSlot::new(8, BootTime, Duration::ZERO).unwrap());
        let (clock, _) = slot.pair();
        let wall = uuidkit::clock::SystemClock.now_ns();
        assert!(clock.now_ns().abs_diff(wall) < 1_000 * MS);
    }
}
