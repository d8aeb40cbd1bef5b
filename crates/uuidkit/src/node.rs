//! Where a generator gets its node ID (RFC 9562 §6.4, distributed
//! generation): the [`NodeSource`] seam, a fixed node ([`StaticNode`]), a
//! random one ([`RandomNode`]) and, with `std`, a [`NodeSlot`](struct.NodeSlot.html) that a
//! registry client (a site lease, an etcd lease…) writes from its own thread
//! while generators read it.
//!
//! A generator asks its source for the node on every UUID, so a source must
//! answer at once: holding a node (claims, renewals, conflicts) happens
//! elsewhere, and the source only publishes the outcome. The answer is either
//! the node with its *epoch* (bumped each time the source hands out a new
//! node, so a generator tells "same node" from "new node" without comparing
//! values) or why there is none ([`NodeLost`]); a generator given a
//! [`NodeLost`] returns an error of kind
//! [`GenErrorKind::NodeLost`](crate::generator::GenErrorKind::NodeLost) and issues
//! nothing.
//!
//! ```
//! use std::sync::Arc;
//! use uuidkit::{clock::ManualClock, generator::GenErrorKind};
//! use uuidkit::{node::{NodeLost, NodeLostKind, NodeSlot}, rng::ThreadRng};
//! use uuidkit::{Generator, V8Distributed};
//!
//! let slot = Arc::new(NodeSlot::new(16)?);
//! let clock = ManualClock::new(1_700_000_000_000_000_000);
//! let mut g = V8Distributed::builder().node_source(slot.clone()).build(&clock, ThreadRng)?;
//!
//! // No node yet: nothing is generated.
//! assert_eq!(g.generate().unwrap_err().kind(), GenErrorKind::NodeLost);
//!
//! // The registry client claimed node 0xBEEF (from its own thread, usually).
//! slot.set(0xBEEF)?;
//! assert_eq!(g.generate()?.custom_b(), Some(0xBEEF >> 4)); // the node's top 12 bits fill custom_b
//!
//! // Another device proved it holds that node: the generator stops at once.
//! slot.lose(NodeLost::new(NodeLostKind::Conflict).with_detail("device 02:00:5e:10:00:01 holds it"));
//! let err = g.generate().unwrap_err();
//! assert_eq!(err.to_string(), "node lost: conflict (another device holds the node): device 02:00:5e:10:00:01 holds it");
//! # Ok::<(), uuidkit::GenError>(())
//! ```

use core::fmt;

use rand_core::Rng;

use crate::generator::{GenError, random_node};
use crate::inline_text::InlineText;

/// The widest node ID a source can hand out: the 48-bit node field of v1/v6.
const MAX_BITS: u8 = 48;

/// A node ID `bits` wide (1..=48), and the epoch it belongs to: a source
/// bumps the epoch whenever the value it hands out changes (a new lease), so a
/// generator can tell "same node" from "new node" without comparing values.
/// The same value under a new epoch is a new node too: it may have been held
/// by someone else in between.
///
/// ```
/// use uuidkit::node::NodeId;
/// let n = NodeId::new(0x2A, 10, 3)?;
/// assert_eq!((n.value(), n.bits(), n.epoch()), (0x2A, 10, 3));
/// assert_eq!(n.as_bytes6(), None); // only a 48-bit node fills the v1/v6 node field
/// # Ok::<(), uuidkit::GenError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct NodeId {
    value: u64,
    epoch: u64,
    bits: u8,
}

impl NodeId {
    /// A node ID of `bits` bits (1..=48) with the value `value`, in `epoch`.
    ///
    /// # Errors
    /// [`GenErrorKind::InvalidConfig`](crate::generator::GenErrorKind::InvalidConfig) when
    /// `bits` is out of range or `value` does not fit in it.
    ///
    /// ```
    /// use uuidkit::node::NodeId;
    /// assert_eq!(NodeId::new(1, 49, 0).unwrap_err().to_string(), "invalid generator config: expected node bits in 1..=48, found 49");
    /// assert_eq!(NodeId::new(256, 8, 0).unwrap_err().to_string(), "invalid generator config: expected a node id that fits the node bits, found 256");
    /// ```
    pub const fn new(value: u64, bits: u8, epoch: u64) -> Result<NodeId, GenError> {
        if bits == 0 || bits > MAX_BITS {
            return Err(GenError::config("node bits in 1..=48", bits as u64));
        }
        if value >> bits != 0 {
            return Err(GenError::config("a node id that fits the node bits", value));
        }
        Ok(NodeId { value, epoch, bits })
    }

    /// The 48-bit node ID of the six octets of a v1/v6 node field, in
    /// `epoch`.
    ///
    /// ```
    /// use uuidkit::node::NodeId;
    /// let n = NodeId::from_bytes6([0x9F, 0x6B, 0xDE, 0xCE, 0xD8, 0x46], 0);
    /// assert_eq!((n.value(), n.bits()), (0x9F6BDECED846, 48));
    /// ```
    #[must_use]
    pub const fn from_bytes6(bytes: [u8; 6], epoch: u64) -> NodeId {
        let [a, b, c, d, e, f] = bytes;
        NodeId {
            value: u64::from_be_bytes([0, 0, a, b, c, d, e, f]),
            epoch,
            bits: MAX_BITS,
        }
    }

    /// The value, in the low `bits` bits.
    ///
    /// ```
    /// assert_eq!(uuidkit::node::NodeId::new(7, 3, 0)?.value(), 7);
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    #[must_use]
    pub const fn value(&self) -> u64 {
        self.value
    }

    /// The width in bits, 1..=48.
    ///
    /// ```
    /// assert_eq!(uuidkit::node::NodeId::new(7, 3, 0)?.bits(), 3);
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    #[must_use]
    pub const fn bits(&self) -> u8 {
        self.bits
    }

    /// The epoch: equal for two answers of one source exactly when they are
    /// the same tenure of the same node.
    ///
    /// ```
    /// assert_eq!(uuidkit::node::NodeId::new(7, 3, 9)?.epoch(), 9);
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    #[must_use]
    pub const fn epoch(&self) -> u64 {
        self.epoch
    }

    /// The six octets of the v1/v6 node field, most significant first, for a
    /// 48-bit node; `None` for a narrower one.
    ///
    /// ```
    /// let n = uuidkit::node::NodeId::new(0x0100_0000_0002, 48, 0)?;
    /// assert_eq!(n.as_bytes6(), Some([1, 0, 0, 0, 0, 2]));
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    #[must_use]
    pub const fn as_bytes6(&self) -> Option<[u8; 6]> {
        if self.bits != MAX_BITS {
            return None;
        }
        let [_, _, a, b, c, d, e, f] = self.value.to_be_bytes();
        Some([a, b, c, d, e, f])
    }
}

/// Why a source has no node ID to give; see [`NodeLost`].
///
/// ```
/// use uuidkit::node::NodeLostKind;
/// assert_eq!(NodeLostKind::Conflict.to_string(), "conflict (another device holds the node)");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum NodeLostKind {
    /// No node has been acquired yet (the claim is under way, or never began).
    NotAcquired,
    /// The node was given back (the lease was released or dropped).
    Released,
    /// Another device proved that it holds the node.
    Conflict,
    /// The registry (or the daemon that speaks to it) cannot be reached.
    SourceGone,
    /// The node could not be renewed before its lease ended.
    RenewalFailed,
}

impl fmt::Display for NodeLostKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            NodeLostKind::NotAcquired => "not acquired yet",
            NodeLostKind::Released => "released",
            NodeLostKind::Conflict => "conflict (another device holds the node)",
            NodeLostKind::SourceGone => "source gone (the registry cannot be reached)",
            NodeLostKind::RenewalFailed => "renewal failed",
        })
    }
}

/// Why a source has no node ID to give: a kind and a human detail (what the
/// registry said, which device holds the node…).
///
/// It is `Copy` and needs no allocation (the detail lives inline, up to
/// [`NodeLost::DETAIL_CAPACITY`] bytes; a longer one is cut at a character
/// boundary and ends in `…`), so it works without `std` and travels inside a
/// [`GenError`].
///
/// ```
/// use uuidkit::node::{NodeLost, NodeLostKind};
/// let lost = NodeLost::new(NodeLostKind::SourceGone).with_detail("is uiapd running? tried /run/uiapd.sock");
/// assert_eq!(lost.kind(), NodeLostKind::SourceGone);
/// assert_eq!(lost.detail(), "is uiapd running? tried /run/uiapd.sock");
/// assert_eq!(lost.to_string(), "source gone (the registry cannot be reached): is uiapd running? tried /run/uiapd.sock");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct NodeLost {
    kind: NodeLostKind,
    detail: InlineText,
}

impl NodeLost {
    /// The longest detail kept, in bytes (UTF-8).
    pub const DETAIL_CAPACITY: usize = InlineText::CAPACITY;

    /// A loss of kind `kind`, with no detail.
    ///
    /// ```
    /// use uuidkit::node::{NodeLost, NodeLostKind};
    /// assert_eq!(NodeLost::new(NodeLostKind::Released).to_string(), "released");
    /// ```
    #[must_use]
    pub const fn new(kind: NodeLostKind) -> NodeLost {
        NodeLost {
            kind,
            detail: InlineText::EMPTY,
        }
    }

    /// The same loss with `detail` (replacing any before). A detail longer
    /// than [`DETAIL_CAPACITY`](Self::DETAIL_CAPACITY) bytes is cut at a
    /// character boundary and ends in `…`.
    ///
    /// ```
    /// use uuidkit::node::{NodeLost, NodeLostKind};
    /// let long = "é".repeat(100);
    /// let lost = NodeLost::new(NodeLostKind::RenewalFailed).with_detail(&long);
    /// assert!(lost.detail().len() <= NodeLost::DETAIL_CAPACITY);
    /// assert!(lost.detail().starts_with("éé") && lost.detail().ends_with('…'));
    /// ```
    #[must_use]
    pub fn with_detail(mut self, detail: &str) -> NodeLost {
        self.detail = InlineText::new(detail);
        self
    }

    /// The kind of loss.
    ///
    /// ```
    /// use uuidkit::node::{NodeLost, NodeLostKind};
    /// assert_eq!(NodeLost::new(NodeLostKind::Conflict).kind(), NodeLostKind::Conflict);
    /// ```
    #[must_use]
    pub const fn kind(&self) -> NodeLostKind {
        self.kind
    }

    /// The detail, empty if none was given.
    ///
    /// ```
    /// use uuidkit::node::{NodeLost, NodeLostKind};
    /// assert_eq!(NodeLost::new(NodeLostKind::Conflict).detail(), "");
    /// ```
    #[must_use]
    pub fn detail(&self) -> &str {
        self.detail.as_str()
    }
}

impl fmt::Debug for NodeLost {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NodeLost")
            .field("kind", &self.kind)
            .field("detail", &self.detail())
            .finish()
    }
}

impl fmt::Display for NodeLost {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.detail().is_empty() {
            write!(f, "{}", self.kind)
        } else {
            write!(f, "{}: {}", self.kind, self.detail())
        }
    }
}

impl core::error::Error for NodeLost {}

/// Where a generator gets its node: asked on **every** UUID, so
/// [`current`](Self::current) must be cheap and must never block (an atomic
/// load or two); the work of holding a node (claims, renewals) happens
/// elsewhere, off the generator's path.
///
/// A generator that is given a source checks [`bits`](Self::bits) once when
/// it is built, then on each UUID:
/// - `Err(lost)`: it returns an error of kind
///   [`GenErrorKind::NodeLost`](crate::generator::GenErrorKind::NodeLost) and issues
///   nothing;
/// - `Ok(id)` with an epoch it has not seen: a new node, so v1/v6 start a
///   fresh clock sequence (never continuing another node's sequence,
///   RFC 9562 §6.3) and the v8 distributed layout restarts its counter.
///
/// Implement it for any registry (a site lease, an etcd lease): generators
/// see only this trait. [`NodeSlot`] is the ready-made shared cell such a
/// registry client writes into.
///
/// ```
/// use uuidkit::{node::{NodeId, NodeLost, NodeLostKind, NodeSource}, GenError};
/// /// A node that is held only on even days (a stand-in for a real registry).
/// #[derive(Debug)]
/// struct EvenDays { day: u64 }
/// impl NodeSource for EvenDays {
///     fn bits(&self) -> u8 { 12 }
///     fn current(&self) -> Result<NodeId, NodeLost> {
///         if self.day % 2 == 1 {
///             return Err(NodeLost::new(NodeLostKind::Released).with_detail("odd day"));
///         }
///         NodeId::new(0xABC, 12, self.day / 2).map_err(|_| NodeLost::new(NodeLostKind::SourceGone))
///     }
/// }
/// assert_eq!(EvenDays { day: 4 }.current()?.epoch(), 2);
/// assert_eq!(EvenDays { day: 5 }.current().unwrap_err().detail(), "odd day");
/// # Ok::<(), NodeLost>(())
/// ```
#[doc = std_link!("NodeSlot", "crate::node::NodeSlot")]
pub trait NodeSource: Send + Sync + fmt::Debug {
    /// The width of every node ID this source hands out, 1..=48; constant
    /// for the life of the source.
    fn bits(&self) -> u8;

    /// The node ID held now, or why there is none.
    ///
    /// # Errors
    /// [`NodeLost`] when the source holds no node: the generator must not
    /// issue a UUID.
    fn current(&self) -> Result<NodeId, NodeLost>;

    /// Whether the tenure of `epoch` — a node an earlier
    /// [`current`](Self::current) handed out — is still the one held. v1/v6
    /// generators, which keep their node's bytes, ask this before every UUID
    /// once they hold a node, and ask [`current`](Self::current) only on a
    /// `false` (another tenure, or none). The default asks
    /// [`current`](Self::current); a source that can answer from less than a
    /// whole [`NodeId`] overrides it, and must answer `true` only when
    /// [`current`](Self::current) would have returned a node of `epoch` at
    /// some instant during the call.
    ///
    /// ```
    /// use uuidkit::node::{NodeSlot, NodeSource};
    /// let slot = NodeSlot::new(8)?;
    /// let first = slot.set(5)?;
    /// assert!(slot.holds(first.epoch()));
    /// slot.set(5)?; // the same value, granted anew: another tenure
    /// assert!(!slot.holds(first.epoch()));
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    #[inline]
    fn holds(&self, epoch: u64) -> bool {
        self.current().is_ok_and(|id| id.epoch() == epoch)
    }

    /// For a generator that checks its node once per clock tick rather than
    /// once per UUID: a [`HoldWindow`] for the tenure of `epoch`, or `None`
    /// (the default) when the source must be asked [`holds`](Self::holds)
    /// for every UUID. A source that gives windows must give one for every
    /// call, a closed one (`before` 0) when the tenure does not hold, and
    /// override [`holds_marked`](Self::holds_marked) to match.
    ///
    /// The promise: for every reading of the generator's clock below
    /// `before`, made after this call, at which
    /// [`holds_marked(epoch, mark)`](Self::holds_marked) answers `true`,
    /// [`holds(epoch)`](Self::holds) would have answered `true` too.
    ///
    /// ```
    /// use uuidkit::node::{NodeSlot, NodeSource};
    /// let slot = NodeSlot::new(8)?;
    /// let id = slot.set(5)?;
    /// assert_eq!(slot.hold_window(id.epoch()), None); // asked for each UUID
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    #[inline]
    fn hold_window(&self, epoch: u64) -> Option<HoldWindow> {
        let _ = epoch;
        None
    }

    /// [`holds`](Self::holds), for a generator that got `mark` from
    /// [`hold_window`](Self::hold_window) for `epoch` (or 0 when that was
    /// `None`). The default ignores the mark; a source that gives windows
    /// answers from the mark alone, as cheaply as it can: it is asked before
    /// every UUID.
    ///
    /// ```
    /// use uuidkit::node::{NodeSource, StaticNode};
    /// let node = StaticNode::new(7, 8)?;
    /// let epoch = node.current()?.epoch();
    /// assert!(node.holds_marked(epoch, 0));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline(always)]
    fn holds_marked(&self, epoch: u64, mark: u64) -> bool {
        let _ = mark;
        self.holds(epoch)
    }
}

/// How long a node source vouches for a tenure without being asked
/// [`holds`](NodeSource::holds) for each UUID: for readings of the
/// generator's clock below `before`, as long as
/// [`holds_marked`](NodeSource::holds_marked) finds `mark` unchanged. A lease
/// whose deadline lies ahead gives one, so that a generator checks the
/// deadline once per clock tick and only the mark for each UUID.
///
/// ```
/// use uuidkit::node::HoldWindow;
/// let w = HoldWindow { mark: 0x2A, before: 1_000 };
/// assert!(w.before > 999); // a reading of 999 ns is inside it
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct HoldWindow {
    /// What [`holds_marked`](NodeSource::holds_marked) is given back: the
    /// source's state when the window was given.
    pub mark: u64,
    /// The first reading of the generator's clock, in its nanoseconds, that
    /// the window does not cover.
    pub before: u64,
}

/// No node source: a v1/v6 generator keeps its own node (the one given to
/// its builder, or a random one); the builders' default. A v8 distributed
/// builder must be given a node or a source before it builds.
///
/// ```
/// use uuidkit::{clock::ManualClock, node::NoNodeSource, rng::ThreadRng, Generator, V1Generator};
/// let mut g = V1Generator::builder().node([2; 6]).build(ManualClock::new(1 << 60), ThreadRng)?;
/// let _: &NoNodeSource = g.node_source();
/// assert_eq!(g.generate()?.node(), Some([2; 6])); // its own node
/// # Ok::<(), uuidkit::GenError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct NoNodeSource;

/// What a v1/v6 generator's node-source slot holds: [`NoNodeSource`] (the
/// default), any [`NodeSource`], or an `Option` of one (`None`: no source,
/// for a source chosen at run time), attached on the builder
/// (`node_source(…)`). Sealed: it exists so that a generator without a source
/// pays nothing for the seam (the check compiles away), and is implemented
/// for exactly those.
///
/// ```
/// use uuidkit::{clock::ManualClock, node::StaticNode, rng::ThreadRng, Generator, V1Generator};
/// let clock = ManualClock::new(1 << 60);
/// for (source, node) in [(Some(StaticNode::from_bytes6([3; 6])), [3; 6]), (None, [2; 6])] {
///     let mut g = V1Generator::builder().node([2; 6]).node_source(source).build(&clock, ThreadRng)?;
///     assert_eq!(g.generate()?.node(), Some(node)); // the source's node, or its own without one
/// }
/// # Ok::<(), uuidkit::GenError>(())
/// ```
pub trait MaybeNodeSource: sealed::Sealed {}

impl MaybeNodeSource for NoNodeSource {}

impl<T: NodeSource> MaybeNodeSource for T {}

impl<T: NodeSource> MaybeNodeSource for Option<T> {}

pub(crate) mod sealed {
    use super::{NoNodeSource, NodeId, NodeLost, NodeSource};

    /// The seam as a generator sees it.
    pub trait Sealed {
        /// The source's width, checked when the generator is built; `None`
        /// without a source.
        fn source_bits(&self) -> Option<u8>;
        /// The source's answer before a UUID; `None` without a source.
        fn source_current(&self) -> Option<Result<NodeId, NodeLost>>;
        /// [`NodeSource::holds`]; `None` without a source.
        fn source_holds(&self, epoch: u64) -> Option<bool>;
    }

    impl Sealed for NoNodeSource {
        #[inline(always)]
        fn source_bits(&self) -> Option<u8> {
            None
        }
        #[inline(always)]
        fn source_current(&self) -> Option<Result<NodeId, NodeLost>> {
            None
        }
        #[inline(always)]
        fn source_holds(&self, _: u64) -> Option<bool> {
            None
        }
    }

    impl<T: NodeSource> Sealed for Option<T> {
        #[inline]
        fn source_bits(&self) -> Option<u8> {
            self.as_ref().map(NodeSource::bits)
        }
        #[inline(always)]
        fn source_current(&self) -> Option<Result<NodeId, NodeLost>> {
            self.as_ref().map(NodeSource::current)
        }
        #[inline(always)]
        fn source_holds(&self, epoch: u64) -> Option<bool> {
            self.as_ref().map(|s| s.holds(epoch))
        }
    }

    impl<T: NodeSource> Sealed for T {
        #[inline]
        fn source_bits(&self) -> Option<u8> {
            Some(self.bits())
        }
        #[inline(always)]
        fn source_current(&self) -> Option<Result<NodeId, NodeLost>> {
            Some(self.current())
        }
        #[inline(always)]
        fn source_holds(&self, epoch: u64) -> Option<bool> {
            Some(self.holds(epoch))
        }
    }
}

/// A pointer to a source is that source: every method forwards.
macro_rules! forward_node_source {
    ($($(#[$attr:meta])* $ptr:ty),+) => {$(
        $(#[$attr])*
        impl<T: NodeSource + ?Sized> NodeSource for $ptr {
            #[inline]
            fn bits(&self) -> u8 {
                (**self).bits()
            }
            #[inline]
            fn current(&self) -> Result<NodeId, NodeLost> {
                (**self).current()
            }
            #[inline]
            fn holds(&self, epoch: u64) -> bool {
                (**self).holds(epoch)
            }
            #[inline]
            fn hold_window(&self, epoch: u64) -> Option<HoldWindow> {
                (**self).hold_window(epoch)
            }
            #[inline(always)]
            fn holds_marked(&self, epoch: u64, mark: u64) -> bool {
                (**self).holds_marked(epoch, mark)
            }
        }
    )+};
}

forward_node_source!(
    &T,
    #[cfg(feature = "std")]
    std::sync::Arc<T>,
    #[cfg(feature = "std")]
    std::boxed::Box<T>
);

/// A fixed node, for instance one from configuration: always held, always
/// epoch 0. Nothing makes a configured value unique; use it where something
/// outside the program does (RFC 9562 §6.4 leaves that to you).
///
/// ```
/// use uuidkit::node::{NodeSource, StaticNode};
/// let n = StaticNode::new(0x2A, 10)?;
/// assert_eq!((n.bits(), n.current()?.value()), (10, 0x2A));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StaticNode(NodeId);

impl StaticNode {
    /// The node `value` of `bits` bits (1..=48).
    ///
    /// # Errors
    /// As [`NodeId::new`].
    ///
    /// ```
    /// assert!(uuidkit::node::StaticNode::new(8, 3).is_err());
    /// ```
    pub const fn new(value: u64, bits: u8) -> Result<StaticNode, GenError> {
        match NodeId::new(value, bits, 0) {
            Ok(id) => Ok(StaticNode(id)),
            Err(e) => Err(e),
        }
    }

    /// The 48-bit node of a v1/v6 node field.
    ///
    /// ```
    /// use uuidkit::node::{NodeSource, StaticNode};
    /// let n = StaticNode::from_bytes6([1, 2, 3, 4, 5, 6]);
    /// assert_eq!(n.current()?.as_bytes6(), Some([1, 2, 3, 4, 5, 6]));
    /// # Ok::<(), uuidkit::node::NodeLost>(())
    /// ```
    #[must_use]
    pub const fn from_bytes6(bytes: [u8; 6]) -> StaticNode {
        StaticNode(NodeId::from_bytes6(bytes, 0))
    }

    /// The node.
    ///
    /// ```
    /// assert_eq!(uuidkit::node::StaticNode::new(5, 4)?.id().value(), 5);
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    #[must_use]
    pub const fn id(&self) -> NodeId {
        self.0
    }
}

impl NodeSource for StaticNode {
    #[inline]
    fn bits(&self) -> u8 {
        self.0.bits
    }
    #[inline]
    fn current(&self) -> Result<NodeId, NodeLost> {
        Ok(self.0)
    }
    /// Its one tenure, epoch 0, is held for ever: a compare with a constant,
    /// which is what a generator asks before each ID.
    #[inline]
    fn holds(&self, epoch: u64) -> bool {
        epoch == 0
    }
}

/// A node drawn once from an RNG, so seeding the RNG reproduces it; a 48-bit
/// one has the multicast bit (0x01 of its first octet) set, which no IEEE 802
/// address has (RFC 9562 §6.10). Always held, always epoch 0.
///
/// Random nodes collide by the birthday bound (about one pair in 2^(bits/2)
/// generators); where that matters, use a registry that makes them unique.
///
/// ```
/// use rand_chacha::ChaCha8Rng;
/// use rand_core::SeedableRng;
/// use uuidkit::node::{NodeSource, RandomNode};
/// let a = RandomNode::new(48, &mut ChaCha8Rng::seed_from_u64(7))?;
/// let b = RandomNode::new(48, &mut ChaCha8Rng::seed_from_u64(7))?;
/// assert_eq!(a, b); // same seed, same node
/// assert_eq!(a.current()?.as_bytes6().unwrap()[0] & 0x01, 0x01); // multicast bit
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RandomNode(NodeId);

impl RandomNode {
    /// A random node of `bits` bits (1..=48), from one `next_u64` of `rng`
    /// (the same draw a v1 generator makes for its default node).
    ///
    /// # Errors
    /// [`GenErrorKind::InvalidConfig`](crate::generator::GenErrorKind::InvalidConfig) when
    /// `bits` is out of range.
    ///
    /// ```
    /// use uuidkit::{node::RandomNode, rng::ThreadRng};
    /// assert_eq!(RandomNode::new(0, &mut ThreadRng).unwrap_err().to_string(), "invalid generator config: expected node bits in 1..=48, found 0");
    /// ```
    pub fn new<R: Rng + ?Sized>(bits: u8, rng: &mut R) -> Result<RandomNode, GenError> {
        if bits == 0 || bits > MAX_BITS {
            return Err(GenError::config("node bits in 1..=48", bits.into()));
        }
        let r = rng.next_u64();
        let id = if bits == MAX_BITS {
            NodeId::from_bytes6(random_node(r), 0)
        } else {
            NodeId::new(r & ((1 << bits) - 1), bits, 0)?
        };
        Ok(RandomNode(id))
    }

    /// The node.
    ///
    /// ```
    /// use uuidkit::{node::RandomNode, rng::ThreadRng};
    /// assert!(RandomNode::new(4, &mut ThreadRng)?.id().value() < 16);
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    #[must_use]
    pub const fn id(&self) -> NodeId {
        self.0
    }
}

impl NodeSource for RandomNode {
    #[inline]
    fn bits(&self) -> u8 {
        self.0.bits
    }
    #[inline]
    fn current(&self) -> Result<NodeId, NodeLost> {
        Ok(self.0)
    }
}

#[cfg(feature = "std")]
pub use slot::NodeSlot;

/// The examples of `docs/distributed-generation.md`, run as doctests.
#[cfg(all(doctest, feature = "std"))]
#[doc = include_str!("../../../docs/distributed-generation.md")]
pub struct DistributedGenerationDoc;

#[cfg(feature = "std")]
mod slot;
