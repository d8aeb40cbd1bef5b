//! Block reservation (RFC 9562 §6.3) as a pure function: stored high-water
//! marks, the time now and the policy in; the block this process may use, and
//! the state to write back, out. No file, no clock, no randomness.

use core::time::Duration;

use super::format::{GregorianMark, V7Mark};
use uuidkit::layout::{
    MAX_CLOCK_SEQ, MAX_GREGORIAN_TIMESTAMP as TS60_MAX, MAX_UNIX_TS_MS as MS48_MAX,
};

/// How large a block is reserved, and when the clock counts as behind.
///
/// ```
/// use core::time::Duration;
/// use uuidkit_state::BlockPolicy;
/// let p = BlockPolicy::default();
/// assert_eq!(p.block, Duration::from_millis(100));
/// assert_eq!(p.behind_tolerance, Duration::from_secs(1));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BlockPolicy {
    /// How far past its start a block reaches. A process touches the state file
    /// about once per block (more often only if it issues UUIDs faster than
    /// the timestamp advances). When several processes share a file, each
    /// reservation starts where the last one ended, so with `n` busy processes
    /// timestamps may run up to `(n - 1) × block` ahead of the clock.
    /// Default 100 ms.
    pub block: Duration,
    /// How far the stored high-water mark may be ahead of the clock and still be
    /// taken as other processes' reservations. Beyond it the clock is *behind*:
    /// v1/v6 change the clock sequence and restart at the clock (RFC 9562 §6.1,
    /// "clock going backwards"); v7 continues above the mark regardless, and the
    /// block records by how much the clock was behind. Default 1 s.
    pub behind_tolerance: Duration,
}

impl Default for BlockPolicy {
    fn default() -> BlockPolicy {
        BlockPolicy {
            block: Duration::from_millis(100),
            behind_tolerance: Duration::from_secs(1),
        }
    }
}

/// Why a block starts where it does.
///
/// ```
/// use uuidkit_state::{BlockOrigin, BlockPolicy};
/// let b = BlockPolicy::default().reserve_v7(None, 1_000);
/// assert_eq!(b.origin, BlockOrigin::NoState);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum BlockOrigin {
    /// Nothing was stored: the block starts at the clock, with a random clock
    /// sequence (v1/v6).
    NoState,
    /// The block starts at the later of the clock and the stored high-water mark,
    /// with the stored clock sequence and node.
    Continued,
    /// The clock was behind the stored high-water mark by more than the
    /// tolerance, by the given amount (in the version's timestamp unit: 100 ns for
    /// v1/v6, 1 ms for v7). v1/v6: the clock sequence was incremented and the
    /// block starts at the clock. v7: the block still starts at the mark.
    ClockBehind {
        /// How far the mark was ahead of the clock.
        by: u64,
    },
    /// v1/v6: the node differs from the stored one, so the clock sequence was
    /// drawn afresh (RFC 9562 §6.3); the block starts as for `Continued` (or at
    /// the clock if the clock is behind).
    NodeChanged,
    /// The store could not persist the reservation (in-process fallback:
    /// the lock was not taken in time, or the file could not be written), so
    /// other processes may reserve the same range. v1/v6: the block has a
    /// fresh random clock sequence, and a fresh random node unless the
    /// generator was given one, never the stored ones (RFC 9562 §6.3: state
    /// unavailable). v7: the block starts at the later of the clock and the
    /// marks known to this process; uniqueness rests on the random bits.
    Fallback,
}

/// Fresh random values for a v1/v6 reservation: used only when nothing usable is
/// stored (the caller draws them, so the reservation stays deterministic).
///
/// ```
/// let f = uuidkit_state::Fresh { clock_seq: 0x1234, node: [2, 0, 0, 0, 0, 1] };
/// assert_eq!(f.clock_seq, 0x1234);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Fresh {
    /// A random clock sequence (truncated to 14 bits).
    pub clock_seq: u16,
    /// A random node; the multicast bit is set on use (RFC 9562 §6.10).
    pub node: [u8; 6],
}

/// A v1/v6 block: the process may issue timestamps in `start..end` with
/// `clock_seq` and `node`, and no other process sharing the state will.
///
/// ```
/// use uuidkit_state::{BlockPolicy, Fresh};
/// let b = BlockPolicy::default().reserve_gregorian(None, 5_000_000, None, Fresh { clock_seq: 7, node: [0; 6] });
/// assert_eq!((b.start, b.end), (5_000_000, 6_000_000));
/// assert_eq!((b.clock_seq, b.node), (7, [1, 0, 0, 0, 0, 0]));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GregorianBlock {
    /// First timestamp of the block (60-bit, 100-ns units since 1582-10-15).
    pub start: u64,
    /// One past the last timestamp of the block: the new high-water mark.
    pub end: u64,
    /// The clock sequence to use.
    pub clock_seq: u16,
    /// The node to use.
    pub node: [u8; 6],
    /// Why the block starts where it does.
    pub origin: BlockOrigin,
}

impl GregorianBlock {
    /// The state to store once this block is reserved.
    ///
    /// ```
    /// use uuidkit_state::{BlockPolicy, Fresh, format::GregorianMark};
    /// let b = BlockPolicy::default().reserve_gregorian(None, 10, Some([0; 6]), Fresh { clock_seq: 3, node: [9; 6] });
    /// assert_eq!(b.stored(), GregorianMark { hwm: 1_000_010, clock_seq: 3, node: [0; 6] });
    /// ```
    #[must_use]
    pub fn stored(&self) -> GregorianMark {
        GregorianMark {
            hwm: self.end,
            clock_seq: self.clock_seq,
            node: self.node,
        }
    }
}

/// A v7 block: the process may issue every UUID whose millisecond timestamp is
/// in `start_ms..end_ms`, and no other process sharing the state will.
///
/// ```
/// let b = uuidkit_state::BlockPolicy::default().reserve_v7(None, 1_000);
/// assert_eq!((b.start_ms, b.end_ms), (1_000, 1_100));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct V7Block {
    /// First millisecond of the block.
    pub start_ms: u64,
    /// One past the last millisecond of the block: the new high-water mark.
    pub end_ms: u64,
    /// Why the block starts where it does.
    pub origin: BlockOrigin,
}

impl V7Block {
    /// The state to store once this block is reserved.
    ///
    /// ```
    /// let b = uuidkit_state::BlockPolicy::default().reserve_v7(None, 1_000);
    /// assert_eq!(b.stored().hwm_ms, 1_100);
    /// ```
    #[must_use]
    pub fn stored(&self) -> V7Mark {
        V7Mark {
            hwm_ms: self.end_ms,
        }
    }
}

impl BlockPolicy {
    /// The longest block: a crash leaves the stored mark at most this far
    /// ahead of what was issued.
    pub const MAX_BLOCK: Duration = Duration::from_secs(10);

    /// The longest behind-tolerance.
    pub const MAX_BEHIND_TOLERANCE: Duration = Duration::from_secs(3_600);

    /// The policy if both durations are within their bounds (a block of at
    /// least 1 ms and at most [`MAX_BLOCK`](Self::MAX_BLOCK), a tolerance of
    /// at most [`MAX_BEHIND_TOLERANCE`](Self::MAX_BEHIND_TOLERANCE)).
    /// [`Reserver`](super::Reserver) takes any policy but clamps it to these
    /// bounds; bindings that take the durations from users check them here.
    ///
    /// # Errors
    /// [`GenErrorKind::InvalidConfig`](uuidkit::generator::GenErrorKind::InvalidConfig)
    /// naming the field, its range and the value found (in milliseconds).
    ///
    /// ```
    /// use core::time::Duration;
    /// use uuidkit_state::BlockPolicy;
    /// let p = BlockPolicy { block: Duration::from_secs(3_600), ..BlockPolicy::default() };
    /// let err = p.checked().unwrap_err();
    /// assert_eq!(err.to_string(), "invalid generator config: expected block in 1..=10000 ms, found 3600000");
    /// assert!(BlockPolicy::default().checked().is_ok());
    /// ```
    pub fn checked(self) -> Result<BlockPolicy, uuidkit::GenError> {
        let ms = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
        if self.block < Duration::from_millis(1) || self.block > Self::MAX_BLOCK {
            return Err(uuidkit::GenError::invalid_config(
                "block in 1..=10000 ms",
                ms(self.block),
            ));
        }
        if self.behind_tolerance > Self::MAX_BEHIND_TOLERANCE {
            return Err(uuidkit::GenError::invalid_config(
                "behind tolerance in 0..=3600000 ms",
                ms(self.behind_tolerance),
            ));
        }
        Ok(self)
    }

    /// The policy with both durations clamped to their bounds.
    pub(crate) fn clamped(self) -> BlockPolicy {
        BlockPolicy {
            block: self.block.min(Self::MAX_BLOCK),
            behind_tolerance: self.behind_tolerance.min(Self::MAX_BEHIND_TOLERANCE),
        }
    }

    /// Block length in 100-ns ticks (at least 1).
    fn ticks(d: Duration) -> u64 {
        u64::try_from(d.as_nanos() / 100).unwrap_or(u64::MAX).max(1)
    }

    /// Block length in milliseconds (at least 1).
    fn millis(d: Duration) -> u64 {
        u64::try_from(d.as_millis()).unwrap_or(u64::MAX).max(1)
    }

    /// Reserves the next v1/v6 block.
    ///
    /// `now` is the clock as a 60-bit Gregorian timestamp; `node` the node the
    /// caller insists on (`None`: keep the stored one, or `fresh.node` if none is
    /// stored); `fresh` random values used only when nothing usable is stored.
    ///
    /// * nothing stored: start at `now`, clock sequence `fresh.clock_seq`;
    /// * stored node ≠ `node`: clock sequence `fresh.clock_seq`, start as below;
    /// * stored mark more than `behind_tolerance` ahead of `now`: start at `now`,
    ///   stored clock sequence + 1 (mod 2¹⁴);
    /// * otherwise: start at `max(now, mark)` with the stored clock sequence.
    ///
    /// The block ends `block` after its start (saturating at the 60-bit limit, so
    /// a block at the end of time may be empty).
    ///
    /// ```
    /// use core::time::Duration;
    /// use uuidkit_state::{BlockOrigin, BlockPolicy, Fresh, format::GregorianMark};
    /// let p = BlockPolicy::default();
    /// let fresh = Fresh { clock_seq: 0, node: [0; 6] };
    /// let node = [1, 2, 3, 4, 5, 6];
    /// // Another process reserved up to 1_500_000: continue there.
    /// let stored = GregorianMark { hwm: 1_500_000, clock_seq: 42, node };
    /// let b = p.reserve_gregorian(Some(&stored), 1_000_000, None, fresh);
    /// assert_eq!((b.start, b.end, b.clock_seq, b.origin), (1_500_000, 2_500_000, 42, BlockOrigin::Continued));
    /// // The clock is 5 s behind the mark: new clock sequence, start at the clock.
    /// let stored = GregorianMark { hwm: 60_000_000, clock_seq: 0x3FFF, node };
    /// let b = p.reserve_gregorian(Some(&stored), 10_000_000, None, fresh);
    /// assert_eq!((b.start, b.clock_seq, b.origin), (10_000_000, 0, BlockOrigin::ClockBehind { by: 50_000_000 }));
    /// ```
    #[must_use]
    pub fn reserve_gregorian(
        &self,
        stored: Option<&GregorianMark>,
        now: u64,
        node: Option<[u8; 6]>,
        fresh: Fresh,
    ) -> GregorianBlock {
        let now = now.min(TS60_MAX);
        let mut fresh_node = fresh.node;
        fresh_node[0] |= 0x01;
        let fresh_cs = fresh.clock_seq & MAX_CLOCK_SEQ;
        let (start, clock_seq, node, origin) = match stored {
            None => (
                now,
                fresh_cs,
                node.unwrap_or(fresh_node),
                BlockOrigin::NoState,
            ),
            Some(s) => {
                let tolerance =
                    u64::try_from(self.behind_tolerance.as_nanos() / 100).unwrap_or(u64::MAX);
                let behind = s.hwm > now.saturating_add(tolerance);
                match node {
                    Some(n) if n != s.node => {
                        let start = if behind { now } else { now.max(s.hwm) };
                        (start, fresh_cs, n, BlockOrigin::NodeChanged)
                    }
                    _ if behind => {
                        let by = s.hwm - now;
                        (
                            now,
                            (s.clock_seq + 1) & MAX_CLOCK_SEQ,
                            s.node,
                            BlockOrigin::ClockBehind { by },
                        )
                    }
                    _ => (
                        now.max(s.hwm),
                        s.clock_seq & MAX_CLOCK_SEQ,
                        s.node,
                        BlockOrigin::Continued,
                    ),
                }
            }
        };
        let end = start.saturating_add(Self::ticks(self.block)).min(TS60_MAX);
        GregorianBlock {
            start,
            end,
            clock_seq,
            node,
            origin,
        }
    }

    /// Reserves the next v7 block: from `max(now_ms, mark)` for `block`
    /// (saturating at the 48-bit limit). v7 never goes below the mark, so output
    /// stays above everything issued before even when the clock was set back.
    ///
    /// ```
    /// use uuidkit_state::{BlockOrigin, BlockPolicy, format::V7Mark};
    /// let p = BlockPolicy::default();
    /// let b = p.reserve_v7(Some(&V7Mark { hwm_ms: 10_000 }), 5_000);
    /// assert_eq!((b.start_ms, b.end_ms, b.origin), (10_000, 10_100, BlockOrigin::ClockBehind { by: 5_000 }));
    /// let b = p.reserve_v7(Some(&V7Mark { hwm_ms: 10_000 }), 20_000);
    /// assert_eq!((b.start_ms, b.origin), (20_000, BlockOrigin::Continued));
    /// ```
    #[must_use]
    pub fn reserve_v7(&self, stored: Option<&V7Mark>, now_ms: u64) -> V7Block {
        let now = now_ms.min(MS48_MAX);
        let (start_ms, origin) = match stored {
            None => (now, BlockOrigin::NoState),
            Some(s)
                if s.hwm_ms
                    > now.saturating_add(
                        u64::try_from(self.behind_tolerance.as_millis()).unwrap_or(u64::MAX),
                    ) =>
            {
                (s.hwm_ms, BlockOrigin::ClockBehind { by: s.hwm_ms - now })
            }
            Some(s) => (now.max(s.hwm_ms), BlockOrigin::Continued),
        };
        let end_ms = start_ms
            .saturating_add(Self::millis(self.block))
            .min(MS48_MAX);
        V7Block {
            start_ms,
            end_ms,
            origin,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::vec::Vec;

    const MS: u64 = 10_000; // 100-ns ticks per millisecond
    const NODE: [u8; 6] = [0x9F, 0x6B, 0xDE, 0xCE, 0xD8, 0x46];
    const FRESH: Fresh = Fresh {
        clock_seq: 0xFFFF,
        node: [0x10, 0, 0, 0, 0, 0x20],
    };

    /// A "manual clock" walk: several processes reserve in turn while time
    /// advances in steps; every pair of blocks with the same clock sequence and
    /// node must be disjoint, and the stored mark covers all of them.
    #[test]
    fn interleaved_reservations_are_disjoint() {
        let p = BlockPolicy::default();
        let mut stored: Option<GregorianMark> = None;
        let mut blocks: Vec<GregorianBlock> = Vec::new();
        let mut now = 0x1EC9414C232AB00u64;
        for step in 0..200u64 {
            now += (step % 7) * 40 * MS; // the clock moves 0..240 ms between reservations
            let b = p.reserve_gregorian(stored.as_ref(), now, Some(NODE), FRESH);
            assert!(b.start >= now && b.end == b.start + 100 * MS, "{b:?}");
            stored = Some(b.stored());
            blocks.push(b);
        }
        assert_eq!(blocks[0].origin, BlockOrigin::NoState);
        assert_eq!(
            blocks[0].clock_seq, 0x3FFF,
            "fresh clock_seq truncated to 14 bits"
        );
        assert!(
            blocks[1..]
                .iter()
                .all(|b| b.origin == BlockOrigin::Continued && b.clock_seq == 0x3FFF)
        );
        for w in blocks.windows(2) {
            assert!(w[1].start >= w[0].end, "{:?} overlaps {:?}", w[1], w[0]);
        }
    }

    #[test]
    fn gregorian_no_state_uses_fresh_values_with_multicast_bit() {
        let b = BlockPolicy::default().reserve_gregorian(None, 77, None, FRESH);
        assert_eq!(
            b,
            GregorianBlock {
                start: 77,
                end: 77 + 100 * MS,
                clock_seq: 0x3FFF,
                node: [0x11, 0, 0, 0, 0, 0x20],
                origin: BlockOrigin::NoState
            }
        );
        let b = BlockPolicy::default().reserve_gregorian(None, 77, Some(NODE), FRESH);
        assert_eq!(b.node, NODE, "a given node is used as is");
    }

    #[test]
    fn gregorian_clock_behind_increments_clock_seq_at_tolerance_edge() {
        let p = BlockPolicy::default();
        let s = GregorianMark {
            hwm: 100_000 * MS,
            clock_seq: 5,
            node: NODE,
        };
        // Exactly at the tolerance: still "other processes ahead".
        let b = p.reserve_gregorian(Some(&s), 99_000 * MS, None, FRESH);
        assert_eq!(
            (b.start, b.clock_seq, b.origin),
            (100_000 * MS, 5, BlockOrigin::Continued)
        );
        // One tick further behind: clock sequence changes, start at the clock.
        let b = p.reserve_gregorian(Some(&s), 99_000 * MS - 1, None, FRESH);
        assert_eq!(
            (b.start, b.end, b.clock_seq, b.origin),
            (
                99_000 * MS - 1,
                99_100 * MS - 1,
                6,
                BlockOrigin::ClockBehind { by: 1000 * MS + 1 }
            )
        );
        assert_eq!(
            b.stored().hwm,
            99_100 * MS - 1,
            "the mark follows the new clock sequence"
        );
        // Restart 5 s behind.
        let b = p.reserve_gregorian(Some(&s), 95_000 * MS, None, FRESH);
        assert_eq!(
            (b.clock_seq, b.origin),
            (6, BlockOrigin::ClockBehind { by: 5_000 * MS })
        );
    }

    #[test]
    fn gregorian_node_change_redraws_clock_seq() {
        let p = BlockPolicy::default();
        let s = GregorianMark {
            hwm: 500 * MS,
            clock_seq: 5,
            node: NODE,
        };
        let b = p.reserve_gregorian(Some(&s), 100 * MS, Some([2; 6]), FRESH);
        assert_eq!(
            (b.start, b.clock_seq, b.node, b.origin),
            (500 * MS, 0x3FFF, [2; 6], BlockOrigin::NodeChanged)
        );
        let far = GregorianMark {
            hwm: 20_000 * MS,
            ..s
        };
        let b = p.reserve_gregorian(Some(&far), 0, Some([2; 6]), FRESH);
        assert_eq!(
            (b.start, b.origin),
            (0, BlockOrigin::NodeChanged),
            "clock behind: start at the clock"
        );
        let b = p.reserve_gregorian(Some(&s), 100 * MS, Some(NODE), FRESH);
        assert_eq!(
            (b.start, b.clock_seq, b.origin),
            (500 * MS, 5, BlockOrigin::Continued)
        );
    }

    #[test]
    fn end_of_time_saturates() {
        let p = BlockPolicy::default();
        let b = p.reserve_gregorian(None, u64::MAX, None, FRESH);
        assert_eq!(
            (b.start, b.end),
            (TS60_MAX, TS60_MAX),
            "empty block at the end of time"
        );
        let b = p.reserve_v7(
            Some(&V7Mark {
                hwm_ms: MS48_MAX - 10,
            }),
            MS48_MAX - 20,
        );
        assert_eq!((b.start_ms, b.end_ms), (MS48_MAX - 10, MS48_MAX));
        let b = p.reserve_v7(None, u64::MAX);
        assert_eq!((b.start_ms, b.end_ms), (MS48_MAX, MS48_MAX));
    }

    #[test]
    fn v7_restart_with_clock_back_continues_above_mark() {
        let p = BlockPolicy {
            block: Duration::from_millis(250),
            behind_tolerance: Duration::from_secs(1),
        };
        let mut now = 1_645_557_742_000u64;
        let mut stored = None;
        let mut last_end = 0;
        for _ in 0..10 {
            let b = p.reserve_v7(stored.as_ref(), now);
            assert!(b.start_ms >= last_end && b.end_ms == b.start_ms + 250);
            last_end = b.end_ms;
            stored = Some(b.stored());
            now += 100;
        }
        // Crash, then restart with the clock 5 s back.
        let b = p.reserve_v7(stored.as_ref(), now - 5_000);
        assert_eq!(b.start_ms, last_end);
        assert_eq!(
            b.origin,
            BlockOrigin::ClockBehind {
                by: last_end - (now - 5_000)
            }
        );
    }

    #[test]
    fn tiny_durations_still_make_progress() {
        let p = BlockPolicy {
            block: Duration::from_nanos(1),
            behind_tolerance: Duration::ZERO,
        };
        assert_eq!(p.reserve_v7(None, 5).end_ms, 6);
        let b = p.reserve_gregorian(None, 5, None, FRESH);
        assert_eq!(b.end, 6);
        let s = b.stored();
        let b = p.reserve_gregorian(Some(&s), 5, None, FRESH);
        assert_eq!(
            b.origin,
            BlockOrigin::ClockBehind { by: 1 },
            "zero tolerance: 1 tick behind counts"
        );
        assert_eq!(
            (b.start, b.clock_seq),
            (5, ((FRESH.clock_seq & 0x3FFF) + 1) & 0x3FFF)
        );
    }
}
