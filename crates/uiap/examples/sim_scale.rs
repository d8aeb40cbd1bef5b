//! Scale figures of the simulator: a random mesh of N devices and L point-to-point links runs C
//! concurrent claims; prints messages per claim against the number of links, peak table sizes
//! and simulated events per second (wall clock).
//!
//! `cargo run -p uiap --example sim_scale [--release] [DEVICES CLAIMS]` (default 1000 100).

use std::time::Instant as Wall;

use uiap::config::Config;
use uiap::sim::{ClaimSpec, Sim, topology};
use uiap::space::{DomainId, Uid, UidSpace};
use uiap::time::Instant;

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let devices = args.first().copied().unwrap_or(1000);
    let claims = args.get(1).copied().unwrap_or(100);
    let domain = DomainId::from_bytes([0x0f, 0xff, 0, 0, 0, 1, 0, 0]);
    println!(
        "| devices | links | claims | succeeded | messages per claim | per claim per link | peak message table | peak proxy table | events | events/s |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for factor in [1usize, 2, 4] {
        let links = (devices - 1).max(devices * factor);
        let mut sim = Sim::new(1, Config::default());
        let nodes = topology::random_mesh(&mut sim, devices, links, 1);
        for i in 0..claims {
            let h = (i as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
            let uid = ((h >> 40) % (2 * claims as u64).min(256)) as u8;
            let space = UidSpace::Unique(Uid::from_octets(&[uid]).expect("one octet"));
            sim.claim_at(
                Instant::from_millis((i as u64 * 37) % 1000),
                nodes[(i * 7919) % devices],
                ClaimSpec::new(domain, space).proxy(i % 2 == 0),
            );
        }
        let t0 = Wall::now();
        sim.run_until(Instant::from_secs(60));
        let secs = t0.elapsed().as_secs_f64();
        let t = sim.totals();
        let msgs = (t.attempts_sent + t.attempts_forwarded + t.denies_sent + t.denies_forwarded)
            as f64
            / claims as f64;
        let won = sim
            .claims()
            .iter()
            .filter(|c| c.outcome.is_some_and(|o| o.kind.succeeded()))
            .count();
        assert!(sim.claims().iter().all(|c| c.outcome.is_some()));
        println!(
            "| {devices} | {links} | {claims} | {won} | {msgs:.0} | {:.2} | {} | {} | {} | {:.2e} |",
            msgs / links as f64,
            t.peak_message_table,
            t.peak_proxy_table,
            sim.stats().events,
            sim.stats().events as f64 / secs
        );
    }
}
