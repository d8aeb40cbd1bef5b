//! The snowflake generator under a hand-driven clock: sequences, used-up
//! ticks, clock steps, the end of the time field, worker sources, forks.

use std::collections::HashSet;
use std::sync::Arc;

use proptest::prelude::*;
use rand_chacha::ChaCha12Rng;
use rand_core::SeedableRng;
use uuidkit::clock::ManualClock;
use uuidkit::generator::{ClockBackPolicy, GenErrorKind, RolloverPolicy};
use uuidkit::node::{NodeLost, NodeLostKind, NodeSlot, RandomNode};
use uuidkit::rng::ThreadRng;
use uuidkit::snowflake::{Layout, Parts, SnowflakeGenerator};

const MS: u64 = 1_000_000;
/// 2023-11-14T22:13:20Z.
const T: u64 = 1_700_000_000_000 * MS;

fn parts(l: Layout, id: u64) -> Parts {
    l.decompose(id).expect("an ID of the layout")
}

#[test]
fn the_sequence_counts_within_a_tick_and_starts_again_at_the_next() {
    let clock = ManualClock::new(T);
    let mut g = SnowflakeGenerator::builder(Layout::TWITTER)
        .worker(0x2A5)
        .build(&clock, ThreadRng)
        .unwrap();
    let ids: Vec<u64> = (0..5).map(|_| g.generate().unwrap()).collect();
    let tick = Layout::TWITTER.tick_of(T).unwrap();
    for (i, id) in ids.iter().enumerate() {
        assert_eq!(
            parts(Layout::TWITTER, *id),
            Parts {
                tick,
                worker: 0x2A5,
                sequence: i as u64
            }
        );
    }
    clock.advance(MS);
    assert_eq!(
        parts(Layout::TWITTER, g.generate().unwrap()),
        Parts {
            tick: tick + 1,
            worker: 0x2A5,
            sequence: 0
        }
    );
}

/// Sonyflake: 10-ms ticks, 256 IDs each; the 257th waits for the clock's
/// next tick (the clock moves only while the generator waits).
#[test]
fn a_used_up_tick_waits_for_the_clock_s_next_tick() {
    let l = Layout::SONYFLAKE;
    let clock = ManualClock::new(T).advancing_on_relax(MS);
    let mut g = SnowflakeGenerator::builder(l)
        .worker(0xBEEF)
        .build(&clock, ThreadRng)
        .unwrap();
    let ids: Vec<u64> = (0..256 * 3 + 1).map(|_| g.generate().unwrap()).collect();
    assert!(ids.windows(2).all(|w| w[0] < w[1]));
    let first = parts(l, ids[0]).tick;
    assert_eq!(
        parts(l, ids[255]),
        Parts {
            tick: first,
            worker: 0xBEEF,
            sequence: 255
        }
    );
    assert_eq!(
        parts(l, ids[256]),
        Parts {
            tick: first + 1,
            worker: 0xBEEF,
            sequence: 0
        }
    );
    assert_eq!(parts(l, ids[768]).tick, first + 3);
    // It waited: the clock reached each new tick before the tick was used.
    assert!(l.tick_of(clock.now()).unwrap() >= first + 3);
    assert_eq!(ids[0] & 0xFFFF, 0xBEEF);
}

#[test]
fn with_advance_a_used_up_tick_runs_ahead_but_no_further_than_the_tolerance() {
    let l = Layout::new(51, 12, 0, 0, MS).unwrap(); // one ID per millisecond
    let clock = ManualClock::new(T);
    let mut g = SnowflakeGenerator::builder(l)
        .worker(7)
        .rollover(RolloverPolicy::AdvanceTimestamp)
        .clock_back(ClockBackPolicy::Error, 5 * MS)
        .build(&clock, ThreadRng)
        .unwrap();
    let ids: Vec<u64> = (0..6).map(|_| g.generate().unwrap()).collect();
    let ticks: Vec<u64> = ids.iter().map(|&id| parts(l, id).tick).collect();
    let now = l.tick_of(T).unwrap();
    assert_eq!(ticks, (now..now + 6).collect::<Vec<_>>());
    // Six ticks ahead of a clock that stood still: beyond the 5-ms tolerance.
    let e = g.generate().unwrap_err();
    assert_eq!(e.kind(), GenErrorKind::ClockBehind);
    clock.advance(10 * MS);
    assert!(g.generate().unwrap() > ids[5]);
}

/// A coarse clock (4 ms steps): the ticks its reading cannot tell from now are
/// used before the generator waits, so its capacity is the layout's, not a
/// quarter of it; past the reading plus the resolution, it waits (here: an
/// error, with `RolloverPolicy::Error`).
#[test]
fn the_ticks_within_a_coarse_clock_s_resolution_are_used_before_waiting() {
    let l = Layout::TWITTER;
    let start = l.unix_ns_of(l.tick_of(T).unwrap());
    let clock = ManualClock::new(start).with_resolution(4 * MS);
    let mut g = SnowflakeGenerator::builder(l)
        .worker(2)
        .rollover(RolloverPolicy::Error)
        .build(&clock, ThreadRng)
        .unwrap();
    let ids: Vec<u64> = (0..4 * 4096).map(|_| g.generate().unwrap()).collect();
    assert!(ids.windows(2).all(|w| w[0] < w[1]));
    let first = parts(l, ids[0]).tick;
    assert_eq!(parts(l, ids[4 * 4096 - 1]).tick, first + 3);
    assert_eq!(
        g.generate().unwrap_err().kind(),
        GenErrorKind::CounterExhausted
    );
}

#[test]
fn with_error_a_used_up_tick_is_an_error_and_the_state_is_kept() {
    let l = Layout::new(51, 12, 0, 0, MS).unwrap();
    let clock = ManualClock::new(T);
    let mut g = SnowflakeGenerator::builder(l)
        .worker(7)
        .rollover(RolloverPolicy::Error)
        .build(&clock, ThreadRng)
        .unwrap();
    let a = g.generate().unwrap();
    let e = g.generate().unwrap_err();
    assert_eq!(e.kind(), GenErrorKind::CounterExhausted);
    clock.advance(MS);
    assert_eq!(g.generate().unwrap(), a + (1 << 12));
}

/// A step back within the tolerance is held (the last tick, counting on);
/// beyond it, an error; back at the clock, it resumes above its last ID.
#[test]
fn a_clock_stepped_back_is_held_then_refused_never_repeated() {
    let l = Layout::TWITTER;
    let clock = ManualClock::new(T).advancing_on_relax(MS / 4);
    let mut g = SnowflakeGenerator::builder(l)
        .worker(1)
        .build(&clock, ThreadRng)
        .unwrap();
    let mut seen = HashSet::new();
    let mut last = 0;
    for _ in 0..10_000 {
        let id = g.generate().unwrap();
        assert!(id > last && seen.insert(id));
        last = id;
    }
    clock.step_back(5_000 * MS); // 5 s back: within the 10 s default
    for _ in 0..10_000 {
        let id = g.generate().unwrap();
        assert!(id > last && seen.insert(id), "held: still increasing");
        last = id;
    }
    let held_tick = parts(l, last).tick;
    clock.set(l.unix_ns_of(held_tick) - 11_000 * MS); // 11 s behind the last ID
    let e = g.generate().unwrap_err();
    assert_eq!(e.kind(), GenErrorKind::ClockBehind);
    assert_eq!(
        e.to_string(),
        format!(
            "clock behind: expected at least {} ns (last timestamp minus tolerance), found {} ns",
            l.unix_ns_of(held_tick) - 10_000 * MS,
            l.unix_ns_of(held_tick) - 11_000 * MS
        )
    );
    clock.set(l.unix_ns_of(held_tick));
    assert!(g.generate().unwrap() > last);
}

#[test]
fn the_end_of_the_time_field_is_an_error_never_a_wrap() {
    // 20 bits of milliseconds from T: the field ends 17 minutes after it.
    let l = Layout::new(20, 10, 33, T / MS, MS).unwrap();
    let end = l.unix_ns_of(l.max_tick());
    let clock = ManualClock::new(end);
    let mut g = SnowflakeGenerator::builder(l)
        .worker(3)
        .rollover(RolloverPolicy::AdvanceTimestamp)
        .build(&clock, ThreadRng)
        .unwrap();
    assert_eq!(parts(l, g.generate().unwrap()).tick, l.max_tick());
    clock.advance(MS);
    let e = g.generate().unwrap_err();
    assert_eq!(e.kind(), GenErrorKind::TimestampOutOfRange);
    assert_eq!(
        e.to_string(),
        "timestamp out of range: expected a tick of the layout's time field at most 1048575, found 1048576"
    );
    // Advancing past the end on a used-up last tick: the same error.
    let l0 = Layout::new(20, 43, 0, T / MS, MS).unwrap();
    let clock = ManualClock::new(l0.unix_ns_of(l0.max_tick()));
    let mut g = SnowflakeGenerator::builder(l0)
        .worker(3)
        .rollover(RolloverPolicy::AdvanceTimestamp)
        .build(&clock, ThreadRng)
        .unwrap();
    g.generate().unwrap();
    assert_eq!(
        g.generate().unwrap_err().kind(),
        GenErrorKind::TimestampOutOfRange
    );
    // Before the epoch: an error too.
    let mut g = SnowflakeGenerator::builder(Layout::TSID)
        .worker(1)
        .build(ManualClock::new(0), ThreadRng)
        .unwrap();
    assert_eq!(
        g.generate().unwrap_err().kind(),
        GenErrorKind::TimestampOutOfRange
    );
}

#[test]
fn the_worker_comes_from_the_source_before_every_id() {
    let l = Layout::TWITTER;
    let slot = Arc::new(NodeSlot::new(10).unwrap());
    let clock = ManualClock::new(T).advancing_on_relax(MS / 8);
    let mut g = SnowflakeGenerator::builder(l)
        .node_source(slot.clone())
        .build(&clock, ThreadRng)
        .unwrap();
    let e = g.generate().unwrap_err();
    assert_eq!(
        e.node_lost().map(NodeLost::kind),
        Some(NodeLostKind::NotAcquired)
    );
    slot.set(0x155).unwrap();
    let a = g.generate().unwrap();
    assert_eq!(parts(l, a).worker, 0x155);
    slot.lose(NodeLost::new(NodeLostKind::Conflict).with_detail("held by another"));
    let e = g.generate().unwrap_err();
    assert_eq!(e.kind(), GenErrorKind::NodeLost);
    assert_eq!(
        e.to_string(),
        "node lost: conflict (another device holds the node): held by another"
    );
    // The same value in a new tenure: a tick after the last one, sequence 0.
    slot.set(0x155).unwrap();
    let b = g.generate().unwrap();
    assert_eq!(parts(l, b).worker, 0x155);
    assert_eq!(parts(l, b).tick, parts(l, a).tick + 1);
    assert_eq!(parts(l, b).sequence, 0);
    slot.set(0x2).unwrap();
    let c = g.generate().unwrap();
    assert_eq!(parts(l, c).worker, 2);
    assert!(parts(l, c).tick > parts(l, b).tick);
}

#[test]
fn bad_configurations_are_refused_when_built() {
    let clock = ManualClock::new(T);
    let e = SnowflakeGenerator::builder(Layout::SONYFLAKE)
        .node_source(RandomNode::new(10, &mut ThreadRng).unwrap())
        .build(&clock, ThreadRng)
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "invalid generator config: expected a worker source as wide as the layout's worker field, found 10"
    );
    let e = SnowflakeGenerator::builder(Layout::TWITTER)
        .worker(1)
        .clock_back(ClockBackPolicy::Reset, u64::MAX)
        .build(&clock, ThreadRng)
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "invalid generator config: expected clock-back policy Error (following the clock back repeats IDs), found 1"
    );
}

/// TSID: the counter starts at a random value in the lower half of its
/// range at each millisecond, from the generator's own RNG.
#[test]
fn a_random_sequence_start_comes_from_the_injected_rng() {
    let l = Layout::TSID;
    let run = |seed: u64| -> Vec<u64> {
        let clock = ManualClock::new(T);
        let mut g = SnowflakeGenerator::builder(l)
            .worker(5)
            .build(&clock, ChaCha12Rng::seed_from_u64(seed))
            .unwrap();
        (0..50)
            .map(|i| {
                if i % 10 == 0 {
                    clock.advance(MS);
                }
                g.generate().unwrap()
            })
            .collect()
    };
    let (a, b, c) = (run(1), run(1), run(2));
    assert_eq!(a, b, "same seed, same IDs");
    assert_ne!(a, c);
    let firsts: Vec<u64> = a
        .iter()
        .step_by(10)
        .map(|&id| parts(l, id).sequence)
        .collect();
    assert!(firsts.iter().all(|&s| s < 2048), "{firsts:?}");
    assert!(
        firsts.iter().collect::<HashSet<_>>().len() > 1,
        "{firsts:?}"
    );
}

#[cfg(unix)]
mod fork {
    use super::*;

    /// Forks once; the child runs `f` and exits with its result as status.
    fn in_child(f: impl FnOnce() -> i32) -> i32 {
        // SAFETY: the child runs `f` (no allocation after the fork in the
        // generators' paths used here) and exits.
        let mut child = unsafe { test_support::fork::Forked::spawn(|_| f()) };
        child
            .wait()
            .expect("the child exits, not ended by a signal")
    }

    /// Without a store that separates them, a forked child and its parent
    /// would walk the same ticks with the same worker: the child refuses the
    /// tenure it inherited.
    #[test]
    fn a_forked_child_refuses_its_parent_s_worker_without_a_store() {
        // The clock moves while a generator waits: without the refusal, the child would
        // take the inherited worker as a new tenure at the next tick and generate.
        let clock = ManualClock::new(T).advancing_on_relax(MS / 4);
        let mut g = SnowflakeGenerator::builder(Layout::TWITTER)
            .worker(9)
            .build(&clock, ThreadRng)
            .unwrap();
        g.generate().unwrap();
        let code = in_child(|| match g.generate() {
            Err(e)
                if e.kind() == GenErrorKind::NodeLost
                    && e.node_lost().map(NodeLost::kind) == Some(NodeLostKind::NotAcquired) =>
            {
                0
            }
            Err(_) => 2,
            Ok(_) => 1,
        });
        assert_eq!(code, 0, "1: the child generated with its parent's worker");
        assert!(g.generate().is_ok(), "the parent goes on");
    }

    /// A child whose source hands out a new tenure generates with it.
    #[test]
    fn a_forked_child_generates_with_a_worker_of_its_own() {
        let slot = NodeSlot::new(10).unwrap();
        slot.set(1).unwrap();
        // A new tenure starts at the next tick: the clock moves while the generator waits.
        let clock = ManualClock::new(T).advancing_on_relax(MS / 4);
        let mut g = SnowflakeGenerator::builder(Layout::TWITTER)
            .node_source(&slot)
            .build(&clock, ThreadRng)
            .unwrap();
        g.generate().unwrap();
        let code = in_child(|| {
            if g.generate().is_ok() {
                return 1;
            }
            if slot.set(2).is_err() {
                return 3;
            }
            match g.generate() {
                Ok(id) if Layout::TWITTER.decompose(id).map(|p| p.worker) == Ok(2) => 0,
                _ => 2,
            }
        });
        assert_eq!(code, 0);
    }
}

proptest! {
    /// Whatever the clock does within the tolerance (forward, back, standing
    /// still), one generator's IDs strictly increase, and with the guard on
    /// nothing it returns repeats; steps beyond the tolerance are errors.
    #[test]
    fn ids_strictly_increase_whatever_the_clock_does(
        steps in proptest::collection::vec((-12_000i64..12_000, 1usize..400), 1..40),
    ) {
        let l = Layout::new(41, 10, 12, 1_288_834_974_657, MS).unwrap();
        let clock = ManualClock::new(T).advancing_on_relax(MS / 3);
        let mut g = SnowflakeGenerator::builder(l).worker(77).build(&clock, ThreadRng).unwrap();
        let mut last = 0u64;
        for (ms, n) in steps {
            let now = clock.now();
            clock.set(now.saturating_add_signed(ms * MS as i64));
            for _ in 0..n {
                match g.generate() {
                    Ok(id) => {
                        prop_assert!(id > last, "{id} after {last}");
                        prop_assert_eq!(parts(l, id).worker, 77);
                        last = id;
                    }
                    Err(e) => {
                        prop_assert_eq!(e.kind(), GenErrorKind::ClockBehind);
                        break;
                    }
                }
            }
        }
    }
}
