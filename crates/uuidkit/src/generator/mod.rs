//! The generators and what configures them: each generator with its
//! builder, the [`Generator`] trait they share, their error, the
//! counter-rollover and clock-back policies, the v7 methods, and the
//! [`Reserve`] seam for stable storage (RFC 9562 §6.3) with the state it
//! reserves ([`V1State`], [`V7State`]). The generators most programs make
//! ([`V7Generator`], [`V1Generator`], [`V6Generator`], [`V8TimeGenerator`],
//! [`V8Distributed`], and with `std` [`SharedV7`](../struct.SharedV7.html)), [`Generator`] and
//! [`GenError`] are also at the crate root. Their clocks are in
//! [`crate::clock`], their RNG in [`crate::rng`](../rng/index.html), their node sources in
//! [`crate::node`]; a file-backed store is the `uuidkit-state` crate.
//!
//! Inside: the counter engine behind v7 and the v8 distributed layout, and
//! the Gregorian timestamp engine behind v1 and v6.
//!
//! ```
//! use uuidkit::{clock::ManualClock, generator::{RolloverPolicy, V7Method}, rng::ThreadRng, Generator, V7Generator};
//!
//! let clock = ManualClock::new(1_645_557_742_000_000_000);
//! let mut g = V7Generator::builder()
//!     .method(V7Method::Counter { bits: 12 })
//!     .rollover(RolloverPolicy::Error)
//!     .build(&clock, ThreadRng)?;
//! assert_eq!(g.generate()?.unix_ts_ms(), Some(1_645_557_742_000));
//! # Ok::<(), uuidkit::GenError>(())
//! ```

mod clock_sequence;
mod engine;
mod error;

use crate::Uuid;

pub(crate) use engine::{CounterOptions, EngineCore, EngineSpec};
pub use error::{GenError, GenErrorKind};

pub use crate::distributed::{V8Distributed, V8DistributedBuilder};
pub use crate::gregorian_generator::{GregorianGenerator, GregorianLayout, V1Layout, V6Layout};
#[cfg(feature = "std")]
pub use crate::shared_v7::SharedV7;
pub use crate::v1::{V1Builder, V1Generator, V1State};
pub use crate::v6::{V6Builder, V6Generator};
pub use crate::v7::{V7Builder, V7Generator, V7Method, V7State};
pub use crate::v8::{V8TimeBuilder, V8TimeGenerator};
pub(crate) use clock_sequence::{
    GregorianCore, GregorianPolicy, NodeFollow, random_clock_seq, random_node,
};

/// The process a generator's state belongs to ([`crate::fork`]); without
/// `std` there is no fork to see.
#[cfg(feature = "std")]
pub(crate) use crate::fork::Owner;

/// Without `std`: never forked.
#[cfg(not(feature = "std"))]
#[derive(Clone, Copy, Debug)]
pub(crate) struct Owner;

#[cfg(not(feature = "std"))]
impl Owner {
    pub(crate) fn here() -> Owner {
        Owner
    }
    #[inline(always)]
    pub(crate) fn forked(&self) -> bool {
        false
    }
    pub(crate) fn take_over(&mut self) {}
}

/// 64 bits for what a forked child re-draws: from the thread CSPRNG, which
/// reseeds from the operating system in every child, whatever RNG the
/// generator was given (a seeded one would hand every child the same draw).
#[cfg(feature = "std")]
pub(crate) fn fork_entropy<R: rand_core::Rng>(_rng: &mut R) -> u64 {
    crate::rng::next_u64()
}

/// Without `std` there is no fork; the generator's own RNG.
#[cfg(not(feature = "std"))]
pub(crate) fn fork_entropy<R: rand_core::Rng>(rng: &mut R) -> u64 {
    rng.next_u64()
}

/// What a generator does when its counter is used up within one clock tick
/// (RFC 9562 §6.2: "counter rollovers MUST be handled"). No policy ever wraps the
/// counter: every UUID a generator returns is greater than the one before.
///
/// ```
/// use uuidkit::generator::RolloverPolicy;
/// assert_eq!(RolloverPolicy::default(), RolloverPolicy::AdvanceTimestamp);
/// ```
///
/// Builders are `Copy` and each setting returns a changed copy, so a
/// setting whose result is dropped would change nothing: that is a warning
/// (`unused_must_use`), an error under `deny`:
///
/// ```compile_fail
/// #![deny(unused_must_use)]
/// use uuidkit::{generator::RolloverPolicy, V7Generator};
/// let b = V7Generator::builder();
/// b.rollover(RolloverPolicy::Error); // dropped: does nothing
/// ```
///
/// and the same with the result kept compiles:
///
/// ```
/// #![deny(unused_must_use)]
/// use uuidkit::{generator::RolloverPolicy, V7Generator};
/// let b = V7Generator::builder();
/// let b = b.rollover(RolloverPolicy::Error);
/// # let _ = b;
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RolloverPolicy {
    /// Move the timestamp one tick ahead of the last one and re-seed the counter
    /// (§6.2: "MAY increment the timestamp ahead of the actual time"). The
    /// generator may then run ahead of the clock; the clock-back tolerance bounds
    /// how far (beyond it the next UUID is a
    /// [`ClockBehind`](GenErrorKind::ClockBehind) error, as if the clock had gone
    /// back that far, until the clock catches up). The default for v7 and v8.
    #[default]
    AdvanceTimestamp,
    /// Freeze: re-read the clock (calling [`Clock::relax`](crate::clock::Clock::relax)
    /// between readings) until it passes the last timestamp. The default for v1/v6,
    /// which never run more than the clock resolution ahead. It waits for as
    /// long as the clock stands still: with a
    /// [`ManualClock`](crate::clock::ManualClock) that nothing moves, for ever
    /// (give it [`advancing_on_relax`](crate::clock::ManualClock::advancing_on_relax)).
    Wait,
    /// Return an error of kind [`GenErrorKind::CounterExhausted`]; the generator's
    /// state is unchanged, so a later call (once the clock has moved) succeeds.
    Error,
}

/// What a time-ordered generator (v6, v7, v8) does when the clock reads
/// earlier than the last timestamp it used by more than its tolerance
/// (default 10 s). Within the tolerance it always holds: it keeps counting
/// above the last timestamp, so the output stays increasing. A tolerance of
/// `u64::MAX` holds whatever the step, as [`Uuid::now_v7`]
/// does. The default never goes back silently: beyond the tolerance it is an
/// error (`docs/generator-design.md`, G3, says why).
///
/// v1 UUIDs are not ordered by time, so a v1 generator follows RFC 9562 §5.1
/// by default: any step back changes the clock sequence ([`Reset`](Self::Reset)
/// with no tolerance).
///
/// ```
/// use uuidkit::generator::ClockBackPolicy;
/// assert_eq!(ClockBackPolicy::default(), ClockBackPolicy::Error);
/// ```
#[doc = std_link!("Uuid::now_v7", "crate::Uuid::now_v7")]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ClockBackPolicy {
    /// Follow the clock: the next UUID uses the clock's (earlier) time, so it is
    /// smaller than the previous one. Uniqueness then rests on the random bits
    /// (v7, v8) or on a changed clock sequence (v1, v6).
    Reset,
    /// Return an error of kind [`GenErrorKind::ClockBehind`] and keep the state,
    /// so the generator resumes once the clock has caught up.
    #[default]
    Error,
}

/// The one shape of every UUID generator: make the next UUID, or fill a slice.
///
/// Implemented by [`V1Generator`],
/// [`V6Generator`], [`V7Generator`],
/// [`V8TimeGenerator`] and
/// [`V8Distributed`], whatever their clock, RNG and
/// store. It is object-safe, so code that picks a generator at run time can
/// hold a `Box<dyn Generator>`.
///
/// ```
/// use uuidkit::{clock::ManualClock, rng::ThreadRng, Generator, Uuid, V1Generator, V7Generator};
/// let clock = ManualClock::new(1_645_557_742_000_000_000).with_resolution(1_000_000);
/// let mut generators: Vec<Box<dyn Generator + '_>> = vec![
///     Box::new(V7Generator::new(&clock, ThreadRng)),
///     Box::new(V1Generator::new(&clock, ThreadRng)),
/// ];
/// let mut batch = [Uuid::NIL; 4];
/// for g in &mut generators {
///     g.fill(&mut batch)?;
///     for u in batch {
///         let t = u.unix_nanos().unwrap() - 1_645_557_742_000_000_000;
///         assert!((0..1_000_000).contains(&t), "{u} is within the clock's millisecond");
///     }
/// }
/// # Ok::<(), uuidkit::GenError>(())
/// ```
pub trait Generator {
    /// The next UUID.
    ///
    /// # Errors
    /// Each generator documents when it fails: only as configured (a
    /// [`RolloverPolicy::Error`] or [`ClockBackPolicy::Error`]), after the end
    /// of its timestamp field, when its [`Reserve`] store fails, or when its
    /// [`NodeSource`](crate::node::NodeSource) holds no node
    /// ([`GenErrorKind::NodeLost`]).
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, rng::ThreadRng, Generator, V7Generator};
    /// let mut g = V7Generator::new(ManualClock::new(1_000_000), ThreadRng);
    /// assert_eq!(g.generate()?.unix_ts_ms(), Some(1));
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    fn generate(&mut self) -> Result<Uuid, GenError>;

    /// Fills `out` with the next UUIDs, as repeated [`generate`](Self::generate)
    /// calls (a generator may do it faster, for instance with one clock
    /// reading for the whole batch).
    ///
    /// # Errors
    /// As [`generate`](Self::generate). On error the contents of `out` are
    /// unspecified; the UUIDs written before the failure count as issued.
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, rng::ThreadRng, Generator, Uuid, V6Generator};
    /// let clock = ManualClock::new(1_645_557_742_000_000_000).with_resolution(1_000);
    /// let mut g = V6Generator::new(&clock, ThreadRng);
    /// let mut out = [Uuid::NIL; 10];
    /// g.fill(&mut out)?;
    /// assert!(out.windows(2).all(|w| w[0] < w[1]));
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    fn fill(&mut self, out: &mut [Uuid]) -> Result<(), GenError> {
        for slot in out {
            *slot = self.generate()?;
        }
        Ok(())
    }
}

impl<G: Generator + ?Sized> Generator for &mut G {
    #[inline]
    fn generate(&mut self) -> Result<Uuid, GenError> {
        (**self).generate()
    }
    #[inline]
    fn fill(&mut self, out: &mut [Uuid]) -> Result<(), GenError> {
        (**self).fill(out)
    }
}

/// The seam for generator state in stable storage (RFC 9562 §6.3, block
/// reservation): the only way a generator reaches a store.
///
/// A generator asks [`Reserve::reserve`] before the first UUID and whenever
/// the timestamp it is about to use leaves the range the last answer covered
/// (past its limit, or below where it started after a clock step back), when
/// its v1/v6 clock sequence or node changes, and when [`Reserve::is_held`]
/// says the reservation no longer holds; between those calls it generates from
/// memory. When it is dropped (or given another store) it calls
/// [`Reserve::release`] with its last state.
///
/// Timestamps are those of the generator: Unix milliseconds for v7 and the v8
/// distributed layout, 60-bit Gregorian 100-ns ticks for v1/v6. `state` is the
/// generator's state *including* the UUID about to be returned
/// ([`V7State`] or [`V1State`]). If `reserve`
/// fails, that UUID is not returned and the generator's state is as it was
/// before the call. The `uuidkit-state` crate implements this trait over a
/// state file shared between processes (its `V7Lease`, `GregorianLease` and
/// `SnowflakeLease`).
///
/// ```
/// use uuidkit::{clock::ManualClock, generator::{Reservation, Reserve, V7State}, rng::ThreadRng};
/// use uuidkit::{GenError, Generator, V7Generator};
/// #[derive(Debug, Default)]
/// struct Blocks { calls: u32 }
/// impl Reserve<V7State> for Blocks {
///     fn reserve(&mut self, _state: &V7State, needed: u64) -> Result<Reservation<V7State>, GenError> {
///         self.calls += 1;
///         Ok(Reservation::Until(needed + 1_000)) // a one-second block
///     }
/// }
/// let clock = ManualClock::new(1_700_000_000_000_000_000);
/// let mut g = V7Generator::builder().store(Blocks::default()).build(&clock, ThreadRng)?;
/// for _ in 0..10 { g.generate()?; clock.advance(50_000_000); } // 500 ms
/// assert_eq!(g.store().calls, 1);
/// # Ok::<(), GenError>(())
/// ```
pub trait Reserve<S> {
    /// Reserves timestamps from `needed` on for a generator whose next state
    /// is `state`.
    ///
    /// # Errors
    /// Whatever the store reports; the generator passes it on unchanged and
    /// issues nothing.
    fn reserve(&mut self, state: &S, needed: u64) -> Result<Reservation<S>, GenError>;

    /// Whether the last reservation still holds. The generator asks before
    /// every UUID (so keep it to a load and a compare); `false` makes it call
    /// [`reserve`](Self::reserve) before the next one. A store that must not
    /// let a forked child continue its parent's block answers `false` there.
    /// The default: always holds.
    ///
    /// ```
    /// use uuidkit::generator::{NoReserve, Reserve, V7State};
    /// assert!(<NoReserve as Reserve<V7State>>::is_held(&NoReserve));
    /// ```
    #[inline]
    fn is_held(&self) -> bool {
        true
    }

    /// Called once when the generator is dropped, with
    /// its state after the last UUID it issued (`valid` is false if it issued
    /// none): a store may give back the part of its reservation that was not
    /// used. The default does nothing.
    ///
    /// ```
    /// use std::{cell::Cell, rc::Rc};
    /// use uuidkit::{clock::ManualClock, generator::{Reservation, Reserve, V7State}};
    /// use uuidkit::{rng::ThreadRng, GenError, Generator, V7Generator};
    /// struct Mark(Rc<Cell<u64>>);
    /// impl Reserve<V7State> for Mark {
    ///     fn reserve(&mut self, _: &V7State, needed: u64) -> Result<Reservation<V7State>, GenError> {
    ///         self.0.set(needed + 100); // a 100 ms block
    ///         Ok(Reservation::Until(needed + 100))
    ///     }
    ///     fn release(&mut self, last: &V7State) {
    ///         self.0.set(last.unix_ts_ms + 1); // give back the unused tail
    ///     }
    /// }
    /// let mark = Rc::new(Cell::new(0));
    /// let mut g = V7Generator::builder().store(Mark(mark.clone())).build(ManualClock::new(1_000_000_000), ThreadRng)?;
    /// g.generate()?;
    /// assert_eq!(mark.get(), 1_100);
    /// drop(g);
    /// assert_eq!(mark.get(), 1_001);
    /// # Ok::<(), GenError>(())
    /// ```
    #[inline]
    fn release(&mut self, last: &S) {
        let _ = last;
    }
}

/// A store's answer to [`Reserve::reserve`].
///
/// ```
/// use uuidkit::generator::{Reservation, V7State};
/// let r: Reservation<V7State> = Reservation::Until(1_000);
/// assert_ne!(r, Reservation::ResumeFrom(V7State::default()));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Reservation<S> {
    /// Every timestamp from `needed` up to (not including) this limit is
    /// reserved. A limit not above `needed` counts as `needed + 1`.
    Until(u64),
    /// Declined: the generator restores this state (as its `with_state`
    /// would), then asks again for the next timestamp after it. The UUID that
    /// prompted the request is not returned. This is how a store moves a
    /// generator above a stored high-water mark, or onto its own clock
    /// sequence and node. A v1/v6 generator first waits for its clock to reach
    /// the state's timestamp, as it never runs ahead of its clock. The store
    /// must admit a later request above that state, or the generator keeps
    /// asking.
    ResumeFrom(S),
}

/// The in-memory default: reserves everything at once, never fails.
///
/// ```
/// use uuidkit::generator::{NoReserve, Reservation, Reserve, V7State};
/// assert_eq!(NoReserve.reserve(&V7State::default(), 5)?, Reservation::Until(u64::MAX));
/// # Ok::<(), uuidkit::GenError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct NoReserve;

impl<S> Reserve<S> for NoReserve {
    #[inline]
    fn reserve(&mut self, _state: &S, _needed: u64) -> Result<Reservation<S>, GenError> {
        Ok(Reservation::Until(u64::MAX))
    }
}

/// An optional store: `None` reserves everything at once, as [`NoReserve`].
/// For a store chosen at run time, without a type per choice.
///
/// ```
/// use std::{cell::Cell, rc::Rc};
/// use uuidkit::{clock::ManualClock, generator::{Reservation, Reserve, V7State}, rng::ThreadRng};
/// use uuidkit::{GenError, Generator, V7Generator};
/// struct Asked(Rc<Cell<u32>>);
/// impl Reserve<V7State> for Asked {
///     fn reserve(&mut self, _: &V7State, needed: u64) -> Result<Reservation<V7State>, GenError> {
///         self.0.set(self.0.get() + 1);
///         Ok(Reservation::Until(needed + 100))
///     }
/// }
/// let asked = Rc::new(Cell::new(0));
/// for store in [None, Some(Asked(asked.clone()))] {
///     let mut g = V7Generator::builder().store(store).build(ManualClock::new(1 << 60), ThreadRng)?;
///     g.generate()?;
/// }
/// assert_eq!(asked.get(), 1); // only the second generator asked the store
/// # Ok::<(), GenError>(())
/// ```
impl<S, T: Reserve<S>> Reserve<S> for Option<T> {
    #[inline]
    fn reserve(&mut self, state: &S, needed: u64) -> Result<Reservation<S>, GenError> {
        match self {
            Some(store) => store.reserve(state, needed),
            None => Ok(Reservation::Until(u64::MAX)),
        }
    }
    #[inline]
    fn is_held(&self) -> bool {
        self.as_ref().is_none_or(Reserve::is_held)
    }
    #[inline]
    fn release(&mut self, last: &S) {
        if let Some(store) = self {
            store.release(last);
        }
    }
}

impl<S, T: Reserve<S> + ?Sized> Reserve<S> for &mut T {
    #[inline]
    fn reserve(&mut self, state: &S, needed: u64) -> Result<Reservation<S>, GenError> {
        (**self).reserve(state, needed)
    }
    #[inline]
    fn is_held(&self) -> bool {
        (**self).is_held()
    }
    #[inline]
    fn release(&mut self, last: &S) {
        (**self).release(last)
    }
}

/// The timestamps a generator's last reservation covers: `floor..limit`.
/// Closed (empty) until the first reservation and after anything that must
/// go through the store again.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Window {
    floor: u64,
    /// `limit - floor`: one subtraction and one comparison test both ends.
    span: u64,
}

impl Window {
    #[inline(always)]
    pub(crate) fn covers(&self, t: u64) -> bool {
        t.wrapping_sub(self.floor) < self.span
    }

    /// Records a [`Reservation::Until`] answer to a request for `needed`.
    pub(crate) fn grant(&mut self, needed: u64, limit: u64) {
        self.floor = needed;
        self.span = limit.max(needed.saturating_add(1)) - needed;
    }

    /// Empties the window: the next UUID goes through the store.
    pub(crate) fn close(&mut self) {
        *self = Window::default();
    }
}

/// Why an engine proposed no value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stop {
    /// The counter (or the room ahead of the clock) is used up and the policy
    /// is `Wait`: read the clock again.
    Wait,
    Err(GenError),
}

/// Where a generator is in time: a clock reading it may refresh while waiting
/// for the clock to move, or a fixed time (its `at` method) for which waiting
/// is impossible.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Reading {
    pub(crate) now: u64,
    pub(crate) fixed: bool,
}

impl Reading {
    #[inline]
    pub(crate) fn of<C: crate::clock::Clock>(clock: &C) -> Reading {
        Reading {
            now: clock.now_ns(),
            fixed: false,
        }
    }

    #[inline]
    pub(crate) fn at(unix_ns: u64) -> Reading {
        Reading {
            now: unix_ns,
            fixed: true,
        }
    }
}

/// 10 seconds: the default clock-back tolerance.
pub(crate) const DEFAULT_TOLERANCE_NS: u64 = 10_000_000_000;
