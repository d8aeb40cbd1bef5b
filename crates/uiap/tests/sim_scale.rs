//! Scale: a random mesh with many concurrent claims finishes, with every invariant intact.

use uiap::config::Config;
use uiap::sim::{ClaimSpec, Sim, topology};
use uiap::space::{DomainId, Uid, UidSpace, conflicts};
use uiap::time::Instant;

pub struct Figures {
    pub links: usize,
    pub messages_per_claim: f64,
    pub peak_table: usize,
    pub events: u64,
}

/// `devices` nodes, `links` links, `claims` claims of random one-octet UIDs (so some
/// conflict) started within the first second on distinct nodes.
pub fn run(devices: usize, links: usize, claims: usize, seed: u64) -> (Sim, Figures) {
    let mut sim = Sim::new(seed, Config::default());
    sim.track_forwards();
    let nodes = topology::random_mesh(&mut sim, devices, links, seed);
    let domain = DomainId::from_bytes([0x0f, 0xff, 0, 0, 0, 1, 0, 0]);
    let refs: Vec<_> = (0..claims)
        .map(|i| {
            let node = nodes[(i * 7919) % devices];
            let h = (i as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ seed;
            let uid = ((h >> 40) % (2 * claims as u64).min(256)) as u8;
            let at = Instant::from_millis((i as u64 * 37) % 1000);
            sim.claim_at(
                at,
                node,
                ClaimSpec::new(domain, UidSpace::Unique(Uid::from_octets(&[uid]).unwrap())),
            )
        })
        .collect();
    sim.run_until(Instant::from_secs(30));
    // Every claim got an outcome.
    for r in &refs {
        assert!(
            sim.claim(*r).outcome.is_some(),
            "claim {r:?} has no outcome"
        );
    }
    // No two successful claims conflict (lossless network, delay far below the claim window).
    let won: Vec<_> = refs
        .iter()
        .map(|r| sim.claim(*r))
        .filter(|c| c.outcome.unwrap().kind.succeeded())
        .collect();
    for (i, a) in won.iter().enumerate() {
        for b in &won[i + 1..] {
            assert!(
                !conflicts(&a.spec.domain, &a.spec.space, &b.spec.domain, &b.spec.space),
                "{a:?} {b:?}"
            );
        }
    }
    assert!(
        !won.is_empty() && won.len() < claims,
        "some win, some conflict: {}",
        won.len()
    );
    // Every message forwarded at most once per node and interface.
    assert_eq!(sim.max_forwards().0, 1);
    let t = sim.totals();
    let messages = t.attempts_sent + t.attempts_forwarded + t.denies_sent + t.denies_forwarded;
    let figures = Figures {
        links,
        messages_per_claim: messages as f64 / claims as f64,
        peak_table: t.peak_message_table,
        events: sim.stats().events,
    };
    (sim, figures)
}

#[test]
fn random_mesh_200_devices_20_claims() {
    let (sim, f) = run(200, 400, 20, 1);
    // A flood crosses every link at least once and at most twice (both ends may send it).
    let floods = sim.totals().floods_originated as f64;
    let attempts = (sim.totals().attempts_sent + sim.totals().attempts_forwarded) as f64;
    assert!(
        attempts >= floods * (f.links as f64 - 1.0) && attempts <= floods * 2.0 * f.links as f64,
        "{attempts} {floods}"
    );
    assert!(f.peak_table <= floods as usize);
}

#[test]
fn random_mesh_1000_devices_100_claims() {
    let (sim, f) = run(1000, 2000, 100, 2);
    assert!(f.peak_table > 0 && f.peak_table <= 4096);
    assert!(sim.stats().delivered > 100_000);
    println!(
        "1000 devices, {} links, 100 claims: {:.0} messages per claim, peak table {}, {} events",
        f.links, f.messages_per_claim, f.peak_table, f.events
    );
}

/// docs/uiap-design.md D78: the scenario that reached 5.1 GB inside every stated bound — 1,000
/// devices each on all of 10 shared segments, 1,000 renewing claims at once — stops where its
/// queue would pass `MAX_QUEUED` entries (about 256 MiB), saying when; before the bound it
/// queued without limit. A site of 300 devices on one segment with 299 claims at once stays far
/// below the bound and runs whole.
#[test]
fn a_run_holds_at_most_max_queued_events_and_says_where_it_stopped() {
    let config = Config {
        auto_renew: true,
        ..Config::default()
    };
    let domain = DomainId::from_bytes([0x0f, 0xff, 0, 0, 0, 1, 0, 0]);
    let claim = |sim: &mut Sim, node, i: usize| {
        let uid = Uid::from_octets(&(i as u16).to_be_bytes()).unwrap();
        sim.claim_at(
            Instant::from_secs(1),
            node,
            ClaimSpec::new(domain, UidSpace::Unique(uid)).lifetime(10),
        );
    };
    let mut mesh = Sim::new(1, config.clone());
    let segments: Vec<_> = (0..10)
        .map(|_| mesh.add_segment(Default::default()))
        .collect();
    for i in 0..1000 {
        let node = mesh.add_node(&format!("d{i}"), &segments);
        claim(&mut mesh, node, i);
    }
    mesh.run_until(Instant::from_millis(86_400_000 - 1));
    let stats = mesh.stats();
    eprintln!(
        "maxmesh: stopped at {:?}, peak {} queued, {} events",
        stats.stopped_full, stats.peak_queued, stats.events
    );
    assert!(stats.peak_queued <= uiap::sim::MAX_QUEUED as u64);
    let at = stats
        .stopped_full
        .expect("the run did not stop at the bound");
    assert!(at < Instant::from_secs(2), "{at:?}");
    assert_eq!(mesh.now(), at, "the clock stays where the run stopped");

    let mut lan = Sim::new(1, config);
    let segment = lan.add_segment(Default::default());
    for i in 0..300 {
        let node = lan.add_node(&format!("d{i}"), &[segment]);
        if i > 0 {
            claim(&mut lan, node, i);
        }
    }
    lan.run_until(Instant::from_secs(5));
    let stats = lan.stats();
    eprintln!("one segment: peak {} queued", stats.peak_queued);
    assert_eq!(stats.stopped_full, None);
    assert!(stats.peak_queued < uiap::sim::MAX_QUEUED as u64 / 10);
}
