//! V7Generator with a manual clock: the three §6.2 methods, counter rollover
//! under each policy, clock steps back, batches, state and the reserve seam.

use crate::gen_support::{CountingClock, MS, ms_of, seeded};
use uuidkit::clock::ManualClock;
use uuidkit::generator::{
    ClockBackPolicy, GenErrorKind, Reservation, Reserve, RolloverPolicy, V7Builder, V7Method,
    V7State,
};
use uuidkit::{GenError, Generator, Uuid, V7Generator, Version};

const T: u64 = 1_700_000_000_000 * MS; // a whole millisecond

fn strictly_increasing(v: &[Uuid]) -> bool {
    v.windows(2).all(|w| w[0] < w[1])
}

fn counter12(u: Uuid) -> u64 {
    ((u.as_u128() >> 64) & 0xFFF) as u64
}

#[test]
fn method1_rollover_advance_timestamp_frozen_clock() {
    let clock = ManualClock::new(T);
    let cfg = V7Generator::builder().method(V7Method::Counter { bits: 12 });
    let mut g = cfg.build(&clock, seeded(1)).unwrap();
    let n = (1 << 12) + 1000;
    let v: Vec<Uuid> = (0..n).map(|_| g.generate().unwrap()).collect();
    assert!(strictly_increasing(&v), "no wrap: every UUID greater");
    assert!(v.iter().all(|u| u.version() == Some(Version::SortRand)));
    // Seeded with the guard bit clear at each new millisecond.
    assert!(counter12(v[0]) < 0x800);
    let first_ms = ms_of(v[0]);
    assert_eq!(first_ms, T / MS);
    let last_ms = ms_of(v[n - 1]);
    assert!(
        last_ms > first_ms,
        "the timestamp advanced on the frozen clock"
    );
    // Every time the timestamp advances, the counter is re-seeded below the guard.
    for w in v.windows(2) {
        if ms_of(w[1]) != ms_of(w[0]) {
            assert_eq!(ms_of(w[1]), ms_of(w[0]) + 1);
            assert!(counter12(w[1]) < 0x800);
            assert_eq!(counter12(w[0]), 0xFFF, "advanced only on exhaustion");
        } else {
            assert_eq!(counter12(w[1]), counter12(w[0]) + 1);
        }
    }
}

#[test]
fn method1_rollover_wait_frozen_until_the_clock_moves() {
    // The clock moves only when the generator waits (relax), 1 ms per wait.
    let clock = ManualClock::new(T).advancing_on_relax(MS);
    let cfg = V7Generator::builder()
        .method(V7Method::Counter { bits: 12 })
        .rollover(RolloverPolicy::Wait);
    let mut g = cfg.build(&clock, seeded(2)).unwrap();
    let n = (1 << 12) + 1000;
    let v: Vec<Uuid> = (0..n).map(|_| g.generate().unwrap()).collect();
    assert!(strictly_increasing(&v));
    for u in &v {
        assert!(ms_of(*u) <= clock.now() / MS, "never ahead of the clock");
    }
    assert!(clock.now() > T, "it waited");
    assert_eq!(ms_of(v[n - 1]), clock.now() / MS);
}

#[test]
fn method1_rollover_error_then_recovers() {
    let clock = ManualClock::new(T);
    let cfg = V7Generator::builder()
        .method(V7Method::Counter { bits: 12 })
        .rollover(RolloverPolicy::Error);
    let mut g = cfg.build(&clock, seeded(3)).unwrap();
    let mut v = Vec::new();
    let err = loop {
        match g.generate() {
            Ok(u) => v.push(u),
            Err(e) => break e,
        }
    };
    assert_eq!(err.kind(), GenErrorKind::CounterExhausted);
    assert!(
        v.len() > 0x800 && v.len() <= 0x1000,
        "{} before exhaustion",
        v.len()
    );
    assert!(strictly_increasing(&v));
    assert!(v.iter().all(|u| ms_of(*u) == T / MS));
    assert_eq!(counter12(*v.last().unwrap()), 0xFFF);
    // The state did not move: still exhausted at the same time, and fine later.
    assert_eq!(
        g.generate().unwrap_err().kind(),
        GenErrorKind::CounterExhausted
    );
    clock.advance(MS);
    let next = g.generate().unwrap();
    assert!(next > *v.last().unwrap());
    assert_eq!(ms_of(next), T / MS + 1);
}

#[test]
fn method1_42_bit_default_layout_and_random_tail() {
    let clock = ManualClock::new(T);
    let mut g = V7Generator::new(&clock, seeded(4));
    let a = g.generate().unwrap();
    let b = g.generate().unwrap();
    let counter = |u: Uuid| {
        let x = u.as_u128();
        (((x >> 64) & 0xFFF) << 30) | ((x >> 32) & ((1 << 30) - 1))
    };
    assert!(counter(a) < 1 << 41, "guard bit clear");
    assert_eq!(counter(b), counter(a) + 1);
    assert_ne!(
        a.as_u128() as u32,
        b.as_u128() as u32,
        "32 random bits per UUID (2^-32 flake)"
    );
    assert_eq!(
        g.state(),
        V7State {
            unix_ts_ms: T / MS,
            counter: counter(b),
            valid: true
        }
    );
}

#[test]
fn method2_random_increment_within_range() {
    let clock = ManualClock::new(T);
    let cfg = V7Generator::builder().method(V7Method::MonotonicRandom { increment_bits: 8 });
    let mut g = cfg.build(&clock, seeded(5)).unwrap();
    let field = |u: Uuid| {
        let x = u.as_u128();
        (((x >> 64) & 0xFFF) << 62) | (x & ((1 << 62) - 1))
    };
    let v: Vec<Uuid> = (0..2000).map(|_| g.generate().unwrap()).collect();
    assert!(strictly_increasing(&v));
    assert!(field(v[0]) < 1 << 73, "seed has the top bit clear");
    let mut deltas = std::collections::HashSet::new();
    for w in v.windows(2) {
        assert_eq!(ms_of(w[0]), ms_of(w[1]));
        let d = field(w[1]) - field(w[0]);
        assert!((1..=256).contains(&d), "increment {d} outside [1, 2^8]");
        deltas.insert(d);
    }
    assert!(deltas.len() > 100, "unguessable: increments vary");
    // increment_bits 0: exactly +1.
    let cfg = V7Generator::builder().method(V7Method::MonotonicRandom { increment_bits: 0 });
    let mut g = cfg.build(&clock, seeded(6)).unwrap();
    let (a, b) = (g.generate().unwrap(), g.generate().unwrap());
    assert_eq!(field(b), field(a) + 1);
}

#[test]
fn method3_sub_millisecond_fraction() {
    let clock = ManualClock::new(T + 456_700); // 0.4567 ms → floor(0.4567 × 4096) = 1870
    let cfg = V7Generator::builder().method(V7Method::SubMillis { bits: 12 });
    let mut g = cfg.build(&clock, seeded(7)).unwrap();
    let a = g.generate().unwrap();
    assert_eq!(ms_of(a), T / MS);
    assert_eq!(counter12(a), 1870);
    // Same tick again: the second UUID moves to the next 1/4096 ms (no counter bits).
    let b = g.generate().unwrap();
    assert_eq!(counter12(b), 1871);
    assert!(a < b);
    clock.set(T + 999_990);
    assert_eq!(counter12(g.generate().unwrap()), 4095);
    // 8 fraction bits: floor(0.4567 × 256) = 116 in the top 8 bits of rand_a.
    let cfg = V7Generator::builder().method(V7Method::SubMillis { bits: 8 });
    let mut g = cfg.build(ManualClock::new(T + 456_700), seeded(8)).unwrap();
    assert_eq!(counter12(g.generate().unwrap()) >> 4, 116);
}

#[test]
fn method3_followed_by_counter() {
    let clock = ManualClock::new(T + 456_700);
    let cfg = V7Generator::builder().method(V7Method::SubMillisCounter {
        frac_bits: 12,
        counter_bits: 14,
    });
    let mut g = cfg.build(&clock, seeded(9)).unwrap();
    let a = g.generate().unwrap();
    let b = g.generate().unwrap();
    assert_eq!(counter12(a), 1870, "fraction right after the timestamp");
    assert_eq!(
        counter12(b),
        1870,
        "same tick: the counter moves, not the fraction"
    );
    let ctr = |u: Uuid| ((u.as_u128() >> 48) & 0x3FFF) as u64; // top 14 bits of rand_b
    assert!(ctr(a) < 1 << 13);
    assert_eq!(ctr(b), ctr(a) + 1);
    clock.advance(1_000); // +1 µs = 4 ticks of 1/4096 ms
    let c = g.generate().unwrap();
    assert_eq!(counter12(c), 1874);
    assert!(b < c);
}

#[test]
fn clock_steps_back_within_tolerance_keep_increasing() {
    for back in [MS, 1_000 * MS] {
        let clock = ManualClock::new(T);
        let mut g = V7Generator::new(&clock, seeded(10));
        let a = g.generate().unwrap();
        clock.step_back(back);
        let v: Vec<Uuid> = (0..100).map(|_| g.generate().unwrap()).collect();
        assert!(a < v[0] && strictly_increasing(&v), "back {back} ns");
        assert!(
            v.iter().all(|u| ms_of(*u) == T / MS),
            "keeps the last timestamp"
        );
        clock.set(T + MS);
        assert_eq!(
            ms_of(g.generate().unwrap()),
            T / MS + 1,
            "then follows the clock"
        );
    }
}

#[test]
fn clock_steps_back_one_hour_reset_policy() {
    let clock = ManualClock::new(T);
    let mut g = V7Generator::builder()
        .clock_back(ClockBackPolicy::Reset, 10_000 * MS)
        .build(&clock, seeded(11))
        .unwrap();
    let a = g.generate().unwrap();
    clock.step_back(3_600_000 * MS);
    let b = g.generate().unwrap();
    assert_eq!(ms_of(b), T / MS - 3_600_000, "reset: follows the clock");
    assert!(b < a, "as documented, the output is no longer increasing");
    let c = g.generate().unwrap();
    assert!(b < c, "and increases again from there");
}

#[test]
fn clock_steps_back_one_hour_error_policy() {
    let clock = ManualClock::new(T);
    let cfg = V7Generator::builder().clock_back(ClockBackPolicy::Error, 10_000 * MS);
    let mut g = cfg.build(&clock, seeded(12)).unwrap();
    let a = g.generate().unwrap();
    clock.step_back(3_600_000 * MS);
    let err = g.generate().unwrap_err();
    assert_eq!(err.kind(), GenErrorKind::ClockBehind);
    assert_eq!(
        err.to_string(),
        format!(
            "clock behind: expected at least {} ns (last timestamp minus tolerance), found {} ns",
            T - 10_000 * MS,
            T - 3_600_000 * MS
        )
    );
    // 9 s behind is within the 10 s tolerance again.
    clock.set(T - 9_000 * MS);
    let b = g.generate().unwrap();
    assert!(a < b);
    assert_eq!(ms_of(b), T / MS);
}

#[test]
fn custom_tolerance_boundary() {
    let clock = ManualClock::new(T);
    let cfg = V7Generator::builder().clock_back(ClockBackPolicy::Error, 5 * MS);
    let mut g = cfg.build(&clock, seeded(13)).unwrap();
    g.generate().unwrap();
    clock.step_back(5 * MS);
    assert!(
        g.generate().is_ok(),
        "exactly at the tolerance: still counting"
    );
    clock.step_back(MS);
    assert_eq!(g.generate().unwrap_err().kind(), GenErrorKind::ClockBehind);
}

#[test]
fn fill_reads_the_clock_once_and_is_increasing() {
    let manual = ManualClock::new(T);
    let clock = CountingClock {
        inner: &manual,
        reads: Default::default(),
    };
    let mut g = V7Generator::new(&clock, seeded(14));
    let mut batch = vec![Uuid::NIL; 10_000];
    g.fill(&mut batch).unwrap();
    assert_eq!(clock.reads.get(), 1);
    assert!(strictly_increasing(&batch));
    let next = g.generate().unwrap();
    assert!(batch[9_999] < next);
}

#[test]
fn at_generates_at_the_given_time_and_wait_reports_exhaustion() {
    let cfg = V7Generator::builder()
        .method(V7Method::SubMillis { bits: 12 })
        .rollover(RolloverPolicy::Wait);
    let mut g = cfg.build(ManualClock::new(0), seeded(15)).unwrap();
    let a = g.at(T).unwrap();
    assert_eq!(ms_of(a), T / MS);
    let err = g.at(T).unwrap_err();
    assert_eq!(err.kind(), GenErrorKind::CounterExhausted);
}

#[test]
fn bounds_for_range_queries() {
    let clock = ManualClock::new(T + 500 * 1_000);
    let mut g = V7Generator::new(&clock, seeded(16));
    let u = g.generate().unwrap();
    assert!(Uuid::v7_min(T / MS) <= u && u <= Uuid::v7_max(T / MS));
    assert!(u < Uuid::v7_min(T / MS + 1));
    assert!(Uuid::v7_max(T / MS - 1) < u);
    assert_eq!(
        Uuid::v7_min(1).as_u128(),
        0x00000000_0001_7000_8000_000000000000
    );
    assert_eq!(
        Uuid::v7_max(1).as_u128(),
        0x00000000_0001_7FFF_BFFF_FFFFFFFFFFFF
    );
}

#[test]
fn invalid_configs_are_rejected_with_the_field_and_value() {
    let cases: [(V7Builder, &str); 8] = [
        (
            V7Generator::builder().method(V7Method::Counter { bits: 11 }),
            "expected counter bits in 12..=42, found 11",
        ),
        (
            V7Generator::builder().method(V7Method::Counter { bits: 43 }),
            "expected counter bits in 12..=42, found 43",
        ),
        (
            V7Generator::builder().method(V7Method::SubMillis { bits: 13 }),
            "expected fraction bits in 1..=12, found 13",
        ),
        (
            V7Generator::builder().method(V7Method::MonotonicRandom { increment_bits: 33 }),
            "expected increment bits in 0..=32, found 33",
        ),
        (
            V7Generator::builder().method(V7Method::SubMillisCounter {
                frac_bits: 12,
                counter_bits: 0,
            }),
            "expected counter bits of at least 1, found 0",
        ),
        // §6.2's 12 to 42 counter bits, for the fraction and the counter together.
        (
            V7Generator::builder().method(V7Method::SubMillisCounter {
                frac_bits: 1,
                counter_bits: 10,
            }),
            "expected fraction and counter bits together in 12..=42, found 11",
        ),
        (
            V7Generator::builder().method(V7Method::SubMillisCounter {
                frac_bits: 12,
                counter_bits: 31,
            }),
            "expected fraction and counter bits together in 12..=42, found 43",
        ),
        (
            V7Generator::builder()
                .method(V7Method::Counter { bits: 12 })
                .guard_bits(12),
            "expected guard bits smaller than the counter width, found 12",
        ),
    ];
    for (cfg, msg) in cases {
        let err = cfg.build(ManualClock::new(0), seeded(0)).unwrap_err();
        assert_eq!(err.kind(), GenErrorKind::InvalidConfig);
        assert_eq!(err.to_string(), format!("invalid generator config: {msg}"));
    }
}

#[test]
fn timestamp_out_of_range_is_an_error() {
    // u64 nanoseconds end in 2554, far inside 48-bit milliseconds; the field can
    // only overflow when a restored state sits at the last millisecond.
    let cfg = V7Generator::builder().clock_back(ClockBackPolicy::Error, u64::MAX);
    let mark = V7State {
        unix_ts_ms: (1 << 48) - 1,
        counter: u128::MAX,
        valid: true,
    };
    let mut g = cfg
        .build(ManualClock::new(T), seeded(17))
        .unwrap()
        .with_state(mark);
    let err = g.generate().unwrap_err();
    assert_eq!(err.kind(), GenErrorKind::TimestampOutOfRange);
    assert_eq!(
        err.to_string(),
        "timestamp out of range: expected at most 281474976710655, found 281474976710656"
    );
}

#[derive(Debug, Default)]
struct Recorder {
    calls: Vec<(V7State, u64)>,
    block_ms: u64,
    fail: bool,
}

impl Reserve<V7State> for Recorder {
    fn reserve(&mut self, state: &V7State, needed: u64) -> Result<Reservation<V7State>, GenError> {
        self.calls.push((*state, needed));
        if self.fail {
            return Err(GenError::store(5));
        }
        Ok(Reservation::Until(needed + self.block_ms))
    }
}

#[test]
fn reserve_is_consulted_once_per_block() {
    let clock = ManualClock::new(T);
    let store = Recorder {
        block_ms: 100,
        ..Default::default()
    };
    let mut g = V7Generator::builder()
        .store(store)
        .build(&clock, seeded(18))
        .unwrap();
    for _ in 0..250 {
        g.generate().unwrap();
        clock.advance(MS);
    }
    let calls = &g.store().calls;
    assert_eq!(calls.len(), 3, "blocks at +0, +100, +200 ms");
    assert_eq!(calls[0].1, T / MS);
    assert_eq!(
        calls[0].0.unix_ts_ms,
        T / MS,
        "the state includes the UUID being issued"
    );
    assert_eq!(calls[1].1, T / MS + 100);
    assert_eq!(calls[1].0.unix_ts_ms, T / MS + 100);
}

#[test]
fn reserve_failure_is_passed_on() {
    let clock = ManualClock::new(T);
    let store = Recorder {
        fail: true,
        ..Default::default()
    };
    let mut g = V7Generator::builder()
        .store(store)
        .build(&clock, seeded(19))
        .unwrap();
    let err = g.generate().unwrap_err();
    assert_eq!(err.kind(), GenErrorKind::Store);
    assert_eq!(
        err.to_string(),
        "state store failed: expected success, found error code 5"
    );
}

/// A store whose storage fails with an error of its own: the generator's
/// error carries the storage's words, and nothing is issued.
struct FailingFile;

impl Reserve<V7State> for FailingFile {
    fn reserve(&mut self, _: &V7State, _: u64) -> Result<Reservation<V7State>, GenError> {
        let io = std::fs::OpenOptions::new()
            .write(true)
            .open("/nonexistent-dir-of-the-reserve-test/ids.state")
            .unwrap_err();
        Err(GenError::store_message(&format!("writing ids.state: {io}")))
    }
}

#[test]
fn a_store_reports_its_own_error_message() {
    let clock = ManualClock::new(T);
    let mut g = V7Generator::builder()
        .store(FailingFile)
        .build(&clock, seeded(19))
        .unwrap();
    let err = g.generate().unwrap_err();
    assert_eq!(err.kind(), GenErrorKind::Store);
    assert_eq!(
        err.store_message_text(),
        Some("writing ids.state: No such file or directory (os error 2)")
    );
    assert_eq!(
        err.to_string(),
        "state store failed: writing ids.state: No such file or directory (os error 2)"
    );
    let long = "é".repeat(200);
    let cut = GenError::store_message(&long);
    let text = cut.store_message_text().unwrap();
    assert!(text.len() <= uuidkit::node::NodeLost::DETAIL_CAPACITY && text.ends_with('…'));
    assert!(long.starts_with(text.trim_end_matches('…')));
}

#[test]
fn restored_state_continues_above_the_high_water_mark() {
    // A restart with the clock 5 s behind the stored mark.
    let clock = ManualClock::new(T - 5_000 * MS);
    let mark = V7State {
        unix_ts_ms: T / MS,
        counter: u128::MAX,
        valid: true,
    };
    let mut g = V7Generator::new(&clock, seeded(20)).with_state(mark);
    let u = g.generate().unwrap();
    assert!(u > Uuid::v7_max(T / MS));
    assert_eq!(ms_of(u), T / MS + 1);
}

/// A store that resumes the generator from `mark` once, then reserves all,
/// and remembers what the seam told it.
#[derive(Debug, Default)]
struct Seam {
    mark: Option<V7State>,
    requests: Vec<(V7State, u64)>,
    held: std::rc::Rc<core::cell::Cell<bool>>,
    released: std::rc::Rc<core::cell::Cell<Option<V7State>>>,
}

impl Reserve<V7State> for Seam {
    fn reserve(&mut self, state: &V7State, needed: u64) -> Result<Reservation<V7State>, GenError> {
        self.requests.push((*state, needed));
        self.held.set(true);
        Ok(match self.mark.take() {
            Some(mark) => Reservation::ResumeFrom(mark),
            None => Reservation::Until(u64::MAX),
        })
    }
    fn is_held(&self) -> bool {
        self.held.get()
    }
    fn release(&mut self, last: &V7State) {
        self.released.set(Some(*last));
    }
}

#[test]
fn a_store_resumes_the_generator_above_its_mark() {
    let clock = ManualClock::new(T);
    let store = Seam {
        mark: Some(V7State {
            unix_ts_ms: T / MS + 5,
            counter: u128::MAX,
            valid: true,
        }),
        ..Default::default()
    };
    let mut g = V7Generator::builder()
        .store(store)
        .build(&clock, seeded(21))
        .unwrap();
    let u = g.generate().unwrap();
    assert_eq!(
        ms_of(u),
        T / MS + 6,
        "above the mark, the clock 5 ms behind it"
    );
    let requests = &g.store().requests;
    assert_eq!(requests.len(), 2, "declined once, then asked again");
    assert_eq!(requests[0].1, T / MS, "first asked at the clock");
    assert_eq!(requests[1].1, T / MS + 6);
    assert_eq!(
        requests[1].0,
        g.state(),
        "the request carried the UUID issued"
    );
}

#[test]
fn a_failed_reservation_leaves_the_state_as_it_was() {
    let clock = ManualClock::new(T);
    let store = Recorder {
        block_ms: 10,
        fail: true,
        ..Default::default()
    };
    let mut g = V7Generator::builder()
        .store(store)
        .build(&clock, seeded(22))
        .unwrap();
    assert_eq!(g.generate().unwrap_err().kind(), GenErrorKind::Store);
    assert!(!g.state().valid, "nothing was issued");
    g.store_mut().fail = false;
    let a = g.generate().unwrap();
    assert_eq!(ms_of(a), T / MS);
    // The next block's reservation fails: the state stays at `a`.
    clock.advance(10 * MS);
    g.store_mut().fail = true;
    assert_eq!(g.generate().unwrap_err().kind(), GenErrorKind::Store);
    assert_eq!(g.state().unix_ts_ms, T / MS);
    g.store_mut().fail = false;
    let b = g.generate().unwrap();
    assert!(a < b && ms_of(b) == T / MS + 10);
}

#[test]
fn a_reservation_that_no_longer_holds_is_renewed_and_stores_are_released() {
    let clock = ManualClock::new(T);
    let store = Seam::default();
    let (held, released) = (store.held.clone(), store.released.clone());
    let mut g = V7Generator::builder()
        .store(store)
        .build(&clock, seeded(23))
        .unwrap();
    for _ in 0..10 {
        g.generate().unwrap();
    }
    assert_eq!(
        g.store().requests.len(),
        1,
        "one reservation covers everything"
    );
    held.set(false); // e.g. in a forked child
    g.generate().unwrap();
    assert_eq!(
        g.store().requests.len(),
        2,
        "asked again before the next UUID"
    );
    let last = g.state();
    // Dropping the generator releases its store with the last state.
    drop(g);
    assert_eq!(released.get(), Some(last));
}

/// The combined method's edges: fraction and counter together 12 and 42 bits build and keep
/// order with at least 32 random bits left (74 - 42).
#[test]
fn method3_with_counter_takes_12_to_42_bits_together() {
    for (frac_bits, counter_bits) in [(1, 11), (10, 2), (12, 30), (4, 38)] {
        let clock = ManualClock::new(T + 456_700);
        let mut g = V7Generator::builder()
            .method(V7Method::SubMillisCounter {
                frac_bits,
                counter_bits,
            })
            .build(&clock, seeded(3))
            .unwrap();
        let us: Vec<Uuid> = (0..5000).map(|_| g.generate().unwrap()).collect();
        assert!(
            us.windows(2).all(|w| w[0] < w[1]),
            "{frac_bits}+{counter_bits}"
        );
    }
}
