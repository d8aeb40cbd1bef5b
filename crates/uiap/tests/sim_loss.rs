//! Loss against false success: the table in the `sim` module docs.

use uiap::config::Config;
use uiap::sim::{ClaimSpec, SegmentParams, Sim};
use uiap::space::{DomainId, Uid, UidSpace};
use uiap::time::Instant;

const SEEDS: u64 = 1000;
const LOSSES: [u32; 5] = [0, 5, 10, 20, 30];

/// One run: H holds 0x2a (claimed before the loss starts), C claims it at 5 s over a link that
/// loses each delivery with probability `loss`. Returns whether C wrongly succeeded.
fn wrongly_succeeds(seed: u64, loss_pct: u32) -> bool {
    let mut sim = Sim::new(seed, Config::default());
    let lan = sim.add_segment(SegmentParams::default());
    let h = sim.add_node("h", &[lan]);
    let c = sim.add_node("c", &[lan]);
    let domain = DomainId::from_bytes([0x0f, 0xff, 0, 0, 0, 1, 0, 0]);
    let space = UidSpace::Unique(Uid::from_octets(&[0x2a]).unwrap());
    let held = sim.claim_at(Instant::ZERO, h, ClaimSpec::new(domain, space.clone()));
    sim.run_until(Instant::from_secs(4));
    assert!(sim.claim(held).outcome.unwrap().kind.succeeded());
    sim.set_segment_params(
        lan,
        SegmentParams {
            loss: f64::from(loss_pct) / 100.0,
            ..SegmentParams::default()
        },
    );
    let claim = sim.claim_at(Instant::from_secs(5), c, ClaimSpec::new(domain, space));
    sim.run_until(Instant::from_secs(10));
    sim.claim(claim)
        .outcome
        .expect("an outcome")
        .kind
        .succeeded()
}

fn table() -> String {
    let mut out = String::new();
    for loss in LOSSES {
        let wrong = (0..SEEDS).filter(|&s| wrongly_succeeds(s, loss)).count();
        let p = f64::from(loss) / 100.0;
        let one = 1.0 - (1.0 - p) * (1.0 - p);
        out += &format!(
            "//! | {loss} % | {wrong} | {:.3} | {:.4} | {:.3} |\n",
            wrong as f64 / SEEDS as f64,
            one.powi(3),
            one
        );
    }
    out
}

#[test]
fn loss_table_matches_docs() {
    let computed = table().replace("//! ", "");
    if std::env::var_os("UIAP_WRITE_LOSS_TABLE").is_some() {
        // Regenerating: write the table, then check the new figures against the model below.
        std::fs::write(
            concat!(env!("CARGO_MANIFEST_DIR"), "/src/sim/loss_table.md"),
            &computed,
        )
        .unwrap();
    } else {
        let docs = include_str!("../src/sim/loss_table.md");
        assert_eq!(docs, computed, "regenerate with UIAP_WRITE_LOSS_TABLE=1");
    }
    // And the figures agree with the model within five standard deviations.
    for line in computed.lines() {
        let cols: Vec<&str> = line.split('|').map(str::trim).collect();
        let (wrong, expected): (f64, f64) = (cols[2].parse().unwrap(), cols[4].parse().unwrap());
        let sd = (expected * (1.0 - expected) * SEEDS as f64).sqrt();
        assert!(
            (wrong - expected * SEEDS as f64).abs() <= 5.0 * sd + 1.0,
            "{line}"
        );
    }
}
