//! Node IDs leased from ZooKeeper: an ephemeral znode `PREFIX/NODE` of a session whose
//! negotiated timeout is the lease's TTL, created only if it does not exist.
//!
//! [`ZkLease::acquire`] opens a session, draws a random node ID of the requested width and
//! creates its node, ephemeral, with create-if-absent: a node that exists is taken, and another
//! is tried after a back-off, a bounded number of times (once at least half of a small space is
//! taken, the next node is drawn among the free ones). Every third of the session timeout a
//! renewal *writes*: one multi-operation that sets the node's data at the version this holder
//! last wrote and sets `PREFIX/hw/NODE` to the holder's high-water millisecond. Each confirmed
//! write moves the [`LeaseSlot`]'s deadline to the send instant of the *previous* confirmed
//! write plus the negotiated session timeout, less a margin: a follower tells the leader of a
//! session's activity only in its next ping answer, so the leader may know of the previous write
//! alone (docs/distributed-generation.md, "ZooKeeper: a write, not a ping, renews").
//!
//! Pings and reads prove nothing: the member the client is connected to answers them alone,
//! and a member cut off from the leader goes on answering while the leader expires the session.
//! A write is answered only once the leader's quorum committed it, and the leader refuses a
//! write of a session it has expired. A write that fails or is not answered moves nothing; a
//! version that does not match, a node that is gone or an expired session mark the node lost.
//! A new holder of the node starts only once its clock is past the high-water its last holder
//! wrote ("Consecutive tenures across clocks").
//!
//! The node's data is the holder's description ([`ZkConfig::holder`]), for operators. One
//! prefix holds nodes of one width: holders of different widths must use different prefixes.
//! The client runs on a tokio runtime that this lease starts (one worker thread) and stops when
//! it is dropped; the calls of this module block. Do not call them from inside an async runtime.
//!
//! # Example
//!
//! ```no_run
//! use uuidkit::{clock::SystemClock, rng::ThreadRng, Generator, V8Distributed};
//! use uuidkit_lease::Lease;
//! use uuidkit_lease::zookeeper::{ZkConfig, ZkLease};
//!
//! let config = ZkConfig::new(vec!["10.0.0.1:2181".into(), "10.0.0.2:2181".into()], "/uuidkit/v8-16", 16);
//! let lease = ZkLease::acquire(&config, &mut ThreadRng)?;
//! let mut g = V8Distributed::builder().node_source(lease.slot().clone()).build(SystemClock, ThreadRng)?;
//! let id = g.generate()?; // an error of kind NodeLost once the lease is gone or its deadline passed
//! # let _ = id;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use rand_core::Rng;
use tokio::runtime::Runtime;
use tokio::sync::watch;
use uuidkit::node::{NodeId, NodeLost, NodeLostKind};
use zookeeper_client::{Acls, Client, CreateMode, Error as ZkError};

use crate::high_water::wait_for;
use crate::{BootTime, LeaseError, LeaseErrorKind, LeaseSlot, Testing, check_bits};

crate::registry::timed_config!(
    ZkConfig,
    "zookeeper::ZkConfig",
    "ZkConfig::new(vec![], \"/n\", 12)"
);

/// How a [`ZkLease`] claims its node ID.
///
/// ```
/// use std::time::Duration;
/// use uuidkit_lease::zookeeper::ZkConfig;
///
/// let c = ZkConfig::new(vec!["127.0.0.1:2181".into()], "/uuidkit/nodes", 16);
/// assert_eq!((c.timing.ttl, c.timing.margin, c.timing.attempts), (Duration::from_secs(10), Duration::from_millis(500), 16));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ZkConfig {
    /// The ensemble's members (`host:port`), any number: the client connects to one and moves
    /// to another when it fails.
    pub hosts: Vec<String>,
    /// The node path prefix: a node's path is `PREFIX/NODE`, NODE in lower-case hexadecimal, as
    /// many digits as the width needs. Starts with `/`, does not end with one.
    pub prefix: String,
    /// The node ID's width, 1 to 48 (48: the v1/v6 node field, drawn with the multicast bit set).
    pub bits: u8,
    /// The lease's lifetime and retry settings ([`Timing::default`](crate::Timing::default): a
    /// TTL of 10 s, 500 ms of margin, 16 attempts). The TTL is the session timeout asked for:
    /// the ensemble may negotiate another (between 2 and 20 of its ticks), and the lease's TTL
    /// is the one negotiated. A request not answered within the answer limit, connecting
    /// included, counts as failed.
    pub timing: crate::Timing,
    /// What the node holds: who holds it, for operators.
    pub holder: String,
    /// The longest a claim waits for this host's clock to pass a node's high-water millisecond
    /// (`PREFIX/hw/NODE`, written by its last holder) before it tries another node (the TTL).
    pub high_water_wait: Duration,
    /// Test-only switches ([`Testing`](crate::Testing)).
    #[doc(hidden)]
    pub testing: Testing,
}

impl ZkConfig {
    /// The defaults for node IDs `bits` wide under `prefix`, from the ensemble at `hosts`.
    ///
    /// ```
    /// use uuidkit_lease::zookeeper::ZkConfig;
    ///
    /// let c = ZkConfig::new(vec!["a:2181".into(), "b:2181".into()], "/n", 12);
    /// assert_eq!((c.hosts.len(), c.prefix.as_str(), c.bits), (2, "/n", 12));
    /// assert!(c.holder.starts_with("uuidkit pid "));
    /// ```
    pub fn new(hosts: Vec<String>, prefix: impl Into<String>, bits: u8) -> ZkConfig {
        ZkConfig {
            hosts,
            prefix: prefix.into(),
            bits,
            timing: crate::Timing::default(),
            holder: format!("uuidkit pid {}", std::process::id()),
            high_water_wait: crate::Timing::default().ttl,
            testing: Testing::default(),
        }
    }

    /// The path of node `value`: the same names as the etcd lease's keys.
    ///
    /// ```
    /// use uuidkit_lease::zookeeper::ZkConfig;
    ///
    /// assert_eq!(ZkConfig::new(vec![], "/uuidkit/v8", 12).path(0x2a), "/uuidkit/v8/02a");
    /// ```
    pub fn path(&self, value: u64) -> String {
        format!(
            "{}/{}",
            self.prefix,
            crate::node::node_name(self.bits, value)
        )
    }

    /// The path of node `value`'s high-water millisecond, `PREFIX/hw/NODE`: a persistent node,
    /// kept after the node is given back, for the next holder to start above.
    ///
    /// ```
    /// use uuidkit_lease::zookeeper::ZkConfig;
    ///
    /// assert_eq!(ZkConfig::new(vec![], "/p", 8).high_water_path(0x2a), "/p/hw/2a");
    /// ```
    pub fn high_water_path(&self, value: u64) -> String {
        format!(
            "{}/hw/{}",
            self.prefix,
            crate::node::node_name(self.bits, value)
        )
    }

    /// The node a child of the prefix names, if it is a node of this width (as
    /// [`path`](Self::path) writes it); `hw`, another width's names and junk name none.
    ///
    /// ```
    /// use uuidkit_lease::zookeeper::ZkConfig;
    ///
    /// let c = ZkConfig::new(vec![], "/p", 4);
    /// assert_eq!((c.node_of("a"), c.node_of("0a"), c.node_of("hw"), c.node_of("A")), (Some(10), None, None, None));
    /// ```
    pub fn node_of(&self, child: &str) -> Option<u64> {
        crate::node::node_of_name(self.bits, child)
    }
}

/// A node ID held as an ephemeral znode of this lease's session, and the slot generators read
/// it from (the [module docs](self)). Dropping it marks the node lost, deletes the node and
/// stops the session's runtime (the session, holding nothing, expires at the ensemble).
///
/// ```no_run
/// use uuidkit_lease::Lease;
/// use uuidkit_lease::zookeeper::{ZkConfig, ZkLease};
///
/// let config = ZkConfig::new(vec!["127.0.0.1:2181".into()], "/uuidkit/n12", 12);
/// let lease = ZkLease::acquire(&config, &mut uuidkit::rng::ThreadRng)?;
/// assert_eq!(lease.path(), config.path(lease.node().value()));
/// # Ok::<(), uuidkit_lease::LeaseError>(())
/// ```
pub struct ZkLease {
    slot: Arc<LeaseSlot>,
    node: NodeId,
    path: String,
    timeout: Duration,
    keeper: Arc<tokio::sync::Mutex<Keeper>>,
    stop: watch::Sender<bool>,
    // Declared last: the runtime, with the renewal task and the session, goes after the rest.
    runtime: Option<Runtime>,
}

impl ZkLease {
    /// Opens a session of `config.timing.ttl` (as the ensemble negotiates it), claims a free node
    /// under `config.prefix` (drawn with `rng`) and renews it until the returned value is dropped.
    ///
    /// # Errors
    ///
    /// * [`LeaseErrorKind::Config`]: an invalid width, prefix, host list or margin;
    /// * [`LeaseErrorKind::Unreachable`]: no member answered within `config.timing.answer_limit`;
    /// * [`LeaseErrorKind::Denied`]: every node tried was taken ("… N of M nodes under PREFIX
    ///   are taken");
    /// * [`LeaseErrorKind::Timeout`]: the claim's first renewal was not confirmed;
    /// * [`LeaseErrorKind::Registry`]: ZooKeeper answered with an error.
    ///
    /// ```
    /// use uuidkit_lease::LeaseErrorKind;
    /// use uuidkit_lease::zookeeper::{ZkConfig, ZkLease};
    ///
    /// let err = ZkLease::acquire(&ZkConfig::new(vec![], "/n", 12), &mut uuidkit::rng::ThreadRng).unwrap_err();
    /// assert_eq!(err.kind(), LeaseErrorKind::Config);
    /// let err = ZkLease::acquire(&ZkConfig::new(vec!["h:1".into()], "n/", 12), &mut uuidkit::rng::ThreadRng).unwrap_err();
    /// assert!(err.to_string().contains("prefix"), "{err}");
    /// ```
    pub fn acquire(config: &ZkConfig, rng: &mut impl Rng) -> Result<ZkLease, LeaseError> {
        check(config)?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("zookeeper-lease")
            .enable_all()
            .build()
            .map_err(|e| {
                LeaseError::new(
                    LeaseErrorKind::Config,
                    format!("cannot start the ZooKeeper lease's runtime: {e}"),
                )
            })?;
        let slot = Arc::new(LeaseSlot::new(config.bits, BootTime, config.timing.margin)?);
        slot.offset_wall(config.testing.wall_offset_ms);
        let client = runtime.block_on(connect(config))?;
        let timeout = client.session_timeout();
        // The deadline runs two thirds of the timeout past each confirmed write's send instant
        // (it counts from the write before), and the next write goes a third later.
        if timeout / 3 <= config.timing.margin {
            return Err(LeaseError::new(
                LeaseErrorKind::Config,
                format!(
                    "ZooKeeper negotiated a session timeout of {timeout:?}, not more than three \
                     times the lease margin ({:?}): ask for a longer TTL or a smaller margin",
                    config.timing.margin
                ),
            ));
        }
        let (value, high_water) = runtime.block_on(claim(&client, config, &slot, rng))?;
        let mut keeper = Keeper {
            slot: slot.clone(),
            client,
            path: config.path(value),
            high_water_path: config.high_water_path(value),
            holder: config.holder.clone(),
            version: 0,
            timeout,
            limit: config.timing.answer_limit,
            testing: config.testing,
            high_water: 0,
            last_confirmed: None,
        };
        // Nothing is published before this host's clock is past the last holder's high-water
        // and a renewal, with this holder's own high-water written, is confirmed.
        let confirmed = runtime.block_on(async {
            if !config.testing.no_high_water {
                let wait = wait_for(high_water, keeper.slot.wall_ms());
                tokio::time::sleep(wait).await;
            }
            // Two confirmed writes: the deadline counts from the first one's send instant.
            let mut last = Err(Unconfirmed::Unproven);
            for _ in 0..CONFIRM_TRIES + 1 {
                last = keeper.confirm().await;
                match last {
                    Ok(sent) => match keeper.last_confirmed.replace(sent) {
                        Some(previous) => return Ok(previous),
                        None => continue,
                    },
                    Err(Unconfirmed::Lost(_)) => break,
                    Err(Unconfirmed::Unproven) => tokio::time::sleep(RETRY).await,
                }
            }
            last
        });
        let sent = match confirmed {
            Ok(sent) => sent,
            Err(e) => {
                let why = match e {
                    Unconfirmed::Lost(lost) => lost.to_string(),
                    Unconfirmed::Unproven => format!("no write answered ({CONFIRM_TRIES} tries)"),
                };
                // Nothing was published: the node, unused, goes when the ensemble expires the
                // session, whose runtime stops here.
                return Err(LeaseError::new(
                    LeaseErrorKind::Timeout,
                    format!(
                        "ZooKeeper: cannot confirm the claim of {}: {why}",
                        config.path(value)
                    ),
                ));
            }
        };
        let node = slot.grant(value, sent, timeout)?;
        let keeper = Arc::new(tokio::sync::Mutex::new(keeper));
        let (stop, stopped) = watch::channel(false);
        runtime.spawn(Keeper::run(keeper.clone(), stopped));
        Ok(ZkLease {
            slot,
            node,
            path: config.path(value),
            timeout,
            keeper,
            stop,
            runtime: Some(runtime),
        })
    }

    /// The node's path, `PREFIX/NODE`.
    ///
    /// ```no_run
    /// # use uuidkit_lease::zookeeper::{ZkConfig, ZkLease};
    /// # let config = ZkConfig::new(vec!["127.0.0.1:2181".into()], "/n", 8);
    /// let lease = ZkLease::acquire(&config, &mut uuidkit::rng::ThreadRng)?;
    /// assert!(lease.path().starts_with("/n/"));
    /// # Ok::<(), uuidkit_lease::LeaseError>(())
    /// ```
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The session timeout the ensemble negotiated: the lease's TTL.
    ///
    /// ```no_run
    /// # use uuidkit_lease::zookeeper::{ZkConfig, ZkLease};
    /// # let config = ZkConfig::new(vec!["127.0.0.1:2181".into()], "/n", 8);
    /// let lease = ZkLease::acquire(&config, &mut uuidkit::rng::ThreadRng)?;
    /// assert!(lease.session_timeout() > config.timing.margin);
    /// # Ok::<(), uuidkit_lease::LeaseError>(())
    /// ```
    pub fn session_timeout(&self) -> Duration {
        self.timeout
    }

    fn finish(&mut self) -> Result<(), LeaseError> {
        let Some(runtime) = self.runtime.take() else {
            return Ok(());
        };
        self.slot.retire(
            NodeLost::new(NodeLostKind::Released).with_detail("the ZooKeeper lease was released"),
        );
        let _ = self.stop.send(true);
        let keeper = self.keeper.clone();
        let given_back = runtime.block_on(async move { keeper.lock().await.give_back().await });
        // The node is deleted; the session, with nothing left, expires at the ensemble once its
        // runtime has stopped.
        drop(runtime);
        given_back
    }
}

impl std::fmt::Debug for ZkLease {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ZkLease")
            .field("node", &self.node)
            .field("path", &self.path)
            .field("timeout", &self.timeout)
            .field("slot", &self.slot)
            .finish_non_exhaustive()
    }
}

impl crate::Registry for ZkConfig {
    fn acquire(
        &self,
        mut rng: &mut dyn Rng,
        _waiting: &mut dyn FnMut(&str),
    ) -> Result<Box<dyn crate::Lease>, LeaseError> {
        Ok(Box::new(ZkLease::acquire(self, &mut rng)?))
    }
}

impl crate::Lease for ZkLease {
    fn slot(&self) -> &Arc<LeaseSlot> {
        &self.slot
    }

    fn node(&self) -> NodeId {
        self.node
    }

    fn name(&self) -> &'static str {
        "ZooKeeper node"
    }

    fn release(mut self: Box<Self>) -> Result<(), LeaseError> {
        self.finish()
    }
}

impl Drop for ZkLease {
    fn drop(&mut self) {
        let _ = self.finish();
    }
}

/// How many times a claim's first renewal is tried before the claim is given up.
const CONFIRM_TRIES: u32 = 3;

/// How soon an unconfirmed renewal is tried again.
const RETRY: Duration = Duration::from_millis(100);

/// Why a renewal moved nothing.
enum Unconfirmed {
    /// The session or its node is gone, or the node was written by someone else: lost.
    Lost(NodeLost),
    /// No answer, or an error that says nothing of the node: the deadline passes unless a
    /// later renewal is confirmed.
    Unproven,
}

/// The renewal task's state: the session, the node, and the version this holder last wrote.
struct Keeper {
    slot: Arc<LeaseSlot>,
    client: Client,
    path: String,
    high_water_path: String,
    holder: String,
    /// The node's data version as this holder's last write left it.
    version: i32,
    /// The negotiated session timeout.
    timeout: Duration,
    limit: Duration,
    testing: Testing,
    /// The highest high-water millisecond written.
    high_water: u64,
    /// The send instant of the last confirmed write: the next confirmed write moves the
    /// deadline from it (docs/distributed-generation.md, "ZooKeeper: a write, not a ping,
    /// renews").
    last_confirmed: Option<Duration>,
}

impl Keeper {
    async fn run(this: Arc<tokio::sync::Mutex<Keeper>>, mut stopped: watch::Receiver<bool>) {
        let every = this.lock().await.timeout / 3;
        let mut ticks = tokio::time::interval(every);
        ticks.tick().await;
        loop {
            tokio::select! {
                _ = stopped.changed() => return,
                _ = ticks.tick() => {}
            }
            let mut keeper = this.lock().await;
            if *stopped.borrow() {
                return;
            }
            match keeper.confirm().await {
                Ok(sent) => {
                    if let Some(previous) = keeper.last_confirmed.replace(sent) {
                        keeper.slot.renew(previous, keeper.timeout);
                    }
                }
                Err(Unconfirmed::Lost(lost)) => {
                    keeper.slot.lose(lost);
                    return;
                }
                Err(Unconfirmed::Unproven) => ticks.reset_after(RETRY),
            }
        }
    }

    /// One renewal: a write through the leader's quorum, *set the node's data at the version
    /// last written, and the high-water millisecond of the deadline it will publish*. Confirmed,
    /// the instant it was sent.
    async fn confirm(&mut self) -> Result<Duration, Unconfirmed> {
        let sent = self.slot.now();
        let high_water = self
            .high_water
            .max(self.slot.high_water_until(sent, self.timeout));
        let mut multi = self.client.new_multi_writer();
        let queued = multi
            .add_set_data(&self.path, self.holder.as_bytes(), Some(self.version))
            .and_then(|()| {
                if self.testing.no_high_water {
                    return Ok(());
                }
                multi.add_set_data(
                    &self.high_water_path,
                    high_water.to_string().as_bytes(),
                    None,
                )
            });
        if queued.is_err() {
            return Err(Unconfirmed::Unproven);
        }
        let done = tokio::time::timeout(self.limit, multi.commit()).await;
        match done {
            Ok(Ok(results)) => {
                if let Some(zookeeper_client::MultiWriteResult::SetData { stat }) = results.first()
                {
                    self.version = stat.version;
                }
                if !self.testing.no_high_water {
                    self.high_water = high_water;
                }
                Ok(sent)
            }
            Ok(Err(e)) => match ZkError::from(e) {
                ZkError::BadVersion | ZkError::NoNode => Err(Unconfirmed::Lost(
                    NodeLost::new(NodeLostKind::Conflict)
                        .with_detail("the ZooKeeper node was deleted or written by another holder"),
                )),
                ZkError::SessionExpired | ZkError::SessionMoved | ZkError::ClientClosed => {
                    Err(Unconfirmed::Lost(
                        NodeLost::new(NodeLostKind::RenewalFailed).with_detail(
                            "the ZooKeeper session expired: its ephemeral node is gone",
                        ),
                    ))
                }
                _ => Err(Unconfirmed::Unproven),
            },
            Err(_) => Err(Unconfirmed::Unproven),
        }
    }

    /// Deletes the node (at the version last written) and records the millisecond this holder
    /// stopped at, in one write.
    async fn give_back(&mut self) -> Result<(), LeaseError> {
        let mut multi = self.client.new_multi_writer();
        let mut queued = multi.add_delete(&self.path, Some(self.version));
        if queued.is_ok() && !self.testing.no_high_water {
            let now = self.slot.high_water_now().to_string();
            queued = multi.add_set_data(&self.high_water_path, now.as_bytes(), None);
        }
        queued.map_err(|e| registry("give the node back", e))?;
        within(self.limit, "give the node back", async {
            multi.commit().await.map_err(ZkError::from)
        })
        .await
        .map(drop)
    }
}

/// Checks `config`.
fn check(config: &ZkConfig) -> Result<(), LeaseError> {
    let bad = |what: String| Err(LeaseError::new(LeaseErrorKind::Config, what));
    check_bits(config.bits)?;
    if config.hosts.is_empty() {
        return bad("ZooKeeper hosts: expected at least one host:port, found none".into());
    }
    if !config.prefix.starts_with('/') || config.prefix.ends_with('/') || config.prefix.len() < 2 {
        return bad(format!(
            "ZooKeeper prefix: expected a path starting with '/' and not ending in one, found {:?}",
            config.prefix
        ));
    }
    config.timing.check()
}

/// A session with the ensemble, whose timeout the ensemble negotiated from `config.timing.ttl`.
async fn connect(config: &ZkConfig) -> Result<Client, LeaseError> {
    let hosts = config.hosts.join(",");
    let connecting = Client::connector()
        .with_session_timeout(config.timing.ttl)
        .with_connection_timeout(config.timing.answer_limit)
        .connect(&hosts);
    within(config.timing.answer_limit, "connect", connecting)
        .await
        .map_err(|e| {
            LeaseError::new(
                LeaseErrorKind::Unreachable,
                format!("cannot reach ZooKeeper at {hosts}: {e}"),
            )
        })
}

/// Runs one request, bounded by `limit`; an error names `what`.
async fn within<T>(
    limit: Duration,
    what: &str,
    request: impl Future<Output = Result<T, ZkError>>,
) -> Result<T, LeaseError> {
    match tokio::time::timeout(limit, request).await {
        Ok(Ok(answer)) => Ok(answer),
        Ok(Err(e)) => Err(registry(what, e)),
        Err(_) => Err(LeaseError::new(
            LeaseErrorKind::Timeout,
            format!("ZooKeeper did not answer within {limit:?} to a request to {what}"),
        )),
    }
}

fn registry(what: &str, e: ZkError) -> LeaseError {
    let kind = match e {
        ZkError::NoAuth | ZkError::AuthFailed => LeaseErrorKind::Refused,
        ZkError::ConnectionLoss | ZkError::NoHosts => LeaseErrorKind::Unreachable,
        _ => LeaseErrorKind::Registry,
    };
    LeaseError::new(kind, format!("ZooKeeper: cannot {what}: {e}"))
}

/// Claims a free node: the value claimed and its high-water millisecond (0 if none was
/// recorded). A node whose high-water is further ahead of this host's clock than
/// `config.high_water_wait` is given back at once and set aside for another.
async fn claim(
    client: &Client,
    config: &ZkConfig,
    slot: &LeaseSlot,
    rng: &mut impl Rng,
) -> Result<(u64, u64), LeaseError> {
    let limit = config.timing.answer_limit;
    let persistent = CreateMode::Persistent.with_acls(Acls::anyone_all());
    let hw_dir = format!("{}/hw", config.prefix);
    within(
        limit,
        "create the prefix",
        client.mkdir(&hw_dir, &persistent),
    )
    .await?;
    let ephemeral = CreateMode::Ephemeral.with_acls(Acls::anyone_all());
    let attempts = config.timing.attempts.max(1);
    let place = format!("under ZooKeeper prefix {}", config.prefix);
    let (mut taken, mut ahead) = (Vec::new(), Vec::new());
    for n in 0..attempts {
        if n > 0 {
            tokio::time::sleep(config.timing.wait_before(n, rng)).await;
            taken = taken_nodes(client, config).await?;
            crate::high_water::set_aside(
                &mut taken,
                &ahead,
                config.bits,
                &place,
                n,
                config.high_water_wait,
            )?;
        }
        let value = crate::pick_node(config.bits, &taken, rng)?;
        let path = config.path(value);
        let created = client.create(&path, config.holder.as_bytes(), &ephemeral);
        match tokio::time::timeout(limit, created).await {
            Ok(Ok(_)) => {}
            Ok(Err(ZkError::NodeExists)) => continue,
            Ok(Err(e)) => return Err(registry("claim a node", e)),
            Err(_) => {
                return Err(LeaseError::new(
                    LeaseErrorKind::Timeout,
                    format!("ZooKeeper did not answer within {limit:?} to a claim of {path}"),
                ));
            }
        }
        let hw_path = config.high_water_path(value);
        let high_water = match tokio::time::timeout(limit, client.get_data(&hw_path)).await {
            Ok(Ok((data, _))) => std::str::from_utf8(&data)
                .ok()
                .and_then(|s| s.parse::<u64>().ok())
                .unwrap_or(0),
            Ok(Err(ZkError::NoNode)) => {
                let made = client.create(&hw_path, b"0", &persistent);
                match within(limit, "record a high-water", made).await {
                    Ok(_) => 0,
                    Err(e) if e.to_string().contains("exists") => 0,
                    Err(e) => return Err(e),
                }
            }
            Ok(Err(e)) => return Err(registry("read a high-water", e)),
            Err(_) => {
                return Err(LeaseError::new(
                    LeaseErrorKind::Timeout,
                    format!("ZooKeeper did not answer within {limit:?} to a read of {hw_path}"),
                ));
            }
        };
        let wait = wait_for(high_water, slot.wall_ms());
        if config.testing.no_high_water || wait <= config.high_water_wait {
            return Ok((value, high_water));
        }
        within(limit, "give a node back", client.delete(&path, Some(0))).await?;
        ahead.push((value, wait));
    }
    if let Some((node, by)) = ahead.first() {
        return Err(crate::high_water::ahead(
            &place,
            *node,
            *by,
            config.high_water_wait,
        ));
    }
    let taken = taken_nodes(client, config).await?;
    Err(crate::no_free_node(
        config.bits,
        &place,
        taken.len(),
        attempts,
    ))
}

/// The nodes held under the prefix, sorted.
async fn taken_nodes(client: &Client, config: &ZkConfig) -> Result<Vec<u64>, LeaseError> {
    let children = within(
        config.timing.answer_limit,
        "list the nodes taken",
        client.list_children(&config.prefix),
    )
    .await?;
    let mut taken: Vec<u64> = children.iter().filter_map(|c| config.node_of(c)).collect();
    taken.sort_unstable();
    Ok(taken)
}
