//! The select loop: datagrams, the device's timer, interface rescans, control requests and
//! shutdown. It moves bytes and answers requests; every protocol decision is the device's.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::future::Future;

use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use tokio::sync::mpsc;
use tracing::{debug, info, warn};

use crate::control::{self, Incoming, Response};
use crate::iface::{self, Interface};
use crate::ingress::{MAX_NEIGHBOURS, NEIGHBOUR_BURST, NEIGHBOUR_RATE, RateLimiter, check_port};
use crate::psk;
use crate::socket::{RECV_BUFFER, Received, Role, Sockets, SourceDrop, check_source};
use crate::store::Store;
use crate::{Config, DaemonError, DaemonErrorKind};

mod status;
use uiap::device::{ClaimId, Destination, Device, Event, FailureReason, InterfaceId, Peer};
use uiap::time::Instant;
use uiap::wire::{DeviceId, MAX_MESSAGE_LEN};

mod claims;
mod limits;

use claims::{Entry, Watcher};

struct Daemon {
    config: Config,
    device: Device<ChaCha20Rng>,
    store: Store,
    start: tokio::time::Instant,
    interfaces: Vec<Interface>,
    known: BTreeSet<u32>,
    claims: BTreeMap<u64, Entry>,
    watchers: Vec<Watcher>,
    by_device: HashMap<ClaimId, u64>,
    next_id: u64,
    drops: BTreeMap<SourceDrop, u64>,
    send_errors: u64,
    /// PSK trailers: sealing, and the tags seen within the replay window.
    sealer: psk::Sealer,
    /// Per-neighbour rate limits, one set per socket (claim, reply), applied before anything is
    /// parsed (docs/uiap-design.md D45): a neighbour's Attempts never use up its Denies' budget.
    limits: [RateLimiter; 2],
    /// The receive buffers the kernel granted (claim, reply).
    receive_buffers: (usize, usize),
    /// Datagrams the kernel dropped for want of buffer space (claim, reply).
    kernel_drops: (u32, u32),
}

fn random_seed() -> [u8; 32] {
    let mut seed = [0u8; 32];
    if getrandom::fill(&mut seed).is_err() {
        // No OS randomness: fall back on the clock and the PID (still unique per process).
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        seed[..16].copy_from_slice(&t.as_nanos().to_le_bytes());
        seed[16..20].copy_from_slice(&std::process::id().to_le_bytes());
    }
    seed
}

fn random_u64() -> u64 {
    let seed = random_seed();
    u64::from_le_bytes([
        seed[0], seed[1], seed[2], seed[3], seed[4], seed[5], seed[6], seed[7],
    ])
}

/// The protocol device: its ID (an EUI-64 when configured, else the persisted random one) and
/// the configured protocol settings.
fn new_device(
    config: &Config,
    store: &Store,
) -> Result<(Device<ChaCha20Rng>, DeviceId), DaemonError> {
    // A configured EUI-64 is used as it is; the device may not replace it after a collision,
    // only move its sequence number (docs/uiap-design.md D37).
    let (device_id, random_id) = match &config.device_id_iface {
        Some(name) => (iface::eui64_device_id(name)?, false),
        None => (store.device_id(random_u64)?, true),
    };
    let device_id = DeviceId::new(device_id).ok_or_else(|| {
        DaemonError::new(
            DaemonErrorKind::State,
            "device-id: expected non-zero, found 0",
        )
    })?;
    // Renewal is each claim's choice, made by the daemon (docs/uiap-design.md D32).
    let device_config = uiap::config::Config {
        auto_renew: false,
        random_device_id: random_id,
        ..config.device.clone()
    };
    let device = Device::new(
        device_config,
        device_id,
        ChaCha20Rng::from_seed(random_seed()),
    );
    Ok((device, device_id))
}

/// Runs the daemon on `sockets` until `shutdown` completes: binds the control socket, loads the
/// device ID and the claims from `store` (reclaiming every persisted claim with the R flag), and
/// serves. On shutdown the control socket file is removed; claims stay persisted.
///
/// # Errors
///
/// [`DaemonErrorKind::Io`] if the control socket cannot be bound or interfaces cannot be scanned;
/// [`DaemonErrorKind::State`] if the state directory holds unreadable data.
///
/// ```no_run
/// use uiapd::{socket::Sockets, store::Store, Config};
///
/// # async fn demo() -> Result<(), uiapd::DaemonError> {
/// let config = Config::default();
/// let sockets = Sockets::bind(config.group, config.claim_port, config.reply_port)?;
/// let store = Store::open(&config.state)?;
/// uiapd::run(config, sockets, store, async { let _ = tokio::signal::ctrl_c().await; }).await?;
/// # Ok(()) }
/// ```
pub async fn run(
    config: Config,
    mut sockets: Sockets,
    store: Store,
    shutdown: impl Future<Output = ()>,
) -> Result<(), DaemonError> {
    let (device, device_id) = new_device(&config, &store)?;
    let persisted = store.load_claims()?;
    let listener = control::bind(&config.control)?;
    let (tx, mut requests) = mpsc::channel::<Incoming>(64);
    let server = tokio::spawn(control::serve(listener, tx, limits::control(&config)));

    let mut d = Daemon {
        device,
        store,
        start: tokio::time::Instant::now(),
        interfaces: Vec::new(),
        known: BTreeSet::new(),
        claims: BTreeMap::new(),
        watchers: Vec::new(),
        by_device: HashMap::new(),
        next_id: persisted.next_id.max(1),
        drops: BTreeMap::new(),
        send_errors: 0,
        sealer: psk::Sealer::default(),
        limits: [Role::Claim, Role::Reply]
            .map(|_| RateLimiter::new(NEIGHBOUR_RATE, NEIGHBOUR_BURST, MAX_NEIGHBOURS)),
        receive_buffers: sockets.receive_buffers(),
        kernel_drops: (0, 0),
        config,
    };
    info!(
        claim = d.receive_buffers.0,
        reply = d.receive_buffers.1,
        "receive buffers granted (bytes)"
    );
    info!(device_id = %device_id, control = %d.config.control.display(), "uiapd starting");
    d.rescan(&mut sockets);
    d.reclaim_persisted(persisted);
    d.flush(&sockets).await;

    let mut claim_buf = vec![0u8; RECV_BUFFER];
    let mut reply_buf = vec![0u8; RECV_BUFFER];
    let mut rescan =
        tokio::time::interval(std::time::Duration::from_millis(d.config.rescan_ms.max(10)));
    rescan.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    // How often claims whose client went away are looked for (docs/uiap-design.md D30).
    let mut abandoned = tokio::time::interval(std::time::Duration::from_millis(200));
    abandoned.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    tokio::pin!(shutdown);
    loop {
        let due = match (d.device.poll_timeout(), d.next_renewal()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let deadline = due.map(|t| d.start + std::time::Duration::from_micros(t.as_micros()));
        let sleep = async {
            match deadline {
                Some(at) => tokio::time::sleep_until(at).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            () = &mut shutdown => break,
            r = sockets.recv(Role::Claim, &mut claim_buf) => d.on_socket(&sockets, r, &claim_buf),
            r = sockets.recv(Role::Reply, &mut reply_buf) => d.on_socket(&sockets, r, &reply_buf),
            () = sleep => {
                let now = d.now();
                d.device.handle_timeout(now);
                d.renew_due(now);
            }
            _ = rescan.tick() => d.rescan(&mut sockets),
            _ = abandoned.tick() => d.cancel_abandoned(),
            Some(incoming) = requests.recv() => {
                // Without credentials (not a Unix peer) nobody is trusted as root.
                let uid = incoming.uid.unwrap_or(u32::MAX);
                d.on_request(incoming.request, incoming.reply, uid);
            }
        }
        d.flush(&sockets).await;
    }
    info!("uiapd shutting down");
    server.abort();
    for entry in d.claims.values_mut() {
        for w in entry.waiters.drain(..) {
            let _ = w.try_send(Response {
                ok: true,
                result: Some("failed".into()),
                reason: Some("the daemon is shutting down".into()),
                ..Response::default()
            });
        }
    }
    let _ = std::fs::remove_file(&d.config.control);
    Ok(())
}

/// Binds the sockets from `config`, opens the state directory and runs until SIGTERM or SIGINT.
///
/// # Errors
///
/// As [`Sockets::bind`], [`Store::open`] and [`run`].
///
/// ```no_run
/// # async fn demo() -> Result<(), uiapd::DaemonError> {
/// uiapd::run_with_signals(uiapd::Config::default()).await?;
/// # Ok(()) }
/// ```
pub async fn run_with_signals(config: Config) -> Result<(), DaemonError> {
    use tokio::signal::unix::{SignalKind, signal};
    let sockets = Sockets::bind(config.group, config.claim_port, config.reply_port)?;
    let store = Store::open(&config.state)?;
    let mut term = signal(SignalKind::terminate())
        .map_err(|e| DaemonError::io("cannot handle SIGTERM", None, e))?;
    let mut int = signal(SignalKind::interrupt())
        .map_err(|e| DaemonError::io("cannot handle SIGINT", None, e))?;
    let shutdown = async move {
        tokio::select! {
            _ = term.recv() => info!("SIGTERM"),
            _ = int.recv() => info!("SIGINT"),
        }
    };
    run(config, sockets, store, shutdown).await
}

/// Why a claim was denied, as a sentence for the `reason` of a control response
/// (docs/uiap-design.md D26).
fn denial_text(reason: &FailureReason) -> String {
    match reason {
        FailureReason::Denied { message } => format!(
            "another device holds an overlapping claim: a Claim-Deny answered attempt {message}"
        ),
        FailureReason::Simultaneous { message } => format!(
            "device {} claimed an overlapping space at the same time; both claims fail",
            message.origin
        ),
        FailureReason::Reclaimed { message } => format!(
            "device {} reclaimed an overlapping space it already held",
            message.origin
        ),
        // The enum is non-exhaustive: a reason added later still fails the claim.
        other => format!("refused by the protocol ({other:?})"),
    }
}

impl Daemon {
    fn now(&self) -> Instant {
        Instant::from_micros(u64::try_from(self.start.elapsed().as_micros()).unwrap_or(u64::MAX))
    }

    fn count(&mut self, reason: SourceDrop) {
        *self.drops.entry(reason).or_insert(0) += 1;
    }

    fn rescan(&mut self, sockets: &mut Sockets) {
        let found = match iface::scan(&self.config.ifaces) {
            Ok(f) => f,
            Err(e) => {
                warn!(error = %e, "cannot scan interfaces");
                return;
            }
        };
        for gone in self
            .interfaces
            .iter()
            .filter(|old| !found.iter().any(|n| n.index == old.index))
        {
            info!(interface = %gone, "interface left");
            self.device.remove_interface(InterfaceId(gone.index));
            sockets.leave(gone.index);
            self.known.remove(&gone.index);
        }
        let had = !self.interfaces.is_empty();
        let mut usable = Vec::new();
        for new in found {
            if !self.known.contains(&new.index) {
                if let Err(e) = sockets.join(new.index) {
                    warn!(interface = %new, error = %e, "cannot join the group");
                    continue;
                }
                info!(interface = %new, "interface participates");
                self.device.add_interface(InterfaceId(new.index));
                self.known.insert(new.index);
            }
            usable.push(new);
        }
        self.interfaces = usable;
        match (had, self.interfaces.is_empty()) {
            (true, true) => self.network_lost(),
            (_, false) => self.network_back(),
            (false, true) => {}
        }
    }

    /// A datagram (or an error) from `sockets`: notes the kernel's overflow count, then handles it.
    fn on_socket(&mut self, sockets: &Sockets, r: std::io::Result<Received>, buf: &[u8]) {
        self.kernel_drops = (
            sockets.overflowed(Role::Claim),
            sockets.overflowed(Role::Reply),
        );
        self.on_datagram(r, buf);
    }

    fn on_datagram(&mut self, received: std::io::Result<Received>, buf: &[u8]) {
        let r = match received {
            Ok(r) => r,
            Err(e) => {
                warn!(error = %e, "recvmsg failed");
                self.count(SourceDrop::RecvError);
                return;
            }
        };
        let trailer = if self.config.psk.is_some() {
            psk::TRAILER_LEN
        } else {
            0
        };
        let (index, addr) = match check_source(&r, MAX_MESSAGE_LEN + trailer, &self.known) {
            Ok(v) => v,
            Err(reason) => {
                debug!(source = %r.source, role = r.role.as_str(), reason = reason.as_str(), "dropped");
                self.count(reason);
                return;
            }
        };
        if !self.limits[r.role as usize].allow(self.start.elapsed(), (index, addr)) {
            return self.count(SourceDrop::RateLimited);
        }
        let mut bytes = &buf[..r.len.min(buf.len())];
        if let Some(key) = &self.config.psk {
            match self.sealer.open(key, bytes, psk::wall_clock_ms()) {
                Ok(m) => bytes = m,
                Err(psk::Refused::Missing) => return self.count(SourceDrop::PskMissing),
                Err(psk::Refused::Mismatch) => return self.count(SourceDrop::PskMismatch),
                Err(psk::Refused::Stale) => return self.count(SourceDrop::PskStale),
                Err(psk::Refused::Replay) => return self.count(SourceDrop::PskReplay),
            }
        }
        if let Err(reason) = check_port(&r, self.config.group, bytes) {
            debug!(source = %r.source, role = r.role.as_str(), reason = reason.as_str(), "dropped");
            return self.count(reason);
        }
        let now = self.now();
        self.device.handle_datagram(
            now,
            Peer {
                interface: InterfaceId(index),
                addr,
            },
            bytes,
        );
    }

    /// Sends everything the device wants sent and handles its events.
    async fn flush(&mut self, sockets: &Sockets) {
        while let Some(t) = self.device.poll_transmit() {
            let payload = match &self.config.psk {
                Some(key) => self.sealer.seal(key, &t.payload, psk::wall_clock_ms()),
                None => t.payload,
            };
            let result = match t.destination {
                Destination::Multicast(InterfaceId(i)) => sockets.send_multicast(i, &payload).await,
                Destination::Unicast(peer) => {
                    sockets
                        .send_unicast(peer.interface.0, peer.addr, &payload)
                        .await
                }
            };
            if let Err(e) = result {
                debug!(error = %e, destination = ?t.destination, "send failed");
                self.send_errors += 1;
            }
        }
        let mut changed = false;
        // A claim whose client left since the last check must not be reported held or persisted.
        self.cancel_abandoned();
        while let Some(event) = self.device.poll_event() {
            changed |= self.on_event(event);
        }
        if changed {
            self.persist();
        }
    }

    /// The events the claims do not care about.
    fn on_other_event(&mut self, event: Event) -> bool {
        match event {
            Event::DeviceIdCollision {
                sequence,
                new_device_id,
            } => {
                // Without a new ID (at most one a minute) it is only counted: forged collisions
                // must not flood the log.
                if new_device_id.is_some() {
                    warn!(sequence, new = ?new_device_id, "device ID collision");
                } else {
                    debug!(sequence, "device ID collision");
                }
                if let Some(Err(e)) = new_device_id.map(|id| self.store.set_device_id(id.get())) {
                    warn!(error = %e, "cannot persist the new device ID");
                }
                false
            }
            // The enum is non-exhaustive: an event added later changes nothing persisted.
            other => {
                debug!(event = ?other, "event");
                false
            }
        }
    }
}

/// Seconds since the Unix epoch (wall clock: persisted lifetimes outlive the process).
fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}
