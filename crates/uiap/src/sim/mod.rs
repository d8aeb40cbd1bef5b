//! A deterministic discrete-event simulator of UIAP sites.
//!
//! A [`Sim`] holds devices ([`Device`]s with a seeded `ChaCha8Rng` each), segments (shared
//! links with delay, jitter, loss, duplication and reordering drawn from one seeded generator),
//! and a queue of timed actions: claims, releases, links going down and up (partitions and
//! merges), devices leaving and coming back. Time is virtual; the same seed gives the same run,
//! byte for byte ([`Sim::transcript`]).
//!
//! Every device gets one link-local address per interface (`fe80::<node+1>:<interface+1>` in
//! the low 64 bits); Claim-Denies are routed to the member of the segment with that address.
//!
//! # Example: one claim on an empty site
//! ```
//! use uiap::config::Config;
//! use uiap::sim::{ClaimSpec, Outcome, SegmentParams, Sim};
//! use uiap::space::{DomainId, Uid, UidSpace};
//! use uiap::time::Instant;
//!
//! let mut sim = Sim::new(1, Config::default());
//! let lan = sim.add_segment(SegmentParams::default());
//! let a = sim.add_node("a", &[lan]);
//! let _b = sim.add_node("b", &[lan]);
//! let domain = DomainId::from_bytes([0x0f, 0xff, 0, 0, 0, 1, 0, 0]);
//! let c = sim.claim_at(Instant::ZERO, a, ClaimSpec::new(domain, UidSpace::Unique(Uid::from_octets(&[7])?)));
//! sim.run_until(Instant::from_secs(5));
//! let outcome = sim.claim(c).outcome.as_ref().unwrap();
//! assert_eq!(outcome.kind, Outcome::Succeeded);
//! assert!(outcome.at >= Instant::from_millis(2_500) && outcome.at <= Instant::from_millis(2_750));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Scenario files
//! `uiap sim SCENARIO.json` runs a scenario file; the `scenario` module (feature `serde`)
//! documents the format, and `crates/uiap/examples/partition.json` is an example.
//!
//! # Loss and false success
//! A device holds a unique UID; a second device, one link away, claims the same UID (new claim,
//! default timing) while every delivery on the link is lost with the given probability. The
//! table gives the fraction of 1000 seeds in which the conflicting claim wrongly succeeded,
//! against `(1 − (1 − p)²)³` (each of the three attempts and its Deny must both get through; one
//! attempt alone would give `1 − (1 − p)²`). It is computed by the test
//! `sim_loss::loss_table_matches_docs`, which fails if these numbers change:
//!
//! | loss | wrongly succeeded (of 1000) | rate | `(1−(1−p)²)³` | with one attempt |
//! |-----:|----------------------------:|-----:|--------------:|-----------------:|
#![doc = include_str!("loss_table.md")]
//!
//! That is why the draft sends three attempts: at 10 % loss one attempt would let about one
//! conflicting claim in five through; three let fewer than one in a hundred through.

mod links;
mod queue;
mod record;
#[cfg(feature = "serde")]
pub mod scenario;
pub mod topology;

use std::cell::RefCell;
use std::collections::HashMap;
use std::net::Ipv6Addr;

use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;

pub use crate::device::ClaimSpec;
pub use links::{NodeId, SegmentId, SegmentParams};
pub use record::{ClaimRecord, ClaimRef, Outcome, SimStats, Timed};
#[cfg(feature = "serde")]
pub use scenario::{Scenario, ScenarioError};

use crate::config::Config;
use crate::device::{ClaimId, Counters, Device, InterfaceId};
use crate::time::Instant;
use crate::wire::{DeviceId, MessageId};

use links::{Segment, link_local};
pub use queue::MAX_QUEUED;
use queue::{Action, EventQueue, Work};

#[derive(Debug)]
struct Iface {
    segment: SegmentId,
    addr: Ipv6Addr,
    up: bool,
}

#[derive(Debug)]
struct Node {
    name: String,
    device: Device<ChaCha8Rng>,
    ifaces: Vec<Iface>,
    timer: Option<Instant>,
    claims: HashMap<ClaimId, ClaimRef>,
}

/// The simulator. See the [module docs](self).
#[derive(Debug)]
pub struct Sim {
    seed: u64,
    config: Config,
    now: Instant,
    rng: ChaCha8Rng,
    queue: EventQueue,
    segments: Vec<Segment>,
    nodes: Vec<Node>,
    claims: Vec<ClaimRecord>,
    stats: SimStats,
    transcript: Option<RefCell<Vec<String>>>,
    forwards: Option<HashMap<(NodeId, usize, MessageId), u32>>,
}

impl Sim {
    /// An empty simulation; `config` is used for devices added with [`add_node`](Self::add_node).
    ///
    /// ```
    /// # use uiap::{config::Config, sim::*, time::Instant};
    /// let sim = Sim::new(7, Config::default());
    /// assert_eq!(sim.seed(), 7);
    /// ```
    pub fn new(seed: u64, config: Config) -> Sim {
        Sim {
            seed,
            config,
            now: Instant::ZERO,
            rng: ChaCha8Rng::seed_from_u64(seed),
            queue: EventQueue::default(),
            segments: Vec::new(),
            nodes: Vec::new(),
            claims: Vec::new(),
            stats: SimStats::default(),
            transcript: None,
            forwards: None,
        }
    }

    /// The seed.
    ///
    /// ```
    /// # use uiap::{config::Config, sim::*, time::Instant};
    /// assert_eq!(Sim::new(3, Config::default()).seed(), 3);
    /// ```
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Current virtual time.
    ///
    /// ```
    /// # use uiap::{config::Config, sim::*, time::Instant};
    /// let mut sim = Sim::new(1, Config::default());
    /// sim.run_until(Instant::from_secs(2));
    /// assert_eq!(sim.now(), Instant::from_secs(2));
    /// ```
    pub fn now(&self) -> Instant {
        self.now
    }

    /// Adds a segment.
    ///
    /// ```
    /// # use uiap::{config::Config, sim::*, time::Instant};
    /// let mut sim = Sim::new(1, Config::default());
    /// assert_eq!(sim.add_segment(SegmentParams::default()), SegmentId(0));
    /// ```
    pub fn add_segment(&mut self, params: SegmentParams) -> SegmentId {
        self.segments.push(Segment {
            params,
            members: Vec::new(),
        });
        SegmentId(self.segments.len() - 1)
    }

    /// Changes a segment's behaviour from now on.
    ///
    /// ```
    /// # use uiap::{config::Config, sim::*, time::Instant};
    /// # use uiap::space::{DomainId, Uid, UidSpace};
    /// let mut sim = Sim::new(1, Config::default());
    /// let lan = sim.add_segment(SegmentParams::default());
    /// let a = sim.add_node("a", &[lan]);
    /// sim.add_node("b", &[lan]);
    /// sim.set_segment_params(lan, SegmentParams { loss: 1.0, ..SegmentParams::default() });
    /// let domain = DomainId::from_bytes([0x0f, 0xff, 0, 0, 0, 1, 0, 0]);
    /// sim.claim_at(Instant::ZERO, a, ClaimSpec::new(domain, UidSpace::Unique(Uid::from_octets(&[7])?)));
    /// sim.run_until(Instant::from_secs(5));
    /// // All three attempts to b were lost on the way.
    /// assert_eq!((sim.stats().lost, sim.stats().delivered), (3, 0));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn set_segment_params(&mut self, segment: SegmentId, params: SegmentParams) {
        if let Some(s) = self.segments.get_mut(segment.0) {
            s.params = params;
        }
    }

    /// Adds a device with device ID `node index + 1` and the simulation's config, with one
    /// interface on each of `segments` (interface `i` is `InterfaceId(i + 1)`).
    ///
    /// ```
    /// # use uiap::{config::Config, sim::*, time::Instant};
    /// let mut sim = Sim::new(1, Config::default());
    /// let s = sim.add_segment(SegmentParams::default());
    /// let a = sim.add_node("a", &[s]);
    /// assert_eq!(sim.device(a).device_id().get(), 1);
    /// assert_eq!(sim.name(a), "a");
    /// ```
    pub fn add_node(&mut self, name: &str, segments: &[SegmentId]) -> NodeId {
        let id = DeviceId::new(self.nodes.len() as u64 + 1)
            .unwrap_or(DeviceId::new(1).expect("1 is non-zero"));
        self.add_node_with(name, id, self.config.clone(), segments)
    }

    /// Adds a device with its own ID and config.
    ///
    /// ```
    /// # use uiap::{config::Config, sim::*, time::Instant};
    /// let mut sim = Sim::new(1, Config::default());
    /// let id = uiap::wire::DeviceId::new(0xff).unwrap();
    /// let a = sim.add_node_with("a", id, Config::default(), &[]);
    /// assert_eq!(sim.device(a).device_id(), id);
    /// ```
    pub fn add_node_with(
        &mut self,
        name: &str,
        id: DeviceId,
        config: Config,
        segments: &[SegmentId],
    ) -> NodeId {
        let n = self.nodes.len();
        let rng = ChaCha8Rng::seed_from_u64(
            self.seed ^ (n as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15),
        );
        let mut device = Device::new(config, id, rng);
        let mut ifaces = Vec::new();
        for (i, &s) in segments.iter().enumerate() {
            device.add_interface(InterfaceId(i as u32 + 1));
            if let Some(seg) = self.segments.get_mut(s.0) {
                seg.members.push((NodeId(n), i));
            }
            ifaces.push(Iface {
                segment: s,
                addr: link_local(n, i),
                up: true,
            });
        }
        self.nodes.push(Node {
            name: name.to_owned(),
            device,
            ifaces,
            timer: None,
            claims: HashMap::new(),
        });
        NodeId(n)
    }

    /// Number of nodes.
    ///
    /// ```
    /// # use uiap::{config::Config, sim::*, time::Instant};
    /// let mut sim = Sim::new(1, Config::default());
    /// sim.add_node("a", &[]);
    /// assert_eq!(sim.node_count(), 1);
    /// ```
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// A node's name.
    ///
    /// ```
    /// # use uiap::{config::Config, sim::*, time::Instant};
    /// let mut sim = Sim::new(1, Config::default());
    /// let a = sim.add_node("a", &[]);
    /// assert_eq!(sim.name(a), "a");
    /// ```
    pub fn name(&self, node: NodeId) -> &str {
        &self.nodes[node.0].name
    }

    /// A node's device.
    ///
    /// ```
    /// # use uiap::{config::Config, sim::*, time::Instant};
    /// let mut sim = Sim::new(1, Config::default());
    /// let a = sim.add_node("a", &[]);
    /// assert!(sim.device(a).interfaces().is_empty());
    /// ```
    pub fn device(&self, node: NodeId) -> &Device<ChaCha8Rng> {
        &self.nodes[node.0].device
    }

    /// The link-local address of a node's interface `iface` (0-based).
    ///
    /// ```
    /// # use uiap::{config::Config, sim::*, time::Instant};
    /// let mut sim = Sim::new(1, Config::default());
    /// let s = sim.add_segment(SegmentParams::default());
    /// let a = sim.add_node("a", &[s]);
    /// assert_eq!(sim.address(a, 0).to_string(), "fe80::1:1");
    /// ```
    pub fn address(&self, node: NodeId, iface: usize) -> Ipv6Addr {
        link_local(node.0, iface)
    }

    fn push(&mut self, at: Instant, work: Work) {
        self.queue.push(at, work);
    }

    /// Schedules a claim at `at`; its record is [`claim`](Self::claim)`(returned ref)`.
    ///
    /// ```
    /// # use uiap::{config::Config, sim::*, time::Instant};
    /// # use uiap::space::*;
    /// let mut sim = Sim::new(1, Config::default());
    /// let a = sim.add_node("a", &[]);
    /// let c = sim.claim_at(Instant::ZERO, a, ClaimSpec::new(DomainId::from_bytes([0; 8]), UidSpace::Unique(Uid::from_octets(&[1])?)).lifetime(10));
    /// sim.renew_at(Instant::from_secs(5), c);
    /// sim.release_at(Instant::from_secs(8), c);
    /// sim.run_until(Instant::from_secs(20));
    /// let rec = sim.claim(c);
    /// assert!(rec.outcome.unwrap().kind.succeeded());
    /// assert_eq!(rec.renewed.len(), 1);
    /// assert_eq!(rec.expired, None, "released before the end of its lifetime");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn claim_at(&mut self, at: Instant, node: NodeId, spec: ClaimSpec) -> ClaimRef {
        let r = ClaimRef(self.claims.len());
        self.claims.push(ClaimRecord {
            node,
            start: at,
            spec,
            id: None,
            outcome: None,
            lost: None,
            expired: None,
            renewed: Vec::new(),
            late_conflicts: Vec::new(),
        });
        self.push(at, Work::Action(Action::Claim(r)));
        r
    }

    /// Schedules the release of a claim.
    ///
    /// ```
    /// # use uiap::{config::Config, sim::*, time::Instant};
    /// # use uiap::space::*;
    /// let mut sim = Sim::new(1, Config::default());
    /// let a = sim.add_node("a", &[]);
    /// let c = sim.claim_at(Instant::ZERO, a, ClaimSpec::new(DomainId::from_bytes([0; 8]), UidSpace::Unique(Uid::from_octets(&[1])?)).lifetime(10));
    /// sim.renew_at(Instant::from_secs(5), c);
    /// sim.release_at(Instant::from_secs(8), c);
    /// sim.run_until(Instant::from_secs(20));
    /// let rec = sim.claim(c);
    /// assert!(rec.outcome.unwrap().kind.succeeded());
    /// assert_eq!(rec.renewed.len(), 1);
    /// assert_eq!(rec.expired, None, "released before the end of its lifetime");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn release_at(&mut self, at: Instant, claim: ClaimRef) {
        self.push(at, Work::Action(Action::Release(claim)));
    }

    /// Schedules a reclaim (renewal) of a held claim.
    ///
    /// ```
    /// # use uiap::{config::Config, sim::*, time::Instant};
    /// # use uiap::space::*;
    /// let mut sim = Sim::new(1, Config::default());
    /// let a = sim.add_node("a", &[]);
    /// let c = sim.claim_at(Instant::ZERO, a, ClaimSpec::new(DomainId::from_bytes([0; 8]), UidSpace::Unique(Uid::from_octets(&[1])?)).lifetime(10));
    /// sim.renew_at(Instant::from_secs(5), c);
    /// sim.release_at(Instant::from_secs(8), c);
    /// sim.run_until(Instant::from_secs(20));
    /// let rec = sim.claim(c);
    /// assert!(rec.outcome.unwrap().kind.succeeded());
    /// assert_eq!(rec.renewed.len(), 1);
    /// assert_eq!(rec.expired, None, "released before the end of its lifetime");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn renew_at(&mut self, at: Instant, claim: ClaimRef) {
        self.push(at, Work::Action(Action::Renew(claim)));
    }

    /// Schedules a node's interface `iface` (0-based) to detach from (`up == false`) or
    /// re-attach to its segment: partitions and merges.
    ///
    /// ```
    /// # use uiap::{config::Config, sim::*, time::Instant};
    /// let mut sim = Sim::new(1, Config::default());
    /// let s = sim.add_segment(SegmentParams::default());
    /// let a = sim.add_node("a", &[s]);
    /// sim.set_link_at(Instant::from_secs(1), a, 0, false);
    /// sim.set_link_at(Instant::from_secs(2), a, 0, true);
    /// sim.run_until(Instant::from_secs(3));
    /// assert_eq!(sim.stats().events, 2);
    /// ```
    pub fn set_link_at(&mut self, at: Instant, node: NodeId, iface: usize, up: bool) {
        self.push(at, Work::Action(Action::Link { node, iface, up }));
    }

    /// Schedules a node to leave the site (all links down, its device stops being driven:
    /// it defends nothing) or to come back.
    ///
    /// ```
    /// # use uiap::{config::Config, sim::*, time::Instant};
    /// let mut sim = Sim::new(1, Config::default());
    /// let a = sim.add_node("a", &[]);
    /// sim.set_node_at(Instant::from_secs(1), a, false);
    /// sim.run_until(Instant::from_secs(2));
    /// assert_eq!(sim.stats().events, 1);
    /// ```
    pub fn set_node_at(&mut self, at: Instant, node: NodeId, up: bool) {
        self.push(at, Work::Action(Action::Node { node, up }));
    }

    /// Schedules the arrival of `payload` at interface `iface` (0-based) of `node`, as if a
    /// neighbour with address `from` had sent it: forged or flooding traffic from a device the
    /// simulation does not run. A node or interface that does not exist makes the datagram
    /// unroutable ([`SimStats::unroutable`]).
    ///
    /// ```
    /// # use uiap::{config::Config, sim::*, time::Instant};
    /// # use uiap::device::DropReason;
    /// let mut sim = Sim::new(1, Config::default());
    /// let s = sim.add_segment(SegmentParams::default());
    /// let a = sim.add_node("a", &[s]);
    /// sim.inject_at(Instant::from_secs(1), a, 0, "fe80::bad".parse()?, vec![1, 0, 0]);
    /// sim.run_until(Instant::from_secs(2));
    /// assert_eq!(sim.device(a).counters().total_drops(), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn inject_at(
        &mut self,
        at: Instant,
        node: NodeId,
        iface: usize,
        from: Ipv6Addr,
        payload: Vec<u8>,
    ) {
        if self
            .nodes
            .get(node.0)
            .is_none_or(|n| iface >= n.ifaces.len())
        {
            self.stats.unroutable += 1;
            return;
        }
        self.push(
            at,
            Work::Deliver {
                node,
                iface,
                from,
                payload: std::rc::Rc::new(payload),
            },
        );
    }

    /// Every scheduled claim, in scheduling order.
    ///
    /// ```
    /// # use uiap::{config::Config, sim::*, time::Instant};
    /// assert!(Sim::new(1, Config::default()).claims().is_empty());
    /// ```
    pub fn claims(&self) -> &[ClaimRecord] {
        &self.claims
    }

    /// One scheduled claim.
    ///
    /// ```
    /// # use uiap::{config::Config, sim::*, time::Instant};
    /// # use uiap::space::*;
    /// let mut sim = Sim::new(1, Config::default());
    /// let a = sim.add_node("a", &[]);
    /// let c = sim.claim_at(Instant::ZERO, a, ClaimSpec::new(DomainId::from_bytes([0; 8]), UidSpace::Unique(Uid::from_octets(&[1])?)).lifetime(10));
    /// sim.renew_at(Instant::from_secs(5), c);
    /// sim.release_at(Instant::from_secs(8), c);
    /// sim.run_until(Instant::from_secs(20));
    /// let rec = sim.claim(c);
    /// assert!(rec.outcome.unwrap().kind.succeeded());
    /// assert_eq!(rec.renewed.len(), 1);
    /// assert_eq!(rec.expired, None, "released before the end of its lifetime");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn claim(&self, c: ClaimRef) -> &ClaimRecord {
        &self.claims[c.0]
    }

    /// Network-wide figures.
    ///
    /// ```
    /// # use uiap::{config::Config, sim::*, time::Instant};
    /// assert_eq!(Sim::new(1, Config::default()).stats().delivered, 0);
    /// ```
    pub fn stats(&self) -> &SimStats {
        &self.stats
    }

    /// The sum of every device's counters (peaks: the largest).
    ///
    /// ```
    /// # use uiap::{config::Config, sim::*, time::Instant};
    /// assert_eq!(Sim::new(1, Config::default()).totals().attempts_sent, 0);
    /// ```
    pub fn totals(&self) -> Counters {
        let mut total = Counters::default();
        for n in &self.nodes {
            total.add(n.device.counters());
        }
        total
    }

    /// Runs until the queue is empty or the next event is after `end`; then the clock is `end`.
    ///
    /// ```
    /// # use uiap::{config::Config, sim::*, time::Instant};
    /// let mut sim = Sim::new(1, Config::default());
    /// sim.run_until(Instant::from_secs(1));
    /// assert_eq!(sim.now(), Instant::from_secs(1));
    /// ```
    pub fn run_until(&mut self, end: Instant) {
        while let Some((at, work)) = self.queue.pop_until(end) {
            self.now = at;
            self.stats.events += 1;
            self.step(work);
        }
        self.stats.peak_queued = self.queue.peak() as u64;
        if self.queue.full() {
            // Stopped where the queue filled: the clock stays there (docs/uiap-design.md D78).
            self.stats.stopped_full.get_or_insert(self.now);
            return;
        }
        self.now = self.now.max(end);
    }

    /// Runs until nothing is left to do, or `limit` is reached. Returns whether the queue drained.
    ///
    /// ```
    /// # use uiap::{config::Config, sim::*, time::Instant};
    /// let mut sim = Sim::new(1, Config::default());
    /// assert!(sim.run(Instant::from_secs(1)));
    /// ```
    pub fn run(&mut self, limit: Instant) -> bool {
        self.run_until(limit);
        self.queue.is_empty()
    }
}
