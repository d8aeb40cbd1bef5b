//! What answers show: claims and their state, claim events, the daemon's status and the claims
//! it defends by proxy.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::{AuthFailureView, SpaceText};

/// Where a claim stands: the one set of states the daemon keeps and clients read.
///
/// ```
/// use uiap_control::ClaimState;
///
/// assert_eq!(serde_json::to_string(&ClaimState::Conflicted)?, r#""conflicted""#);
/// assert!(ClaimState::Conflicted.is_held());
/// assert!(ClaimState::Expired.has_ended());
/// Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClaimState {
    /// Its first round (a new claim, or a reclaim after a restart) is in progress, or a reclaim
    /// waits for a participating interface.
    Claiming,
    /// It succeeded and is defended.
    Held,
    /// Held, but a Claim-Deny came after success: another device holds an overlapping claim
    /// (docs/uiap-design.md D33). Still defended; the application decides.
    Conflicted,
    /// A renewal was denied: gone, kept in `list` until released.
    Lost,
    /// Its lifetime ended: gone, kept in `list` until released.
    Expired,
    /// The network or a claim of this device refused it (only in a claim's answer).
    Denied,
}

impl ClaimState {
    /// The name used on the wire.
    ///
    /// ```
    /// assert_eq!(uiap_control::ClaimState::Held.as_str(), "held");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            ClaimState::Claiming => "claiming",
            ClaimState::Held => "held",
            ClaimState::Conflicted => "conflicted",
            ClaimState::Lost => "lost",
            ClaimState::Expired => "expired",
            ClaimState::Denied => "denied",
        }
    }

    /// Whether the claim succeeded and is defended (`held` or `conflicted`).
    ///
    /// ```
    /// use uiap_control::ClaimState;
    ///
    /// assert!(ClaimState::Held.is_held());
    /// assert!(!ClaimState::Claiming.is_held());
    /// ```
    pub fn is_held(self) -> bool {
        matches!(self, ClaimState::Held | ClaimState::Conflicted)
    }

    /// Whether the claim is gone but still listed (`lost` or `expired`).
    ///
    /// ```
    /// use uiap_control::ClaimState;
    ///
    /// assert!(ClaimState::Lost.has_ended());
    /// assert!(!ClaimState::Denied.has_ended());
    /// ```
    pub fn has_ended(self) -> bool {
        matches!(self, ClaimState::Lost | ClaimState::Expired)
    }
}

impl fmt::Display for ClaimState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// A claim as the API shows it.
///
/// ```
/// use uiap_control::{ClaimState, ClaimView, SpaceText};
///
/// let c = ClaimView { id: 1, domain: "fff:0:1:0".into(), space: SpaceText::Uid("c0a8".into()),
///                     lifetime: 60, proxy: false, renew: false, state: ClaimState::Held, expires_in: Some(59) };
/// assert_eq!(serde_json::to_string(&c)?,
///     r#"{"id":1,"domain":"fff:0:1:0","space":{"uid":"c0a8"},"lifetime":60,"proxy":false,"renew":false,"state":"held","expires_in":59}"#);
/// Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClaimView {
    /// The daemon's ID for this claim (stable across restarts).
    pub id: u64,
    /// Domain ID text.
    pub domain: String,
    /// The space.
    pub space: SpaceText,
    /// Lifetime in seconds.
    pub lifetime: u32,
    /// The X flag.
    pub proxy: bool,
    /// Whether the daemon renews it before its lifetime ends (docs/uiap-design.md D32).
    #[serde(default)]
    pub renew: bool,
    /// Where it stands.
    pub state: ClaimState,
    /// Whole seconds left of a held claim's lifetime; `None` if infinite, not held yet, or ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_in: Option<u64>,
}

/// What happened to a claim, in a [`ClaimEvent`].
///
/// ```
/// use uiap_control::EventKind;
///
/// assert_eq!(serde_json::to_string(&EventKind::Lost)?, r#""lost""#);
/// assert_eq!(EventKind::Conflict.to_string(), "conflict");
/// Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EventKind {
    /// A renewal succeeded; the lifetime starts again.
    Renewed,
    /// A Claim-Deny arrived after the claim succeeded: another device holds an overlapping
    /// claim. Ours is still held and defended; the application decides (docs/uiap-design.md D33).
    Conflict,
    /// A renewal was denied: the claim is gone.
    Lost,
    /// The lifetime ended without renewal: the claim is gone.
    Expired,
    /// The claim was released (by its owner or root).
    Released,
    /// Every participating interface left: the claim is still held, but only this device
    /// defends it (a site of one) until an interface comes back, when it is announced again
    /// (docs/uiap-design.md D63).
    Isolated,
    /// Datagrams from neighbours were dropped by the daemon's rate limit: a conflicting
    /// Claim-Attempt or Claim-Deny may have been among them, so another device may hold an
    /// overlapping claim. The claim is still held (docs/uiap-design.md D64).
    Suppressed,
}

impl EventKind {
    /// The name used on the wire.
    ///
    /// ```
    /// assert_eq!(uiap_control::EventKind::Renewed.as_str(), "renewed");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::Renewed => "renewed",
            EventKind::Conflict => "conflict",
            EventKind::Lost => "lost",
            EventKind::Expired => "expired",
            EventKind::Released => "released",
            EventKind::Isolated => "isolated",
            EventKind::Suppressed => "suppressed",
        }
    }

    /// Whether the claim is gone after this event.
    ///
    /// ```
    /// use uiap_control::EventKind;
    ///
    /// assert!(EventKind::Lost.ends_claim());
    /// assert!(!EventKind::Conflict.ends_claim());
    /// ```
    pub fn ends_claim(self) -> bool {
        matches!(
            self,
            EventKind::Lost | EventKind::Expired | EventKind::Released
        )
    }

    /// The state a claim is in after this event, given the state it was in.
    ///
    /// ```
    /// use uiap_control::{ClaimState, EventKind};
    ///
    /// assert_eq!(EventKind::Conflict.state_after(ClaimState::Held), ClaimState::Conflicted);
    /// assert_eq!(EventKind::Renewed.state_after(ClaimState::Conflicted), ClaimState::Conflicted);
    /// ```
    pub fn state_after(self, before: ClaimState) -> ClaimState {
        match self {
            EventKind::Lost => ClaimState::Lost,
            EventKind::Expired => ClaimState::Expired,
            EventKind::Conflict => ClaimState::Conflicted,
            EventKind::Renewed
            | EventKind::Released
            | EventKind::Isolated
            | EventKind::Suppressed => before,
        }
    }
}

impl fmt::Display for EventKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// One event of a watched claim (docs/uiap-design.md D33).
///
/// ```
/// use uiap_control::{ClaimEvent, ClaimState, ClaimView, EventKind, SpaceText};
///
/// let claim = ClaimView { id: 3, domain: "fff:0:1:0".into(), space: SpaceText::Uid("01".into()),
///                         lifetime: 60, proxy: false, renew: true, state: ClaimState::Lost, expires_in: None };
/// let e = ClaimEvent { id: 3, kind: EventKind::Lost, reason: Some("denied".into()), claim };
/// let text = serde_json::to_string(&e)?;
/// assert!(text.starts_with(r#"{"id":3,"kind":"lost","reason":"denied","claim":{"#), "{text}");
/// Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClaimEvent {
    /// The claim's `id`.
    pub id: u64,
    /// What happened.
    pub kind: EventKind,
    /// Why, as a sentence (for `conflict` and `lost`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The claim as it is after the event.
    pub claim: ClaimView,
}

/// A participating interface as the API shows it.
///
/// ```
/// use uiap_control::InterfaceView;
///
/// let i = InterfaceView { index: 2, name: "veth0".into(), link_local: "fe80::1".into() };
/// assert_eq!(serde_json::to_string(&i)?, r#"{"index":2,"name":"veth0","link_local":"fe80::1"}"#);
/// Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InterfaceView {
    /// Interface index (scope ID).
    pub index: u32,
    /// Interface name.
    pub name: String,
    /// Its link-local address.
    pub link_local: String,
}

/// The answer to `status`.
///
/// ```
/// use uiap_control::StatusView;
///
/// let s: StatusView = serde_json::from_str(
///     r#"{"device_id":"00000000000000ff","interfaces":[],"claims":0,"counters":{},"drops":{"empty":2}}"#)?;
/// assert_eq!(s.drops["empty"], 2);
/// Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatusView {
    /// 16 hex digits.
    pub device_id: String,
    /// Participating interfaces.
    pub interfaces: Vec<InterfaceView>,
    /// Number of claims.
    pub claims: usize,
    /// Traffic counters (sent, received, forwarded…).
    pub counters: BTreeMap<String, u64>,
    /// Drop counters by reason (source checks, wire errors, protocol reasons).
    pub drops: BTreeMap<String, u64>,
    /// The receive buffers the kernel granted, in bytes (`claim`, `reply`).
    #[serde(default)]
    pub receive_buffers: BTreeMap<String, u64>,
    /// The claims of other devices defended by proxy (docs/uiap-design.md D43).
    #[serde(default)]
    pub proxies: Vec<ProxyView>,
    /// With a key: the neighbours whose datagrams failed authentication, most recent first
    /// (docs/uiap-design.md D62).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub auth_failures: Vec<AuthFailureView>,
    /// The longest liveness window a site lease on this daemon may keep, in ms: the daemon's
    /// new-claim window is at least this plus a quarter (docs/uiap-design.md D73). Zero: no
    /// lease may rely on it. Absent from a daemon that does not say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lease_liveness_ms: Option<u64>,
}

/// A claim of another device that this daemon defends by proxy.
///
/// ```
/// use uiap_control::{ProxyView, SpaceText};
///
/// let p: ProxyView = serde_json::from_str(
///     r#"{"origin":"0000000000000009","domain":"fff:0:1:0","space":{"uid":"07"},"expires_in":600}"#)?;
/// assert_eq!(p.space, SpaceText::Uid("07".into()));
/// assert_eq!(p.expires_in, 600);
/// Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProxyView {
    /// The device that made the claim (16 hex digits).
    pub origin: String,
    /// Its domain.
    pub domain: String,
    /// The space.
    pub space: SpaceText,
    /// Seconds until this daemon stops defending it.
    pub expires_in: u64,
}
