//! What a finished simulation means to a person: each claim event with the devices that held
//! an overlapping claim at that moment, and at the end the holders and every pair of devices
//! holding overlapping spaces (docs/uiap-design.md D38).

use uiap::device::{ClaimErrorKind, FailureReason};
use uiap::sim::scenario::Action;
use uiap::sim::{ClaimRecord, Outcome, Scenario, Sim};
use uiap::space::conflicts;
use uiap::time::Instant;
use uiap_control::SpaceText;

/// One claim event.
pub(super) struct Row {
    pub at: Instant,
    pub claim: usize,
    pub device: String,
    /// `outcome`, `renewed`, `late_conflict`, `lost`, `expired`.
    pub event: &'static str,
    /// For `outcome` and `lost`.
    pub outcome: Option<Outcome>,
    /// The devices (and their claims) that held an overlapping claim then, for a denial.
    pub held_by: Vec<(String, usize)>,
}

/// A claim held at the end of the run.
pub(super) struct Holding {
    pub claim: usize,
    pub device: String,
    pub domain: String,
    pub space: String,
}

/// The whole story.
pub(super) struct Report {
    pub rows: Vec<Row>,
    pub holders: Vec<Holding>,
    /// Pairs of claims (indices into `holders`) of different devices that overlap.
    pub overlaps: Vec<(usize, usize)>,
}

/// "uid 2a", "range 20-2f", "prefix c0a8/16".
pub(super) fn space_text(c: &ClaimRecord) -> String {
    SpaceText::from_space(&c.spec.space).to_string()
}

/// When each claim was released by the scenario, if it was.
fn releases(scenario: &Scenario, count: usize) -> Vec<Option<Instant>> {
    let mut at = vec![None; count];
    for a in &scenario.actions {
        if let Action::Release(i) = a.action
            && let Some(slot) = at.get_mut(i)
        {
            *slot = Some(slot.map_or(a.at, |t: Instant| t.min(a.at)));
        }
    }
    at
}

/// Whether claim `c` was held at `t`: it succeeded by then and had not ended.
fn held_at(c: &ClaimRecord, released: Option<Instant>, t: Instant) -> bool {
    let won = c.outcome.is_some_and(|o| o.kind.succeeded() && o.at <= t);
    let ended = [c.lost.map(|l| l.at), c.expired, released]
        .into_iter()
        .flatten()
        .any(|end| end <= t);
    won && !ended
}

impl Report {
    pub fn new(sim: &Sim, scenario: &Scenario) -> Report {
        let claims = sim.claims();
        let released = releases(scenario, claims.len());
        let holders = holders(sim, &released);
        Report {
            rows: rows(sim, &released),
            overlaps: overlaps(claims, &holders),
            holders,
        }
    }
}

/// Every claim event, in time order, a denial with the devices that held an overlapping claim
/// then.
fn rows(sim: &Sim, released: &[Option<Instant>]) -> Vec<Row> {
    let claims = sim.claims();
    // Claims of other devices overlapping claim `i` and held at `t`.
    let held_by = |i: usize, t: Instant| -> Vec<(String, usize)> {
        let me = &claims[i];
        claims
            .iter()
            .enumerate()
            .filter(|&(j, c)| {
                j != i
                    && c.node != me.node
                    && held_at(c, released[j], t)
                    && conflicts(
                        &c.spec.domain,
                        &c.spec.space,
                        &me.spec.domain,
                        &me.spec.space,
                    )
            })
            .map(|(j, c)| (sim.name(c.node).to_owned(), j))
            .collect()
    };
    let mut rows = Vec::new();
    for (i, c) in claims.iter().enumerate() {
        let device = sim.name(c.node).to_owned();
        let row = |event, at, outcome: Option<Outcome>| Row {
            at,
            claim: i,
            device: device.clone(),
            event,
            held_by: match outcome {
                Some(Outcome::Denied(_)) => held_by(i, at),
                _ => Vec::new(),
            },
            outcome,
        };
        if let Some(o) = &c.outcome {
            rows.push(row("outcome", o.at, Some(o.kind)));
        }
        rows.extend(c.renewed.iter().map(|&at| row("renewed", at, None)));
        rows.extend(
            c.late_conflicts
                .iter()
                .map(|&at| row("late_conflict", at, None)),
        );
        if let Some(o) = &c.lost {
            rows.push(row("lost", o.at, Some(o.kind)));
        }
        if let Some(at) = c.expired {
            rows.push(row("expired", at, None));
        }
    }
    let order = |r: &Row| {
        let rank = ["outcome", "renewed", "late_conflict", "lost", "expired"]
            .iter()
            .position(|e| *e == r.event);
        (r.at, r.claim, rank)
    };
    rows.sort_by_key(order);
    rows
}

/// The claims held at the end of the run.
fn holders(sim: &Sim, released: &[Option<Instant>]) -> Vec<Holding> {
    let end = sim.now();
    sim.claims()
        .iter()
        .enumerate()
        .filter(|&(i, c)| held_at(c, released[i], end))
        .map(|(i, c)| Holding {
            claim: i,
            device: sim.name(c.node).to_owned(),
            domain: c.spec.domain.to_string(),
            space: space_text(c),
        })
        .collect()
}

/// The pairs of holders of different devices whose spaces overlap.
fn overlaps(claims: &[ClaimRecord], holders: &[Holding]) -> Vec<(usize, usize)> {
    let mut overlaps = Vec::new();
    for (a, ha) in holders.iter().enumerate() {
        for (b, hb) in holders.iter().enumerate().skip(a + 1) {
            let (ca, cb) = (&claims[ha.claim], &claims[hb.claim]);
            if ca.node != cb.node
                && conflicts(
                    &ca.spec.domain,
                    &ca.spec.space,
                    &cb.spec.domain,
                    &cb.spec.space,
                )
            {
                overlaps.push((a, b));
            }
        }
    }
    overlaps
}

/// Why the device refused a claim at once, as a sentence.
pub(super) fn rejection_text(kind: ClaimErrorKind) -> String {
    match kind {
        ClaimErrorKind::LocalConflict { .. } => {
            "refused at once: the device already has an overlapping claim".into()
        }
        ClaimErrorKind::InvalidSpace => {
            "refused at once: the space is not valid in its domain".into()
        }
        ClaimErrorKind::TooManyClaims => {
            "refused at once: the device has as many claims as it may".into()
        }
        // The enum is non-exhaustive: a reason added later is still a refusal.
        _ => "refused at once by the device".into(),
    }
}

/// A denial's reason, as a sentence (before the holders are named).
pub(super) fn denial_text(reason: FailureReason) -> &'static str {
    match reason {
        FailureReason::Denied { .. } => "denied: a Claim-Deny came back",
        FailureReason::Simultaneous { .. } => {
            "denied: another device claimed an overlapping space at the same time"
        }
        FailureReason::Reclaimed { .. } => {
            "denied: another device reclaimed an overlapping space it held"
        }
        _ => "denied",
    }
}
