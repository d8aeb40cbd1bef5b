//! [`NodeSlot`]: the node a registry client holds, published to generators
//! on other threads through a sequence lock.
//!
//! Readers take no lock and write nothing: they read the sequence number,
//! the value and epoch (one cache line), then the sequence number again, and retry if a write happened
//! in between (a write is a handful of stores, so a retry is rare and short).
//! A torn answer (the value of one node with the epoch of another, or a node
//! together with a loss) is impossible: every word is read inside one
//! unchanged, even sequence number. Writers are serialised by a mutex that
//! readers never touch.

use std::sync::atomic::{AtomicU64, Ordering, fence};

use super::{MAX_BITS, NodeId, NodeLost, NodeLostKind, NodeSource};
use crate::generator::GenError;
use crate::inline_text::InlineText;
use crate::sync::ForkSafeMutex;

/// The words of a [`NodeLost`]: its tag and length, then its detail.
const LOST_WORDS: usize = (2 + NodeLost::DETAIL_CAPACITY).div_ceil(8);
/// Every kind of loss, in the order of their tags.
const KINDS: [NodeLostKind; 5] = [
    NodeLostKind::NotAcquired,
    NodeLostKind::Released,
    NodeLostKind::Conflict,
    NodeLostKind::SourceGone,
    NodeLostKind::RenewalFailed,
];
/// Set in the value word while no node is held (a value has at most 48 bits).
const LOST: u64 = 1 << 63;

/// A shareable slot for the node a registry client holds: the client writes
/// it from its own thread ([`set`](Self::set) on a new lease,
/// [`lose`](Self::lose) when the node is no longer held) and generators read
/// it through [`NodeSource`] (share it with an `Arc`).
///
/// Reading is a few atomic loads, with no lock and no write: cheap enough for
/// every UUID. What a reader sees is always one whole state, as some write
/// left it: a node with its own epoch, or a loss. Once [`lose`](Self::lose)
/// has returned, every [`current`](NodeSource::current) that starts after it
/// reports the loss until the next [`set`](Self::set).
///
/// A new slot has no node ([`NodeLostKind::NotAcquired`]). Each `set` starts
/// a new epoch, one above the last, even for the same value: a node given
/// back and claimed again may have been someone else's in between.
///
/// ```
/// use std::sync::Arc;
/// use uuidkit::node::{NodeLost, NodeLostKind, NodeSlot, NodeSource};
/// let slot = Arc::new(NodeSlot::new(48)?);
/// assert_eq!(slot.current().unwrap_err().kind(), NodeLostKind::NotAcquired);
///
/// let writer = {
///     let slot = slot.clone();
///     std::thread::spawn(move || slot.set(0x0300_0000_0001))
/// };
/// let first = writer.join().unwrap()?;
/// assert_eq!(slot.current(), Ok(first));
/// assert_eq!(first.epoch(), 1);
///
/// slot.lose(NodeLost::new(NodeLostKind::RenewalFailed));
/// assert_eq!(slot.current().unwrap_err().kind(), NodeLostKind::RenewalFailed);
/// assert_eq!(slot.set(0x0300_0000_0001)?.epoch(), 2); // same value, new tenure
/// # Ok::<(), uuidkit::GenError>(())
/// ```
#[derive(Debug)]
pub struct NodeSlot {
    /// What a reader loads, together on one cache line.
    hot: Hot,
    /// 1 + the index of a [`NodeLostKind`], then the detail's length and
    /// bytes: read only when the value word says [`LOST`].
    lost: [AtomicU64; LOST_WORDS],
    writer: ForkSafeMutex<()>,
}

#[derive(Debug)]
#[repr(C, align(64))]
struct Hot {
    /// Even when no write is under way; two more after each write.
    seq: AtomicU64,
    /// The node's value, or [`LOST`].
    value: AtomicU64,
    epoch: AtomicU64,
    bits: u8,
}

impl NodeSlot {
    /// An empty slot for nodes of `bits` bits (1..=48).
    ///
    /// # Errors
    /// [`GenErrorKind::InvalidConfig`](crate::generator::GenErrorKind::InvalidConfig) when
    /// `bits` is out of range.
    ///
    /// ```
    /// use uuidkit::node::{NodeSlot, NodeSource};
    /// assert_eq!(NodeSlot::new(12)?.bits(), 12);
    /// assert!(NodeSlot::new(49).is_err());
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub fn new(bits: u8) -> Result<NodeSlot, GenError> {
        if bits == 0 || bits > MAX_BITS {
            return Err(GenError::config("node bits in 1..=48", bits.into()));
        }
        let slot = NodeSlot {
            hot: Hot {
                seq: AtomicU64::new(0),
                value: AtomicU64::new(LOST),
                epoch: AtomicU64::new(0),
                bits,
            },
            lost: [const { AtomicU64::new(0) }; LOST_WORDS],
            writer: ForkSafeMutex::new(()),
        };
        slot.store_lost(&NodeLost::new(NodeLostKind::NotAcquired));
        Ok(slot)
    }

    /// Publishes `value` as the node now held, under a new epoch (one above
    /// the last `set`), and returns it.
    ///
    /// # Errors
    /// [`GenErrorKind::InvalidConfig`](crate::generator::GenErrorKind::InvalidConfig) when
    /// `value` does not fit the slot's bits; the slot is then unchanged.
    ///
    /// ```
    /// use uuidkit::node::{NodeSlot, NodeSource};
    /// let slot = NodeSlot::new(8)?;
    /// assert!(slot.set(256).is_err());
    /// assert!(slot.current().is_err()); // still nothing held
    /// let id = slot.set(255)?;
    /// assert_eq!((id.value(), id.bits(), id.epoch()), (255, 8, 1));
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub fn set(&self, value: u64) -> Result<NodeId, GenError> {
        NodeId::new(value, self.hot.bits, 0)?;
        let mut epoch = 0;
        self.write(|| {
            epoch = self.hot.epoch.load(Ordering::Relaxed) + 1;
            self.hot.value.store(value, Ordering::Relaxed);
            self.hot.epoch.store(epoch, Ordering::Relaxed);
        });
        Ok(NodeId {
            value,
            epoch,
            bits: self.hot.bits,
        })
    }

    /// Publishes that no node is held, and why. Generators reading the slot
    /// afterwards stop with [`GenErrorKind::NodeLost`](crate::generator::GenErrorKind::NodeLost)
    /// until the next [`set`](Self::set). A second loss replaces the first.
    ///
    /// ```
    /// use uuidkit::node::{NodeLost, NodeLostKind, NodeSlot, NodeSource};
    /// let slot = NodeSlot::new(8)?;
    /// slot.set(1)?;
    /// slot.lose(NodeLost::new(NodeLostKind::SourceGone).with_detail("connection reset"));
    /// assert_eq!(slot.current().unwrap_err().detail(), "connection reset");
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub fn lose(&self, lost: NodeLost) {
        self.write(|| {
            self.store_lost(&lost);
            self.hot.value.store(LOST, Ordering::Relaxed);
        });
    }

    /// Runs the stores of `f` as one write of the sequence lock.
    fn write(&self, f: impl FnOnce()) {
        // Poisoning is ignored: another writer that panicked may have left
        // words half written, and this write rewrites them in full. A fork
        // never lands inside a write (G6), which would leave the sequence
        // odd, and every reader in the child spinning, for ever.
        let _guard = self.writer.lock();
        let seq = self.hot.seq.load(Ordering::Relaxed);
        self.hot.seq.store(seq | 1, Ordering::Relaxed);
        // Orders the odd sequence number before the stores of `f`.
        fence(Ordering::Release);
        f();
        self.hot.seq.store((seq | 1) + 1, Ordering::Release);
    }

    fn store_lost(&self, lost: &NodeLost) {
        let tag = KINDS
            .iter()
            .position(|k| *k == lost.kind)
            .map_or(1, |i| i as u8 + 1);
        let mut bytes = [0u8; LOST_WORDS * 8];
        bytes[0] = tag;
        let (len, detail) = lost.detail.raw();
        bytes[1] = len;
        bytes[2..2 + NodeLost::DETAIL_CAPACITY].copy_from_slice(detail);
        for (word, chunk) in self.lost.iter().zip(bytes.chunks_exact(8)) {
            let mut w = [0u8; 8];
            w.copy_from_slice(chunk);
            word.store(u64::from_le_bytes(w), Ordering::Relaxed);
        }
    }

    /// The loss published under sequence number `seq`, or `None` if a write
    /// has begun since (the caller then reads again).
    #[cold]
    #[inline(never)]
    fn load_lost(&self, seq: u64) -> Option<NodeLost> {
        let mut bytes = [0u8; LOST_WORDS * 8];
        for (word, chunk) in self.lost.iter().zip(bytes.chunks_exact_mut(8)) {
            chunk.copy_from_slice(&word.load(Ordering::Relaxed).to_le_bytes());
        }
        fence(Ordering::Acquire);
        if self.hot.seq.load(Ordering::Relaxed) != seq {
            return None;
        }
        let kind = KINDS[usize::from(bytes[0]).saturating_sub(1).min(4)];
        let mut detail = [0u8; NodeLost::DETAIL_CAPACITY];
        detail.copy_from_slice(&bytes[2..2 + NodeLost::DETAIL_CAPACITY]);
        Some(NodeLost {
            kind,
            detail: InlineText::from_raw(bytes[1], detail),
        })
    }
}

impl NodeSource for NodeSlot {
    #[inline]
    fn bits(&self) -> u8 {
        self.hot.bits
    }

    #[inline]
    fn current(&self) -> Result<NodeId, NodeLost> {
        let hot = &self.hot;
        loop {
            let seq = hot.seq.load(Ordering::Acquire);
            if seq & 1 == 0 {
                let value = hot.value.load(Ordering::Relaxed);
                let epoch = hot.epoch.load(Ordering::Relaxed);
                // Orders the loads above before the check that no write
                // overlapped them.
                fence(Ordering::Acquire);
                if hot.seq.load(Ordering::Relaxed) == seq {
                    if value & LOST == 0 {
                        return Ok(NodeId {
                            value,
                            epoch,
                            bits: hot.bits,
                        });
                    }
                    if let Some(lost) = self.load_lost(seq) {
                        return Err(lost);
                    }
                }
            }
            core::hint::spin_loop();
        }
    }
}
