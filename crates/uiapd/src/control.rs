//! The control API: newline-delimited JSON over a Unix socket (mode 0660).
//!
//! A client connects, writes one request object per line, and reads one response object per line,
//! in order. A connection may carry any number of requests. A `claim` request is answered when
//! the claim has finished (about 2.5 s: docs/uiap-design.md D10), so a client that pipelines
//! requests waits for it. A claim still in progress when its connection reaches end of stream is
//! cancelled (docs/uiap-design.md D30): keep the connection open until the answer.
//!
//! # Requests
//!
//! | request | meaning |
//! |---|---|
//! | `{"op":"claim","domain":"fff:0:0:1","space":{"uid":"c0a8"},"lifetime":3600,"proxy":false}` | claim a space; `lifetime` (seconds, 1 or more, default 3600, 4294967295 = infinite) and `proxy` (default false) are optional |
//! | `{"op":"release","id":1}` | release a claim by the `id` the daemon gave it (only the user who made it, or root: docs/uiap-design.md D28) |
//! | `{"op":"list"}` | the claims held or in progress |
//! | `{"op":"status"}` | device ID, participating interfaces, counters, receive buffers, proxied claims |
//! | `{"op":"proxies","flush":false}` | the claims of other devices defended by proxy; `flush` (root only) forgets them all (docs/uiap-design.md D43) |
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
//!   (a denial is an answer, not an error; `result` may also be `"failed"` with a `reason`);
//!   a claim that overlaps another claim of this device is `denied` at once, with `id` 0 and
//!   `"reason":"local conflict with claim N"`; a network denial's `reason` is a sentence saying who refused
//!   it (docs/uiap-design.md D26);
//! * release: `{"ok":true,"result":"released","id":1}`;
//! * list: `{"ok":true,"claims":[CLAIM,…]}`;
//! * status: `{"ok":true,"status":{"device_id":"0123456789abcdef","interfaces":[{"index":2,"name":"veth0","link_local":"fe80::1"}],"claims":1,"counters":{"attempts_sent":3,…},"drops":{"hop_limit_not_255":1,…},"receive_buffers":{"claim":8388608,"reply":8388608},"proxies":[PROXY,…]}}`;
//! * proxies: `{"ok":true,"proxies":[PROXY,…]}`, with `"flushed":N` after a flush;
//!
//! where `CLAIM` is `{"id":1,"domain":"fff:0:0:1","space":{"uid":"c0a8"},"lifetime":3600,"proxy":false,"state":"held"}`
//! (`state`: `claiming`, `held`, `denied`, `failed`), and `PROXY` is
//! `{"origin":"0000000000000009","domain":"fff:0:0:1","space":{"uid":"07"},"expires_in":600}`.
//!
//! A request is one line of at most [`MAX_REQUEST_LINE`] bytes of UTF-8 (docs/uiap-design.md D25):
//! a longer line is answered with an error and the connection closed; a malformed line is
//! answered with an error and the connection stays open.
//!
//! On failure: `{"ok":false,"error":{"kind":"request","message":"domain: expected …"}}`, with
//! `kind` one of [`DaemonErrorKind::as_str`](crate::DaemonErrorKind::as_str).

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::UnixStream;
use std::path::Path;

use serde::{Deserialize, Serialize};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::UnixListener;
use tokio::sync::{mpsc, oneshot};

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
/// let r: Request = serde_json::from_str(r#"{"op":"claim","domain":"fff:0:0:1","space":{"uid":"c0a8"}}"#)?;
/// assert_eq!(r, Request::Claim { domain: "fff:0:0:1".into(), space: SpaceText::Uid("c0a8".into()),
///                                lifetime: 3600, proxy: false });
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
    /// let did: DomainId = "fff:0:0:1".parse()?;
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
/// let c = ClaimView { id: 1, domain: "fff:0:0:1".into(), space: SpaceText::Uid("c0a8".into()),
///                     lifetime: 60, proxy: false, state: "held".into() };
/// assert_eq!(serde_json::to_string(&c)?,
///     r#"{"id":1,"domain":"fff:0:0:1","space":{"uid":"c0a8"},"lifetime":60,"proxy":false,"state":"held"}"#);
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
    /// `claiming`, `held`, `denied` or `failed`.
    pub state: String,
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
///     r#"{"origin":"0000000000000009","domain":"fff:0:0:1","space":{"uid":"07"},"expires_in":600}"#)?;
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
    /// `claimed`, `denied`, `failed` or `released`.
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
    /// let c = ClaimView { id: 1, domain: "fff:0:0:1".into(), space: SpaceText::Uid("01".into()),
    ///                     lifetime: 60, proxy: false, state: "held".into() };
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
}

/// A request received by the server, with the channel its response goes back on.
#[derive(Debug)]
pub struct Incoming {
    /// The request.
    pub request: Request,
    /// Where to send the response.
    pub reply: oneshot::Sender<Response>,
    /// The requesting process's user ID (`SO_PEERCRED`), if the kernel gave it
    /// (docs/uiap-design.md D28).
    pub uid: Option<u32>,
}

/// Binds the control socket at `path` with mode 0660, replacing a stale socket file (one nobody
/// answers on). The parent directory is created if missing.
///
/// # Errors
///
/// [`DaemonErrorKind::Io`] if the directory, the socket or its permissions cannot be set up, or
/// if another daemon answers on `path`.
///
/// ```no_run
/// # async fn demo() -> Result<(), uiapd::DaemonError> {
/// let listener = uiapd::control::bind("/run/uiapd/control.sock".as_ref())?;
/// # Ok(()) }
/// ```
pub fn bind(path: &Path) -> Result<UnixListener, DaemonError> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| DaemonError::io("cannot create control directory", Some(dir), e))?;
    }
    if UnixStream::connect(path).is_ok() {
        // Someone answers on it: never remove a live control socket (docs/uiap-design.md D27).
        return Err(DaemonError::new(
            DaemonErrorKind::Io,
            format!(
                "another uiapd is already running: its control socket {} answers",
                path.display()
            ),
        ));
    }
    match std::fs::remove_file(path) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => {
            return Err(DaemonError::io(
                "cannot remove stale control socket",
                Some(path),
                e,
            ));
        }
    }
    let listener = UnixListener::bind(path)
        .map_err(|e| DaemonError::io("cannot bind control socket", Some(path), e))?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o660))
        .map_err(|e| DaemonError::io("cannot set control socket mode", Some(path), e))?;
    Ok(listener)
}

/// Accepts connections forever, parsing each line into a request for `requests`. A malformed
/// line gets an error response and the connection stays open.
///
/// ```no_run
/// # async fn demo() -> Result<(), uiapd::DaemonError> {
/// let listener = uiapd::control::bind("/tmp/uiapd.sock".as_ref())?;
/// let (tx, mut rx) = tokio::sync::mpsc::channel(16);
/// tokio::spawn(uiapd::control::serve(listener, tx));
/// while let Some(incoming) = rx.recv().await {
///     let _ = incoming.reply.send(uiapd::control::Response::released(0));
/// }
/// # Ok(()) }
/// ```
pub async fn serve(listener: UnixListener, requests: mpsc::Sender<Incoming>) {
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        tokio::spawn(connection(stream, requests.clone()));
    }
}

/// The longest request line accepted, in bytes, newline excluded. The largest valid request (a
/// range of two 510-digit UIDs) is about 1 KiB: the limit leaves room for whitespace and future
/// fields while bounding what one connection can make the daemon buffer
/// (docs/uiap-design.md D25).
pub const MAX_REQUEST_LINE: usize = 16 * 1024;

/// One line read by [`read_line`].
enum Line {
    /// A complete line (newline removed), or the last bytes before end of stream.
    Bytes(Vec<u8>),
    /// More than [`MAX_REQUEST_LINE`] bytes without a newline.
    TooLong,
    /// End of stream.
    End,
}

/// Reads one line of at most [`MAX_REQUEST_LINE`] bytes, never buffering more.
async fn read_line<R: AsyncBufRead + Unpin>(reader: &mut R) -> std::io::Result<Line> {
    let mut line = Vec::new();
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(if line.is_empty() {
                Line::End
            } else {
                Line::Bytes(line)
            });
        }
        let (take, done) = match available.iter().position(|&b| b == b'\n') {
            Some(at) => (at, true),
            None => (available.len(), false),
        };
        if line.len() + take > MAX_REQUEST_LINE {
            return Ok(Line::TooLong);
        }
        line.extend_from_slice(&available[..take]);
        reader.consume(take + usize::from(done));
        if done {
            return Ok(Line::Bytes(line));
        }
    }
}

/// Parses one request line: the error names the first byte that is not UTF-8, or what JSON
/// expected.
fn parse_line(line: &[u8]) -> Result<Option<Request>, String> {
    let text = std::str::from_utf8(line).map_err(|e| {
        let at = e.valid_up_to();
        format!("expected UTF-8 text, found byte {:#04x} at {at}", line[at])
    })?;
    if text.trim().is_empty() {
        return Ok(None);
    }
    serde_json::from_str::<Request>(text)
        .map(Some)
        .map_err(|e| format!("expected a request object, {e}"))
}

/// Serves one connection: a request per line, a response per request, in order.
async fn connection(stream: tokio::net::UnixStream, requests: mpsc::Sender<Incoming>) {
    let uid = stream.peer_cred().ok().map(|c| c.uid());
    let (read, mut write) = stream.into_split();
    let mut reader = tokio::io::BufReader::new(read);
    loop {
        let line = match read_line(&mut reader).await {
            Ok(Line::Bytes(line)) => line,
            Ok(Line::End) | Err(_) => return,
            Ok(Line::TooLong) => {
                let refusal = Response::error(
                    DaemonErrorKind::Request,
                    format!(
                        "expected a request line of at most {MAX_REQUEST_LINE} bytes, found more"
                    ),
                );
                // The rest of the line is not read: the connection closes after the answer.
                let _ = send(&mut write, &refusal).await;
                return;
            }
        };
        let response = match parse_line(&line) {
            Ok(None) => continue,
            Ok(Some(request)) => {
                let (tx, mut rx) = oneshot::channel();
                if requests
                    .send(Incoming {
                        request,
                        reply: tx,
                        uid,
                    })
                    .await
                    .is_err()
                {
                    return;
                }
                let answer = if reader.buffer().is_empty() {
                    // Nothing pipelined: watch for the client going away while the request runs.
                    // End of stream drops `rx`, which cancels a claim still in progress
                    // (docs/uiap-design.md D30).
                    tokio::select! {
                        r = &mut rx => r,
                        more = reader.fill_buf() => {
                            if !matches!(more, Ok(bytes) if !bytes.is_empty()) {
                                return;
                            }
                            rx.await
                        }
                    }
                } else {
                    rx.await
                };
                match answer {
                    Ok(r) => r,
                    Err(_) => Response::error(DaemonErrorKind::Io, "the daemon is shutting down"),
                }
            }
            Err(message) => Response::error(DaemonErrorKind::Request, message),
        };
        if send(&mut write, &response).await.is_err() {
            return;
        }
    }
}

async fn send<W: AsyncWrite + Unpin>(write: &mut W, response: &Response) -> std::io::Result<()> {
    let mut text = serde_json::to_string(response).unwrap_or_default();
    text.push('\n');
    write.write_all(text.as_bytes()).await
}

/// Sends one request to the daemon at `path` and waits for its response (blocking; for clients).
///
/// # Errors
///
/// [`DaemonErrorKind::Io`] if the daemon cannot be reached; [`DaemonErrorKind::Protocol`] if
/// it answers something that is not a response line.
///
/// ```no_run
/// use uiapd::control::{call, Request};
///
/// let response = call("/run/uiapd/control.sock".as_ref(), &Request::Status)?;
/// println!("{}", response.status.unwrap().device_id);
/// Ok::<(), uiapd::DaemonError>(())
/// ```
pub fn call(path: &Path, request: &Request) -> Result<Response, DaemonError> {
    call_within(path, request, None)
}

/// [`call`], giving up when no answer has come within `limit` (`None`: wait as long as it
/// takes). Giving up closes the connection, which cancels a claim still in progress
/// (docs/uiap-design.md D30).
///
/// # Errors
///
/// As [`call`]; [`DaemonErrorKind::Io`] with "no answer within N s" when `limit` passes.
///
/// ```no_run
/// use std::time::Duration;
/// use uiapd::control::{call_within, Request};
///
/// let response = call_within("/run/uiapd/control.sock".as_ref(), &Request::List, Some(Duration::from_secs(5)))?;
/// assert!(response.ok);
/// Ok::<(), uiapd::DaemonError>(())
/// ```
pub fn call_within(
    path: &Path,
    request: &Request,
    limit: Option<std::time::Duration>,
) -> Result<Response, DaemonError> {
    let mut stream = UnixStream::connect(path)
        .map_err(|e| DaemonError::io("cannot connect to uiapd", Some(path), e))?;
    stream
        .set_read_timeout(limit.filter(|l| !l.is_zero()))
        .map_err(|e| DaemonError::io("cannot set a timeout", Some(path), e))?;
    let mut line = serde_json::to_string(request).map_err(|e| {
        DaemonError::new(
            DaemonErrorKind::Request,
            format!("cannot encode request: {e}"),
        )
    })?;
    line.push('\n');
    stream
        .write_all(line.as_bytes())
        .map_err(|e| DaemonError::io("cannot send request", Some(path), e))?;
    let mut answer = String::new();
    BufReader::new(&stream)
        .read_line(&mut answer)
        .map_err(|e| match (e.kind(), limit) {
            (std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut, Some(l)) => {
                DaemonError::io(
                    format!("no answer within {} s", l.as_secs_f64()),
                    Some(path),
                    e,
                )
            }
            _ => DaemonError::io("cannot read response", Some(path), e),
        })?;
    if answer.is_empty() {
        return Err(DaemonError::new(
            DaemonErrorKind::Protocol,
            "expected a response line, found end of stream",
        ));
    }
    serde_json::from_str(&answer).map_err(|e| {
        DaemonError::new(
            DaemonErrorKind::Protocol,
            format!("expected a response object, {e}: `{}`", answer.trim_end()),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uid_text_left_and_right() {
        let left: DomainId = "fff:0:0:1".parse().unwrap();
        let right = DomainId::from_bytes([0x0f, 0xff, 0, 0, 0, 0, 0, 0x81]);
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
        let did: DomainId = "fff:0:0:1".parse().unwrap();
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
