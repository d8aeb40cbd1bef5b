//! `--state FILE`: v7 output stays sorted and unique across concurrent processes.

use std::collections::HashSet;
use std::process::{Command, Stdio};

use crate::util::*;

fn spawn(args: &[&str]) -> std::process::Child {
    Command::new(bin())
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

#[test]
fn two_concurrent_v7_runs_sharing_state_are_sorted_and_disjoint() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state");
    let p = path.to_str().unwrap();
    let n = 200_000;
    let ns = n.to_string();
    let a = spawn(&["new", "v7", "-n", &ns, "--state", p]);
    let b = spawn(&["new", "v7", "-n", &ns, "--state", p]);
    let (a, b) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
    let mut all = HashSet::new();
    for out in [&a, &b] {
        assert!(
            out.status.success(),
            "{:?}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = std::str::from_utf8(&out.stdout).unwrap();
        let ls: Vec<&str> = text.lines().collect();
        assert_eq!(ls.len(), n);
        assert!(
            ls.windows(2).all(|w| w[0] < w[1]),
            "one run's output is not strictly increasing"
        );
        for l in ls {
            assert_eq!(version_variant(l), (7, 0b10));
            assert!(all.insert(l.to_string()), "duplicate across runs: {l}");
        }
    }
    assert_eq!(all.len(), 2 * n);
    let file = std::fs::read_to_string(&path).unwrap();
    assert!(file.starts_with("uuidkit-state 1\n"), "{file}");
    assert!(file.contains("v7.hwm_ms "), "{file}");
}

#[test]
fn later_run_continues_above_earlier_one() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("state");
    let p = p.to_str().unwrap();
    let first = ok(&["new", "v7", "-n", "1000", "--state", p]);
    let second = ok(&["new", "v7", "-n", "1000", "--state", p]);
    assert!(lines(&first).last().unwrap() < &lines(&second)[0]);
}

/// (60-bit timestamp, clock sequence) of a v1 or v6 UUID.
fn time_and_clock_seq(s: &str) -> (u128, u128) {
    let b = bits(s);
    let ts = if (b >> 76) & 0xf == 1 {
        (((b >> 64) & 0xfff) << 48) | (((b >> 80) & 0xffff) << 32) | (b >> 96)
    } else {
        ((b >> 80) << 12) | ((b >> 64) & 0xfff)
    };
    (ts, (b >> 48) & 0x3fff)
}

#[test]
fn v1_and_v6_with_state() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("state");
    let p = p.to_str().unwrap();
    for kind in ["v1", "v6"] {
        // Two runs of the same version never reuse a (timestamp, clock sequence) pair.
        let mut seen = HashSet::new();
        for _ in 0..2 {
            let out = ok(&[
                "new",
                kind,
                "-n",
                "1000",
                "--state",
                p,
                "--node",
                "02:00:00:00:00:01",
            ]);
            for l in lines(&out) {
                assert!(l.ends_with("-020000000001"), "{l}");
                let want = if kind == "v1" { 1 } else { 6 };
                assert_eq!(version_variant(l), (want, 0b10));
                assert!(
                    seen.insert(time_and_clock_seq(l)),
                    "{kind}: repeated time and clock_seq in {l}"
                );
            }
        }
        assert_eq!(seen.len(), 2000);
    }
    let file = std::fs::read_to_string(dir.path().join("state")).unwrap();
    assert!(file.contains("v1.hwm "), "{file}");
}

#[test]
fn unusable_state_path_warns_and_still_generates() {
    // The parent of the state path is a regular file: nobody (not even root) can create it.
    let dir = tempfile::tempdir().unwrap();
    let blocker = dir.path().join("file");
    std::fs::write(&blocker, "x").unwrap();
    let p = blocker.join("state");
    let out = uk(&["new", "v7", "-n", "10", "--state", p.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), 10);
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.starts_with("uuidkit: warning: state file "), "{err}");
    assert_contains!(err, "in-process state");
}

/// Runs `uuidkit ARGS…` and waits at most `limit` for it: a run that spins is
/// killed and fails the test instead of hanging the suite.
fn run_within(args: &[&str], limit: std::time::Duration) -> std::process::Output {
    use std::io::Read;
    let mut child = spawn(args);
    // Drain both pipes while waiting, so a long output cannot block the child.
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            r.read_to_end(&mut buf).unwrap();
            buf
        })
    };
    let stdout = drain(Box::new(child.stdout.take().unwrap()));
    let stderr = drain(Box::new(child.stderr.take().unwrap()));
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > limit {
            child.kill().unwrap();
            let _ = child.wait();
            panic!("uuidkit {args:?} still running after {limit:?}");
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    };
    std::process::Output {
        status,
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
    }
}

/// Unix milliseconds now.
fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

#[test]
fn v7_mark_ahead_of_the_clock_continues_above_it_with_one_warning() {
    use uuidkit_state::format::{StateRecord, V7Mark};
    for ahead in [60_000u64, 3_600_000] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state");
        let mark = now_ms() + ahead;
        let rec = StateRecord {
            v7: Some(V7Mark { hwm_ms: mark }),
            ..StateRecord::default()
        };
        std::fs::write(&path, rec.emit()).unwrap();
        let p = path.to_str().unwrap();
        let limit = std::time::Duration::from_secs(20);
        let out = run_within(&["new", "v7", "-n", "5000", "--state", p], limit);
        assert!(out.status.success(), "{out:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        let ls = lines(&text);
        assert_eq!(ls.len(), 5000);
        assert!(ls.windows(2).all(|w| w[0] < w[1]));
        let first_ms = (bits(ls[0]) >> 80) as u64;
        assert_eq!(first_ms, mark, "the first UUID is at the mark");
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "one warning: {err}");
        assert_contains!(err, "the clock is behind the stored v7 mark ");
        let by: f64 = err
            .split("mark by ")
            .nth(1)
            .and_then(|r| r.split(" s;").next())
            .unwrap()
            .parse()
            .unwrap();
        let ahead_s = ahead as f64 / 1000.0;
        assert!(by <= ahead_s && by > ahead_s - 10.0, "{err}");
        let stored = uuidkit_state::FileStore::new(&path).load().unwrap();
        let last_ms = (bits(ls[4999]) >> 80) as u64;
        assert_eq!(
            stored.v7.unwrap().hwm_ms,
            last_ms + 1,
            "the mark moved only past what was used"
        );
        // A second run continues above the first, as quickly.
        let again = run_within(&["new", "v7", "--state", p], limit);
        assert!(again.status.success());
        assert!(String::from_utf8(again.stdout).unwrap().trim() > ls[4999]);
    }
}

/// `uuidkit new v7 --state PATH` with something odd at PATH: exit 1, a
/// message naming the path and what is there, nothing written anywhere, and
/// the thing itself unchanged (type, device number, modification time).
fn assert_state_refused(dir: &std::path::Path, path: &std::path::Path, what: &str) {
    use std::os::unix::fs::MetadataExt;
    let print = |p: &std::path::Path| {
        let m = std::fs::symlink_metadata(p).unwrap();
        (m.file_type(), m.rdev(), m.mtime(), m.mtime_nsec())
    };
    let listing = || {
        let mut v: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        v.sort();
        v
    };
    let (before, files) = (print(path), listing());
    for kind in ["v1", "v6", "v7"] {
        let err = fails(&["new", kind, "--state", path.to_str().unwrap()], 1);
        assert_eq!(
            err,
            format!(
                "uuidkit: error: --state {p}: expected a regular file or nothing at {p}, \
                 found {what}; left untouched\n",
                p = path.display()
            )
        );
    }
    assert_eq!(print(path), before, "{} was touched", path.display());
    assert_eq!(
        listing(),
        files,
        "files appeared next to {}",
        path.display()
    );
}

#[test]
fn state_path_that_is_not_a_regular_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let fifo = d.join("fifo");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    assert_state_refused(d, &fifo, "a FIFO");
    let sock = d.join("sock");
    let _listener = std::os::unix::net::UnixListener::bind(&sock).unwrap();
    assert_state_refused(d, &sock, "a socket");
    let sub = d.join("sub");
    std::fs::create_dir(&sub).unwrap();
    assert_state_refused(d, &sub, "a directory");
    // A link to one of them: the message names both.
    let link = d.join("link");
    std::os::unix::fs::symlink(&fifo, &link).unwrap();
    let err = fails(&["new", "v7", "--state", link.to_str().unwrap()], 1);
    assert_contains!(err, format!("{} (-> {})", link.display(), fifo.display()));
    assert_contains!(err, "found a FIFO; left untouched");
}

#[test]
fn state_path_that_is_a_device_node_is_refused() {
    let prerequisite = test_support::all([
        test_support::root(),
        test_support::command("mknod", &["--version"]),
    ]);
    if !test_support::require("state_path_that_is_a_device_node_is_refused", prerequisite) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let dev = dir.path().join("null");
    let made = Command::new("mknod")
        .arg(&dev)
        .args(["c", "1", "3"])
        .status()
        .unwrap();
    assert!(made.success());
    assert_state_refused(dir.path(), &dev, "a character device");
}

#[test]
fn state_symlink_is_followed_and_keeps_being_shared() {
    let dir = tempfile::tempdir().unwrap();
    let shared = dir.path().join("shared");
    std::fs::create_dir(&shared).unwrap();
    let target = shared.join("state");
    let link = dir.path().join("state");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let a = ok(&["new", "v7", "-n", "100", "--state", link.to_str().unwrap()]);
    let b = ok(&[
        "new",
        "v7",
        "-n",
        "100",
        "--state",
        target.to_str().unwrap(),
    ]);
    let c = ok(&["new", "v7", "-n", "100", "--state", link.to_str().unwrap()]);
    assert!(lines(&a)[99] < lines(&b)[0] && lines(&b)[99] < lines(&c)[0]);
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    let stored = uuidkit_state::FileStore::new(&target).load().unwrap();
    assert_eq!(
        stored.v7.unwrap().hwm_ms,
        (bits(lines(&c)[99]) >> 80) as u64 + 1
    );
    let mut by_link: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    by_link.sort();
    assert_eq!(
        by_link,
        ["shared", "state"],
        "lock and temporary files sit by the target"
    );
}

#[test]
fn state_in_a_missing_directory_is_an_error_not_created() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("typo/state");
    let err = fails(&["new", "v1", "--state", path.to_str().unwrap()], 1);
    assert_eq!(
        err,
        format!(
            "uuidkit: error: --state {}: expected the directory {} to exist, found nothing there\n",
            path.display(),
            dir.path().join("typo").display()
        )
    );
    assert!(!dir.path().join("typo").exists());
}

/// Another process holds the state file's lock: every kind waits for it once
/// (the library's 2 s), warns once, and generates the rest in process.
#[test]
fn held_lock_costs_one_wait_and_one_warning_per_run() {
    let name = "held_lock_costs_one_wait_and_one_warning_per_run";
    if !test_support::require(name, test_support::command("flock", &["--version"])) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state");
    let lock = dir.path().join("state.lock");
    std::fs::write(&lock, "").unwrap();
    let ready = dir.path().join("ready");
    // `flock` takes the lock, then the shell says so and sleeps.
    let mut holder = Command::new("flock")
        .arg(&lock)
        .args(["sh", "-c", "touch \"$0\"; exec sleep 60"])
        .arg(&ready)
        .spawn()
        .unwrap();
    while !ready.exists() {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let p = path.to_str().unwrap();
    for kind in ["v1", "v6", "v7"] {
        let start = std::time::Instant::now();
        // A bound no run with one wait comes near, and that one wait per
        // block or per UUID would pass many times over.
        let out = run_within(
            &["new", kind, "-n", "2000", "--state", p],
            std::time::Duration::from_secs(60),
        );
        let took = start.elapsed();
        assert!(out.status.success(), "{out:?}");
        assert_eq!(String::from_utf8(out.stdout).unwrap().lines().count(), 2000);
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "{kind}: one warning: {err}");
        assert_contains!(err, "state file not lockable, using in-process state");
        assert!(
            took < std::time::Duration::from_secs(8),
            "{kind}: took {took:?}"
        );
    }
    holder.kill().unwrap();
    holder.wait().unwrap();
}

#[test]
fn clock_seq_with_state_is_honoured_or_refused_never_dropped() {
    for kind in ["v1", "v6"] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state");
        let p = path.to_str().unwrap();
        let run = |cs: &str, node: &[&str]| {
            let mut args = vec!["new", kind, "-n", "3", "--state", p, "--clock-seq", cs];
            args.extend_from_slice(node);
            args.iter().map(|s| s.to_string()).collect::<Vec<_>>()
        };
        let args = |v: &[String]| v.iter().map(String::as_str).collect::<Vec<_>>().join(" ");
        let cs_of = |out: &str| {
            lines(out)
                .iter()
                .map(|l| time_and_clock_seq(l).1)
                .collect::<Vec<_>>()
        };
        // Fresh state: honoured, and stored.
        let a = run("0x1234", &[]);
        let out = ok(&a.iter().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(cs_of(&out), [0x1234; 3], "{}", args(&a));
        // Equal to the stored one: honoured.
        let out = ok(&a.iter().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(cs_of(&out), [0x1234; 3]);
        // Another one for the same node: a usage error that says why.
        let before = std::fs::read(&path).unwrap();
        let b = run("5", &[]);
        let err = fails(&b.iter().map(String::as_str).collect::<Vec<_>>(), 2);
        assert_eq!(
            err,
            format!(
                "uuidkit: error: --clock-seq 0x0005 conflicts with --state {p}: it holds {kind} \
                 clock sequence 0x1234 for this node, which changes only when the clock goes back; \
                 omit --clock-seq, or give --node another MAC or --state another file\n"
            )
        );
        assert_eq!(std::fs::read(&path).unwrap(), before, "state untouched");
        // Another node takes a fresh clock sequence: the given one.
        let c = run("5", &["--node", "02:00:00:00:00:09"]);
        let out = ok(&c.iter().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(cs_of(&out), [5; 3]);
        // A third node makes that one an earlier node the file still keeps a
        // sequence for: a conflicting clock sequence for it is still refused,
        // and its own is still honoured.
        let d = run("7", &["--node", "02:00:00:00:00:0a"]);
        let out = ok(&d.iter().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(cs_of(&out), [7; 3]);
        let before = std::fs::read(&path).unwrap();
        let e = run("6", &["--node", "02:00:00:00:00:09"]);
        let err = fails(&e.iter().map(String::as_str).collect::<Vec<_>>(), 2);
        assert!(
            err.contains("it holds") && err.contains("clock sequence 0x0005"),
            "{err}"
        );
        assert_eq!(std::fs::read(&path).unwrap(), before, "state untouched");
        let out = ok(&c.iter().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(cs_of(&out), [5; 3]);
    }
}

/// v1 with its stored mark an hour ahead: at once, a new clock sequence
/// (RFC 9562 §6.3), the clock's time, and one warning saying by how much.
#[test]
fn v1_mark_ahead_of_the_clock_takes_a_new_clock_sequence_with_one_warning() {
    use uuidkit_state::format::{GregorianMark, StateRecord};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state");
    let now_ts60 = now_ms() * 10_000 + uuidkit::layout::GREGORIAN_TO_UNIX_100NS;
    let mark = GregorianMark {
        hwm: now_ts60 + 36_000_000_000, // one hour
        clock_seq: 0x1234,
        node: [0x9f, 0x6b, 0xde, 0xce, 0xd8, 0x46],
    };
    let rec = StateRecord {
        v1: Some(mark),
        ..StateRecord::default()
    };
    std::fs::write(&path, rec.emit()).unwrap();
    let limit = std::time::Duration::from_secs(20);
    let out = run_within(
        &["new", "v1", "-n", "3", "--state", path.to_str().unwrap()],
        limit,
    );
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    for l in lines(&text) {
        let (ts, cs) = time_and_clock_seq(l);
        assert_eq!(cs, 0x1235, "{l}");
        assert!((ts as u64) < mark.hwm, "at the clock, not the mark: {l}");
    }
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    let by: f64 = err
        .split("the clock is behind the stored v1 mark by ")
        .nth(1)
        .and_then(|r| r.strip_suffix(" s; new clock sequence\n"))
        .unwrap_or_else(|| panic!("{err}"))
        .parse()
        .unwrap();
    // An hour, give or take the coarse clock's resolution and the run's start.
    assert!((3_590.0..3_601.0).contains(&by), "{err}");
}

/// Holds `state`'s lock as another process would (`flock`).
fn hold_lock(state: &std::path::Path) -> std::fs::File {
    use std::os::unix::io::AsRawFd;
    let mut lock = state.as_os_str().to_owned();
    lock.push(".lock");
    let f = std::fs::File::create(std::path::PathBuf::from(lock)).unwrap();
    // SAFETY: flock on a descriptor we own.
    assert_eq!(unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX) }, 0);
    f
}

#[test]
fn strict_state_fails_when_the_lock_stays_busy_and_plain_state_falls_back() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state");
    let p = path.to_str().unwrap();
    let _held = hold_lock(&path);
    let err = fails(
        &[
            "new",
            "v1",
            "--state",
            p,
            "--strict",
            "--lock-timeout",
            "50",
        ],
        1,
    );
    assert!(
        err.contains("state unavailable (strict)") && err.contains("50 ms lock timeout"),
        "{err}"
    );
    // The cause is named once, and nothing falls back under --strict.
    assert_eq!(err.matches("not lockable").count(), 1, "{err}");
    assert!(!err.contains("using in-process state"), "{err}");
    let out = uk(&["new", "v1", "-n", "3", "--state", p, "--lock-timeout", "50"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(lines(std::str::from_utf8(&out.stdout).unwrap()).len(), 3);
    let warn = String::from_utf8_lossy(&out.stderr);
    assert!(
        warn.contains("not lockable, using in-process state"),
        "{warn}"
    );
}

#[test]
fn lock_timeout_and_strict_are_bounded_and_need_state() {
    let err = fails(&["new", "v7", "--state", "s", "--lock-timeout", "60001"], 2);
    assert!(err.contains("60001 is not in 0..=60000"), "{err}");
    let err = fails(&["new", "v7", "--strict"], 2);
    assert!(err.contains("--state"), "{err}");
}

#[test]
fn a_file_that_is_not_a_state_file_is_refused_and_kept() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ids.txt");
    let p = path.to_str().unwrap();
    let ids = ok(&["new", "v4", "-n", "3"]);
    std::fs::write(&path, &ids).unwrap();
    for args in [
        &["new", "v7", "--state", p][..],
        &["new", "v1", "--state", p, "--strict"],
    ] {
        let err = fails(args, 1);
        assert!(
            err.starts_with(&format!(
                "uuidkit: error: --state {p}: expected `uuidkit-state 1` at the start of {p}, found `{}`",
                lines(&ids)[0]
            )) && err.ends_with("; left untouched\n"),
            "{err}"
        );
    }
    assert_eq!(std::fs::read_to_string(&path).unwrap(), ids);
}

#[test]
fn strict_keeps_a_damaged_state_file_and_plain_state_repairs_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state");
    let p = path.to_str().unwrap();
    ok(&["new", "v7", "--state", p]);
    let good = std::fs::read(&path).unwrap();
    let cut = &good[..good.len() - 5];
    std::fs::write(&path, cut).unwrap();
    let err = fails(&["new", "v7", "--state", p, "--strict"], 1);
    assert!(
        err.contains("found damaged state file: ") && err.contains("left as it is"),
        "{err}"
    );
    assert_eq!(std::fs::read(&path).unwrap(), cut, "kept byte for byte");
    let out = uk(&["new", "v7", "--state", p]).output().unwrap();
    assert!(out.status.success());
    let warn = String::from_utf8_lossy(&out.stderr);
    assert!(warn.contains("truncated state file"), "{warn}");
    assert!(
        std::fs::read_to_string(&path)
            .unwrap()
            .starts_with("uuidkit-state 1\n")
    );
    ok(&["new", "v7", "--state", p, "--strict"]);
}

/// An emptied state file under `--strict` (its clock 30 s back, as after a
/// restore): refused and kept, since its marks are unknown and v6/v7 would
/// otherwise go below everything issued before, exit 0; `--new-state` takes
/// it as first use; without `--strict` it is first use with a warning.
#[test]
fn strict_refuses_an_empty_state_file_unless_it_is_said_to_be_new() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state");
    let p = path.to_str().unwrap();
    for kind in ["v1", "v6", "v7"] {
        ok(&["new", kind, "--state", p, "--strict"]);
        std::fs::write(&path, b"").unwrap();
        let err = fails(&["new", kind, "--state", p, "--strict"], 1);
        assert!(
            err.contains("is empty") && err.contains("left as it is"),
            "{kind}: {err}"
        );
        assert_eq!(std::fs::read(&path).unwrap(), b"", "{kind}: kept");
        let out = uk(&["new", kind, "--state", p, "--strict", "--new-state"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{kind}: --new-state");
        assert!(
            std::fs::read_to_string(&path)
                .unwrap()
                .starts_with("uuidkit-state 1\n")
        );
        std::fs::write(&path, b"").unwrap();
        let out = uk(&["new", kind, "--state", p]).output().unwrap();
        assert!(out.status.success(), "{kind}: not strict");
        let warn = String::from_utf8_lossy(&out.stderr);
        assert!(warn.contains("empty state file"), "{kind}: {warn}");
    }
    let err = fails(&["new", "v7", "--new-state"], 2);
    assert!(err.contains("--state"), "{err}");
}

/// `--node random` draws a fresh node, multicast bit set, even when the state
/// file holds one; the stored node stays the default without `--node`.
#[test]
fn node_random_replaces_the_stored_node() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("state");
    let p = p.to_str().unwrap();
    let node = |s: &str| bits(s.trim_end()) & 0xffff_ffff_ffff;
    for kind in ["v1", "v6"] {
        let stored = node(&ok(&[
            "new",
            kind,
            "--state",
            p,
            "--node",
            "00:11:22:33:44:55",
        ]));
        assert_eq!(stored, 0x0011_2233_4455);
        let a = node(&ok(&["new", kind, "--state", p, "--node", "random"]));
        let b = node(&ok(&["new", kind, "--state", p, "--node", "random"]));
        for n in [a, b] {
            assert_ne!(n, stored, "{kind}: --node random gave the stored node");
            assert_eq!((n >> 40) & 0x01, 0x01, "{kind}: multicast bit of {n:012x}");
        }
        assert_ne!(a, b, "{kind}: two random nodes");
    }
}
