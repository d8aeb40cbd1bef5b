//! [`FileStore`]: generator state in a file, updated atomically under `flock`.

use core::time::Duration;
use std::ffi::OsString;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::vec::Vec;

use super::error::{StateError, StateErrorKind};
use super::format::{EARLIER_NODES, GregorianMark, HEADER_PREFIX, StateRecord, V7Mark, escape};
use super::lock::{Held, Locker};
use super::path;
use super::{StateStore, Status};
use uuidkit::sync::ForkSafeMutex;

/// The environment variable that overrides the state file location.
pub const ENV_VAR: &str = "UUIDKIT_STATE";

/// The longest lock timeout a [`FileStore`] takes: a transaction never waits
/// longer than this for another process's lock.
pub const MAX_LOCK_TIMEOUT: Duration = Duration::from_secs(60);

/// Generator state in a file (RFC 9562 §6.3), shared by every process that uses
/// the same path.
///
/// Each [`transact`](StateStore::transact) takes an exclusive `flock` on
/// `<path>.lock`, reads and checks `<path>`, and replaces it atomically: write
/// `<path>.tmp`, `fsync` it, rename it over `<path>`, `fsync` the directory. A
/// crash at any point leaves either the old or the new file, never a mix.
///
/// Bad state is never fatal. A missing, empty, truncated, garbage, unreadable or
/// checksum-failing state file reads as "no state" (reported in the [`Status`])
/// and a good file is written back. A file that is not a state file at all (it
/// does not begin with the `uuidkit-state` header) or is in a later format
/// version is never replaced ([`StateErrorKind::Foreign`]). If the file cannot
/// be locked or written (read-only directory or file, a path through a regular
/// file), the store keeps the state in memory for this process, reports that in
/// the status, and tries the file again on the next transaction. A
/// [strict](super::Reserver::strict) reserver's transactions
/// ([`StateStore::transact_strict`]) keep a damaged file as it is instead of
/// repairing it.
///
/// A replaced file keeps its permission bits (and, when root replaces it, its
/// owner and group); a new one is made with mode 0644 less the umask. The
/// temporary `<path>.tmp` is made only where nothing is (a leftover regular
/// file from a crash is removed first; anything else there, a symbolic link
/// included, is refused and left untouched).
///
/// What is at the path: a symbolic link is followed, and the target is
/// replaced next to the target (the lock file sits next to it too), so
/// processes sharing state through a link keep sharing it. Anything at the
/// state or lock path that is not a regular file (a device, a FIFO, a
/// socket, a directory) is refused ([`StateErrorKind::NotRegular`]) and left
/// untouched, not even read; a missing directory is an error
/// ([`StateErrorKind::NoDirectory`]), except for the default location
/// ([`FileStore::from_env`] without `UUIDKIT_STATE`), which is created. Both
/// fall back to in-process state; [`FileStore::check`] tells beforehand.
///
/// ```
/// use uuidkit_state::{FileStore, StateStore, format::{StateRecord, V7Mark}};
/// let dir = std::env::temp_dir().join(format!("uuidkit-doc-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir).unwrap();
/// let store = FileStore::new(dir.join("state"));
/// let status = store.transact(&mut |old: Option<&StateRecord>| {
///     assert_eq!(old, None); // first use
///     StateRecord { v7: Some(V7Mark { hwm_ms: 1_000 }), ..Default::default() }
/// });
/// assert!(!status.is_safe()); // there was no state before
/// assert!(status.is_persisted());
/// assert_eq!(store.load()?.v7, Some(V7Mark { hwm_ms: 1_000 }));
/// let status = store.transact(&mut |old: Option<&StateRecord>| *old.unwrap());
/// assert!(status.is_safe());
/// # std::fs::remove_dir_all(&dir).unwrap();
/// # Ok::<(), uuidkit_state::StateError>(())
/// ```
#[derive(Debug)]
pub struct FileStore {
    path: Option<PathBuf>,
    /// Create missing directories: only for the default location.
    create_dirs: bool,
    lock_timeout: Duration,
    /// The caller says the file is new: an empty one is first use also for
    /// a strict reserver.
    new_state: bool,
    locker: Locker,
    memory: ForkSafeMutex<Memory>,
}

/// What this process last stored, and whether it reached the file.
#[derive(Debug, Default)]
struct Memory {
    record: Option<StateRecord>,
    /// The record holds reservations the file does not.
    dirty: bool,
}

impl FileStore {
    /// A store at `path` (nothing is touched until the first transaction).
    ///
    /// ```
    /// let store = uuidkit_state::FileStore::new("/tmp/my-app/uuid-state");
    /// assert_eq!(store.path(), Some(std::path::Path::new("/tmp/my-app/uuid-state")));
    /// ```
    pub fn new(path: impl Into<PathBuf>) -> FileStore {
        FileStore {
            path: Some(path.into()),
            create_dirs: false,
            lock_timeout: Duration::from_secs(2),
            new_state: false,
            locker: Locker::default(),
            memory: ForkSafeMutex::default(),
        }
    }

    /// A store at [`FileStore::default_path`]; if no location is known, a store
    /// that keeps state in memory and reports [`StateErrorKind::NoPath`].
    ///
    /// ```
    /// let store = uuidkit_state::FileStore::from_env();
    /// assert_eq!(store.path(), uuidkit_state::FileStore::default_path().as_deref());
    /// ```
    #[must_use]
    pub fn from_env() -> FileStore {
        FileStore {
            path: FileStore::default_path(),
            create_dirs: std::env::var_os(ENV_VAR).is_none_or(|v| v.is_empty()),
            ..FileStore::new("")
        }
    }

    /// The default location: `$UUIDKIT_STATE` if set and not empty; otherwise
    /// `/var/lib/uuidkit/state` for root (effective user id 0); otherwise
    /// `$XDG_STATE_HOME/uuidkit/state` if that is an absolute path; otherwise
    /// `$HOME/.local/state/uuidkit/state`; otherwise none.
    ///
    /// ```
    /// if let Some(path) = uuidkit_state::FileStore::default_path() {
    ///     assert!(path.is_absolute() || std::env::var_os("UUIDKIT_STATE").is_some());
    /// }
    /// ```
    #[must_use]
    pub fn default_path() -> Option<PathBuf> {
        resolve_path(|k| std::env::var_os(k), is_root())
    }

    /// Sets how long a transaction waits for another process's lock before it
    /// falls back to in-process state, or fails under a strict
    /// [`Reserver`](super::Reserver) (default 2 s, at most
    /// [`MAX_LOCK_TIMEOUT`]: a longer one is taken as that). The wait blocks
    /// in the kernel, which wakes a waiter as soon as the lock is free. After
    /// a wait that timed out, the request stays queued and later transactions
    /// wait at most 10 ms for it, until a lock succeeds: a lock held
    /// elsewhere costs one wait, not one per block.
    ///
    /// ```
    /// use core::time::Duration;
    /// let store = uuidkit_state::FileStore::new("/tmp/s").with_lock_timeout(Duration::from_millis(50));
    /// assert!(format!("{store:?}").contains("lock_timeout: 50ms"));
    /// ```
    #[must_use]
    pub fn with_lock_timeout(mut self, timeout: Duration) -> FileStore {
        self.lock_timeout = timeout.min(MAX_LOCK_TIMEOUT);
        self
    }

    /// Says that the state file is new, so that an empty one is first use
    /// for a [strict](super::Reserver::strict) reserver too. Without it, a
    /// strict reserver refuses a zero-length file, kept as it is, with an
    /// error of kind [`StateErrorKind::Damaged`]: a file emptied by an
    /// operator, a tool or a crash of its file system looks exactly like a
    /// new one, and the marks it held are unknown, so no reservation could
    /// be shown to lie above what was issued before. Say it once, when the
    /// file is created (the CLI's `--new-state`); a file with a record is
    /// used as always. A reserver that is not strict takes an empty file as
    /// first use either way, and reports it in the status.
    ///
    /// ```
    /// use uuidkit::{clock::SystemClock, generator::GenErrorKind, rng::ThreadRng};
    /// use uuidkit::{Generator, V7Generator};
    /// use uuidkit_state::{BlockPolicy, FileStore, Reserver};
    /// let path = std::env::temp_dir().join(format!("uuidkit-doc-new-state-{}", std::process::id()));
    /// std::fs::write(&path, b"")?; // emptied, or just created?
    /// let strict = |store| Reserver::new(store, BlockPolicy::default()).strict(true);
    /// let r = strict(FileStore::new(&path));
    /// let mut g = V7Generator::builder().store(r.lease_v7()).build(SystemClock, ThreadRng)?;
    /// assert_eq!(g.generate().unwrap_err().kind(), GenErrorKind::Store);
    /// assert_eq!(std::fs::read(&path)?, b""); // kept as it is
    /// let r = strict(FileStore::new(&path).new_state(true));
    /// let mut g = V7Generator::builder().store(r.lease_v7()).build(SystemClock, ThreadRng)?;
    /// g.generate()?;
    /// assert!(!std::fs::read(&path)?.is_empty());
    /// # std::fs::remove_file(&path)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn new_state(mut self, new: bool) -> FileStore {
        self.new_state = new;
        self
    }

    /// The state file's path, if one is known.
    ///
    /// ```
    /// assert!(uuidkit_state::FileStore::new("s").path().is_some());
    /// ```
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// Reads and checks the state file without locking or changing it.
    ///
    /// # Errors
    ///
    /// [`StateErrorKind::Missing`] if there is no file,
    /// [`StateErrorKind::Unreadable`] if it cannot be read,
    /// [`StateErrorKind::NoPath`] if no location is known, and the
    /// [`StateRecord::parse`] errors for its contents.
    ///
    /// ```
    /// use uuidkit_state::{FileStore, StateErrorKind};
    /// let err = FileStore::new("/nonexistent/uuidkit/state").load().unwrap_err();
    /// assert_eq!(err.kind(), StateErrorKind::Missing);
    /// ```
    pub fn load(&self) -> Result<StateRecord, StateError> {
        let Some(path) = &self.path else {
            return Err(no_path());
        };
        read_state(&path::resolve(path)?)
    }

    /// Checks, without creating or changing anything, that a transaction could
    /// use the state file: the state file and its lock file are regular files
    /// or absent (after following symbolic links), and the directory they go
    /// in exists (or is the default location, which is created on first use).
    /// A store that fails this check keeps its state in memory, leaving the
    /// path alone; a program that would rather refuse to run calls it first.
    ///
    /// # Errors
    ///
    /// [`StateErrorKind::NotRegular`] naming the path and what is there,
    /// [`StateErrorKind::Foreign`] for a file that is not a state file,
    /// [`StateErrorKind::NoDirectory`] naming the missing directory, or
    /// [`StateErrorKind::NoPath`].
    ///
    /// ```
    /// use uuidkit_state::{FileStore, StateErrorKind};
    /// let dir = std::env::temp_dir();
    /// let err = FileStore::new(&dir).check().unwrap_err();
    /// assert_eq!(err.kind(), StateErrorKind::NotRegular);
    /// assert!(err.to_string().ends_with("found a directory; left untouched"), "{err}");
    /// let err = FileStore::new(dir.join("no-such-dir/state")).check().unwrap_err();
    /// assert_eq!(err.kind(), StateErrorKind::NoDirectory);
    /// assert!(FileStore::new(dir.join("uuidkit-check-doc-state")).check().is_ok());
    /// ```
    pub fn check(&self) -> Result<(), StateError> {
        let Some(path) = &self.path else {
            return Err(no_path());
        };
        let target = path::resolve(path)?;
        path::resolve(&FileStore::side(&target, ".lock"))?;
        if let Err(e) = read_state(&target)
            && e.kind() == StateErrorKind::Foreign
        {
            return Err(e);
        }
        if self.create_dirs {
            return Ok(()); // the default location: created on first use
        }
        path::parent_dir(&target, false)
    }

    /// The file a transaction reads and replaces (`path` through its
    /// symbolic links), once it and its lock file are known to be regular or
    /// absent and their directory exists (created here for the default location).
    fn target(&self, path: &Path) -> Result<PathBuf, StateError> {
        let target = path::resolve(path)?;
        path::resolve(&FileStore::side(&target, ".lock"))?;
        path::parent_dir(&target, self.create_dirs)?;
        Ok(target)
    }

    /// Lock file next to the state file: the state file itself is replaced by
    /// rename, so it cannot carry the lock.
    fn side(path: &Path, suffix: &str) -> PathBuf {
        let mut s: OsString = path.as_os_str().to_os_string();
        s.push(suffix);
        PathBuf::from(s)
    }

    fn lock(&self, path: &Path) -> Result<Held, StateError> {
        let lock_path = path::resolve(&FileStore::side(path, ".lock"))?;
        let mut opts = OpenOptions::new();
        opts.read(true).write(true).create(true).truncate(false);
        // Never block in open (a FIFO swapped in after the check): the type
        // is checked again on the open descriptor.
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::custom_flags(&mut opts, libc::O_NONBLOCK);
        let file = match opts.open(&lock_path) {
            Ok(f) => f,
            // A read-only location may still hold a lock file we can lock for reading.
            Err(e) => {
                opts.write(false).create(false);
                opts.open(&lock_path).map_err(|_| {
                    StateError::io(StateErrorKind::Unlockable, &lock_desc(&lock_path), &e)
                })?
            }
        };
        if let Ok(meta) = file.metadata()
            && !meta.is_file()
        {
            return Err(path::resolve(&lock_path).err().unwrap_or_else(|| {
                StateError::new(
                    StateErrorKind::NotRegular,
                    None,
                    std::format!("{} is not a regular file", lock_path.display()),
                )
            }));
        }
        self.locker
            .lock(file, self.lock_timeout)
            .map_err(|e| StateError::io(StateErrorKind::Unlockable, &lock_desc(&lock_path), &e))
    }
}

fn lock_desc(p: &Path) -> std::string::String {
    std::format!("cannot lock {}", p.display())
}

#[cold]
fn no_path() -> StateError {
    StateError::new(
        StateErrorKind::NoPath,
        None,
        std::format!("expected {ENV_VAR}, XDG_STATE_HOME or HOME to be set, found none"),
    )
}

impl StateStore for FileStore {
    fn transact(&self, update: &mut dyn FnMut(Option<&StateRecord>) -> StateRecord) -> Status {
        self.transact_with(update, true)
    }

    fn transact_strict(
        &self,
        update: &mut dyn FnMut(Option<&StateRecord>) -> StateRecord,
    ) -> Status {
        self.transact_with(update, false)
    }
}

impl FileStore {
    /// One transaction; `repair`: a damaged file is replaced by a good one
    /// (otherwise it is kept, and the transaction stays in memory).
    fn transact_with(
        &self,
        update: &mut dyn FnMut(Option<&StateRecord>) -> StateRecord,
        repair: bool,
    ) -> Status {
        let mut mem = self.memory.lock();
        let Some(path) = &self.path else {
            let record = update(mem.record.as_ref());
            let read = if mem.record.is_none() {
                Some(no_path())
            } else {
                None
            };
            *mem = Memory {
                record: Some(record),
                dirty: true,
            };
            return Status::new(read, Some(no_path()));
        };
        let path = &match self.target(path) {
            Ok(t) => t,
            Err(e) => {
                // Refused: leave the path alone, not even reading it (a FIFO
                // would block), and carry on in this process.
                let record = update(mem.record.as_ref());
                *mem = Memory {
                    record: Some(record),
                    dirty: true,
                };
                return Status::new(None, Some(e));
            }
        };
        let lock = match self.lock(path) {
            Ok(f) => f,
            Err(e) => {
                // No lock: keep state in this process. Still honour what the file
                // says (read without the lock), so we stay above its marks.
                let (input, read) = merge_input(read_state(path), &mem);
                let record = update(input.as_ref());
                *mem = Memory {
                    record: Some(record),
                    dirty: true,
                };
                return Status::new(read, Some(e));
            }
        };
        let file = read_state(path);
        // Kept as it is: someone else's file or a later format's (never
        // replaced) and, for a strict reserver, a damaged state file.
        let kept = match &file {
            Err(e) if e.kind() == StateErrorKind::Foreign => Some(e.clone()),
            Err(e) if !repair && e.kind().is_damage() => Some(StateError::new(
                StateErrorKind::Damaged,
                None,
                std::format!(
                    "{} left as it is (remove or restore it to go on)",
                    path.display()
                ),
            )),
            Err(e) if !repair && !self.new_state && e.kind() == StateErrorKind::Empty => {
                Some(StateError::new(
                    StateErrorKind::Damaged,
                    None,
                    std::format!(
                        "{} is empty: the marks it held, if any, are unknown; left as it is \
                         (say that the state is new to use it, or remove it)",
                        path.display()
                    ),
                ))
            }
            _ => None,
        };
        let (input, read) = merge_input(file, &mem);
        let record = update(input.as_ref());
        let (read, write) = match kept {
            // A foreign file's error is the refusal itself, not a read problem.
            Some(e) => (
                read.filter(|r| r.kind() != StateErrorKind::Foreign),
                Some(e),
            ),
            None => (read, write_atomically(path, record.emit().as_bytes()).err()),
        };
        *mem = Memory {
            record: Some(record),
            dirty: write.is_some(),
        };
        drop(lock); // unlocks, then closes the descriptor
        Status::new(read, write)
    }
}

/// The record to hand to the update function, and the read problem to report.
///
/// The file is authoritative when this process's last record reached it. If it
/// did not (we fell back to memory), our reservations must still be honoured:
/// v7 takes the larger mark; v1/v6 keep the file's clock sequence and node with
/// the larger mark, and the file's earlier nodes, each with the larger of its
/// marks in the file and in memory. A bad file with a record in memory
/// continues from memory.
fn merge_input(
    file: Result<StateRecord, StateError>,
    mem: &Memory,
) -> (Option<StateRecord>, Option<StateError>) {
    match (file, &mem.record) {
        (Ok(f), Some(m)) if mem.dirty => {
            let g = |a: Option<GregorianMark>, b: Option<GregorianMark>| match (a, b) {
                (Some(a), Some(b)) => Some(GregorianMark {
                    hwm: a.hwm.max(b.hwm),
                    ..a
                }),
                (a, b) => a.or(b),
            };
            let v7 = match (f.v7, m.v7) {
                (Some(a), Some(b)) => Some(V7Mark {
                    hwm_ms: a.hwm_ms.max(b.hwm_ms),
                }),
                (a, b) => a.or(b),
            };
            // An earlier node's mark, raised to the highest memory holds for it.
            let raise =
                |earlier: [Option<GregorianMark>; EARLIER_NODES],
                 mem: Option<GregorianMark>,
                 mem_earlier: [Option<GregorianMark>; EARLIER_NODES]| {
                    earlier.map(|e| {
                        e.map(|e| {
                            let same = mem.iter().chain(mem_earlier.iter().flatten());
                            let hwm = same
                                .filter(|x| x.node == e.node)
                                .fold(e.hwm, |h, x| h.max(x.hwm));
                            GregorianMark { hwm, ..e }
                        })
                    })
                };
            (
                Some(StateRecord {
                    v1: g(f.v1, m.v1),
                    v6: g(f.v6, m.v6),
                    v7,
                    v1_earlier: raise(f.v1_earlier, m.v1, m.v1_earlier),
                    v6_earlier: raise(f.v6_earlier, m.v6, m.v6_earlier),
                    snowflake: f.merged_snowflake(m),
                }),
                None,
            )
        }
        (Ok(f), _) => (Some(f), None),
        (Err(e), m) => (*m, Some(e)),
    }
}

fn read_state(path: &Path) -> Result<StateRecord, StateError> {
    let mut buf = Vec::new();
    let res = File::open(path).and_then(|mut f| {
        // A state file is well under 1 KiB; anything huge is garbage.
        Read::by_ref(&mut f).take(64 * 1024).read_to_end(&mut buf)
    });
    match res {
        Ok(_) if !buf.is_empty() && !buf.starts_with(HEADER_PREFIX.as_bytes()) => {
            Err(foreign(path, &buf))
        }
        Ok(_) => StateRecord::parse(&buf).map_err(|e| {
            if e.kind() == StateErrorKind::UnsupportedVersion {
                foreign(path, &buf)
            } else {
                e
            }
        }),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Err(StateError::io(
            StateErrorKind::Missing,
            &std::format!("{} does not exist", path.display()),
            &e,
        )),
        Err(e) => Err(StateError::io(
            StateErrorKind::Unreadable,
            &std::format!("cannot read {}", path.display()),
            &e,
        )),
    }
}

/// The refusal of a file at `path` that is not a state file of this format.
#[cold]
fn foreign(path: &Path, content: &[u8]) -> StateError {
    let first = content.split(|&b| b == b'\n').next().unwrap_or_default();
    StateError::new(
        StateErrorKind::Foreign,
        Some(1),
        std::format!(
            "expected `uuidkit-state 1` at the start of {}, found `{}`; left untouched",
            path.display(),
            escape(first)
        ),
    )
}

/// Write `<path>.tmp`, fsync, rename over `path`, fsync the directory.
///
/// An existing `path` that this process may not write is left alone (the
/// rename would replace it all the same, given a writable directory), and its
/// replacement keeps its permission bits and, for root, its owner.
fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), StateError> {
    let tmp = FileStore::side(path, ".tmp");
    let fail = |what: &str, e: io::Error| {
        StateError::io(
            StateErrorKind::Unwritable,
            &std::format!("cannot {what} {}", tmp.display()),
            &e,
        )
    };
    #[cfg(unix)]
    let existing = fs::metadata(path).ok();
    #[cfg(unix)]
    if existing.is_some() {
        writable(path).map_err(|e| {
            StateError::io(
                StateErrorKind::Unwritable,
                &std::format!("cannot write {}", path.display()),
                &e,
            )
        })?;
    }
    path::clear_leftover(&tmp)?;
    let mut opts = OpenOptions::new();
    // `create_new`: never opens what is already there, a link or a FIFO put
    // there since the check included.
    opts.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut opts, 0o644);
    let mut f = opts.open(&tmp).map_err(|e| fail("create", e))?;
    #[cfg(unix)]
    let res = match &existing {
        Some(meta) => keep_owner_and_mode(&f, meta),
        None => Ok(()),
    };
    #[cfg(not(unix))]
    let res = Ok(());
    let res = res
        .and_then(|()| f.write_all(bytes))
        .and_then(|()| f.sync_all());
    drop(f);
    let res = res.and_then(|()| fs::rename(&tmp, path));
    if let Err(e) = res {
        let _ = fs::remove_file(&tmp);
        return Err(fail("write and rename", e));
    }
    if let Some(dir) = path.parent() {
        let dir = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        File::open(dir).and_then(|d| d.sync_all()).map_err(|e| {
            StateError::io(
                StateErrorKind::Unwritable,
                &std::format!("cannot fsync {}", dir.display()),
                &e,
            )
        })?;
    }
    Ok(())
}

/// Whether this process may write `path` (`access(2)`, which answers for the
/// real user, as a set-user-ID program's caller would be judged).
#[cfg(unix)]
fn writable(path: &Path) -> io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).map_err(io::Error::other)?;
    // SAFETY: a valid NUL-terminated path; access only reads it.
    if unsafe { libc::access(c.as_ptr(), libc::W_OK) } == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Gives the new file `f` the permission bits of the one it replaces and, when
/// running as root, its owner and group.
#[cfg(unix)]
fn keep_owner_and_mode(f: &File, old: &fs::Metadata) -> io::Result<()> {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    if is_root() {
        std::os::unix::fs::fchown(f, Some(old.uid()), Some(old.gid()))?;
    }
    f.set_permissions(fs::Permissions::from_mode(old.mode() & 0o7777))
}

#[cfg(unix)]
fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

#[cfg(not(unix))]
fn is_root() -> bool {
    false
}

/// [`FileStore::default_path`] with the environment and the user injected.
fn resolve_path(env: impl Fn(&str) -> Option<OsString>, root: bool) -> Option<PathBuf> {
    if let Some(p) = env(ENV_VAR).filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    if root {
        return Some(PathBuf::from("/var/lib/uuidkit/state"));
    }
    if let Some(x) = env("XDG_STATE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
    {
        return Some(x.join("uuidkit/state"));
    }
    env("HOME")
        .filter(|h| !h.is_empty())
        .map(|h| PathBuf::from(h).join(".local/state/uuidkit/state"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<OsString> + 'a {
        move |k| {
            vars.iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| OsString::from(v))
        }
    }

    #[test]
    fn path_resolution_order() {
        let all = [
            ("UUIDKIT_STATE", "/x/s"),
            ("XDG_STATE_HOME", "/xdg"),
            ("HOME", "/home/u"),
        ];
        assert_eq!(
            resolve_path(env(&all), true),
            Some(PathBuf::from("/x/s")),
            "env var beats root"
        );
        assert_eq!(
            resolve_path(env(&all[1..]), true),
            Some(PathBuf::from("/var/lib/uuidkit/state"))
        );
        assert_eq!(
            resolve_path(env(&all[1..]), false),
            Some(PathBuf::from("/xdg/uuidkit/state"))
        );
        assert_eq!(
            resolve_path(env(&all[2..]), false),
            Some(PathBuf::from("/home/u/.local/state/uuidkit/state"))
        );
        let rel = [
            ("UUIDKIT_STATE", ""),
            ("XDG_STATE_HOME", "rel"),
            ("HOME", "/h"),
        ];
        assert_eq!(
            resolve_path(env(&rel), false),
            Some(PathBuf::from("/h/.local/state/uuidkit/state")),
            "empty override and relative XDG_STATE_HOME are ignored (XDG spec)"
        );
        assert_eq!(resolve_path(env(&[]), false), None);
    }

    #[test]
    fn no_path_keeps_state_in_memory_and_says_so() {
        let store = FileStore {
            path: None,
            ..FileStore::new("")
        };
        let rec = StateRecord {
            v7: Some(V7Mark { hwm_ms: 7 }),
            ..StateRecord::default()
        };
        let mut seen = std::vec::Vec::new();
        let s1 = store.transact(&mut |old| {
            seen.push(old.copied());
            rec
        });
        let s2 = store.transact(&mut |old| {
            seen.push(old.copied());
            rec
        });
        assert_eq!(
            seen,
            [None, Some(rec)],
            "the second transaction sees the first one's record"
        );
        assert_eq!(
            s1.read_error().map(|e| e.kind()),
            Some(StateErrorKind::NoPath)
        );
        assert_eq!(s2.read_error(), None);
        assert_eq!(
            s2.write_error().map(|e| e.kind()),
            Some(StateErrorKind::NoPath)
        );
        assert_eq!(
            std::string::ToString::to_string(&s2),
            "unsafe: no state file location, using in-process state: \
             expected UUIDKIT_STATE, XDG_STATE_HOME or HOME to be set, found none"
        );
        assert_eq!(store.load().unwrap_err().kind(), StateErrorKind::NoPath);
    }

    /// The default location's directories are created; an explicit path's
    /// are not (a typo must not become a directory tree).
    #[test]
    fn only_the_default_location_gets_its_directories_created() {
        let base = std::env::temp_dir().join(std::format!("uuidkit-dirs-{}", std::process::id()));
        let _ = fs::remove_dir_all(&base);
        fs::create_dir(&base).unwrap();
        let path = base.join("a/b/state");
        let explicit = FileStore::new(&path);
        let s = explicit.transact(&mut |_| StateRecord::default());
        assert_eq!(
            s.write_error().map(StateError::kind),
            Some(StateErrorKind::NoDirectory)
        );
        assert!(!base.join("a").exists());
        let default = FileStore {
            create_dirs: true,
            ..FileStore::new(&path)
        };
        assert!(
            default
                .transact(&mut |_| StateRecord::default())
                .is_persisted()
        );
        assert!(path.is_file());
        fs::remove_dir_all(&base).unwrap();
    }

    #[test]
    fn side_files() {
        assert_eq!(
            FileStore::side(Path::new("/a/state"), ".lock"),
            PathBuf::from("/a/state.lock")
        );
    }
}
