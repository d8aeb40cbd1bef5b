//! [`SharedV7`]: the process-wide v7 generator's algorithm on a state word
//! the caller places, for instance in memory shared between processes.

use core::sync::atomic::AtomicU64;

use crate::Uuid;
use crate::v7::global;

/// A lock-free v7 generator whose whole state is one `AtomicU64`, placed
/// wherever the caller puts the value: a `static` (as [`Uuid::now_v7`]'s
/// own word is), or memory shared between processes, such as a
/// `MAP_SHARED` mapping or a database server's shared memory, so that the
/// UUIDs of every process that maps it are ordered as one sequence.
///
/// Guarantees, for every thread of every process that calls the same
/// `SharedV7`: if one call happens-before another (in particular, if one
/// call returned before the other began), the second UUID is greater, and
/// no two calls return the same UUID. Each call is one atomic
/// read-modify-write of the word (no lock, no system call), so calls are
/// ordered by the word's modification order. The layout and the clock
/// handling are [`Uuid::now_v7`]'s: 48-bit Unix milliseconds, a 16-bit
/// counter seeded with 15 random bits at each new millisecond (overflow
/// advances the timestamp), 58 random bits from [`ThreadRng`](crate::rng::ThreadRng);
/// a clock stepping back keeps the last timestamp and counts on.
///
/// Between processes: 64-bit atomics are lock-free wherever `AtomicU64`
/// exists, so the word works through any mapping of it. Every bit pattern is
/// a valid state (all zeros is [`SharedV7::new`]), so zero-filled shared
/// memory needs no initialisation. The random bits come from each process's
/// own [`ThreadRng`](crate::rng::ThreadRng), which reseeds after `fork()`. The
/// state lives only as long as the memory: a new mapping starts again from
/// the clock. In memory that `fork()` copies rather than shares (a `static`
/// of a forked process), parent and child go on from the same state, their
/// UUIDs told apart by their random bits only and not ordered with each
/// other; [`Uuid::now_v7`] moves a child to the next millisecond instead.
///
/// ```
/// use uuidkit::{SharedV7, Uuid, Version};
/// static KEYS: SharedV7 = SharedV7::new();
/// let a = KEYS.now_v7();
/// let b = KEYS.now_v7();
/// assert!(a < b);
/// assert_eq!(b.version(), Some(Version::SortRand));
///
/// // A batch takes one clock reading and one update of the word.
/// let mut batch = [Uuid::NIL; 100];
/// KEYS.fill_v7(&mut batch);
/// assert!(b < batch[0] && batch.windows(2).all(|w| w[0] < w[1]));
/// ```
///
/// # References
/// RFC 9562 §5.7, §6.2 (Method 1) and §6.4 (several generators sharing one
/// monotonic source).
#[derive(Debug, Default)]
#[repr(transparent)]
pub struct SharedV7 {
    state: AtomicU64,
}

impl SharedV7 {
    /// A generator that has issued nothing: its first UUID takes the clock's
    /// millisecond.
    ///
    /// ```
    /// let g = uuidkit::SharedV7::new();
    /// let now_ms = std::time::SystemTime::now()
    ///     .duration_since(std::time::UNIX_EPOCH)
    ///     .unwrap()
    ///     .as_millis() as u64;
    /// assert!(g.now_v7().unix_ts_ms().unwrap() >= now_ms);
    /// ```
    #[must_use]
    pub const fn new() -> SharedV7 {
        SharedV7 {
            state: AtomicU64::new(0),
        }
    }

    /// A v7 UUID for the current time, greater than every UUID this
    /// generator issued before the call began (see the type's guarantees).
    ///
    /// ```
    /// let g = uuidkit::SharedV7::new();
    /// let first = g.now_v7();
    /// assert!((0..1000).map(|_| g.now_v7()).all(|u| u > first));
    /// ```
    #[inline]
    pub fn now_v7(&self) -> Uuid {
        let value = global::reserve_in(&self.state, global::now_ms(), 1);
        global::layout(value, crate::rng::next_u64())
    }

    /// Fills `out` with increasing v7 UUIDs, reading the clock once and
    /// updating the word once; the batch is ordered with every other call as
    /// [`now_v7`](Self::now_v7) is.
    ///
    /// ```
    /// use uuidkit::{SharedV7, Uuid};
    /// let g = SharedV7::new();
    /// let mut batch = [Uuid::NIL; 1000];
    /// g.fill_v7(&mut batch);
    /// assert!(batch.windows(2).all(|w| w[0] < w[1]));
    /// assert!(batch[999] < g.now_v7());
    /// ```
    pub fn fill_v7(&self, out: &mut [Uuid]) {
        if out.is_empty() {
            return;
        }
        let first = global::reserve_in(&self.state, global::now_ms(), out.len() as u64);
        global::fill_from(first, out);
    }
}
