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
//! let domain = DomainId::from_bytes([0x0f, 0xff, 0, 0, 0, 0, 0, 1]);
//! let c = sim.claim_at(Instant::ZERO, a, ClaimSpec::new(domain, UidSpace::Unique(Uid::from_octets(&[7])?)));
//! sim.run_until(Instant::from_secs(5));
//! let outcome = sim.claim(c).outcome.as_ref().unwrap();
//! assert_eq!(outcome.kind, Outcome::Succeeded);
//! assert!(outcome.at >= Instant::from_millis(2_500) && outcome.at <= Instant::from_millis(2_750));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Scenario files
//! `uiap sim SCENARIO.json` runs a [`Scenario`]; see [`scenario`] for the format and
//! `crates/uiap/examples/partition.json` for an example.
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

mod net;
pub mod scenario;
pub mod topology;

use std::cell::RefCell;
use std::collections::{BinaryHeap, HashMap};
use std::fmt::Write as _;
use std::net::Ipv6Addr;
use std::rc::Rc;

use core::cmp::{Ordering, Reverse};
use core::time::Duration;

use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};

pub use net::{NodeId, SegmentId, SegmentParams};
pub use scenario::{Scenario, ScenarioError};

use crate::config::Config;
pub use crate::device::ClaimSpec;
use crate::device::{
    ClaimErrorKind, ClaimId, Counters, Destination, Device, Event, FailureReason, InterfaceId, Peer,
};
use crate::time::Instant;
use crate::wire::{DeviceId, MessageId, MessageType, Packet};

use net::Segment;

/// Index of a scheduled claim in [`Sim::claims`].
///
/// ```
/// # use uiap::sim::ClaimRef;
/// assert_eq!(ClaimRef(2).0, 2);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ClaimRef(pub usize);

/// How a claim ended its first round.
///
/// ```
/// # use uiap::sim::Outcome;
/// assert_eq!(Outcome::Succeeded.as_str(), "succeeded");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// No Deny: the claim is held.
    Succeeded,
    /// Failed by a Deny or a simultaneous claim.
    Denied(FailureReason),
    /// Refused at once by the device (e.g. a local conflict).
    Rejected(ClaimErrorKind),
}

impl Outcome {
    /// `succeeded`, `denied`, `simultaneous`, `reclaimed` or `rejected`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Outcome::Succeeded => "succeeded",
            Outcome::Denied(FailureReason::Denied { .. }) => "denied",
            Outcome::Denied(FailureReason::Simultaneous { .. }) => "simultaneous",
            Outcome::Denied(FailureReason::Reclaimed { .. }) => "reclaimed",
            Outcome::Rejected(_) => "rejected",
        }
    }

    /// Whether the claim is (was) held.
    ///
    /// ```
    /// # use uiap::{config::Config, sim::*, time::Instant};
    /// assert!(Outcome::Succeeded.succeeded());
    /// ```
    pub fn succeeded(&self) -> bool {
        *self == Outcome::Succeeded
    }
}

/// An outcome and when it happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timed {
    /// When.
    pub at: Instant,
    /// What.
    pub kind: Outcome,
}

/// Everything the simulator saw of one scheduled claim.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ClaimRecord {
    /// The claiming node.
    pub node: NodeId,
    /// When the claim was made.
    pub start: Instant,
    /// What was claimed.
    pub spec: ClaimSpec,
    /// The device's claim ID (once made and accepted).
    pub id: Option<ClaimId>,
    /// The first-round outcome, once known.
    pub outcome: Option<Timed>,
    /// When the claim was lost later (a reclaim or renewal denied).
    pub lost: Option<Timed>,
    /// When its lifetime ended.
    pub expired: Option<Instant>,
    /// When it was renewed.
    pub renewed: Vec<Instant>,
    /// When late Denies (conflicts found after the outcome) arrived.
    pub late_conflicts: Vec<Instant>,
}

#[derive(Clone, Debug)]
enum Action {
    Claim(ClaimRef),
    Release(ClaimRef),
    Renew(ClaimRef),
    Link {
        node: NodeId,
        iface: usize,
        up: bool,
    },
    Node {
        node: NodeId,
        up: bool,
    },
}

#[derive(Clone, Debug)]
enum Work {
    Deliver {
        node: NodeId,
        iface: usize,
        from: Ipv6Addr,
        payload: Rc<Vec<u8>>,
    },
    Timer(NodeId),
    Action(Action),
}

#[derive(Debug)]
struct Queued {
    at: Instant,
    seq: u64,
    work: Work,
}

impl PartialEq for Queued {
    fn eq(&self, o: &Self) -> bool {
        (self.at, self.seq) == (o.at, o.seq)
    }
}
impl Eq for Queued {}
impl PartialOrd for Queued {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Queued {
    fn cmp(&self, o: &Self) -> Ordering {
        (self.at, self.seq).cmp(&(o.at, o.seq))
    }
}

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

/// Network-wide figures of a run.
///
/// ```
/// # use uiap::sim::SimStats;
/// assert_eq!(SimStats::default().events, 0);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct SimStats {
    /// Queue events processed (deliveries, timers, actions).
    pub events: u64,
    /// Datagrams handed to a device.
    pub delivered: u64,
    /// Deliveries lost on a segment.
    pub lost: u64,
    /// Extra copies made by duplication.
    pub duplicated: u64,
    /// Transmits that reached nobody (interface down or no member with the address).
    pub unroutable: u64,
}

/// The simulator. See the [module docs](self).
#[derive(Debug)]
pub struct Sim {
    seed: u64,
    config: Config,
    now: Instant,
    rng: ChaCha8Rng,
    queue: BinaryHeap<Reverse<Queued>>,
    seq: u64,
    segments: Vec<Segment>,
    nodes: Vec<Node>,
    claims: Vec<ClaimRecord>,
    stats: SimStats,
    transcript: Option<RefCell<Vec<String>>>,
    forwards: Option<HashMap<(NodeId, usize, MessageId), u32>>,
}

fn link_local(node: usize, iface: usize) -> Ipv6Addr {
    let n = node as u64 + 1;
    Ipv6Addr::new(
        0xfe80,
        0,
        0,
        0,
        (n >> 32) as u16,
        (n >> 16) as u16,
        n as u16,
        iface as u16 + 1,
    )
}

fn hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
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
            queue: BinaryHeap::new(),
            seq: 0,
            segments: Vec::new(),
            nodes: Vec::new(),
            claims: Vec::new(),
            stats: SimStats::default(),
            transcript: None,
            forwards: None,
        }
    }

    /// Records a line per delivery, transmit, event and action, for [`transcript`](Self::transcript).
    ///
    /// ```
    /// # use uiap::{config::Config, sim::*, time::Instant};
    /// let mut sim = Sim::new(1, Config::default());
    /// sim.record_transcript();
    /// let lan = sim.add_segment(SegmentParams::default());
    /// let a = sim.add_node("a", &[lan]);
    /// sim.set_link_at(Instant::ZERO, a, 0, false);
    /// sim.run_until(Instant::from_secs(1));
    /// assert_eq!(sim.transcript(), ["0.000000s a link if1 down"]);
    /// ```
    pub fn record_transcript(&mut self) {
        self.transcript = Some(RefCell::new(Vec::new()));
    }

    /// Counts, per node, interface and message ID, how often an Attempt of another device was
    /// forwarded ([`max_forwards`](Self::max_forwards)).
    ///
    /// ```
    /// # use uiap::{config::Config, sim::*, time::Instant};
    /// let mut sim = Sim::new(1, Config::default());
    /// sim.track_forwards();
    /// assert_eq!(sim.max_forwards(), (0, 0));
    /// ```
    pub fn track_forwards(&mut self) {
        self.forwards = Some(HashMap::new());
    }

    /// The recorded transcript (empty unless [`record_transcript`](Self::record_transcript)).
    ///
    /// ```
    /// # use uiap::{config::Config, sim::*, time::Instant};
    /// let sim = Sim::new(1, Config::default());
    /// assert!(sim.transcript().is_empty());
    /// ```
    pub fn transcript(&self) -> Vec<String> {
        self.transcript
            .as_ref()
            .map(|t| t.borrow().clone())
            .unwrap_or_default()
    }

    /// The largest number of times any node forwarded one message ID out one interface
    /// (with [`track_forwards`](Self::track_forwards)), and how many (node, interface, message)
    /// forwards there were.
    ///
    /// ```
    /// # use uiap::{config::Config, sim::*, time::Instant};
    /// let sim = Sim::new(1, Config::default());
    /// assert_eq!(sim.max_forwards(), (0, 0));
    /// ```
    pub fn max_forwards(&self) -> (u32, usize) {
        self.forwards.as_ref().map_or((0, 0), |f| {
            (f.values().copied().max().unwrap_or(0), f.len())
        })
    }

    fn log(&self, line: impl FnOnce() -> String) {
        if let Some(t) = &self.transcript {
            t.borrow_mut().push(line());
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
    /// let mut sim = Sim::new(1, Config::default());
    /// let s = sim.add_segment(SegmentParams::default());
    /// sim.set_segment_params(s, SegmentParams { loss: 0.5, ..SegmentParams::default() });
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
        self.seq += 1;
        self.queue.push(Reverse(Queued {
            at,
            seq: self.seq,
            work,
        }));
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
        while let Some(Reverse(q)) = self.queue.peek() {
            if q.at > end {
                break;
            }
            let Some(Reverse(q)) = self.queue.pop() else {
                break;
            };
            self.now = q.at;
            self.stats.events += 1;
            self.step(q.work);
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

    fn node_up(&self, node: NodeId) -> bool {
        self.nodes[node.0].ifaces.iter().any(|i| i.up) || self.nodes[node.0].ifaces.is_empty()
    }

    fn step(&mut self, work: Work) {
        let now = self.now;
        match work {
            Work::Deliver {
                node,
                iface,
                from,
                payload,
            } => {
                let n = &mut self.nodes[node.0];
                if !n.ifaces[iface].up {
                    self.stats.unroutable += 1;
                    return;
                }
                self.stats.delivered += 1;
                let peer = Peer {
                    interface: InterfaceId(iface as u32 + 1),
                    addr: from,
                };
                n.device.handle_datagram(now, peer, &payload);
                self.log(|| {
                    format!(
                        "{now} {} rx if{} from {from} {}",
                        self.nodes[node.0].name,
                        iface + 1,
                        hex(&payload)
                    )
                });
                self.service(node);
            }
            Work::Timer(node) => {
                if self.nodes[node.0].timer != Some(now) {
                    return;
                }
                self.nodes[node.0].timer = None;
                self.nodes[node.0].device.handle_timeout(now);
                self.service(node);
            }
            Work::Action(a) => self.act(a),
        }
    }

    fn act(&mut self, action: Action) {
        let now = self.now;
        match action {
            Action::Claim(r) => {
                let (node, spec) = (self.claims[r.0].node, self.claims[r.0].spec.clone());
                let dev = &mut self.nodes[node.0].device;
                match dev.claim(now, spec) {
                    Ok(id) => {
                        self.claims[r.0].id = Some(id);
                        self.nodes[node.0].claims.insert(id, r);
                    }
                    Err(e) => {
                        self.claims[r.0].outcome = Some(Timed {
                            at: now,
                            kind: Outcome::Rejected(e.kind()),
                        })
                    }
                }
                self.log(|| {
                    format!(
                        "{now} {} claim #{} {:?}",
                        self.nodes[node.0].name, r.0, self.claims[r.0].outcome
                    )
                });
                self.service(node);
            }
            Action::Release(r) => {
                let node = self.claims[r.0].node;
                if let Some(id) = self.claims[r.0].id {
                    let _ = self.nodes[node.0].device.release(id);
                }
                self.log(|| format!("{now} {} release #{}", self.nodes[node.0].name, r.0));
                self.service(node);
            }
            Action::Renew(r) => {
                let node = self.claims[r.0].node;
                if let Some(id) = self.claims[r.0].id {
                    let _ = self.nodes[node.0].device.renew(now, id);
                }
                self.log(|| format!("{now} {} renew #{}", self.nodes[node.0].name, r.0));
                self.service(node);
            }
            Action::Link { node, iface, up } => {
                if let Some(i) = self
                    .nodes
                    .get_mut(node.0)
                    .and_then(|n| n.ifaces.get_mut(iface))
                {
                    i.up = up;
                }
                self.log(|| {
                    format!(
                        "{now} {} link if{} {}",
                        self.nodes[node.0].name,
                        iface + 1,
                        if up { "up" } else { "down" }
                    )
                });
            }
            Action::Node { node, up } => {
                let was_up = self.node_up(node);
                for i in &mut self.nodes[node.0].ifaces {
                    i.up = up;
                }
                if up && !was_up {
                    // Catch up on timers missed while away.
                    self.nodes[node.0].device.handle_timeout(now);
                    self.service(node);
                } else if !up {
                    self.nodes[node.0].timer = None;
                }
                self.log(|| {
                    format!(
                        "{now} {} {}",
                        self.nodes[node.0].name,
                        if up { "joins" } else { "leaves" }
                    )
                });
            }
        }
    }

    /// Drains a node's transmits and events and re-arms its timer.
    fn service(&mut self, node: NodeId) {
        let now = self.now;
        while let Some(t) = self.nodes[node.0].device.poll_transmit() {
            self.log(|| {
                format!(
                    "{now} {} tx {:?} {}",
                    self.nodes[node.0].name,
                    t.destination,
                    hex(&t.payload)
                )
            });
            self.route(node, t.destination, Rc::new(t.payload));
        }
        while let Some(e) = self.nodes[node.0].device.poll_event() {
            self.log(|| format!("{now} {} event {e:?}", self.nodes[node.0].name));
            self.record_event(node, e);
        }
        let up = self.node_up(node);
        let n = &mut self.nodes[node.0];
        let next = if up { n.device.poll_timeout() } else { None };
        if next != n.timer {
            n.timer = next;
            if let Some(t) = next {
                self.push(t.max(now), Work::Timer(node));
                // A timer in the past fires now; keep the recorded time equal to the queued one.
                self.nodes[node.0].timer = Some(t.max(now));
            }
        }
    }

    fn record_event(&mut self, node: NodeId, e: Event) {
        let now = self.now;
        let lookup = |c: &ClaimId, nodes: &Vec<Node>| nodes[node.0].claims.get(c).copied();
        match e {
            Event::ClaimSucceeded { claim, .. } => {
                if let Some(r) = lookup(&claim, &self.nodes) {
                    self.claims[r.0].outcome.get_or_insert(Timed {
                        at: now,
                        kind: Outcome::Succeeded,
                    });
                }
            }
            Event::ClaimDenied { claim, reason } => {
                if let Some(r) = lookup(&claim, &self.nodes) {
                    let t = Timed {
                        at: now,
                        kind: Outcome::Denied(reason),
                    };
                    let rec = &mut self.claims[r.0];
                    if rec.outcome.is_none() {
                        rec.outcome = Some(t)
                    } else {
                        rec.lost = Some(t)
                    }
                }
            }
            Event::ClaimRenewed { claim, .. } => {
                if let Some(r) = lookup(&claim, &self.nodes) {
                    self.claims[r.0].renewed.push(now);
                }
            }
            Event::ClaimExpired { claim } => {
                if let Some(r) = lookup(&claim, &self.nodes) {
                    self.claims[r.0].expired = Some(now);
                }
            }
            Event::LateConflict {
                claim: Some(claim), ..
            } => {
                if let Some(r) = lookup(&claim, &self.nodes) {
                    self.claims[r.0].late_conflicts.push(now);
                }
            }
            _ => {}
        }
    }

    fn route(&mut self, node: NodeId, dest: Destination, payload: Rc<Vec<u8>>) {
        let (iface, unicast) = match dest {
            Destination::Multicast(i) => (i, None),
            Destination::Unicast(p) => (p.interface, Some(p.addr)),
        };
        let Some(idx) = (iface.0 as usize).checked_sub(1) else {
            return;
        };
        let Some(src) = self.nodes[node.0].ifaces.get(idx) else {
            self.stats.unroutable += 1;
            return;
        };
        if !src.up {
            self.stats.unroutable += 1;
            return;
        }
        let (from, seg) = (src.addr, src.segment);
        if unicast.is_none() {
            if let Some(f) = &mut self.forwards {
                let attempt = Packet::new_checked(&payload[..])
                    .ok()
                    .filter(|p| p.msg_type_raw() == MessageType::ClaimAttempt.raw())
                    .and_then(|p| p.message_id());
                if let Some(id) = attempt {
                    if id.origin != self.nodes[node.0].device.device_id() {
                        *f.entry((node, idx, id)).or_insert(0) += 1;
                    }
                }
            }
        }
        let members = self.segments[seg.0].members.clone();
        let params = self.segments[seg.0].params.clone();
        let mut reached = false;
        for (m, mi) in members {
            if m == node {
                continue;
            }
            let target = &self.nodes[m.0].ifaces[mi];
            if !target.up || unicast.is_some_and(|a| a != target.addr) {
                continue;
            }
            reached = true;
            self.deliver(&params, m, mi, from, &payload);
        }
        if !reached {
            self.stats.unroutable += 1;
        }
    }

    fn chance(&mut self, p: f64) -> bool {
        p > 0.0 && (self.rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64) < p
    }

    fn uniform(&mut self, max: Duration) -> Duration {
        let us = crate::time::micros(max);
        if us == 0 {
            Duration::ZERO
        } else {
            Duration::from_micros(self.rng.next_u64() % (us + 1))
        }
    }

    fn deliver(
        &mut self,
        p: &SegmentParams,
        node: NodeId,
        iface: usize,
        from: Ipv6Addr,
        payload: &Rc<Vec<u8>>,
    ) {
        if self.chance(p.loss) {
            self.stats.lost += 1;
            return;
        }
        let copies = if self.chance(p.duplicate) { 2 } else { 1 };
        self.stats.duplicated += copies - 1;
        for _ in 0..copies {
            let mut delay = p.delay + self.uniform(p.jitter);
            if self.chance(p.reorder) {
                delay += self.uniform(p.reorder_delay);
            }
            let at = self.now + delay;
            self.push(
                at,
                Work::Deliver {
                    node,
                    iface,
                    from,
                    payload: Rc::clone(payload),
                },
            );
        }
    }
}
