//! Checking what a scenario's entries refer to (names, claim indices), and building the
//! simulation.

use super::{Action, LinkEntry, Scenario, ScenarioError};
use crate::device::ClaimSpec;
use crate::sim::{ClaimRef, NodeId, SegmentId, Sim};
use crate::time::Instant;

/// An action with every name resolved to an index.
enum Step<'a> {
    Claim(usize, &'a ClaimSpec),
    Release(usize),
    Reclaim(usize),
    Link {
        device: usize,
        iface: usize,
        up: bool,
    },
    Node {
        device: usize,
        up: bool,
    },
}

/// A scenario whose references all resolve.
struct Plan<'a> {
    /// Per device: its segments, as indices into `Scenario::segments`.
    device_segments: Vec<Vec<usize>>,
    steps: Vec<(Instant, Step<'a>)>,
}

/// The index of `name` among `names`, or an error at `path`.
fn find<'a>(
    names: impl IntoIterator<Item = &'a str>,
    name: &str,
    what: &str,
    path: &str,
) -> Result<usize, ScenarioError> {
    names.into_iter().position(|n| n == name).ok_or_else(|| {
        ScenarioError::new(
            format!("a declared {what} name"),
            format!("\"{name}\""),
            path,
        )
    })
}

/// An error if `name` is the same as an earlier one.
fn unique<'a>(
    earlier: impl IntoIterator<Item = &'a str>,
    name: &str,
    what: &str,
    path: &str,
) -> Result<(), ScenarioError> {
    if earlier.into_iter().any(|n| n == name) {
        return Err(ScenarioError::new(
            format!("a new {what} name"),
            format!("\"{name}\" again"),
            path,
        ));
    }
    Ok(())
}

/// The most devices a scenario may have.
const MAX_DEVICES: u64 = 1000;
/// The most segment memberships, all devices together (a device on every one of many
/// segments makes every datagram a copy per member).
const MAX_MEMBERSHIPS: u64 = 10_000;
/// The most actions.
const MAX_ACTIONS: u64 = 100_000;
/// The longest simulated run: a day.
const MAX_UNTIL_MS: u64 = 86_400_000;
/// The most renewals the claims may make over a run, all together: each is recorded (8 bytes)
/// and takes a round of floods (docs/uiap-design.md D78).
const MAX_RENEWALS: u64 = 20_000_000;

impl Scenario {
    /// Checks what the entries refer to: segment and device names are unique; every device,
    /// segment and claim index an entry names is declared (a claim before the action that
    /// names its index); a link action names a segment its device is on.
    ///
    /// # Errors
    /// A [`ScenarioError`] for the first problem, with its place in the document.
    ///
    /// ```
    /// use uiap::sim::Scenario;
    ///
    /// let text = r#"{"segments": [{"name": "lan"}, {"name": "wan"}],
    ///     "devices": [{"name": "a", "segments": ["lan"]}],
    ///     "actions": [{"link_down": {"device": "a", "segment": "wan"}}]}"#;
    /// let scenario: Scenario = serde_json::from_str(text)?;
    /// assert_eq!(
    ///     scenario.validate().unwrap_err().to_string(),
    ///     "actions[0].link_down.segment: expected a segment device a is on, found \"wan\""
    /// );
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn validate(&self) -> Result<(), ScenarioError> {
        self.plan().map(drop)
    }

    /// Builds the simulation, with every action scheduled, after [`validate`](Self::validate).
    ///
    /// # Errors
    /// As [`validate`](Self::validate).
    ///
    /// ```
    /// use uiap::sim::Scenario;
    ///
    /// let text = r#"{"devices": [{"name": "a"}, {"name": "b", "id": "00000000000000ff"}]}"#;
    /// let sim = serde_json::from_str::<Scenario>(text)?.build()?;
    /// assert_eq!(sim.node_count(), 2);
    /// assert_eq!(sim.device(uiap::sim::NodeId(1)).device_id().get(), 0xff);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn build(&self) -> Result<Sim, ScenarioError> {
        let plan = self.plan()?;
        let mut sim = Sim::new(self.seed, self.config.clone());
        let segments: Vec<SegmentId> = self
            .segments
            .iter()
            .map(|s| sim.add_segment(s.params.clone()))
            .collect();
        let mut nodes: Vec<NodeId> = Vec::new();
        for (device, own) in self.devices.iter().zip(&plan.device_segments) {
            let on: Vec<SegmentId> = own.iter().map(|&s| segments[s]).collect();
            // Without an `id`, `add_node` gives device ID position + 1.
            nodes.push(match device.id {
                Some(id) => sim.add_node_with(&device.name, id, self.config.clone(), &on),
                None => sim.add_node(&device.name, &on),
            });
        }
        let mut claims: Vec<ClaimRef> = Vec::new();
        for (at, step) in plan.steps {
            match step {
                Step::Claim(d, spec) => claims.push(sim.claim_at(at, nodes[d], spec.clone())),
                Step::Release(c) => sim.release_at(at, claims[c]),
                Step::Reclaim(c) => sim.renew_at(at, claims[c]),
                Step::Link { device, iface, up } => sim.set_link_at(at, nodes[device], iface, up),
                Step::Node { device, up } => sim.set_node_at(at, nodes[device], up),
            }
        }
        Ok(sim)
    }

    /// What `uiapd` would refuse (no attempts, a hop limit of 0) and what no run finishes in
    /// reasonable time and memory (docs/uiap-design.md D67).
    fn check_bounds(&self) -> Result<(), ScenarioError> {
        let c = &self.config;
        let memberships: usize = self.devices.iter().map(|d| d.segments.len()).sum();
        let until_ms = self.until.as_micros() / 1000;
        let checks: [(&str, u64, u64, u64); 7] = [
            ("config.new_attempts", c.new_attempts.into(), 1, 10),
            ("config.reclaim_attempts", c.reclaim_attempts.into(), 1, 10),
            ("config.hop_limit", c.hop_limit.into(), 1, 255),
            ("devices", self.devices.len() as u64, 0, MAX_DEVICES),
            ("devices[].segments", memberships as u64, 0, MAX_MEMBERSHIPS),
            ("actions", self.actions.len() as u64, 0, MAX_ACTIONS),
            ("until_ms", until_ms, 0, MAX_UNTIL_MS),
        ];
        for (path, found, lo, hi) in checks {
            if !(lo..=hi).contains(&found) {
                return Err(ScenarioError::new(
                    format!("{lo} to {hi}"),
                    found.to_string(),
                    path,
                ));
            }
        }
        let renewals = self.renewals_at_most();
        if renewals > MAX_RENEWALS {
            return Err(ScenarioError::new(
                format!("claims that renew at most {MAX_RENEWALS} times in all over the run"),
                format!(
                    "up to {renewals} renewals (each claim renews at renew_at_percent of its \
                     lifetime until until_ms)"
                ),
                "config.auto_renew",
            ));
        }
        Ok(())
    }

    /// How many times the claims may renew over the run, at most: with `auto_renew`, each claim
    /// whose lifetime is at least `renew_min_lifetime` renews every `renew_at_percent` of it,
    /// from its start to `until`.
    fn renewals_at_most(&self) -> u64 {
        let c = &self.config;
        if !c.auto_renew {
            return 0;
        }
        let pct = u64::from(c.renew_at_percent.clamp(1, 99));
        let until = self.until.as_micros();
        self.actions
            .iter()
            .filter_map(|entry| match &entry.action {
                Action::Claim(claim) => Some((entry.at, claim.spec.lifetime)),
                _ => None,
            })
            .filter(|&(_, lifetime)| lifetime != crate::wire::INFINITE_LIFETIME)
            .filter(|&(_, lifetime)| {
                core::time::Duration::from_secs(u64::from(lifetime)) >= c.renew_min_lifetime
            })
            .map(|(at, lifetime)| {
                let every = (u64::from(lifetime) * 1_000_000 * pct / 100).max(1);
                until.saturating_sub(at.as_micros()) / every
            })
            .fold(0u64, u64::saturating_add)
    }

    fn plan(&self) -> Result<Plan<'_>, ScenarioError> {
        self.check_bounds()?;
        let segment_names = || self.segments.iter().map(|s| s.name.as_str());
        for (i, s) in self.segments.iter().enumerate() {
            let earlier = segment_names().take(i);
            unique(earlier, &s.name, "segment", &format!("segments[{i}].name"))?;
        }
        let mut device_segments = Vec::with_capacity(self.devices.len());
        for (i, d) in self.devices.iter().enumerate() {
            let earlier = self.devices[..i].iter().map(|e| e.name.as_str());
            unique(earlier, &d.name, "device", &format!("devices[{i}].name"))?;
            let own = d.segments.iter().enumerate().map(|(j, name)| {
                let path = format!("devices[{i}].segments[{j}]");
                find(segment_names(), name, "segment", &path)
            });
            device_segments.push(own.collect::<Result<Vec<usize>, _>>()?);
        }
        let mut plan = Plan {
            device_segments,
            steps: Vec::with_capacity(self.actions.len()),
        };
        let mut claims = 0;
        for (i, entry) in self.actions.iter().enumerate() {
            let step = self.resolve(&plan, &entry.action, claims, &format!("actions[{i}]"))?;
            if let Step::Claim(..) = step {
                claims += 1;
            }
            plan.steps.push((entry.at, step));
        }
        Ok(plan)
    }

    /// Resolves one action at `path`, after `claims` claims.
    fn resolve<'a>(
        &'a self,
        plan: &Plan<'_>,
        action: &'a Action,
        claims: usize,
        path: &str,
    ) -> Result<Step<'a>, ScenarioError> {
        let device = |name: &str, at: String| {
            find(
                self.devices.iter().map(|d| d.name.as_str()),
                name,
                "device",
                &at,
            )
        };
        let claim = |n: usize, at: String| {
            if n < claims {
                Ok(n)
            } else {
                let expected = format!("a claim index below {claims}");
                Err(ScenarioError::new(expected, n.to_string(), &at))
            }
        };
        let link = |l: &LinkEntry, up: bool, at: String| {
            let d = device(&l.device, format!("{at}.device"))?;
            let names = self.segments.iter().map(|s| s.name.as_str());
            let s = find(names, &l.segment, "segment", &format!("{at}.segment"))?;
            let Some(iface) = plan.device_segments[d].iter().position(|&x| x == s) else {
                return Err(ScenarioError::new(
                    format!("a segment device {} is on", l.device),
                    format!("\"{}\"", l.segment),
                    &format!("{at}.segment"),
                ));
            };
            Ok(Step::Link {
                device: d,
                iface,
                up,
            })
        };
        Ok(match action {
            Action::Claim(c) => {
                Step::Claim(device(&c.device, format!("{path}.claim.device"))?, &c.spec)
            }
            Action::Release(n) => Step::Release(claim(*n, format!("{path}.release"))?),
            Action::Reclaim(n) => Step::Reclaim(claim(*n, format!("{path}.reclaim"))?),
            Action::LinkDown(l) => link(l, false, format!("{path}.link_down"))?,
            Action::LinkUp(l) => link(l, true, format!("{path}.link_up"))?,
            Action::Leave(name) => Step::Node {
                device: device(name, format!("{path}.leave"))?,
                up: false,
            },
            Action::Join(name) => Step::Node {
                device: device(name, format!("{path}.join"))?,
                up: true,
            },
        })
    }
}
