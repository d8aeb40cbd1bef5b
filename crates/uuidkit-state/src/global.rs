//! Process-wide generators bound to one configured store.

use core::time::Duration;
use std::path::PathBuf;
use std::sync::Arc;

use super::{BlockPolicy, FileStore, GregorianLease, Reserver, StateStore, Status, V7Lease};
use uuidkit::clock::SystemClock;
use uuidkit::generator::ClockBackPolicy;
use uuidkit::generator::{GenError, Generator};
use uuidkit::rng::ThreadRng;
use uuidkit::sync::ForkSafeMutex;
use uuidkit::{Uuid, V1Generator, V6Generator, V7Generator};

/// Where the process-wide generators keep their state, and the block policy.
///
/// ```
/// use uuidkit_state::{BlockPolicy, StateConfig};
/// let cfg = StateConfig::new("/tmp/my-app/uuid-state").policy(BlockPolicy::default());
/// assert_eq!(cfg.path(), Some(std::path::Path::new("/tmp/my-app/uuid-state")));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StateConfig {
    path: Option<PathBuf>,
    policy: BlockPolicy,
    lock_timeout: Option<Duration>,
    strict: bool,
    new_state: bool,
}

impl StateConfig {
    /// State in the file at `path`, default policy.
    ///
    /// ```
    /// let cfg = uuidkit_state::StateConfig::new("/tmp/s");
    /// assert_eq!(cfg.path(), Some(std::path::Path::new("/tmp/s")));
    /// ```
    pub fn new(path: impl Into<PathBuf>) -> StateConfig {
        StateConfig {
            path: Some(path.into()),
            policy: BlockPolicy::default(),
            lock_timeout: None,
            strict: false,
            new_state: false,
        }
    }

    /// State at [`FileStore::default_path`] (`UUIDKIT_STATE`, then the XDG
    /// location), default policy.
    ///
    /// ```
    /// let cfg = uuidkit_state::StateConfig::from_env();
    /// assert_eq!(cfg.path(), uuidkit_state::FileStore::default_path().as_deref());
    /// ```
    #[must_use]
    pub fn from_env() -> StateConfig {
        StateConfig {
            path: FileStore::default_path(),
            policy: BlockPolicy::default(),
            lock_timeout: None,
            strict: false,
            new_state: false,
        }
    }

    /// Sets the block policy.
    ///
    /// ```
    /// use core::time::Duration;
    /// use uuidkit_state::{BlockPolicy, StateConfig};
    /// let p = BlockPolicy { block: Duration::from_millis(10), ..BlockPolicy::default() };
    /// let cfg = StateConfig::new("/tmp/s").policy(p);
    /// assert_ne!(cfg, StateConfig::new("/tmp/s"));
    /// ```
    #[must_use]
    pub fn policy(mut self, policy: BlockPolicy) -> StateConfig {
        self.policy = policy;
        self
    }

    /// How long a reservation waits for another process's lock (see
    /// [`FileStore::with_lock_timeout`]; default 2 s).
    ///
    /// ```
    /// use core::time::Duration;
    /// let cfg = uuidkit_state::StateConfig::new("/tmp/s").lock_timeout(Duration::from_millis(100));
    /// assert_ne!(cfg, uuidkit_state::StateConfig::new("/tmp/s"));
    /// ```
    #[must_use]
    pub fn lock_timeout(mut self, timeout: Duration) -> StateConfig {
        self.lock_timeout = Some(timeout);
        self
    }

    /// Strict mode (see [`Reserver::strict`]): the process-wide generators
    /// return an error rather than fall back to in-process state.
    ///
    /// ```
    /// let cfg = uuidkit_state::StateConfig::new("/tmp/s").strict(true);
    /// assert_ne!(cfg, uuidkit_state::StateConfig::new("/tmp/s"));
    /// ```
    #[must_use]
    pub fn strict(mut self, strict: bool) -> StateConfig {
        self.strict = strict;
        self
    }

    /// Says that the state file is new: an empty one is then first use also
    /// in strict mode, which otherwise refuses it (see [`FileStore::new_state`]).
    ///
    /// ```
    /// let cfg = uuidkit_state::StateConfig::new("/tmp/s").strict(true);
    /// assert_ne!(cfg.clone().new_state(true), cfg);
    /// ```
    #[must_use]
    pub fn new_state(mut self, new: bool) -> StateConfig {
        self.new_state = new;
        self
    }

    /// The state file's path, if known.
    ///
    /// ```
    /// assert!(uuidkit_state::StateConfig::new("s").path().is_some());
    /// ```
    #[must_use]
    pub fn path(&self) -> Option<&std::path::Path> {
        self.path.as_deref()
    }

    fn reserver(&self) -> Reserver {
        let mut store = match &self.path {
            Some(p) => FileStore::new(p.clone()),
            None => FileStore::from_env(),
        };
        if let Some(t) = self.lock_timeout {
            store = store.with_lock_timeout(t);
        }
        let store: Arc<dyn StateStore> = Arc::new(store.new_state(self.new_state));
        Reserver::shared(store, self.policy).strict(self.strict)
    }
}

#[derive(Debug)]
struct Global {
    reserver: Reserver,
    v1: Option<V1Generator<SystemClock, ThreadRng, GregorianLease>>,
    v6: Option<V6Generator<SystemClock, ThreadRng, GregorianLease>>,
    v7: Option<V7Generator<SystemClock, ThreadRng, V7Lease>>,
}

/// Fork-safe (`docs/generator-design.md` G6): a child forked while another
/// thread is inside a `stored_*` call finds it free.
static GLOBAL: ForkSafeMutex<Option<Global>> = ForkSafeMutex::new(None);

/// Configures the process-wide stored generators ([`stored_v1`], [`stored_v6`],
/// [`stored_v7`]). Generators already running give back the unused tails of their
/// blocks and start over with the new store. Without it they use
/// [`StateConfig::from_env`].
///
/// ```rust,standalone_crate
/// use uuidkit_state::{configure, stored_v7, FileStore, StateConfig};
/// let dir = std::env::temp_dir().join(format!("uuidkit-configure-doc-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir).unwrap();
/// configure(StateConfig::new(dir.join("state")));
/// let (u, _status) = stored_v7()?;
/// let stored = FileStore::new(dir.join("state")).load().unwrap();
/// assert!(stored.v7.unwrap().hwm_ms > u.unix_ts_ms().unwrap()); // the file covers it
/// # uuidkit_state::release();
/// # std::fs::remove_dir_all(&dir).unwrap();
/// # Ok::<(), uuidkit::GenError>(())
/// ```
pub fn configure(config: StateConfig) {
    let global = Global {
        reserver: config.reserver(),
        v1: None,
        v6: None,
        v7: None,
    };
    let old = GLOBAL.lock().replace(global);
    drop(old);
}

/// Gives back the unused tails of the process-wide generators' blocks (so the
/// next process need not start ahead of the clock). Call it before exiting; the
/// next `now_*` call reserves anew.
///
/// ```rust,standalone_crate
/// use uuidkit_state::{configure, stored_v7, release, FileStore, StateConfig};
/// let dir = std::env::temp_dir().join(format!("uuidkit-release-doc-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir).unwrap();
/// configure(StateConfig::new(dir.join("state")));
/// let (u, _) = stored_v7()?;
/// let mark = || FileStore::new(dir.join("state")).load().unwrap().v7.unwrap().hwm_ms;
/// assert!(mark() > u.unix_ts_ms().unwrap() + 1); // the whole block is reserved
/// release();
/// assert_eq!(mark(), u.unix_ts_ms().unwrap() + 1); // down to one past the last UUID
/// # std::fs::remove_dir_all(&dir).unwrap();
/// # Ok::<(), uuidkit::GenError>(())
/// ```
pub fn release() {
    let mut g = GLOBAL.lock();
    if let Some(g) = g.as_mut() {
        g.v1 = None;
        g.v6 = None;
        g.v7 = None;
    }
}

/// The generator in `slot`, made by `make` on first use.
fn started<G>(
    slot: &mut Option<G>,
    make: impl FnOnce() -> Result<G, GenError>,
) -> Result<&mut G, GenError> {
    match slot {
        Some(generator) => Ok(generator),
        None => Ok(slot.insert(make()?)),
    }
}

fn with_global<T>(f: impl FnOnce(&mut Global) -> T) -> T {
    let mut g = GLOBAL.lock();
    let g = g.get_or_insert_with(|| Global {
        reserver: StateConfig::from_env().reserver(),
        v1: None,
        v6: None,
        v7: None,
    });
    f(g)
}

/// A v7 UUID from the process-wide generator bound to the configured store
/// ([`configure`]; by default [`StateConfig::from_env`]), with the status of
/// its block's reservation. Monotonic within the process (one generator behind
/// a lock, with unbounded clock-back tolerance) and unique across every
/// process sharing the store. Named apart from
/// [`Uuid::now_v7`](uuidkit::Uuid::now_v7), which is in memory only and cannot
/// fail: this one uses the file, may fail, and returns a status.
///
/// # Errors
/// As [`V7Generator`]'s with a [`V7Lease`].
///
/// ```rust,standalone_crate
/// # let dir = std::env::temp_dir().join(format!("uuidkit-now-doc-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir).unwrap();
/// uuidkit_state::configure(uuidkit_state::StateConfig::new(dir.join("state")));
/// let (a, _) = uuidkit_state::stored_v7()?;
/// let (b, status) = uuidkit_state::stored_v7()?;
/// assert!(a < b);
/// assert!(status.is_persisted(), "{status}"); // the block is in the file
/// # uuidkit_state::release();
/// # let _ = std::fs::remove_dir_all(&dir);
/// # Ok::<(), uuidkit::GenError>(())
/// ```
pub fn stored_v7() -> Result<(Uuid, Status), GenError> {
    with_global(|g| {
        let generator = started(&mut g.v7, || {
            // Process-wide monotonicity is never given up: unbounded clock-back tolerance.
            V7Generator::builder()
                .clock_back(ClockBackPolicy::Reset, u64::MAX)
                .store(g.reserver.lease_v7())
                .build(SystemClock, ThreadRng)
        })?;
        let u = generator.generate()?;
        Ok((
            u,
            generator.store().status().cloned().unwrap_or(Status::SAFE),
        ))
    })
}

/// A v1 UUID from the process-wide generator bound to the configured store,
/// with its status; see [`stored_v7`].
///
/// # Errors
/// As [`V1Generator`]'s with a [`GregorianLease`].
///
/// ```rust,standalone_crate
/// # let dir = std::env::temp_dir().join(format!("uuidkit-now-doc-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir).unwrap();
/// uuidkit_state::configure(uuidkit_state::StateConfig::new(dir.join("state")));
/// let (u, _) = uuidkit_state::stored_v1()?;
/// assert_eq!(u.version(), Some(uuidkit::Version::Mac));
/// # uuidkit_state::release();
/// # let _ = std::fs::remove_dir_all(&dir);
/// # Ok::<(), uuidkit::GenError>(())
/// ```
pub fn stored_v1() -> Result<(Uuid, Status), GenError> {
    with_global(|g| {
        let generator = started(&mut g.v1, || {
            V1Generator::builder()
                .store(g.reserver.lease_v1())
                .build(SystemClock, ThreadRng)
        })?;
        let u = generator.generate()?;
        Ok((
            u,
            generator.store().status().cloned().unwrap_or(Status::SAFE),
        ))
    })
}

/// A v6 UUID from the process-wide generator bound to the configured store
/// (retaining the stored clock sequence and node), with its status; see
/// [`stored_v7`].
///
/// # Errors
/// As [`V6Generator`]'s with a [`GregorianLease`].
///
/// ```rust,standalone_crate
/// # let dir = std::env::temp_dir().join(format!("uuidkit-now-doc-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir).unwrap();
/// uuidkit_state::configure(uuidkit_state::StateConfig::new(dir.join("state")));
/// let (u, _) = uuidkit_state::stored_v6()?;
/// assert_eq!(u.version(), Some(uuidkit::Version::SortMac));
/// # uuidkit_state::release();
/// # let _ = std::fs::remove_dir_all(&dir);
/// # Ok::<(), uuidkit::GenError>(())
/// ```
pub fn stored_v6() -> Result<(Uuid, Status), GenError> {
    with_global(|g| {
        let generator = started(&mut g.v6, || {
            // As stored_v7: process-wide order is never given up.
            V6Generator::builder()
                .retain()
                .clock_back(ClockBackPolicy::Reset, u64::MAX)
                .store(g.reserver.lease_v6())
                .build(SystemClock, ThreadRng)
        })?;
        let u = generator.generate()?;
        Ok((
            u,
            generator.store().status().cloned().unwrap_or(Status::SAFE),
        ))
    })
}
