//! What a `FileStore` does with what it finds at its path: a regular file or
//! nothing is used; a symbolic link is followed (the target is replaced, next
//! to the target); anything else (a device, a FIFO, a socket, a directory, at
//! the state path or at its lock path) is refused and left exactly as it was,
//! whether the path comes from the API or from `UUIDKIT_STATE`; a missing
//! directory is not created for a path given explicitly.

use std::fs;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::process::Command;

use uuidkit::clock::ManualClock;
use uuidkit::rng::ThreadRng;
use uuidkit::{Generator, V7Generator};
use uuidkit_state::{self as state, BlockPolicy, FileStore, Reserver, StateErrorKind};

const T0: u64 = 1_645_557_742_000_000_000;

fn scratch(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("uuidkit-state-paths-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

fn cstr(p: &Path) -> std::ffi::CString {
    std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).unwrap()
}

fn mkfifo(p: &Path) {
    // SAFETY: a valid NUL-terminated path; mkfifo touches nothing else.
    assert_eq!(unsafe { libc::mkfifo(cstr(p).as_ptr(), 0o644) }, 0);
}

/// A character device with /dev/null's numbers (1, 3), made in `p`.
fn mknod_null(p: &Path) {
    // SAFETY: a valid NUL-terminated path; needs CAP_MKNOD (root).
    let rc = unsafe { libc::mknod(cstr(p).as_ptr(), libc::S_IFCHR | 0o666, libc::makedev(1, 3)) };
    assert_eq!(rc, 0, "{}", std::io::Error::last_os_error());
}

/// File type, device number and modification time: what must not change.
fn fingerprint(p: &Path) -> (fs::FileType, u64, i64, i64) {
    let m = fs::symlink_metadata(p).unwrap();
    (m.file_type(), m.rdev(), m.mtime(), m.mtime_nsec())
}

fn listing(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    v.sort();
    v
}

/// `path` (whose directory is `dir`) is refused: `check` names it and what is
/// there; generating through it works in process; nothing in `dir` changes.
fn assert_refused(dir: &Path, path: &Path, odd: &Path, what: &str) {
    let before = listing(dir);
    let print = fingerprint(odd);
    let store = FileStore::new(path);
    let err = store.check().unwrap_err();
    assert_eq!(err.kind(), StateErrorKind::NotRegular, "{err}");
    let msg = err.to_string();
    assert!(msg.contains(&odd.display().to_string()), "{msg}");
    assert!(
        msg.contains(&format!("found {what}; left untouched")),
        "{msg}"
    );
    if fs::canonicalize(path).ok() == fs::canonicalize(odd).ok() {
        assert_eq!(store.load().unwrap_err().kind(), StateErrorKind::NotRegular);
    }

    let r = Reserver::new(store, BlockPolicy::default());
    let clock = ManualClock::new(T0);
    let mut g = V7Generator::builder()
        .store(r.lease_v7())
        .build(&clock, ThreadRng)
        .unwrap();
    let a = g.generate().unwrap();
    clock.advance(500_000_000);
    assert!(g.generate().unwrap() > a);
    let status = g.store().status().unwrap().clone();
    assert_eq!(
        status.write_error().map(|e| e.kind()),
        Some(StateErrorKind::NotRegular)
    );
    assert!(status.reason().unwrap().kind().is_in_process_fallback());
    drop(g);
    assert_eq!(
        listing(dir),
        before,
        "nothing created or removed next to it"
    );
    assert_eq!(fingerprint(odd), print, "{} left as it was", odd.display());
}

#[test]
fn fifo_socket_and_directory_are_refused_at_the_state_and_the_lock_path() {
    let dir = scratch("kinds");
    let fifo = dir.join("fifo");
    mkfifo(&fifo);
    assert_refused(&dir, &fifo, &fifo, "a FIFO");
    let sock = dir.join("sock");
    let _listener = std::os::unix::net::UnixListener::bind(&sock).unwrap();
    assert_refused(&dir, &sock, &sock, "a socket");
    let sub = dir.join("sub");
    fs::create_dir(&sub).unwrap();
    assert_refused(&dir, &sub, &sub, "a directory");
    // The lock file's path gets the same treatment.
    let state = dir.join("state");
    let lock = dir.join("state.lock");
    mkfifo(&lock);
    assert_refused(&dir, &state, &lock, "a FIFO");
    assert!(!state.exists());
    // So does a link to any of them.
    let link = dir.join("link");
    std::os::unix::fs::symlink("fifo", &link).unwrap();
    assert_refused(&dir, &link, &fifo, "a FIFO");
    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_device_node_is_refused() {
    if !test_support::require("a_device_node_is_refused", test_support::root()) {
        return;
    }
    let dir = scratch("dev");
    let dev = dir.join("null");
    mknod_null(&dev);
    assert_refused(&dir, &dev, &dev, "a character device");
    assert!(
        fs::symlink_metadata(&dev)
            .unwrap()
            .file_type()
            .is_char_device()
    );
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_symlink_is_followed_and_the_target_replaced_next_to_it() {
    let dir = scratch("link");
    let shared = dir.join("target-dir");
    fs::create_dir(&shared).unwrap();
    let target = shared.join("state");
    let link = dir.join("state");
    std::os::unix::fs::symlink("target-dir/state", &link).unwrap();
    let clock = ManualClock::new(T0);
    for path in [&link, &link, &target] {
        let store = FileStore::new(path);
        store.check().unwrap();
        let r = Reserver::new(store, BlockPolicy::default());
        let mut g = V7Generator::builder()
            .store(r.lease_v7())
            .build(&clock, ThreadRng)
            .unwrap();
        g.generate().unwrap();
        assert!(g.store().status().unwrap().is_persisted());
        clock.advance(1_000_000);
    }
    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink(),
        "still a link"
    );
    assert_eq!(
        listing(&dir),
        [link.clone(), shared.clone()],
        "no lock or temporary file by the link"
    );
    assert_eq!(
        listing(&shared),
        [target.clone(), shared.join("state.lock")]
    );
    // Through the link and directly, one file: the three runs continued each other.
    let rec = FileStore::new(&link).load().unwrap();
    assert_eq!(rec, FileStore::new(&target).load().unwrap());
    assert!(rec.v7.unwrap().hwm_ms >= T0 / 1_000_000 + 2);
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_missing_directory_is_not_created_for_an_explicit_path() {
    let dir = scratch("nodir");
    let path = dir.join("no/such/dir/state");
    let store = FileStore::new(&path);
    let err = store.check().unwrap_err();
    assert_eq!(err.kind(), StateErrorKind::NoDirectory);
    assert_eq!(
        err.to_string(),
        format!(
            "no state directory, using in-process state: expected the directory {} to exist, found nothing there",
            dir.join("no/such/dir").display()
        )
    );
    let r = Reserver::new(store, BlockPolicy::default());
    let (_, status) = r.reserve_v7(1_000);
    assert_eq!(
        status.write_error().map(|e| e.kind()),
        Some(StateErrorKind::NoDirectory)
    );
    assert!(listing(&dir).is_empty(), "nothing created");
    fs::remove_dir_all(&dir).unwrap();
}

/// `UUIDKIT_STATE` naming a FIFO, or (as root) a device node: the
/// process-wide generators refuse it too. Runs in a child of this binary, so
/// that the variable is set before anything reads it.
#[test]
fn uuidkit_state_naming_a_fifo_or_a_device_is_refused() {
    let name = "paths::uuidkit_state_naming_a_fifo_or_a_device_is_refused";
    if let Some(odd) = std::env::var_os("UUIDKIT_TEST_ODD_STATE") {
        let odd = PathBuf::from(odd);
        let print = fingerprint(&odd);
        let (u, status) = state::stored_v7().unwrap();
        let (v, _) = state::stored_v7().unwrap();
        assert!(u < v);
        assert_eq!(
            status.write_error().map(|e| e.kind()),
            Some(StateErrorKind::NotRegular),
            "{status}"
        );
        state::release();
        assert_eq!(fingerprint(&odd), print);
        return;
    }
    let dir = scratch("env");
    let fifo = dir.join("fifo");
    mkfifo(&fifo);
    let mut odd = vec![fifo];
    if test_support::require(&format!("{name} (device node)"), test_support::root()) {
        let dev = dir.join("null");
        mknod_null(&dev);
        odd.push(dev);
    }
    for path in odd {
        let before = listing(&dir);
        let status = Command::new(std::env::current_exe().unwrap())
            .args(["--exact", name, "--test-threads=1"])
            .env("UUIDKIT_STATE", &path)
            .env("UUIDKIT_TEST_ODD_STATE", &path)
            .status()
            .unwrap();
        assert!(status.success(), "the child for {} failed", path.display());
        assert_eq!(listing(&dir), before);
    }
    fs::remove_dir_all(&dir).unwrap();
}

/// Generates one v7 UUID through a store at `path`; returns the status.
fn one_v7(path: &Path) -> uuidkit_state::Status {
    let r = Reserver::new(FileStore::new(path), BlockPolicy::default());
    let clock = ManualClock::new(T0);
    let mut g = V7Generator::builder()
        .store(r.lease_v7())
        .build(&clock, ThreadRng)
        .unwrap();
    g.generate().unwrap();
    g.store().status().unwrap().clone()
}

#[test]
fn the_temporary_file_is_made_only_where_nothing_is() {
    let dir = scratch("tmp");
    let state = dir.join("state");
    let tmp = dir.join("state.tmp");
    // A FIFO there: refused at once (opening it would wait for a reader).
    mkfifo(&tmp);
    let status = one_v7(&state);
    let err = status.write_error().unwrap();
    assert_eq!(err.kind(), StateErrorKind::NotRegular, "{err}");
    assert!(
        err.to_string().contains("found a FIFO; left untouched"),
        "{err}"
    );
    assert!(fs::symlink_metadata(&tmp).unwrap().file_type().is_fifo());
    fs::remove_file(&tmp).unwrap();
    // A link there: refused, and what it points to keeps its bytes.
    let victim = dir.join("victim");
    fs::write(&victim, b"precious\n").unwrap();
    std::os::unix::fs::symlink("victim", &tmp).unwrap();
    let err = one_v7(&state).write_error().cloned().unwrap();
    assert!(err.to_string().contains("found a symbolic link"), "{err}");
    assert_eq!(fs::read(&victim).unwrap(), b"precious\n");
    fs::remove_file(&tmp).unwrap();
    // A regular file left by a writer that died: replaced, and the state written.
    fs::write(&tmp, b"half a state fi").unwrap();
    assert!(one_v7(&state).is_persisted());
    assert!(!tmp.exists());
    assert!(FileStore::new(&state).load().is_ok());
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_replaced_file_keeps_its_mode_and_its_owner() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch("mode");
    let state = dir.join("state");
    assert!(one_v7(&state).is_persisted());
    for mode in [0o600, 0o640, 0o664] {
        fs::set_permissions(&state, fs::Permissions::from_mode(mode)).unwrap();
        assert!(one_v7(&state).is_persisted());
        let m = fs::metadata(&state).unwrap();
        assert_eq!(m.mode() & 0o7777, mode, "{mode:o}");
    }
    if test_support::root().is_ok() {
        // Root replacing another user's file gives it back to that user.
        std::os::unix::fs::chown(&state, Some(65534), Some(65534)).unwrap();
        assert!(one_v7(&state).is_persisted());
        let m = fs::metadata(&state).unwrap();
        assert_eq!((m.uid(), m.gid()), (65534, 65534));
    }
    fs::remove_dir_all(&dir).unwrap();
}

/// A state file this process may not write is left alone: the process keeps
/// its state in memory, though the directory would let it replace the file.
#[test]
fn a_file_the_process_may_not_write_is_not_replaced() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch("readonly");
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o777)).unwrap();
    let state = dir.join("state");
    assert!(one_v7(&state).is_persisted());
    let before = fs::read(&state).unwrap();
    fs::set_permissions(&state, fs::Permissions::from_mode(0o444)).unwrap();
    if test_support::root().is_ok() {
        // Root may write any file: the case is another user's, so the check
        // runs in a child process as `nobody`.
        use std::os::unix::process::CommandExt;
        let out = Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "paths::read_only_child",
                "--include-ignored",
                "--nocapture",
            ])
            .env("UUIDKIT_TEST_READ_ONLY_STATE", &state)
            .uid(65534)
            .gid(65534)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{text}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(text.contains("1 passed"), "{text}");
    } else {
        check_read_only(&state);
    }
    assert_eq!(fs::read(&state).unwrap(), before, "left as it was");
    assert_eq!(fs::metadata(&state).unwrap().mode() & 0o7777, 0o444);
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
#[ignore = "run by a_file_the_process_may_not_write_is_not_replaced as another user"]
fn read_only_child() {
    check_read_only(Path::new(
        &std::env::var_os("UUIDKIT_TEST_READ_ONLY_STATE").unwrap(),
    ));
}

fn check_read_only(state: &Path) {
    let status = one_v7(state);
    let err = status.write_error().expect("not persisted");
    assert_eq!(err.kind(), StateErrorKind::Unwritable, "{err}");
    assert!(err.to_string().contains("cannot write"), "{err}");
}
