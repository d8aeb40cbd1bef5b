//! The scenario file format of `uiap sim` (JSON).
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
//!     { "at_ms": 0,     "claim": { "device": "a", "domain": "fff:0:0:1", "unique": "2a" } },
//!     { "at_ms": 100,   "claim": { "device": "b", "domain": "fff:0:0:1", "range": ["20", "2f"], "lifetime": 60 } },
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
//!   `conflict_window_ms`, `conflict_rate_limit_ms`, `renew_min_lifetime_ms` (numbers),
//!   `new_attempts`, `reclaim_attempts`, `hop_limit`, `renew_at_percent`,
//!   `message_table_capacity`, `proxy_capacity`, `conflict_limit`, `max_claims` (integers),
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
//!
//! Errors name the place: `expected a number, found "x" at actions[2].at_ms`.

use core::fmt;
use core::time::Duration;

use serde_json::Value;

use super::{ClaimRef, ClaimSpec, NodeId, SegmentId, SegmentParams, Sim};
use crate::config::Config;
use crate::device::INFINITE_LIFETIME;
use crate::space::{DomainId, Uid, UidSpace};
use crate::time::Instant;
use crate::wire::DeviceId;

/// A parsed scenario, ready to [`build`](Scenario::build) into a [`Sim`].
#[derive(Clone, Debug)]
pub struct Scenario {
    /// The seed.
    pub seed: u64,
    /// End of the run.
    pub until: Instant,
    /// The device configuration.
    pub config: Config,
    segments: Vec<(String, SegmentParams)>,
    devices: Vec<(String, Option<DeviceId>, Vec<usize>)>,
    actions: Vec<(Instant, ScenarioAction)>,
}

#[derive(Clone, Debug)]
enum ScenarioAction {
    Claim(usize, ClaimSpec),
    Release(usize),
    Reclaim(usize),
    Link(usize, usize, bool),
    Node(usize, bool),
}

/// A scenario file that is not valid: what was expected, what was found, and where.
///
/// ```
/// # use uiap::sim::Scenario;
/// let err = Scenario::parse(r#"{"devices": [{"name": 3}]}"#).unwrap_err();
/// assert_eq!(err.to_string(), "expected a string, found 3 at devices[0].name");
/// assert_eq!(err.path(), "devices[0].name");
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

    /// Where in the document (`actions[2].claim.domain`; empty for the whole document).
    pub fn path(&self) -> &str {
        &self.path
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "expected {}, found {}", self.expected, self.found)?;
        if !self.path.is_empty() {
            write!(f, " at {}", self.path)?;
        }
        Ok(())
    }
}

impl std::error::Error for ScenarioError {}

fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.len() > 40 {
        format!(
            "{}…",
            &s[..s.char_indices().nth(37).map_or(s.len(), |(i, _)| i)]
        )
    } else {
        s
    }
}

struct Obj<'a> {
    map: &'a serde_json::Map<String, Value>,
    path: String,
}

impl<'a> Obj<'a> {
    fn new(v: &'a Value, path: &str) -> Result<Obj<'a>, ScenarioError> {
        match v {
            Value::Object(map) => Ok(Obj {
                map,
                path: path.to_owned(),
            }),
            other => Err(ScenarioError::new("an object", short(other), path)),
        }
    }
    fn at(&self, key: &str) -> String {
        if self.path.is_empty() {
            key.to_owned()
        } else {
            format!("{}.{key}", self.path)
        }
    }
    fn known(&self, keys: &[&str]) -> Result<(), ScenarioError> {
        for k in self.map.keys() {
            if !keys.contains(&k.as_str()) {
                return Err(ScenarioError::new(
                    format!("one of {}", keys.join(", ")),
                    format!("key \"{k}\""),
                    &self.path,
                ));
            }
        }
        Ok(())
    }
    fn get(&self, key: &str) -> Option<&'a Value> {
        self.map.get(key)
    }
    fn str(&self, key: &str) -> Result<&'a str, ScenarioError> {
        match self.map.get(key) {
            Some(Value::String(s)) => Ok(s),
            Some(v) => Err(ScenarioError::new("a string", short(v), &self.at(key))),
            None => Err(ScenarioError::new("a string", "nothing", &self.at(key))),
        }
    }
    fn num(&self, key: &str, default: f64) -> Result<f64, ScenarioError> {
        match self.map.get(key) {
            None => Ok(default),
            Some(v) => match v.as_f64() {
                Some(x) if x.is_finite() && x >= 0.0 => Ok(x),
                _ => Err(ScenarioError::new(
                    "a non-negative number",
                    short(v),
                    &self.at(key),
                )),
            },
        }
    }
    fn prob(&self, key: &str) -> Result<f64, ScenarioError> {
        let p = self.num(key, 0.0)?;
        if p > 1.0 {
            return Err(ScenarioError::new(
                "a probability from 0 to 1",
                p.to_string(),
                &self.at(key),
            ));
        }
        Ok(p)
    }
    fn int(&self, key: &str, default: u64) -> Result<u64, ScenarioError> {
        match self.map.get(key) {
            None => Ok(default),
            Some(v) => v.as_u64().ok_or_else(|| {
                ScenarioError::new("a non-negative integer", short(v), &self.at(key))
            }),
        }
    }
    fn ms(&self, key: &str, default: Duration) -> Result<Duration, ScenarioError> {
        let x = self.num(key, default.as_secs_f64() * 1000.0)?;
        if x > 1e12 {
            return Err(ScenarioError::new(
                "at most 10^12 ms",
                x.to_string(),
                &self.at(key),
            ));
        }
        Ok(Duration::from_micros((x * 1000.0).round() as u64))
    }
    fn bool(&self, key: &str, default: bool) -> Result<bool, ScenarioError> {
        match self.map.get(key) {
            None => Ok(default),
            Some(Value::Bool(b)) => Ok(*b),
            Some(v) => Err(ScenarioError::new("true or false", short(v), &self.at(key))),
        }
    }
    fn array(&self, key: &str) -> Result<&'a [Value], ScenarioError> {
        match self.map.get(key) {
            None => Ok(&[]),
            Some(Value::Array(a)) => Ok(a),
            Some(v) => Err(ScenarioError::new("an array", short(v), &self.at(key))),
        }
    }
}

fn small<T: TryFrom<u64>>(o: &Obj<'_>, key: &str, default: T) -> Result<T, ScenarioError> {
    match o.get(key) {
        None => Ok(default),
        Some(_) => {
            let x = o.int(key, 0)?;
            T::try_from(x)
                .map_err(|_| ScenarioError::new("a smaller integer", x.to_string(), &o.at(key)))
        }
    }
}

fn parse_config(o: &Obj<'_>) -> Result<Config, ScenarioError> {
    o.known(&[
        "claim_period_ms",
        "claim_timeout_ms",
        "start_jitter_ms",
        "message_ttl_ms",
        "proxy_max_lifetime_ms",
        "conflict_window_ms",
        "conflict_rate_limit_ms",
        "renew_min_lifetime_ms",
        "new_attempts",
        "reclaim_attempts",
        "hop_limit",
        "renew_at_percent",
        "message_table_capacity",
        "proxy_capacity",
        "conflict_limit",
        "max_claims",
        "proxy_defense",
        "auto_renew",
        "random_device_id",
    ])?;
    let d = Config::default();
    Ok(Config {
        claim_period: o.ms("claim_period_ms", d.claim_period)?,
        claim_timeout: o.ms("claim_timeout_ms", d.claim_timeout)?,
        start_jitter: o.ms("start_jitter_ms", d.start_jitter)?,
        message_ttl: o.ms("message_ttl_ms", d.message_ttl)?,
        proxy_max_lifetime: o.ms("proxy_max_lifetime_ms", d.proxy_max_lifetime)?,
        conflict_window: o.ms("conflict_window_ms", d.conflict_window)?,
        conflict_rate_limit: o.ms("conflict_rate_limit_ms", d.conflict_rate_limit)?,
        renew_min_lifetime: o.ms("renew_min_lifetime_ms", d.renew_min_lifetime)?,
        new_attempts: small(o, "new_attempts", d.new_attempts)?,
        reclaim_attempts: small(o, "reclaim_attempts", d.reclaim_attempts)?,
        hop_limit: small(o, "hop_limit", d.hop_limit)?,
        renew_at_percent: small(o, "renew_at_percent", d.renew_at_percent)?,
        message_table_capacity: small(o, "message_table_capacity", d.message_table_capacity)?,
        proxy_capacity: small(o, "proxy_capacity", d.proxy_capacity)?,
        conflict_limit: small(o, "conflict_limit", d.conflict_limit)?,
        max_claims: small(o, "max_claims", d.max_claims)?,
        proxy_defense: o.bool("proxy_defense", d.proxy_defense)?,
        auto_renew: o.bool("auto_renew", d.auto_renew)?,
        random_device_id: o.bool("random_device_id", d.random_device_id)?,
    })
}

/// Parses `hex` or `hex/bits` into a UID of `domain`'s justification.
fn parse_uid(text: &str, domain: &DomainId, path: &str) -> Result<Uid, ScenarioError> {
    let (hex, bits) = match text.split_once('/') {
        Some((h, b)) => (h, Some(b)),
        None => (text, None),
    };
    if hex.len() % 2 != 0 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(ScenarioError::new(
            "an even number of hex digits",
            format!("\"{hex}\""),
            path,
        ));
    }
    let bytes: Vec<u8> = (0..hex.len() / 2)
        .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap_or(0))
        .collect();
    let bit_len = match bits {
        None => u16::try_from(bytes.len() * 8).unwrap_or(u16::MAX),
        Some(b) => b
            .parse::<u16>()
            .map_err(|_| ScenarioError::new("a bit length", format!("\"{b}\""), path))?,
    };
    Uid::with_justification(&bytes, bit_len, domain.justification())
        .map_err(|e| ScenarioError::new("a valid UID", format!("\"{text}\" ({e})"), path))
}

fn parse_claim(
    o: &Obj<'_>,
    devices: &[(String, Option<DeviceId>, Vec<usize>)],
) -> Result<(usize, ClaimSpec), ScenarioError> {
    o.known(&[
        "device", "domain", "unique", "prefix", "range", "lifetime", "reclaim", "proxy",
    ])?;
    let device = find(
        devices.iter().map(|d| d.0.as_str()),
        o.str("device")?,
        &o.at("device"),
    )?;
    let dtext = o.str("domain")?;
    let domain: DomainId = dtext.parse().map_err(|e| {
        ScenarioError::new(
            "a domain ID like fff:0:0:1",
            format!("\"{dtext}\" ({e})"),
            &o.at("domain"),
        )
    })?;
    let forms: Vec<&str> = ["unique", "prefix", "range"]
        .into_iter()
        .filter(|k| o.get(k).is_some())
        .collect();
    if forms.len() != 1 {
        return Err(ScenarioError::new(
            "exactly one of unique, prefix, range",
            forms.len().to_string(),
            &o.path,
        ));
    }
    let space = match forms[0] {
        "unique" => UidSpace::Unique(parse_uid(o.str("unique")?, &domain, &o.at("unique"))?),
        "prefix" => UidSpace::Prefix(parse_uid(o.str("prefix")?, &domain, &o.at("prefix"))?),
        _ => {
            let p = o.at("range");
            let a = o.array("range")?;
            let (Some(Value::String(lo)), Some(Value::String(hi)), 2) =
                (a.first(), a.get(1), a.len())
            else {
                return Err(ScenarioError::new(
                    "[\"low\", \"high\"]",
                    short(o.get("range").unwrap_or(&Value::Null)),
                    &p,
                ));
            };
            UidSpace::Range {
                low: parse_uid(lo, &domain, &format!("{p}[0]"))?,
                high: parse_uid(hi, &domain, &format!("{p}[1]"))?,
            }
        }
    };
    if let Err(e) = space.validate(domain.justification()) {
        return Err(ScenarioError::new(
            "a space valid in the domain",
            e.to_string(),
            &o.path,
        ));
    }
    let lifetime = match o.get("lifetime") {
        Some(Value::String(s)) if s == "infinite" => INFINITE_LIFETIME,
        Some(_) => small(o, "lifetime", 0u32)?,
        None => 3600,
    };
    let spec = ClaimSpec {
        domain,
        space,
        lifetime,
        reclaim: o.bool("reclaim", false)?,
        proxy: o.bool("proxy", false)?,
    };
    Ok((device, spec))
}

fn find<'a>(
    mut names: impl Iterator<Item = &'a str>,
    name: &str,
    path: &str,
) -> Result<usize, ScenarioError> {
    names
        .position(|n| n == name)
        .ok_or_else(|| ScenarioError::new("a declared name", format!("\"{name}\""), path))
}

impl Scenario {
    /// Parses a scenario document.
    ///
    /// # Errors
    /// A [`ScenarioError`] naming the first thing that is wrong and where.
    ///
    /// ```
    /// # use uiap::sim::Scenario;
    /// let s = Scenario::parse(r#"{"seed": 3, "segments": [{"name": "lan"}],
    ///     "devices": [{"name": "a", "segments": ["lan"]}],
    ///     "actions": [{"at_ms": 0, "claim": {"device": "a", "domain": "fff:0:0:1", "unique": "2a"}}]}"#)?;
    /// assert_eq!(s.seed, 3);
    /// let mut sim = s.build();
    /// sim.run_until(s.until);
    /// assert!(sim.claims()[0].outcome.unwrap().kind.succeeded());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn parse(text: &str) -> Result<Scenario, ScenarioError> {
        let doc: Value = serde_json::from_str(text).map_err(|e| {
            ScenarioError::new(
                "a JSON document",
                format!("\"{e}\""),
                &format!("line {} column {}", e.line(), e.column()),
            )
        })?;
        let top = Obj::new(&doc, "")?;
        top.known(&[
            "seed", "until_ms", "config", "segments", "devices", "actions",
        ])?;
        let seed = top.int("seed", 0)?;
        let until = Instant::from_micros(crate::time::micros(
            top.ms("until_ms", Duration::from_secs(60))?,
        ));
        let config = match top.get("config") {
            Some(v) => parse_config(&Obj::new(v, "config")?)?,
            None => Config::default(),
        };
        let mut segments: Vec<(String, SegmentParams)> = Vec::new();
        for (i, v) in top.array("segments")?.iter().enumerate() {
            let o = Obj::new(v, &format!("segments[{i}]"))?;
            o.known(&[
                "name",
                "delay_ms",
                "jitter_ms",
                "loss",
                "duplicate",
                "reorder",
                "reorder_ms",
            ])?;
            let name = o.str("name")?;
            if segments.iter().any(|s| s.0 == name) {
                return Err(ScenarioError::new(
                    "a new segment name",
                    format!("\"{name}\" again"),
                    &o.at("name"),
                ));
            }
            let d = SegmentParams::default();
            let p = SegmentParams {
                delay: o.ms("delay_ms", d.delay)?,
                jitter: o.ms("jitter_ms", d.jitter)?,
                loss: o.prob("loss")?,
                duplicate: o.prob("duplicate")?,
                reorder: o.prob("reorder")?,
                reorder_delay: o.ms("reorder_ms", d.reorder_delay)?,
            };
            segments.push((name.to_owned(), p));
        }
        let mut devices: Vec<(String, Option<DeviceId>, Vec<usize>)> = Vec::new();
        for (i, v) in top.array("devices")?.iter().enumerate() {
            let o = Obj::new(v, &format!("devices[{i}]"))?;
            o.known(&["name", "segments", "id"])?;
            let name = o.str("name")?;
            if devices.iter().any(|d| d.0 == name) {
                return Err(ScenarioError::new(
                    "a new device name",
                    format!("\"{name}\" again"),
                    &o.at("name"),
                ));
            }
            let mut segs = Vec::new();
            for (j, s) in o.array("segments")?.iter().enumerate() {
                let p = format!("{}[{j}]", o.at("segments"));
                let Value::String(s) = s else {
                    return Err(ScenarioError::new("a segment name", short(s), &p));
                };
                segs.push(find(segments.iter().map(|s| s.0.as_str()), s, &p)?);
            }
            let id = match o.get("id") {
                None => None,
                Some(_) => {
                    let t = o.str("id")?;
                    let v = (t.len() == 16)
                        .then(|| u64::from_str_radix(t, 16).ok())
                        .flatten()
                        .and_then(DeviceId::new);
                    Some(v.ok_or_else(|| {
                        ScenarioError::new(
                            "16 hex digits, not all zero",
                            format!("\"{t}\""),
                            &o.at("id"),
                        )
                    })?)
                }
            };
            devices.push((name.to_owned(), id, segs));
        }
        let mut actions = Vec::new();
        let mut claims = 0usize;
        for (i, v) in top.array("actions")?.iter().enumerate() {
            let o = Obj::new(v, &format!("actions[{i}]"))?;
            let kinds = [
                "claim",
                "release",
                "reclaim",
                "link_down",
                "link_up",
                "leave",
                "join",
            ];
            let mut keys = kinds.to_vec();
            keys.push("at_ms");
            o.known(&keys)?;
            let present: Vec<&str> = kinds.into_iter().filter(|k| o.get(k).is_some()).collect();
            if present.len() != 1 {
                return Err(ScenarioError::new(
                    format!("exactly one of {}", kinds.join(", ")),
                    present.len().to_string(),
                    &o.path,
                ));
            }
            let at = Instant::from_micros(crate::time::micros(o.ms("at_ms", Duration::ZERO)?));
            let kind = present[0];
            let a = match kind {
                "claim" => {
                    let (d, spec) = parse_claim(
                        &Obj::new(o.get(kind).unwrap_or(&Value::Null), &o.at(kind))?,
                        &devices,
                    )?;
                    claims += 1;
                    ScenarioAction::Claim(d, spec)
                }
                "release" | "reclaim" => {
                    let n = o.int(kind, 0)? as usize;
                    if n >= claims {
                        return Err(ScenarioError::new(
                            format!("a claim index below {claims}"),
                            n.to_string(),
                            &o.at(kind),
                        ));
                    }
                    if kind == "release" {
                        ScenarioAction::Release(n)
                    } else {
                        ScenarioAction::Reclaim(n)
                    }
                }
                "link_down" | "link_up" => {
                    let l = Obj::new(o.get(kind).unwrap_or(&Value::Null), &o.at(kind))?;
                    l.known(&["device", "segment"])?;
                    let d = find(
                        devices.iter().map(|d| d.0.as_str()),
                        l.str("device")?,
                        &l.at("device"),
                    )?;
                    let s = find(
                        segments.iter().map(|s| s.0.as_str()),
                        l.str("segment")?,
                        &l.at("segment"),
                    )?;
                    let Some(iface) = devices[d].2.iter().position(|&x| x == s) else {
                        return Err(ScenarioError::new(
                            "a segment the device is on",
                            format!("\"{}\"", segments[s].0),
                            &l.at("segment"),
                        ));
                    };
                    ScenarioAction::Link(d, iface, kind == "link_up")
                }
                _ => {
                    let d = find(
                        devices.iter().map(|d| d.0.as_str()),
                        o.str(kind)?,
                        &o.at(kind),
                    )?;
                    ScenarioAction::Node(d, kind == "join")
                }
            };
            actions.push((at, a));
        }
        Ok(Scenario {
            seed,
            until,
            config,
            segments,
            devices,
            actions,
        })
    }

    /// Builds the simulation, with every action scheduled.
    pub fn build(&self) -> Sim {
        let mut sim = Sim::new(self.seed, self.config.clone());
        let segs: Vec<SegmentId> = self
            .segments
            .iter()
            .map(|(_, p)| sim.add_segment(p.clone()))
            .collect();
        let mut nodes: Vec<NodeId> = Vec::new();
        for (i, (name, id, s)) in self.devices.iter().enumerate() {
            let ids: Vec<SegmentId> = s.iter().map(|&x| segs[x]).collect();
            let id = id
                .or(DeviceId::new(i as u64 + 1))
                .unwrap_or(DeviceId::new(1).expect("non-zero"));
            nodes.push(sim.add_node_with(name, id, self.config.clone(), &ids));
        }
        let mut claims: Vec<ClaimRef> = Vec::new();
        for (at, a) in &self.actions {
            match a {
                ScenarioAction::Claim(d, spec) => {
                    claims.push(sim.claim_at(*at, nodes[*d], spec.clone()))
                }
                ScenarioAction::Release(c) => sim.release_at(*at, claims[*c]),
                ScenarioAction::Reclaim(c) => sim.renew_at(*at, claims[*c]),
                ScenarioAction::Link(d, i, up) => sim.set_link_at(*at, nodes[*d], *i, *up),
                ScenarioAction::Node(d, up) => sim.set_node_at(*at, nodes[*d], *up),
            }
        }
        sim
    }
}
