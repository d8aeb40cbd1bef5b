//! The daemon: the protocol device, the claim table ([`crate::claims`]), the link
//! ([`crate::link`]) and the participating interfaces, driven by one select loop — datagrams,
//! the device's timer, interface rescans, control requests and shutdown. The loop moves bytes
//! and hands each request and event to its one method; every protocol decision is the
//! device's.

mod interfaces;
mod status;

use std::future::Future;
use std::time::Duration;

use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use tokio::sync::mpsc;
use tracing::{debug, info, warn};
use uiap::device::{Destination, Device, Event, InterfaceId};
use uiap::time::Instant;
use uiap::wire::DeviceId;
use uiap_control::{Request, Response};

use crate::claims::{ClaimTable, Ctx};
use crate::control::{self, Incoming};
use crate::link::{Link, Notice};
use crate::neighbours::{self, Neighbours};
use crate::socket::{RECV_BUFFER, Received, Role, Sockets};
use crate::store::{Claims, Store};
use crate::unicast::UnicastGate;
use crate::{Config, DaemonError, DaemonErrorKind, iface};
use interfaces::{Interfaces, Scan};

/// How long answers to claims in progress may take to be written at shutdown.
const SHUTDOWN_ANSWERS: Duration = Duration::from_secs(1);

/// How often claims whose client went away are looked for (docs/uiap-design.md D30).
const ABANDONED_TICK: Duration = Duration::from_millis(200);

/// How often the wall clock is read against the boot clock for a step (docs/uiap-design.md
/// D76): well inside a claim window, so that neighbours hear of a split before a claim made at
/// the instant of the step ends.
const CLOCK_TICK: Duration = Duration::from_millis(100);
/// The kernel's drop counts are asked of it at least this often while the daemon is busy (two
/// system calls): a loss is told to the site within it (docs/uiap-design.md D80), far inside
/// the second between a claim's last Attempt and its success.
const OVERFLOWS_ASKED_EVERY: Duration = Duration::from_millis(20);

struct Daemon {
    config: Config,
    /// The zero of the daemon's clock.
    start: tokio::time::Instant,
    device: Device<ChaCha20Rng>,
    /// Where a new device ID is persisted.
    store: Store,
    interfaces: Interfaces,
    link: Link,
    claims: ClaimTable,
    /// The kernel's resolved neighbours, and the Denies waiting for theirs (D79).
    neighbours: Neighbours,
    unicast: UnicastGate,
    /// Whether a failure to read the neighbour table was logged (once: it is retried at most
    /// every 20 ms).
    neighbours_warned: bool,
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
fn new_device(config: &Config, store: &Store) -> Result<Device<ChaCha20Rng>, DaemonError> {
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
    Ok(Device::new(
        device_config,
        device_id,
        ChaCha20Rng::from_seed(random_seed()),
    ))
}

/// Seconds since the Unix epoch (wall clock: persisted lifetimes outlive the process).
fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// The daemon's clock: time since `start`.
fn now_since(start: tokio::time::Instant) -> Instant {
    Instant::from_micros(u64::try_from(start.elapsed().as_micros()).unwrap_or(u64::MAX))
}

/// What the claim table works with now. A free function, so that it borrows the device alone
/// and the table stays free to borrow beside it.
fn claim_ctx<'a>(
    device: &'a mut Device<ChaCha20Rng>,
    start: tokio::time::Instant,
    interfaces: &Interfaces,
    link: &'a Link,
) -> Ctx<'a> {
    Ctx {
        device,
        now: now_since(start),
        wall: unix_now(),
        networked: interfaces.any(),
        auth: link.failures(),
        suppressed: link.suppressed(),
        overflowed: link.overflowed(),
        unsent: link.unsent(),
        reported: link.reported(),
        splits: link.splits(),
        clocks: link.clocks(),
    }
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
/// use uiapd::{Config, Sockets, Store};
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
    let (mut d, persisted) = Daemon::new(config, &sockets, store)?;
    let listener = control::bind(&d.config.control)?;
    let (tx, requests) = mpsc::channel::<Incoming>(64);
    let limits = control::limits(&d.config);
    let server = tokio::spawn(control::serve(listener, tx, limits));
    let (claim, reply) = sockets.receive_buffers();
    info!(claim, reply, "receive buffers granted (bytes)");
    let device_id = d.device.device_id();
    info!(device_id = %device_id, control = %d.config.control.display(), "uiapd starting");
    d.rescan(&mut sockets);
    let mut ctx = claim_ctx(&mut d.device, d.start, &d.interfaces, &d.link);
    d.claims.reclaim_persisted(&mut ctx, persisted);
    d.flush(&sockets).await;
    d.serve(&mut sockets, requests, shutdown).await;
    info!("uiapd shutting down");
    server.abort();
    // The connections' tasks outlive the server's: each writes its "shutting down" answer,
    // for a bounded time, before the runtime stops.
    let told = d.claims.shut_down();
    let written = async {
        for reply in &told {
            reply.closed().await;
        }
    };
    let _ = tokio::time::timeout(SHUTDOWN_ANSWERS, written).await;
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

impl Daemon {
    /// The daemon before it serves, and the claims a previous run persisted.
    fn new(
        config: Config,
        sockets: &Sockets,
        store: Store,
    ) -> Result<(Daemon, Claims), DaemonError> {
        let device = new_device(&config, &store)?;
        let persisted = store.load_claims()?;
        let receive_buffers = sockets.receive_buffers();
        let mut link = Link::new(config.group, config.psk.clone(), receive_buffers);
        link.journal_in(store.dir()).map_err(|e| {
            DaemonError::io(
                "cannot keep the PSK replay journal in the state directory",
                Some(store.dir()),
                e,
            )
        })?;
        let d = Daemon {
            link,
            claims: ClaimTable::new(store.clone()).with_user_limits(config.users),
            store,
            start: tokio::time::Instant::now(),
            device,
            interfaces: Interfaces::default(),
            config,
            neighbours: Neighbours::default(),
            unicast: UnicastGate::default(),
            neighbours_warned: false,
        };
        Ok((d, persisted))
    }

    /// The select loop, until `shutdown` completes.
    async fn serve(
        &mut self,
        sockets: &mut Sockets,
        mut requests: mpsc::Receiver<Incoming>,
        shutdown: impl Future<Output = ()>,
    ) {
        let mut claim_buf = vec![0u8; RECV_BUFFER];
        let mut reply_buf = vec![0u8; RECV_BUFFER];
        let mut rescan =
            tokio::time::interval(Duration::from_millis(self.config.rescan_ms.max(10)));
        rescan.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut abandoned = tokio::time::interval(ABANDONED_TICK);
        abandoned.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut clock = tokio::time::interval(CLOCK_TICK);
        clock.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut resolving = tokio::time::interval(neighbours::FRESH_FOR);
        resolving.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        tokio::pin!(shutdown);
        loop {
            let deadline = self.next_timer();
            let sleep = async {
                match deadline {
                    Some(at) => tokio::time::sleep_until(at).await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                () = &mut shutdown => break,
                r = sockets.recv(Role::Claim, &mut claim_buf) => self.on_datagram(r, &claim_buf),
                r = sockets.recv(Role::Reply, &mut reply_buf) => self.on_datagram(r, &reply_buf),
                () = sleep => self.on_timer(sockets),
                _ = rescan.tick() => self.rescan(sockets),
                _ = abandoned.tick() => self.cancel_abandoned(),
                _ = clock.tick() => self.check_clock(),
                _ = resolving.tick(), if self.unicast.waiting() => self.poll_resolving(),
                Some(incoming) = requests.recv() => self.on_request(incoming),
            }
            self.flush(sockets).await;
        }
    }

    /// When the device or a renewal needs the loop next, on the runtime's clock.
    fn next_timer(&self) -> Option<tokio::time::Instant> {
        let due = match (self.device.poll_timeout(), self.claims.next_renewal()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        due.map(|t| self.start + Duration::from_micros(t.as_micros()))
    }

    /// Notes the kernel's drops (asking it when `ask`), and tells held claims' watchers of new
    /// ones (docs/uiap-design.md D70).
    fn note_overflows(&mut self, sockets: &Sockets, ask: bool) {
        if self.link.note_overflows(sockets, self.start.elapsed(), ask) {
            let ctx = claim_ctx(&mut self.device, self.start, &self.interfaces, &self.link);
            self.claims.tell_suppressed(&ctx);
        }
    }

    fn on_timer(&mut self, sockets: &Sockets) {
        // What the kernel dropped is asked before the device's timers can end a claim round: a
        // claim must not succeed on the silence of a full receive queue, and after the daemon
        // was stopped its timers fire before it reads the datagrams that report the drops.
        self.note_overflows(sockets, true);
        let mut ctx = claim_ctx(&mut self.device, self.start, &self.interfaces, &self.link);
        ctx.device.handle_timeout(ctx.now);
        self.claims.renew_due(&mut ctx);
    }

    fn rescan(&mut self, sockets: &mut Sockets) {
        let scan = self
            .interfaces
            .rescan(&self.config.ifaces, sockets, &mut self.device);
        if let Scan::Participating { joined: true } = scan {
            // Its neighbours' clocks were not heard before (docs/uiap-design.md D72).
            self.link.joined(self.start.elapsed());
        }
        let mut ctx = claim_ctx(&mut self.device, self.start, &self.interfaces, &self.link);
        match scan {
            Scan::AllLeft => self.claims.network_lost(&mut ctx),
            Scan::Participating { joined } => {
                self.claims.network_back(&mut ctx);
                if joined {
                    self.claims.announce_held(&mut ctx, "an interface joined");
                }
            }
            Scan::Quiet => {}
        }
    }

    /// A step of this host's wall clock is logged; with a key, the held claims that are renewed
    /// are announced at once (their datagrams, stale at the neighbours the step left behind,
    /// split the site there) and every held claim's watchers are told (docs/uiap-design.md D76).
    fn check_clock(&mut self) {
        let Some(step) = self.link.check_clock(self.start.elapsed()) else {
            return;
        };
        if !self.link.keyed() {
            // Without a key nothing on the wire carries the time.
            info!(step_ms = step.step_ms, "{step}");
            return;
        }
        warn!(step_ms = step.step_ms, "{}", step.as_split());
        let mut ctx = claim_ctx(&mut self.device, self.start, &self.interfaces, &self.link);
        self.claims
            .announce_held(&mut ctx, "this host's wall clock stepped");
        self.claims.tell_suppressed(&ctx);
    }

    fn cancel_abandoned(&mut self) {
        let mut ctx = claim_ctx(&mut self.device, self.start, &self.interfaces, &self.link);
        self.claims.cancel_abandoned(&mut ctx);
    }

    /// A received datagram (or a receive error): through the link's checks to the device.
    fn on_datagram(&mut self, r: std::io::Result<Received>, buf: &[u8]) {
        let elapsed = self.start.elapsed();
        if let Some((peer, bytes)) = self.link.admit(r, buf, self.interfaces.known(), elapsed) {
            self.device
                .handle_datagram(now_since(self.start), peer, bytes);
        } else {
            let ctx = claim_ctx(&mut self.device, self.start, &self.interfaces, &self.link);
            self.claims.tell_suppressed(&ctx);
        }
    }

    /// One control request, to the part that answers it.
    fn on_request(&mut self, incoming: Incoming) {
        // Without credentials (not a Unix peer) nobody is trusted as root.
        let uid = incoming.uid.unwrap_or(u32::MAX);
        let reply = incoming.reply;
        let answer = match incoming.request {
            Request::Claim(request) => {
                let mut ctx = claim_ctx(&mut self.device, self.start, &self.interfaces, &self.link);
                return self.claims.claim(&mut ctx, request, uid, reply);
            }
            Request::Watch {
                id,
                release_on_close,
            } => {
                let now = now_since(self.start);
                return self.claims.watch(now, id, release_on_close, uid, reply);
            }
            Request::Release { id } => {
                let mut ctx = claim_ctx(&mut self.device, self.start, &self.interfaces, &self.link);
                self.claims.release(&mut ctx, id, uid)
            }
            Request::List => self.claims.list(now_since(self.start)),
            Request::Status => Response::Status(Box::new(self.status())),
            Request::Proxies { flush } => self.proxies(flush, uid),
        };
        let _ = reply.try_send(answer);
    }

    /// One event of the device, to the claim table; whether the persisted claims changed.
    fn on_event(&mut self, event: Event) -> bool {
        if let Event::LossReported {
            message,
            lost,
            window,
        } = event
        {
            let notice = Notice {
                at: self.start.elapsed(),
                origin: message.origin,
                lost: u64::from(lost),
                window,
            };
            self.link.record_reported(notice);
            let ctx = claim_ctx(&mut self.device, self.start, &self.interfaces, &self.link);
            self.claims.reported_loss(&ctx, &notice);
            return false;
        }
        let mut ctx = claim_ctx(&mut self.device, self.start, &self.interfaces, &self.link);
        let claims = &mut self.claims;
        match event {
            Event::ClaimSucceeded { claim, expires } => claims.succeeded(&mut ctx, claim, expires),
            Event::ClaimRenewed { claim, expires } => claims.renewed(&mut ctx, claim, expires),
            Event::ClaimDenied { claim, reason } => claims.denied(&mut ctx, claim, &reason),
            Event::ClaimExpired { claim } => claims.expired(&mut ctx, claim),
            Event::LateConflict { claim, message } => {
                claims.late_conflict(&mut ctx, claim, message);
                false
            }
            Event::DeviceIdCollision {
                sequence,
                new_device_id,
            } => {
                device_id_collision(&self.store, sequence, new_device_id);
                false
            }
            // The enum is non-exhaustive: an event added later changes nothing persisted.
            other => {
                debug!(event = ?other, "event");
                false
            }
        }
    }

    /// Whether the kernel has resolved `peer`, reading its table again if the last reading is
    /// old (true while the table cannot be read).
    fn resolved(&mut self, peer: uiap::device::Peer) -> bool {
        let (index, addr) = (peer.interface.0, peer.addr);
        if !self.neighbours.resolved(index, addr) {
            self.refresh_neighbours();
        }
        self.neighbours.resolved(index, addr)
    }

    fn refresh_neighbours(&mut self) {
        match self.neighbours.refresh(self.start.elapsed()) {
            Err(e) if !self.neighbours_warned => {
                self.neighbours_warned = true;
                warn!(error = %e, "cannot read the kernel's neighbour table: Denies are sent without waiting for their neighbours to resolve");
            }
            Err(e) => debug!(error = %e, "cannot read the kernel's neighbour table"),
            Ok(()) => {}
        }
    }

    /// The Denies of neighbours that resolved since the last look become ready to send; those
    /// of neighbours that did not in time are dropped (D79).
    fn poll_resolving(&mut self) {
        self.refresh_neighbours();
        let neighbours = &self.neighbours;
        self.unicast.poll(self.start.elapsed(), |p| {
            neighbours.resolved(p.interface.0, p.addr)
        });
    }

    /// Sends everything the device wants sent and handles its events.
    async fn flush(&mut self, sockets: &Sockets) {
        self.send(sockets).await;
        // A Deny not sent leaves a claim elsewhere unanswered: one of this device's held claims
        // may be granted there, so their watchers are told as of drops (D79).
        if self
            .link
            .note_unsent(self.unicast.unsent(), self.start.elapsed())
        {
            let ctx = claim_ctx(&mut self.device, self.start, &self.interfaces, &self.link);
            self.claims.tell_suppressed(&ctx);
        }
        // A claim whose client left since the last check must not be reported held or persisted.
        self.cancel_abandoned();
        // The drops reported with the datagrams read are free, so noted after every step. The
        // kernel is asked as well every OVERFLOWS_ASKED_EVERY: a relay with no claim of its own
        // has no timer that would, and datagrams read report a drop only after the queue that
        // was full has drained.
        let ask = self
            .start
            .elapsed()
            .saturating_sub(self.link.overflows_asked())
            >= OVERFLOWS_ASKED_EVERY;
        self.note_overflows(sockets, ask);
        // Every possible loss is told to the site, so that no claim beyond this device succeeds
        // on its silence (D80).
        if let Some((lost, since)) = self.link.take_unreported() {
            let since = Instant::from_micros(since.as_micros() as u64);
            self.device.report_loss(now_since(self.start), lost, since);
            self.send(sockets).await;
        }
        let mut changed = false;
        while let Some(event) = self.device.poll_event() {
            changed |= self.on_event(event);
        }
        if changed {
            self.claims.persist();
        }
    }

    /// Sends everything the device wants sent: multicasts at once, Denies through the gate.
    async fn send(&mut self, sockets: &Sockets) {
        while let Some(t) = self.device.poll_transmit() {
            let payload = self.link.seal(t.payload);
            match t.destination {
                Destination::Multicast(InterfaceId(i)) => {
                    if let Err(e) = sockets.send_multicast(i, &payload).await {
                        debug!(error = %e, interface = i, "send failed");
                        self.link.send_failed();
                    }
                }
                // Through the gate: a Deny to a neighbour the kernel has not resolved must not
                // wait in the kernel behind others that never will (D79).
                Destination::Unicast(peer) => {
                    let resolved = self.resolved(peer);
                    self.unicast
                        .offer(self.start.elapsed(), peer, payload, resolved);
                }
            }
        }
        while let Some((peer, payload)) = self.unicast.next_ready() {
            if let Err(e) = sockets
                .send_unicast(peer.interface.0, peer.addr, &payload)
                .await
            {
                debug!(error = %e, ?peer, "send failed");
                self.link.send_failed();
            }
        }
    }
}

/// The device saw its ID in use elsewhere; a new ID it took is persisted.
fn device_id_collision(store: &Store, sequence: u32, new_device_id: Option<DeviceId>) {
    // Without a new ID (at most one a minute) it is only counted: forged collisions must not
    // flood the log.
    if new_device_id.is_some() {
        warn!(sequence, new = ?new_device_id, "device ID collision");
    } else {
        debug!(sequence, "device ID collision");
    }
    if let Some(Err(e)) = new_device_id.map(|id| store.set_device_id(id.get())) {
        warn!(error = %e, "cannot persist the new device ID");
    }
}
