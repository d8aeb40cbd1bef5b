//! Version 6: reordered Gregorian time-based (RFC 9562 §5.6). The generator
//! surface it shares with version 1 is in `gregorian_generator.rs`.

use core::marker::PhantomData;

use rand_core::Rng;

use crate::V1Generator;
use crate::clock::Clock;
use crate::generator::{
    ClockBackPolicy, GenError, GregorianPolicy, NoReserve, Reserve, RolloverPolicy,
};
use crate::generator::{GregorianGenerator, V1Builder, V1State, V6Layout};
use crate::node::{MaybeNodeSource, NoNodeSource};

/// The validated configuration of a [`V6Generator`]; made by
/// [`V6Generator::builder`]. By default the generator draws a fresh clock
/// sequence and node per UUID; [`retain`](Self::retain), a
/// [`clock_seq`](Self::clock_seq), a [`node`](Self::node) or a
/// [`node_source`](Self::node_source) make it keep one. Its seams are
/// attached here and only here: a node source and a [`store`](Self::store).
///
/// ```
/// use uuidkit::{clock::ManualClock, rng::ThreadRng, Generator, V6Generator};
/// let mut g = V6Generator::builder()
///     .node([0x9F, 0x6B, 0xDE, 0xCE, 0xD8, 0x46])
///     .clock_seq(0x33C8)
///     .build(ManualClock::new(1_645_557_742_000_000_000), ThreadRng)?;
/// assert_eq!(g.generate()?.as_u128(), 0x1EC9414C_232A_6B00_B3C8_9F6BDECED846); // RFC 9562 A.5
/// # Ok::<(), uuidkit::GenError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[must_use = "a builder does nothing until `build`; its methods return the changed builder"]
pub struct V6Builder<N = NoNodeSource, S = NoReserve> {
    v1: V1Builder<N, S>,
    retain: bool,
}

impl<N, S> V6Builder<N, S> {
    /// Keeps one clock sequence and node (initially random, multicast bit set),
    /// with v1's rules (§5.6 "MAY retain").
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, rng::ThreadRng, V6Generator};
    /// let g = V6Generator::builder().retain().build(ManualClock::new(0), ThreadRng)?;
    /// assert!(g.is_retaining());
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub const fn retain(mut self) -> V6Builder<N, S> {
        self.retain = true;
        self
    }

    /// The retained clock sequence, 0..=0x3FFF; implies [`retain`](Self::retain).
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, rng::ThreadRng, V6Generator};
    /// let g = V6Generator::builder().clock_seq(0x33C8).build(ManualClock::new(0), ThreadRng)?;
    /// assert_eq!((g.clock_seq(), g.is_retaining()), (0x33C8, true));
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub fn clock_seq(self, clock_seq: u16) -> V6Builder<N, S> {
        V6Builder {
            v1: self.v1.clock_seq(clock_seq),
            retain: true,
        }
    }

    /// The retained node (a MAC identifies the host: §8); implies
    /// [`retain`](Self::retain). See [`V1Builder::node`].
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, rng::ThreadRng, V6Generator};
    /// let g = V6Generator::builder().node([2; 6]).build(ManualClock::new(0), ThreadRng)?;
    /// assert_eq!((g.node(), g.is_retaining()), ([2; 6], true));
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub fn node(self, node: [u8; 6]) -> V6Builder<N, S> {
        V6Builder {
            v1: self.v1.node(node),
            retain: true,
        }
    }

    /// The rollover policy; see [`V1Builder::rollover`].
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, generator::{GenErrorKind, RolloverPolicy}};
    /// use uuidkit::{rng::ThreadRng, Generator, V6Generator};
    /// let clock = ManualClock::new(1_645_557_742_000_000_000);
    /// let mut g = V6Generator::builder().rollover(RolloverPolicy::Error).build(&clock, ThreadRng)?;
    /// g.generate()?;
    /// assert_eq!(g.generate().unwrap_err().kind(), GenErrorKind::CounterExhausted);
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub fn rollover(self, policy: RolloverPolicy) -> V6Builder<N, S> {
        V6Builder {
            v1: self.v1.rollover(policy),
            retain: self.retain,
        }
    }

    /// What to do when the clock reads earlier than the last timestamp by
    /// more than `tolerance_ns` (`u64::MAX`: no limit; see
    /// [`V1Builder::clock_back`]). Within the tolerance the generator holds
    /// above its last timestamp, so its UUIDs keep increasing. The default is
    /// [`ClockBackPolicy::Error`] beyond 10 s: a v6 generator never goes
    /// back silently. [`ClockBackPolicy::Reset`] follows the clock (a smaller
    /// UUID, with the clock sequence changed as §5.1 requires).
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, generator::{ClockBackPolicy, GenErrorKind}};
    /// use uuidkit::{rng::ThreadRng, Generator, V6Generator};
    /// let clock = ManualClock::new(1_645_557_742_000_000_000).with_resolution(1_000);
    /// let mut g = V6Generator::new(&clock, ThreadRng); // the default: hold up to 10 s, then report
    /// let a = g.generate()?;
    /// clock.step_back(1_000_000_000);
    /// let b = g.generate()?;
    /// assert!(b > a, "1 s back: held above the last UUID");
    /// clock.step_back(20_000_000_000);
    /// assert_eq!(g.generate().unwrap_err().kind(), GenErrorKind::ClockBehind);
    ///
    /// let mut g = V6Generator::builder().clock_back(ClockBackPolicy::Reset, 0).build(&clock, ThreadRng)?;
    /// let a = g.generate()?;
    /// clock.step_back(1_000);
    /// assert!(g.generate()? < a, "Reset follows the clock");
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub fn clock_back(self, policy: ClockBackPolicy, tolerance_ns: u64) -> V6Builder<N, S> {
        V6Builder {
            v1: self.v1.clock_back(policy, tolerance_ns),
            retain: self.retain,
        }
    }

    /// Takes the node from `source` (48 bits wide), asked before every UUID,
    /// and retains it (as [`retain`](Self::retain)) if it is one (not `None`
    /// nor [`NoNodeSource`]); see [`V1Builder::node_source`] for what a loss
    /// and a new node do.
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, generator::GenErrorKind, node::NodeSlot, rng::ThreadRng};
    /// use uuidkit::{Generator, V6Generator};
    /// let slot = NodeSlot::new(48)?;
    /// let clock = ManualClock::new(1_645_557_742_000_000_000).with_resolution(1_000);
    /// let mut g = V6Generator::builder().node_source(&slot).build(&clock, ThreadRng)?;
    /// assert!(g.is_retaining());
    /// assert_eq!(g.generate().unwrap_err().kind(), GenErrorKind::NodeLost); // nothing claimed yet
    /// slot.set(0x0300_0000_0001)?;
    /// let (a, b) = (g.generate()?, g.generate()?);
    /// assert_eq!((a.node(), b.node()), (Some([3, 0, 0, 0, 0, 1]), Some([3, 0, 0, 0, 0, 1])));
    /// assert!(a < b);
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub fn node_source<N2: MaybeNodeSource>(self, source: N2) -> V6Builder<N2, S> {
        V6Builder {
            v1: self.v1.node_source(source),
            retain: self.retain,
        }
    }

    /// Binds the generator to a [`Reserve`] store (stable storage, §6.3), for
    /// instance a state file's `GregorianLease` (the `uuidkit-state` crate).
    /// Whether the clock sequence and node are retained is set apart.
    ///
    /// ```
    /// use uuidkit::{clock::CoarseClock, generator::{Reservation, Reserve, V1State}};
    /// use uuidkit::{rng::ThreadRng, GenError, Generator, V6Generator};
    /// struct Blocks(u32);
    /// impl Reserve<V1State> for Blocks {
    ///     fn reserve(&mut self, _: &V1State, needed: u64) -> Result<Reservation<V1State>, GenError> {
    ///         self.0 += 1;
    ///         Ok(Reservation::Until(needed + 1_000_000)) // 100 ms of 100-ns ticks
    ///     }
    /// }
    /// let mut g = V6Generator::builder().retain().store(Blocks(0)).build(CoarseClock::new(), ThreadRng)?;
    /// let (a, b) = (g.generate()?, g.generate()?);
    /// assert!(a < b);
    /// assert!(g.store().0 >= 1);
    /// # Ok::<(), GenError>(())
    /// ```
    pub fn store<S2: Reserve<V1State>>(self, store: S2) -> V6Builder<N, S2> {
        V6Builder {
            v1: self.v1.store(store),
            retain: self.retain,
        }
    }
}

impl<N: MaybeNodeSource, S: Reserve<V1State>> V6Builder<N, S> {
    /// Checks the configuration and makes the generator.
    ///
    /// # Errors
    /// As [`V1Builder::build`].
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, generator::GenErrorKind, rng::ThreadRng, V6Generator};
    /// let err = V6Generator::builder().clock_seq(0xFFFF).build(ManualClock::new(0), ThreadRng).unwrap_err();
    /// assert_eq!(err.kind(), GenErrorKind::InvalidConfig);
    /// ```
    pub fn build<C: Clock, R: Rng>(
        self,
        clock: C,
        rng: R,
    ) -> Result<V6Generator<C, R, S, N>, GenError> {
        let retain = self.retain || self.v1.has_node_source();
        let (core, follow, rng) = self.v1.parts(rng, GregorianPolicy::V6)?;
        Ok(GregorianGenerator {
            clock,
            rng,
            core,
            follow,
            fresh: !retain,
            layout: PhantomData,
        })
    }
}

/// A version 6 UUID generator (RFC 9562 §5.6): v1's timestamp, stored most
/// significant bits first, so that byte order is time order; configured by
/// [`V6Generator::builder`].
///
/// By default every UUID gets a fresh random clock sequence and a fresh random
/// node (multicast bit set), as §5.6 recommends ("SHOULD"). With
/// [`V6Builder::retain`] (or a given clock sequence or node) it keeps one clock
/// sequence and node with exactly the rules of [`V1Generator`].
///
/// Timestamps come from the same logic as v1: consecutive 100-ns ticks within a
/// clock reading, never one clock resolution ahead of it (default
/// [`RolloverPolicy::Wait`]), so one generator's output increases while the clock
/// does not step back. With a [`NodeSource`](crate::node::NodeSource)
/// ([`V6Builder::node_source`]) it retains the source's node
/// with v1's rules for a node source. When it does, the timestamp follows the clock and the
/// (retained) clock sequence changes. Prefer v7 where v1 compatibility is not
/// needed (§5.6). Its accessors are those of [`GregorianGenerator`], which
/// it shares with [`V1Generator`].
///
/// ```
/// use uuidkit::{clock::ManualClock, rng::ThreadRng, Generator, V6Generator};
/// let clock = ManualClock::new(1_645_557_742_000_000_000).with_resolution(1_000);
/// let mut g = V6Generator::new(&clock, ThreadRng);
/// let (a, b) = (g.generate()?, g.generate()?);
/// assert!(a < b);
/// assert_eq!(a.as_bytes()[10] & 0x01, 0x01); // random node, multicast bit set
/// # Ok::<(), uuidkit::GenError>(())
/// ```
pub type V6Generator<C, R, S = NoReserve, N = NoNodeSource> =
    GregorianGenerator<V6Layout, C, R, S, N>;

#[cfg(feature = "std")]
impl V6Generator<crate::clock::SystemClock, crate::rng::ThreadRng> {
    /// A generator on the system's real-time clock at full precision
    /// ([`SystemClock`](crate::clock::SystemClock): each UUID carries the
    /// 100-ns tick it was made in) and [`ThreadRng`](crate::rng::ThreadRng), with
    /// fresh random clock sequence and node per UUID.
    ///
    /// ```
    /// use uuidkit::Generator;
    /// let mut g = uuidkit::V6Generator::system();
    /// assert_eq!(g.generate()?.version(), Some(uuidkit::Version::SortMac));
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    #[must_use]
    pub fn system() -> Self {
        V6Generator::new(crate::clock::SystemClock, crate::rng::ThreadRng)
    }
}

impl V6Generator<(), ()> {
    /// The builder: every setting, checked by [`V6Builder::build`].
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, rng::ThreadRng, V6Generator};
    /// let g = V6Generator::builder().build(ManualClock::new(0), ThreadRng)?;
    /// assert!(!g.is_retaining());
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub const fn builder() -> V6Builder {
        V6Builder {
            v1: V1Generator::builder(),
            retain: false,
        }
    }
}

impl<C: Clock, R: Rng> V6Generator<C, R> {
    /// A generator drawing a fresh random clock sequence and node per UUID.
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, rng::ThreadRng, V6Generator};
    /// let g = V6Generator::new(ManualClock::new(0), ThreadRng);
    /// assert!(!g.is_retaining());
    /// ```
    pub fn new(clock: C, rng: R) -> Self {
        match V6Generator::builder().build(clock, rng) {
            Ok(g) => g,
            Err(_) => unreachable!("the default configuration is valid"),
        }
    }
}

impl<C, R, S: Reserve<V1State>, N> V6Generator<C, R, S, N> {
    /// Whether the clock sequence and node are retained between UUIDs.
    ///
    /// ```
    /// use uuidkit::{clock::ManualClock, rng::ThreadRng, V6Generator};
    /// assert!(!V6Generator::new(ManualClock::new(0), ThreadRng).is_retaining());
    /// ```
    pub fn is_retaining(&self) -> bool {
        !self.fresh
    }
}
