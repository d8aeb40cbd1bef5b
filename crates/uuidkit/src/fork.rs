//! The one fork mechanism: a process-wide count of `fork()`s, bumped in the
//! child, and a gate that keeps a fork from catching a lock held by another
//! thread; both driven by `pthread_atfork` handlers registered on first use.
//!
//! Whatever must not be carried from a parent into its child (the thread
//! RNG's state, a reserved block of timestamps) remembers the generation it
//! was made in and compares it with [`generation`] before use: one relaxed
//! atomic load. A child made by a raw `clone`/`vfork` that bypasses
//! `pthread_atfork` is not seen; the RNG's periodic reseed bounds the damage
//! there.
//!
//! What a generator re-draws in the child is recorded in
//! `docs/generator-design.md` (G1): the RNG reseeds, v7/v8 counters move to
//! a freshly seeded next tick, v1/v6 draw a new clock sequence from the
//! operating-system-seeded CSPRNG (and a new node unless the node was
//! given). Nothing a generator issues is derived from a process id.
//!
//! Locks (G6): a child has only the thread that forked, so a lock that
//! another thread held at the fork stays held for ever there. Every lock
//! the generators, stores and bindings take is a [`ForkSafeMutex`], whose
//! critical sections the prepare handler waits out; so the child finds each
//! one free, with its data as a whole critical section left it.

use core::cell::Cell;
use core::fmt;
use core::marker::PhantomData;
use core::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError, TryLockError};

static GENERATION: AtomicU64 = AtomicU64::new(0);
/// Whether the handlers are registered: 0 not yet, [`REGISTERED`] done,
/// anything else the id of the process a thread of which is registering them.
/// Not a `Once`: a fork in the middle of a `Once` would leave the child's
/// waiting for ever on a thread it does not have; here a child takes over.
static REGISTRATION: AtomicU64 = AtomicU64::new(0);
const REGISTERED: u64 = u64::MAX;
/// Test-only: the child handler does nothing (see [`disable_for_tests`]).
static DISABLED: AtomicBool = AtomicBool::new(false);

/// Critical sections under way, in all threads (each nested one counts).
static INSIDE: AtomicUsize = AtomicUsize::new(0);
/// A fork is under way: a thread entering a critical section waits.
static FORKING: AtomicBool = AtomicBool::new(false);

std::thread_local! {
    /// This thread's critical sections under way (nested ones included).
    static DEPTH: Cell<usize> = const { Cell::new(0) };
}

/// This thread's [`DEPTH`] (0 if its thread-locals are gone); only the fork
/// handlers ask.
#[cfg(unix)]
fn own_depth() -> usize {
    DEPTH.try_with(Cell::get).unwrap_or(0)
}

/// Waiting on another thread: a few yields, then short sleeps.
fn pause(round: &mut u32) {
    *round = round.saturating_add(1);
    if *round < 64 {
        std::thread::yield_now();
    } else {
        std::thread::sleep(core::time::Duration::from_micros(50));
    }
}

/// `pthread_atfork` prepare: closes the gate (one fork at a time), then
/// waits until no other thread is inside a critical section. The forking
/// thread's own sections, if any, go on in both processes: their locks are
/// held by the thread that continues in each.
#[cfg(unix)]
extern "C" fn before_fork() {
    let mut round = 0;
    while FORKING
        .compare_exchange(false, true, Ordering::SeqCst, Ordering::SeqCst)
        .is_err()
    {
        pause(&mut round);
    }
    let own = own_depth();
    while INSIDE.load(Ordering::SeqCst) > own {
        pause(&mut round);
    }
}

/// `pthread_atfork` parent: opens the gate again.
#[cfg(unix)]
extern "C" fn after_fork_in_parent() {
    FORKING.store(false, Ordering::SeqCst);
}

/// `pthread_atfork` child: only the forking thread exists here, so only its
/// sections are under way (a thread that was turning back at the gate may
/// have left its count behind); then the gate opens and the generation moves
/// on. Atomic stores and a thread-local read only: valid in a fresh child.
#[cfg(unix)]
extern "C" fn after_fork_in_child() {
    // Handlers that run are registered, even if the parent's registering
    // thread had not yet said so.
    REGISTRATION.store(REGISTERED, Ordering::Release);
    INSIDE.store(own_depth(), Ordering::SeqCst);
    FORKING.store(false, Ordering::SeqCst);
    if !DISABLED.load(Ordering::Relaxed) {
        GENERATION.fetch_add(1, Ordering::Relaxed);
    }
    // The parent's ticker thread is not here: the child starts its own.
    crate::clock::ticker::after_fork_in_child();
}

/// Turns fork detection off for the rest of this process and its children:
/// a forked child then continues its parent's generators as they were. It
/// exists only so that a test can show that its duplicate checker finds the
/// duplicates this causes (the negative control of the torture suite); no
/// program should call it.
pub(crate) fn disable_for_tests() {
    DISABLED.store(true, Ordering::Relaxed);
}

/// The current fork generation. The first call registers the handlers, so a
/// value read before any fork is always compared against later bumps.
#[inline]
pub(crate) fn generation() -> u64 {
    if REGISTRATION.load(Ordering::Acquire) != REGISTERED {
        register();
    }
    GENERATION.load(Ordering::Relaxed)
}

/// The process's fork generation: a count that moves on in every child
/// `fork()` makes. Something that must not be carried from a parent into
/// its child (a block of timestamps reserved in a shared file, a file lock
/// the parent holds) remembers the generation it was made in, and asks
/// [`forked_since`] before each use. The first call registers the
/// `pthread_atfork` handler, so a value read here is always compared
/// against later forks. A child made by a raw `clone`/`vfork` that bypasses
/// `pthread_atfork` is not seen. Without `fork()` (Windows, WebAssembly) it
/// never changes.
///
/// ```
/// use uuidkit::sync::{fork_generation, forked_since};
/// let born = fork_generation();
/// assert!(!forked_since(born)); // still the process that read it
/// ```
#[must_use]
pub fn fork_generation() -> u64 {
    generation()
}

/// Whether this process is a child forked (directly or not) since
/// `generation` was read from [`fork_generation`] in it or in an ancestor:
/// one relaxed atomic load, cheap enough to ask before every UUID.
///
/// ```
/// use uuidkit::sync::{fork_generation, forked_since};
/// let born = fork_generation();
/// assert!(!forked_since(born));
/// assert!(forked_since(born.wrapping_sub(1))); // a generation of the parent's
/// ```
#[inline]
#[must_use]
pub fn forked_since(generation: u64) -> bool {
    current() != generation
}

/// Without `fork()` (Windows, WebAssembly) there is nothing to register, and
/// no process id to ask for (WebAssembly has none: `std::process::id` panics).
#[cfg(not(unix))]
#[cold]
fn register() {
    REGISTRATION.store(REGISTERED, Ordering::Release);
}

#[cfg(unix)]
#[cold]
fn register() {
    let me = u64::from(std::process::id());
    let mut round = 0;
    loop {
        match REGISTRATION.load(Ordering::Acquire) {
            REGISTERED => return,
            // Another thread of this process registers: wait for it.
            busy if busy == me => pause(&mut round),
            // Nobody, or a thread of the parent this child was forked
            // from, which did not get as far as registering.
            idle => {
                if REGISTRATION
                    .compare_exchange(idle, me, Ordering::AcqRel, Ordering::Acquire)
                    .is_ok()
                {
                    // SAFETY: the handlers take no lock and allocate
                    // nothing: atomics, a constant-initialised thread-local,
                    // and in the parent's prepare handler yields and sleeps;
                    // the child's is valid in a fresh child.
                    unsafe {
                        libc::pthread_atfork(
                            Some(before_fork),
                            Some(after_fork_in_parent),
                            Some(after_fork_in_child),
                        );
                    }
                    REGISTRATION.store(REGISTERED, Ordering::Release);
                    return;
                }
            }
        }
    }
}

/// The current fork generation without the registration check: one relaxed
/// load, for hot paths that compare against a value they got from
/// [`generation`] (which registered the handler before that value was read).
#[inline(always)]
pub(crate) fn current() -> u64 {
    GENERATION.load(Ordering::Relaxed)
}

/// Test-only: v1/v6 children take the clock sequence the library once
/// derived from process ids (see [`legacy_pid_delta`]).
static PID_DERIVED: AtomicBool = AtomicBool::new(false);

/// Makes every v1/v6 generator of this process and its children take, after
/// a fork, its parent's clock sequence plus the difference of the two
/// process ids (+1 if that is 0) instead of a fresh random one: the
/// derivation that let workers whose process ids are equal modulo 2¹⁴ share
/// a clock sequence. It exists only so that the torture suite's negative
/// controls can show that their rows find the duplicates this causes; no
/// program should call it.
pub(crate) fn derive_clock_seq_from_pid_for_tests() {
    PID_DERIVED.store(true, Ordering::Relaxed);
}

/// Under [`derive_clock_seq_from_pid_for_tests`] only: this process's id
/// minus its parent's (wrapping), the offset the old derivation added to
/// the parent's clock sequence in a child forked from it.
pub(crate) fn legacy_pid_delta() -> Option<u32> {
    if !PID_DERIVED.load(Ordering::Relaxed) {
        return None;
    }
    #[cfg(unix)]
    {
        // SAFETY: getpid and getppid cannot fail.
        let (me, parent) = unsafe { (libc::getpid(), libc::getppid()) };
        Some((me as u32).wrapping_sub(parent as u32))
    }
    #[cfg(not(unix))]
    None
}

/// The process a generator's in-memory state belongs to: the fork
/// generation it was last used in.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Owner {
    generation: u64,
}

impl Owner {
    /// This process (registering the fork handler if nothing has yet).
    pub(crate) fn here() -> Owner {
        Owner {
            generation: generation(),
        }
    }

    /// Whether the process forked since this owner was recorded: one
    /// relaxed load and a compare.
    #[inline(always)]
    pub(crate) fn forked(&self) -> bool {
        current() != self.generation
    }

    /// Makes this process the owner.
    #[cold]
    pub(crate) fn take_over(&mut self) {
        *self = Owner::here();
    }
}

/// A critical section that a fork waits out: while one is under way in
/// another thread, `fork()` waits (in the prepare handler); while a fork is
/// under way, a thread entering one waits. Not `Send`: it counts in the
/// thread that entered it.
struct Section {
    _thread_bound: PhantomData<*const ()>,
}

impl Section {
    /// Enters, waiting while a fork is under way.
    fn enter() -> Section {
        let mut round = 0;
        loop {
            if let Some(section) = Section::try_enter() {
                return section;
            }
            while FORKING.load(Ordering::SeqCst) {
                pause(&mut round);
            }
        }
    }

    /// Enters unless a fork is under way (then `None`, at once).
    fn try_enter() -> Option<Section> {
        // The handlers are registered before anything can be inside.
        let _ = generation();
        let nested = DEPTH.with(|d| {
            let depth = d.get();
            d.set(depth + 1);
            depth > 0
        });
        INSIDE.fetch_add(1, Ordering::SeqCst);
        let section = Section {
            _thread_bound: PhantomData,
        };
        // A nested section must not wait: the fork waits for its outer one.
        // Otherwise dropped at once, which counts it out again.
        (nested || !FORKING.load(Ordering::SeqCst)).then_some(section)
    }
}

impl Drop for Section {
    fn drop(&mut self) {
        INSIDE.fetch_sub(1, Ordering::SeqCst);
        let _ = DEPTH.try_with(|d| d.set(d.get().saturating_sub(1)));
    }
}

/// A mutex that `fork()` never catches held by another thread.
///
/// A child made by `fork()` has only the thread that called it: a lock that
/// another thread held at that moment stays held for ever in the child, and
/// the child's next call that takes it never returns. Every lock uuidkit's
/// generators, stores and language bindings take is one of these (the
/// process-wide generators of the `uuidkit-state` crate, its `FileStore`'s,
/// a [`NodeSlot`](crate::node::NodeSlot)'s…):
/// a `pthread_atfork` prepare handler waits until no other thread holds
/// one, and threads that try to lock one meanwhile wait until the fork is
/// done, so the child finds every one free, its data as a whole critical
/// section left it (`docs/generator-design.md` G6).
///
/// The price: an atomic add and subtract per lock, and a `fork()` waits for
/// the critical sections under way (a state-file reservation that waits for
/// another process's lock: up to its lock timeout). A thread that forks
/// while it holds one keeps holding it, in both processes; if another thread
/// is then waiting for that one, the fork waits for ever, so never fork
/// while holding one. Without `fork` (Windows) it is a plain mutex.
///
/// It is never poisoned: after a panic inside, the next holder sees the
/// data as the panicking code left it (uuidkit's own critical sections
/// report errors as values).
///
/// ```
/// use uuidkit::sync::ForkSafeMutex;
/// static COUNT: ForkSafeMutex<u64> = ForkSafeMutex::new(0);
/// *COUNT.lock() += 1;
/// assert_eq!(*COUNT.lock(), 1);
/// ```
pub struct ForkSafeMutex<T: ?Sized> {
    inner: Mutex<T>,
}

/// A held [`ForkSafeMutex`]; unlocks when dropped.
///
/// ```
/// let m = uuidkit::sync::ForkSafeMutex::new(vec![1]);
/// let mut guard = m.lock();
/// guard.push(2);
/// drop(guard);
/// assert_eq!(*m.lock(), [1, 2]);
/// ```
pub struct ForkSafeGuard<'a, T: ?Sized> {
    // Declared first, so it is dropped first: the lock is released before
    // the section ends, and a fork never finds it held.
    guard: MutexGuard<'a, T>,
    _section: Section,
}

impl<T> ForkSafeMutex<T> {
    /// A mutex holding `value`.
    ///
    /// ```
    /// let m = uuidkit::sync::ForkSafeMutex::new(5);
    /// assert_eq!(*m.lock(), 5);
    /// ```
    pub const fn new(value: T) -> ForkSafeMutex<T> {
        ForkSafeMutex {
            inner: Mutex::new(value),
        }
    }

    /// The value, taken out of the mutex.
    ///
    /// ```
    /// assert_eq!(uuidkit::sync::ForkSafeMutex::new(5).into_inner(), 5);
    /// ```
    pub fn into_inner(self) -> T {
        self.inner
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

impl<T: ?Sized> ForkSafeMutex<T> {
    /// Locks the mutex, waiting for its holder and for a fork under way.
    ///
    /// ```
    /// let m = uuidkit::sync::ForkSafeMutex::new(String::from("a"));
    /// m.lock().push('b');
    /// assert_eq!(*m.lock(), "ab");
    /// ```
    pub fn lock(&self) -> ForkSafeGuard<'_, T> {
        let section = Section::enter();
        ForkSafeGuard {
            guard: self.inner.lock().unwrap_or_else(PoisonError::into_inner),
            _section: section,
        }
    }

    /// Locks the mutex if that needs no wait: `None` while another thread
    /// holds it or a fork is under way. For a caller that must not block
    /// where it stands (holding an interpreter's lock, say) and waits
    /// elsewhere with [`lock`](Self::lock) instead.
    ///
    /// ```
    /// let m = uuidkit::sync::ForkSafeMutex::new(1);
    /// let held = m.try_lock().expect("free");
    /// assert!(m.try_lock().is_none(), "held");
    /// drop(held);
    /// assert_eq!(m.try_lock().map(|g| *g), Some(1));
    /// ```
    pub fn try_lock(&self) -> Option<ForkSafeGuard<'_, T>> {
        let section = Section::try_enter()?;
        let guard = match self.inner.try_lock() {
            Ok(guard) => guard,
            Err(TryLockError::Poisoned(p)) => p.into_inner(),
            Err(TryLockError::WouldBlock) => return None,
        };
        Some(ForkSafeGuard {
            guard,
            _section: section,
        })
    }
}

impl<T: Default> Default for ForkSafeMutex<T> {
    fn default() -> ForkSafeMutex<T> {
        ForkSafeMutex::new(T::default())
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for ForkSafeMutex<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Through `try_lock`, as `Mutex`'s own Debug: printing never blocks.
        let mut d = f.debug_struct("ForkSafeMutex");
        match self.try_lock() {
            Some(v) => d.field("data", &&*v),
            None => d.field("data", &format_args!("<locked>")),
        };
        d.finish()
    }
}

impl<T: ?Sized> Deref for ForkSafeGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.guard
    }
}

impl<T: ?Sized> DerefMut for ForkSafeGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.guard
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for ForkSafeGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

/// Simulates a fork in tests: what a child's handler would do.
#[cfg(test)]
pub(crate) fn bump_for_test() {
    GENERATION.fetch_add(1, Ordering::Relaxed);
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_fork_bumps_the_generation_in_the_child_only() {
        let before = super::generation();
        // SAFETY: the child only calls async-signal-safe code (an atomic load in
        // `generation`, after registration, and `_exit`).
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0, "fork failed");
        if pid == 0 {
            let code = if super::generation() == before + 1 {
                0
            } else {
                1
            };
            // SAFETY: `_exit` is async-signal-safe and ends the child at once.
            unsafe { libc::_exit(code) };
        }
        let mut status = 0;
        // SAFETY: `pid` is our child.
        unsafe { libc::waitpid(pid, &mut status, 0) };
        assert!(
            libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
            "child saw no bump"
        );
        assert_eq!(
            super::generation(),
            before,
            "the parent's generation is unchanged"
        );
    }

    /// A thread holds a lock in a loop while the main thread forks: every
    /// child takes the lock at once (a child that hangs is killed by its
    /// alarm and fails the test rather than hanging it).
    #[test]
    fn a_child_never_finds_a_lock_held_by_another_thread() {
        use std::sync::Arc;
        use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
        let lock = Arc::new(super::ForkSafeMutex::new(0u64));
        let stop = Arc::new(AtomicBool::new(false));
        let rounds = Arc::new(AtomicU64::new(0));
        let holder = {
            let (lock, stop, rounds) = (lock.clone(), stop.clone(), rounds.clone());
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    let mut held = lock.lock();
                    *held += 1;
                    // Held for most of the loop: a plain mutex would be
                    // caught held by nearly every fork.
                    std::thread::sleep(std::time::Duration::from_micros(200));
                    drop(held);
                    rounds.fetch_add(1, Ordering::Relaxed);
                }
            })
        };
        while rounds.load(Ordering::Relaxed) < 3 {
            std::thread::yield_now();
        }
        for _ in 0..20 {
            // SAFETY: the child takes a lock that is free (that is the
            // point), reads it and leaves with `_exit`; `alarm` bounds it.
            let pid = unsafe { libc::fork() };
            assert!(pid >= 0, "fork failed");
            if pid == 0 {
                unsafe { libc::alarm(10) };
                let seen = *lock.lock();
                unsafe { libc::_exit(if seen > 0 { 0 } else { 1 }) };
            }
            let mut status = 0;
            // SAFETY: `pid` is our child.
            unsafe { libc::waitpid(pid, &mut status, 0) };
            assert!(
                libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
                "child status {status:#x}: killed by its alarm means it hung on the lock"
            );
        }
        stop.store(true, Ordering::Relaxed);
        holder.join().unwrap();
    }
}
