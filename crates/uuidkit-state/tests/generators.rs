//! The generators bound to a store, driven by a manual clock: shared stores,
//! crash and restart with the clock set back, clock steps within a process.

use std::collections::HashSet;

use crate::support::{leased_v1, leased_v7};

use uuidkit::clock::ManualClock;
use uuidkit::generator::GenErrorKind;
use uuidkit::rng::ThreadRng;
use uuidkit::{Generator, Uuid, V1Generator, V6Generator, V7Generator};
use uuidkit_state::{
    BlockOrigin, BlockPolicy, MemoryStore, Reserver,
    format::{StateRecord, V7Mark},
};

const T0: u64 = 1_645_557_742_000_000_000; // 2022-02-22T19:22:22Z
const T0_MS: u64 = T0 / 1_000_000;
const NODE: [u8; 6] = [0x9F, 0x6B, 0xDE, 0xCE, 0xD8, 0x46];

fn reserver() -> Reserver {
    Reserver::new(MemoryStore::new(), BlockPolicy::default())
}

#[test]
fn v7_generators_sharing_a_store_use_disjoint_milliseconds() {
    let clock = ManualClock::new(T0);
    let r = reserver();
    let mut a = leased_v7(&clock, &r);
    let mut b = leased_v7(&clock, &r);
    let (mut xa, mut xb) = (Vec::new(), Vec::new());
    for i in 0..20_000u64 {
        xa.push(a.generate().unwrap());
        xb.push(b.generate().unwrap());
        if i % 100 == 0 {
            clock.advance(1_000_000);
        }
    }
    assert!(xa.windows(2).all(|w| w[0] < w[1]) && xb.windows(2).all(|w| w[0] < w[1]));
    let ma: HashSet<u64> = xa.iter().map(|u| u.unix_ts_ms().unwrap()).collect();
    let mb: HashSet<u64> = xb.iter().map(|u| u.unix_ts_ms().unwrap()).collect();
    assert!(ma.is_disjoint(&mb), "no millisecond is used by both");
    assert_eq!(xa[0].unix_ts_ms(), Some(T0_MS));
    assert_eq!(
        xb[0].unix_ts_ms(),
        Some(T0_MS + 100),
        "b's first block starts where a's ends"
    );
}

#[test]
fn v1_and_v6_generators_sharing_a_store_and_node_never_collide() {
    let clock = ManualClock::new(T0).advancing_on_relax(1_000_000);
    let r = reserver();
    let mut a = V1Generator::builder()
        .node(NODE)
        .store(r.lease_v1())
        .build(&clock, ThreadRng)
        .unwrap();
    let mut b = leased_v1(&clock, &r);
    let v6 = || {
        V6Generator::builder()
            .retain()
            .store(r.lease_v6())
            .build(&clock, ThreadRng)
    };
    let mut c = v6().unwrap();
    let mut d = v6().unwrap();
    let mut seen = HashSet::new();
    let mut last = [0u64; 4];
    for _ in 0..2_000 {
        for (i, u) in [a.generate(), b.generate(), c.generate(), d.generate()]
            .into_iter()
            .enumerate()
        {
            let u = u.unwrap();
            assert!(seen.insert(u), "duplicate {u:?}");
            let ts = u.gregorian_timestamp().unwrap();
            assert!(ts > last[i], "generator {i} increasing");
            last[i] = ts;
            if i < 2 {
                assert_eq!(u.node(), Some(NODE), "b adopts the stored node");
            }
        }
    }
    let ba = a.store().block().unwrap();
    let bb = b.store().block().unwrap();
    assert_eq!(
        ba.clock_seq, bb.clock_seq,
        "one clock sequence: only disjoint timestamps keep them apart"
    );
    assert!(ba.end <= bb.start || bb.end <= ba.start);
}

#[test]
fn crash_then_restart_with_clock_5s_back() {
    let clock = ManualClock::new(T0).advancing_on_relax(1_000_000);
    let r = reserver();
    let mut a7 = leased_v7(&clock, &r);
    let mut a1 = leased_v1(&clock, &r);
    let pre7: Vec<Uuid> = (0..1000).map(|_| a7.generate().unwrap()).collect();
    let pre1: Vec<Uuid> = (0..1000).map(|_| a1.generate().unwrap()).collect();
    let cs = a1.store().block().unwrap().clock_seq;
    // A crash: no destructor runs, nothing is given back.
    std::mem::forget(a7);
    std::mem::forget(a1);
    clock.step_back(5_000_000_000);

    // a7's block was [T0, T0 + 100 ms); the v1 generator's waits moved the clock on since.
    let now_ms = clock.now() / 1_000_000;
    assert!(now_ms + 3_000 < T0_MS, "the clock really is seconds behind");
    let mut b7 = leased_v7(&clock, &r);
    let first = b7.generate().unwrap();
    assert_eq!(first.unix_ts_ms(), Some(T0_MS + 100));
    assert!(
        first > *pre7.iter().max().unwrap(),
        "v7 continues above everything issued before"
    );
    assert_eq!(
        b7.store().block().unwrap().origin,
        BlockOrigin::ClockBehind {
            by: T0_MS + 100 - now_ms
        }
    );
    let status = b7.store().status().unwrap();
    assert!(status.is_persisted() && !status.is_safe(), "{status}");
    assert_eq!(
        status.reason().map(|e| e.kind()),
        Some(uuidkit_state::StateErrorKind::AheadOfClock),
        "the block 5 s ahead of the clock is reported"
    );

    let mut b1 = leased_v1(&clock, &r);
    let post1: Vec<Uuid> = (0..1000).map(|_| b1.generate().unwrap()).collect();
    assert_eq!(
        b1.store().block().unwrap().clock_seq,
        (cs + 1) & 0x3FFF,
        "v1: clock sequence incremented"
    );
    assert!(
        post1[0].gregorian_timestamp() < pre1[0].gregorian_timestamp(),
        "v1 restarts at the clock"
    );
    let all: HashSet<Uuid> = pre1.iter().chain(&post1).copied().collect();
    assert_eq!(all.len(), 2000);
}

#[test]
fn v1_clock_step_back_within_a_process_goes_through_the_store() {
    let clock = ManualClock::new(T0).advancing_on_relax(1_000_000);
    let r = reserver();
    let mut g = leased_v1(&clock, &r);
    let mut seen: HashSet<Uuid> = (0..100).map(|_| g.generate().unwrap()).collect();
    let cs = g.store().block().unwrap().clock_seq;
    // 1 ms back: within the tolerance, so the clock sequence stays and the
    // generator waits for the clock to pass the stored mark.
    clock.step_back(1_000_000);
    for _ in 0..100 {
        assert!(seen.insert(g.generate().unwrap()));
    }
    assert_eq!(g.store().block().unwrap().clock_seq, cs);
    // 1 h back: beyond it, so the store increments the clock sequence.
    clock.step_back(3_600_000_000_000);
    let u = g.generate().unwrap();
    assert!(seen.insert(u));
    assert_eq!(u.clock_seq(), Some((cs + 1) & 0x3FFF));
    let mut stored = None;
    let status = r.store().transact(&mut |old| {
        stored = old.copied();
        *old.unwrap()
    });
    assert!(status.is_safe());
    let cs_stored = stored.unwrap().v1.unwrap().clock_seq;
    assert_eq!(
        cs_stored,
        (cs + 1) & 0x3FFF,
        "the store holds the new clock sequence"
    );
}

#[test]
fn v7_clock_far_behind_the_block_is_an_error_not_a_step_back() {
    let clock = ManualClock::new(T0);
    let mut g = V7Generator::builder()
        .clock_back(uuidkit::generator::ClockBackPolicy::Reset, 10_000_000_000)
        .store(reserver().lease_v7())
        .build(&clock, ThreadRng)
        .unwrap();
    let before = g.generate().unwrap();
    clock.step_back(20_000_000_000); // beyond the generator's 10 s tolerance; its policy is Reset
    for _ in 0..3 {
        let err = g.generate().unwrap_err();
        assert_eq!(err.kind(), GenErrorKind::ClockBehind);
        assert_eq!(
            err.to_string(),
            format!(
                "clock behind: expected at least {T0} ns (last timestamp minus tolerance), found {} ns",
                T0 - 20_000_000_000
            )
        );
        assert_eq!(
            g.state().unix_ts_ms,
            T0_MS,
            "the declined UUID left no trace"
        );
    }
    clock.advance(20_000_000_000);
    let after = g.generate().unwrap();
    assert!(after > before, "still above everything issued");
    assert_eq!(
        after.unix_ts_ms(),
        Some(T0_MS),
        "counting on in the same block and millisecond"
    );
}

/// Runs `f` on a thread and fails if it takes longer than `limit`: a
/// generator that spins must fail the test, not hang the suite.
fn within<T: Send + 'static>(
    limit: std::time::Duration,
    f: impl FnOnce() -> T + Send + 'static,
) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(limit)
        .expect("generation did not finish in time (spinning?)")
}

#[test]
fn v7_stored_mark_far_ahead_of_the_clock_continues_above_it_at_once() {
    for ahead_ms in [60_000u64, 3_600_000] {
        let mark = T0_MS + ahead_ms;
        let (uuids, origin, stored) = within(std::time::Duration::from_secs(20), move || {
            let store = MemoryStore::with_record(StateRecord {
                v7: Some(V7Mark { hwm_ms: mark }),
                ..StateRecord::default()
            });
            let r = Reserver::new(store, BlockPolicy::default());
            let clock = ManualClock::new(T0);
            let mut g = leased_v7(&clock, &r);
            let mut out = Vec::new();
            for i in 0..3_000 {
                out.push(g.generate().unwrap());
                if i % 1_000 == 999 {
                    clock.advance(1_000_000);
                }
            }
            let mut batch = [Uuid::NIL; 500];
            g.fill(&mut batch).unwrap();
            out.extend(batch);
            let origin = g.store().block().unwrap().origin;
            drop(g);
            let stored = r.store().transact(&mut |old| *old.unwrap());
            assert!(stored.is_safe());
            let mut rec = None;
            r.store().transact(&mut |old| {
                rec = old.copied();
                *old.unwrap()
            });
            (out, origin, rec.unwrap().v7.unwrap().hwm_ms)
        });
        assert_eq!(uuids[0].unix_ts_ms(), Some(mark), "starts at the mark");
        assert!(uuids.windows(2).all(|w| w[0] < w[1]), "strictly increasing");
        let last_ms = uuids.last().unwrap().unix_ts_ms().unwrap();
        assert!(
            last_ms < mark + 100,
            "stays within the one block it reserved"
        );
        assert_eq!(
            origin,
            BlockOrigin::ClockBehind { by: ahead_ms },
            "the reservation says by how much the clock is behind"
        );
        assert_eq!(
            stored,
            last_ms + 1,
            "the mark moved only past what was used"
        );
    }
}
