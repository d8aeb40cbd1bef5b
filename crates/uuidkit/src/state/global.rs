//! Process-wide generators bound to one configured store.

use core::sync::atomic::{AtomicU8, Ordering};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use super::{BlockPolicy, FileStore, Reserver, StateStore, Status, StoredV1, StoredV6, StoredV7};
use crate::generator::GenError;
use crate::{
    ClockBackPolicy, CoarseClock, SystemClock, ThreadRng, Uuid, V1Generator, V6Generator, V7Config,
    V7Generator,
};

/// Where the process-wide generators keep their state, and the block policy.
///
/// ```
/// use uuidkit::state::{BlockPolicy, StateConfig};
/// let cfg = StateConfig::new("/tmp/my-app/uuid-state").policy(BlockPolicy::default());
/// assert_eq!(cfg.path(), Some(std::path::Path::new("/tmp/my-app/uuid-state")));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StateConfig {
    path: Option<PathBuf>,
    policy: BlockPolicy,
}

impl StateConfig {
    /// State in the file at `path`, default policy.
    ///
    /// ```
    /// let cfg = uuidkit::state::StateConfig::new("/tmp/s");
    /// # let _ = cfg;
    /// ```
    pub fn new(path: impl Into<PathBuf>) -> StateConfig {
        StateConfig {
            path: Some(path.into()),
            policy: BlockPolicy::default(),
        }
    }

    /// State at [`FileStore::default_path`] (`UUIDKIT_STATE`, then the XDG
    /// location), default policy.
    ///
    /// ```
    /// let cfg = uuidkit::state::StateConfig::from_env();
    /// assert_eq!(cfg.path(), uuidkit::state::FileStore::default_path().as_deref());
    /// ```
    pub fn from_env() -> StateConfig {
        StateConfig {
            path: FileStore::default_path(),
            policy: BlockPolicy::default(),
        }
    }

    /// Sets the block policy.
    ///
    /// ```
    /// use core::time::Duration;
    /// use uuidkit::state::{BlockPolicy, StateConfig};
    /// let p = BlockPolicy { block: Duration::from_millis(10), ..BlockPolicy::default() };
    /// let cfg = StateConfig::new("/tmp/s").policy(p);
    /// # let _ = cfg;
    /// ```
    pub fn policy(mut self, policy: BlockPolicy) -> StateConfig {
        self.policy = policy;
        self
    }

    /// The state file's path, if known.
    ///
    /// ```
    /// assert!(uuidkit::state::StateConfig::new("s").path().is_some());
    /// ```
    pub fn path(&self) -> Option<&std::path::Path> {
        self.path.as_deref()
    }

    fn reserver(&self) -> Reserver {
        let store: Arc<dyn StateStore> = match &self.path {
            Some(p) => Arc::new(FileStore::new(p.clone())),
            None => Arc::new(FileStore::from_env()),
        };
        Reserver::shared(store, self.policy)
    }
}

#[derive(Debug)]
struct Global {
    reserver: Reserver,
    v1: Option<StoredV1<CoarseClock, ThreadRng>>,
    v6: Option<StoredV6<CoarseClock, ThreadRng>>,
    v7: Option<StoredV7<SystemClock, ThreadRng>>,
}

static GLOBAL: Mutex<Option<Global>> = Mutex::new(None);
/// Whether [`Uuid::now_v7`] goes through the stored generator: 0 not yet
/// known, 1 no, 2 yes.
static ROUTE: AtomicU8 = AtomicU8::new(0);

/// Configures the process-wide stored generators ([`now_v1`], [`now_v6`],
/// [`now_v7`]). Generators already running give back the unused tails of their
/// blocks and start over with the new store.
///
/// ```rust,standalone_crate
/// use uuidkit::state::{configure, configured, now_v7, StateConfig};
/// let dir = std::env::temp_dir().join(format!("uuidkit-configure-doc-{}", std::process::id()));
/// configure(StateConfig::new(dir.join("state")));
/// assert!(configured());
/// let (u, _status) = now_v7()?;
/// assert_eq!(u.version(), Some(uuidkit::Version::SortRand));
/// # uuidkit::state::release();
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
    let old = GLOBAL
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .replace(global);
    ROUTE.store(2, Ordering::Release);
    drop(old);
}

/// True if [`configure`] was called or `UUIDKIT_STATE` was set (and not
/// empty) when first asked. Then [`Uuid::now_v7`] and [`Uuid::fill_v7`] use
/// the process-wide stored generator of [`now_v7`] instead of the in-memory
/// one, so even they stay unique and ordered across processes and restarts.
///
/// ```
/// let _ = uuidkit::state::configured();
/// ```
#[inline]
pub fn configured() -> bool {
    match ROUTE.load(Ordering::Relaxed) {
        1 => false,
        2 => true,
        _ => init_route(),
    }
}

#[cold]
fn init_route() -> bool {
    let on = std::env::var_os(super::ENV_VAR).is_some_and(|v| !v.is_empty());
    let _ = ROUTE.compare_exchange(
        0,
        if on { 2 } else { 1 },
        Ordering::AcqRel,
        Ordering::Acquire,
    );
    ROUTE.load(Ordering::Acquire) == 2
}

/// For [`Uuid::now_v7`] when [`configured`]: `None` only if the stored
/// generator fails (after the year 10889), and then the caller uses memory.
pub(crate) fn routed_now_v7() -> Option<Uuid> {
    now_v7().ok().map(|(u, _)| u)
}

/// Gives back the unused tails of the process-wide generators' blocks (so the
/// next process need not start ahead of the clock). Call it before exiting; the
/// next `now_*` call reserves anew.
///
/// ```
/// uuidkit::state::release();
/// ```
pub fn release() {
    let mut g = GLOBAL.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(g) = g.as_mut() {
        g.v1 = None;
        g.v6 = None;
        g.v7 = None;
    }
}

fn with_global<T>(f: impl FnOnce(&mut Global) -> T) -> T {
    let mut g = GLOBAL.lock().unwrap_or_else(|p| p.into_inner());
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
/// a lock) and unique across every process sharing the store.
///
/// # Errors
/// As [`StoredV7::generate`].
///
/// ```rust,standalone_crate
/// # let dir = std::env::temp_dir().join(format!("uuidkit-now-doc-{}", std::process::id()));
/// uuidkit::state::configure(uuidkit::state::StateConfig::new(dir.join("state")));
/// let (a, _) = uuidkit::state::now_v7()?;
/// let (b, status) = uuidkit::state::now_v7()?;
/// assert!(a < b);
/// println!("{status}");
/// # uuidkit::state::release();
/// # let _ = std::fs::remove_dir_all(&dir);
/// # Ok::<(), uuidkit::GenError>(())
/// ```
pub fn now_v7() -> Result<(Uuid, Status), GenError> {
    with_global(|g| {
        let r = g.reserver.clone();
        let generator = g.v7.get_or_insert_with(|| {
            // Process-wide monotonicity is never given up: unbounded clock-back tolerance.
            let config = V7Config::new().clock_back(ClockBackPolicy::Reset, u64::MAX);
            V7Generator::with_config(SystemClock, ThreadRng, config)
                .unwrap_or_else(|_| V7Generator::new(SystemClock, ThreadRng))
                .with_store(r)
        });
        let u = generator.generate()?;
        Ok((u, generator.status().unwrap_or(Status::SAFE)))
    })
}

/// A v1 UUID from the process-wide generator bound to the configured store,
/// with its status; see [`now_v7`].
///
/// # Errors
/// As [`StoredV1::generate`].
///
/// ```rust,standalone_crate
/// # let dir = std::env::temp_dir().join(format!("uuidkit-now-doc-{}", std::process::id()));
/// uuidkit::state::configure(uuidkit::state::StateConfig::new(dir.join("state")));
/// let (u, _) = uuidkit::state::now_v1()?;
/// assert_eq!(u.version(), Some(uuidkit::Version::Mac));
/// # uuidkit::state::release();
/// # let _ = std::fs::remove_dir_all(&dir);
/// # Ok::<(), uuidkit::GenError>(())
/// ```
pub fn now_v1() -> Result<(Uuid, Status), GenError> {
    with_global(|g| {
        let r = g.reserver.clone();
        let generator = g
            .v1
            .get_or_insert_with(|| V1Generator::new(CoarseClock::new(), ThreadRng).with_store(r));
        let u = generator.generate()?;
        Ok((u, generator.status().unwrap_or(Status::SAFE)))
    })
}

/// A v6 UUID from the process-wide generator bound to the configured store
/// (retaining the stored clock sequence and node), with its status; see
/// [`now_v7`].
///
/// # Errors
/// As [`StoredV6::generate`].
///
/// ```rust,standalone_crate
/// # let dir = std::env::temp_dir().join(format!("uuidkit-now-doc-{}", std::process::id()));
/// uuidkit::state::configure(uuidkit::state::StateConfig::new(dir.join("state")));
/// let (u, _) = uuidkit::state::now_v6()?;
/// assert_eq!(u.version(), Some(uuidkit::Version::SortMac));
/// # uuidkit::state::release();
/// # let _ = std::fs::remove_dir_all(&dir);
/// # Ok::<(), uuidkit::GenError>(())
/// ```
pub fn now_v6() -> Result<(Uuid, Status), GenError> {
    with_global(|g| {
        let r = g.reserver.clone();
        let generator = g.v6.get_or_insert_with(|| {
            V6Generator::new(CoarseClock::new(), ThreadRng)
                .retain()
                .with_store(r)
        });
        let u = generator.generate()?;
        Ok((u, generator.status().unwrap_or(Status::SAFE)))
    })
}
