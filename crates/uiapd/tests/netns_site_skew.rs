//! Consecutive tenures of one site node by two devices whose clocks disagree
//! (docs/uiap-design.md D72). Two keyed daemons in network namespaces on one LAN; the first
//! device's daemon and its lease's wall clock are offset alike (the daemon's debug clock hook,
//! the lease's test-only offset), as on a host whose clock is wrong. The first lease holds a
//! node and makes UUIDs with it, then releases it, or its daemon is killed without a word; the
//! second lease, drawing the same value, claims the same node and makes UUIDs.
//!
//! The checker reads every UUID's millisecond, as the fleet checker does: with the fix, no
//! millisecond is in both tenures and the second tenure starts above the first one's last
//! (waiting about the offset when the first clock was ahead, not at all when it was behind).
//! Its negative control, the wait switched off (a test-only switch), finds shared milliseconds
//! at 1 s and a second tenure that starts below the first at 20 s. The daemons run fast timers
//! (a claim round of about 300 ms): with the default 2.5 s round, a skew under it is hidden by
//! the round itself. Needs root and iproute2.

use crate::netns_support;

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use netns_support::{FAST_TIMERS, Net, can_run};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use uuidkit::node::NodeSource;
use uuidkit::rng::ThreadRng;
use uuidkit::{Generator, V8Distributed};
use uuidkit_lease::site::{LeaseConfig, SiteLease};
use uuidkit_lease::{LeaseSlot, Testing};

/// How the first tenure ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum End {
    /// The lease is released.
    Release,
    /// The first device's daemon is killed: the lease sees it gone and stops.
    Kill,
}

/// How long the first holder makes UUIDs, and the next one.
const FIRST: Duration = Duration::from_millis(400);
const NEXT: Duration = Duration::from_millis(1200);

/// Makes UUIDs with the lease's pair clock until `run` has passed or the node is lost; every
/// UUID made.
fn generate(slot: &Arc<LeaseSlot>, run: Duration) -> Vec<u128> {
    let (clock, source) = slot.pair();
    let mut g = V8Distributed::builder()
        .node_source(source)
        .build(clock, ThreadRng)
        .unwrap();
    let end = Instant::now() + run;
    let mut made = Vec::new();
    while Instant::now() < end && slot.current().is_ok() {
        made.extend(g.generate().ok().map(|u| u.as_u128()));
        std::thread::sleep(Duration::from_micros(100));
    }
    made
}

/// What one handoff showed.
#[derive(Debug)]
struct Handoff {
    /// Milliseconds used by both tenures.
    shared: usize,
    /// The second tenure's first millisecond is at or below the first one's last.
    not_above: bool,
    /// What the second lease said it waited for.
    waited: Vec<String>,
    /// How long the second lease took to acquire.
    acquire: Duration,
}

fn config(control: &std::path::Path, offset_ms: i64, wait: bool) -> LeaseConfig {
    LeaseConfig {
        // Both daemons run from before the first claim: no device was missed, and the test
        // vouches for none, so that the wait is the measured offset's alone.
        max_clock_offset: Some(Duration::ZERO),
        answer_limit: Some(Duration::from_secs(10)),
        testing: Testing {
            no_high_water: !wait,
            wall_offset_ms: offset_ms,
            ..Testing::default()
        },
        ..LeaseConfig::new(control.to_path_buf(), 8)
    }
}

/// One handoff from a device whose clock is `offset_ms` off to one whose clock is right, the
/// next lease waiting at most `clock_wait`; the next lease's error, if it failed (the daemon
/// then lists no claim of it).
fn handoff(
    offset_ms: i64,
    end: End,
    fix: bool,
    seed: u8,
    clock_wait: Duration,
) -> Result<Handoff, uuidkit_lease::LeaseError> {
    let mut net = Net::lan(3);
    let key = net.dir.join("psk");
    std::fs::write(&key, "site key\n").unwrap();
    let mut flags: Vec<String> = FAST_TIMERS.iter().map(|s| s.to_string()).collect();
    flags.extend(["--psk-file".to_string(), key.display().to_string()]);
    let step = net.dir.join("a-clock-step-ms");
    std::fs::write(&step, offset_ms.to_string()).unwrap();
    let env = [(
        "UIAPD_TEST_CLOCK_STEP_FILE".to_string(),
        step.display().to_string(),
    )];
    net.start_daemon_with_env(1, &flags, &env);
    net.start_daemon(2, &flags);
    for d in &net.daemons {
        d.wait_interfaces(1);
    }
    let (a_control, b_control) = (
        net.daemons[0].control.clone(),
        net.daemons[1].control.clone(),
    );

    // The first holder starts at once (its own wait is not what is tested).
    let first = SiteLease::acquire(
        &config(&a_control, offset_ms, false),
        &mut ChaCha20Rng::from_seed([seed; 32]),
    )
    .unwrap();
    let node = first.node();
    let mut a = generate(first.slot(), FIRST);
    match end {
        End::Release => first.release().unwrap(),
        End::Kill => {
            net.daemons[0].kill();
            a.extend(generate(first.slot(), Duration::from_secs(2)));
            assert!(
                first.slot().current().is_err(),
                "the daemon's death was not seen"
            );
            drop(first);
        }
    }

    let mut waited = Vec::new();
    let start = Instant::now();
    let next = SiteLease::acquire_reporting(
        &LeaseConfig {
            clock_wait,
            ..config(&b_control, 0, fix)
        },
        &mut ChaCha20Rng::from_seed([seed; 32]),
        &mut |what| waited.push(what.to_string()),
    );
    let next = match next {
        Ok(next) => next,
        Err(e) => {
            let deadline = Instant::now() + Duration::from_secs(5);
            while net.daemons[1].list().iter().any(|c| c.state.is_held()) {
                assert!(Instant::now() < deadline, "the claim was kept after {e}");
                std::thread::sleep(Duration::from_millis(20));
            }
            return Err(e);
        }
    };
    let acquire = start.elapsed();
    assert_eq!(next.node(), node, "the same draw claims the same node");
    let b = generate(next.slot(), NEXT);
    next.release().unwrap();
    assert!(!a.is_empty() && !b.is_empty(), "{} {}", a.len(), b.len());

    let ms = |v: &[u128]| -> BTreeSet<u128> { v.iter().map(|u| u >> 80).collect() };
    let (a, b) = (ms(&a), ms(&b));
    let last = a.iter().max().copied().unwrap_or(0);
    let start = b.iter().min().copied().unwrap_or(u128::MAX);
    Ok(Handoff {
        shared: a.intersection(&b).count(),
        not_above: start <= last,
        waited: waited
            .into_iter()
            .filter(|w| w.starts_with("waiting"))
            .collect(),
        acquire,
    })
}

/// As the lease waits by default: longer than any offset a key lets through.
const WAIT: Duration = Duration::from_secs(40);

const ROWS: [(i64, End); 8] = [
    (1_000, End::Release),
    (-1_000, End::Release),
    (20_000, End::Release),
    (-20_000, End::Release),
    (1_000, End::Kill),
    (-1_000, End::Kill),
    (20_000, End::Kill),
    (-20_000, End::Kill),
];

/// With the fix: no shared millisecond, the next tenure above the last, a wait only when the
/// first clock was ahead.
#[test]
fn the_next_holder_starts_above_every_millisecond_of_a_holder_whose_clock_is_off() {
    if !can_run("the_next_holder_starts_above_every_millisecond_of_a_holder_whose_clock_is_off") {
        return;
    }
    for (i, (offset, end)) in ROWS.into_iter().enumerate() {
        let h = handoff(offset, end, true, 10 + i as u8, WAIT).unwrap();
        eprintln!("first clock {offset:+} ms, {end:?}: {h:?}");
        assert_eq!(h.shared, 0, "{offset} {end:?}: {h:?}");
        assert!(!h.not_above, "{offset} {end:?}: {h:?}");
        if offset > 0 {
            assert_eq!(h.waited.len(), 1, "{offset} {end:?}: {h:?}");
            assert!(
                h.waited[0].contains(" s ahead of this host's"),
                "{}",
                h.waited[0]
            );
        } else {
            assert!(h.waited.is_empty(), "behind needs no wait: {h:?}");
            assert!(h.acquire < Duration::from_secs(3), "{h:?}");
        }
    }
    // A wait longer than the lease allows: the claim is released and the lease fails, naming
    // the node, the wait and the neighbour.
    let e = handoff(20_000, End::Release, true, 30, Duration::from_secs(2)).unwrap_err();
    assert_eq!(e.kind(), uuidkit_lease::LeaseErrorKind::Denied, "{e}");
    let text = e.to_string();
    assert!(
        text.contains("would have to wait") && text.contains(" s ahead of this host's"),
        "{text}"
    );
}

/// The negative control: with the wait switched off, a first clock 1 s ahead leaves
/// milliseconds in both tenures, and one 20 s ahead a next tenure that starts below the last.
#[test]
fn without_the_wait_a_holder_whose_clock_is_ahead_shares_milliseconds() {
    if !can_run("without_the_wait_a_holder_whose_clock_is_ahead_shares_milliseconds") {
        return;
    }
    for (i, (offset, end)) in [
        (1_000, End::Release),
        (1_000, End::Kill),
        (20_000, End::Release),
    ]
    .into_iter()
    .enumerate()
    {
        let h = handoff(offset, end, false, 40 + i as u8, WAIT).unwrap();
        eprintln!("wait off, first clock {offset:+} ms, {end:?}: {h:?}");
        assert!(h.not_above, "{offset} {end:?}: {h:?}");
        if offset == 1_000 {
            assert!(h.shared > 0, "{offset} {end:?}: {h:?}");
        }
    }
}
