//! The blocking client: one connection per call, [`Client::watch`] for claim events, and
//! [`Client::hold`], which keeps a claim and hears at once when it ends (docs/uiap-design.md
//! D33).

mod conn;
mod hold;
mod watch;

pub use hold::{HeldClaim, Hold};
pub use watch::Watch;

use std::path::{Path, PathBuf};
use std::time::Duration;

use conn::{Conn, unexpected};

use crate::{
    ClaimAnswer, ClaimRequest, ClaimView, ControlError, DEFAULT_CONTROL, ProxyView, Request,
    Response, StatusView,
};

/// The daemon at one control path. Each call opens its own connection.
///
/// ```no_run
/// use uiap_control::Client;
///
/// let uiapd = Client::default(); // /run/uiapd/control.sock
/// for claim in uiapd.list()? {
///     println!("{} {} {}", claim.id, claim.state, claim.space);
/// }
/// Ok::<(), uiap_control::ControlError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Client {
    path: PathBuf,
}

impl Default for Client {
    fn default() -> Client {
        Client::new(DEFAULT_CONTROL)
    }
}

/// An error answer as an error; any other answer that is not the expected one as a protocol
/// error.
fn refused_or_unexpected(expected: &str, r: &Response) -> ControlError {
    match r {
        Response::Error(body) => ControlError::refused(body),
        other => unexpected(expected, Some(other)),
    }
}

impl Client {
    /// The daemon whose control socket is at `path`.
    ///
    /// ```
    /// use std::path::Path;
    ///
    /// let c = uiap_control::Client::new("/tmp/uiapd.sock");
    /// assert_eq!(c.path(), Path::new("/tmp/uiapd.sock"));
    /// ```
    pub fn new(path: impl Into<PathBuf>) -> Client {
        Client { path: path.into() }
    }

    /// The control path.
    ///
    /// ```
    /// assert_eq!(uiap_control::Client::default().path().to_str(), Some(uiap_control::DEFAULT_CONTROL));
    /// ```
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Sends one request and waits for its final answer, whatever it is (an error answer
    /// included).
    ///
    /// # Errors
    ///
    /// [`ControlErrorKind::NoDaemon`](crate::ControlErrorKind::NoDaemon) if nothing answers at
    /// the path; [`Io`](crate::ControlErrorKind::Io) if the connection fails;
    /// [`Protocol`](crate::ControlErrorKind::Protocol) if the daemon answers something that is
    /// not a response line.
    ///
    /// ```no_run
    /// use uiap_control::{Client, Request, Response};
    ///
    /// let r = Client::default().call(&Request::Status)?;
    /// assert!(matches!(r, Response::Status(_) | Response::Error(_)));
    /// Ok::<(), uiap_control::ControlError>(())
    /// ```
    pub fn call(&self, request: &Request) -> Result<Response, ControlError> {
        self.call_within(request, None, &mut |_| {})
    }

    /// [`Client::call`], giving up when no final answer has come within `limit` (`None`: wait
    /// as long as it takes), and handing every provisional answer (a rate-limited claim's
    /// [`Response::Waiting`]) to `progress` as it comes. Giving up closes the connection, which
    /// cancels a claim still in progress (docs/uiap-design.md D30).
    ///
    /// # Errors
    ///
    /// As [`Client::call`]; [`Timeout`](crate::ControlErrorKind::Timeout) ("no answer within N
    /// s") when `limit` passes.
    ///
    /// ```no_run
    /// use std::time::Duration;
    /// use uiap_control::{Client, Request};
    ///
    /// let r = Client::default().call_within(&Request::List, Some(Duration::from_secs(5)), &mut |_| {})?;
    /// assert!(r.is_final());
    /// Ok::<(), uiap_control::ControlError>(())
    /// ```
    pub fn call_within(
        &self,
        request: &Request,
        limit: Option<Duration>,
        progress: &mut dyn FnMut(&Response),
    ) -> Result<Response, ControlError> {
        let mut conn = Conn::open(&self.path)?;
        conn.send(request)?;
        conn.final_answer(limit, progress)
    }

    /// Claims a space and waits for the outcome, at most `limit`; `progress` hears a
    /// rate-limited claim's reason ("rate limited, starts in 42 s") at once.
    ///
    /// # Errors
    ///
    /// As [`Client::call_within`]; [`Refused`](crate::ControlErrorKind::Refused) if the daemon
    /// refuses the request itself (a malformed domain or space, a lifetime of 0).
    ///
    /// ```no_run
    /// use uiap_control::{ClaimAnswer, ClaimRequest, Client, SpaceText};
    ///
    /// let request = ClaimRequest::new("fff:0:1:0", SpaceText::Uid("c0a8".into()));
    /// match Client::default().claim(&request, None, &mut |why| eprintln!("{why}"))? {
    ///     ClaimAnswer::Claimed { claim, .. } => println!("claimed as {}", claim.id),
    ///     ClaimAnswer::Denied { reason, .. } | ClaimAnswer::Failed { reason, .. } => eprintln!("{reason}"),
    /// }
    /// Ok::<(), uiap_control::ControlError>(())
    /// ```
    pub fn claim(
        &self,
        request: &ClaimRequest,
        limit: Option<Duration>,
        progress: &mut dyn FnMut(&str),
    ) -> Result<ClaimAnswer, ControlError> {
        let mut tell = |r: &Response| {
            if let Response::Waiting { reason, .. } = r {
                progress(reason);
            }
        };
        match self.call_within(&Request::Claim(request.clone()), limit, &mut tell)? {
            Response::Claim(answer) => Ok(answer),
            other => Err(refused_or_unexpected("a claim's answer", &other)),
        }
    }

    /// Releases claim `id`, or forgets it if it has ended.
    ///
    /// # Errors
    ///
    /// As [`Client::call`]; [`Refused`](crate::ControlErrorKind::Refused) for an unknown claim
    /// or one of another user.
    ///
    /// ```no_run
    /// uiap_control::Client::default().release(1)?;
    /// Ok::<(), uiap_control::ControlError>(())
    /// ```
    pub fn release(&self, id: u64) -> Result<(), ControlError> {
        self.release_within(id, None)
    }

    /// [`Client::release`], giving up when no answer has come within `limit` (`None`: wait as
    /// long as it takes).
    ///
    /// # Errors
    ///
    /// As [`Client::release`]; [`Timeout`](crate::ControlErrorKind::Timeout) when `limit`
    /// passes.
    ///
    /// ```no_run
    /// use std::time::Duration;
    ///
    /// uiap_control::Client::default().release_within(1, Some(Duration::from_secs(2)))?;
    /// Ok::<(), uiap_control::ControlError>(())
    /// ```
    pub fn release_within(&self, id: u64, limit: Option<Duration>) -> Result<(), ControlError> {
        match self.call_within(&Request::Release { id }, limit, &mut |_| {})? {
            Response::Released { .. } => Ok(()),
            other => Err(refused_or_unexpected("a `released` answer", &other)),
        }
    }

    /// The claims held, in progress, or ended and not yet released.
    ///
    /// # Errors
    ///
    /// As [`Client::call`].
    ///
    /// ```no_run
    /// let claims = uiap_control::Client::default().list()?;
    /// println!("{} claims", claims.len());
    /// Ok::<(), uiap_control::ControlError>(())
    /// ```
    pub fn list(&self) -> Result<Vec<ClaimView>, ControlError> {
        match self.call(&Request::List)? {
            Response::Claims(claims) => Ok(claims),
            other => Err(refused_or_unexpected("a claim list", &other)),
        }
    }

    /// The daemon's status: device ID, interfaces, counters, drops, proxied claims.
    ///
    /// # Errors
    ///
    /// As [`Client::call`].
    ///
    /// ```no_run
    /// println!("{}", uiap_control::Client::default().status()?.device_id);
    /// Ok::<(), uiap_control::ControlError>(())
    /// ```
    pub fn status(&self) -> Result<StatusView, ControlError> {
        match self.call(&Request::Status)? {
            Response::Status(status) => Ok(*status),
            other => Err(refused_or_unexpected("a status", &other)),
        }
    }

    /// The claims of other devices the daemon defends by proxy; with `flush` (root only) it
    /// then forgets them, and the count forgotten comes along.
    ///
    /// # Errors
    ///
    /// As [`Client::call`]; [`Refused`](crate::ControlErrorKind::Refused) for a flush by
    /// another user than root.
    ///
    /// ```no_run
    /// let (proxies, flushed) = uiap_control::Client::default().proxies(false)?;
    /// assert!(flushed.is_none());
    /// # let _ = proxies;
    /// Ok::<(), uiap_control::ControlError>(())
    /// ```
    pub fn proxies(&self, flush: bool) -> Result<(Vec<ProxyView>, Option<usize>), ControlError> {
        match self.call(&Request::Proxies { flush })? {
            Response::Proxies { proxies, flushed } => Ok((proxies, flushed)),
            other => Err(refused_or_unexpected("a proxy list", &other)),
        }
    }
}
