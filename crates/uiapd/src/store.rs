//! Persistent state: the device ID and the claims, in the state directory.
//!
//! * `device-id`: 16 lowercase hex digits and a newline (random, non-zero:
//!   docs/uiap-design.md D22);
//! * `claims.json`: `{"next_id":N,"claims":[{"id":…,"domain":…,"space":…,"lifetime":…,"proxy":…,"owner":…,"renew":…,"expires_at":…,"release_on_close":…}]}`.
//!
//! Every write is atomic: the new content goes to a temporary file in the same directory, which
//! is fsynced, renamed over the old file, and then the directory is fsynced. A crash leaves
//! either the old or the new file, never a mix.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::{DaemonError, DaemonErrorKind};
use uiap_control::SpaceText;

/// One persisted claim.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct StoredClaim {
    /// The daemon's claim ID.
    pub(crate) id: u64,
    /// Domain ID text.
    pub(crate) domain: String,
    /// The space in text form.
    pub(crate) space: SpaceText,
    /// Lifetime in seconds.
    pub(crate) lifetime: u32,
    /// The X flag.
    pub(crate) proxy: bool,
    /// The user ID of the application that made the claim: only it or root releases it
    /// (docs/uiap-design.md D28). Claims persisted without one belong to root.
    #[serde(default)]
    pub(crate) owner: u32,
    /// The device ID the claim was announced under, once it succeeded: a reclaim after a restart
    /// uses it even if the device's ID changed since (docs/uiap-design.md D40). Claims persisted
    /// without one use the current ID.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) origin: Option<u64>,
    /// Whether the daemon renews it before its lifetime ends (docs/uiap-design.md D32).
    #[serde(default)]
    pub(crate) renew: bool,
    /// When its lifetime ends, in seconds since the Unix epoch (updated by every renewal);
    /// `None` for an infinite lifetime, or a claim persisted before this was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) expires_at: Option<u64>,
    /// The user its client asked to release it as when the client's connection closes
    /// (docs/uiap-design.md D54): a restart closed that connection, so the restarted daemon
    /// releases it instead of reclaiming it (D59).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) release_on_close: Option<u32>,
}

impl StoredClaim {
    /// Whether its lifetime has ended at `now` (seconds since the Unix epoch): a restart does
    /// not reclaim it (docs/uiap-design.md D32).
    pub(crate) fn ended_by(&self, now: u64) -> bool {
        self.expires_at.is_some_and(|at| at <= now)
    }
}

/// The content of `claims.json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Claims {
    /// The next claim ID to hand out.
    pub(crate) next_id: u64,
    /// The claims held or in progress.
    pub(crate) claims: Vec<StoredClaim>,
}

impl Default for Claims {
    fn default() -> Claims {
        Claims {
            next_id: 1,
            claims: Vec::new(),
        }
    }
}

/// The state directory: the device ID and the claims (the module docs say how they are kept).
#[derive(Clone, Debug)]
pub struct Store {
    dir: PathBuf,
    /// An exclusive `flock` on `DIR/lock`, held while the store lives: one daemon per state
    /// directory (docs/uiap-design.md D27).
    _lock: std::sync::Arc<nix::fcntl::Flock<fs::File>>,
}

impl Store {
    /// Opens (creating if needed, mode 0700) the state directory.
    ///
    /// # Errors
    ///
    /// [`DaemonErrorKind::Io`] if the directory cannot be created.
    ///
    /// ```
    /// let dir = std::env::temp_dir().join(format!("uiap-store-open-{}", std::process::id()));
    /// let store = uiapd::Store::open(&dir)?;
    /// assert!(dir.join("lock").exists());
    /// // One daemon per state directory: a second store is refused while this one lives.
    /// assert!(uiapd::Store::open(&dir).is_err());
    /// drop(store);
    /// std::fs::remove_dir_all(&dir).ok();
    /// Ok::<(), uiapd::DaemonError>(())
    /// ```
    pub fn open(dir: &Path) -> Result<Store, DaemonError> {
        use std::os::unix::fs::DirBuilderExt;
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .map_err(|e| DaemonError::io("cannot create state directory", Some(dir), e))?;
        let path = dir.join("lock");
        let file = fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|e| DaemonError::io("cannot open the lock file", Some(&path), e))?;
        let lock = nix::fcntl::Flock::lock(file, nix::fcntl::FlockArg::LockExclusiveNonblock)
            .map_err(|(_, errno)| {
                let what = if errno == nix::errno::Errno::EWOULDBLOCK {
                    "another uiapd is already running: the state directory is locked"
                } else {
                    "cannot lock the state directory"
                };
                DaemonError::io(what, Some(&path), errno.into())
            })?;
        Ok(Store {
            dir: dir.to_path_buf(),
            _lock: std::sync::Arc::new(lock),
        })
    }

    /// The state directory.
    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    /// The persisted device ID, or a new one from `generate` (persisted before it is returned).
    /// `generate` is called until it yields a non-zero value.
    ///
    /// # Errors
    ///
    /// [`DaemonErrorKind::State`] if `device-id` holds something other than 16 hex digits of a
    /// non-zero value; [`DaemonErrorKind::Io`] if it cannot be read or written.
    pub(crate) fn device_id(&self, mut generate: impl FnMut() -> u64) -> Result<u64, DaemonError> {
        let path = self.dir.join("device-id");
        match read_regular(&path).and_then(|b| String::from_utf8(b).map_err(std::io::Error::other))
        {
            Ok(text) => {
                let t = text.trim();
                match u64::from_str_radix(t, 16) {
                    Ok(v) if v != 0 && t.len() == 16 => Ok(v),
                    _ => Err(DaemonError::new(
                        DaemonErrorKind::State,
                        format!(
                            "device-id: expected 16 hex digits of a non-zero value, found `{t}`"
                        ),
                    )
                    .with_path(&path)),
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let mut id = generate();
                while id == 0 {
                    id = generate();
                }
                self.set_device_id(id)?;
                Ok(id)
            }
            Err(e) => Err(DaemonError::io("cannot read device id", Some(&path), e)),
        }
    }

    /// Persists a device ID (after a collision made the device pick a new one).
    ///
    /// # Errors
    ///
    /// [`DaemonErrorKind::Io`].
    pub(crate) fn set_device_id(&self, id: u64) -> Result<(), DaemonError> {
        self.write_atomic("device-id", format!("{id:016x}\n").as_bytes())
    }

    /// The persisted claims (empty if there is no file yet).
    ///
    /// # Errors
    ///
    /// [`DaemonErrorKind::State`] if `claims.json` does not parse; [`DaemonErrorKind::Io`].
    pub(crate) fn load_claims(&self) -> Result<Claims, DaemonError> {
        let path = self.dir.join("claims.json");
        match read_regular(&path) {
            Ok(bytes) => {
                let claims: Claims = serde_json::from_slice(&bytes).map_err(|e| {
                    DaemonError::new(
                        DaemonErrorKind::State,
                        format!("claims.json: expected the claims object, {e}"),
                    )
                    .with_path(&path)
                })?;
                // One claim that cannot be read stops the start, as a file that cannot: the
                // next save would drop it for good.
                for c in &claims.claims {
                    let readable = c
                        .domain
                        .parse::<uiap::space::DomainId>()
                        .map_err(|e| e.to_string())
                        .and_then(|d| c.space.parse(&d).map(drop).map_err(|e| e.to_string()));
                    if let Err(e) = readable {
                        return Err(DaemonError::new(
                            DaemonErrorKind::State,
                            format!(
                                "claims.json: claim {}: expected a domain and space to reclaim, \
                                 found `{}` `{}` ({e}); left untouched",
                                c.id, c.domain, c.space
                            ),
                        )
                        .with_path(&path));
                    }
                }
                Ok(claims)
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Claims::default()),
            Err(e) => Err(DaemonError::io("cannot read claims", Some(&path), e)),
        }
    }

    /// Replaces the persisted claims, atomically.
    ///
    /// # Errors
    ///
    /// [`DaemonErrorKind::Io`].
    pub(crate) fn save_claims(&self, claims: &Claims) -> Result<(), DaemonError> {
        let mut text = serde_json::to_vec_pretty(claims).map_err(|e| {
            DaemonError::new(DaemonErrorKind::State, format!("cannot encode claims: {e}"))
        })?;
        text.push(b'\n');
        self.write_atomic("claims.json", &text)
    }

    fn write_atomic(&self, name: &str, bytes: &[u8]) -> Result<(), DaemonError> {
        let path = self.dir.join(name);
        let tmp = self.dir.join(format!(".{name}.tmp"));
        let io = |what: &str, p: &Path, e| DaemonError::io(what.to_string(), Some(p), e);
        // A regular file left by a crash is replaced; anything else there (a FIFO
        // would block the open, a link would be followed) is refused.
        match fs::symlink_metadata(&tmp) {
            Ok(m) if m.is_file() => {
                fs::remove_file(&tmp).map_err(|e| io("cannot remove temporary file", &tmp, e))?;
            }
            Ok(m) => return Err(io("cannot create temporary file", &tmp, not_regular(&m))),
            Err(_) => {}
        }
        let mut f = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
            .map_err(|e| io("cannot create temporary file", &tmp, e))?;
        f.write_all(bytes)
            .map_err(|e| io("cannot write temporary file", &tmp, e))?;
        f.sync_all()
            .map_err(|e| io("cannot fsync temporary file", &tmp, e))?;
        drop(f);
        fs::rename(&tmp, &path).map_err(|e| io("cannot rename temporary file", &path, e))?;
        File::open(&self.dir)
            .and_then(|d| d.sync_all())
            .map_err(|e| io("cannot fsync state directory", &self.dir, e))?;
        Ok(())
    }
}

/// The contents of `path`, a regular file (after links): a FIFO, a device or a
/// directory there is an error, never opened, so that nothing blocks or is
/// read from a device.
fn read_regular(path: &Path) -> std::io::Result<Vec<u8>> {
    let meta = fs::metadata(path)?;
    if !meta.is_file() {
        return Err(not_regular(&meta));
    }
    fs::read(path)
}

/// The error for something other than a regular file, saying what it is.
fn not_regular(meta: &fs::Metadata) -> std::io::Error {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    let what = if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_char_device() || t.is_block_device() {
        "a device"
    } else if t.is_symlink() {
        "a symbolic link"
    } else {
        "not a regular file"
    };
    std::io::Error::other(format!(
        "expected a regular file, found {what}; left untouched"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fifo_in_the_state_directory_is_refused_not_opened() {
        use std::os::unix::fs::FileTypeExt;
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        for name in ["device-id", "claims.json", ".claims.json.tmp"] {
            let path = dir.path().join(name);
            nix::unistd::mkfifo(&path, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
            let err = match name {
                "device-id" => store.device_id(|| 7).unwrap_err(),
                "claims.json" => store.load_claims().unwrap_err(),
                _ => store.save_claims(&Claims::default()).unwrap_err(),
            };
            let text = err.to_string();
            assert!(
                text.contains("found a FIFO; left untouched"),
                "{name}: {text}"
            );
            assert!(text.contains(name), "{name}: {text}");
            assert!(fs::symlink_metadata(&path).unwrap().file_type().is_fifo());
            fs::remove_file(&path).unwrap();
        }
        // A claim that cannot be read is an error naming it, and the file is kept.
        let bad = "{\"next_id\":3,\"claims\":[{\"id\":2,\"domain\":\"zzz\",\"space\":{\"uid\":\"01\"},\"lifetime\":60,\"proxy\":false,\"owner\":0}]}\n";
        fs::write(dir.path().join("claims.json"), bad).unwrap();
        let err = store.load_claims().unwrap_err().to_string();
        assert!(
            err.contains("claim 2: expected a domain and space"),
            "{err}"
        );
        assert_eq!(
            fs::read_to_string(dir.path().join("claims.json")).unwrap(),
            bad
        );
        fs::remove_file(dir.path().join("claims.json")).unwrap();
        // A leftover temporary file from a crash does not stop a save.
        fs::write(dir.path().join(".claims.json.tmp"), "{\"next_id\":").unwrap();
        store.save_claims(&Claims::default()).unwrap();
        assert_eq!(store.load_claims().unwrap(), Claims::default());
    }

    #[test]
    fn claims_round_trip_and_no_temp_left() {
        let dir = std::env::temp_dir().join(format!("uiap-store-test-{}", std::process::id()));
        let store = Store::open(&dir).unwrap();
        let claims = Claims {
            next_id: 3,
            claims: vec![StoredClaim {
                id: 2,
                domain: "fff:0:1:0".into(),
                space: SpaceText::Range("01-02".into()),
                lifetime: 60,
                proxy: true,
                owner: 1000,
                origin: Some(0x77),
                renew: true,
                expires_at: Some(1_700_000_000),
                release_on_close: Some(1000),
            }],
        };
        store.save_claims(&claims).unwrap();
        assert_eq!(store.load_claims().unwrap(), claims);
        let mut names: Vec<_> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        names.sort();
        assert_eq!(names, ["claims.json", "lock"]);
        fs::write(dir.join("claims.json"), "{").unwrap();
        assert_eq!(
            store.load_claims().unwrap_err().kind(),
            DaemonErrorKind::State
        );
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn zero_device_id_is_never_generated() {
        let dir = std::env::temp_dir().join(format!("uiap-store-zero-{}", std::process::id()));
        let store = Store::open(&dir).unwrap();
        let mut values = [0u64, 0, 5].into_iter();
        assert_eq!(store.device_id(|| values.next().unwrap()).unwrap(), 5);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_state_directory_is_opened_by_one_store_at_a_time() {
        let dir = std::env::temp_dir().join(format!("uiap-store-lock-{}", std::process::id()));
        let first = Store::open(&dir).unwrap();
        let err = Store::open(&dir).unwrap_err();
        assert!(err.to_string().contains("already running"), "{err}");
        drop(first);
        assert!(Store::open(&dir).is_ok(), "the lock ends with the store");
        fs::remove_dir_all(&dir).ok();
    }

    fn scratch(tag: &str) -> PathBuf {
        std::env::temp_dir().join(format!("uiap-store-{tag}-{}", std::process::id()))
    }

    #[test]
    fn a_lifetime_ends_at_its_second_and_an_infinite_one_never() {
        let c = StoredClaim {
            id: 1,
            domain: "fff:0:1:0".into(),
            space: SpaceText::Uid("01".into()),
            lifetime: 60,
            proxy: false,
            owner: 0,
            renew: false,
            expires_at: Some(1_700_000_060),
            origin: None,
            release_on_close: None,
        };
        assert!(c.ended_by(1_700_000_060));
        assert!(!c.ended_by(1_700_000_059));
        let infinite = StoredClaim {
            expires_at: None,
            ..c
        };
        assert!(!infinite.ended_by(u64::MAX));
    }

    #[test]
    fn a_new_directory_has_no_claims_and_a_persisted_device_id() {
        let dir = scratch("new");
        let store = Store::open(&dir).unwrap();
        assert!(dir.join("lock").is_file());
        assert_eq!(store.load_claims().unwrap(), Claims::default());
        assert_eq!(
            (Claims::default().next_id, Claims::default().claims.len()),
            (1, 0)
        );
        assert_eq!(store.device_id(|| 0x1234).unwrap(), 0x1234);
        assert_eq!(store.device_id(|| 99).unwrap(), 0x1234, "persisted");
        store.set_device_id(0xab).unwrap();
        assert_eq!(
            fs::read_to_string(dir.join("device-id")).unwrap(),
            "00000000000000ab\n"
        );
        store
            .save_claims(&Claims {
                next_id: 7,
                claims: vec![],
            })
            .unwrap();
        assert_eq!(store.load_claims().unwrap().next_id, 7);
        drop(store);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_device_id_that_is_not_16_hex_digits_is_refused() {
        let dir = scratch("badid");
        let store = Store::open(&dir).unwrap();
        for text in ["zz\n", "00000000000000000\n", "0000000000000000\n"] {
            fs::write(dir.join("device-id"), text).unwrap();
            let e = store.device_id(|| 1).unwrap_err();
            assert_eq!(e.kind(), DaemonErrorKind::State);
            assert!(e.to_string().contains("16 hex digits"), "{e}");
        }
        drop(store);
        fs::remove_dir_all(&dir).unwrap();
    }
}
