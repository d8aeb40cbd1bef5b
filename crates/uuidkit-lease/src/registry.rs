//! The one shape of every lease source: a [`Registry`] (a source's settings) acquires a
//! [`Lease`] (a node held), and [`Timing`] holds the lifetime and retry settings the
//! registries with a TTL share.
//!
//! A program that takes its node from "some registry" holds a `Box<dyn Lease>` and never names
//! the source again: the slot to hand generators, the node, what to call it in messages, the
//! warnings to show once, the whole text of a loss, and the release are the same calls for
//! every source. A new source is one module that implements both traits (ARCHITECTURE.md,
//! "Adding a registry").

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use rand_core::Rng;
use uuidkit::node::NodeId;

use crate::{LeaseError, LeaseErrorKind, LeaseSlot};

/// A node ID held from a registry, whichever the registry: what a holder needs from it.
///
/// Dropping a lease releases it too (marks the node lost, then gives it back); [`release`]
/// does the same and says whether giving it back worked. Either way the slot reports the node
/// lost from then on.
///
/// [`release`]: Lease::release
///
/// A source of its own, in a few lines (a registry that hands out one fixed node, for tests):
///
/// ```
/// use std::sync::Arc;
/// use std::time::Duration;
/// use uuidkit::node::{NodeId, NodeLost, NodeLostKind, NodeSource};
/// use uuidkit_lease::{BootTime, Lease, LeaseError, LeaseSlot, Registry};
///
/// #[derive(Debug)]
/// struct Fixed(u64);
///
/// #[derive(Debug)]
/// struct FixedLease { slot: Arc<LeaseSlot>, node: NodeId }
///
/// impl Registry for Fixed {
///     fn acquire(&self, _rng: &mut dyn rand_core::Rng, _waiting: &mut dyn FnMut(&str))
///         -> Result<Box<dyn Lease>, LeaseError> {
///         let slot = Arc::new(LeaseSlot::new(8, BootTime, Duration::from_millis(100))?);
///         let node = slot.grant(self.0, slot.now(), Duration::from_secs(3600))?;
///         Ok(Box::new(FixedLease { slot, node }))
///     }
/// }
///
/// impl Lease for FixedLease {
///     fn slot(&self) -> &Arc<LeaseSlot> { &self.slot }
///     fn node(&self) -> NodeId { self.node }
///     fn name(&self) -> &'static str { "fixed node" }
///     fn release(self: Box<Self>) -> Result<(), LeaseError> {
///         self.slot.retire(NodeLost::new(NodeLostKind::Released));
///         Ok(())
///     }
/// }
///
/// let registry: Box<dyn Registry> = Box::new(Fixed(42));
/// let lease = registry.acquire(&mut uuidkit::rng::ThreadRng, &mut |_| {})?;
/// let slot = lease.slot().clone();
/// assert_eq!(slot.current()?.value(), 42);
/// assert_eq!((lease.name(), lease.warnings().len(), lease.loss()), ("fixed node", 0, None));
/// lease.release()?;
/// assert!(slot.current().is_err()); // released: generators stop
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait Lease: Send + Sync + fmt::Debug {
    /// The slot generators read the node from ([`LeaseSlot::pair`] for a clock-and-source
    /// pair); it reports the node lost once the lease ends or its deadline passes.
    fn slot(&self) -> &Arc<LeaseSlot>;

    /// The node ID held, as the slot first gave it out.
    fn node(&self) -> NodeId;

    /// What messages call the node: "site node", "etcd node", "PostgreSQL node"…
    fn name(&self) -> &'static str;

    /// What the holder should be told once, at acquisition: a configuration that costs the node
    /// more often than it needs to, or a claim whose uniqueness is weaker than asked for. Each
    /// is one sentence; none means nothing to say.
    fn warnings(&self) -> Vec<String> {
        Vec::new()
    }

    /// The whole text of the node's last loss, where the slot's [`NodeLost`] may have cut its
    /// detail short ([`NodeLost::DETAIL_CAPACITY`]); `None` while the node is held, or when the
    /// slot's text is already whole.
    ///
    /// [`NodeLost`]: uuidkit::node::NodeLost
    /// [`NodeLost::DETAIL_CAPACITY`]: uuidkit::node::NodeLost::DETAIL_CAPACITY
    fn loss(&self) -> Option<String> {
        None
    }

    /// Marks the node lost (generators stop) and gives it back to the registry.
    ///
    /// # Errors
    ///
    /// Whatever kept the registry from hearing the release; the node is marked lost either
    /// way, and the registry frees it when the lease runs out.
    fn release(self: Box<Self>) -> Result<(), LeaseError>;
}

/// A lease source's settings, able to acquire a [`Lease`]: implemented by each source's config
/// ([`site::LeaseConfig`](crate::site), `etcd::EtcdConfig`, `postgres::PgConfig`).
///
/// ```no_run
/// use uuidkit::{clock::SystemClock, rng::ThreadRng, Generator, V8Distributed};
/// use uuidkit_lease::{Lease, Registry};
///
/// // Whichever source the operator named.
/// fn run(registry: &dyn Registry) -> Result<(), Box<dyn std::error::Error>> {
///     let lease = registry.acquire(&mut ThreadRng, &mut |what| eprintln!("waiting: {what}"))?;
///     for warning in lease.warnings() {
///         eprintln!("warning: {warning}");
///     }
///     let mut g = V8Distributed::builder().node_source(lease.slot().clone()).build(SystemClock, ThreadRng)?;
///     println!("{}", g.generate()?);
///     Ok(lease.release()?)
/// }
/// # run(&uuidkit_lease::site::LeaseConfig::new("/run/uiapd/control.sock".into(), 16))?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait Registry: fmt::Debug {
    /// Claims a free node (drawn with `rng`) and keeps it until the lease returned is released
    /// or dropped. `waiting` is told, as it happens, what the claim waits for when the registry
    /// makes it wait ("uiapd: rate limited, starts in 42 s").
    ///
    /// # Errors
    ///
    /// [`LeaseError`], of the kind the source documents: [`LeaseErrorKind::Config`] for
    /// settings it refuses, `Unreachable`, `Denied`, `Refused`, `Registry` or `Timeout`
    /// otherwise.
    fn acquire(
        &self,
        rng: &mut dyn Rng,
        waiting: &mut dyn FnMut(&str),
    ) -> Result<Box<dyn Lease>, LeaseError>;
}

/// The lifetime and retry settings of a registry lease with a TTL (etcd, PostgreSQL,
/// ZooKeeper): one shape, one set of defaults, one check, the `timing` field of each config.
///
/// ```
/// use std::time::Duration;
/// use uuidkit_lease::Timing;
///
/// let t = Timing::for_ttl(Duration::from_secs(6));
/// assert_eq!((t.margin, t.answer_limit, t.attempts), (Duration::from_millis(300), Duration::from_secs(2), 16));
/// assert!(t.check().is_ok());
/// assert!(Timing { margin: Duration::from_secs(6), ..t }.check().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timing {
    /// The lease's time to live.
    pub ttl: Duration,
    /// Taken off each deadline for clock-rate error and scheduling
    /// ([`default_margin`](crate::default_margin) of the TTL).
    pub margin: Duration,
    /// How long one request may take, connecting included (a third of the TTL): a request not
    /// answered in time counts as failed.
    pub answer_limit: Duration,
    /// Nodes tried before giving up (16).
    pub attempts: u32,
    /// The wait after the first taken node, doubled after each one up to `max_backoff`, each
    /// drawn uniformly from its upper half (50 ms).
    pub backoff: Duration,
    /// The longest wait between two attempts (2 s).
    pub max_backoff: Duration,
}

/// The configs' defaults: [`Timing::for_ttl`] of 10 s.
///
/// ```
/// use std::time::Duration;
/// use uuidkit_lease::Timing;
///
/// let t = Timing { attempts: 4, ..Timing::default() };
/// assert_eq!((t.ttl, t.margin, t.attempts), (Duration::from_secs(10), Duration::from_millis(500), 4));
/// ```
impl Default for Timing {
    fn default() -> Timing {
        Timing::for_ttl(Duration::from_secs(10))
    }
}

impl Timing {
    /// The defaults for a lease of `ttl`.
    ///
    /// ```
    /// use std::time::Duration;
    /// use uuidkit_lease::Timing;
    ///
    /// let t = Timing::for_ttl(Duration::from_secs(10));
    /// assert_eq!((t.margin, t.backoff, t.max_backoff), (Duration::from_millis(500), Duration::from_millis(50), Duration::from_secs(2)));
    /// ```
    pub fn for_ttl(ttl: Duration) -> Timing {
        Timing {
            ttl,
            margin: crate::default_margin(ttl),
            answer_limit: ttl / 3,
            attempts: 16,
            backoff: Duration::from_millis(50),
            max_backoff: Duration::from_secs(2),
        }
    }

    /// The wait before attempt `n + 1` after `n` taken nodes (n ≥ 1): `backoff` doubled after
    /// each up to `max_backoff`, drawn uniformly from the upper half of that.
    ///
    /// ```
    /// use std::time::Duration;
    /// use uuidkit_lease::Timing;
    ///
    /// let t = Timing::for_ttl(Duration::from_secs(10));
    /// let w = t.wait_before(3, &mut uuidkit::rng::ThreadRng); // 50 ms doubled twice: 100–200 ms
    /// assert!(w >= Duration::from_millis(100) && w <= Duration::from_millis(200), "{w:?}");
    /// ```
    pub fn wait_before(&self, n: u32, rng: &mut impl Rng) -> Duration {
        crate::node::backoff(self.backoff, self.max_backoff, n, rng)
    }

    /// Checks what every source needs: a margin shorter than the TTL (a deadline after the
    /// grant) and an answer limit above zero.
    ///
    /// # Errors
    ///
    /// [`LeaseErrorKind::Config`] naming the setting.
    ///
    /// ```
    /// use std::time::Duration;
    /// use uuidkit_lease::Timing;
    ///
    /// let t = Timing { answer_limit: Duration::ZERO, ..Timing::for_ttl(Duration::from_secs(1)) };
    /// assert!(t.check().unwrap_err().to_string().contains("answer limit"));
    /// ```
    pub fn check(&self) -> Result<(), LeaseError> {
        if self.margin >= self.ttl {
            return Err(LeaseError::new(
                LeaseErrorKind::Config,
                format!(
                    "lease margin: expected less than the TTL ({:?}), found {:?}",
                    self.ttl, self.margin
                ),
            ));
        }
        if self.answer_limit.is_zero() {
            return Err(LeaseError::new(
                LeaseErrorKind::Config,
                "lease answer limit: expected more than 0",
            ));
        }
        Ok(())
    }
}

/// `with_timing()` for a config with a `timing` field (and whose high-water wait follows the
/// TTL). `$new` is an example config, for the docs. A build with no source that has a TTL
/// leaves it unused.
#[allow(unused_macros)]
macro_rules! timed_config {
    ($config:ident, $path:literal, $new:literal) => {
        impl $config {
            /// These settings with `timing`'s lifetime and retry settings, and the high-water
            /// wait that follows its TTL.
            ///
            /// ```
            /// use std::time::Duration;
            #[doc = concat!("use uuidkit_lease::{Timing, ", $path, "};")]
            ///
            #[doc = concat!("let c = ", $new, ".with_timing(Timing::for_ttl(Duration::from_secs(3)));")]
            /// assert_eq!((c.timing.ttl, c.timing.answer_limit, c.high_water_wait), (Duration::from_secs(3), Duration::from_secs(1), Duration::from_secs(3)));
            /// ```
            pub fn with_timing(self, timing: crate::Timing) -> $config {
                $config {
                    timing,
                    high_water_wait: timing.ttl,
                    ..self
                }
            }
        }
    };
}

#[cfg_attr(
    not(any(feature = "etcd", feature = "postgres", feature = "zookeeper")),
    allow(unused_imports)
)]
pub(crate) use timed_config;
