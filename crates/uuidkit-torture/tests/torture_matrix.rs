//! The node-mode matrix of the torture suite (`docs/generator-design.md` G5,
//! G8): every entry point crossed with the node mode (random, given, given
//! with a clock sequence) and the process topology (threads; siblings forked
//! together; a worker forked later whose process id equals an earlier one's
//! modulo 2¹⁴; spawned processes; a pre-fork server replacing its workers),
//! run against every generator that takes the parameter (v1, v6; v7 and v4,
//! which have no node, in a column of their own). Each row checks 0
//! duplicates; each fix has a negative control that switches it off and must
//! find duplicates. The Python entry point's rows are in
//! `uuidkit-py/tests/python/test_torture.py`, with a grid of their own.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::Mutex;
use std::time::Duration;

use uuidkit::clock::{Clock, CoarseClock, ManualClock, SystemClock};
use uuidkit::rng::ThreadRng;
use uuidkit::{GenError, Generator, Uuid, V1Generator, V6Generator, V7Generator};
use uuidkit_state::{BlockPolicy, FileStore, Reserver};
use uuidkit_torture::matrix::{Cell, Grid, pid_equal_pair};
use uuidkit_torture::{Row, Tally, fork_and_collect};

const NODE: [u8; 6] = [0x9F, 0x6B, 0xDE, 0xCE, 0xD8, 0x46];
const CLOCK_SEQ: u16 = 0x33C8;
const PER: usize = 20_000;
const MODES: [&str; 4] = ["random", "given", "given + clock_seq", "no node (v7, v4)"];
const RUST: &str = "Rust API";
const CLI: &str = "CLI";

/// v4 as a generator.
struct V4;

impl Generator for V4 {
    fn generate(&mut self) -> Result<Uuid, GenError> {
        Ok(Uuid::new_v4())
    }
}

type Gen = Box<dyn Generator + Send>;

/// The variants run by a pid-equal pair, and each worker's streams (one per
/// variant, in order).
type PairRun = (
    Vec<(&'static str, &'static str)>,
    Vec<Vec<Uuid>>,
    Vec<Vec<Uuid>>,
);

/// The generator of `kind` in node mode `mode` on `clock`.
fn build<C: Clock + Send + 'static>(kind: &str, mode: &str, clock: C) -> Gen {
    let v1 = V1Generator::builder();
    let v6 = V6Generator::builder();
    match (kind, mode) {
        ("v1", "random") => Box::new(v1.build(clock, ThreadRng).expect("v1")),
        ("v1", "given") => Box::new(v1.node(NODE).build(clock, ThreadRng).expect("v1")),
        ("v1", _) => Box::new(
            v1.node(NODE)
                .clock_seq(CLOCK_SEQ)
                .build(clock, ThreadRng)
                .expect("v1"),
        ),
        ("v6", "random") => Box::new(v6.build(clock, ThreadRng).expect("v6")),
        ("v6", "given") => Box::new(v6.node(NODE).build(clock, ThreadRng).expect("v6")),
        ("v6", _) => Box::new(
            v6.node(NODE)
                .clock_seq(CLOCK_SEQ)
                .build(clock, ThreadRng)
                .expect("v6"),
        ),
        ("v7", _) => Box::new(V7Generator::new(SystemClock, ThreadRng)),
        _ => Box::new(V4),
    }
}

/// A clock that stands still (1 s resolution): every process walks the same
/// ticks from the same last timestamp, so only the clock sequence and node
/// keep them apart.
fn frozen() -> ManualClock {
    ManualClock::new(1_700_000_000_000_000_000).with_resolution(1_000_000_000)
}

fn take(g: &mut dyn Generator, n: usize) -> Vec<Uuid> {
    (0..n).map(|_| g.generate().expect("generate")).collect()
}

/// The (kind, mode) pairs of a topology: v1 and v6 in the three node modes,
/// v7 and v4 once.
fn variants() -> Vec<(&'static str, &'static str)> {
    let mut v = Vec::new();
    for mode in &MODES[..3] {
        for kind in ["v1", "v6"] {
            v.push((kind, *mode));
        }
    }
    v.push(("v7", MODES[3]));
    v.push(("v4", MODES[3]));
    v
}

/// Records a row in the tally and its cell in the grid.
struct Run {
    tally: Tally,
    grid: Grid,
}

impl Run {
    fn row(
        &mut self,
        entry: &str,
        topology: &str,
        kind: &str,
        mode: &str,
        streams: Vec<Vec<Uuid>>,
    ) {
        let ordered = kind == "v7";
        self.tally.add(
            &format!("{entry}: {topology}"),
            &format!("{kind}, node {mode}"),
            streams,
            ordered,
        );
        let passed = self.tally.rows().last().is_some_and(Row::passed);
        let cell = if passed { Cell::Ok } else { Cell::Failed };
        self.grid.record(entry, topology, mode, kind, cell);
    }

    fn control(
        &mut self,
        entry: &str,
        topology: &str,
        mode: &str,
        what: &str,
        streams: Vec<Vec<Uuid>>,
    ) {
        let (uuids, duplicates, _) = uuidkit_torture::check(&streams);
        self.tally.push(Row {
            scenario: format!("NEGATIVE CONTROL: {entry}: {topology}"),
            generator: what.into(),
            uuids,
            duplicates,
            order_violations: None,
            control: true,
        });
        let cell = if duplicates > 0 {
            Cell::Caught
        } else {
            Cell::Missed
        };
        self.grid
            .record(entry, &format!("{topology}, control"), mode, what, cell);
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("--matrix-worker") {
        worker(&args[2..]);
        return ExitCode::SUCCESS;
    }
    if args.iter().any(|a| a == "--list") {
        println!("torture_matrix: test");
        return ExitCode::SUCCESS;
    }
    let dir = std::env::temp_dir().join(format!("uuidkit-matrix-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let mut run = Run {
        tally: Tally::default(),
        grid: Grid::new(&MODES),
    };
    let started = std::time::Instant::now();
    rust_threads(&mut run);
    rust_siblings(&mut run);
    rust_pid_equal(&mut run);
    rust_pre_fork(&mut run);
    rust_spawn(&mut run, &dir);
    cli(&mut run, &dir);
    // Last: they switch protections off in forked children only, but keep
    // them at the end all the same.
    control_pid_derived(&mut run);
    control_coarse_clock(&mut run);
    let _ = std::fs::remove_dir_all(&dir);
    println!("\n{}", run.tally.table());
    println!("{}", run.grid.table());
    println!("node-mode matrix: {:.1} s", started.elapsed().as_secs_f64());
    if run.tally.all_passed() && run.grid.complete_and_passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// 4 threads share one generator on the precise clock.
fn rust_threads(run: &mut Run) {
    for (kind, mode) in variants() {
        let g = Mutex::new(build(kind, mode, SystemClock));
        let streams = std::thread::scope(|s| {
            let hs: Vec<_> = (0..4)
                .map(|_| {
                    s.spawn(|| {
                        (0..PER / 2)
                            .map(|_| g.lock().expect("lock").generate().expect("generate"))
                            .collect::<Vec<Uuid>>()
                    })
                })
                .collect();
            hs.into_iter().map(|h| h.join().expect("thread")).collect()
        });
        run.row(RUST, "4 threads", kind, mode, streams);
    }
}

/// Used once, then 4 workers forked together and the parent generate at
/// once: on the precise clock, and on a frozen one (every tick shared).
fn rust_siblings(run: &mut Run) {
    for (kind, mode) in variants() {
        let mut g = build(kind, mode, SystemClock);
        let first = g.generate().expect("first");
        let mut streams = fork_and_collect(4, |_| take(&mut *g, PER));
        streams.push(vec![first]);
        run.row(RUST, "4 siblings forked together", kind, mode, streams);
    }
    for (kind, mode) in variants()
        .into_iter()
        .filter(|v| v.0 == "v1" || v.0 == "v6")
    {
        let mut g = build(kind, mode, frozen());
        let first = g.generate().expect("first");
        let mut streams = fork_and_collect(4, |_| take(&mut *g, PER / 4));
        streams.push(vec![first]);
        run.row(RUST, "4 siblings, clock frozen", kind, mode, streams);
    }
    let topology = "4 siblings, clock frozen";
    run.grid
        .not_applicable(RUST, topology, MODES[3], "no node; v7/v4 above");
}

/// Every v1/v6 variant on a frozen clock (or the precise one), used once
/// here, then run in each of two workers whose process ids are equal modulo
/// 2¹⁴.
fn pid_pair(clock_frozen: bool) -> PairRun {
    let vs: Vec<_> = variants()
        .into_iter()
        .filter(|v| !clock_frozen || v.0 == "v1" || v.0 == "v6")
        .collect();
    let mut gens: Vec<Gen> = vs
        .iter()
        .map(|(k, m)| {
            let mut g = if clock_frozen {
                build(k, m, frozen())
            } else {
                build(k, m, SystemClock)
            };
            g.generate().expect("first");
            g
        })
        .collect();
    let mut make = || gens.iter_mut().map(|g| take(&mut **g, PER / 2)).collect();
    let ((a, b), (pa, pb)) = pid_equal_pair(&mut make);
    eprintln!("torture: workers {pa} and {pb} (equal modulo 16384)");
    (vs, a, b)
}

fn rust_pid_equal(run: &mut Run) {
    for frozen_clock in [false, true] {
        let topology = if frozen_clock {
            "workers with pids equal mod 2^14, clock frozen"
        } else {
            "workers with pids equal mod 2^14"
        };
        let (vs, a, b) = pid_pair(frozen_clock);
        for (i, (kind, mode)) in vs.iter().enumerate() {
            run.row(RUST, topology, kind, mode, vec![a[i].clone(), b[i].clone()]);
        }
        if frozen_clock {
            run.grid
                .not_applicable(RUST, topology, MODES[3], "no node; v7/v4 above");
        }
    }
}

/// A pre-fork server replacing its workers: each worker generates and
/// exits, the next is forked while the server generates too.
fn rust_pre_fork(run: &mut Run) {
    for (kind, mode) in variants() {
        let mut g = build(kind, mode, SystemClock);
        let mut streams = vec![vec![g.generate().expect("first")]];
        for _ in 0..4 {
            let w = uuidkit_torture::matrix::Waiting::fork(&mut || vec![take(&mut *g, PER / 2)]);
            w.go();
            streams.push(take(&mut *g, PER / 8));
            streams.extend(w.collect());
        }
        run.row(
            RUST,
            "pre-fork server replacing 4 workers",
            kind,
            mode,
            streams,
        );
    }
}

fn exe() -> PathBuf {
    std::env::current_exe().expect("this binary")
}

/// A spawned worker: `kind mode clock count state start_ns` →
/// raw UUIDs on stdout. `clock` is `system` or `coarse`; `state` a file or
/// `-`; it starts generating when the real-time clock reads `start_ns`.
fn worker(args: &[String]) {
    let [kind, mode, clock, count, state, start] = args else {
        panic!("worker arguments: {args:?}")
    };
    let count: usize = count.parse().expect("count");
    let start: u64 = start.parse().expect("start");
    let mut g: Gen = if state != "-" {
        let r = Reserver::new(FileStore::new(state), BlockPolicy::default()).strict(true);
        let v1 = V1Generator::builder().node(NODE).clock_seq(CLOCK_SEQ);
        match kind.as_str() {
            "v1" => Box::new(
                v1.store(r.lease_v1())
                    .build(SystemClock, ThreadRng)
                    .expect("v1"),
            ),
            _ => Box::new(
                V6Generator::builder()
                    .node(NODE)
                    .clock_seq(CLOCK_SEQ)
                    .store(r.lease_v6())
                    .build(SystemClock, ThreadRng)
                    .expect("v6"),
            ),
        }
    } else if clock == "coarse" {
        build(kind, mode, CoarseClock::new())
    } else {
        build(kind, mode, SystemClock)
    };
    while SystemClock.now_ns() < start {
        std::hint::spin_loop();
    }
    let out: Vec<u8> = take(&mut *g, count)
        .iter()
        .flat_map(|u| *u.as_bytes())
        .collect();
    use std::io::Write;
    std::io::stdout().write_all(&out).expect("stdout");
}

/// `n` spawned workers started together (or, `one_after_another`, each
/// when the last has exited).
fn spawn(n: usize, args: &[&str], one_after_another: bool) -> Vec<Vec<Uuid>> {
    let start = |delay_ms: u64| (SystemClock.now_ns() + delay_ms * 1_000_000).to_string();
    let launch = |start: String| {
        Command::new(exe())
            .arg("--matrix-worker")
            .args(args)
            .arg(start)
            .stdout(Stdio::piped())
            .spawn()
            .expect("start a worker")
    };
    let read = |c: std::process::Child| {
        let out = c.wait_with_output().expect("worker");
        assert!(out.status.success(), "worker failed: {:?}", out.status);
        uuidkit_torture::from_bytes(&out.stdout)
    };
    if one_after_another {
        return (0..n).map(|_| read(launch(start(0)))).collect();
    }
    let at = start(300);
    let children: Vec<_> = (0..n).map(|_| launch(at.clone())).collect();
    children.into_iter().map(read).collect()
}

/// 4 processes spawned together; with every field given they share a state
/// file (`docs/generator-design.md` G8: nothing else can tell them apart),
/// and without one they are run one after another: the precise clock then
/// keeps them apart.
fn rust_spawn(run: &mut Run, dir: &Path) {
    let per = PER.to_string();
    for (kind, mode) in variants() {
        let state = dir.join(format!("spawn-{kind}"));
        let state = if mode == MODES[2] {
            state.to_str().expect("utf-8").to_string()
        } else {
            "-".into()
        };
        let streams = spawn(4, &[kind, mode, "system", &per, &state], false);
        let topology = if state == "-" {
            "4 spawned together"
        } else {
            "4 spawned together (clock_seq given: --state)"
        };
        if state != "-" {
            for m in [MODES[0], MODES[1], MODES[3]] {
                run.grid
                    .not_applicable(RUST, topology, m, "see the line above");
            }
        }
        run.row(RUST, topology, kind, mode, streams);
    }
    run.grid.not_applicable(
        RUST,
        "4 spawned together",
        MODES[2],
        "every field fixed: only a state file keeps processes apart (next line)",
    );
    for kind in ["v1", "v6"] {
        let streams = spawn(4, &[kind, MODES[2], "system", "2000", "-"], true);
        run.row(
            RUST,
            "4 spawned one after another, no state",
            kind,
            MODES[2],
            streams,
        );
    }
    for m in [MODES[0], MODES[1], MODES[3]] {
        run.grid.not_applicable(
            RUST,
            "4 spawned one after another, no state",
            m,
            "covered spawned together",
        );
    }
}

fn run_cli(bin: &Path, args: &[&str]) -> std::process::Child {
    Command::new(bin)
        .args(args)
        .stdout(Stdio::piped())
        .spawn()
        .expect("run uuidkit")
}

fn cli_out(c: std::process::Child) -> Vec<Uuid> {
    let out = c.wait_with_output().expect("uuidkit");
    assert!(
        out.status.success(),
        "uuidkit: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| Uuid::parse(l).expect("a UUID line"))
        .collect()
}

/// The CLI binary beside this test binary (`target/<profile>/uuidkit`).
fn cli_binary() -> Option<PathBuf> {
    let exe = exe();
    let bin = exe.parent()?.parent()?.join("uuidkit");
    bin.is_file().then_some(bin)
}

/// The CLI: one process per run, exec'd, so nothing is inherited and only
/// spawned topologies apply.
fn cli(run: &mut Run, dir: &Path) {
    cli_not_applicable(run);
    let Some(bin) = cli_binary() else {
        test_support::skip(
            "torture_matrix cli rows",
            "the uuidkit binary is not built (cargo test --workspace builds it)",
        );
        return;
    };
    let n = PER.to_string();
    let mac = "9f:6b:de:ce:d8:46";
    let cs = CLOCK_SEQ.to_string();
    for (kind, mode) in variants() {
        let state = dir.join(format!("cli-{kind}"));
        let state = state.to_str().expect("utf-8");
        let mut args = vec!["new", kind, "-n", &n];
        match mode {
            "given" => args.extend(["--node", mac]),
            "given + clock_seq" => {
                args.extend(["--node", mac, "--clock-seq", &cs, "--state", state]);
            }
            _ => {}
        }
        let children: Vec<_> = (0..4).map(|_| run_cli(&bin, &args)).collect();
        let streams = children.into_iter().map(cli_out).collect();
        let topology = if mode == MODES[2] {
            "4 spawned together (clock_seq given: --state)"
        } else {
            "4 spawned together"
        };
        run.row(CLI, topology, kind, mode, streams);
    }
    run.grid.not_applicable(
        CLI,
        "4 spawned together",
        MODES[2],
        "every field fixed: only a state file keeps processes apart (next line)",
    );
    for m in [MODES[0], MODES[1], MODES[3]] {
        run.grid.not_applicable(
            CLI,
            "4 spawned together (clock_seq given: --state)",
            m,
            "see the line above",
        );
    }
    for kind in ["v1", "v6"] {
        let args = ["new", kind, "-n", "2000", "--node", mac, "--clock-seq", &cs];
        let streams = (0..4).map(|_| cli_out(run_cli(&bin, &args))).collect();
        run.row(
            CLI,
            "4 spawned one after another, no state",
            kind,
            MODES[2],
            streams,
        );
        // The clock switched off: a fixed time (`--at`) is a clock that
        // never moves, and the checker must see the repeats.
        let at = [
            "new",
            kind,
            "-n",
            "2000",
            "--node",
            mac,
            "--clock-seq",
            &cs,
            "--at",
            "2024-01-01T00:00:00Z",
        ];
        let streams = (0..2).map(|_| cli_out(run_cli(&bin, &at))).collect();
        run.control(
            CLI,
            "4 spawned one after another, no state",
            MODES[2],
            &format!("{kind} --at fixed"),
            streams,
        );
    }
    for m in [MODES[0], MODES[1], MODES[3]] {
        run.grid.not_applicable(
            CLI,
            "4 spawned one after another, no state",
            m,
            "covered spawned together",
        );
        run.grid.not_applicable(
            CLI,
            "4 spawned one after another, no state, control",
            m,
            "as above",
        );
    }
}

/// The CLI's topologies that need a process to carry state into another.
fn cli_not_applicable(run: &mut Run) {
    for topology in [
        "4 threads",
        "4 siblings forked together",
        "workers with pids equal mod 2^14",
        "pre-fork server replacing 4 workers",
    ] {
        for m in MODES {
            run.grid.not_applicable(
                CLI,
                topology,
                m,
                "one exec'd process per run, nothing inherited",
            );
        }
    }
}

/// The pid-equal workers with the clock sequence derived from process ids
/// again (the hidden test hook), on a frozen clock: they must repeat each
/// other. Run in a forked child, so the hook never reaches the other rows.
fn control_pid_derived(run: &mut Run) {
    let topology = "workers with pids equal mod 2^14, clock frozen";
    let mut make = || {
        uuidkit::__test_only::derive_clock_seq_from_pid();
        let (vs, a, b) = pid_pair(true);
        let mut out = Vec::new();
        for (i, _) in vs.iter().enumerate() {
            out.push(a[i].clone());
            out.push(b[i].clone());
        }
        out
    };
    let w = uuidkit_torture::matrix::Waiting::fork(&mut make);
    w.go();
    let streams = w.collect();
    let vs: Vec<_> = variants()
        .into_iter()
        .filter(|v| v.0 == "v1" || v.0 == "v6")
        .collect();
    for (i, (kind, mode)) in vs.iter().enumerate() {
        // A random node is drawn again in the child: nothing to catch.
        if *mode != MODES[0] {
            let pair = vec![streams[2 * i].clone(), streams[2 * i + 1].clone()];
            run.control(RUST, topology, mode, &format!("{kind} pid-derived"), pair);
        }
    }
    let control = format!("{topology}, control");
    run.grid
        .not_applicable(RUST, &control, MODES[0], "the child draws a new node");
    run.grid
        .not_applicable(RUST, &control, MODES[3], "no clock sequence");
}

/// Processes with every field given, one after another, on the coarse
/// clock the system generators used to read: the second counts up the same
/// ticks from the same coarse reading. Up to 5 attempts (a new coarse
/// reading between two processes hides it).
fn control_coarse_clock(run: &mut Run) {
    let topology = "4 spawned one after another, no state";
    for kind in ["v1", "v6"] {
        let mut streams = Vec::new();
        for _ in 0..5 {
            streams.extend(spawn(2, &[kind, MODES[2], "coarse", "2000", "-"], true));
            if uuidkit_torture::check(&streams).1 > 0 {
                break;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        run.control(
            RUST,
            topology,
            MODES[2],
            &format!("{kind} coarse clock"),
            streams,
        );
    }
    for m in [MODES[0], MODES[1], MODES[3]] {
        run.grid
            .not_applicable(RUST, &format!("{topology}, control"), m, "as above");
    }
}
