//! [`SiteLease`]: claim, keep, watch and release a node ID (docs/uiap-design.md D51, D52).

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

use rand_core::Rng;
use uiap::space::DomainId;
use uuidkit::{NodeId, NodeLost, NodeLostKind, NodeSlot, NodeSource};

use uiap_control::{
    AuthFailures, ClaimEvent, ClaimRequest, ClaimState, Client, ControlError, ControlErrorKind,
    EventKind, HeldClaim, Hold, SpaceText,
};

use super::domain::{check_domain, node_space};
use crate::node::{backoff, draw};
use crate::{LeaseError, LeaseErrorKind, check_bits};

/// How a [`SiteLease`] claims its node ID.
///
/// ```
/// use uuidkit_lease::site::{LeaseConfig, DEFAULT_NODE_DOMAIN};
///
/// let c = LeaseConfig::new("/run/uiapd/control.sock".into(), 48);
/// assert_eq!(c.domain, DEFAULT_NODE_DOMAIN);
/// assert_eq!(c.lifetime, 20);
/// assert_eq!(c.answer_limit, Some(std::time::Duration::from_secs(30)));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeaseConfig {
    /// The daemon's control socket.
    pub control: PathBuf,
    /// The node-ID domain (docs/uiap-design.md D49); must be left-justified.
    pub domain: DomainId,
    /// The node ID's width, 1 to 48 (48: the v1/v6 node field, drawn with the multicast bit
    /// set).
    pub bits: u8,
    /// The claim's lifetime in seconds (20). The daemon renews it when `renew-at-percent` (75 %)
    /// of it has passed, and that renewal interval bounds the partition window
    /// (docs/uiap-design.md D53); it must be at least the daemon's `renew-min-lifetime-s`.
    pub lifetime: u32,
    /// Claims tried, each with a fresh random node ID, before giving up (8).
    pub attempts: u32,
    /// The wait after the first denial, doubled after each one up to `max_backoff`, each wait
    /// drawn uniformly from its upper half (250 ms).
    pub backoff: Duration,
    /// The longest wait between two attempts (8 s).
    pub max_backoff: Duration,
    /// How long one claim may take to be answered (30 s; `None`: as long as the daemon needs,
    /// e.g. when it rate-limits claims after conflicts). A daemon that does not answer in time
    /// ends [`SiteLease::acquire`] with [`LeaseErrorKind::Timeout`] and what it said meanwhile.
    pub answer_limit: Option<Duration>,
}

impl LeaseConfig {
    /// The defaults for a node ID `bits` wide in the default domain.
    ///
    /// ```
    /// use uuidkit_lease::site::LeaseConfig;
    ///
    /// assert_eq!(LeaseConfig::new("/tmp/c.sock".into(), 12).bits, 12);
    /// ```
    pub fn new(control: PathBuf, bits: u8) -> LeaseConfig {
        LeaseConfig {
            control,
            domain: super::DEFAULT_NODE_DOMAIN,
            bits,
            lifetime: 20,
            attempts: 8,
            backoff: Duration::from_millis(250),
            max_backoff: Duration::from_secs(8),
            answer_limit: Some(DEFAULT_ANSWER_LIMIT),
        }
    }
}

/// A node ID held through the local `uiapd`, and the slot generators read it from
/// (the [module docs](super)).
///
/// ```no_run
/// use uuidkit_lease::site::{LeaseConfig, SiteLease};
/// use uuidkit::{Generator, SystemClock, ThreadRng, V8Distributed};
///
/// let lease = SiteLease::acquire(&LeaseConfig::new("/run/uiapd/control.sock".into(), 16), &mut ThreadRng)?;
/// let mut g = V8Distributed::builder().node_source(lease.slot().clone()).build(SystemClock, ThreadRng)?;
/// let u = g.generate()?;
/// assert_eq!(u.custom_b().map(u64::from), Some(lease.node().value() >> 4)); // the first 12 of 16 node bits
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct SiteLease {
    slot: Arc<NodeSlot>,
    node: NodeId,
    claim: u64,
    uiapd: Client,
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
    /// Keeps `detail` whole, then signals the loss on `slot` (whose copy may be cut).
    fn lose(&self, slot: &NodeSlot, kind: NodeLostKind, detail: String) {
        let lost = NodeLost::new(kind).with_detail(&detail);
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = Some((kind, detail));
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

/// How long a claim may wait for its answer unless configured: a few claim windows, far less
/// than a rate limit after repeated conflicts (docs/uiap-design.md D34, D61).
const DEFAULT_ANSWER_LIMIT: Duration = Duration::from_secs(30);

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
    /// * [`LeaseErrorKind::Config`]: an invalid domain, width or lifetime;
    /// * [`LeaseErrorKind::Unreachable`]: nothing answers at the control path ("is uiapd running?
    ///   tried PATH");
    /// * [`LeaseErrorKind::Denied`]: every attempt was denied ("denied N times");
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
        let attempts = config.attempts.max(1);
        let mut last = String::new();
        for n in 0..attempts {
            if n > 0 {
                std::thread::sleep(backoff(config.backoff, config.max_backoff, n, rng));
            }
            let value = draw(config.bits, rng)?;
            match try_claim(config, value, report)? {
                Ok(held) => return SiteLease::start(config, value, held),
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

    fn start(config: &LeaseConfig, value: u64, held: HeldClaim) -> Result<SiteLease, LeaseError> {
        let slot_error = |e: uuidkit::GenError| {
            LeaseError::new(
                LeaseErrorKind::Config,
                format!("node {value:#x}/{}: {e}", config.bits),
            )
        };
        let slot = Arc::new(NodeSlot::new(config.bits).map_err(slot_error)?);
        let node = slot.set(value).map_err(slot_error)?;
        let stop = Arc::new(AtomicBool::new(false));
        let (claim, note) = (held.id(), held.note().map(str::to_string));
        let auth_failures = held.auth_failures();
        let held_state = held.claim().state;
        let uiapd = Client::new(&config.control);
        let reason = Arc::new(Reason::default());
        let watcher = {
            let (slot, stop, uiapd) = (slot.clone(), stop.clone(), uiapd.clone());
            let reason = reason.clone();
            std::thread::Builder::new()
                .name(format!("site-lease-{claim}"))
                .spawn(move || watch(held, &slot, &stop, &uiapd, &reason))
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
                let _ = release(&uiapd, claim);
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
    /// any (docs/uiap-design.md D62). Their senders were heard but could not deny the claim: a
    /// device without the key, with another key or with a clock more than 30 s off may hold
    /// the same node. A warning, not a loss: any host on the link can send datagrams that fail.
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
    /// # use uuidkit::NodeSource;
    /// # let config = LeaseConfig::new("/run/uiapd/control.sock".into(), 48);
    /// let lease = SiteLease::acquire(&config, &mut rand_chacha::ChaCha20Rng::from_seed([1; 32]))?;
    /// assert_eq!(lease.slot().current().unwrap(), lease.node());
    /// # Ok::<(), uuidkit_lease::LeaseError>(())
    /// ```
    pub fn slot(&self) -> &Arc<NodeSlot> {
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
    /// # use uuidkit::NodeSource;
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
        self.stop.store(true, Ordering::Release);
        let _ = watcher.join();
        release(&self.uiapd, self.claim)
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
fn lease_error(uiapd: &Client, e: &ControlError) -> LeaseError {
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

fn release(uiapd: &Client, claim: u64) -> Result<(), LeaseError> {
    uiapd.release(claim).map_err(|e| match e.kind() {
        ControlErrorKind::Refused => LeaseError::new(
            LeaseErrorKind::Refused,
            format!("uiapd refused to release claim {claim}: {e}"),
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

/// The watcher thread: reads the claim's events until the node is lost or the lease is dropped.
fn watch(mut held: HeldClaim, slot: &NodeSlot, stop: &AtomicBool, uiapd: &Client, reason: &Reason) {
    while !stop.load(Ordering::Acquire) {
        match held.next_event(Some(WATCH_TICK)) {
            Ok(None) => {}
            Ok(Some(event)) => {
                if let Some((kind, detail)) = lost_by(&event) {
                    reason.lose(slot, kind, detail);
                    // A late conflict leaves our claim held and defended (docs/uiap-design.md
                    // D33): release it, so the device that keeps the node is not denied at its
                    // next renewal (docs/uiap-design.md D52).
                    if event.kind == EventKind::Conflict {
                        let _ = release(uiapd, held.id());
                    }
                    return;
                }
            }
            Err(e) => {
                reason.lose(
                    slot,
                    NodeLostKind::SourceGone,
                    format!("uiapd is gone ({e})"),
                );
                return;
            }
        }
    }
}
