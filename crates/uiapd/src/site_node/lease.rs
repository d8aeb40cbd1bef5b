//! [`SiteLease`]: claim, keep, watch and release a node ID (docs/uiap-design.md D51, D52).

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use rand_core::Rng;
use uiap::space::DomainId;
use uuidkit::{NodeId, NodeLost, NodeLostKind, NodeSlot, NodeSource, RandomNode};

use super::domain::{check_bits, check_domain, node_space};
use super::{LeaseError, LeaseErrorKind};
use crate::control::{
    ClaimEvent, EventKind, HeldClaim, Hold, Request, SpaceText, call, hold_while_connected,
};

/// How a [`SiteLease`] claims its node ID.
///
/// ```
/// use uiapd::site_node::{LeaseConfig, DEFAULT_NODE_DOMAIN};
///
/// let c = LeaseConfig::new("/run/uiapd/control.sock".into(), 48);
/// assert_eq!(c.domain, DEFAULT_NODE_DOMAIN);
/// assert_eq!(c.lifetime, 20);
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
    /// How long one claim may take to be answered (`None`: as long as the daemon needs, e.g. when
    /// it rate-limits claims after conflicts).
    pub answer_limit: Option<Duration>,
}

impl LeaseConfig {
    /// The defaults for a node ID `bits` wide in the default domain.
    ///
    /// ```
    /// use uiapd::site_node::LeaseConfig;
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
            answer_limit: None,
        }
    }

    /// A random node ID of the configured width: uniform, and for 48 bits with the multicast
    /// bit set (RFC 9562 §6.10: it is not an IEEE 802 address).
    fn draw(&self, rng: &mut impl Rng) -> Result<u64, LeaseError> {
        RandomNode::new(self.bits, rng)
            .map(|n| n.id().value())
            .map_err(|e| LeaseError::new(LeaseErrorKind::Config, format!("node bits: {e}")))
    }

    /// The wait before attempt `n + 1` after `n` denials (n ≥ 1).
    fn wait(&self, n: u32, rng: &mut impl Rng) -> Duration {
        let top = self
            .backoff
            .saturating_mul(1u32 << (n - 1).min(16))
            .min(self.max_backoff);
        let half = top / 2;
        let span = u64::try_from((top - half).as_micros()).unwrap_or(u64::MAX);
        half + Duration::from_micros(if span == 0 { 0 } else { rng.next_u64() % span })
    }
}

/// A node ID held through the local `uiapd`, and the slot generators read it from
/// (the [module docs](super)).
///
/// ```no_run
/// use uiapd::site_node::{LeaseConfig, SiteLease};
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
    control: PathBuf,
    note: Option<String>,
    stop: Arc<AtomicBool>,
    watcher: Option<JoinHandle<()>>,
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
    /// * [`LeaseErrorKind::Config`]: an invalid domain, width or lifetime;
    /// * [`LeaseErrorKind::NoDaemon`]: nothing answers at the control path ("is uiapd running?
    ///   tried PATH");
    /// * [`LeaseErrorKind::Denied`]: every attempt was denied ("denied N times");
    /// * [`LeaseErrorKind::Refused`]: the daemon refused the request (its message);
    /// * [`LeaseErrorKind::Daemon`]: the connection failed or the answer made no sense.
    ///
    /// ```no_run
    /// use uiapd::site_node::{LeaseConfig, LeaseErrorKind, SiteLease};
    /// # use rand_core::SeedableRng;
    ///
    /// let config = LeaseConfig::new("/nonexistent/control.sock".into(), 48);
    /// let err = SiteLease::acquire(&config, &mut rand_chacha::ChaCha20Rng::from_seed([1; 32])).unwrap_err();
    /// assert_eq!(err.kind(), LeaseErrorKind::NoDaemon);
    /// ```
    pub fn acquire(config: &LeaseConfig, rng: &mut impl Rng) -> Result<SiteLease, LeaseError> {
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
                std::thread::sleep(config.wait(n, rng));
            }
            let value = config.draw(rng)?;
            match try_claim(config, value)? {
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
        let (claim, note) = (held.id(), held.reason().map(str::to_string));
        let watcher = {
            let (slot, stop, control) = (slot.clone(), stop.clone(), config.control.clone());
            std::thread::Builder::new()
                .name(format!("site-lease-{claim}"))
                .spawn(move || watch(held, &slot, &stop, &control))
                .ok()
        };
        if watcher.is_none() {
            // Without a watcher nobody would hear a loss: never hand the node out.
            slot.lose(
                NodeLost::new(NodeLostKind::SourceGone)
                    .with_detail("cannot start the lease watcher thread"),
            );
        }
        Ok(SiteLease {
            slot,
            node,
            claim,
            control: config.control.clone(),
            note,
            stop,
            watcher,
        })
    }

    /// The node ID held (as the slot first gave it out).
    ///
    /// ```no_run
    /// # use uiapd::site_node::{LeaseConfig, SiteLease};
    /// # use rand_core::SeedableRng;
    /// # let config = LeaseConfig::new("/run/uiapd/control.sock".into(), 48);
    /// let lease = SiteLease::acquire(&config, &mut rand_chacha::ChaCha20Rng::from_seed([1; 32]))?;
    /// assert_eq!(lease.node().as_bytes6().unwrap()[0] & 1, 1); // the multicast bit
    /// # Ok::<(), uiapd::site_node::LeaseError>(())
    /// ```
    pub fn node(&self) -> NodeId {
        self.node
    }

    /// The daemon's ID of the claim.
    ///
    /// ```no_run
    /// # use uiapd::site_node::{LeaseConfig, SiteLease};
    /// # use rand_core::SeedableRng;
    /// # let config = LeaseConfig::new("/run/uiapd/control.sock".into(), 48);
    /// let lease = SiteLease::acquire(&config, &mut rand_chacha::ChaCha20Rng::from_seed([1; 32]))?;
    /// assert!(lease.claim_id() > 0);
    /// # Ok::<(), uiapd::site_node::LeaseError>(())
    /// ```
    pub fn claim_id(&self) -> u64 {
        self.claim
    }

    /// The daemon's note on success ("a site of one: no participating interface"), if any.
    ///
    /// ```no_run
    /// # use uiapd::site_node::{LeaseConfig, SiteLease};
    /// # use rand_core::SeedableRng;
    /// # let config = LeaseConfig::new("/run/uiapd/control.sock".into(), 48);
    /// let lease = SiteLease::acquire(&config, &mut rand_chacha::ChaCha20Rng::from_seed([1; 32]))?;
    /// if let Some(note) = lease.note() { eprintln!("note: {note}"); }
    /// # Ok::<(), uiapd::site_node::LeaseError>(())
    /// ```
    pub fn note(&self) -> Option<&str> {
        self.note.as_deref()
    }

    /// The slot generators read the node from.
    ///
    /// ```no_run
    /// # use uiapd::site_node::{LeaseConfig, SiteLease};
    /// # use rand_core::SeedableRng;
    /// # use uuidkit::NodeSource;
    /// # let config = LeaseConfig::new("/run/uiapd/control.sock".into(), 48);
    /// let lease = SiteLease::acquire(&config, &mut rand_chacha::ChaCha20Rng::from_seed([1; 32]))?;
    /// assert_eq!(lease.slot().current().unwrap(), lease.node());
    /// # Ok::<(), uiapd::site_node::LeaseError>(())
    /// ```
    pub fn slot(&self) -> &Arc<NodeSlot> {
        &self.slot
    }

    /// The slot as a [`NodeSource`] for a generator.
    ///
    /// ```no_run
    /// # use uiapd::site_node::{LeaseConfig, SiteLease};
    /// # use rand_core::SeedableRng;
    /// # let config = LeaseConfig::new("/run/uiapd/control.sock".into(), 48);
    /// let lease = SiteLease::acquire(&config, &mut rand_chacha::ChaCha20Rng::from_seed([1; 32]))?;
    /// assert_eq!(lease.source().bits(), 48);
    /// # Ok::<(), uiapd::site_node::LeaseError>(())
    /// ```
    pub fn source(&self) -> Arc<dyn NodeSource> {
        self.slot.clone()
    }

    /// Marks the node lost (generators stop), stops the watcher and releases the claim.
    ///
    /// # Errors
    ///
    /// [`LeaseErrorKind::NoDaemon`] or [`LeaseErrorKind::Daemon`] if the release could not be
    /// sent; the node is marked lost either way.
    ///
    /// ```no_run
    /// # use uiapd::site_node::{LeaseConfig, SiteLease};
    /// # use rand_core::SeedableRng;
    /// # use uuidkit::NodeSource;
    /// # let config = LeaseConfig::new("/run/uiapd/control.sock".into(), 48);
    /// let lease = SiteLease::acquire(&config, &mut rand_chacha::ChaCha20Rng::from_seed([1; 32]))?;
    /// let slot = lease.slot().clone();
    /// lease.release()?;
    /// assert!(slot.current().is_err());
    /// # Ok::<(), uiapd::site_node::LeaseError>(())
    /// ```
    pub fn release(mut self) -> Result<(), LeaseError> {
        self.finish()
    }

    fn finish(&mut self) -> Result<(), LeaseError> {
        let Some(watcher) = self.watcher.take() else {
            return Ok(());
        };
        self.slot
            .lose(NodeLost::new(NodeLostKind::Released).with_detail("the site lease was released"));
        self.stop.store(true, Ordering::Release);
        let _ = watcher.join();
        release(&self.control, self.claim)
    }
}

impl Drop for SiteLease {
    fn drop(&mut self) {
        let _ = self.finish();
    }
}

/// One claim of `value`: the held claim, or the reason it was denied (a retry may do better),
/// or an error no retry can fix.
fn try_claim(config: &LeaseConfig, value: u64) -> Result<Result<HeldClaim, String>, LeaseError> {
    let space = node_space(value, config.bits)?;
    let request = Request::Claim {
        domain: config.domain.to_string(),
        space: SpaceText::from_space(&space),
        lifetime: config.lifetime,
        proxy: false,
        renew: true,
    };
    let answer = hold_while_connected(&config.control, &request, config.answer_limit)
        .map_err(|e| daemon_error(&config.control, &e))?;
    let refused = match answer {
        Hold::Held(held) => return Ok(Ok(held)),
        Hold::Refused(r) => r,
    };
    if let Some(e) = refused.error.filter(|_| !refused.ok) {
        return Err(LeaseError::new(
            LeaseErrorKind::Refused,
            format!("uiapd refused the node claim: {}", e.message),
        ));
    }
    let result = refused.result.unwrap_or_default();
    let reason = refused.reason.unwrap_or_default();
    Ok(Err(format!("{result} node {value:#x}: {reason}")))
}

fn daemon_error(control: &std::path::Path, e: &crate::DaemonError) -> LeaseError {
    if crate::control::is_connect_failure(e) {
        LeaseError::new(
            LeaseErrorKind::NoDaemon,
            format!(
                "cannot reach uiapd: is uiapd running? tried {} ({})",
                control.display(),
                std::error::Error::source(e).map_or_else(String::new, ToString::to_string)
            ),
        )
    } else {
        LeaseError::new(LeaseErrorKind::Daemon, format!("uiapd: {e}"))
    }
}

fn release(control: &std::path::Path, claim: u64) -> Result<(), LeaseError> {
    let r =
        call(control, &Request::Release { id: claim }).map_err(|e| daemon_error(control, &e))?;
    match r.error {
        Some(e) if !r.ok => Err(LeaseError::new(
            LeaseErrorKind::Refused,
            format!("uiapd refused to release claim {claim}: {}", e.message),
        )),
        _ => Ok(()),
    }
}

/// What an event means for the node: `None` while it is still held.
fn lost_by(event: &ClaimEvent) -> Option<NodeLost> {
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
    };
    Some(NodeLost::new(kind).with_detail(&detail))
}

/// The watcher thread: reads the claim's events until the node is lost or the lease is dropped.
fn watch(mut held: HeldClaim, slot: &NodeSlot, stop: &AtomicBool, control: &std::path::Path) {
    while !stop.load(Ordering::Acquire) {
        match held.next_event(Some(WATCH_TICK)) {
            Ok(None) => {}
            Ok(Some(event)) => {
                if let Some(lost) = lost_by(&event) {
                    slot.lose(lost);
                    // A late conflict leaves our claim held and defended (docs/uiap-design.md
                    // D33): release it, so the device that keeps the node is not denied at its
                    // next renewal (docs/uiap-design.md D52).
                    if event.kind == EventKind::Conflict {
                        let _ = release(control, held.id());
                    }
                    return;
                }
            }
            Err(e) => {
                slot.lose(
                    NodeLost::new(NodeLostKind::SourceGone)
                        .with_detail(&format!("uiapd is gone ({e})")),
                );
                return;
            }
        }
    }
}
