//! [`SiteLease`]: claim, keep, watch and release a node ID (docs/uiap-design.md D51, D52).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

use rand_core::Rng;
use uuidkit::node::{NodeId, NodeLost, NodeLostKind, NodeSource};

use uiap_control::{
    AuthFailures, ClaimEvent, ClaimRequest, ClaimState, ClaimView, Client, ControlError,
    ControlErrorKind, EventKind, HeldClaim, Hold, Request, Response, SpaceText,
};

use super::config::LeaseConfig;
use super::domain::{check_domain, node_space};
use crate::node::{backoff, draw};
use crate::{BootTime, LeaseError, LeaseErrorKind, LeaseSlot, check_bits};

/// A node ID held through the local `uiapd`, and the slot generators read it from
/// (the [module docs](super)).
///
/// ```no_run
/// use uuidkit_lease::site::{LeaseConfig, SiteLease};
/// use uuidkit::{clock::SystemClock, rng::ThreadRng, Generator, V8Distributed};
///
/// let lease = SiteLease::acquire(&LeaseConfig::new("/run/uiapd/control.sock".into(), 16), &mut ThreadRng)?;
/// let mut g = V8Distributed::builder().node_source(lease.slot().clone()).build(SystemClock, ThreadRng)?;
/// let u = g.generate()?;
/// assert_eq!(u.custom_b().map(u64::from), Some(lease.node().value() >> 4)); // the first 12 of 16 node bits
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct SiteLease {
    slot: Arc<LeaseSlot>,
    node: NodeId,
    claim: u64,
    uiapd: Client,
    /// How long a release waits for the daemon's answer: the liveness window.
    release_limit: Duration,
    note: Option<String>,
    auth_failures: Option<AuthFailures>,
    stop: Arc<AtomicBool>,
    watcher: Option<JoinHandle<()>>,
    reason: Arc<Reason>,
}

/// The full text of the node's last loss. A [`NodeLost`] carries at most
/// [`NodeLost::DETAIL_CAPACITY`] bytes of detail (it is copied into the slot's atomic words),
/// and a daemon's reason, with addresses and device IDs, can be longer.
#[derive(Debug, Default)]
struct Reason(Mutex<Option<(NodeLostKind, String)>>);

impl Reason {
    /// Keeps `detail` whole, then signals the loss on `slot` (whose copy may be cut). The first
    /// loss is the one reported: a lease ends once, and the watcher's question in flight when the
    /// lease is released would otherwise come back to a node already given up and overwrite
    /// "released" with a missed deadline.
    fn lose(&self, slot: &LeaseSlot, kind: NodeLostKind, detail: String) {
        let mut reason = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if reason.is_some() {
            return;
        }
        let lost = NodeLost::new(kind).with_detail(&detail);
        *reason = Some((kind, detail));
        slot.lose(lost);
    }

    /// The last loss, its detail whole.
    fn get(&self) -> Option<(NodeLostKind, String)> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

/// How often the watcher looks at its stop flag between events. Events and the end of the
/// daemon's stream are seen as they come; only a drop waits for this.
const WATCH_TICK: Duration = Duration::from_millis(50);

impl SiteLease {
    /// Claims a random node ID (with `rng`) through the daemon at `config.control`, renewed by
    /// the daemon for as long as the lease lives. A denied claim is retried with a fresh random
    /// value after a back-off, at most `config.attempts` times.
    ///
    /// # Errors
    ///
    /// * [`LeaseErrorKind::Config`]: an invalid domain, width or lifetime; a daemon without a
    ///   key, and no [`LeaseConfig::max_clock_offset`] (nothing bounds other devices' clocks,
    ///   docs/uiap-design.md D72);
    /// * [`LeaseErrorKind::Unreachable`]: nothing answers at the control path ("is uiapd running?
    ///   tried PATH");
    /// * [`LeaseErrorKind::Denied`]: every attempt was denied ("denied N times"), or the node's
    ///   first UUID would have to wait longer than [`LeaseConfig::clock_wait`] for this host's
    ///   clock to pass a neighbour's;
    /// * [`LeaseErrorKind::Refused`]: the daemon refused the request (its message);
    /// * [`LeaseErrorKind::Registry`]: the connection failed or the answer made no sense.
    ///
    /// ```no_run
    /// use uuidkit_lease::LeaseErrorKind;
    /// use uuidkit_lease::site::{LeaseConfig, SiteLease};
    /// # use rand_core::SeedableRng;
    ///
    /// let config = LeaseConfig::new("/nonexistent/control.sock".into(), 48);
    /// let err = SiteLease::acquire(&config, &mut rand_chacha::ChaCha20Rng::from_seed([1; 32])).unwrap_err();
    /// assert_eq!(err.kind(), LeaseErrorKind::Unreachable);
    /// ```
    pub fn acquire(config: &LeaseConfig, rng: &mut impl Rng) -> Result<SiteLease, LeaseError> {
        SiteLease::acquire_reporting(config, rng, &mut |_| {})
    }

    /// [`SiteLease::acquire`], telling `report` what it waits for while it waits: what the
    /// daemon says when a claim cannot start at once ("uiapd: rate limited, starts in 42 s").
    ///
    /// # Errors
    ///
    /// As [`SiteLease::acquire`].
    ///
    /// ```no_run
    /// use uuidkit_lease::site::{LeaseConfig, SiteLease};
    /// # use rand_core::SeedableRng;
    ///
    /// let config = LeaseConfig::new("/run/uiapd/control.sock".into(), 16);
    /// let mut rng = rand_chacha::ChaCha20Rng::from_seed([1; 32]);
    /// let lease = SiteLease::acquire_reporting(&config, &mut rng, &mut |what| eprintln!("waiting: {what}"))?;
    /// assert_eq!(lease.node().bits(), 16);
    /// # Ok::<(), uuidkit_lease::LeaseError>(())
    /// ```
    pub fn acquire_reporting(
        config: &LeaseConfig,
        rng: &mut impl Rng,
        report: &mut dyn FnMut(&str),
    ) -> Result<SiteLease, LeaseError> {
        check_domain(&config.domain)?;
        check_bits(config.bits)?;
        if config.lifetime == 0 || config.lifetime == u32::MAX {
            return Err(LeaseError::new(
                LeaseErrorKind::Config,
                format!(
                    "lease lifetime: expected 1 to {} s, found {}",
                    u32::MAX - 1,
                    config.lifetime
                ),
            ));
        }
        // The liveness window its daemon allows: the rule between the two windows
        // (docs/uiap-design.md D73).
        let config = &super::window::site_window(config)?;
        if config.liveness <= config.margin {
            return Err(LeaseError::new(
                LeaseErrorKind::Config,
                format!(
                    "lease liveness: expected more than the margin ({:?}), found {:?}",
                    config.margin, config.liveness
                ),
            ));
        }
        let slot = Arc::new(LeaseSlot::new(config.bits, BootTime, config.margin)?);
        slot.offset_wall(config.testing.wall_offset_ms);
        let attempts = config.attempts.max(1);
        let mut last = String::new();
        for n in 0..attempts {
            if n > 0 {
                std::thread::sleep(backoff(config.backoff, config.max_backoff, n, rng));
            }
            let value = draw(config.bits, rng)?;
            match try_claim(config, value, report)? {
                Ok(held) => return SiteLease::start(config, slot, value, held, report),
                Err(reason) => last = reason,
            }
        }
        Err(LeaseError::new(
            LeaseErrorKind::Denied,
            format!(
                "no node ID of {} bits in domain {}: denied {attempts} times, last: {last}",
                config.bits, config.domain
            ),
        ))
    }

    fn start(
        config: &LeaseConfig,
        slot: Arc<LeaseSlot>,
        value: u64,
        held: HeldClaim,
        report: &mut dyn FnMut(&str),
    ) -> Result<SiteLease, LeaseError> {
        // The tenure starts above every millisecond a previous holder used: this host's clock
        // must first pass the answer by how far the neighbours' clocks are ahead
        // (docs/uiap-design.md D72). The claim is held, and renewed, meanwhile.
        let answered = slot.wall_ms();
        if let Some((lead, why)) = super::clocks::lead(config, held.clock(), held.note().is_some())?
        {
            let wait = crate::high_water::wait_for(answered.saturating_add(lead), slot.wall_ms());
            if wait > config.clock_wait {
                // Dropping the claim closes its connection: the daemon releases it.
                drop(held);
                return Err(super::clocks::too_far(value, wait, config.clock_wait, &why));
            }
            report(&format!(
                "waiting {} ms before the first UUID: {why}",
                wait.as_millis()
            ));
            std::thread::sleep(wait);
        }
        // The claim round may take longer than the liveness window: the first deadline counts
        // from a question asked once the claim is held.
        let sent = slot.now();
        let node = match ask(&Client::new(&config.control), held.id(), config.liveness) {
            Said::Held(ttl) => slot.grant(value, sent, ttl)?,
            Said::Lost(lost) => {
                return Err(LeaseError::new(
                    LeaseErrorKind::Registry,
                    format!("uiapd granted node {value:#x}, then: {lost}"),
                ));
            }
            Said::Refused(why) => {
                return Err(LeaseError::new(
                    LeaseErrorKind::Registry,
                    format!(
                        "uiapd granted node {value:#x}, then refused the question that proves \
                         the lease alive: {why}"
                    ),
                ));
            }
            Said::Silent => {
                return Err(LeaseError::new(
                    LeaseErrorKind::Timeout,
                    format!(
                        "uiapd granted node {value:#x}, then did not answer within {:?}",
                        config.liveness / 4
                    ),
                ));
            }
        };
        let stop = Arc::new(AtomicBool::new(false));
        let (claim, note) = (held.id(), held.note().map(str::to_string));
        let auth_failures = held.auth_failures();
        let held_state = held.claim().state;
        let uiapd = Client::new(&config.control);
        let reason = Arc::new(Reason::default());
        let watcher = {
            let watcher = Watcher {
                held,
                slot: slot.clone(),
                stop: stop.clone(),
                uiapd: uiapd.clone(),
                liveness: config.liveness,
                reason: reason.clone(),
            };
            std::thread::Builder::new()
                .name(format!("site-lease-{claim}"))
                .spawn(move || watcher.run())
                .ok()
        };
        // The watch answered with the claim as it was then: anything that happened since the
        // claim's answer is in its state.
        let state = held_state;
        if state != ClaimState::Held {
            let kind = if state == ClaimState::Expired {
                NodeLostKind::RenewalFailed
            } else {
                NodeLostKind::Conflict
            };
            reason.lose(
                &slot,
                kind,
                format!("the claim was {state} by the time it was watched"),
            );
            // As after a late conflict: the device that keeps the node is not denied at its
            // next renewal (docs/uiap-design.md D52).
            if state == ClaimState::Conflicted {
                let _ = release(&uiapd, claim, config.liveness);
            }
        }
        if watcher.is_none() {
            // Without a watcher nobody would hear a loss: never hand the node out.
            reason.lose(
                &slot,
                NodeLostKind::SourceGone,
                "cannot start the lease watcher thread".into(),
            );
        }
        Ok(SiteLease {
            slot,
            node,
            claim,
            uiapd,
            release_limit: config.liveness,
            note,
            auth_failures,
            stop,
            watcher,
            reason,
        })
    }

    /// The node ID held (as the slot first gave it out).
    ///
    /// ```no_run
    /// # use uuidkit_lease::site::{LeaseConfig, SiteLease};
    /// # use rand_core::SeedableRng;
    /// # let config = LeaseConfig::new("/run/uiapd/control.sock".into(), 48);
    /// let lease = SiteLease::acquire(&config, &mut rand_chacha::ChaCha20Rng::from_seed([1; 32]))?;
    /// assert_eq!(lease.node().as_bytes6().unwrap()[0] & 1, 1); // the multicast bit
    /// # Ok::<(), uuidkit_lease::LeaseError>(())
    /// ```
    pub fn node(&self) -> NodeId {
        self.node
    }

    /// The daemon's ID of the claim.
    ///
    /// ```no_run
    /// # use uuidkit_lease::site::{LeaseConfig, SiteLease};
    /// # use rand_core::SeedableRng;
    /// # let config = LeaseConfig::new("/run/uiapd/control.sock".into(), 48);
    /// let lease = SiteLease::acquire(&config, &mut rand_chacha::ChaCha20Rng::from_seed([1; 32]))?;
    /// assert!(lease.claim_id() > 0);
    /// # Ok::<(), uuidkit_lease::LeaseError>(())
    /// ```
    pub fn claim_id(&self) -> u64 {
        self.claim
    }

    /// The daemon's note on success ("a site of one: no participating interface"), if any.
    ///
    /// ```no_run
    /// # use uuidkit_lease::site::{LeaseConfig, SiteLease};
    /// # use rand_core::SeedableRng;
    /// # let config = LeaseConfig::new("/run/uiapd/control.sock".into(), 48);
    /// let lease = SiteLease::acquire(&config, &mut rand_chacha::ChaCha20Rng::from_seed([1; 32]))?;
    /// if let Some(note) = lease.note() { eprintln!("note: {note}"); }
    /// # Ok::<(), uuidkit_lease::LeaseError>(())
    /// ```
    pub fn note(&self) -> Option<&str> {
        self.note.as_deref()
    }

    /// The node's last loss as [`NodeLost`]'s text says it, but with the detail whole: the
    /// slot's [`NodeLost`] keeps at most [`NodeLost::DETAIL_CAPACITY`] bytes of it, and a
    /// daemon's reason (addresses, device IDs, the space) can be longer. `None` while the node
    /// is held.
    ///
    /// ```no_run
    /// # use uuidkit_lease::site::{LeaseConfig, SiteLease};
    /// # use rand_core::SeedableRng;
    /// # let config = LeaseConfig::new("/run/uiapd/control.sock".into(), 48);
    /// let lease = SiteLease::acquire(&config, &mut rand_chacha::ChaCha20Rng::from_seed([1; 32]))?;
    /// assert_eq!(lease.loss(), None); // just acquired
    /// # Ok::<(), uuidkit_lease::LeaseError>(())
    /// ```
    pub fn loss(&self) -> Option<String> {
        self.reason
            .get()
            .map(|(kind, detail)| format!("{kind}: {detail}"))
    }

    /// With a key: the datagrams that failed authentication while the node was claimed, if
    /// any (docs/uiap-design.md D62, D74). If a device without the key or with another key sent
    /// them, it could not deny the claim and may hold the same node. A warning, not a loss: any
    /// host on the link can send datagrams that fail, under any address.
    ///
    /// ```no_run
    /// # use uuidkit_lease::site::{LeaseConfig, SiteLease};
    /// # use rand_core::SeedableRng;
    /// # let config = LeaseConfig::new("/run/uiapd/control.sock".into(), 48);
    /// let lease = SiteLease::acquire(&config, &mut rand_chacha::ChaCha20Rng::from_seed([1; 32]))?;
    /// if let Some(failed) = lease.auth_failures() { eprintln!("warning: {failed}"); }
    /// # Ok::<(), uuidkit_lease::LeaseError>(())
    /// ```
    pub fn auth_failures(&self) -> Option<AuthFailures> {
        self.auth_failures
    }

    /// The slot generators read the node from.
    ///
    /// ```no_run
    /// # use uuidkit_lease::site::{LeaseConfig, SiteLease};
    /// # use rand_core::SeedableRng;
    /// # use uuidkit::node::NodeSource;
    /// # let config = LeaseConfig::new("/run/uiapd/control.sock".into(), 48);
    /// let lease = SiteLease::acquire(&config, &mut rand_chacha::ChaCha20Rng::from_seed([1; 32]))?;
    /// assert_eq!(lease.slot().current().unwrap(), lease.node());
    /// # Ok::<(), uuidkit_lease::LeaseError>(())
    /// ```
    pub fn slot(&self) -> &Arc<LeaseSlot> {
        &self.slot
    }

    /// The slot as a [`NodeSource`] for a generator.
    ///
    /// ```no_run
    /// # use uuidkit_lease::site::{LeaseConfig, SiteLease};
    /// # use rand_core::SeedableRng;
    /// # let config = LeaseConfig::new("/run/uiapd/control.sock".into(), 48);
    /// let lease = SiteLease::acquire(&config, &mut rand_chacha::ChaCha20Rng::from_seed([1; 32]))?;
    /// assert_eq!(lease.source().bits(), 48);
    /// # Ok::<(), uuidkit_lease::LeaseError>(())
    /// ```
    pub fn source(&self) -> Arc<dyn NodeSource> {
        self.slot.clone()
    }

    /// Marks the node lost (generators stop), stops the watcher and releases the claim.
    ///
    /// # Errors
    ///
    /// [`LeaseErrorKind::Unreachable`] or [`LeaseErrorKind::Registry`] if the release could not be
    /// sent; the node is marked lost either way.
    ///
    /// ```no_run
    /// # use uuidkit_lease::site::{LeaseConfig, SiteLease};
    /// # use rand_core::SeedableRng;
    /// # use uuidkit::node::NodeSource;
    /// # let config = LeaseConfig::new("/run/uiapd/control.sock".into(), 48);
    /// let lease = SiteLease::acquire(&config, &mut rand_chacha::ChaCha20Rng::from_seed([1; 32]))?;
    /// let slot = lease.slot().clone();
    /// lease.release()?;
    /// assert!(slot.current().is_err());
    /// # Ok::<(), uuidkit_lease::LeaseError>(())
    /// ```
    pub fn release(mut self) -> Result<(), LeaseError> {
        self.finish()
    }

    fn finish(&mut self) -> Result<(), LeaseError> {
        let Some(watcher) = self.watcher.take() else {
            return Ok(());
        };
        self.reason.lose(
            &self.slot,
            NodeLostKind::Released,
            "the site lease was released".into(),
        );
        // The node goes back to the site only a millisecond after the last UUID made here
        // (see `LeaseSlot::retire`). The watch connection stays open until the daemon has
        // answered the release: it releases the claim when it closes, and closed first it
        // would hand the node back before that millisecond and leave the release nothing to
        // release. Should the release go unanswered, closing it releases the claim anyway.
        std::thread::sleep(crate::RELEASE_GAP);
        let released = release(&self.uiapd, self.claim, self.release_limit);
        self.stop.store(true, Ordering::Release);
        let _ = watcher.join();
        released
    }
}

impl crate::Registry for LeaseConfig {
    fn acquire(
        &self,
        mut rng: &mut dyn Rng,
        waiting: &mut dyn FnMut(&str),
    ) -> Result<Box<dyn crate::Lease>, LeaseError> {
        Ok(Box::new(SiteLease::acquire_reporting(
            self, &mut rng, waiting,
        )?))
    }
}

impl crate::Lease for SiteLease {
    fn slot(&self) -> &Arc<LeaseSlot> {
        &self.slot
    }

    fn node(&self) -> NodeId {
        self.node
    }

    fn name(&self) -> &'static str {
        "site node"
    }

    /// A site of one (unique on this device only), and datagrams that failed authentication
    /// (a neighbour that may hold the same node, docs/uiap-design.md D62).
    fn warnings(&self) -> Vec<String> {
        let mut said = Vec::new();
        if let Some(note) = self.note() {
            said.push(format!(
                "uiapd says {note}; the node is unique on this device only"
            ));
        }
        if let Some(failed) = self.auth_failures() {
            said.push(format!(
                "claimed, but {failed}; if a device without the key or with another key sent \
                 them, it may use the same node (uiap status lists the addresses)"
            ));
        }
        said
    }

    fn loss(&self) -> Option<String> {
        SiteLease::loss(self)
    }

    fn release(self: Box<Self>) -> Result<(), LeaseError> {
        SiteLease::release(*self)
    }
}

impl Drop for SiteLease {
    fn drop(&mut self) {
        let _ = self.finish();
    }
}

/// One claim of `value`: the held claim, or the reason it was denied (a retry may do better),
/// or an error no retry can fix.
fn try_claim(
    config: &LeaseConfig,
    value: u64,
    report: &mut dyn FnMut(&str),
) -> Result<Result<HeldClaim, String>, LeaseError> {
    let space = node_space(value, config.bits)?;
    let request = ClaimRequest {
        lifetime: config.lifetime,
        renew: true,
        ..ClaimRequest::new(config.domain.to_string(), SpaceText::from_space(&space))
    };
    let uiapd = Client::new(&config.control);
    let mut said = None;
    let mut tell = |why: &str| {
        report(&format!("uiapd: {why}"));
        said = Some(why.to_string());
    };
    let answer = uiapd
        .hold_while_connected_reporting(&request, config.answer_limit, &mut tell)
        .map_err(|e| match e.kind() {
            ControlErrorKind::Timeout => LeaseError::new(
                LeaseErrorKind::Timeout,
                format!(
                    "uiapd did not answer the claim of node {value:#x} within {} s{}: giving up",
                    config.answer_limit.unwrap_or_default().as_secs_f64(),
                    said.as_ref()
                        .map(|s| format!(" (it said: {s})"))
                        .unwrap_or_default()
                ),
            ),
            _ => lease_error(&uiapd, &e),
        })?;
    Ok(match answer {
        Hold::Held(held) => Ok(held),
        Hold::Denied { reason, .. } => Err(format!("denied node {value:#x}: {reason}")),
        Hold::Failed { reason } => Err(format!("failed node {value:#x}: {reason}")),
    })
}

/// What a control error means for the lease.
pub(super) fn lease_error(uiapd: &Client, e: &ControlError) -> LeaseError {
    match e.kind() {
        ControlErrorKind::NoDaemon => LeaseError::new(
            LeaseErrorKind::Unreachable,
            format!(
                "cannot reach uiapd: is uiapd running? tried {} ({})",
                uiapd.path().display(),
                std::error::Error::source(e).map_or_else(String::new, ToString::to_string)
            ),
        ),
        ControlErrorKind::Refused => LeaseError::new(
            LeaseErrorKind::Refused,
            format!("uiapd refused the node claim: {e}"),
        ),
        _ => LeaseError::new(LeaseErrorKind::Registry, format!("uiapd: {e}")),
    }
}

/// Releases `claim`, waiting at most `limit` for the daemon's answer: a stopped daemon must not
/// hold up the end of a run (generators stopped already). Unanswered, the claim still ends:
/// the watcher's connection, which holds it, is closed, and the daemon ends the claim when it
/// reads that (docs/uiap-design.md D54).
fn release(uiapd: &Client, claim: u64, limit: Duration) -> Result<(), LeaseError> {
    uiapd
        .release_within(claim, Some(limit))
        .map_err(|e| match e.kind() {
            ControlErrorKind::Refused => LeaseError::new(
                LeaseErrorKind::Refused,
                format!("uiapd refused to release claim {claim}: {e}"),
            ),
            ControlErrorKind::Timeout => LeaseError::new(
                LeaseErrorKind::Timeout,
                format!(
                    "uiapd did not answer the release of claim {claim} within {limit:?}; it \
                     ends the claim when it reads that the lease's connection closed"
                ),
            ),
            _ => lease_error(uiapd, &e),
        })
}

/// What an event means for the node: `None` while it is still held.
fn lost_by(event: &ClaimEvent) -> Option<(NodeLostKind, String)> {
    let why = event.reason.as_deref().unwrap_or("no reason given");
    let (kind, detail) = match event.kind {
        EventKind::Renewed => return None,
        EventKind::Conflict => (
            NodeLostKind::Conflict,
            format!("another device holds this node ID (late conflict: {why})"),
        ),
        EventKind::Lost => (
            NodeLostKind::Conflict,
            format!("the renewal was denied: {why}"),
        ),
        EventKind::Expired => (
            NodeLostKind::RenewalFailed,
            "the claim expired without renewal".to_string(),
        ),
        EventKind::Released => (
            NodeLostKind::Released,
            "the claim was released by someone else".to_string(),
        ),
        // Nobody else can deny the node while the site is cut off: another device may take it
        // (docs/uiap-design.md D63).
        EventKind::Isolated => (
            NodeLostKind::SourceGone,
            format!("the site is isolated: {why}"),
        ),
        // A neighbour's Claim-Attempt for this node may have been dropped unanswered: the
        // node may be taken elsewhere (docs/uiap-design.md D64).
        EventKind::Suppressed => (
            NodeLostKind::SourceGone,
            format!("the site's traffic was suppressed: {why}"),
        ),
    };
    Some((kind, detail))
}

/// How long a grant or an answered question keeps the node: the liveness window, or what is
/// left of the claim's lifetime if that is shorter (whole seconds, rounded down by the daemon).
fn granted(claim: &ClaimView, liveness: Duration) -> Duration {
    claim
        .expires_in
        .map_or(liveness, |left| Duration::from_secs(left).min(liveness))
}

/// The watcher thread's state: the held claim's event stream, the slot it keeps, and the daemon
/// it questions.
struct Watcher {
    held: HeldClaim,
    slot: Arc<LeaseSlot>,
    stop: Arc<AtomicBool>,
    uiapd: Client,
    liveness: Duration,
    reason: Arc<Reason>,
}

impl Watcher {
    /// Reads the claim's events and questions the daemon every quarter of the liveness window,
    /// until the node is lost or the lease is dropped.
    fn run(mut self) {
        let every = self.liveness / 4;
        let mut next = self.slot.now();
        while !self.stop.load(Ordering::Acquire) {
            if self.slot.now() >= next {
                next = self.slot.now() + every;
                if let Some(lost) = self.ask() {
                    self.reason
                        .lose(&self.slot, lost.kind(), lost.detail().to_string());
                    return;
                }
            }
            match self.held.next_event(Some(WATCH_TICK.min(every))) {
                Ok(None) => {}
                Ok(Some(event)) => {
                    if let Some((kind, detail)) = lost_by(&event) {
                        self.reason.lose(&self.slot, kind, detail);
                        // A late conflict leaves our claim held and defended
                        // (docs/uiap-design.md D33): release it, so the device that keeps the
                        // node is not denied at its next renewal (docs/uiap-design.md D52).
                        if event.kind == EventKind::Conflict {
                            let _ = release(&self.uiapd, self.held.id(), self.liveness);
                        }
                        return;
                    }
                }
                Err(e) => {
                    self.reason.lose(
                        &self.slot,
                        NodeLostKind::SourceGone,
                        format!("uiapd is gone ({e})"),
                    );
                    return;
                }
            }
        }
    }

    /// Asks the daemon for the claim, bounded by a quarter of the liveness window. An answer
    /// that lists it held moves the deadline to the question's send instant plus the liveness
    /// window (or the lifetime left); one that does not is a loss. No answer in time moves
    /// nothing: the deadline passes unless a later question is answered.
    ///
    /// An answer that comes after the deadline passed is a loss too: UIAP keeps a node by
    /// defending it, and a daemon that did not answer for the liveness window may not have
    /// defended it either, so another device may hold it now; its own daemon would learn that
    /// only at its next renewal.
    fn ask(&self) -> Option<NodeLost> {
        let sent = self.slot.now();
        let said = ask(&self.uiapd, self.held.id(), self.liveness);
        if self.slot.expired() {
            return Some(
                NodeLost::new(NodeLostKind::SourceGone).with_detail(&format!(
                    "uiapd did not answer within the {:?} liveness window",
                    self.liveness
                )),
            );
        }
        match said {
            Said::Held(ttl) => {
                self.slot.renew(sent, ttl);
                None
            }
            Said::Lost(lost) => Some(lost),
            // Refused (a cap on connections): proves nothing, as silence; the deadline stands.
            Said::Refused(_) | Said::Silent => None,
        }
    }
}

/// What the daemon says of a claim when asked.
enum Said {
    /// Held: for how long the answer keeps the node, counted from the question's send instant.
    Held(Duration),
    /// Not held any more.
    Lost(NodeLost),
    /// Refused, with the daemon's reason (a cap on connections, docs/uiap-design.md D77).
    Refused(String),
    /// No answer in time, or none that makes sense.
    Silent,
}

/// Asks the daemon for claim `id`, bounded by a quarter of the liveness window.
fn ask(uiapd: &Client, id: u64, liveness: Duration) -> Said {
    let answer = uiapd.call_within(&Request::List, Some(liveness / 4), &mut |_| {});
    let claims = match answer {
        Ok(Response::Claims(claims)) => claims,
        Ok(Response::Error(refused)) => return Said::Refused(refused.message),
        _ => return Said::Silent,
    };
    match claims.iter().find(|c| c.id == id) {
        Some(claim) if claim.state.is_held() => Said::Held(granted(claim, liveness)),
        Some(claim) => Said::Lost(
            NodeLost::new(NodeLostKind::RenewalFailed)
                .with_detail(&format!("uiapd lists claim {id} as {}", claim.state)),
        ),
        None => Said::Lost(
            NodeLost::new(NodeLostKind::SourceGone)
                .with_detail(&format!("uiapd no longer lists claim {id}")),
        ),
    }
}
