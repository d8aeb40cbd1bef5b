//! A mass restart through one relay: every Attempt the relay cannot forward (its forwarding
//! budget spent, or its message table full) is answered with a Claim-Deny, so no claim is
//! granted on the silence of a drop (docs/uiap-design.md D69).

use core::time::Duration;

use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};
use uiap::config::Config;
use uiap::device::DropReason;
use uiap::sim::{ClaimRef, ClaimSpec, Sim};
use uiap::space::{DomainId, Justification, Uid, UidSpace, conflicts};
use uiap::time::Instant;

const DOMAIN: DomainId = DomainId::from_bytes([0x0f, 0xff, 0, 0, 0, 1, 0, 0]);

/// Pairs of claims held at the same time by different nodes whose spaces overlap.
fn overlapping_grants(sim: &Sim, refs: &[ClaimRef], end: Instant) -> usize {
    let held: Vec<_> = refs
        .iter()
        .map(|r| sim.claim(*r))
        .filter_map(|c| {
            let o = c.outcome?;
            o.kind
                .succeeded()
                .then(|| (c, o.at, c.lost.map_or(end, |l| l.at)))
        })
        .collect();
    let mut pairs = 0;
    for (i, (a, a_from, a_to)) in held.iter().enumerate() {
        for (b, b_from, b_to) in &held[i + 1..] {
            if a.node != b.node
                && a_from < b_to
                && b_from < a_to
                && conflicts(&a.spec.domain, &a.spec.space, &b.spec.domain, &b.spec.space)
            {
                pairs += 1;
            }
        }
    }
    pairs
}

/// `per_link` devices on each of two links (one fewer on the first, for the relay), each
/// claiming a random 10-bit UID within half a second, as site-node generators restarted together
/// would; the relay is the only path between the links.
fn burst(config: Config, per_link: usize, seed: u64) -> (Sim, Vec<ClaimRef>, Instant) {
    let mut sim = Sim::new(seed, config);
    let lan1 = sim.add_segment(Default::default());
    let lan2 = sim.add_segment(Default::default());
    let relay = sim.add_node("relay", &[lan1, lan2]);
    let mut nodes = Vec::new();
    for i in 0..per_link - 1 {
        nodes.push(sim.add_node(&format!("a{i}"), &[lan1]));
    }
    for i in 0..per_link {
        nodes.push(sim.add_node(&format!("b{i}"), &[lan2]));
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let refs = nodes
        .iter()
        .map(|&n| {
            let at = Instant::from_secs(1) + Duration::from_micros(rng.next_u64() % 500_000);
            let v = (rng.next_u32() % 1024) as u16;
            let space = UidSpace::Unique(
                Uid::from_wire(&(v << 6).to_be_bytes(), 2, Justification::Left)
                    .expect("a 10-bit UID"),
            );
            sim.claim_at(at, n, ClaimSpec::new(DOMAIN, space).lifetime(600))
        })
        .collect();
    let end = Instant::from_secs(10);
    sim.run_until(end);
    let _ = relay;
    (sim, refs, end)
}

#[test]
fn a_thousand_claims_at_once_through_one_relay_grant_no_overlap() {
    let started = std::time::Instant::now();
    let (sim, refs, end) = burst(Config::default(), 500, 4);
    let overlaps = overlapping_grants(&sim, &refs, end);
    let relay = sim.device(uiap::sim::NodeId(0)).counters();
    let limited = relay.dropped(DropReason::ForwardLimited) + relay.dropped(DropReason::TableFull);
    let granted = refs
        .iter()
        .filter(|r| sim.claim(**r).outcome.is_some_and(|o| o.kind.succeeded()))
        .count();
    println!(
        "1000 claims through one relay: {granted} granted, {overlaps} overlapping pairs, {limited} \
         Attempts not forwarded, {} answered by the relay, in {:?}",
        relay.denies_for_drops,
        started.elapsed()
    );
    // The budget is spent: the scenario exercises the drops it is about.
    assert!(limited > 100, "{relay:?}");
    assert!(relay.denies_for_drops > 0, "{relay:?}");
    assert_eq!(overlaps, 0);
    // Claims still succeed: a drop fails one claim, not the site.
    assert!(granted > 100, "{granted}");
    for r in &refs {
        assert!(sim.claim(*r).outcome.is_some(), "{r:?} has no outcome");
    }
}
