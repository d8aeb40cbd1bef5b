//! Snowflake IDs against the crates a Rust user would pick — `snowflaked`, `ferroid`,
//! `rs-snowflake`, `sonyflake` — each in its fastest configuration, in the same run
//! (benchmarks/snowflake.md).
//!
//! Two measurements, because a snowflake generator has two costs:
//!
//! - **Sustained** (criterion, `snowflake_sustained/*`): IDs back to back. A generator that keeps
//!   to its clock makes at most one tick's sequence per tick (Twitter's layout: 4096 per
//!   millisecond, 244 ns each), so this measures that cap, not the code.
//! - **Below the cap** (the table printed at the end): the cost of one ID where the sequence is
//!   not used up: rounds of a burst of IDs started at the beginning of a tick and short of the
//!   tick's sequence, only the burst timed, the generators taken in turn within each round so
//!   that the machine's drift falls on all of them; the median per ID over the rounds.
//!
//!     cargo bench -p uuidkit --bench snowflake -- --warm-up-time 1 --measurement-time 3

use std::hint::black_box;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use criterion::Criterion;
use ferroid::generator::BasicSnowflakeGenerator;
use ferroid::id::SnowflakeTwitterId;
use ferroid::time::{MonotonicClock, TWITTER_EPOCH};
use uuidkit::clock::{CoarseClock, SystemClock, TickerClock};
use uuidkit::rng::ThreadRng;
use uuidkit::snowflake::{Layout, SnowflakeGenerator};

type Make = Box<dyn FnMut() -> u64>;

/// Every contender, with what it does differently (benchmarks/snowflake.md repeats it).
fn contenders() -> Vec<(&'static str, Make)> {
    let mut ours = SnowflakeGenerator::builder(Layout::TWITTER)
        .worker(1)
        .build(SystemClock, ThreadRng)
        .expect("generator");
    let mut coarse = SnowflakeGenerator::builder(Layout::TWITTER)
        .worker(1)
        .build(CoarseClock::new(), ThreadRng)
        .expect("generator");
    let mut ticker = SnowflakeGenerator::builder(Layout::TWITTER)
        .worker(1)
        .build(TickerClock::new(), ThreadRng)
        .expect("generator");
    let mut snowflaked = snowflaked::Generator::builder()
        .instance(1)
        .epoch(UNIX_EPOCH + Duration::from_millis(1_288_834_974_657))
        .build::<snowflaked::Generator>();
    let ferroid = BasicSnowflakeGenerator::<SnowflakeTwitterId, _>::new(
        1,
        MonotonicClock::<1>::with_epoch(TWITTER_EPOCH),
    );
    let mut rs_real = snowflake::SnowflakeIdGenerator::with_epoch(
        0,
        1,
        UNIX_EPOCH + Duration::from_millis(1_288_834_974_657),
    );
    let mut rs_generate = rs_real;
    let mut rs_lazy = rs_real;
    let machine = || Ok(1u16);
    let sony = sonyflake::Sonyflake::builder()
        .machine_id(&machine)
        .finalize()
        .expect("sonyflake");
    vec![
        (
            "uuidkit (SystemClock)",
            Box::new(move || ours.generate().expect("id")),
        ),
        (
            "uuidkit (CoarseClock)",
            Box::new(move || coarse.generate().expect("id")),
        ),
        (
            "uuidkit (TickerClock)",
            Box::new(move || ticker.generate().expect("id")),
        ),
        ("snowflaked", Box::new(move || snowflaked.generate::<u64>())),
        (
            "ferroid (Basic, MonotonicClock)",
            Box::new(move || ferroid.next_id(|_| std::hint::spin_loop()).to_raw()),
        ),
        (
            "rs-snowflake real_time_generate",
            Box::new(move || rs_real.real_time_generate() as u64),
        ),
        (
            "rs-snowflake generate",
            Box::new(move || rs_generate.generate() as u64),
        ),
        (
            "rs-snowflake lazy_generate",
            Box::new(move || rs_lazy.lazy_generate() as u64),
        ),
        (
            "sonyflake",
            Box::new(move || sony.next_id().expect("id").to_u64()),
        ),
    ]
}

fn sustained(c: &mut Criterion) {
    let mut group = c.benchmark_group("snowflake_sustained");
    for (name, mut make) in contenders() {
        if name == "sonyflake" {
            // 256 IDs per 10 ms: 39 µs each, back to back.
            group.sample_size(10);
        }
        group.bench_function(name, |b| b.iter(|| black_box(make())));
    }
    group.finish();
}

fn unix_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

/// Waits for the system clock's next multiple of `tick_ns`.
fn next_tick(tick_ns: u64) {
    let target = (unix_ns() / tick_ns + 1) * tick_ns;
    while unix_ns() < target {
        std::hint::spin_loop();
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// The per-ID cost below the cap: `rounds` rounds of a burst from each contender, each burst
/// started at a fresh tick of the contender's layout and short of its sequence (2000 IDs in a
/// millisecond of 4096; Sonyflake: 200 in 10 ms of 256), so that nothing waits.
fn below_the_cap(rounds: usize) {
    let mut all = contenders();
    let mut per: Vec<Vec<f64>> = vec![Vec::with_capacity(rounds); all.len()];
    for _ in 0..rounds {
        for (i, (name, make)) in all.iter_mut().enumerate() {
            let (tick, burst) = if *name == "sonyflake" {
                (10_000_000, 200)
            } else {
                (1_000_000, 2_000)
            };
            next_tick(tick);
            let t = Instant::now();
            for _ in 0..burst {
                black_box(make());
            }
            per[i].push(t.elapsed().as_nanos() as f64 / f64::from(burst));
        }
    }
    let medians: Vec<f64> = per.into_iter().map(median).collect();
    let peers = all
        .iter()
        .position(|(n, _)| *n == "snowflaked")
        .expect("peers");
    let fastest_peer = medians[peers..]
        .iter()
        .copied()
        .fold(f64::INFINITY, f64::min);
    let snowflaked = medians[peers];
    let ferroid = medians[peers + 1];
    println!("\nbelow the cap: median ns per ID over {rounds} rounds");
    println!("| generator | ns per ID | / fastest peer | / ferroid | / snowflaked |");
    println!("|---|---|---|---|---|");
    for ((name, _), m) in all.iter().zip(&medians) {
        println!(
            "| {name} | {m:.2} | {:.3}× | {:.3}× | {:.3}× |",
            m / fastest_peer,
            m / ferroid,
            m / snowflaked
        );
    }
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    sustained(&mut c);
    c.final_summary();
    below_the_cap(300);
}
