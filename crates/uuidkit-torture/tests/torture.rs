//! The uniqueness torture suite (`docs/generator-design.md` G5): every
//! generator under threads, pre-fork workers, processes sharing one state
//! file while the lock is held from outside or its holder is stopped or
//! killed mid-reservation, and clocks stepped back and forward. Every UUID
//! is collected and checked: 0 duplicates, and order where it is promised.
//! The negative control turns fork detection off and must find duplicates.
//! A table and a `N passed, N failed` line close the run.

use std::fs::{File, OpenOptions};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use uuidkit::clock::{CoarseClock, ManualClock, SystemClock};
use uuidkit::rng::ThreadRng;
use uuidkit::{
    Generator, Uuid, V1Generator, V6Generator, V7Generator, V8Distributed, V8TimeGenerator,
};
use uuidkit_state::{self as state, StateConfig};
use uuidkit_torture::procs::{self, FAKETIME, Worker};
use uuidkit_torture::{Row, Tally, fork_and_collect};

const NODE: [u8; 6] = [0x9F, 0x6B, 0xDE, 0xCE, 0xD8, 0x46];

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("--worker") {
        procs::run(&args[2..]);
        return ExitCode::SUCCESS;
    }
    if args.iter().any(|a| a == "--list") {
        println!("torture: test");
        return ExitCode::SUCCESS;
    }
    let dir = std::env::temp_dir().join(format!("uuidkit-torture-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let mut t = Tally::default();
    threads(&mut t, &dir);
    clock_steps(&mut t);
    pre_fork(&mut t, &dir);
    shared_file(&mut t, &dir);
    held_lock(&mut t, &dir);
    stopped_and_killed(&mut t, &dir);
    cli(&mut t, &dir);
    // Last: it turns a protection off for the rest of this process.
    negative_control(&mut t);
    let _ = std::fs::remove_dir_all(&dir);
    println!("\n{}", t.table());
    if t.all_passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// `per` UUIDs from `make` in each of `n` threads; one stream per thread.
fn in_threads(n: usize, per: usize, make: impl Fn() -> Uuid + Sync) -> Vec<Vec<Uuid>> {
    std::thread::scope(|s| {
        let hs: Vec<_> = (0..n)
            .map(|_| s.spawn(|| (0..per).map(|_| make()).collect::<Vec<Uuid>>()))
            .collect();
        hs.into_iter().map(|h| h.join().expect("thread")).collect()
    })
}

fn shared<G: Generator + Send>(g: G) -> impl Fn() -> Uuid + Sync {
    let g = Mutex::new(g);
    move || g.lock().expect("lock").generate().expect("generate")
}

fn threads(t: &mut Tally, dir: &Path) {
    let sc = "4 threads";
    t.add(
        sc,
        "Uuid::now_v7",
        in_threads(4, 200_000, Uuid::now_v7),
        true,
    );
    t.add(
        sc,
        "Uuid::new_v4",
        in_threads(4, 200_000, Uuid::new_v4),
        false,
    );
    let v7 = V7Generator::new(SystemClock, ThreadRng);
    t.add(
        sc,
        "V7Generator (shared)",
        in_threads(4, 50_000, shared(v7)),
        true,
    );
    let v6 = V6Generator::builder()
        .retain()
        .build(CoarseClock::new(), ThreadRng)
        .expect("v6");
    t.add(
        sc,
        "V6Generator (shared)",
        in_threads(4, 50_000, shared(v6)),
        true,
    );
    t.add(
        sc,
        "V1Generator (shared)",
        in_threads(4, 50_000, shared(V1Generator::system())),
        false,
    );
    state::configure(StateConfig::new(dir.join("threads-state")));
    let stored = |f: fn() -> Result<(Uuid, state::Status), uuidkit::GenError>| {
        move || f().expect("stored").0
    };
    t.add(
        sc,
        "state::stored_v7",
        in_threads(4, 20_000, stored(state::stored_v7)),
        true,
    );
    t.add(
        sc,
        "state::stored_v6",
        in_threads(4, 20_000, stored(state::stored_v6)),
        true,
    );
    t.add(
        sc,
        "state::stored_v1",
        in_threads(4, 20_000, stored(state::stored_v1)),
        false,
    );
    state::release();
}

/// An injected clock wandering back and forth (within the 10 s tolerance)
/// while two threads share each generator.
fn clock_steps(t: &mut Tally) {
    const T: u64 = 1_700_000_000_000_000_000;
    let clock = Arc::new(ManualClock::new(T).with_resolution(1_000));
    let sc = "clock stepped ±8 s, 2 threads";
    let run = |make: &(dyn Fn() -> Uuid + Sync)| {
        std::thread::scope(|s| {
            let c = Arc::clone(&clock);
            let stepper = s.spawn(move || {
                let mut x = 0x9E37_79B9_7F4A_7C15u64;
                for _ in 0..2_000 {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    c.set(T + x % 8_000_000_000); // anywhere in [T, T + 8 s)
                    std::thread::sleep(Duration::from_micros(50));
                }
            });
            let out = in_threads(2, 30_000, make);
            stepper.join().expect("stepper");
            out
        })
    };
    let c = || Arc::clone(&clock);
    t.add(
        sc,
        "V7Generator",
        run(&shared(V7Generator::new(c(), ThreadRng))),
        true,
    );
    let v6 = V6Generator::builder()
        .retain()
        .build(c(), ThreadRng)
        .expect("v6");
    t.add(sc, "V6Generator", run(&shared(v6)), true);
    t.add(
        sc,
        "V8TimeGenerator",
        run(&shared(V8TimeGenerator::new(c(), ThreadRng))),
        true,
    );
    let dist = V8Distributed::builder()
        .node(0x2A, 8)
        .build(c(), ThreadRng)
        .expect("v8");
    t.add(sc, "V8Distributed", run(&shared(dist)), true);
}

/// Generators used once, then 4 forked workers and the parent generate.
fn pre_fork(t: &mut Tally, dir: &Path) {
    let sc = "pre-fork: 4 workers";
    let mut fork = |name: &str, ordered: bool, g: &mut dyn FnMut() -> Uuid| {
        let first = g();
        let mut sets = fork_and_collect(4, |_| (0..20_000).map(|_| g()).collect());
        if ordered {
            // Order across the fork: each stream starts above the first UUID.
            t.add_after(sc, name, first, sets);
        } else {
            sets.push(vec![first]);
            t.add(sc, name, sets, false);
        }
    };
    fork("Uuid::now_v7", true, &mut Uuid::now_v7);
    fork("Uuid::new_v4", false, &mut Uuid::new_v4);
    let mut v1 = V1Generator::system();
    fork("V1Generator (random node)", false, &mut || {
        v1.generate().expect("v1")
    });
    let mut v1n = V1Generator::builder()
        .node(NODE)
        .build(CoarseClock::new(), ThreadRng)
        .expect("v1");
    fork("V1Generator (node given)", false, &mut || {
        v1n.generate().expect("v1")
    });
    let frozen = ManualClock::new(1_700_000_000_000_000_000).with_resolution(1_000_000_000);
    let mut v1f = V1Generator::builder()
        .node(NODE)
        .build(frozen, ThreadRng)
        .expect("v1");
    fork("V1Generator (node given, frozen clock)", false, &mut || {
        v1f.generate().expect("v1")
    });
    let mut v6 = V6Generator::builder()
        .node(NODE)
        .build(CoarseClock::new(), ThreadRng)
        .expect("v6");
    fork("V6Generator (node given)", true, &mut || {
        v6.generate().expect("v6")
    });
    let mut v7 = V7Generator::new(SystemClock, ThreadRng);
    fork("V7Generator", true, &mut || v7.generate().expect("v7"));
    state::configure(StateConfig::new(dir.join("fork-state")));
    fork("state::stored_v7", true, &mut || {
        state::stored_v7().expect("v7").0
    });
    fork("state::stored_v1", false, &mut || {
        state::stored_v1().expect("v1").0
    });
    state::release();
}

fn exe() -> PathBuf {
    std::env::current_exe().expect("this binary")
}

fn worker(kind: &'static str, state: &Path, out: PathBuf, count: usize) -> Worker {
    Worker {
        kind,
        state: state.to_path_buf(),
        out,
        count,
        lock_timeout_ms: 2_000,
        stop_at: None,
        block_ms: 100,
    }
}

/// `n` workers of `kind` at full speed on one file: 0 fallbacks expected.
fn shared_file(t: &mut Tally, dir: &Path) {
    for kind in ["v1", "v6", "v7"] {
        let state = dir.join(format!("shared-{kind}"));
        let ws: Vec<Worker> = (0..8)
            .map(|i| worker(kind, &state, dir.join(format!("shared-{kind}-{i}")), 50_000))
            .collect();
        let children: Vec<_> = ws.iter().map(|w| w.spawn(&exe())).collect();
        let fallbacks: usize = children.into_iter().map(procs::finish).sum();
        let sc = format!("8 processes, one file ({fallbacks} fallbacks)");
        let streams = ws.iter().map(|w| procs::read(&w.out)).collect();
        t.add(&sc, &format!("{kind} lease"), streams, kind != "v1");
        if fallbacks != 0 {
            t.push(failure(&sc, kind, "fallbacks with nobody holding the lock"));
        }
    }
}

fn failure(scenario: &str, generator: &str, why: &str) -> Row {
    Row {
        scenario: format!("{scenario}: {why}"),
        generator: generator.into(),
        uuids: 0,
        duplicates: 1,
        order_violations: None,
        control: false,
    }
}

fn flock(path: &Path) -> File {
    let mut lock = path.as_os_str().to_owned();
    lock.push(".lock");
    let f = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(PathBuf::from(lock))
        .expect("lock file");
    // SAFETY: flock on a descriptor we own.
    assert_eq!(unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX) }, 0);
    f
}

/// An outside process holds the lock (an administrator's `flock`) while 4
/// workers with a 100 ms lock timeout generate: they fall back, and must
/// still never repeat each other.
fn held_lock(t: &mut Tally, dir: &Path) {
    for kind in ["v1", "v7"] {
        let state = dir.join(format!("held-{kind}"));
        let held = flock(&state);
        let ws: Vec<Worker> = (0..4)
            .map(|i| Worker {
                lock_timeout_ms: 100,
                ..worker(kind, &state, dir.join(format!("held-{kind}-{i}")), 30_000)
            })
            .collect();
        let children: Vec<_> = ws.iter().map(|w| w.spawn(&exe())).collect();
        std::thread::sleep(Duration::from_millis(500));
        drop(held);
        let fallbacks: usize = children.into_iter().map(procs::finish).sum();
        let sc = format!("4 processes, lock held outside ({fallbacks} fallbacks)");
        let streams = ws.iter().map(|w| procs::read(&w.out)).collect();
        t.add(&sc, &format!("{kind} lease"), streams, kind == "v7");
    }
}

/// A worker stops itself (SIGSTOP) inside a reservation, holding the lock;
/// others fall back around it; then it is continued (v1) or killed with
/// SIGKILL (v7) and the file is used on.
fn stopped_and_killed(t: &mut Tally, dir: &Path) {
    for (kind, kill) in [("v1", false), ("v7", true)] {
        let state = dir.join(format!("stop-{kind}"));
        // 1 ms blocks: the third reservation comes within milliseconds.
        let stopper = Worker {
            stop_at: Some(3),
            block_ms: 1,
            ..worker(kind, &state, dir.join(format!("stop-{kind}-s")), 200_000)
        };
        let child = stopper.spawn(&exe());
        procs::wait_stopped(child.id());
        let mk = |i: usize, n: usize, ms: u64| Worker {
            lock_timeout_ms: ms,
            ..worker(kind, &state, dir.join(format!("stop-{kind}-{i}")), n)
        };
        let during: Vec<Worker> = (0..4).map(|i| mk(i, 20_000, 100)).collect();
        let cs: Vec<_> = during.iter().map(|w| w.spawn(&exe())).collect();
        let _ = cs.into_iter().map(procs::finish).sum::<usize>();
        let after = mk(9, 50_000, 2_000);
        if kill {
            procs::signal(child.id(), libc::SIGKILL);
            let _ = child.wait_with_output();
        } else {
            procs::signal(child.id(), libc::SIGCONT);
            procs::finish(child);
        }
        let fallbacks_after = procs::finish(after.spawn(&exe()));
        let what = if kill { "SIGKILL" } else { "SIGCONT" };
        let sc =
            format!("stopped in a reservation, then {what} ({fallbacks_after} fallbacks after)");
        let mut streams: Vec<Vec<Uuid>> = during.iter().map(|w| procs::read(&w.out)).collect();
        streams.push(procs::read(&stopper.out));
        streams.push(procs::read(&after.out));
        t.add(&sc, &format!("{kind} lease"), streams, kind == "v7");
    }
}

/// The CLI binary beside this test binary (`target/<profile>/uuidkit`).
fn cli_binary() -> Option<PathBuf> {
    let exe = exe();
    let bin = exe.parent()?.parent()?.join("uuidkit");
    bin.is_file().then_some(bin)
}

fn run_cli(bin: &Path, args: &[&str], faketime: Option<&str>) -> Vec<Uuid> {
    let mut cmd = Command::new(bin);
    cmd.args(args).stdout(Stdio::piped());
    if let Some(offset) = faketime {
        cmd.env("LD_PRELOAD", FAKETIME)
            .env("FAKETIME", offset)
            .env("FAKETIME_DONT_FAKE_MONOTONIC", "1");
    }
    let out = cmd.output().expect("run uuidkit");
    assert!(
        out.status.success(),
        "uuidkit {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| Uuid::parse(l).expect("a UUID line"))
        .collect()
}

/// The CLI without state (4 at once), and with state across a restart whose
/// clock is 30 s behind (libfaketime), v7 and v1.
fn cli(t: &mut Tally, dir: &Path) {
    let test = "uuidkit-torture cli scenarios";
    let Some(bin) = cli_binary() else {
        test_support::skip(
            test,
            "the uuidkit binary is not built (cargo test --workspace builds it)",
        );
        return;
    };
    if !procs::require_faketime(test) {
        return;
    }
    let streams = std::thread::scope(|s| {
        let hs: Vec<_> = (0..4)
            .map(|_| s.spawn(|| run_cli(&bin, &["new", "v7", "-n", "100000"], None)))
            .collect();
        hs.into_iter().map(|h| h.join().expect("cli")).collect()
    });
    t.add(
        "CLI, 4 processes, no --state",
        "uuidkit new v7",
        streams,
        true,
    );
    for kind in ["v7", "v1"] {
        let state = dir.join(format!("cli-{kind}"));
        let s = state.to_str().expect("utf-8 path");
        let first = run_cli(&bin, &["new", kind, "--state", s, "-n", "20000"], None);
        let behind = run_cli(
            &bin,
            &["new", kind, "--state", s, "-n", "20000"],
            Some("-30"),
        );
        let ahead = run_cli(
            &bin,
            &["new", kind, "--state", s, "-n", "20000"],
            Some("+30"),
        );
        let streams = if kind == "v7" {
            // Order across restarts: the later runs continue above the file's mark.
            vec![[first, behind, ahead].concat()]
        } else {
            vec![first, behind, ahead]
        };
        t.add(
            "CLI --state, restarted at clock -30 s, +30 s",
            &format!("uuidkit new {kind}"),
            streams,
            kind == "v7",
        );
    }
}

/// With fork detection off, pre-fork workers must repeat each other: the
/// checker has to see it.
fn negative_control(t: &mut Tally) {
    uuidkit::__test_only::disable_fork_detection();
    let _ = Uuid::new_v4();
    // A clock that stands still (1 s resolution): parent and children would
    // walk the same ticks from the same last timestamp, deterministically.
    let frozen = ManualClock::new(1_700_000_000_000_000_000).with_resolution(1_000_000_000);
    let mut v1 = V1Generator::builder()
        .node(NODE)
        .build(frozen, ThreadRng)
        .expect("v1");
    let _ = v1.generate();
    for (name, sets) in [
        (
            "Uuid::new_v4",
            fork_and_collect(4, |_| (0..20_000).map(|_| Uuid::new_v4()).collect()),
        ),
        (
            "V1Generator (node given, frozen clock)",
            fork_and_collect(4, |_| {
                (0..20_000).map(|_| v1.generate().expect("v1")).collect()
            }),
        ),
    ] {
        let (uuids, duplicates, _) = uuidkit_torture::check(&sets);
        t.push(Row {
            scenario: "NEGATIVE CONTROL: fork detection off".into(),
            generator: name.into(),
            uuids,
            duplicates,
            order_violations: None,
            control: true,
        });
    }
}
