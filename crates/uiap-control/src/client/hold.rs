//! [`Client::hold`]: a claim, and its events on the same connection.

use std::time::Duration;

use super::conn::{Conn, deadline_after};
use super::{Client, refused_or_unexpected};
use crate::{
    AuthFailures, ClaimAnswer, ClaimEvent, ClaimRequest, ClaimView, ClockAhead, ControlError,
    ControlErrorKind, Request, Response,
};

/// The outcome of [`Client::hold`].
// `Held` is the outcome a caller hopes for and keeps for the claim's life,
// made once per claim: boxing it would add an allocation and an indirection
// to save stack space in the rarer outcomes.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum Hold {
    /// The claim succeeded and is watched.
    Held(HeldClaim),
    /// The claim was denied; another space may do better.
    Denied {
        /// The claim as it was asked for.
        claim: ClaimView,
        /// Who refused it, as a sentence.
        reason: String,
    },
    /// The claim could not be carried out (every interface left, the daemon is shutting down).
    Failed {
        /// Why.
        reason: String,
    },
}

/// A claim that succeeded, with the connection its events arrive on (docs/uiap-design.md D33).
/// Dropping it closes the connection; the claim stays with the daemon until its lifetime ends
/// or it is released, unless it was held with [`Client::hold_while_connected`].
#[derive(Debug)]
pub struct HeldClaim {
    conn: Conn,
    claim: ClaimView,
    note: Option<String>,
    auth_failures: Option<AuthFailures>,
    clock: Option<ClockAhead>,
}

impl Client {
    /// Claims a space and, once it is claimed, watches it on the same connection: every later
    /// event of the claim (renewed, conflict, lost, expired, released, isolated) is returned by
    /// [`HeldClaim::next_event`] as soon as the daemon knows it. Set the request's `renew` to
    /// keep the claim beyond one lifetime. `limit` bounds the wait for the claim's answer, as in
    /// [`Client::call_within`].
    ///
    /// # Errors
    ///
    /// As [`Client::claim`]; [`Protocol`](ControlErrorKind::Protocol) if the daemon does not
    /// confirm the watch.
    ///
    /// ```no_run
    /// use uiap_control::{ClaimRequest, Client, Hold, SpaceText};
    ///
    /// let request = ClaimRequest { lifetime: 60, renew: true, ..ClaimRequest::new("fff:0:1:0", SpaceText::Uid("c0a8".into())) };
    /// let Hold::Held(mut claim) = Client::default().hold(&request, None)? else {
    ///     return Ok(());
    /// };
    /// while let Some(event) = claim.next_event(None)? {
    ///     if event.kind.ends_claim() {
    ///         eprintln!("claim {} ended: {}", event.id, event.kind);
    ///         break;
    ///     }
    /// }
    /// Ok::<(), uiap_control::ControlError>(())
    /// ```
    pub fn hold(
        &self,
        request: &ClaimRequest,
        limit: Option<Duration>,
    ) -> Result<Hold, ControlError> {
        self.hold_with(request, limit, false, &mut |_| {})
    }

    /// [`Client::hold`], and the daemon releases the claim when this connection closes — when
    /// the [`HeldClaim`] is dropped, or the process ends in any way, even killed
    /// (docs/uiap-design.md D54). For a claim that must not outlive its user, such as a site
    /// node lease.
    ///
    /// # Errors
    ///
    /// As [`Client::hold`].
    ///
    /// ```no_run
    /// use uiap_control::{ClaimRequest, ClaimState, Client, Hold, SpaceText};
    ///
    /// let request = ClaimRequest { lifetime: 60, renew: true, ..ClaimRequest::new("fff:0:1:0", SpaceText::Uid("c0a8".into())) };
    /// if let Hold::Held(claim) = Client::default().hold_while_connected(&request, None)? {
    ///     assert_eq!(claim.claim().state, ClaimState::Held);
    /// } // dropped: the daemon releases the claim
    /// Ok::<(), uiap_control::ControlError>(())
    /// ```
    pub fn hold_while_connected(
        &self,
        request: &ClaimRequest,
        limit: Option<Duration>,
    ) -> Result<Hold, ControlError> {
        self.hold_with(request, limit, true, &mut |_| {})
    }

    /// [`Client::hold_while_connected`], and `progress` is told what the daemon says while the
    /// claim waits to start ("rate limited, starts in 42 s": docs/uiap-design.md D34). `limit`
    /// bounds the whole wait, the watch's confirmation included.
    ///
    /// # Errors
    ///
    /// As [`Client::hold`]; [`Timeout`](ControlErrorKind::Timeout) when `limit` passes first.
    ///
    /// ```no_run
    /// use std::time::Duration;
    /// use uiap_control::{ClaimRequest, Client, Hold, SpaceText};
    ///
    /// let request = ClaimRequest::new("fff:0:1:0", SpaceText::Uid("c0a8".into()));
    /// let mut said = Vec::new();
    /// let held = Client::default().hold_while_connected_reporting(
    ///     &request,
    ///     Some(Duration::from_secs(30)),
    ///     &mut |why| said.push(why.to_string()),
    /// )?;
    /// if let Hold::Held(claim) = held {
    ///     assert_eq!(claim.claim().id, claim.id());
    /// }
    /// Ok::<(), uiap_control::ControlError>(())
    /// ```
    pub fn hold_while_connected_reporting(
        &self,
        request: &ClaimRequest,
        limit: Option<Duration>,
        progress: &mut dyn FnMut(&str),
    ) -> Result<Hold, ControlError> {
        self.hold_with(request, limit, true, progress)
    }

    fn hold_with(
        &self,
        request: &ClaimRequest,
        limit: Option<Duration>,
        release_on_close: bool,
        progress: &mut dyn FnMut(&str),
    ) -> Result<Hold, ControlError> {
        let deadline = deadline_after(limit.filter(|l| !l.is_zero()));
        let mut conn = Conn::open(self.path())?;
        conn.send(&Request::Claim(request.clone()))?;
        let mut tell = |r: &Response| {
            if let Response::Waiting { reason, .. } = r {
                progress(reason);
            }
        };
        let (claim, note, auth_failures, clock) = match conn.final_answer(limit, &mut tell)? {
            Response::Claim(ClaimAnswer::Claimed {
                claim,
                note,
                auth_failures,
                clock,
            }) => (claim, note, auth_failures, clock),
            Response::Claim(ClaimAnswer::Denied { claim, reason }) => {
                return Ok(Hold::Denied { claim, reason });
            }
            Response::Claim(ClaimAnswer::Failed { reason, .. }) => {
                return Ok(Hold::Failed { reason });
            }
            other => return Err(refused_or_unexpected("a claim's answer", &other)),
        };
        // The watch starts after the answer: the claim as it is now covers anything in between.
        let mut now = conn.start_watch(Some(claim.id), release_on_close, deadline)?;
        let Some(now) = now.pop().filter(|c| c.id == claim.id) else {
            return Err(ControlError::new(
                ControlErrorKind::Protocol,
                format!(
                    "watch: expected claim {} in the answer, found another",
                    claim.id
                ),
            ));
        };
        Ok(Hold::Held(HeldClaim {
            conn,
            claim: now,
            note,
            auth_failures,
            clock,
        }))
    }
}

impl HeldClaim {
    /// The claim's `id`.
    ///
    /// ```no_run
    /// # use uiap_control::{ClaimRequest, Client, Hold, SpaceText};
    /// # let request = ClaimRequest::new("fff:0:1:0", SpaceText::Uid("01".into()));
    /// if let Hold::Held(claim) = Client::default().hold(&request, None)? {
    ///     assert!(claim.id() > 0);
    /// }
    /// # Ok::<(), uiap_control::ControlError>(())
    /// ```
    pub fn id(&self) -> u64 {
        self.claim.id
    }

    /// The claim as it was when the watch started, updated by every event since.
    ///
    /// ```no_run
    /// # use uiap_control::{ClaimRequest, ClaimState, Client, Hold, SpaceText};
    /// # let request = ClaimRequest::new("fff:0:1:0", SpaceText::Uid("01".into()));
    /// if let Hold::Held(claim) = Client::default().hold(&request, None)? {
    ///     assert_eq!(claim.claim().state, ClaimState::Held);
    /// }
    /// # Ok::<(), uiap_control::ControlError>(())
    /// ```
    pub fn claim(&self) -> &ClaimView {
        &self.claim
    }

    /// The note that came with success (a site of one), if any.
    ///
    /// ```no_run
    /// # use uiap_control::{ClaimRequest, Client, Hold, SpaceText};
    /// # let request = ClaimRequest::new("fff:0:1:0", SpaceText::Uid("01".into()));
    /// if let Hold::Held(claim) = Client::default().hold(&request, None)? {
    ///     println!("{}", claim.note().unwrap_or("claimed on the network"));
    /// }
    /// # Ok::<(), uiap_control::ControlError>(())
    /// ```
    pub fn note(&self) -> Option<&str> {
        self.note.as_deref()
    }

    /// With a key: the datagrams that failed authentication while the claim was made
    /// (docs/uiap-design.md D62), if any.
    ///
    /// ```no_run
    /// # use uiap_control::{ClaimRequest, Client, Hold, SpaceText};
    /// # let request = ClaimRequest::new("fff:0:1:0", SpaceText::Uid("01".into()));
    /// if let Hold::Held(claim) = Client::default().hold(&request, None)? {
    ///     if let Some(failed) = claim.auth_failures() { eprintln!("warning: {failed}"); }
    /// }
    /// # Ok::<(), uiap_control::ControlError>(())
    /// ```
    pub fn auth_failures(&self) -> Option<AuthFailures> {
        self.auth_failures
    }

    /// With a key: how far ahead of this host's the clocks of the neighbours the daemon heard
    /// were when the claim succeeded (docs/uiap-design.md D72); `None` without a key.
    ///
    /// ```no_run
    /// # use uiap_control::{ClaimRequest, Client, Hold, SpaceText};
    /// # let request = ClaimRequest::new("fff:0:1:0", SpaceText::Uid("01".into()));
    /// if let Hold::Held(claim) = Client::default().hold(&request, None)? {
    ///     if let Some(clock) = claim.clock() { println!("{clock}"); }
    /// }
    /// # Ok::<(), uiap_control::ControlError>(())
    /// ```
    pub fn clock(&self) -> Option<&ClockAhead> {
        self.clock.as_ref()
    }

    /// Waits for the claim's next event, at most `wait` (`None`: as long as it takes);
    /// `Ok(None)` if none came in time.
    ///
    /// # Errors
    ///
    /// [`Protocol`](ControlErrorKind::Protocol) when the daemon ends the stream (it stopped,
    /// or this client fell too far behind): events may have been missed, ask `list`.
    ///
    /// ```no_run
    /// # use std::time::Duration;
    /// # use uiap_control::{ClaimRequest, Client, Hold, SpaceText};
    /// # let request = ClaimRequest::new("fff:0:1:0", SpaceText::Uid("01".into()));
    /// if let Hold::Held(mut claim) = Client::default().hold(&request, None)? {
    ///     assert!(claim.next_event(Some(Duration::from_millis(1)))?.is_none());
    /// }
    /// # Ok::<(), uiap_control::ControlError>(())
    /// ```
    pub fn next_event(
        &mut self,
        wait: Option<Duration>,
    ) -> Result<Option<ClaimEvent>, ControlError> {
        let event = self.conn.next_event(deadline_after(wait))?;
        if let Some(e) = &event {
            self.claim = e.claim.clone();
        }
        Ok(event)
    }

    /// Releases the claim (a second connection; this one closes).
    ///
    /// # Errors
    ///
    /// As [`Client::release`].
    ///
    /// ```no_run
    /// # use uiap_control::{ClaimRequest, Client, Hold, SpaceText};
    /// # let request = ClaimRequest::new("fff:0:1:0", SpaceText::Uid("01".into()));
    /// if let Hold::Held(claim) = Client::default().hold(&request, None)? {
    ///     claim.release()?;
    /// }
    /// # Ok::<(), uiap_control::ControlError>(())
    /// ```
    pub fn release(self) -> Result<(), ControlError> {
        Client::new(self.conn.path()).release(self.claim.id)
    }
}

#[cfg(test)]
mod tests {
    use super::super::conn::unexpected;
    use super::*;

    #[test]
    fn an_unexpected_answer_names_what_was_expected() {
        let e = unexpected("a claim's answer", Some(&Response::Claims(vec![])));
        assert_eq!(e.kind(), ControlErrorKind::Protocol);
        assert_eq!(e.message(), "expected a claim's answer, found a claim list");
        let e = refused_or_unexpected(
            "a claim's answer",
            &Response::error(
                crate::ErrorKind::Request,
                "lifetime: expected at least 1 second, found 0",
            ),
        );
        assert_eq!(e.kind(), ControlErrorKind::Refused);
        assert_eq!(
            e.to_string(),
            "request: lifetime: expected at least 1 second, found 0"
        );
    }
}
