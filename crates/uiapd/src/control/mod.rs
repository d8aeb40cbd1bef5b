//! The control API: newline-delimited JSON over a Unix socket (mode 0660).
//!
//! A client connects, writes one request object per line, and reads the answers, in order. A
//! connection may carry any number of requests. A `claim` request is answered when the claim has
//! finished (about 2.5 s: docs/uiap-design.md D10), so a client that pipelines requests waits
//! for it. A claim still in progress when its connection reaches end of stream is cancelled
//! (docs/uiap-design.md D30): keep the connection open until the answer.
//!
//! Every request gets exactly one final answer. Before it, a `claim` may get one provisional
//! line, `"result":"waiting"`, when the claim cannot start at once (rate limited after
//! conflicts: docs/uiap-design.md D34); a `watch` request turns the connection into a stream of
//! events (docs/uiap-design.md D33). [`Response::is_final`] tells them apart.
//!
//! # Requests
//!
//! | request | meaning |
//! |---|---|
//! | `{"op":"claim","domain":"fff:0:1:0","space":{"uid":"c0a8"},"lifetime":3600,"proxy":false,"renew":false}` | claim a space; `lifetime` (seconds, 1 or more, default 3600, 4294967295 = infinite), `proxy` (default false) and `renew` (default false: defended for `lifetime`, then expired; true: renewed before it ends, for as long as the daemon runs: docs/uiap-design.md D32) are optional |
//! | `{"op":"release","id":1}` | release a claim by the `id` the daemon gave it (only the user who made it, or root: docs/uiap-design.md D28); also forgets an ended (`lost`, `expired`) claim |
//! | `{"op":"list"}` | the claims held, in progress, or ended and not yet released |
//! | `{"op":"status"}` | device ID, participating interfaces, counters, receive buffers, proxied claims |
//! | `{"op":"proxies","flush":false}` | the claims of other devices defended by proxy; `flush` (root only) forgets them all (docs/uiap-design.md D43) |
//! | `{"op":"watch","id":1}` | events of claim 1 (without `id`: of every claim) on this connection until it closes; with `"release_on_close":true` (and an `id`) the claim is released when this connection closes, however the client ends (docs/uiap-design.md D54) |
//!
//! A `space` is one of `{"uid":"HEX[/BITS]"}`, `{"range":"HEX[/BITS]-HEX[/BITS]"}` or
//! `{"prefix":"HEX/BITS"}`. `HEX` is a string of hex digits, `BITS` the number of significant
//! bits (default: 4 per digit). In a left-justified domain the significant bits are the leading
//! ones (`abc` is `ab c0`/12); in a right-justified domain the trailing ones (`abc` is `0a bc`/12).
//!
//! # Responses
//!
//! Every response has `"ok"`. On success:
//!
//! * claim: `{"ok":true,"result":"claimed","claim":CLAIM}` (with `"reason":"a site of one: no participating interface"`
//!   when no interface participates: docs/uiap-design.md D23) or `{"ok":true,"result":"denied","claim":CLAIM}`
//!   (a denial is an answer, not an error; `result` may also be `"failed"` with a `reason`, e.g. when every
//!   participating interface left while claiming: docs/uiap-design.md D31);
//!   a claim that overlaps another claim of this device is `denied` at once, with `id` 0 and
//!   `"reason":"local conflict with claim N"`; a network denial's `reason` is a sentence saying who refused
//!   it (docs/uiap-design.md D26); a rate-limited claim first gets
//!   `{"ok":true,"result":"waiting","reason":"rate limited, starts in 42 s","claim":CLAIM}`;
//! * release: `{"ok":true,"result":"released","id":1}`;
//! * list: `{"ok":true,"claims":[CLAIM,…]}`;
//! * status: `{"ok":true,"status":{"device_id":"0123456789abcdef","interfaces":[{"index":2,"name":"veth0","link_local":"fe80::1"}],"claims":1,"counters":{"attempts_sent":3,…},"drops":{"hop_limit_not_255":1,…},"receive_buffers":{"claim":8388608,"reply":8388608},"proxies":[PROXY,…]}}`;
//! * proxies: `{"ok":true,"proxies":[PROXY,…]}`, with `"flushed":N` after a flush;
//! * watch: `{"ok":true,"result":"watching","claims":[CLAIM,…]}` (the watched claims as they are now), then one
//!   `{"ok":true,"event":EVENT}` line per event, where `EVENT` is
//!   `{"id":1,"kind":"lost","reason":"…","claim":CLAIM}` and `kind` one of `renewed`, `conflict` (a Claim-Deny
//!   arrived after the claim succeeded: someone else holds an overlapping claim; ours is still held and
//!   defended), `lost` (a renewal was denied: the claim is gone), `expired` (its lifetime ended), `released`.
//!   Anything the client writes on a watching connection is ignored; a client that does not read its events is
//!   disconnected rather than allowed to hold them back (the end of the stream says events may be missing).
//!
//! where `CLAIM` is `{"id":1,"domain":"fff:0:1:0","space":{"uid":"c0a8"},"lifetime":3600,"proxy":false,"renew":false,"state":"held","expires_in":3599}`
//! (`state`: `claiming`, `held`, `conflicted`, `lost`, `expired`, or in a claim's answer `denied`;
//! `expires_in`: whole seconds left of a held claim's lifetime, absent for an infinite one),
//! and `PROXY` is `{"origin":"0000000000000009","domain":"fff:0:1:0","space":{"uid":"07"},"expires_in":600}`.
//!
//! A request is one line of at most [`MAX_REQUEST_LINE`] bytes of UTF-8 (docs/uiap-design.md D25):
//! a longer line is answered with an error and the connection closed; a malformed line is
//! answered with an error and the connection stays open.
//!
//! On failure: `{"ok":false,"error":{"kind":"request","message":"domain: expected …"}}`, with
//! `kind` one of [`DaemonErrorKind::as_str`](crate::DaemonErrorKind::as_str).

mod client;
mod server;

pub(crate) use client::is_connect_failure;
pub use client::{HeldClaim, Hold, Watch, call, call_within, hold, hold_while_connected, watch};
pub use server::{Incoming, Limits, MAX_REQUEST_LINE, REPLY_QUEUE, bind, serve};

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::{DaemonError, DaemonErrorKind};
use uiap::space::{DomainId, Justification, Uid, UidSpace};

/// The default claim lifetime, in seconds.
pub const DEFAULT_LIFETIME: u32 = 3600;

fn default_lifetime() -> u32 {
    DEFAULT_LIFETIME
}

/// One request line.
///
/// ```
/// use uiapd::control::{Request, SpaceText};
///
/// let r: Request = serde_json::from_str(r#"{"op":"claim","domain":"fff:0:1:0","space":{"uid":"c0a8"}}"#)?;
/// assert_eq!(r, Request::Claim { domain: "fff:0:1:0".into(), space: SpaceText::Uid("c0a8".into()),
///                                lifetime: 3600, proxy: false, renew: false });
/// assert_eq!(serde_json::to_string(&Request::List)?, r#"{"op":"list"}"#);
/// Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum Request {
    /// Claim a UID space.
    Claim {
        /// The Domain ID in text form (§6.1).
        domain: String,
        /// The space.
        space: SpaceText,
        /// Seconds; `u32::MAX` is infinite.
        #[serde(default = "default_lifetime")]
        lifetime: u32,
        /// Claim on behalf of another device (the X flag).
        #[serde(default)]
        proxy: bool,
        /// Renew the claim before its lifetime ends, for as long as the daemon runs; without it
        /// the claim is defended for `lifetime` and then expires (docs/uiap-design.md D32).
        #[serde(default)]
        renew: bool,
    },
    /// Release a claim.
    Release {
        /// The claim's `id`.
        id: u64,
    },
    /// List the claims.
    List,
    /// Report the daemon's status.
    Status,
    /// List the claims this device defends by proxy; with `flush`, forget them all (root only).
    Proxies {
        /// Forget every proxied claim after listing them.
        #[serde(default)]
        flush: bool,
    },
    /// Turn the connection into a stream of claim events (docs/uiap-design.md D33).
    Watch {
        /// Only this claim's events; every claim's without it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<u64>,
        /// Release claim `id` when this connection closes (docs/uiap-design.md D54): a claim
        /// that lives exactly as long as its client, even one killed without a word.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        release_on_close: bool,
    },
}

/// A UID space in text form.
///
/// ```
/// use uiapd::control::SpaceText;
///
/// let s: SpaceText = serde_json::from_str(r#"{"prefix":"c0/4"}"#)?;
/// assert_eq!(s, SpaceText::Prefix("c0/4".into()));
/// Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum SpaceText {
    /// `HEX[/BITS]`.
    Uid(String),
    /// `HEX[/BITS]-HEX[/BITS]`.
    Range(String),
    /// `HEX/BITS`.
    Prefix(String),
}

fn request_error(message: String) -> DaemonError {
    DaemonError::new(DaemonErrorKind::Request, message)
}

/// Parses `HEX[/BITS]` into a UID of a domain with justification `j`.
fn parse_uid(text: &str, j: Justification, what: &str) -> Result<Uid, DaemonError> {
    let (hex, bits) = match text.split_once('/') {
        Some((h, b)) => {
            let bits: u16 = b.parse().map_err(|_| {
                request_error(format!(
                    "{what}: expected a bit count after `/`, found `{b}` in `{text}`"
                ))
            })?;
            (h, Some(bits))
        }
        None => (text, None),
    };
    if let Some(at) = hex.find(|c: char| !c.is_ascii_hexdigit()) {
        let c = hex[at..].chars().next().unwrap_or('?');
        return Err(request_error(format!(
            "{what}: expected a hex digit, found `{c}` at {at} in `{text}`"
        )));
    }
    let nibbles = hex.len();
    if nibbles > 510 {
        return Err(request_error(format!(
            "{what}: expected at most 510 hex digits, found {nibbles}"
        )));
    }
    let bits = bits.unwrap_or(nibbles as u16 * 4);
    let padded = match (nibbles % 2, j) {
        (0, _) => hex.to_string(),
        (_, Justification::Left) => format!("{hex}0"),
        (_, Justification::Right) => format!("0{hex}"),
    };
    let bytes: Vec<u8> = (0..padded.len() / 2)
        .map(|i| u8::from_str_radix(&padded[2 * i..2 * i + 2], 16).unwrap_or(0))
        .collect();
    Uid::with_justification(&bytes, bits, j)
        .map_err(|e| request_error(format!("{what}: {e} in `{text}`")))
}

fn format_uid(uid: &Uid) -> String {
    let mut s: String = uid.as_bytes().iter().map(|b| format!("{b:02x}")).collect();
    if usize::from(uid.bit_len()) != 8 * uid.as_bytes().len() {
        s.push_str(&format!("/{}", uid.bit_len()));
    }
    s
}

impl SpaceText {
    /// Parses the text into a validated [`UidSpace`] of `domain`.
    ///
    /// # Errors
    ///
    /// [`DaemonErrorKind::Request`], naming the offending character or field.
    ///
    /// ```
    /// use uiapd::control::SpaceText;
    /// use uiap::space::{DomainId, Uid, UidSpace};
    ///
    /// let did: DomainId = "fff:0:1:0".parse()?;
    /// let space = SpaceText::Uid("abc".into()).parse(&did)?;
    /// assert_eq!(space, UidSpace::Unique(Uid::new(&[0xab, 0xc0], 12)?));
    /// let err = SpaceText::Range("02-01".into()).parse(&did).unwrap_err();
    /// assert!(err.to_string().contains("range"));
    /// Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn parse(&self, domain: &DomainId) -> Result<UidSpace, DaemonError> {
        let j = domain.justification();
        let space = match self {
            SpaceText::Uid(t) => UidSpace::Unique(parse_uid(t, j, "uid")?),
            SpaceText::Prefix(t) => UidSpace::Prefix(parse_uid(t, j, "prefix")?),
            SpaceText::Range(t) => {
                let (lo, hi) = t.split_once('-').ok_or_else(|| {
                    request_error(format!("range: expected `LOW-HIGH`, found `{t}` (no `-`)"))
                })?;
                UidSpace::Range {
                    low: parse_uid(lo, j, "range low")?,
                    high: parse_uid(hi, j, "range high")?,
                }
            }
        };
        space
            .validate(j)
            .map_err(|e| request_error(format!("space: {e}")))?;
        Ok(space)
    }

    /// The text form of a space (inverse of [`SpaceText::parse`]).
    ///
    /// ```
    /// use uiapd::control::SpaceText;
    /// use uiap::space::{Uid, UidSpace};
    ///
    /// let space = UidSpace::Prefix(Uid::new(&[0xc0], 4)?);
    /// assert_eq!(SpaceText::from_space(&space), SpaceText::Prefix("c0/4".into()));
    /// Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_space(space: &UidSpace) -> SpaceText {
        match space {
            UidSpace::Unique(u) => SpaceText::Uid(format_uid(u)),
            UidSpace::Prefix(u) => SpaceText::Prefix(format_uid(u)),
            UidSpace::Range { low, high } => {
                SpaceText::Range(format!("{}-{}", format_uid(low), format_uid(high)))
            }
        }
    }
}

impl std::fmt::Display for SpaceText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SpaceText::Uid(t) => write!(f, "uid {t}"),
            SpaceText::Range(t) => write!(f, "range {t}"),
            SpaceText::Prefix(t) => write!(f, "prefix {t}"),
        }
    }
}

/// A claim as the API shows it.
///
/// ```
/// use uiapd::control::{ClaimView, SpaceText};
///
/// let c = ClaimView { id: 1, domain: "fff:0:1:0".into(), space: SpaceText::Uid("c0a8".into()),
///                     lifetime: 60, proxy: false, renew: false, state: "held".into(), expires_in: Some(59) };
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
    /// `claiming`, `held`, `conflicted`, `lost` or `expired`; `denied` in a claim's answer.
    pub state: String,
    /// Whole seconds left of a held claim's lifetime; `None` if infinite, not held yet, or ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_in: Option<u64>,
}

/// What happened to a claim, in an [`ClaimEvent`].
///
/// ```
/// use uiapd::control::EventKind;
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
}

impl EventKind {
    /// The name used on the wire.
    ///
    /// ```
    /// assert_eq!(uiapd::control::EventKind::Renewed.as_str(), "renewed");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::Renewed => "renewed",
            EventKind::Conflict => "conflict",
            EventKind::Lost => "lost",
            EventKind::Expired => "expired",
            EventKind::Released => "released",
        }
    }

    /// Whether the claim is gone after this event.
    ///
    /// ```
    /// use uiapd::control::EventKind;
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
}

impl std::fmt::Display for EventKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One event of a watched claim (docs/uiap-design.md D33).
///
/// ```
/// use uiapd::control::{ClaimEvent, ClaimView, EventKind, SpaceText};
///
/// let claim = ClaimView { id: 3, domain: "fff:0:1:0".into(), space: SpaceText::Uid("01".into()),
///                         lifetime: 60, proxy: false, renew: true, state: "lost".into(), expires_in: None };
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
/// use uiapd::control::InterfaceView;
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
/// use uiapd::control::StatusView;
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
}

/// A claim of another device that this daemon defends by proxy.
///
/// ```
/// use uiapd::control::{ProxyView, SpaceText};
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

/// The body of a failed response.
///
/// ```
/// use uiapd::control::ErrorBody;
///
/// let e = ErrorBody { kind: "request".into(), message: "bad".into() };
/// assert_eq!(serde_json::to_string(&e)?, r#"{"kind":"request","message":"bad"}"#);
/// Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorBody {
    /// A [`DaemonErrorKind::as_str`] name.
    pub kind: String,
    /// What went wrong.
    pub message: String,
}

/// One response line. Fields that do not apply are omitted.
///
/// ```
/// use uiapd::control::Response;
///
/// let r = Response::released(4);
/// assert_eq!(serde_json::to_string(&r)?, r#"{"ok":true,"result":"released","id":4}"#);
/// Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Response {
    /// Whether the request was carried out.
    pub ok: bool,
    /// `claimed`, `denied`, `failed` or `released`; `waiting` and `watching` before more lines
    /// (see [`Response::is_final`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
    /// Why a claim was denied or failed, or a note on its success (a site of one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The released claim's ID.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<u64>,
    /// The claim a `claim` request made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claim: Option<ClaimView>,
    /// The answer to `list`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claims: Option<Vec<ClaimView>>,
    /// The answer to `status`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<StatusView>,
    /// The answer to `proxies`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proxies: Option<Vec<ProxyView>>,
    /// With `proxies` and `flush`: how many proxied claims were forgotten.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flushed: Option<usize>,
    /// Why the request failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorBody>,
    /// An event of a watched claim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event: Option<ClaimEvent>,
}

impl Response {
    /// A failure response.
    ///
    /// ```
    /// use uiapd::control::Response;
    /// use uiapd::DaemonErrorKind;
    ///
    /// let r = Response::error(DaemonErrorKind::Request, "no claim 9");
    /// assert!(!r.ok);
    /// assert_eq!(r.error.unwrap().kind, "request");
    /// ```
    pub fn error(kind: DaemonErrorKind, message: impl Into<String>) -> Response {
        Response {
            ok: false,
            error: Some(ErrorBody {
                kind: kind.as_str().into(),
                message: message.into(),
            }),
            ..Response::default()
        }
    }

    /// The answer to a successful `release`.
    ///
    /// ```
    /// use uiapd::control::Response;
    ///
    /// assert_eq!(Response::released(1).id, Some(1));
    /// ```
    pub fn released(id: u64) -> Response {
        Response {
            ok: true,
            result: Some("released".into()),
            id: Some(id),
            ..Response::default()
        }
    }

    /// The answer to a finished `claim`: `result` is `claimed`, `denied` or `failed`.
    ///
    /// ```
    /// use uiapd::control::{ClaimView, Response, SpaceText};
    ///
    /// let c = ClaimView { id: 1, domain: "fff:0:1:0".into(), space: SpaceText::Uid("01".into()),
    ///                     lifetime: 60, proxy: false, renew: false, state: "held".into(), expires_in: None };
    /// assert_eq!(Response::claim("claimed", c).result.as_deref(), Some("claimed"));
    /// ```
    pub fn claim(result: &str, claim: ClaimView) -> Response {
        Response {
            ok: true,
            result: Some(result.into()),
            claim: Some(claim),
            ..Response::default()
        }
    }

    /// Whether this is a request's last answer: `false` for a claim's provisional `waiting`
    /// line, the `watching` line that opens an event stream, and the events themselves.
    ///
    /// ```
    /// use uiapd::control::Response;
    ///
    /// assert!(Response::released(1).is_final());
    /// let waiting = Response { ok: true, result: Some("waiting".into()), ..Response::default() };
    /// assert!(!waiting.is_final());
    /// ```
    pub fn is_final(&self) -> bool {
        self.event.is_none() && !matches!(self.result.as_deref(), Some("waiting" | "watching"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uid_text_left_and_right() {
        let left: DomainId = "fff:0:1:0".parse().unwrap();
        let right = DomainId::from_bytes([0x0f, 0xff, 0, 0, 0, 1, 0, 0x80]);
        assert_eq!(right.justification(), Justification::Right);
        let l = SpaceText::Uid("abc".into()).parse(&left).unwrap();
        assert_eq!(l, UidSpace::Unique(Uid::new(&[0xab, 0xc0], 12).unwrap()));
        let r = SpaceText::Uid("abc".into()).parse(&right).unwrap();
        assert_eq!(
            r,
            UidSpace::Unique(
                Uid::with_justification(&[0x0a, 0xbc], 12, Justification::Right).unwrap()
            )
        );
        assert_eq!(SpaceText::from_space(&l), SpaceText::Uid("abc0/12".into()));
        assert_eq!(SpaceText::Uid("abc0/12".into()).parse(&left).unwrap(), l);
    }

    #[test]
    fn bad_text_is_located() {
        let did: DomainId = "fff:0:1:0".parse().unwrap();
        let e = SpaceText::Uid("c0g8".into()).parse(&did).unwrap_err();
        assert_eq!(
            e.message(),
            "uid: expected a hex digit, found `g` at 2 in `c0g8`"
        );
        let e = SpaceText::Prefix("c0/x".into()).parse(&did).unwrap_err();
        assert_eq!(
            e.message(),
            "prefix: expected a bit count after `/`, found `x` in `c0/x`"
        );
        let e = SpaceText::Range("05".into()).parse(&did).unwrap_err();
        assert_eq!(
            e.message(),
            "range: expected `LOW-HIGH`, found `05` (no `-`)"
        );
        assert_eq!(
            SpaceText::Range("05-01".into())
                .parse(&did)
                .unwrap_err()
                .kind(),
            DaemonErrorKind::Request
        );
    }

    #[test]
    fn response_round_trip() {
        let line = r#"{"ok":false,"error":{"kind":"request","message":"x"}}"#;
        let r: Response = serde_json::from_str(line).unwrap();
        assert_eq!(serde_json::to_string(&r).unwrap(), line);
    }
}
