//! Corrupt, truncated and empty state files and locations that cannot be
//! written. No panic, generation goes on, the status
//! says unsafe (and why), and the file is repaired where possible.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::{leased_v1, leased_v7};
use uuidkit::clock::ManualClock;
use uuidkit::generator::GenErrorKind;
use uuidkit::rng::ThreadRng;
use uuidkit::{Generator, Uuid};
use uuidkit_state::{
    BlockPolicy, FileStore, Reserver, StateErrorKind,
    format::{GregorianMark, StateRecord, V7Mark},
};

const T0: u64 = 1_645_557_742_000_000_000; // 2022-02-22T19:22:22Z
const T0_MS: u64 = T0 / 1_000_000;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("uuidkit-state-rec-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

fn good_file() -> String {
    StateRecord {
        v1: Some(GregorianMark {
            hwm: 5,
            clock_seq: 1,
            node: [1; 6],
        }),
        v6: None,
        v7: Some(V7Mark {
            hwm_ms: T0_MS - 10_000,
        }),
        ..StateRecord::default()
    }
    .emit()
}

/// Generates `n` v7 UUIDs through a fresh generator bound to the file; returns
/// them and the status of the first reservation.
fn v7_run(path: &Path, clock: &ManualClock, n: usize) -> (Vec<Uuid>, uuidkit_state::Status) {
    let r = Reserver::new(FileStore::new(path), BlockPolicy::default());
    let mut g = leased_v7(clock, &r);
    let first = g.generate().unwrap();
    let status = g.store().status().cloned().unwrap();
    let mut out = vec![first];
    out.extend((1..n).map(|_| g.generate().unwrap()));
    (out, status)
}

#[test]
fn bad_files_read_as_no_state_and_are_repaired() {
    let good = good_file();
    let mut flipped = good.clone().into_bytes();
    let at = good.find("v7.hwm_ms ").unwrap() + 10;
    flipped[at] = if flipped[at] == b'9' { b'8' } else { b'9' };
    let cases: Vec<(&str, Vec<u8>, StateErrorKind)> = vec![
        (
            "garbage",
            b"uuidkit-state 1\nhello, world\nsha256 8f45ddd989f1314a\n".to_vec(),
            StateErrorKind::Garbage,
        ),
        (
            "binary",
            b"uuidkit-state 1\n\xFF\x00\x13\x37\nsha256 8fb5ae540f2801c1\n".to_vec(),
            StateErrorKind::Garbage,
        ),
        (
            "truncated",
            good.as_bytes()[..good.len() / 2].to_vec(),
            StateErrorKind::Truncated,
        ),
        (
            "no-checksum",
            good.as_bytes()[..good.rfind("sha256").unwrap()].to_vec(),
            StateErrorKind::Truncated,
        ),
        ("empty", Vec::new(), StateErrorKind::Empty),
        ("checksum", flipped, StateErrorKind::ChecksumMismatch),
    ];
    for (name, bytes, kind) in cases {
        let dir = scratch(name);
        let path = dir.join("state");
        fs::write(&path, &bytes).unwrap();
        let clock = ManualClock::new(T0);
        let (uuids, status) = v7_run(&path, &clock, 1000);
        assert!(!status.is_safe(), "{name}");
        assert_eq!(
            status.read_error().map(|e| e.kind()),
            Some(kind),
            "{name}: {status}"
        );
        assert!(
            status.is_persisted(),
            "{name}: a good file was written back"
        );
        assert!(
            uuids.windows(2).all(|w| w[0] < w[1]),
            "{name}: generation went on"
        );
        assert_eq!(
            uuids[0].unix_ts_ms(),
            Some(T0_MS),
            "{name}: no state, so start at the clock"
        );
        let repaired = FileStore::new(&path).load().unwrap();
        // The block was [T0, T0 + 100 ms); dropping the generator gave back the unused tail.
        assert_eq!(repaired.v7, Some(V7Mark { hwm_ms: T0_MS + 1 }), "{name}");
        // The next process finds a good file: safe, and above the first one.
        let (later, status) = v7_run(&path, &clock, 10);
        assert!(status.is_safe(), "{name}: {status}");
        assert!(later[0] > uuids[999], "{name}");
        fs::remove_dir_all(&dir).unwrap();
    }
}

/// A file that is not a state file (someone else's data at the path the user
/// named, or a later format's state) is never replaced, strict or not: the
/// generator goes on with state of its own (a strict one refuses), and the
/// file keeps every byte.
#[test]
fn files_that_are_not_state_files_are_left_untouched() {
    let cases: [(&str, &[u8]); 4] = [
        ("uuids", b"57bdb4ca-53d2-4d29-9ac8-1e1c4cb5d0a2\n"),
        ("text", b"hello, world\n"),
        ("binary", b"\xFF\x00\x13\x37"),
        ("later-version", b"uuidkit-state 7\nv9.mark 1\nsha256 00\n"),
    ];
    for (name, bytes) in cases {
        let dir = scratch(name);
        let path = dir.join("state");
        fs::write(&path, bytes).unwrap();
        let err = FileStore::new(&path).check().unwrap_err();
        assert_eq!(err.kind(), StateErrorKind::Foreign, "{name}: {err}");
        assert!(err.to_string().contains("left untouched"), "{name}: {err}");
        let clock = ManualClock::new(T0);
        let (uuids, status) = v7_run(&path, &clock, 100);
        assert_eq!(
            status.write_error().map(|e| e.kind()),
            Some(StateErrorKind::Foreign),
            "{name}: {status}"
        );
        assert!(status.reason().unwrap().kind().is_in_process_fallback());
        assert!(uuids.windows(2).all(|w| w[0] < w[1]), "{name}");
        let strict = Reserver::new(FileStore::new(&path), BlockPolicy::default()).strict(true);
        let err = leased_v7(&clock, &strict).generate().unwrap_err();
        assert_eq!(err.kind(), GenErrorKind::Store, "{name}");
        assert!(
            err.to_string().ends_with("found not a uuidkit state file"),
            "{name}: {err}"
        );
        assert_eq!(fs::read(&path).unwrap(), bytes, "{name}: every byte kept");
        fs::remove_dir_all(&dir).unwrap();
    }
}

/// A strict reserver does not repair: the damaged file's marks are unknown,
/// so nothing could be shown to lie above them. It refuses and keeps every
/// byte for the operator; an empty file is first use and is written.
#[test]
fn strict_mode_keeps_a_damaged_file_and_refuses() {
    let good = good_file();
    let cases: [(&str, Vec<u8>); 3] = [
        ("truncated", good.as_bytes()[..good.len() - 5].to_vec()),
        (
            "checksum",
            good.replace("v7.hwm_ms 1", "v7.hwm_ms 2").into_bytes(),
        ),
        (
            "garbage",
            b"uuidkit-state 1\nhello, world\nsha256 8f45ddd989f1314a\n".to_vec(),
        ),
    ];
    for (name, bytes) in cases {
        let dir = scratch(&format!("strict-{name}"));
        let path = dir.join("state");
        fs::write(&path, &bytes).unwrap();
        let clock = ManualClock::new(T0);
        for version in ["v7", "v1"] {
            let strict = Reserver::new(FileStore::new(&path), BlockPolicy::default()).strict(true);
            let err = match version {
                "v7" => leased_v7(&clock, &strict).generate().unwrap_err(),
                _ => leased_v1(&clock, &strict).generate().unwrap_err(),
            };
            assert_eq!(err.kind(), GenErrorKind::Store, "{name} {version}");
            assert!(
                err.to_string().ends_with("found damaged state file"),
                "{name} {version}: {err}"
            );
            assert_eq!(fs::read(&path).unwrap(), bytes, "{name} {version}: kept");
        }
        // Not strict: repaired, as before.
        let (_, status) = v7_run(&path, &clock, 1);
        assert!(status.is_persisted(), "{name}: {status}");
        fs::remove_dir_all(&dir).unwrap();
    }
    let dir = scratch("strict-empty");
    let path = dir.join("state");
    fs::write(&path, b"").unwrap();
    // Empty: refused and kept, unless the caller says the file is new.
    let strict = Reserver::new(FileStore::new(&path), BlockPolicy::default()).strict(true);
    let clock = ManualClock::new(T0);
    let err = leased_v7(&clock, &strict).generate().unwrap_err();
    assert_eq!(err.kind(), uuidkit::generator::GenErrorKind::Store, "{err}");
    assert_eq!(fs::read(&path).unwrap(), b"", "kept");
    let new = Reserver::new(
        FileStore::new(&path).new_state(true),
        BlockPolicy::default(),
    )
    .strict(true);
    leased_v7(&clock, &new).generate().unwrap();
    assert!(FileStore::new(&path).load().is_ok());
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_file_gives_v1_a_random_clock_sequence_and_is_repaired() {
    let dir = scratch("v1");
    let path = dir.join("state");
    fs::write(&path, b"uuidkit-state 1\nv1.hwm 1\n").unwrap(); // no checksum: truncated
    let clock = ManualClock::new(T0).advancing_on_relax(1_000_000);
    let r = Reserver::new(FileStore::new(&path), BlockPolicy::default());
    let mut g = leased_v1(&clock, &r);
    let u = g.generate().unwrap();
    let status = g.store().status().cloned().unwrap();
    assert_eq!(
        status.read_error().map(|e| e.kind()),
        Some(StateErrorKind::Truncated)
    );
    assert_eq!(status.to_string().split(':').next(), Some("unsafe"));
    let b = g.store().block().unwrap();
    assert_eq!(b.origin, uuidkit_state::BlockOrigin::NoState);
    assert_eq!(u.clock_seq(), Some(b.clock_seq));
    assert_eq!(
        u.node().unwrap()[0] & 1,
        1,
        "random node, multicast bit set"
    );
    drop(g); // releases the unused tail of the block
    let rec = FileStore::new(&path).load().unwrap();
    let m = rec.v1.unwrap();
    assert_eq!((m.clock_seq, m.node), (b.clock_seq, b.node));
    assert_eq!(
        m.hwm,
        u.gregorian_timestamp().unwrap() + 1,
        "released down to one past the last UUID"
    );
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_directory_at_the_path_is_refused_and_state_stays_in_process() {
    let dir = scratch("isdir");
    let path = dir.join("state");
    fs::create_dir(&path).unwrap();
    let clock = ManualClock::new(T0);
    let r = Reserver::new(FileStore::new(&path), BlockPolicy::default());
    let mut g = leased_v7(&clock, &r);
    let mut last = g.generate().unwrap();
    let status = g.store().status().cloned().unwrap();
    let w = status.write_error().unwrap();
    assert_eq!(w.kind(), StateErrorKind::NotRegular, "{status}");
    assert_eq!(
        w.to_string(),
        format!(
            "state file refused, using in-process state: expected a regular file or nothing at {}, \
             found a directory; left untouched",
            path.display()
        )
    );
    assert!(status.reason().unwrap().kind().is_in_process_fallback());
    // Several blocks in fallback: still increasing.
    for _ in 0..5 {
        clock.advance(150_000_000);
        let u = g.generate().unwrap();
        assert!(u > last);
        last = u;
    }
    assert!(path.is_dir(), "the directory was left alone");
    fs::remove_dir_all(&dir).unwrap();
}

/// A path whose parent is a regular file: unwritable for root too (ENOTDIR).
#[test]
fn unwritable_parent_is_a_regular_file() {
    let dir = scratch("notdir");
    let blocker = dir.join("file");
    fs::write(&blocker, b"not a directory").unwrap();
    let path = blocker.join("state");
    let clock = ManualClock::new(T0);
    let r = Reserver::new(FileStore::new(&path), BlockPolicy::default());
    let mut a = leased_v7(&clock, &r);
    let mut b = leased_v7(&clock, &r);
    let x = a.generate().unwrap();
    let status = a.store().status().cloned().unwrap();
    assert!(!status.is_safe() && !status.is_persisted());
    let w = status.write_error().unwrap();
    assert_eq!(w.kind(), StateErrorKind::Unlockable, "{w}");
    assert_eq!(w.io_kind(), Some(std::io::ErrorKind::NotADirectory), "{w}");
    // The in-process fallback still hands out disjoint blocks within the process.
    let y = b.generate().unwrap();
    assert_ne!(x.unix_ts_ms(), y.unix_ts_ms());
    assert_eq!(y.unix_ts_ms(), Some(T0_MS + 100));
    assert_eq!(fs::read(&blocker).unwrap(), b"not a directory");
    fs::remove_dir_all(&dir).unwrap();
}

/// Makes `dir` unwritable in a way root cannot bypass either: `chattr +i`
/// (immutable: no entry may be created, removed or renamed) when running as
/// root, `chmod 0555` otherwise. The guard undoes it. Fails (with the reason)
/// when `chattr` is missing or the file system or capabilities refuse it.
struct ReadOnly<'a>(&'a Path, bool);

impl<'a> ReadOnly<'a> {
    fn new(dir: &'a Path) -> Result<ReadOnly<'a>, String> {
        // SAFETY: geteuid cannot fail.
        let root = unsafe { libc::geteuid() } == 0;
        if root {
            let dir_arg = dir.to_string_lossy();
            test_support::command("chattr", &["+i", &dir_arg]).map_err(|e| {
                format!("needs `chattr` (e2fsprogs) and CAP_LINUX_IMMUTABLE as root: {e}")
            })?;
        } else {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(dir, fs::Permissions::from_mode(0o555)).unwrap();
        }
        Ok(ReadOnly(dir, root))
    }
}

impl Drop for ReadOnly<'_> {
    fn drop(&mut self) {
        if self.1 {
            let _ = Command::new("chattr").arg("-i").arg(self.0).status();
        } else {
            use std::os::unix::fs::PermissionsExt;
            let _ = fs::set_permissions(self.0, fs::Permissions::from_mode(0o755));
        }
    }
}

#[test]
fn read_only_directory_honours_the_file_and_recovers() {
    let dir = scratch("readonly");
    let path = dir.join("state");
    let clock = ManualClock::new(T0);
    // A previous run left a mark 5 s ahead, and the lock file.
    let ahead = T0_MS + 5_000;
    let rec = StateRecord {
        v7: Some(V7Mark { hwm_ms: ahead }),
        ..StateRecord::default()
    };
    let store = FileStore::new(&path);
    let r = Reserver::new(store, BlockPolicy::default());
    r.store().transact(&mut |_| rec);
    assert!(dir.join("state.lock").exists());

    let guard = ReadOnly::new(&dir);
    let test = "read_only_directory_honours_the_file_and_recovers";
    if !test_support::require(test, guard.as_ref().map(|_| ()).map_err(Clone::clone)) {
        fs::remove_dir_all(&dir).unwrap();
        return;
    }
    let mut g = leased_v7(&clock, &r);
    let first = g.generate().unwrap();
    let status = g.store().status().cloned().unwrap();
    assert!(
        status.read_error().is_none(),
        "the file was readable: {status}"
    );
    assert_eq!(
        status.write_error().map(|e| e.kind()),
        Some(StateErrorKind::Unwritable),
        "{status}"
    );
    assert_eq!(
        first.unix_ts_ms(),
        Some(ahead),
        "continues above the file's mark even when it cannot write"
    );
    let mut last = first;
    for _ in 0..100 {
        last = g.generate().unwrap();
    }
    assert_eq!(
        FileStore::new(&path).load().unwrap().v7,
        Some(V7Mark { hwm_ms: ahead }),
        "file untouched"
    );
    drop(guard);

    // Writable again: the next reservation persists, covering what was issued in memory.
    clock.advance(6_000_000_000);
    let mut h = leased_v7(&clock, &r);
    let next = h.generate().unwrap();
    assert!(next > last);
    assert!(h.store().status().cloned().unwrap().is_safe());
    let stored = FileStore::new(&path).load().unwrap().v7.unwrap();
    assert!(stored.hwm_ms > last.unix_ts_ms().unwrap());
    drop((g, h));
    fs::remove_dir_all(&dir).unwrap();
}

/// A lock held by another process costs one wait, not one per block: after
/// the first timeout, transactions try once and fall back at once, for every
/// version; once the lock is free again, the file is used again.
#[test]
fn a_held_lock_is_waited_for_once_per_store() {
    use std::os::unix::io::AsRawFd;
    let dir = scratch("contended");
    let path = dir.join("state");
    let holder = fs::File::create(dir.join("state.lock")).unwrap();
    // SAFETY: flock on a descriptor we own.
    assert_eq!(unsafe { libc::flock(holder.as_raw_fd(), libc::LOCK_EX) }, 0);
    let timeout = std::time::Duration::from_millis(300);
    let store = FileStore::new(&path).with_lock_timeout(timeout);
    let r = Reserver::new(store, BlockPolicy::default());
    let clock = ManualClock::new(T0).advancing_on_relax(1_000_000);
    let start = std::time::Instant::now();
    let mut v1 = leased_v1(&clock, &r);
    let mut v6 = uuidkit::V6Generator::builder()
        .store(r.lease_v6())
        .build(&clock, ThreadRng)
        .unwrap();
    let mut v7 = leased_v7(&clock, &r);
    for _ in 0..20 {
        // Each round moves past the 100 ms block: 60 reservations in all.
        v1.generate().unwrap();
        v6.generate().unwrap();
        v7.generate().unwrap();
        clock.advance(150_000_000);
    }
    drop((v1, v6, v7));
    let took = start.elapsed();
    assert!(
        took < timeout * 5,
        "60 reservations under a held lock took {took:?}: more than one wait"
    );
    let status = r.last_status().unwrap();
    assert_eq!(
        status.write_error().map(|e| e.kind()),
        Some(StateErrorKind::Unlockable)
    );
    assert!(!path.exists(), "the file was not written without the lock");
    drop(holder);
    let (_, status) = r.reserve_v7(T0 / 1_000_000);
    assert!(status.is_persisted(), "the lock is free again: {status}");
    fs::remove_dir_all(&dir).unwrap();
}
