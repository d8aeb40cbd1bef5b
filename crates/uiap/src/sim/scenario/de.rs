//! Deserializing a scenario: the document's raw shapes and the checks of single values (types,
//! ranges, hex text, domain IDs, UIDs). Every error says what was expected and what was found;
//! the deserializer adds where.

use core::time::Duration;

use core::marker::PhantomData;

use serde::de::{self, Deserialize, Deserializer, MapAccess, Visitor};

use super::{
    Action, ActionEntry, ClaimEntry, DeviceEntry, LinkEntry, Scenario, ScenarioError, SegmentEntry,
};
use crate::config::Config;
use crate::device::{ClaimSpec, DEFAULT_LIFETIME, INFINITE_LIFETIME};
use crate::sim::SegmentParams;
use crate::space::{DomainId, Uid, UidSpace};
use crate::time::Instant;
use crate::wire::DeviceId;

/// A type whose fields serde derives (`#[serde(remote = "Self")]` puts that code in an inherent
/// `deserialize`) and whose `Deserialize` accepts a JSON object only: serde's derive would also
/// take an array of the field values, which a scenario never means.
trait Fields<'de>: Sized {
    /// The derived code, given a map.
    fn fields<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error>;
}

/// Deserializes a [`Fields`] type from a map, and from nothing else.
fn object<'de, T: Fields<'de>, D: Deserializer<'de>>(d: D) -> Result<T, D::Error> {
    struct Object<T>(PhantomData<T>);
    impl<'de, T: Fields<'de>> Visitor<'de> for Object<T> {
        type Value = T;
        fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
            T::fields(de::value::MapAccessDeserializer::new(map))
        }
    }
    d.deserialize_map(Object(PhantomData))
}

/// Implements [`Fields`] and an object-only `Deserialize` for each type, derived with
/// `#[serde(remote = "Self")]` (private types only: that derive makes an inherent
/// `deserialize` with the type's visibility).
macro_rules! object_only {
    ($($t:ty),* $(,)?) => {$(
        impl<'de> Fields<'de> for $t {
            fn fields<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                <$t>::deserialize(d)
            }
        }
        impl<'de> serde::Deserialize<'de> for $t {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                object(d)
            }
        }
    )*};
}

object_only!(
    RawScenario,
    ConfigOverrides,
    RawSegment,
    RawDevice,
    RawAction,
    RawClaim,
    RawLink,
);

/// The largest time in milliseconds a document may give.
const MAX_MS: f64 = 1e12;

/// A "found …" text for a string: quoted, and cut short if long.
fn quoted(s: &str) -> String {
    match s.char_indices().nth(40) {
        Some((end, _)) => format!("\"{}…\"", &s[..end]),
        None => format!("\"{s}\""),
    }
}

/// The error of a single value: the deserializer says where.
fn invalid<E: de::Error>(expected: impl Into<String>, found: impl Into<String>) -> E {
    E::custom(ScenarioError::new(expected, found, ""))
}

fn to_duration<E: de::Error>(ms: f64) -> Result<Duration, E> {
    if !(ms.is_finite() && (0.0..=MAX_MS).contains(&ms)) {
        return Err(invalid(
            "a number of milliseconds from 0 to 10^12",
            ms.to_string(),
        ));
    }
    // ≤ 10^15 µs: exact in an f64 and far below u64::MAX.
    Ok(Duration::from_micros((ms * 1000.0).round() as u64))
}

/// A duration given in milliseconds.
fn millis<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
    to_duration(f64::deserialize(d)?)
}

/// An optional duration given in milliseconds (for configuration overrides).
fn opt_millis<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
    millis(d).map(Some)
}

/// An instant given in milliseconds from the start of the run.
fn instant_ms<'de, D: Deserializer<'de>>(d: D) -> Result<Instant, D::Error> {
    millis(d).map(|t| Instant::ZERO + t)
}

fn default_until() -> Instant {
    Instant::from_secs(60)
}

fn probability<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    let p = f64::deserialize(d)?;
    if (0.0..=1.0).contains(&p) {
        Ok(p)
    } else {
        Err(invalid("a probability from 0 to 1", p.to_string()))
    }
}

fn device_id<'de, D: Deserializer<'de>>(d: D) -> Result<Option<DeviceId>, D::Error> {
    let text = String::deserialize(d)?;
    let id = (text.len() == 16 && text.bytes().all(|b| b.is_ascii_hexdigit()))
        .then(|| u64::from_str_radix(&text, 16).ok())
        .flatten()
        .and_then(DeviceId::new);
    match id {
        Some(id) => Ok(Some(id)),
        None => Err(invalid(
            "a device id of 16 hex digits, not all zero",
            quoted(&text),
        )),
    }
}

/// A lifetime in seconds, or `"infinite"`.
fn lifetime<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    struct Visitor;
    impl de::Visitor<'_> for Visitor {
        type Value = u32;
        fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
            f.write_str("a lifetime in seconds (0 to 4294967295) or \"infinite\"")
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<u32, E> {
            u32::try_from(v).map_err(|_| E::invalid_value(de::Unexpected::Unsigned(v), &self))
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<u32, E> {
            if v == "infinite" {
                Ok(INFINITE_LIFETIME)
            } else {
                Err(E::invalid_value(de::Unexpected::Str(v), &self))
            }
        }
    }
    d.deserialize_any(Visitor)
}

fn default_lifetime() -> u32 {
    DEFAULT_LIFETIME
}

/// The `config` object: the defaults with what the document overrides.
fn config<'de, D: Deserializer<'de>>(d: D) -> Result<Config, D::Error> {
    object(d).map(ConfigOverrides::apply)
}

#[derive(serde::Deserialize)]
#[serde(remote = "Self", deny_unknown_fields)]
pub(super) struct RawScenario {
    #[serde(default)]
    seed: u64,
    #[serde(default = "default_until", deserialize_with = "instant_ms")]
    until_ms: Instant,
    #[serde(default, deserialize_with = "config")]
    config: Config,
    #[serde(default)]
    segments: Vec<SegmentEntry>,
    #[serde(default)]
    devices: Vec<DeviceEntry>,
    #[serde(default)]
    actions: Vec<ActionEntry>,
}

impl From<RawScenario> for Scenario {
    fn from(raw: RawScenario) -> Scenario {
        Scenario {
            seed: raw.seed,
            until: raw.until_ms,
            config: raw.config,
            segments: raw.segments,
            devices: raw.devices,
            actions: raw.actions,
        }
    }
}

#[derive(serde::Deserialize)]
#[serde(remote = "Self", deny_unknown_fields)]
pub(super) struct RawDevice {
    name: String,
    #[serde(default)]
    segments: Vec<String>,
    #[serde(default, deserialize_with = "device_id")]
    id: Option<DeviceId>,
}

impl From<RawDevice> for DeviceEntry {
    fn from(raw: RawDevice) -> DeviceEntry {
        DeviceEntry {
            name: raw.name,
            segments: raw.segments,
            id: raw.id,
        }
    }
}

#[derive(serde::Deserialize)]
#[serde(remote = "Self", deny_unknown_fields)]
pub(super) struct RawLink {
    device: String,
    segment: String,
}

impl From<RawLink> for LinkEntry {
    fn from(raw: RawLink) -> LinkEntry {
        LinkEntry {
            device: raw.device,
            segment: raw.segment,
        }
    }
}

#[derive(serde::Deserialize)]
#[serde(remote = "Self", deny_unknown_fields)]
struct ConfigOverrides {
    #[serde(default, deserialize_with = "opt_millis")]
    claim_period_ms: Option<Duration>,
    #[serde(default, deserialize_with = "opt_millis")]
    claim_timeout_ms: Option<Duration>,
    #[serde(default, deserialize_with = "opt_millis")]
    start_jitter_ms: Option<Duration>,
    #[serde(default, deserialize_with = "opt_millis")]
    message_ttl_ms: Option<Duration>,
    #[serde(default, deserialize_with = "opt_millis")]
    proxy_max_lifetime_ms: Option<Duration>,
    #[serde(default, deserialize_with = "opt_millis")]
    conflict_window_ms: Option<Duration>,
    #[serde(default, deserialize_with = "opt_millis")]
    conflict_rate_limit_ms: Option<Duration>,
    #[serde(default, deserialize_with = "opt_millis")]
    renew_min_lifetime_ms: Option<Duration>,
    #[serde(default, deserialize_with = "opt_millis")]
    loss_notice_interval_ms: Option<Duration>,
    new_attempts: Option<u8>,
    reclaim_attempts: Option<u8>,
    hop_limit: Option<u8>,
    forward_rate: Option<u32>,
    notice_forward_rate: Option<u32>,
    renew_at_percent: Option<u8>,
    message_table_capacity: Option<usize>,
    proxy_capacity: Option<usize>,
    conflict_limit: Option<usize>,
    max_claims: Option<usize>,
    proxy_min_prefix_bits: Option<u16>,
    proxy_defense: Option<bool>,
    auto_renew: Option<bool>,
    random_device_id: Option<bool>,
}

impl ConfigOverrides {
    fn apply(self) -> Config {
        let d = Config::default();
        Config {
            claim_period: self.claim_period_ms.unwrap_or(d.claim_period),
            claim_timeout: self.claim_timeout_ms.unwrap_or(d.claim_timeout),
            start_jitter: self.start_jitter_ms.unwrap_or(d.start_jitter),
            message_ttl: self.message_ttl_ms.unwrap_or(d.message_ttl),
            proxy_max_lifetime: self.proxy_max_lifetime_ms.unwrap_or(d.proxy_max_lifetime),
            conflict_window: self.conflict_window_ms.unwrap_or(d.conflict_window),
            conflict_rate_limit: self.conflict_rate_limit_ms.unwrap_or(d.conflict_rate_limit),
            renew_min_lifetime: self.renew_min_lifetime_ms.unwrap_or(d.renew_min_lifetime),
            new_attempts: self.new_attempts.unwrap_or(d.new_attempts),
            reclaim_attempts: self.reclaim_attempts.unwrap_or(d.reclaim_attempts),
            hop_limit: self.hop_limit.unwrap_or(d.hop_limit),
            forward_rate: self.forward_rate.unwrap_or(d.forward_rate),
            loss_notice_interval: self
                .loss_notice_interval_ms
                .unwrap_or(d.loss_notice_interval),
            notice_forward_rate: self.notice_forward_rate.unwrap_or(d.notice_forward_rate),
            renew_at_percent: self.renew_at_percent.unwrap_or(d.renew_at_percent),
            message_table_capacity: self
                .message_table_capacity
                .unwrap_or(d.message_table_capacity),
            proxy_capacity: self.proxy_capacity.unwrap_or(d.proxy_capacity),
            conflict_limit: self.conflict_limit.unwrap_or(d.conflict_limit),
            max_claims: self.max_claims.unwrap_or(d.max_claims),
            proxy_min_prefix_bits: self
                .proxy_min_prefix_bits
                .unwrap_or(d.proxy_min_prefix_bits),
            proxy_defense: self.proxy_defense.unwrap_or(d.proxy_defense),
            auto_renew: self.auto_renew.unwrap_or(d.auto_renew),
            random_device_id: self.random_device_id.unwrap_or(d.random_device_id),
        }
    }
}

fn default_delay() -> Duration {
    SegmentParams::default().delay
}

fn default_reorder_delay() -> Duration {
    SegmentParams::default().reorder_delay
}

#[derive(serde::Deserialize)]
#[serde(remote = "Self", deny_unknown_fields)]
pub(super) struct RawSegment {
    name: String,
    #[serde(default = "default_delay", deserialize_with = "millis")]
    delay_ms: Duration,
    #[serde(default, deserialize_with = "millis")]
    jitter_ms: Duration,
    #[serde(default, deserialize_with = "probability")]
    loss: f64,
    #[serde(default, deserialize_with = "probability")]
    duplicate: f64,
    #[serde(default, deserialize_with = "probability")]
    reorder: f64,
    #[serde(default = "default_reorder_delay", deserialize_with = "millis")]
    reorder_ms: Duration,
}

impl From<RawSegment> for SegmentEntry {
    fn from(raw: RawSegment) -> SegmentEntry {
        SegmentEntry {
            name: raw.name,
            params: SegmentParams {
                delay: raw.delay_ms,
                jitter: raw.jitter_ms,
                loss: raw.loss,
                duplicate: raw.duplicate,
                reorder: raw.reorder,
                reorder_delay: raw.reorder_ms,
            },
        }
    }
}

#[derive(serde::Deserialize)]
#[serde(remote = "Self", deny_unknown_fields)]
pub(super) struct RawAction {
    #[serde(default, deserialize_with = "instant_ms")]
    at_ms: Instant,
    claim: Option<ClaimEntry>,
    release: Option<usize>,
    reclaim: Option<usize>,
    link_down: Option<LinkEntry>,
    link_up: Option<LinkEntry>,
    leave: Option<String>,
    join: Option<String>,
}

impl TryFrom<RawAction> for ActionEntry {
    type Error = ScenarioError;

    fn try_from(raw: RawAction) -> Result<ActionEntry, ScenarioError> {
        let given = [
            raw.claim.map(Action::Claim),
            raw.release.map(Action::Release),
            raw.reclaim.map(Action::Reclaim),
            raw.link_down.map(Action::LinkDown),
            raw.link_up.map(Action::LinkUp),
            raw.leave.map(Action::Leave),
            raw.join.map(Action::Join),
        ];
        let count = given.iter().flatten().count();
        match given.into_iter().flatten().next() {
            Some(action) if count == 1 => Ok(ActionEntry {
                at: raw.at_ms,
                action,
            }),
            _ => Err(ScenarioError::new(
                "an action with exactly one of claim, release, reclaim, link_down, link_up, leave, join",
                count.to_string(),
                "",
            )),
        }
    }
}

#[derive(serde::Deserialize)]
#[serde(remote = "Self", deny_unknown_fields)]
pub(super) struct RawClaim {
    device: String,
    domain: String,
    unique: Option<String>,
    prefix: Option<String>,
    range: Option<(String, String)>,
    #[serde(default = "default_lifetime", deserialize_with = "lifetime")]
    lifetime: u32,
    #[serde(default)]
    reclaim: bool,
    #[serde(default)]
    proxy: bool,
}

impl TryFrom<RawClaim> for ClaimEntry {
    type Error = ScenarioError;

    fn try_from(raw: RawClaim) -> Result<ClaimEntry, ScenarioError> {
        let domain: DomainId = raw.domain.parse().map_err(|e| {
            ScenarioError::new(
                "a domain ID like fff:0:1:0 in domain",
                format!("{} ({e})", quoted(&raw.domain)),
                "",
            )
        })?;
        let space = match (raw.unique, raw.prefix, raw.range) {
            (Some(u), None, None) => UidSpace::Unique(parse_uid(&u, &domain, "unique")?),
            (None, Some(p), None) => UidSpace::Prefix(parse_uid(&p, &domain, "prefix")?),
            (None, None, Some((low, high))) => UidSpace::Range {
                low: parse_uid(&low, &domain, "range[0]")?,
                high: parse_uid(&high, &domain, "range[1]")?,
            },
            (u, p, r) => {
                let count = [u.is_some(), p.is_some(), r.is_some()]
                    .into_iter()
                    .filter(|&given| given)
                    .count();
                return Err(ScenarioError::new(
                    "a claim with exactly one of unique, prefix, range",
                    count.to_string(),
                    "",
                ));
            }
        };
        if let Err(e) = space.validate(domain.justification()) {
            return Err(ScenarioError::new(
                format!("a space valid in domain {domain}"),
                format!("an invalid one ({e})"),
                "",
            ));
        }
        Ok(ClaimEntry {
            device: raw.device,
            spec: ClaimSpec::new(domain, space)
                .lifetime(raw.lifetime)
                .reclaim(raw.reclaim)
                .proxy(raw.proxy),
        })
    }
}

/// Parses `hex` or `hex/bits` (the `field` of a claim) into a UID of `domain`'s justification.
fn parse_uid(text: &str, domain: &DomainId, field: &str) -> Result<Uid, ScenarioError> {
    let (hex, bits) = match text.split_once('/') {
        Some((h, b)) => (h, Some(b)),
        None => (text, None),
    };
    if hex.len() % 2 != 0 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(ScenarioError::new(
            format!("an even number of hex digits in {field}"),
            quoted(hex),
            "",
        ));
    }
    let bytes: Vec<u8> = hex
        .as_bytes()
        .chunks(2)
        .map(|pair| {
            // Two ASCII hex digits, checked above.
            let digit = |c: u8| (c as char).to_digit(16).unwrap_or(0) as u8;
            digit(pair[0]) << 4 | digit(pair[1])
        })
        .collect();
    let bit_len = match bits {
        None => u16::try_from(bytes.len() * 8).unwrap_or(u16::MAX),
        Some(b) => b
            .parse::<u16>()
            .map_err(|_| ScenarioError::new(format!("a bit length in {field}"), quoted(b), ""))?,
    };
    Uid::with_justification(&bytes, bit_len, domain.justification()).map_err(|e| {
        ScenarioError::new(
            format!("a valid UID in {field}"),
            format!("{} ({e})", quoted(text)),
            "",
        )
    })
}
