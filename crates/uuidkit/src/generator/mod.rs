//! What all time-based generators share: the error type, the counter-rollover
//! and clock-back policies, the [`Reserve`] seam for stable storage (RFC 9562
//! §6.3), and the counter engine behind v7 and the v8 distributed layout.

mod engine;
mod error;

#[cfg(feature = "std")]
pub(crate) use engine::MAX_MS;
pub(crate) use engine::{Engine, EngineSpec, Stop};
pub use error::{GenError, GenErrorKind};

/// What a generator does when its counter is used up within one clock tick
/// (RFC 9562 §6.2: "counter rollovers MUST be handled"). No policy ever wraps the
/// counter: every UUID a generator returns is greater than the one before.
///
/// ```
/// use uuidkit::RolloverPolicy;
/// assert_eq!(RolloverPolicy::default(), RolloverPolicy::AdvanceTimestamp);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RolloverPolicy {
    /// Move the timestamp one tick ahead of the last one and re-seed the counter
    /// (§6.2: "MAY increment the timestamp ahead of the actual time"). The
    /// generator may then run ahead of the clock; the clock-back tolerance bounds
    /// how far. The default for v7 and v8.
    #[default]
    AdvanceTimestamp,
    /// Freeze: re-read the clock (calling [`Clock::relax`](crate::Clock::relax)
    /// between readings) until it passes the last timestamp. The default for v1/v6,
    /// which never run more than the clock resolution ahead.
    Wait,
    /// Return an error of kind [`GenErrorKind::CounterExhausted`]; the generator's
    /// state is unchanged, so a later call (once the clock has moved) succeeds.
    Error,
}

/// What a v7/v8 generator does when the clock reads earlier than the last
/// timestamp it used by more than its tolerance (default 10 s). Within the
/// tolerance it always keeps the last timestamp and keeps incrementing, so the
/// output stays increasing.
///
/// ```
/// use uuidkit::ClockBackPolicy;
/// assert_eq!(ClockBackPolicy::default(), ClockBackPolicy::Reset);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ClockBackPolicy {
    /// Follow the clock: the next UUID uses the clock's (earlier) time, so it is
    /// smaller than the previous one. Uniqueness then rests on the random bits.
    #[default]
    Reset,
    /// Return an error of kind [`GenErrorKind::ClockBehind`] and keep the state,
    /// so the generator resumes once the clock has caught up.
    Error,
}

/// The seam for generator state in stable storage (RFC 9562 §6.3, block
/// reservation). A generator calls [`Reserve::reserve`] whenever the timestamp it
/// is about to use reaches the limit returned by the previous call (and once
/// before the first UUID), and generates from memory below that limit.
///
/// Timestamps are those of the generator: Unix milliseconds for v7 and the v8
/// distributed layout, 60-bit Gregorian 100-ns ticks for v1/v6. `state` is the
/// generator's state *including* the UUID about to be returned
/// ([`V7State`](crate::V7State) or [`V1State`](crate::V1State)). A store would
/// write a high-water mark at or above the returned limit before returning it,
/// and seed a restarted generator with `with_state` from what it read. If
/// `reserve` fails, that UUID is not returned and is never issued again.
///
/// ```
/// use uuidkit::{GenError, ManualClock, Reserve, ThreadRng, V7Generator, V7State};
/// #[derive(Debug, Default)]
/// struct Blocks { calls: u32 }
/// impl Reserve<V7State> for Blocks {
///     fn reserve(&mut self, _state: &V7State, needed: u64) -> Result<u64, GenError> {
///         self.calls += 1;
///         Ok(needed + 1_000) // a one-second block
///     }
/// }
/// let clock = ManualClock::new(1_700_000_000_000_000_000);
/// let mut g = V7Generator::new(&clock, ThreadRng).with_reserve(Blocks::default());
/// for _ in 0..10 { g.generate()?; clock.advance(50_000_000); } // 500 ms
/// assert_eq!(g.reserve_ref().calls, 1);
/// # Ok::<(), GenError>(())
/// ```
pub trait Reserve<S> {
    /// Reserves timestamps from `needed` on; returns the new limit, which must be
    /// greater than `needed` (a smaller value is treated as `needed + 1`).
    ///
    /// # Errors
    /// Whatever the store reports; the generator passes it on unchanged and
    /// issues nothing.
    fn reserve(&mut self, state: &S, needed: u64) -> Result<u64, GenError>;
}

/// The in-memory default: reserves everything at once, never fails.
///
/// ```
/// use uuidkit::{NoReserve, Reserve, V7State};
/// assert_eq!(NoReserve.reserve(&V7State::default(), 5)?, u64::MAX);
/// # Ok::<(), uuidkit::GenError>(())
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct NoReserve;

impl<S> Reserve<S> for NoReserve {
    #[inline]
    fn reserve(&mut self, _state: &S, _needed: u64) -> Result<u64, GenError> {
        Ok(u64::MAX)
    }
}

impl<S, T: Reserve<S> + ?Sized> Reserve<S> for &mut T {
    fn reserve(&mut self, state: &S, needed: u64) -> Result<u64, GenError> {
        (**self).reserve(state, needed)
    }
}

/// 10 seconds: the default clock-back tolerance.
pub(crate) const DEFAULT_TOLERANCE_NS: u64 = 10_000_000_000;
