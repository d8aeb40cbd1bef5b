//! The client side: one-shot calls, [`watch`] for claim events, and [`hold`], which keeps a claim
//! and hears at once when it ends (docs/uiap-design.md D33).

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::{ClaimEvent, ClaimView, Request, Response};
use crate::{DaemonError, DaemonErrorKind};

/// A blocking connection to the daemon.
#[derive(Debug)]
struct Conn {
    path: PathBuf,
    reader: BufReader<UnixStream>,
    /// The start of a line a timed-out read left behind: the next read
    /// continues it, so a timeout never drops part of an answer.
    pending: Vec<u8>,
}

/// The message of the error [`Conn::open`] gives when nothing answers at the control path.
const CONNECT_FAILED: &str = "cannot connect to uiapd";

/// Whether `e` says nothing answered at the control path (no daemon there), as opposed to a
/// daemon that answered badly.
pub(crate) fn is_connect_failure(e: &DaemonError) -> bool {
    e.kind() == DaemonErrorKind::Io && e.message() == CONNECT_FAILED
}

impl Conn {
    fn open(path: &Path) -> Result<Conn, DaemonError> {
        let stream = UnixStream::connect(path)
            .map_err(|e| DaemonError::io(CONNECT_FAILED, Some(path), e))?;
        Ok(Conn {
            path: path.to_path_buf(),
            reader: BufReader::new(stream),
            pending: Vec::new(),
        })
    }

    fn send(&mut self, request: &Request) -> Result<(), DaemonError> {
        let mut line = serde_json::to_string(request).map_err(|e| {
            DaemonError::new(
                DaemonErrorKind::Request,
                format!("cannot encode request: {e}"),
            )
        })?;
        line.push('\n');
        self.reader
            .get_mut()
            .write_all(line.as_bytes())
            .map_err(|e| DaemonError::io("cannot send request", Some(&self.path), e))
    }

    /// Reads one response line; `Ok(None)` when `deadline` passes first. `limit` is only used to
    /// word the error.
    fn read(&mut self, deadline: Option<Instant>) -> Result<Option<Response>, DaemonError> {
        let left = match deadline {
            Some(d) => match d.checked_duration_since(Instant::now()) {
                Some(left) if !left.is_zero() => Some(left),
                _ => return Ok(None),
            },
            None => None,
        };
        let path = self.path.clone();
        self.reader
            .get_ref()
            .set_read_timeout(left)
            .map_err(|e| DaemonError::io("cannot set a timeout", Some(&path), e))?;
        match self.reader.read_until(b'\n', &mut self.pending) {
            Ok(_) => {}
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                return Ok(None);
            }
            Err(e) => return Err(DaemonError::io("cannot read response", Some(&path), e)),
        }
        let line = std::mem::take(&mut self.pending);
        if line.last() != Some(&b'\n') {
            return Err(DaemonError::new(
                DaemonErrorKind::Protocol,
                if line.is_empty() {
                    "expected a response line, found end of stream"
                } else {
                    "expected the rest of a response line, found end of stream"
                },
            ));
        }
        let answer = String::from_utf8_lossy(&line);
        serde_json::from_str(&answer).map(Some).map_err(|e| {
            DaemonError::new(
                DaemonErrorKind::Protocol,
                format!("expected a response object, {e}: `{}`", answer.trim_end()),
            )
        })
    }

    /// Sends a `watch` request and reads its `watching` answer: the watched claims as they are.
    fn start_watch(
        &mut self,
        id: Option<u64>,
        release_on_close: bool,
    ) -> Result<Vec<ClaimView>, DaemonError> {
        self.send(&Request::Watch {
            id,
            release_on_close,
        })?;
        let r = self.read(None)?.unwrap_or_default();
        match (r.result.as_deref(), r.claims) {
            (Some("watching"), Some(claims)) => Ok(claims),
            _ => Err(match r.error {
                Some(e) => DaemonError::new(DaemonErrorKind::Request, e.message),
                None => DaemonError::new(
                    DaemonErrorKind::Protocol,
                    "watch: expected a `watching` answer, found another",
                ),
            }),
        }
    }

    /// The next event line before `wait` passes (`None`: wait as long as it takes).
    fn next_event(&mut self, wait: Option<Duration>) -> Result<Option<ClaimEvent>, DaemonError> {
        let deadline = wait.map(|w| Instant::now() + w.max(Duration::from_millis(1)));
        loop {
            let Some(r) = self.read(deadline)? else {
                return Ok(None);
            };
            if let Some(event) = r.event {
                return Ok(Some(event));
            }
        }
    }

    /// Reads answers until the final one, handing provisional ones to `progress`.
    fn final_answer(
        &mut self,
        limit: Option<Duration>,
        progress: &mut dyn FnMut(&Response),
    ) -> Result<Response, DaemonError> {
        let deadline = limit.filter(|l| !l.is_zero()).map(|l| Instant::now() + l);
        loop {
            match self.read(deadline)? {
                Some(r) if r.is_final() => return Ok(r),
                Some(r) => progress(&r),
                None => {
                    let l = limit.unwrap_or_default();
                    return Err(DaemonError::new(
                        DaemonErrorKind::Io,
                        format!(
                            "no answer within {} s from {}",
                            l.as_secs_f64(),
                            self.path.display()
                        ),
                    ));
                }
            }
        }
    }
}

/// Sends one request to the daemon at `path` and waits for its final response (blocking; for
/// clients).
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
    call_within(path, request, None, &mut |_| {})
}

/// [`call`], giving up when no final answer has come within `limit` (`None`: wait as long as
/// it takes), and handing every provisional answer (a rate-limited claim's `waiting`) to
/// `progress` as it comes. Giving up closes the connection, which cancels a claim still in
/// progress (docs/uiap-design.md D30).
///
/// # Errors
///
/// As [`call`]; [`DaemonErrorKind::Io`] with "no answer within N s" when `limit` passes.
///
/// ```no_run
/// use std::time::Duration;
/// use uiapd::control::{call_within, Request};
///
/// let response = call_within("/run/uiapd/control.sock".as_ref(), &Request::List,
///                            Some(Duration::from_secs(5)), &mut |r| eprintln!("{:?}", r.reason))?;
/// assert!(response.ok);
/// Ok::<(), uiapd::DaemonError>(())
/// ```
pub fn call_within(
    path: &Path,
    request: &Request,
    limit: Option<Duration>,
    progress: &mut dyn FnMut(&Response),
) -> Result<Response, DaemonError> {
    let mut conn = Conn::open(path)?;
    conn.send(request)?;
    conn.final_answer(limit, progress)
}

/// The outcome of [`hold`].
// `Held` is the outcome a caller hopes for and keeps for the claim's life,
// made once per claim: boxing it would add an allocation and an indirection
// to save stack space in the rare `Refused` case.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum Hold {
    /// The claim succeeded and is watched.
    Held(HeldClaim),
    /// The claim's final answer was not `claimed` (`denied`, `failed`, or an error).
    Refused(Box<Response>),
}

/// A claim that succeeded, with the connection its events arrive on (docs/uiap-design.md D33).
/// Dropping it closes the connection; the claim stays with the daemon until its lifetime ends
/// or it is released.
#[derive(Debug)]
pub struct HeldClaim {
    conn: Conn,
    claim: ClaimView,
    reason: Option<String>,
}

/// Claims a space and, once it is `claimed`, watches it on the same connection: every later
/// event of the claim (renewed, conflict, lost, expired, released) is returned by
/// [`HeldClaim::next_event`] as soon as the daemon knows it. `request` must be a
/// [`Request::Claim`]; set its `renew` to keep the claim beyond one lifetime. `limit` bounds
/// the wait for the claim's answer, as in [`call_within`].
///
/// # Errors
///
/// As [`call_within`]; [`DaemonErrorKind::Request`] if `request` is not a claim;
/// [`DaemonErrorKind::Protocol`] if the daemon does not confirm the watch.
///
/// ```no_run
/// use uiapd::control::{hold, EventKind, Hold, Request, SpaceText};
///
/// let request = Request::Claim { domain: "fff:0:1:0".into(), space: SpaceText::Uid("c0a8".into()),
///                                lifetime: 60, proxy: false, renew: true };
/// let Hold::Held(mut claim) = hold("/run/uiapd/control.sock".as_ref(), &request, None)? else {
///     return Ok(());
/// };
/// while let Some(event) = claim.next_event(None)? {
///     if event.kind.ends_claim() {
///         eprintln!("claim {} ended: {}", event.id, event.kind);
///         break;
///     }
/// }
/// Ok::<(), uiapd::DaemonError>(())
/// ```
pub fn hold(path: &Path, request: &Request, limit: Option<Duration>) -> Result<Hold, DaemonError> {
    hold_with(path, request, limit, false)
}

/// [`hold`], and the daemon releases the claim when this connection closes — when the
/// [`HeldClaim`] is dropped, or the process ends in any way, even killed (docs/uiap-design.md
/// D54). For a claim that must not outlive its user, such as a site node lease.
///
/// # Errors
///
/// As [`hold`].
///
/// ```no_run
/// use uiapd::control::{hold_while_connected, Hold, Request, SpaceText};
///
/// let request = Request::Claim { domain: "fff:0:1:0".into(), space: SpaceText::Uid("c0a8".into()),
///                                lifetime: 60, proxy: false, renew: true };
/// if let Hold::Held(claim) = hold_while_connected("/run/uiapd/control.sock".as_ref(), &request, None)? {
///     assert_eq!(claim.claim().state, "held");
/// } // dropped: the daemon releases the claim
/// Ok::<(), uiapd::DaemonError>(())
/// ```
pub fn hold_while_connected(
    path: &Path,
    request: &Request,
    limit: Option<Duration>,
) -> Result<Hold, DaemonError> {
    hold_with(path, request, limit, true)
}

fn hold_with(
    path: &Path,
    request: &Request,
    limit: Option<Duration>,
    release_on_close: bool,
) -> Result<Hold, DaemonError> {
    if !matches!(request, Request::Claim { .. }) {
        return Err(DaemonError::new(
            DaemonErrorKind::Request,
            "hold: expected a claim request",
        ));
    }
    let mut conn = Conn::open(path)?;
    conn.send(request)?;
    let answer = conn.final_answer(limit, &mut |_| {})?;
    let claim = match (&answer.result, &answer.claim) {
        (Some(result), Some(claim)) if result == "claimed" && answer.ok => claim.clone(),
        _ => return Ok(Hold::Refused(Box::new(answer))),
    };
    // The watch starts after the answer: the claim as it is now covers anything in between.
    let mut now = conn.start_watch(Some(claim.id), release_on_close)?;
    let Some(now) = now.pop().filter(|c| c.id == claim.id) else {
        return Err(DaemonError::new(
            DaemonErrorKind::Protocol,
            format!(
                "watch: expected claim {} in the answer, found another",
                claim.id
            ),
        ));
    };
    Ok(Hold::Held(HeldClaim {
        conn,
        claim: now,
        reason: answer.reason,
    }))
}

impl HeldClaim {
    /// The claim's `id`.
    ///
    /// ```no_run
    /// # use uiapd::control::{hold, Hold, Request, SpaceText};
    /// # let request = Request::Claim { domain: "fff:0:1:0".into(), space: SpaceText::Uid("01".into()), lifetime: 60, proxy: false, renew: false };
    /// if let Hold::Held(claim) = hold("/run/uiapd/control.sock".as_ref(), &request, None)? {
    ///     assert!(claim.id() > 0);
    /// }
    /// # Ok::<(), uiapd::DaemonError>(())
    /// ```
    pub fn id(&self) -> u64 {
        self.claim.id
    }

    /// The claim as it was when the watch started, updated by every event since.
    ///
    /// ```no_run
    /// # use uiapd::control::{hold, Hold, Request, SpaceText};
    /// # let request = Request::Claim { domain: "fff:0:1:0".into(), space: SpaceText::Uid("01".into()), lifetime: 60, proxy: false, renew: false };
    /// if let Hold::Held(claim) = hold("/run/uiapd/control.sock".as_ref(), &request, None)? {
    ///     assert_eq!(claim.claim().state, "held");
    /// }
    /// # Ok::<(), uiapd::DaemonError>(())
    /// ```
    pub fn claim(&self) -> &ClaimView {
        &self.claim
    }

    /// The note that came with success (a site of one), if any.
    ///
    /// ```no_run
    /// # use uiapd::control::{hold, Hold, Request, SpaceText};
    /// # let request = Request::Claim { domain: "fff:0:1:0".into(), space: SpaceText::Uid("01".into()), lifetime: 60, proxy: false, renew: false };
    /// if let Hold::Held(claim) = hold("/run/uiapd/control.sock".as_ref(), &request, None)? {
    ///     println!("{}", claim.reason().unwrap_or("claimed on the network"));
    /// }
    /// # Ok::<(), uiapd::DaemonError>(())
    /// ```
    pub fn reason(&self) -> Option<&str> {
        self.reason.as_deref()
    }

    /// Waits for the claim's next event, at most `wait` (`None`: as long as it takes);
    /// `Ok(None)` if none came in time.
    ///
    /// # Errors
    ///
    /// [`DaemonErrorKind::Protocol`] when the daemon ends the stream (it stopped, or this
    /// client fell too far behind): events may have been missed, ask `list`.
    ///
    /// ```no_run
    /// # use std::time::Duration;
    /// # use uiapd::control::{hold, Hold, Request, SpaceText};
    /// # let request = Request::Claim { domain: "fff:0:1:0".into(), space: SpaceText::Uid("01".into()), lifetime: 60, proxy: false, renew: true };
    /// if let Hold::Held(mut claim) = hold("/run/uiapd/control.sock".as_ref(), &request, None)? {
    ///     assert!(claim.next_event(Some(Duration::from_millis(1)))?.is_none());
    /// }
    /// # Ok::<(), uiapd::DaemonError>(())
    /// ```
    pub fn next_event(
        &mut self,
        wait: Option<Duration>,
    ) -> Result<Option<ClaimEvent>, DaemonError> {
        let deadline = wait.map(|w| Instant::now() + w.max(Duration::from_millis(1)));
        loop {
            let Some(r) = self.conn.read(deadline)? else {
                return Ok(None);
            };
            if let Some(event) = r.event {
                self.claim = event.claim.clone();
                return Ok(Some(event));
            }
        }
    }

    /// Releases the claim (a second connection; this one closes).
    ///
    /// # Errors
    ///
    /// As [`call`], or the daemon's refusal.
    ///
    /// ```no_run
    /// # use uiapd::control::{hold, Hold, Request, SpaceText};
    /// # let request = Request::Claim { domain: "fff:0:1:0".into(), space: SpaceText::Uid("01".into()), lifetime: 60, proxy: false, renew: false };
    /// if let Hold::Held(claim) = hold("/run/uiapd/control.sock".as_ref(), &request, None)? {
    ///     claim.release()?;
    /// }
    /// # Ok::<(), uiapd::DaemonError>(())
    /// ```
    pub fn release(self) -> Result<(), DaemonError> {
        let r = call(&self.conn.path, &Request::Release { id: self.claim.id })?;
        match r.error {
            Some(e) if !r.ok => Err(DaemonError::new(
                DaemonErrorKind::Request,
                format!("release: {}", e.message),
            )),
            _ => Ok(()),
        }
    }
}

/// A connection that receives claim events (docs/uiap-design.md D33): what `uiap watch` uses.
#[derive(Debug)]
pub struct Watch {
    conn: Conn,
    claims: Vec<ClaimView>,
}

/// Watches claim `id` (every claim with `None`) of the daemon at `path`.
///
/// # Errors
///
/// As [`call`]; [`DaemonErrorKind::Request`] for an unknown claim.
///
/// ```no_run
/// let mut w = uiapd::control::watch("/run/uiapd/control.sock".as_ref(), None)?;
/// println!("{} claims", w.claims().len());
/// while let Some(e) = w.next_event(None)? {
///     println!("claim {} {}", e.id, e.kind);
/// }
/// # Ok::<(), uiapd::DaemonError>(())
/// ```
pub fn watch(path: &Path, id: Option<u64>) -> Result<Watch, DaemonError> {
    let mut conn = Conn::open(path)?;
    let claims = conn.start_watch(id, false)?;
    Ok(Watch { conn, claims })
}

impl Watch {
    /// The watched claims as they were when the watch started.
    ///
    /// ```no_run
    /// let w = uiapd::control::watch("/run/uiapd/control.sock".as_ref(), Some(1))?;
    /// assert_eq!(w.claims()[0].id, 1);
    /// # Ok::<(), uiapd::DaemonError>(())
    /// ```
    pub fn claims(&self) -> &[ClaimView] {
        &self.claims
    }

    /// Waits for the next event, at most `wait` (`None`: as long as it takes); `Ok(None)` if
    /// none came in time.
    ///
    /// # Errors
    ///
    /// [`DaemonErrorKind::Protocol`] when the daemon ends the stream (events may be missing).
    ///
    /// ```no_run
    /// # use std::time::Duration;
    /// let mut w = uiapd::control::watch("/run/uiapd/control.sock".as_ref(), None)?;
    /// let _maybe = w.next_event(Some(Duration::from_secs(1)))?;
    /// # Ok::<(), uiapd::DaemonError>(())
    /// ```
    pub fn next_event(
        &mut self,
        wait: Option<Duration>,
    ) -> Result<Option<ClaimEvent>, DaemonError> {
        self.conn.next_event(wait)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conn(stream: UnixStream) -> Conn {
        Conn {
            path: PathBuf::from("test-socket"),
            reader: BufReader::new(stream),
            pending: Vec::new(),
        }
    }

    #[test]
    fn a_line_split_across_a_timeout_is_read_whole() {
        let (client, mut daemon) = UnixStream::pair().unwrap();
        let mut c = conn(client);
        daemon.write_all(br#"{"ok":true,"res"#).unwrap();
        let soon = Some(Instant::now() + Duration::from_millis(50));
        assert!(c.read(soon).unwrap().is_none(), "no whole line yet");
        daemon.write_all(b"ult\":\"released\",\"id\":7}\n").unwrap();
        let r = c.read(None).unwrap().expect("the whole line");
        assert_eq!(
            (r.ok, r.result.as_deref(), r.id),
            (true, Some("released"), Some(7))
        );
    }

    #[test]
    fn the_end_of_stream_inside_a_line_is_an_error() {
        let (client, mut daemon) = UnixStream::pair().unwrap();
        let mut c = conn(client);
        daemon.write_all(br#"{"ok":tr"#).unwrap();
        drop(daemon);
        let e = c.read(None).unwrap_err();
        assert!(e.to_string().contains("the rest of a response line"), "{e}");
        let e = c.read(None).unwrap_err();
        assert!(e.to_string().contains("found end of stream"), "{e}");
    }
}
