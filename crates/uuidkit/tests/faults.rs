//! Uniqueness under faults: a fork after first use, a clock that goes back
//! (the state file's faults are the `uuidkit-state` crate's tests).

use std::collections::HashSet;

use test_support::fork::{Forked, write_all};
use uuidkit::clock::{CoarseClock, ManualClock, SystemClock};
use uuidkit::generator::{ClockBackPolicy, GenErrorKind};
use uuidkit::rng::ThreadRng;
use uuidkit::{
    Generator, Uuid, V1Generator, V6Generator, V7Generator, V8Distributed, V8TimeGenerator,
};

use crate::gen_support::{uuid_bytes, uuids};

const MS: u64 = 1_000_000;
const T: u64 = 1_700_000_000_000 * MS;
const NODE: [u8; 6] = [0x9F, 0x6B, 0xDE, 0xCE, 0xD8, 0x46];

/// Forks `children` processes; each of them, and then this one, fills a
/// buffer allocated before the fork with `per` UUIDs from `make` (nothing is
/// allocated after the fork: the test harness has other threads). Returns
/// each process's UUIDs, this one's last.
fn fork_and_collect(children: usize, per: usize, mut make: impl FnMut() -> Uuid) -> Vec<Vec<Uuid>> {
    let mut buf = vec![Uuid::NIL; per];
    let forked: Vec<Forked> = (0..children)
        .map(|_| {
            // SAFETY: the child only generates into `buf` and writes it to its
            // pipe; it does not allocate.
            unsafe {
                Forked::spawn(|out| {
                    buf.fill_with(&mut make);
                    if write_all(out, uuid_bytes(&buf)) {
                        0
                    } else {
                        2
                    }
                })
            }
        })
        .collect();
    let mut all: Vec<Vec<Uuid>> = forked
        .into_iter()
        .map(|child| {
            let pid = child.pid();
            let (bytes, code) = child.finish();
            assert_eq!((bytes.len(), code), (per * 16, Some(0)), "child {pid}");
            uuids(&bytes)
        })
        .collect();
    all.push((0..per).map(|_| make()).collect());
    all
}

fn duplicates(sets: &[Vec<Uuid>]) -> usize {
    let mut seen = HashSet::new();
    sets.iter().flatten().filter(|u| !seen.insert(**u)).count()
}

/// A process-wide generator used before the fork (as a pre-fork server
/// does): with a random node, and with a node given (the same in every
/// process, as `node=uuid.getnode()` gives), no process repeats another's.
#[test]
fn v1_and_v6_generators_used_before_a_fork_never_repeat_in_the_children() {
    let mut random = V1Generator::system();
    let mut given = V1Generator::builder()
        .node(NODE)
        .build(CoarseClock::new(), ThreadRng)
        .unwrap();
    let mut v6 = V6Generator::builder()
        .node(NODE)
        .build(CoarseClock::new(), ThreadRng)
        .unwrap();
    for g in [&mut random as &mut dyn Generator, &mut given, &mut v6] {
        let first = g.generate().unwrap();
        let sets = fork_and_collect(4, 2_000, || g.generate().unwrap());
        assert_eq!(duplicates(&sets), 0, "{first}: a child repeated a UUID");
        let seqs: HashSet<u16> = sets.iter().map(|s| s[0].clock_seq().unwrap()).collect();
        assert_eq!(seqs.len(), 5, "every process has its own clock sequence");
    }
}

/// v7 and v8 generators: a child never continues its parent's counter run,
/// and stays above what its parent issued before the fork.
#[test]
fn counter_generators_used_before_a_fork_start_a_fresh_run_in_the_children() {
    let mut v7 = V7Generator::new(SystemClock, ThreadRng);
    let mut v8 = V8TimeGenerator::new(SystemClock, ThreadRng);
    let mut dist = V8Distributed::builder()
        .node(0x2A, 8)
        .build(SystemClock, ThreadRng)
        .unwrap();
    for g in [&mut v7 as &mut dyn Generator, &mut v8, &mut dist] {
        let first = g.generate().unwrap();
        let sets = fork_and_collect(3, 2_000, || g.generate().unwrap());
        assert_eq!(duplicates(&sets), 0);
        for s in &sets {
            assert!(s.iter().all(|u| *u > first), "order across the fork");
            assert!(s.windows(2).all(|w| w[0] < w[1]));
        }
        // The ordered prefix (timestamp and counter, the top 80 bits for v7)
        // is never shared: each process counts on its own run.
        let prefixes: Vec<HashSet<u128>> = sets
            .iter()
            .map(|s| s.iter().map(|u| u.as_u128() >> 48).collect())
            .collect();
        if first.version() == Some(uuidkit::Version::SortRand) {
            for (i, a) in prefixes.iter().enumerate() {
                for b in &prefixes[i + 1..] {
                    assert_eq!(a.intersection(b).count(), 0, "a shared v7 counter run");
                }
            }
        }
    }
}

#[test]
fn the_process_wide_v7_and_v4_never_repeat_across_forks() {
    let first = Uuid::now_v7();
    let sets = fork_and_collect(4, 2_000, Uuid::now_v7);
    assert_eq!(duplicates(&sets), 0);
    assert!(sets.iter().flatten().all(|u| *u > first));
    let _ = Uuid::new_v4();
    assert_eq!(duplicates(&fork_and_collect(4, 2_000, Uuid::new_v4)), 0);
}

/// No time-ordered generator goes back silently by default: within 10 s it
/// holds above its last UUID, beyond it reports.
#[test]
fn time_ordered_generators_never_go_back_silently() {
    let clock = ManualClock::new(T).with_resolution(1_000);
    let mut v6 = V6Generator::new(&clock, ThreadRng);
    let mut v6r = V6Generator::builder()
        .retain()
        .build(&clock, ThreadRng)
        .unwrap();
    let mut v7 = V7Generator::new(&clock, ThreadRng);
    let mut v8 = V8TimeGenerator::new(&clock, ThreadRng);
    let mut dist = V8Distributed::builder()
        .node(7, 8)
        .build(&clock, ThreadRng)
        .unwrap();
    let gens: [&mut dyn Generator; 5] = [&mut v6, &mut v6r, &mut v7, &mut v8, &mut dist];
    for g in gens {
        clock.set(T);
        let mut last = g.generate().unwrap();
        for back in [MS, 1_000 * MS, 5_000 * MS] {
            clock.step_back(back);
            let u = g.generate().unwrap();
            assert!(u > last, "{back} ns back: {u} after {last}");
            last = u;
        }
        clock.set(T - 3_600_000 * MS);
        assert_eq!(g.generate().unwrap_err().kind(), GenErrorKind::ClockBehind);
        clock.set(T);
        assert!(
            g.generate().unwrap() > last,
            "resumes once the clock is back"
        );
    }
    // Reset is a choice, made explicitly.
    let mut g = V6Generator::builder()
        .clock_back(ClockBackPolicy::Reset, 0)
        .build(&clock, ThreadRng)
        .unwrap();
    let a = g.generate().unwrap();
    clock.step_back(MS);
    assert!(g.generate().unwrap() < a);
}
