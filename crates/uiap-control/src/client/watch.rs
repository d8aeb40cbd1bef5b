//! [`Client::watch`]: a connection that receives claim events (what `uiap watch` uses).

use std::time::Duration;

use super::Client;
use super::conn::{Conn, deadline_after};
use crate::{ClaimEvent, ClaimView, ControlError};

/// A connection that receives claim events (docs/uiap-design.md D33).
#[derive(Debug)]
pub struct Watch {
    conn: Conn,
    claims: Vec<ClaimView>,
}

impl Client {
    /// Watches claim `id` (every claim with `None`).
    ///
    /// # Errors
    ///
    /// As [`Client::call`]; [`Refused`](crate::ControlErrorKind::Refused) for an unknown claim.
    ///
    /// ```no_run
    /// let mut w = uiap_control::Client::default().watch(None)?;
    /// println!("{} claims", w.claims().len());
    /// while let Some(e) = w.next_event(None)? {
    ///     println!("claim {} {}", e.id, e.kind);
    /// }
    /// # Ok::<(), uiap_control::ControlError>(())
    /// ```
    pub fn watch(&self, id: Option<u64>) -> Result<Watch, ControlError> {
        let mut conn = Conn::open(self.path())?;
        let claims = conn.start_watch(id, false, None)?;
        Ok(Watch { conn, claims })
    }
}

impl Watch {
    /// The watched claims as they were when the watch started.
    ///
    /// ```no_run
    /// let w = uiap_control::Client::default().watch(Some(1))?;
    /// assert_eq!(w.claims()[0].id, 1);
    /// # Ok::<(), uiap_control::ControlError>(())
    /// ```
    pub fn claims(&self) -> &[ClaimView] {
        &self.claims
    }

    /// Waits for the next event, at most `wait` (`None`: as long as it takes); `Ok(None)` if
    /// none came in time.
    ///
    /// # Errors
    ///
    /// [`Protocol`](crate::ControlErrorKind::Protocol) when the daemon ends the stream (events
    /// may be missing).
    ///
    /// ```no_run
    /// # use std::time::Duration;
    /// let mut w = uiap_control::Client::default().watch(None)?;
    /// let _maybe = w.next_event(Some(Duration::from_secs(1)))?;
    /// # Ok::<(), uiap_control::ControlError>(())
    /// ```
    pub fn next_event(
        &mut self,
        wait: Option<Duration>,
    ) -> Result<Option<ClaimEvent>, ControlError> {
        self.conn.next_event(deadline_after(wait))
    }
}
