//! `uiap-control`: the control protocol of `uiapd`, the UIAP daemon — its typed requests and
//! responses, and (on Unix) a blocking client. No async runtime: applications and lease
//! providers talk to the daemon with this crate alone.
//!
//! # Example
//!
//! ```no_run
//! use uiap_control::{ClaimAnswer, ClaimRequest, Client, SpaceText};
//!
//! let uiapd = Client::default(); // /run/uiapd/control.sock
//! let request = ClaimRequest { lifetime: 600, ..ClaimRequest::new("fff:0:1:0", SpaceText::Uid("c0a8".into())) };
//! match uiapd.claim(&request, None, &mut |waiting| eprintln!("{waiting}"))? {
//!     ClaimAnswer::Claimed { claim, .. } => uiapd.release(claim.id)?,
//!     ClaimAnswer::Denied { reason, .. } | ClaimAnswer::Failed { reason, .. } => eprintln!("{reason}"),
//! }
//! Ok::<(), uiap_control::ControlError>(())
//! ```
//!
//! # The protocol
//!
//! Newline-delimited JSON over a Unix socket (mode 0660). A client connects, writes one
//! request object per line, and reads the answers, in order. A connection may carry any number
//! of requests. A `claim` request is answered when the claim has finished (about 2.5 s:
//! docs/uiap-design.md D10), so a client that pipelines requests waits for it. A claim still in
//! progress when its connection reaches end of stream is cancelled (docs/uiap-design.md D30):
//! keep the connection open until the answer.
//!
//! Every request gets exactly one final answer. Before it, a `claim` may get one provisional
//! line, `"result":"waiting"`, when the claim cannot start at once (rate limited after
//! conflicts: docs/uiap-design.md D34); a `watch` request turns the connection into a stream of
//! events (docs/uiap-design.md D33). [`Response::is_final`] tells them apart.
//!
//! ## Requests ([`Request`])
//!
//! | request | meaning |
//! |---|---|
//! | `{"op":"claim","domain":"fff:0:1:0","space":{"uid":"c0a8"},"lifetime":3600,"proxy":false,"renew":false}` | claim a space ([`ClaimRequest`]); `lifetime` (seconds, 1 or more, default 3600, 4294967295 = infinite), `proxy` (default false) and `renew` (default false: defended for `lifetime`, then expired; true: renewed before it ends, for as long as the daemon runs: docs/uiap-design.md D32) are optional |
//! | `{"op":"release","id":1}` | release a claim by the `id` the daemon gave it (only the user who made it, or root: docs/uiap-design.md D28); also forgets an ended (`lost`, `expired`) claim |
//! | `{"op":"list"}` | the claims held, in progress, or ended and not yet released |
//! | `{"op":"status"}` | device ID, participating interfaces, counters, receive buffers, proxied claims |
//! | `{"op":"proxies","flush":false}` | the claims of other devices defended by proxy; `flush` (root only) forgets them all (docs/uiap-design.md D43) |
//! | `{"op":"watch","id":1}` | events of claim 1 (without `id`: of every claim) on this connection until it closes; with `"release_on_close":true` (and an `id`) the claim is released when this connection closes, however the client ends (docs/uiap-design.md D54) |
//!
//! A `space` is one of `{"uid":"HEX[/BITS]"}`, `{"range":"HEX[/BITS]-HEX[/BITS]"}` or
//! `{"prefix":"HEX/BITS"}` ([`SpaceText`]).
//!
//! ## Responses ([`Response`])
//!
//! Every response has `"ok"`. On success:
//!
//! * claim ([`Response::Claim`]): `{"ok":true,"result":"claimed","claim":CLAIM}` (with
//!   `"reason":"a site of one: no participating interface"` when no interface participates:
//!   docs/uiap-design.md D23) or `{"ok":true,"result":"denied","reason":"…","claim":CLAIM}` (a
//!   denial is an answer, not an error; `result` may also be `"failed"` with a `reason`, e.g.
//!   when every participating interface left while claiming: docs/uiap-design.md D31); a claim
//!   that overlaps another claim of this device is `denied` at once, with `id` 0 and
//!   `"reason":"local conflict with claim N"`; a network denial's `reason` is a sentence saying
//!   who refused it (docs/uiap-design.md D26); a rate-limited claim first gets
//!   `{"ok":true,"result":"waiting","reason":"rate limited, starts in 42 s","claim":CLAIM}`;
//! * release: `{"ok":true,"result":"released","id":1}`;
//! * list: `{"ok":true,"claims":[CLAIM,…]}`;
//! * status: `{"ok":true,"status":{"device_id":"0123456789abcdef","interfaces":[{"index":2,"name":"veth0","link_local":"fe80::1"}],"claims":1,"counters":{"attempts_sent":3,…},"drops":{"hop_limit_not_255":1,…},"receive_buffers":{"claim":8388608,"reply":8388608},"proxies":[PROXY,…],"lease_liveness_ms":2000}}`;
//! * proxies: `{"ok":true,"proxies":[PROXY,…]}`, with `"flushed":N` after a flush;
//! * watch: `{"ok":true,"result":"watching","claims":[CLAIM,…]}` (the watched claims as they are
//!   now), then one `{"ok":true,"event":EVENT}` line per event, where `EVENT` is
//!   `{"id":1,"kind":"lost","reason":"…","claim":CLAIM}` and `kind` one of `renewed`,
//!   `conflict` (a Claim-Deny arrived after the claim succeeded: someone else holds an
//!   overlapping claim; ours is still held and defended), `lost` (a renewal was denied: the
//!   claim is gone), `expired` (its lifetime ended), `released` ([`EventKind`]). Anything the
//!   client writes on a watching connection is ignored; a client that does not read its events
//!   is disconnected rather than allowed to hold them back (the end of the stream says events
//!   may be missing).
//!
//! where `CLAIM` is `{"id":1,"domain":"fff:0:1:0","space":{"uid":"c0a8"},"lifetime":3600,"proxy":false,"renew":false,"state":"held","expires_in":3599}`
//! ([`ClaimView`]; `state` is a [`ClaimState`]: `claiming`, `held`, `conflicted`, `lost`,
//! `expired`, or in a claim's answer `denied`; `expires_in`: whole seconds left of a held
//! claim's lifetime, absent for an infinite one), and `PROXY` is
//! `{"origin":"0000000000000009","domain":"fff:0:1:0","space":{"uid":"07"},"expires_in":600}`.
//!
//! A request is one line of at most [`MAX_REQUEST_LINE`] bytes of UTF-8 (docs/uiap-design.md
//! D25): a longer line is answered with an error and the connection closed; a malformed line
//! is answered with an error and the connection stays open.
//!
//! On failure: `{"ok":false,"error":{"kind":"request","message":"domain: expected …"}}`, with
//! `kind` one of `request` (a malformed or refused request) and `io` (the daemon cannot serve
//! it now) ([`ErrorKind`]).
//!
//! # Platforms
//!
//! The types build everywhere; [`Client`] and what it returns exist on Unix only (the control
//! socket is a Unix socket).

#![deny(missing_docs, missing_debug_implementations)]

mod auth;
#[cfg(unix)]
mod client;
mod clock;
mod error;
mod request;
mod response;
mod space;
mod view;

pub use auth::{AuthFailureView, AuthFailures};
#[cfg(unix)]
pub use client::{Client, HeldClaim, Hold, Watch};
pub use clock::ClockAhead;
pub use error::{ControlError, ControlErrorKind};
pub use request::{ClaimRequest, DEFAULT_LIFETIME, INFINITE_LIFETIME, MAX_REQUEST_LINE, Request};
pub use response::{ClaimAnswer, ErrorBody, ErrorKind, Response};
pub use space::SpaceText;
pub use view::{
    ClaimEvent, ClaimState, ClaimView, EventKind, InterfaceView, ProxyView, StatusView,
};

/// Where `uiapd` listens unless told otherwise.
///
/// ```
/// assert_eq!(uiap_control::DEFAULT_CONTROL, "/run/uiapd/control.sock");
/// ```
pub const DEFAULT_CONTROL: &str = "/run/uiapd/control.sock";
