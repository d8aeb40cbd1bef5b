//! The real-clock guarantees of the process-wide generators: monotonic from one
//! thread, distinct and per-thread increasing from four, happens-before across
//! threads (single calls and bursts); and v4's bit statistics.

use std::sync::mpsc;

use uuidkit::clock::SystemClock;
use uuidkit::rng::ThreadRng;
use uuidkit::{Generator, Uuid, V7Generator, Variant, Version};

#[test]
fn ten_million_now_v7_from_one_thread_strictly_increase() {
    let mut prev = Uuid::now_v7();
    for i in 0..10_000_000u32 {
        let u = Uuid::now_v7();
        assert!(prev < u, "at {i}: {prev:?} then {u:?}");
        prev = u;
    }
}

#[test]
fn one_million_from_a_v7_generator_on_the_system_clock_increase() {
    let mut g = V7Generator::new(SystemClock, ThreadRng);
    let mut prev = g.generate().unwrap();
    for _ in 0..1_000_000 {
        let u = g.generate().unwrap();
        assert!(prev < u);
        prev = u;
    }
}

#[test]
fn four_threads_times_one_million_distinct_and_each_increasing() {
    let handles: Vec<_> = (0..4)
        .map(|_| {
            std::thread::spawn(|| {
                let mut v = Vec::with_capacity(1_000_000);
                for i in 0..1_000_000 {
                    // Mix single calls and batches.
                    if i % 1000 == 0 {
                        let mut batch = [Uuid::NIL; 8];
                        Uuid::fill_v7(&mut batch);
                        v.extend_from_slice(&batch);
                    } else {
                        v.push(Uuid::now_v7());
                    }
                }
                v
            })
        })
        .collect();
    let mut all = Vec::with_capacity(4_100_000);
    for h in handles {
        let v = h.join().unwrap();
        assert!(v.windows(2).all(|w| w[0] < w[1]), "each thread increasing");
        all.extend(v);
    }
    let n = all.len();
    all.sort_unstable();
    all.dedup();
    assert_eq!(all.len(), n, "all distinct");
}

/// A thread B that answers each UUID sent to it with a `Uuid::now_v7` of its
/// own, which must be greater: where to send, where the answers come, B.
fn answerer() -> (
    mpsc::SyncSender<Uuid>,
    mpsc::Receiver<Uuid>,
    std::thread::JoinHandle<()>,
) {
    let (to_b, from_a) = mpsc::sync_channel::<Uuid>(0);
    let (to_a, from_b) = mpsc::sync_channel::<Uuid>(0);
    let b = std::thread::spawn(move || {
        for a in from_a {
            let u = Uuid::now_v7();
            assert!(a < u, "A's {a:?} happened before B's {u:?}");
            to_a.send(u).unwrap();
        }
    });
    (to_b, from_b, b)
}

#[test]
fn happens_before_implies_greater_100k_times() {
    let (to_b, from_b, b) = answerer();
    for _ in 0..100_000 {
        let u = Uuid::now_v7();
        to_b.send(u).unwrap();
        let back = from_b.recv().unwrap();
        assert!(u < back);
        assert!(back < Uuid::now_v7(), "and B's happened before A's next");
    }
    drop(to_b);
    b.join().unwrap();
}

/// A thread that makes calls alone uses values reserved ahead for it
/// (docs/generator-design.md G10); another thread's call in between must
/// still come after all of them, and its next call after that one.
#[test]
fn happens_before_implies_greater_between_bursts_and_single_calls() {
    let (to_b, from_b, b) = answerer();
    let mut last = Uuid::NIL;
    for round in 0..5_000 {
        // Bursts of 1 to 64 calls: runs of every length, cut off anywhere.
        for _ in 0..=(round % 64) {
            let u = Uuid::now_v7();
            assert!(last < u, "round {round}: {last:?} happened before {u:?}");
            last = u;
        }
        to_b.send(last).unwrap();
        last = from_b.recv().unwrap();
    }
    drop(to_b);
    b.join().unwrap();
}

#[test]
fn one_million_v4_unique_with_fair_bits() {
    const N: usize = 1_000_000;
    let mut v = vec![Uuid::NIL; N];
    // Half through the batch API, half one by one.
    Uuid::fill_v4(&mut v[..N / 2]);
    for slot in &mut v[N / 2..] {
        *slot = Uuid::new_v4();
    }
    let mut ones = [0u32; 128];
    for u in &v {
        assert_eq!(u.version(), Some(Version::Random));
        assert_eq!(u.variant(), Variant::Rfc9562);
        assert_eq!(u.as_bytes()[6] >> 4, 4);
        assert_eq!(u.as_bytes()[8] >> 6, 0b10);
        let x = u.as_u128();
        for (bit, count) in ones.iter_mut().enumerate() {
            *count += ((x >> (127 - bit)) & 1) as u32;
        }
    }
    let fixed = [48, 49, 50, 51, 64, 65];
    for (bit, &count) in ones.iter().enumerate() {
        if fixed.contains(&bit) {
            continue;
        }
        let p = count as f64 / N as f64;
        assert!((0.495..=0.505).contains(&p), "bit {bit}: P(1) = {p}");
    }
    v.sort_unstable();
    v.dedup();
    assert_eq!(v.len(), N, "no duplicate");
}
