//! Ready-made topologies for a [`Sim`]: lines, rings and random meshes of point-to-point links.

use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};

use super::{NodeId, SegmentParams, Sim};

/// Adds `n` nodes `"{prefix}{i}"` in a line, one segment between neighbours.
///
/// ```
/// # use uiap::{config::Config, sim::{topology, Sim}};
/// let mut sim = Sim::new(0, Config::default());
/// let nodes = topology::line(&mut sim, "n", 4);
/// assert_eq!(nodes.len(), 4);
/// assert_eq!(sim.device(nodes[1]).interfaces().len(), 2);
/// ```
pub fn line(sim: &mut Sim, prefix: &str, n: usize) -> Vec<NodeId> {
    let segs: Vec<_> = (1..n)
        .map(|_| sim.add_segment(SegmentParams::default()))
        .collect();
    (0..n)
        .map(|i| {
            let mut s = Vec::new();
            if i > 0 {
                s.push(segs[i - 1]);
            }
            if i + 1 < n {
                s.push(segs[i]);
            }
            sim.add_node(&format!("{prefix}{i}"), &s)
        })
        .collect()
}

/// Adds `n` nodes in a ring (node `i` links to `i ± 1 mod n`).
///
/// ```
/// # use uiap::{config::Config, sim::{topology, Sim}};
/// let mut sim = Sim::new(0, Config::default());
/// let nodes = topology::ring(&mut sim, "r", 5);
/// assert!(nodes.iter().all(|&n| sim.device(n).interfaces().len() == 2));
/// ```
pub fn ring(sim: &mut Sim, prefix: &str, n: usize) -> Vec<NodeId> {
    let segs: Vec<_> = (0..n)
        .map(|_| sim.add_segment(SegmentParams::default()))
        .collect();
    (0..n)
        .map(|i| sim.add_node(&format!("{prefix}{i}"), &[segs[(i + n - 1) % n], segs[i]]))
        .collect()
}

/// Adds `n` nodes joined by `links` point-to-point segments (at least `n − 1`): a random
/// spanning tree (node `i` links to a random earlier node) plus random extra links between
/// distinct nodes, drawn from `seed`. Connected; parallel links are possible.
///
/// ```
/// # use uiap::{config::Config, sim::{topology, Sim}};
/// let mut sim = Sim::new(0, Config::default());
/// let nodes = topology::random_mesh(&mut sim, 50, 80, 7);
/// let ifaces: usize = nodes.iter().map(|&n| sim.device(n).interfaces().len()).sum();
/// assert_eq!(ifaces, 2 * 80);
/// ```
pub fn random_mesh(sim: &mut Sim, n: usize, links: usize, seed: u64) -> Vec<NodeId> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut edges: Vec<(usize, usize)> = Vec::new();
    for i in 1..n {
        edges.push(((rng.next_u64() % i as u64) as usize, i));
    }
    while edges.len() < links && n > 1 {
        let a = (rng.next_u64() % n as u64) as usize;
        let b = (rng.next_u64() % n as u64) as usize;
        if a != b {
            edges.push((a, b));
        }
    }
    let mut per_node: Vec<Vec<super::SegmentId>> = vec![Vec::new(); n];
    for &(a, b) in &edges {
        let s = sim.add_segment(SegmentParams::default());
        per_node[a].push(s);
        per_node[b].push(s);
    }
    per_node
        .iter()
        .enumerate()
        .map(|(i, segs)| sim.add_node(&format!("m{i}"), segs))
        .collect()
}
