//! The scenario file format of `uiap sim` (JSON; feature `serde`), documented for users in
//! docs/uiap-scenario.md with a JSON Schema (docs/uiap-scenario.schema.json).
//!
//! ```json
//! {
//!   "seed": 7,
//!   "until_ms": 20000,
//!   "config": { "start_jitter_ms": 250 },
//!   "segments": [
//!     { "name": "lan",  "delay_ms": 1, "jitter_ms": 0.5, "loss": 0.0 },
//!     { "name": "wifi", "delay_ms": 3, "loss": 0.05, "duplicate": 0.01, "reorder": 0.02, "reorder_ms": 10 }
//!   ],
//!   "devices": [
//!     { "name": "a", "segments": ["lan"] },
//!     { "name": "r", "segments": ["lan", "wifi"], "id": "00000000000000ff" },
//!     { "name": "b", "segments": ["wifi"] }
//!   ],
//!   "actions": [
//!     { "at_ms": 0,     "claim": { "device": "a", "domain": "fff:0:1:0", "unique": "2a" } },
//!     { "at_ms": 100,   "claim": { "device": "b", "domain": "fff:0:1:0", "range": ["20", "2f"], "lifetime": 60 } },
//!     { "at_ms": 5000,  "link_down": { "device": "r", "segment": "wifi" } },
//!     { "at_ms": 9000,  "link_up": { "device": "r", "segment": "wifi" } },
//!     { "at_ms": 10000, "reclaim": 0 },
//!     { "at_ms": 12000, "release": 1 },
//!     { "at_ms": 13000, "leave": "b" },
//!     { "at_ms": 14000, "join": "b" }
//!   ]
//! }
//! ```
//!
//! * `seed` (integer, default 0) seeds the network and every device; `until_ms` (default
//!   60000) ends the run.
//! * `config` overrides [`Config`] fields for every device: `claim_period_ms`,
//!   `claim_timeout_ms`, `start_jitter_ms`, `message_ttl_ms`, `proxy_max_lifetime_ms`,
//!   `conflict_window_ms`, `conflict_rate_limit_ms`, `renew_min_lifetime_ms`,
//!   `loss_notice_interval_ms` (numbers),
//!   `new_attempts`, `reclaim_attempts`, `hop_limit`, `renew_at_percent`,
//!   `message_table_capacity`, `proxy_capacity`, `conflict_limit`, `max_claims`,
//!   `proxy_min_prefix_bits`, `forward_rate`, `notice_forward_rate` (integers),
//!   `proxy_defense`, `auto_renew`, `random_device_id` (booleans).
//! * A segment has a unique `name` and optional `delay_ms` (default 1), `jitter_ms`,
//!   `reorder_ms` (default 5) and the probabilities `loss`, `duplicate`, `reorder` (0 to 1).
//! * A device has a unique `name`, the `segments` it has an interface on (in interface order),
//!   and an optional `id` (16 hex digits, non-zero; default: its position + 1).
//! * An action has `at_ms` and exactly one of: `claim` (an object: `device`, `domain` in the
//!   §6.1 text form, exactly one of `unique` (`"hex"` or `"hex/bits"`), `prefix` (`"hex/bits"`)
//!   or `range` (`["low", "high"]`), and optional `lifetime` (seconds, default 3600; the string
//!   `"infinite"` for ever), `reclaim` and `proxy` (booleans)); `release` or `reclaim` (the
//!   index of a claim: claims are numbered 0, 1, … in the order they appear in `actions`);
//!   `link_down` or `link_up` (`device` and `segment`: a partition or merge); `leave` or
//!   `join` (a device name).
//! * Times in milliseconds are non-negative numbers up to 10¹², rounded to the microsecond.
//!
//! Reading a scenario takes two steps:
//!
//! 1. Deserializing ([`Scenario`] implements `serde::Deserialize`, with unknown keys refused)
//!    checks everything a value can be checked for on its own: types, ranges, hex text, domain
//!    IDs, UIDs. The error says what was expected and what was found; the deserializer adds
//!    where (`serde_json` gives the line and column).
//! 2. [`Scenario::validate`] (and [`Scenario::build`], which calls it) checks what refers to
//!    something else: unique names, declared devices and segments, claim indices. The error
//!    names the place in the document: `actions[2].claim.device`. It also refuses what `uiapd`
//!    refuses (`new_attempts` or `reclaim_attempts` outside 1 to 10, a `hop_limit` of 0) and
//!    what no run finishes in reasonable time and memory: more than 1,000 devices, 10,000
//!    segment memberships in all or 100,000 actions, or an `until_ms` beyond a day.
//!
//! # Example
//! ```
//! use uiap::sim::Scenario;
//!
//! let text = r#"{"seed": 3, "segments": [{"name": "lan"}],
//!     "devices": [{"name": "a", "segments": ["lan"]}],
//!     "actions": [{"at_ms": 0, "claim": {"device": "a", "domain": "fff:0:1:0", "unique": "2a"}}]}"#;
//! let scenario: Scenario = serde_json::from_str(text)?;
//! assert_eq!(scenario.seed, 3);
//! let mut sim = scenario.build()?;
//! sim.run_until(scenario.until);
//! assert!(sim.claims()[0].outcome.unwrap().kind.succeeded());
//!
//! // A value wrong in itself: refused while deserializing, with its line and column.
//! let err = serde_json::from_str::<Scenario>(r#"{"segments": [{"name": "l", "loss": 2}]}"#).unwrap_err();
//! assert_eq!(err.to_string(), "expected a probability from 0 to 1, found 2 at line 1 column 38");
//!
//! // A name that refers to nothing: refused by `validate`, with its place in the document.
//! let dangling: Scenario = serde_json::from_str(r#"{"devices": [{"name": "a", "segments": ["wan"]}]}"#)?;
//! let err = dangling.validate().unwrap_err();
//! assert_eq!(err.to_string(), "devices[0].segments[0]: expected a declared segment name, found \"wan\"");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod build;
mod de;

use core::fmt;

use super::SegmentParams;
use crate::config::Config;
use crate::device::ClaimSpec;
use crate::time::Instant;
use crate::wire::DeviceId;

/// A scenario document: a site, its devices and what happens to them, ready to
/// [`build`](Scenario::build) into a [`Sim`](super::Sim). See the [module docs](self).
#[derive(Clone, Debug, PartialEq, serde::Deserialize)]
#[serde(from = "de::RawScenario")]
pub struct Scenario {
    /// The seed of the network and of every device (`seed`, default 0).
    pub seed: u64,
    /// When the run ends (`until_ms`, default 60 s).
    pub until: Instant,
    /// The configuration of every device: the defaults with the document's `config` applied.
    pub config: Config,
    /// The segments, in document order.
    pub segments: Vec<SegmentEntry>,
    /// The devices, in document order.
    pub devices: Vec<DeviceEntry>,
    /// The actions, in document order.
    pub actions: Vec<ActionEntry>,
}

/// One segment of a [`Scenario`].
#[derive(Clone, Debug, PartialEq, serde::Deserialize)]
#[serde(from = "de::RawSegment")]
pub struct SegmentEntry {
    /// Its name, unique among the segments.
    pub name: String,
    /// How it delivers.
    pub params: SegmentParams,
}

/// One device of a [`Scenario`].
#[derive(Clone, Debug, PartialEq, Eq, serde::Deserialize)]
#[serde(from = "de::RawDevice")]
pub struct DeviceEntry {
    /// Its name, unique among the devices.
    pub name: String,
    /// The segments it has an interface on, by name, in interface order.
    pub segments: Vec<String>,
    /// Its device ID (`id`, 16 hex digits); `None`: its position in `devices` + 1.
    pub id: Option<DeviceId>,
}

/// One timed action of a [`Scenario`].
#[derive(Clone, Debug, PartialEq, Eq, serde::Deserialize)]
#[serde(try_from = "de::RawAction")]
pub struct ActionEntry {
    /// When (`at_ms`, default 0).
    pub at: Instant,
    /// What.
    pub action: Action,
}

/// What an [`ActionEntry`] does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// A device starts a claim.
    Claim(ClaimEntry),
    /// A claim is released, by its index among the claims of the document.
    Release(usize),
    /// A held claim is re-verified by a reclaim, by its index among the claims.
    Reclaim(usize),
    /// A device's interface on a segment detaches (a partition).
    LinkDown(LinkEntry),
    /// A device's interface on a segment re-attaches (a merge).
    LinkUp(LinkEntry),
    /// A device leaves the site (all links down; it defends nothing).
    Leave(String),
    /// A device that left comes back.
    Join(String),
}

/// A claim in a [`Scenario`]: which device makes it, and what it claims.
#[derive(Clone, Debug, PartialEq, Eq, serde::Deserialize)]
#[serde(try_from = "de::RawClaim")]
pub struct ClaimEntry {
    /// The claiming device, by name.
    pub device: String,
    /// What it claims.
    pub spec: ClaimSpec,
}

/// A device's interface on one segment, for [`Action::LinkDown`] and [`Action::LinkUp`].
#[derive(Clone, Debug, PartialEq, Eq, serde::Deserialize)]
#[serde(from = "de::RawLink")]
pub struct LinkEntry {
    /// The device, by name.
    pub device: String,
    /// The segment, by name (the device must have an interface on it).
    pub segment: String,
}

/// A scenario that is not valid: what was expected, what was found, and where.
///
/// ```
/// use uiap::sim::Scenario;
///
/// let scenario: Scenario = serde_json::from_str(r#"{"actions": [{"release": 0}]}"#)?;
/// let err = scenario.validate().unwrap_err();
/// assert_eq!(err.path(), "actions[0].release");
/// assert_eq!(err.to_string(), "actions[0].release: expected a claim index below 0, found 0");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    expected: String,
    found: String,
    path: String,
}

impl ScenarioError {
    fn new(expected: impl Into<String>, found: impl Into<String>, path: &str) -> ScenarioError {
        ScenarioError {
            expected: expected.into(),
            found: found.into(),
            path: path.to_owned(),
        }
    }

    /// Where in the document (`actions[2].claim.device`). Empty for an error found while
    /// deserializing a value, whose place the deserializer reports.
    ///
    /// ```
    /// use uiap::sim::Scenario;
    ///
    /// let scenario: Scenario = serde_json::from_str(r#"{"devices": [{"name": "a"}, {"name": "a"}]}"#)?;
    /// assert_eq!(scenario.validate().unwrap_err().path(), "devices[1].name");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn path(&self) -> &str {
        &self.path
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.path.is_empty() {
            write!(f, "{}: ", self.path)?;
        }
        write!(f, "expected {}, found {}", self.expected, self.found)
    }
}

impl std::error::Error for ScenarioError {}
