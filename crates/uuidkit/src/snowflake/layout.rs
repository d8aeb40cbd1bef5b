//! [`Layout`]: how a 64-bit time-ordered ID splits into time, worker and
//! sequence, from which epoch, in which unit; the presets of the well-known
//! schemes, and compose and decompose.

use crate::GenError;

const NS_PER_MS: u64 = 1_000_000;

/// Which of the two low fields comes first (more significant) after the
/// time: the worker (Twitter, Discord, Instagram, TSID) or the sequence
/// (Sonyflake).
///
/// ```
/// use uuidkit::snowflake::{FieldOrder, Layout};
/// assert_eq!(Layout::TWITTER.order(), FieldOrder::WorkerFirst);
/// assert_eq!(Layout::SONYFLAKE.order(), FieldOrder::SequenceFirst);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FieldOrder {
    /// time | worker | sequence.
    WorkerFirst,
    /// time | sequence | worker.
    SequenceFirst,
}

/// Where a layout's sequence starts at each new tick.
///
/// ```
/// use uuidkit::snowflake::{Layout, SequenceStart};
/// assert_eq!(Layout::TWITTER.sequence_start(), SequenceStart::Zero);
/// assert_eq!(Layout::TSID.sequence_start(), SequenceStart::Random);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SequenceStart {
    /// At 0: the whole sequence is there for each tick.
    Zero,
    /// At a random value with the top bit clear (as TSID seeds its counter),
    /// so that IDs of one tick do not reveal how many came before; at least
    /// half the sequence is left for each tick.
    Random,
}

/// The parts of an ID: its tick (time units since the layout's epoch), its
/// worker and its sequence number within the tick.
///
/// ```
/// use uuidkit::snowflake::{Layout, Parts};
/// let id = Layout::TWITTER.compose(Parts { tick: 5, worker: 37, sequence: 2 })?;
/// assert_eq!(id, 5 << 22 | 37 << 12 | 2);
/// assert_eq!(Layout::TWITTER.decompose(id)?, Parts { tick: 5, worker: 37, sequence: 2 });
/// # Ok::<(), uuidkit::GenError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Parts {
    /// Time units ([`Layout::tick_ns`]) since the layout's epoch.
    pub tick: u64,
    /// The worker (machine, shard, node) ID.
    pub worker: u64,
    /// The sequence number within the tick.
    pub sequence: u64,
}

/// A 64-bit time-ordered ID layout, validated: the widths of its time,
/// worker and sequence fields (adding up to 63, leaving the sign bit of an
/// `i64` clear, or 64), their order, its epoch (Unix milliseconds) and its
/// time unit (the *tick*). The presets are the published schemes, checked
/// against their own code or documentation (`docs/snowflake.md` cites
/// them):
///
/// | preset | time | worker | sequence | epoch | tick | bits |
/// |---|---|---|---|---|---|---|
/// | [`TWITTER`](Self::TWITTER) | 41 | 10 (5 datacenter + 5 worker) | 12 | 1288834974657 (2010-11-04T01:42:54.657Z) | 1 ms | 63 |
/// | [`DISCORD`](Self::DISCORD) | 42 | 10 (5 worker + 5 process) | 12 | 1420070400000 (2015-01-01) | 1 ms | 64 |
/// | [`INSTAGRAM`](Self::INSTAGRAM) | 41 | 13 (logical shard) | 10 | 1314220021721 (2011-08-24T21:07:01.721Z) | 1 ms | 64 |
/// | [`SONYFLAKE`](Self::SONYFLAKE) | 39 | 16 (machine), after the sequence | 8 | 1409529600000 (2014-09-01) | 10 ms | 63 |
/// | [`TSID`](Self::TSID) | 42 | 10 (node) | 12, from a random start | 1577836800000 (2020-01-01) | 1 ms | 64 |
///
/// ```
/// use uuidkit::snowflake::Layout;
/// let l: Layout = "twitter".parse()?;
/// assert_eq!(l, Layout::TWITTER);
/// assert_eq!((l.time_bits(), l.worker_bits(), l.sequence_bits()), (41, 10, 12));
/// assert_eq!(l.to_string(), "twitter");
///
/// // A custom split: 40 time bits of 10 ms from 2024, 14 worker bits, 10 sequence bits.
/// let custom = Layout::new(40, 14, 10, 1_704_067_200_000, 10_000_000)?;
/// assert_eq!(custom.to_string(), "t40.w14.s10.e1704067200000.u10ms");
/// assert_eq!(custom.to_string().parse::<Layout>()?, custom);
/// assert_eq!(
///     Layout::new(41, 10, 14, 0, 1_000_000).unwrap_err().to_string(),
///     "invalid generator config: expected time + worker + sequence bits adding up to 63 or 64, found 65"
/// );
/// # Ok::<(), uuidkit::GenError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Layout {
    time_bits: u8,
    worker_bits: u8,
    sequence_bits: u8,
    order: FieldOrder,
    start: SequenceStart,
    epoch_ms: u64,
    tick_ns: u64,
}

/// The presets, by name.
const PRESETS: [(&str, Layout); 5] = [
    ("twitter", Layout::TWITTER),
    ("discord", Layout::DISCORD),
    ("instagram", Layout::INSTAGRAM),
    ("sonyflake", Layout::SONYFLAKE),
    ("tsid", Layout::TSID),
];

const fn preset(
    bits: (u8, u8, u8),
    order: FieldOrder,
    start: SequenceStart,
    epoch_ms: u64,
    tick_ns: u64,
) -> Layout {
    Layout {
        time_bits: bits.0,
        worker_bits: bits.1,
        sequence_bits: bits.2,
        order,
        start,
        epoch_ms,
        tick_ns,
    }
}

impl Layout {
    /// Twitter's Snowflake: 41 bits of milliseconds since 2010-11-04T01:42:54.657Z
    /// (`twepoch`), a 10-bit worker (datacenter and worker, 5 bits each), a
    /// 12-bit sequence; the sign bit clear.
    pub const TWITTER: Layout = preset(
        (41, 10, 12),
        FieldOrder::WorkerFirst,
        SequenceStart::Zero,
        1_288_834_974_657,
        NS_PER_MS,
    );
    /// Discord's snowflakes: 42 bits of milliseconds since 2015-01-01, a
    /// 10-bit worker (internal worker and process, 5 bits each), a 12-bit
    /// increment.
    pub const DISCORD: Layout = preset(
        (42, 10, 12),
        FieldOrder::WorkerFirst,
        SequenceStart::Zero,
        1_420_070_400_000,
        NS_PER_MS,
    );
    /// Instagram's sharded IDs: 41 bits of milliseconds since
    /// 2011-08-24T21:07:01.721Z, a 13-bit logical shard, a 10-bit sequence.
    pub const INSTAGRAM: Layout = preset(
        (41, 13, 10),
        FieldOrder::WorkerFirst,
        SequenceStart::Zero,
        1_314_220_021_721,
        NS_PER_MS,
    );
    /// Sony's Sonyflake: 39 bits of 10-ms units since 2014-09-01, an 8-bit
    /// sequence, then a 16-bit machine ID; the sign bit clear.
    pub const SONYFLAKE: Layout = preset(
        (39, 16, 8),
        FieldOrder::SequenceFirst,
        SequenceStart::Zero,
        1_409_529_600_000,
        10 * NS_PER_MS,
    );
    /// TSID (`tsid-creator`'s default): 42 bits of milliseconds since
    /// 2020-01-01, a 10-bit node, a 12-bit counter that starts at a random
    /// value each millisecond.
    pub const TSID: Layout = preset(
        (42, 10, 12),
        FieldOrder::WorkerFirst,
        SequenceStart::Random,
        1_577_836_800_000,
        NS_PER_MS,
    );

    /// A custom layout: `time_bits` of `tick_ns`-nanosecond units since
    /// `epoch_ms` (Unix milliseconds), then `worker_bits` (1..=48, as wide
    /// as a [`NodeSource`](crate::node::NodeSource) can be) of worker, then
    /// `sequence_bits` of sequence, starting at 0 each tick. Change the order
    /// with [`with_order`](Self::with_order), the start with
    /// [`with_sequence_start`](Self::with_sequence_start).
    ///
    /// # Errors
    /// [`GenErrorKind::InvalidConfig`](crate::generator::GenErrorKind::InvalidConfig)
    /// when the widths do not add up to 63 or 64, a width is out of range,
    /// the tick is 0, or the epoch is past the last nanosecond a `u64` counts
    /// from 1970 (2554-07-21).
    ///
    /// ```
    /// use uuidkit::snowflake::Layout;
    /// assert_eq!(Layout::new(41, 10, 12, 1_288_834_974_657, 1_000_000)?, Layout::TWITTER);
    /// assert_eq!(Layout::new(63, 0, 0, 0, 1).unwrap_err().to_string(), "invalid generator config: expected worker bits in 1..=48, found 0");
    /// assert_eq!(Layout::new(41, 10, 12, 0, 0).unwrap_err().to_string(), "invalid generator config: expected a tick of at least 1 ns, found 0");
    /// assert_eq!(Layout::new(41, 10, 12, 20_000_000_000_000, 1).unwrap_err().to_string(),
    ///     "invalid generator config: expected an epoch (Unix ms) at most 18446744073709, found 20000000000000");
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub const fn new(
        time_bits: u8,
        worker_bits: u8,
        sequence_bits: u8,
        epoch_ms: u64,
        tick_ns: u64,
    ) -> Result<Layout, GenError> {
        if worker_bits == 0 || worker_bits > 48 {
            return Err(GenError::config(
                "worker bits in 1..=48",
                worker_bits as u64,
            ));
        }
        if time_bits == 0 {
            return Err(GenError::config("time bits of at least 1", 0));
        }
        let total = time_bits as u64 + worker_bits as u64 + sequence_bits as u64;
        if total != 63 && total != 64 {
            return Err(GenError::config(
                "time + worker + sequence bits adding up to 63 or 64",
                total,
            ));
        }
        if tick_ns == 0 {
            return Err(GenError::config("a tick of at least 1 ns", 0));
        }
        if epoch_ms > u64::MAX / NS_PER_MS {
            return Err(GenError::config(
                "an epoch (Unix ms) at most 18446744073709",
                epoch_ms,
            ));
        }
        Ok(preset(
            (time_bits, worker_bits, sequence_bits),
            FieldOrder::WorkerFirst,
            SequenceStart::Zero,
            epoch_ms,
            tick_ns,
        ))
    }

    /// The same layout with the low fields in `order`.
    ///
    /// ```
    /// use uuidkit::snowflake::{FieldOrder, Layout};
    /// let l = Layout::new(39, 16, 8, 1_409_529_600_000, 10_000_000)?.with_order(FieldOrder::SequenceFirst);
    /// assert_eq!(l, Layout::SONYFLAKE);
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    #[must_use]
    pub const fn with_order(mut self, order: FieldOrder) -> Layout {
        self.order = order;
        self
    }

    /// The same layout with its sequence starting at `start` each tick.
    ///
    /// ```
    /// use uuidkit::snowflake::{Layout, SequenceStart};
    /// let l = Layout::DISCORD.with_sequence_start(SequenceStart::Random);
    /// assert_eq!(l.sequence_start(), SequenceStart::Random);
    /// ```
    #[must_use]
    pub const fn with_sequence_start(mut self, start: SequenceStart) -> Layout {
        self.start = start;
        self
    }

    /// The presets, with their names.
    ///
    /// ```
    /// let names: Vec<&str> = uuidkit::snowflake::Layout::presets().iter().map(|p| p.0).collect();
    /// assert_eq!(names, ["twitter", "discord", "instagram", "sonyflake", "tsid"]);
    /// ```
    #[must_use]
    pub const fn presets() -> &'static [(&'static str, Layout)] {
        &PRESETS
    }

    /// The preset's name, if this layout is one.
    ///
    /// ```
    /// use uuidkit::snowflake::Layout;
    /// assert_eq!(Layout::SONYFLAKE.preset_name(), Some("sonyflake"));
    /// assert_eq!(Layout::new(40, 14, 10, 0, 1_000_000)?.preset_name(), None);
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    #[must_use]
    pub fn preset_name(&self) -> Option<&'static str> {
        PRESETS.iter().find(|p| p.1 == *self).map(|p| p.0)
    }

    /// The width of the time field.
    ///
    /// ```
    /// assert_eq!(uuidkit::snowflake::Layout::SONYFLAKE.time_bits(), 39);
    /// ```
    #[must_use]
    pub const fn time_bits(&self) -> u8 {
        self.time_bits
    }

    /// The width of the worker field (1..=48).
    ///
    /// ```
    /// assert_eq!(uuidkit::snowflake::Layout::INSTAGRAM.worker_bits(), 13);
    /// ```
    #[must_use]
    pub const fn worker_bits(&self) -> u8 {
        self.worker_bits
    }

    /// The width of the sequence field.
    ///
    /// ```
    /// assert_eq!(uuidkit::snowflake::Layout::INSTAGRAM.sequence_bits(), 10);
    /// ```
    #[must_use]
    pub const fn sequence_bits(&self) -> u8 {
        self.sequence_bits
    }

    /// 63 (the top bit of every ID is 0: an `i64` stays positive) or 64.
    ///
    /// ```
    /// use uuidkit::snowflake::Layout;
    /// assert_eq!((Layout::TWITTER.total_bits(), Layout::DISCORD.total_bits()), (63, 64));
    /// ```
    #[must_use]
    pub const fn total_bits(&self) -> u8 {
        self.time_bits + self.worker_bits + self.sequence_bits
    }

    /// The order of the worker and sequence fields.
    ///
    /// ```
    /// use uuidkit::snowflake::{FieldOrder, Layout};
    /// assert_eq!(Layout::TSID.order(), FieldOrder::WorkerFirst);
    /// ```
    #[must_use]
    pub const fn order(&self) -> FieldOrder {
        self.order
    }

    /// Where the sequence starts each tick.
    ///
    /// ```
    /// use uuidkit::snowflake::{Layout, SequenceStart};
    /// assert_eq!(Layout::DISCORD.sequence_start(), SequenceStart::Zero);
    /// ```
    #[must_use]
    pub const fn sequence_start(&self) -> SequenceStart {
        self.start
    }

    /// The epoch, in Unix milliseconds.
    ///
    /// ```
    /// assert_eq!(uuidkit::snowflake::Layout::DISCORD.epoch_ms(), 1_420_070_400_000);
    /// ```
    #[must_use]
    pub const fn epoch_ms(&self) -> u64 {
        self.epoch_ms
    }

    /// The time unit, in nanoseconds.
    ///
    /// ```
    /// assert_eq!(uuidkit::snowflake::Layout::SONYFLAKE.tick_ns(), 10_000_000);
    /// ```
    #[must_use]
    pub const fn tick_ns(&self) -> u64 {
        self.tick_ns
    }

    /// The last tick the time field holds: `2^time_bits − 1`.
    ///
    /// ```
    /// assert_eq!(uuidkit::snowflake::Layout::TWITTER.max_tick(), (1 << 41) - 1);
    /// ```
    #[must_use]
    pub const fn max_tick(&self) -> u64 {
        (1 << self.time_bits) - 1
    }

    /// The largest sequence number: `2^sequence_bits − 1`.
    ///
    /// ```
    /// assert_eq!(uuidkit::snowflake::Layout::SONYFLAKE.max_sequence(), 255);
    /// ```
    #[must_use]
    pub const fn max_sequence(&self) -> u64 {
        (1 << self.sequence_bits) - 1
    }

    /// The largest worker ID: `2^worker_bits − 1`.
    ///
    /// ```
    /// assert_eq!(uuidkit::snowflake::Layout::TWITTER.max_worker(), 1023);
    /// ```
    #[must_use]
    pub const fn max_worker(&self) -> u64 {
        (1 << self.worker_bits) - 1
    }

    pub(crate) const fn epoch_ns(&self) -> u64 {
        self.epoch_ms * NS_PER_MS
    }

    /// The shifts of the worker and sequence fields.
    pub(crate) const fn shifts(&self) -> (u32, u32) {
        match self.order {
            FieldOrder::WorkerFirst => (self.sequence_bits as u32, 0),
            FieldOrder::SequenceFirst => (0, self.worker_bits as u32),
        }
    }

    /// The shift of the time field.
    pub(crate) const fn time_shift(&self) -> u32 {
        (self.worker_bits + self.sequence_bits) as u32
    }

    /// The tick of a clock reading (Unix nanoseconds).
    ///
    /// # Errors
    /// [`GenErrorKind::TimestampOutOfRange`](crate::generator::GenErrorKind::TimestampOutOfRange)
    /// before the epoch, and past the last tick the time field holds (never a
    /// wrap to a small tick).
    ///
    /// ```
    /// use uuidkit::snowflake::Layout;
    /// let l = Layout::SONYFLAKE;
    /// assert_eq!(l.tick_of(1_409_529_600_000_000_000 + 25_000_000)?, 2); // 25 ms: two whole 10-ms units
    /// assert_eq!(l.tick_of(0).unwrap_err().to_string(),
    ///     "timestamp out of range: expected a clock reading (Unix ns) at or after the layout's epoch 1409529600000000000, found 0");
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub const fn tick_of(&self, unix_ns: u64) -> Result<u64, GenError> {
        let epoch = self.epoch_ns();
        if unix_ns < epoch {
            return Err(GenError::out_of_range(
                "a clock reading (Unix ns) at or after the layout's epoch",
                epoch,
                unix_ns,
            ));
        }
        let tick = (unix_ns - epoch) / self.tick_ns;
        if tick > self.max_tick() {
            return Err(self.past_the_end(tick));
        }
        Ok(tick)
    }

    /// The error of kind
    /// [`GenErrorKind::TimestampOutOfRange`](crate::generator::GenErrorKind::TimestampOutOfRange)
    /// for `tick`, past the end of the layout's time field, for stores that
    /// find their mark there.
    ///
    /// ```
    /// use uuidkit::{generator::GenErrorKind, snowflake::Layout};
    /// let e = Layout::TWITTER.past_the_end(1 << 41);
    /// assert_eq!(e.kind(), GenErrorKind::TimestampOutOfRange);
    /// assert_eq!(e.to_string(), "timestamp out of range: expected a tick of the layout's time field at most 2199023255551, found 2199023255552");
    /// ```
    #[cold]
    #[must_use]
    pub const fn past_the_end(&self, tick: u64) -> GenError {
        GenError::out_of_range(
            "a tick of the layout's time field at most",
            self.max_tick(),
            tick,
        )
    }

    /// The Unix time, in nanoseconds, at which `tick` begins (saturating at
    /// `u64::MAX`, past 2554).
    ///
    /// ```
    /// use uuidkit::snowflake::Layout;
    /// assert_eq!(Layout::TWITTER.unix_ns_of(1), 1_288_834_974_658_000_000);
    /// ```
    #[must_use]
    pub const fn unix_ns_of(&self, tick: u64) -> u64 {
        tick.saturating_mul(self.tick_ns)
            .saturating_add(self.epoch_ns())
    }

    /// The Unix time, in milliseconds (rounded down), at which `tick` begins.
    ///
    /// ```
    /// use uuidkit::snowflake::Layout;
    /// assert_eq!(Layout::SONYFLAKE.unix_ms_of(3), 1_409_529_600_030);
    /// ```
    #[must_use]
    pub const fn unix_ms_of(&self, tick: u64) -> u64 {
        self.unix_ns_of(tick) / NS_PER_MS
    }

    /// The ID of `parts`.
    ///
    /// # Errors
    /// [`GenErrorKind::InvalidConfig`](crate::generator::GenErrorKind::InvalidConfig)
    /// naming the part that does not fit its field.
    ///
    /// ```
    /// use uuidkit::snowflake::{Layout, Parts};
    /// let sony = Layout::SONYFLAKE.compose(Parts { tick: 1, worker: 0xABCD, sequence: 3 })?;
    /// assert_eq!(sony, 1 << 24 | 3 << 16 | 0xABCD);
    /// let err = Layout::TWITTER.compose(Parts { tick: 0, worker: 1024, sequence: 0 }).unwrap_err();
    /// assert_eq!(err.to_string(), "invalid generator config: expected a worker that fits the layout's worker field, found 1024");
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub const fn compose(&self, parts: Parts) -> Result<u64, GenError> {
        if parts.tick > self.max_tick() {
            return Err(GenError::config(
                "a tick that fits the layout's time field",
                parts.tick,
            ));
        }
        if parts.worker > self.max_worker() {
            return Err(GenError::config(
                "a worker that fits the layout's worker field",
                parts.worker,
            ));
        }
        if parts.sequence > self.max_sequence() {
            return Err(GenError::config(
                "a sequence that fits the layout's sequence field",
                parts.sequence,
            ));
        }
        let (w, s) = self.shifts();
        Ok(parts.tick << self.time_shift() | parts.worker << w | parts.sequence << s)
    }

    /// The parts of `id`.
    ///
    /// # Errors
    /// [`GenErrorKind::InvalidConfig`](crate::generator::GenErrorKind::InvalidConfig)
    /// for a 63-bit layout and an ID with the top bit set, which no ID of it
    /// has.
    ///
    /// ```
    /// use uuidkit::snowflake::{Layout, Parts};
    /// // A Discord ID from its documentation: 2016-04-30T11:18:25.796Z, worker 1, process 0, increment 7.
    /// let p = Layout::DISCORD.decompose(175928847299117063)?;
    /// assert_eq!(Layout::DISCORD.unix_ms_of(p.tick), 1_462_015_105_796);
    /// assert_eq!((p.worker >> 5, p.worker & 31, p.sequence), (1, 0, 7));
    /// assert!(Layout::TWITTER.decompose(1 << 63).is_err());
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub const fn decompose(&self, id: u64) -> Result<Parts, GenError> {
        if self.total_bits() == 63 && id >> 63 != 0 {
            return Err(GenError::config(
                "an ID below 2^63 (the layout leaves the top bit clear)",
                id,
            ));
        }
        let (w, s) = self.shifts();
        Ok(Parts {
            tick: id >> self.time_shift(),
            worker: (id >> w) & self.max_worker(),
            sequence: (id >> s) & self.max_sequence(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::string::{String, ToString};

    #[test]
    fn every_preset_is_valid_and_reads_back_from_its_descriptor() {
        for (name, l) in PRESETS {
            let again = Layout::new(
                l.time_bits,
                l.worker_bits,
                l.sequence_bits,
                l.epoch_ms,
                l.tick_ns,
            )
            .unwrap()
            .with_order(l.order)
            .with_sequence_start(l.start);
            assert_eq!(again, l, "{name}");
            let mut d = String::new();
            l.write_descriptor(&mut d).unwrap();
            assert_eq!(d.parse::<Layout>().unwrap(), l, "{d}");
            assert_eq!(l.to_string(), name);
        }
    }

    /// IDs published by the projects themselves decompose as they say.
    #[test]
    fn published_ids_decompose_to_their_documented_parts() {
        // Twitter: tick 0 is `twepoch` itself.
        assert_eq!(Layout::TWITTER.unix_ms_of(0), 1_288_834_974_657);
        // Discord's documented example: 175928847299117063 → 2016-04-30T11:18:25.796Z.
        let d = Layout::DISCORD.decompose(175_928_847_299_117_063).unwrap();
        assert_eq!(
            (Layout::DISCORD.unix_ms_of(d.tick), d.worker, d.sequence),
            (1_462_015_105_796, 1 << 5, 7)
        );
        // Instagram's shard 5 shift: shard << 10, time << 23.
        let i = Layout::INSTAGRAM
            .compose(Parts {
                tick: 1,
                worker: 5,
                sequence: 3,
            })
            .unwrap();
        assert_eq!(i, 1 << 23 | 5 << 10 | 3);
    }

    #[test]
    fn descriptors_that_lie_are_refused() {
        for bad in [
            "",
            "t41",
            "t41.w10.s12",
            "t41.w10.s12.e0",
            "t41.w10.s12.e0.u1",
            "t41.w10.s12.e0.u1ms.x",
            "t41.w10.s12.e0.u1ms.r.r",
            "t41.w10.s14.e0.u1ms",
            "t41.w0.s22.e0.u1ms",
            "t999.w10.s12.e0.u1ms",
            "t41.w10.s12.e-1.u1ms",
            "t41.w10.s12.e0.u99999999999999999999s",
            "t41.x10.s12.e0.u1ms",
        ] {
            assert!(bad.parse::<Layout>().is_err(), "{bad:?}");
        }
    }

    #[test]
    fn the_end_of_the_time_field_is_an_error_never_a_wrap() {
        let l = Layout::new(20, 10, 33, 0, NS_PER_MS).unwrap();
        let last = l.max_tick();
        assert_eq!(l.tick_of(last * NS_PER_MS).unwrap(), last);
        let e = l.tick_of((last + 1) * NS_PER_MS).unwrap_err();
        assert_eq!(
            e.to_string(),
            "timestamp out of range: expected a tick of the layout's time field at most 1048575, found 1048576"
        );
    }
}
