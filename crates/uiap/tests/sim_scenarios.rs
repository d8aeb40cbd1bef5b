//! Whole-site behaviour in the simulator: timing, hop limits, simultaneous claims, proxy
//! defense, partitions and merges, flooding bounds and determinism.

use core::time::Duration;

use uiap::config::Config;
use uiap::device::{ClaimErrorKind, ClaimState, DropReason, FailureReason};
use uiap::sim::{ClaimSpec, NodeId, Outcome, SegmentParams, Sim};
use uiap::space::{DomainId, Uid, UidSpace};
use uiap::time::Instant;

const DOMAIN: DomainId = DomainId::from_bytes([0x0f, 0xff, 0, 0, 0, 1, 0, 0]);

fn unique(b: u8) -> UidSpace {
    UidSpace::Unique(Uid::from_octets(&[b]).unwrap())
}

fn spec(b: u8) -> ClaimSpec {
    ClaimSpec::new(DOMAIN, unique(b))
}

fn ms(x: u64) -> Instant {
    Instant::from_millis(x)
}

/// `n` nodes `n0 … n{n-1}` in a line, one point-to-point segment between neighbours.
fn line(sim: &mut Sim, n: usize) -> Vec<NodeId> {
    uiap::sim::topology::line(sim, "n", n)
}

fn outcome(sim: &Sim, c: uiap::sim::ClaimRef) -> Outcome {
    sim.claim(c).outcome.expect("claim has an outcome").kind
}

#[test]
fn empty_site_claim_succeeds_at_2_5_s_plus_jitter() {
    let mut times = Vec::new();
    for seed in 0..20 {
        let mut sim = Sim::new(seed, Config::default());
        let nodes = line(&mut sim, 4);
        let c = sim.claim_at(Instant::ZERO, nodes[1], spec(1));
        sim.run_until(Instant::from_secs(10));
        let o = sim.claim(c).outcome.unwrap();
        assert_eq!(o.kind, Outcome::Succeeded);
        assert!(o.at >= ms(2_500) && o.at <= ms(2_750), "{}", o.at);
        times.push(o.at);
        // The three floods reached everyone: 3 nodes × 3 attempts received.
        assert_eq!(sim.totals().attempts_received, 9);
    }
    times.dedup();
    assert!(times.len() > 10, "start jitter varies with the seed");
    let mut sim = Sim::new(
        1,
        Config {
            start_jitter: Duration::ZERO,
            ..Config::default()
        },
    );
    let nodes = line(&mut sim, 2);
    let c = sim.claim_at(ms(100), nodes[0], spec(1));
    sim.run_until(Instant::from_secs(10));
    assert_eq!(sim.claim(c).outcome.unwrap().at, ms(2_600));
}

/// A holder `hops` links away from the claimant; returns (sim, nodes, holder claim, new claim).
fn holder_at(hops: usize) -> (Sim, Vec<NodeId>, uiap::sim::ClaimRef, uiap::sim::ClaimRef) {
    let mut sim = Sim::new(hops as u64, Config::default());
    sim.track_forwards();
    let nodes = line(&mut sim, hops + 1);
    let h = sim.claim_at(Instant::ZERO, nodes[hops], spec(42));
    let c = sim.claim_at(Instant::from_secs(5), nodes[0], spec(42));
    sim.run_until(Instant::from_secs(20));
    (sim, nodes, h, c)
}

#[test]
fn conflict_is_denied_at_1_5_and_33_hops() {
    for hops in [1, 5, 33] {
        let (sim, nodes, h, c) = holder_at(hops);
        assert_eq!(outcome(&sim, h), Outcome::Succeeded, "holder at {hops}");
        let o = sim.claim(c).outcome.unwrap();
        assert!(
            matches!(o.kind, Outcome::Denied(FailureReason::Denied { .. })),
            "{hops} hops: {o:?}"
        );
        // Denied at the first attempt: it reached the holder and its Deny came back.
        assert!(
            o.at < Instant::from_secs(5) + Duration::from_millis(250 + 500),
            "{hops}: {}",
            o.at
        );
        let holder = sim.device(nodes[hops]).counters();
        assert_eq!(
            holder.denies_sent, 1,
            "{hops}: the first Deny ends the claim, no more attempts"
        );
        // Every intermediate node forwarded each Deny once.
        for n in &nodes[1..hops] {
            assert!(sim.device(*n).counters().denies_forwarded >= 1);
        }
        assert!(sim.max_forwards().0 <= 1);
    }
    // 33 links away the attempt arrives with hop limit 0: processed (denied), not forwarded.
    let (sim, nodes, _, _) = holder_at(33);
    // Node 32 forwarded the holder's three floods and the claimant's attempt (with hop limit 0).
    assert_eq!(sim.device(nodes[32]).counters().attempts_forwarded, 4);
    assert_eq!(sim.device(nodes[33]).counters().denies_sent, 1);
}

#[test]
fn holder_34_links_away_is_never_reached() {
    let (sim, nodes, h, c) = holder_at(34);
    assert_eq!(outcome(&sim, h), Outcome::Succeeded);
    assert_eq!(
        outcome(&sim, c),
        Outcome::Succeeded,
        "the claimant never hears of the holder"
    );
    // Node 33 received the claimant's attempts with hop limit 0 and did not forward them.
    assert_eq!(sim.device(nodes[33]).counters().hop_limit_exhausted, 3);
    let holder = sim.device(nodes[34]).counters();
    assert_eq!(holder.datagrams_received, 0);
    assert_eq!(holder.denies_sent, 0);
}

fn pair(seed: u64, r_a: bool, r_b: bool) -> (Outcome, Outcome) {
    let mut sim = Sim::new(seed, Config::default());
    let lan = sim.add_segment(SegmentParams {
        jitter: Duration::from_millis(2),
        ..SegmentParams::default()
    });
    let a = sim.add_node("a", &[lan]);
    let _bystander = sim.add_node("x", &[lan]);
    let b = sim.add_node("b", &[lan]);
    let ca = sim.claim_at(Instant::ZERO, a, spec(7).reclaim(r_a));
    let cb = sim.claim_at(ms(100), b, spec(7).reclaim(r_b));
    sim.run_until(Instant::from_secs(10));
    (outcome(&sim, ca), outcome(&sim, cb))
}

#[test]
fn new_against_new_both_fail() {
    for seed in 0..20 {
        let (a, b) = pair(seed, false, false);
        assert!(!a.succeeded() && !b.succeeded(), "seed {seed}: {a:?} {b:?}");
    }
}

#[test]
fn new_against_reclaim_the_reclaim_wins() {
    for seed in 0..20 {
        let (a, b) = pair(seed, true, false);
        assert_eq!(a, Outcome::Succeeded, "seed {seed}");
        assert!(!b.succeeded(), "seed {seed}: {b:?}");
        let (a, b) = pair(seed, false, true);
        assert!(!a.succeeded(), "seed {seed}: {a:?}");
        assert_eq!(b, Outcome::Succeeded, "seed {seed}");
    }
}

#[test]
fn reclaim_against_reclaim_both_fail() {
    for seed in 0..20 {
        let (a, b) = pair(seed, true, true);
        assert!(!a.succeeded() && !b.succeeded(), "seed {seed}: {a:?} {b:?}");
    }
}

#[test]
fn ring_forwards_each_message_at_most_once_per_node_and_interface() {
    let mut sim = Sim::new(5, Config::default());
    sim.track_forwards();
    let n = 12;
    let segs: Vec<_> = (0..n)
        .map(|_| sim.add_segment(SegmentParams::default()))
        .collect();
    let nodes: Vec<_> = (0..n)
        .map(|i| sim.add_node(&format!("r{i}"), &[segs[(i + n - 1) % n], segs[i]]))
        .collect();
    let claims: Vec<_> = (0..4)
        .map(|i| sim.claim_at(ms(i * 30), nodes[i as usize * 3], spec(i as u8)))
        .collect();
    sim.run_until(Instant::from_secs(10));
    for c in claims {
        assert_eq!(outcome(&sim, c), Outcome::Succeeded);
    }
    let (max, count) = sim.max_forwards();
    assert_eq!(max, 1);
    // 12 floods; each is forwarded by the 11 other nodes, each out its one other interface.
    assert_eq!(count, 12 * 11);
    let totals = sim.totals();
    assert_eq!(totals.attempts_forwarded, 12 * 11);
    // The two copies meet: every node but the originator sees each flood twice or drops it.
    assert!(totals.dropped(DropReason::Duplicate) > 0);
}

#[test]
fn mesh_with_duplication_and_reordering_forwards_each_message_at_most_once() {
    let mut sim = Sim::new(11, Config::default());
    sim.track_forwards();
    let params = SegmentParams {
        jitter: Duration::from_millis(3),
        duplicate: 0.3,
        reorder: 0.3,
        ..SegmentParams::default()
    };
    // 16 nodes on a 4×4 grid of shared segments: one per row, one per column.
    let rows: Vec<_> = (0..4).map(|_| sim.add_segment(params.clone())).collect();
    let cols: Vec<_> = (0..4).map(|_| sim.add_segment(params.clone())).collect();
    let nodes: Vec<_> = (0..16)
        .map(|i| sim.add_node(&format!("m{i}"), &[rows[i / 4], cols[i % 4]]))
        .collect();
    let a = sim.claim_at(Instant::ZERO, nodes[0], spec(1));
    let b = sim.claim_at(ms(10), nodes[15], spec(2));
    let holder = sim.claim_at(Instant::ZERO, nodes[5], spec(3));
    let late = sim.claim_at(Instant::from_secs(5), nodes[10], spec(3));
    sim.run_until(Instant::from_secs(15));
    assert_eq!(outcome(&sim, a), Outcome::Succeeded);
    assert_eq!(outcome(&sim, b), Outcome::Succeeded);
    assert_eq!(outcome(&sim, holder), Outcome::Succeeded);
    assert!(matches!(
        outcome(&sim, late),
        Outcome::Denied(FailureReason::Denied { .. })
    ));
    assert_eq!(sim.max_forwards().0, 1);
    assert!(sim.stats().duplicated > 0);
    assert!(sim.totals().dropped(DropReason::Duplicate) > 0);
}

/// Owner O — proxy P — claimant C (a line). O claims with proxy defense and lifetime 60 s. C
/// defends nothing by proxy itself: a device's own claim fails at once against its own proxy
/// table (docs/uiap-design.md D46), and here the claims must reach P.
fn proxy_site(seed: u64) -> (Sim, [NodeId; 3], uiap::sim::ClaimRef) {
    let mut sim = Sim::new(seed, Config::default());
    let (op, pc) = (
        sim.add_segment(SegmentParams::default()),
        sim.add_segment(SegmentParams::default()),
    );
    let o = sim.add_node("o", &[op]);
    let p = sim.add_node("p", &[op, pc]);
    let no_proxy = Config {
        proxy_defense: false,
        ..Config::default()
    };
    let c = sim.add_node_with("c", uiap::wire::DeviceId::new(3).unwrap(), no_proxy, &[pc]);
    let oc = sim.claim_at(Instant::ZERO, o, spec(9).lifetime(60).proxy(true));
    (sim, [o, p, c], oc)
}

#[test]
fn proxy_defense_holds_the_claim_after_the_owner_leaves_until_the_lifetime_ends() {
    let (mut sim, [o, p, c], oc) = proxy_site(3);
    sim.set_node_at(Instant::from_secs(10), o, false);
    let early = sim.claim_at(Instant::from_secs(20), c, spec(9));
    let before_end = sim.claim_at(Instant::from_secs(58), c, spec(9));
    let after_end = sim.claim_at(Instant::from_secs(70), c, spec(9));
    sim.run_until(Instant::from_secs(80));
    assert_eq!(outcome(&sim, oc), Outcome::Succeeded);
    assert!(matches!(
        outcome(&sim, early),
        Outcome::Denied(FailureReason::Denied { .. })
    ));
    assert!(matches!(
        outcome(&sim, before_end),
        Outcome::Denied(FailureReason::Denied { .. })
    ));
    assert_eq!(
        outcome(&sim, after_end),
        Outcome::Succeeded,
        "the proxy stops at the end of the lifetime"
    );
    assert_eq!(
        sim.device(p).counters().proxy_denies,
        2,
        "one per denied claim"
    );
    assert_eq!(sim.device(p).proxy_table_len(), 0);
}

#[test]
fn proxy_never_denies_the_original_claimant() {
    let (mut sim, [o, p, _c], oc) = proxy_site(4);
    sim.set_node_at(Instant::from_secs(10), o, false);
    sim.set_node_at(Instant::from_secs(20), o, true);
    sim.renew_at(Instant::from_secs(25), oc);
    sim.run_until(Instant::from_secs(40));
    let rec = sim.claim(oc);
    assert_eq!(rec.outcome.unwrap().kind, Outcome::Succeeded);
    assert_eq!(
        rec.renewed.len(),
        1,
        "the owner's reclaim went through the proxy"
    );
    assert_eq!(rec.lost, None);
    assert_eq!(sim.device(p).counters().proxy_denies, 0);
    assert_eq!(sim.device(p).counters().denies_sent, 0);
    assert_eq!(sim.device(p).proxy_table_len(), 1);
}

#[test]
fn partition_two_claims_merge_duplicate_persists_until_a_reclaim_detects_it() {
    let mut sim = Sim::new(9, Config::default());
    let nodes = line(&mut sim, 3); // a — r — b
    let (a, r, b) = (nodes[0], nodes[1], nodes[2]);
    sim.set_link_at(Instant::ZERO, r, 1, false); // partition: r loses b's segment
    let ca = sim.claim_at(ms(1_000), a, spec(5));
    let cb = sim.claim_at(ms(1_000), b, spec(5));
    sim.set_link_at(Instant::from_secs(10), r, 1, true); // merge
    sim.run_until(Instant::from_secs(19));
    assert_eq!(outcome(&sim, ca), Outcome::Succeeded);
    assert_eq!(outcome(&sim, cb), Outcome::Succeeded);
    // After the merge nothing notices: both still hold the same UID.
    for (n, c) in [(a, ca), (b, cb)] {
        let id = sim.claim(c).id.unwrap();
        assert_eq!(
            sim.device(n).claim_info(id).unwrap().state,
            ClaimState::Held
        );
    }
    assert!(sim.claim(ca).late_conflicts.is_empty() && sim.claim(cb).late_conflicts.is_empty());
    // A reclaim by a detects the duplicate: b denies it.
    sim.renew_at(Instant::from_secs(20), ca);
    sim.run_until(Instant::from_secs(30));
    let lost = sim.claim(ca).lost.expect("a's reclaim was denied");
    assert!(matches!(
        lost.kind,
        Outcome::Denied(FailureReason::Denied { .. })
    ));
    assert!(lost.at >= Instant::from_secs(20) && lost.at < ms(20_100));
    assert!(
        sim.device(a)
            .claim_info(sim.claim(ca).id.unwrap())
            .is_none()
    );
    assert_eq!(
        sim.device(b)
            .claim_info(sim.claim(cb).id.unwrap())
            .unwrap()
            .state,
        ClaimState::Held
    );
}

#[test]
fn two_applications_on_one_device_second_overlapping_claim_fails_at_once() {
    let mut sim = Sim::new(1, Config::default());
    let nodes = line(&mut sim, 2);
    let first = sim.claim_at(
        Instant::ZERO,
        nodes[0],
        ClaimSpec::new(DOMAIN, UidSpace::Prefix(Uid::new(&[0xc0], 8).unwrap())),
    );
    let second = sim.claim_at(
        ms(1),
        nodes[0],
        ClaimSpec::new(
            DOMAIN,
            UidSpace::Unique(Uid::from_octets(&[0xc0, 1]).unwrap()),
        ),
    );
    sim.run_until(Instant::from_secs(5));
    assert_eq!(outcome(&sim, first), Outcome::Succeeded);
    let o = sim.claim(second).outcome.unwrap();
    assert_eq!(o.at, ms(1), "fails at once");
    assert_eq!(
        o.kind,
        Outcome::Rejected(ClaimErrorKind::LocalConflict {
            existing: sim.claim(first).id.unwrap()
        })
    );
}

fn lossy_run(seed: u64) -> Vec<String> {
    let mut sim = Sim::new(seed, Config::default());
    sim.record_transcript();
    let params = SegmentParams {
        jitter: Duration::from_millis(4),
        loss: 0.1,
        duplicate: 0.1,
        reorder: 0.2,
        ..SegmentParams::default()
    };
    let s: Vec<_> = (0..3).map(|_| sim.add_segment(params.clone())).collect();
    let n: Vec<_> = (0..6)
        .map(|i| sim.add_node(&format!("d{i}"), &[s[i % 3], s[(i + 1) % 3]]))
        .collect();
    for (i, &node) in n.iter().enumerate() {
        sim.claim_at(ms(i as u64 * 40), node, spec((i % 3) as u8));
    }
    sim.set_link_at(Instant::from_secs(1), n[2], 0, false);
    sim.set_link_at(Instant::from_secs(2), n[2], 0, true);
    sim.run_until(Instant::from_secs(10));
    sim.transcript()
}

#[test]
fn same_seed_same_run_byte_for_byte() {
    let a = lossy_run(42);
    let b = lossy_run(42);
    assert!(a.len() > 100, "{}", a.len());
    assert_eq!(a, b);
    assert_ne!(a, lossy_run(43));
}
