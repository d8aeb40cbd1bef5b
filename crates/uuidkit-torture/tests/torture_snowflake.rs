//! The uniqueness torture suite for 64-bit snowflake IDs (`docs/generator-design.md` G5, G7):
//! threads, a clock stepped back (in one process, and across restarts on a state file), pre-fork
//! workers on a state file, processes sharing an etcd lease prefix, and a process paused
//! (SIGSTOP) past its lease while another takes its worker; threads and forked workers on the
//! ticker clock (G9). Every ID is collected and checked: 0 duplicates, order where promised. The
//! negative controls switch off the clock guard, the state file, the lease deadline and fork
//! detection, and must find duplicates.
//! A table and a `N passed, N failed` line close the run.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use uuidkit::clock::{Clock, ManualClock, SystemClock, TickerClock};
use uuidkit::rng::ThreadRng;
use uuidkit::snowflake::{Layout, SnowflakeGenerator};
use uuidkit_state::{BlockPolicy, FileStore, Reserver};
use uuidkit_torture::snowflake::{LeaseWorker, as_uuids, read_ids, run_lease_worker};
use uuidkit_torture::{Row, Tally, fork_and_collect};

const MS: u64 = 1_000_000;
const T: u64 = 1_700_000_000_000 * MS;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("--sf-lease-worker") {
        run_lease_worker(&args[2..]);
        return ExitCode::SUCCESS;
    }
    if args.get(1).map(String::as_str) == Some("--sf-restart-worker") {
        restart_worker(&args[2..]);
        return ExitCode::SUCCESS;
    }
    if args.iter().any(|a| a == "--list") {
        println!("torture_snowflake: test");
        return ExitCode::SUCCESS;
    }
    let dir = std::env::temp_dir().join(format!("uuidkit-torture-sf-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let mut t = Tally::default();
    threads(&mut t);
    ticker(&mut t, &dir);
    clock_steps(&mut t, true);
    restarts(&mut t, &dir, true);
    restarts(&mut t, &dir, false);
    pre_fork(&mut t, &dir);
    leases(&mut t, &dir);
    clock_steps(&mut t, false);
    // Last: it turns fork detection off for the rest of this process.
    fork_control(&mut t, &dir);
    let _ = std::fs::remove_dir_all(&dir);
    println!("\n{}", t.table());
    if t.all_passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// The IDs of `n` threads sharing `make`, one stream per thread.
fn in_threads(n: usize, per: usize, make: impl Fn() -> u64 + Sync) -> Vec<Vec<uuidkit::Uuid>> {
    std::thread::scope(|s| {
        let hs: Vec<_> = (0..n)
            .map(|_| s.spawn(|| as_uuids(&(0..per).map(|_| make()).collect::<Vec<u64>>())))
            .collect();
        hs.into_iter().map(|h| h.join().expect("thread")).collect()
    })
}

fn threads(t: &mut Tally) {
    for layout in [Layout::TWITTER, Layout::SONYFLAKE, Layout::TSID] {
        let g = Mutex::new(
            SnowflakeGenerator::builder(layout)
                .worker(1)
                .build(SystemClock, ThreadRng)
                .expect("generator"),
        );
        let per = if layout == Layout::SONYFLAKE {
            5_000
        } else {
            50_000
        };
        let streams = in_threads(4, per, || g.lock().expect("lock").generate().expect("id"));
        t.add(
            "4 threads, one generator",
            &format!("snowflake {layout}"),
            streams,
            true,
        );
    }
}

/// The ticker clock (one thread per process publishing the time): threads sharing a generator;
/// pre-fork workers continuing the parent's generator on one state file, the parent's ticker
/// started before the fork (each child's first reading starts its own); forked children that
/// build a generator of their own worker after the fork. Every stream is at least 20,000 IDs:
/// five used-up ticks or more, each waited for through the clock's relax.
fn ticker(t: &mut Tally, dir: &Path) {
    let twitter = || SnowflakeGenerator::builder(Layout::TWITTER);
    let g = Mutex::new(
        twitter()
            .worker(2)
            .build(TickerClock::new(), ThreadRng)
            .expect("generator"),
    );
    let streams = in_threads(4, 50_000, || {
        g.lock().expect("lock").generate().expect("id")
    });
    t.add(
        "4 threads, one generator, TickerClock",
        "snowflake twitter",
        streams,
        true,
    );
    forked_on_one_file(
        t,
        &dir.join("ticker-state"),
        TickerClock::new(),
        "pre-fork: 4 workers, one state file, TickerClock",
    );
    let sets = fork_and_collect(4, |i| {
        let mut g = twitter()
            .worker(20 + i as u64)
            .build(TickerClock::new(), ThreadRng)
            .expect("generator");
        as_uuids(
            &(0..20_000)
                .map(|_| g.generate().expect("id"))
                .collect::<Vec<_>>(),
        )
    });
    t.add(
        "forked: 4 workers, a worker each, TickerClock",
        "snowflake twitter",
        sets,
        true,
    );
}

/// An injected clock wandering within [T, T + 8 s) (inside the 10 s tolerance) while two threads
/// share one generator. With the clock guard off (the control) the generator follows every
/// step back and repeats itself.
fn clock_steps(t: &mut Tally, guard: bool) {
    let clock = Arc::new(ManualClock::new(T));
    // Advance on a used-up tick: the clock stands still between the stepper's moves.
    let builder = SnowflakeGenerator::builder(Layout::TWITTER)
        .worker(3)
        .rollover(uuidkit::generator::RolloverPolicy::AdvanceTimestamp);
    let builder = if guard {
        builder
    } else {
        builder.without_clock_guard_for_tests()
    };
    let g = Mutex::new(
        builder
            .build(Arc::clone(&clock), ThreadRng)
            .expect("generator"),
    );
    let streams = std::thread::scope(|s| {
        let c = Arc::clone(&clock);
        let stepper = s.spawn(move || {
            let mut x = 0x9E37_79B9_7F4A_7C15u64;
            for _ in 0..2_000 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                c.set(T + x % 8_000_000_000);
                std::thread::sleep(Duration::from_micros(50));
            }
        });
        let out = in_threads(2, 30_000, || {
            g.lock().expect("lock").generate().expect("id")
        });
        stepper.join().expect("stepper");
        out
    });
    if guard {
        t.add(
            "clock stepped ±8 s, 2 threads",
            "snowflake twitter",
            streams,
            true,
        );
    } else {
        control(
            t,
            "NEGATIVE CONTROL: clock guard off, clock stepped",
            "snowflake twitter",
            streams,
        );
    }
}

/// A process of [`restarts`]: 20,000 IDs of worker 5 with the system clock, with the state file
/// `args[0]` (or none for `-`), written to `args[1]`.
fn restart_worker(args: &[String]) {
    let [state, out] = args else {
        panic!("restart worker arguments: {args:?}")
    };
    let builder = SnowflakeGenerator::builder(Layout::TWITTER).worker(5);
    let ids: Vec<u64> = if state == "-" {
        let mut g = builder.build(SystemClock, ThreadRng).expect("generator");
        (0..20_000).map(|_| g.generate().expect("id")).collect()
    } else {
        let r = Reserver::new(FileStore::new(state), BlockPolicy::default());
        let mut g = builder
            .store(r.lease_snowflake(Layout::TWITTER))
            .build(SystemClock, ThreadRng)
            .expect("generator");
        (0..20_000).map(|_| g.generate().expect("id")).collect()
    };
    let bytes: Vec<u8> = ids.iter().flat_map(|id| id.to_le_bytes()).collect();
    std::fs::write(out, bytes).expect("output");
}

/// Three processes one after another, one worker, each clock started at the same instant by
/// libfaketime (so each restart finds its clock behind the last one's IDs): with one state file
/// they continue above each other; without one (the control) they repeat each other's IDs.
fn restarts(t: &mut Tally, dir: &Path, state: bool) {
    if !uuidkit_torture::procs::require_faketime("torture_snowflake restarts") {
        return;
    }
    let file = dir.join(format!("restart-state-{state}"));
    let mut runs = Vec::new();
    for i in 0..3 {
        let out = dir.join(format!("restart-{state}-{i}"));
        let status = std::process::Command::new(exe())
            .arg("--sf-restart-worker")
            .arg(if state {
                file.as_os_str()
            } else {
                "-".as_ref()
            })
            .arg(&out)
            .env("LD_PRELOAD", uuidkit_torture::procs::FAKETIME)
            .env("FAKETIME", "@2026-01-01 00:00:00")
            .env("FAKETIME_DONT_FAKE_MONOTONIC", "1")
            .status()
            .expect("a restart worker");
        assert!(status.success(), "a restart worker failed");
        runs.push(read_ids(&out));
    }
    if state {
        // Order across restarts: each continues above the file's mark.
        t.add(
            "restarts, the clock back at one instant, one state file",
            "snowflake twitter, fixed worker",
            vec![as_uuids(&runs.concat())],
            true,
        );
    } else {
        control(
            t,
            "NEGATIVE CONTROL: restarts at one clock instant, no state file",
            "snowflake twitter, fixed worker",
            runs.iter().map(|r| as_uuids(r)).collect(),
        );
    }
}

fn control(t: &mut Tally, scenario: &str, generator: &str, streams: Vec<Vec<uuidkit::Uuid>>) {
    let (uuids, duplicates, _) = uuidkit_torture::check(&streams);
    t.push(Row {
        scenario: scenario.into(),
        generator: generator.into(),
        uuids,
        duplicates,
        order_violations: None,
        control: true,
    });
}

/// A generator with a fixed worker and a state file, used once, then 4 forked workers and the
/// parent: each child reserves blocks of its own. Without a store, each child refuses the
/// worker it inherited (counted, and none of its IDs exist).
fn pre_fork(t: &mut Tally, dir: &Path) {
    forked_on_one_file(
        t,
        &dir.join("fork-state"),
        SystemClock,
        "pre-fork: 4 workers, one state file",
    );
    let mut bare = SnowflakeGenerator::builder(Layout::TWITTER)
        .worker(9)
        .build(SystemClock, ThreadRng)
        .expect("generator");
    bare.generate().expect("id");
    let sets = fork_and_collect(4, |i| {
        if i < 4 {
            // A child: every attempt must be refused.
            let made: Vec<u64> = (0..1_000).filter_map(|_| bare.generate().ok()).collect();
            as_uuids(&made)
        } else {
            as_uuids(
                &(0..20_000)
                    .map(|_| bare.generate().expect("id"))
                    .collect::<Vec<_>>(),
            )
        }
    });
    let made_by_children: usize = sets[..4].iter().map(Vec::len).sum();
    t.add(
        "pre-fork: 4 workers, no store",
        "snowflake twitter, fixed worker",
        sets,
        true,
    );
    if made_by_children != 0 {
        t.push(Row {
            scenario: format!(
                "pre-fork, no store: children made {made_by_children} IDs with the parent's worker"
            ),
            generator: "snowflake twitter".into(),
            uuids: made_by_children,
            duplicates: 1,
            order_violations: None,
            control: false,
        });
    }
}

/// A generator of worker 9 on the state file `file`, used once, then 4 forked workers and the
/// parent continuing it: each child reserves blocks of its own.
fn forked_on_one_file(t: &mut Tally, file: &Path, clock: impl Clock, scenario: &str) {
    let r = Reserver::new(FileStore::new(file), BlockPolicy::default());
    let mut g = SnowflakeGenerator::builder(Layout::TWITTER)
        .worker(9)
        .store(r.lease_snowflake(Layout::TWITTER))
        .build(clock, ThreadRng)
        .expect("generator");
    let first = g.generate().expect("id");
    let sets = fork_and_collect(4, |_| {
        as_uuids(
            &(0..20_000)
                .map(|_| g.generate().expect("id"))
                .collect::<Vec<_>>(),
        )
    });
    t.add_after(
        scenario,
        "snowflake twitter, fixed worker",
        uuidkit::Uuid::from_u128(u128::from(first)),
        sets,
    );
}

fn exe() -> PathBuf {
    std::env::current_exe().expect("this binary")
}

/// Processes sharing one etcd prefix; then a process paused past its lease (TTL 2 s) while a
/// third takes its worker, with the deadline on and, as the control, off.
fn leases(t: &mut Tally, dir: &Path) {
    let Some(cluster) = test_support::db::EtcdCluster::for_test("torture_snowflake leases") else {
        return;
    };
    let worker =
        |prefix: &str, layout: Layout, i: usize, run_ms: u64, deadline: bool| LeaseWorker {
            endpoints: cluster.endpoints(),
            prefix: prefix.into(),
            layout,
            ttl: Duration::from_secs(2),
            out: dir.join(format!(
                "{}-{i}",
                prefix.trim_start_matches('/').replace('/', "-")
            )),
            run: Duration::from_millis(run_ms),
            rate: 50_000,
            deadline,
        };
    // Six processes, one prefix, Twitter's 10-bit workers.
    let ws: Vec<LeaseWorker> = (0..6)
        .map(|i| worker("/us-sf/shared", Layout::TWITTER, i, 3_000, true))
        .collect();
    let children: Vec<_> = ws.iter().map(|w| w.spawn(&exe())).collect();
    for mut c in children {
        assert!(c.wait().expect("wait").success(), "a lease worker failed");
    }
    let streams = ws.iter().map(|w| as_uuids(&read_ids(&w.out))).collect();
    t.add(
        "6 processes, one etcd lease prefix",
        "snowflake twitter, leased worker",
        streams,
        true,
    );
    for deadline in [true, false] {
        // Two workers (1 bit) for three processes: one waits for a free worker.
        let layout: Layout = "t50.w1.s12.e1288834974657.u1ms".parse().expect("layout");
        let prefix = format!("/us-sf/paused-{deadline}");
        let ws: Vec<LeaseWorker> = (0..3)
            .map(|i| worker(&prefix, layout, i, 9_000, deadline))
            .collect();
        let mut children: Vec<_> = ws[..2].iter().map(|w| w.spawn(&exe())).collect();
        std::thread::sleep(Duration::from_millis(1_500));
        children.push(ws[2].spawn(&exe()));
        std::thread::sleep(Duration::from_millis(500));
        // Paused past its TTL: the waiting process takes its worker meanwhile.
        uuidkit_torture::procs::signal(children[0].id(), libc::SIGSTOP);
        std::thread::sleep(Duration::from_millis(4_000));
        uuidkit_torture::procs::signal(children[0].id(), libc::SIGCONT);
        for c in &mut children {
            assert!(c.wait().expect("wait").success(), "a lease worker failed");
        }
        let streams: Vec<_> = ws.iter().map(|w| as_uuids(&read_ids(&w.out))).collect();
        if deadline {
            t.add(
                "paused (SIGSTOP) past its 2 s lease",
                "snowflake 1-bit worker, leased",
                streams,
                false,
            );
        } else {
            control(
                t,
                "NEGATIVE CONTROL: lease deadline off, lost worker kept, paused",
                "snowflake 1-bit worker, leased",
                streams,
            );
        }
    }
}

/// With fork detection off, a child's state-file lease takes its parent's block for its own:
/// the two walk the same ticks with the same worker.
fn fork_control(t: &mut Tally, dir: &Path) {
    uuidkit::__test_only::disable_fork_detection();
    let r = Reserver::new(
        FileStore::new(dir.join("control-state")),
        BlockPolicy::default(),
    );
    let clock = ManualClock::new(T).with_resolution(1_000_000_000);
    let mut g = SnowflakeGenerator::builder(Layout::TWITTER)
        .worker(9)
        .store(r.lease_snowflake(Layout::TWITTER))
        .build(&clock, ThreadRng)
        .expect("generator");
    g.generate().expect("id");
    let sets = fork_and_collect(4, |_| {
        as_uuids(
            &(0..4_000)
                .map(|_| g.generate().expect("id"))
                .collect::<Vec<_>>(),
        )
    });
    control(
        t,
        "NEGATIVE CONTROL: fork detection off",
        "snowflake twitter, state file",
        sets,
    );
}
