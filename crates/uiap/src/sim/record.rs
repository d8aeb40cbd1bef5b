//! What a run leaves behind: per-claim records, network-wide figures, the transcript and the
//! forwarding tally.

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt::Write as _;

use super::{ClaimSpec, Node, NodeId, Sim};
use crate::device::{ClaimErrorKind, ClaimId, Event, FailureReason};
use crate::time::Instant;

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
    /// The most queue entries (deliveries, timers, actions) held at once.
    pub peak_queued: u64,
    /// When the run stopped because the queue held [`MAX_QUEUED`](super::MAX_QUEUED) entries
    /// and more work came: the run cannot go on faithfully, and what it recorded ends there
    /// (docs/uiap-design.md D78).
    pub stopped_full: Option<Instant>,
}

pub(super) fn hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}

impl Sim {
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

    pub(super) fn log(&self, line: impl FnOnce() -> String) {
        if let Some(t) = &self.transcript {
            t.borrow_mut().push(line());
        }
    }

    pub(super) fn record_event(&mut self, node: NodeId, e: Event) {
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
}
