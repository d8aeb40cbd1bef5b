//! [`EtcdLease`]: grant, claim, keep alive and revoke (the [module docs](super)).

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use etcd_client::{
    Client, Compare, CompareOp, ConnectOptions, GetOptions, PutOptions, Txn, TxnOp, TxnOpResponse,
};
use rand_core::Rng;
use tokio::runtime::Runtime;
use tokio::sync::watch;
use uuidkit::node::{NodeId, NodeLost, NodeLostKind, NodeSource};

use super::EtcdConfig;
use super::keeper::{Keeper, Members, Unconfirmed};
use crate::high_water::wait_for;
use crate::{BootTime, LeaseError, LeaseErrorKind, LeaseSlot, Testing, check_bits};

/// A node ID held as an etcd key attached to a lease, and the slot generators read it from
/// (the [module docs](super)). Dropping it marks the node lost, stops the keep-alive and
/// revokes the lease, which deletes the key.
///
/// ```no_run
/// use uuidkit::node::NodeSource;
/// use uuidkit_lease::etcd::{EtcdConfig, EtcdLease};
/// # use rand_core::SeedableRng;
///
/// let config = EtcdConfig::new(vec!["127.0.0.1:2379".into()], "/uuidkit/n12", 12);
/// let lease = EtcdLease::acquire(&config, &mut rand_chacha::ChaCha20Rng::from_seed([1; 32]))?;
/// assert_eq!(lease.source().current()?, lease.node());
/// assert_eq!(lease.key(), config.key(lease.node().value()));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct EtcdLease {
    slot: Arc<LeaseSlot>,
    node: NodeId,
    key: String,
    high_water_key: String,
    testing: Testing,
    single: bool,
    lease: i64,
    client: Client,
    answer_limit: Duration,
    stop: watch::Sender<bool>,
    // Declared last: the runtime, with the keep-alive task, goes after the rest.
    runtime: Option<Runtime>,
}

impl EtcdLease {
    /// Grants a lease of `config.timing.ttl`, claims a free node under `config.prefix` with it
    /// (drawn with `rng`), and keeps the lease alive until the returned value is dropped.
    ///
    /// # Errors
    ///
    /// * [`LeaseErrorKind::Config`]: an invalid width, TTL, prefix or endpoint list;
    /// * [`LeaseErrorKind::Unreachable`]: no endpoint answers;
    /// * [`LeaseErrorKind::Denied`]: every node tried was taken ("… N of M nodes under PREFIX
    ///   are taken");
    /// * [`LeaseErrorKind::Timeout`]: a request was not answered within
    ///   `config.timing.answer_limit`;
    /// * [`LeaseErrorKind::Registry`]: etcd answered with an error.
    ///
    /// ```no_run
    /// use uuidkit_lease::LeaseErrorKind;
    /// use uuidkit_lease::etcd::{EtcdConfig, EtcdLease};
    /// # use rand_core::SeedableRng;
    ///
    /// let config = EtcdConfig::new(vec![], "/uuidkit/n", 12);
    /// let err = EtcdLease::acquire(&config, &mut rand_chacha::ChaCha20Rng::from_seed([1; 32])).unwrap_err();
    /// assert_eq!(err.kind(), LeaseErrorKind::Config);
    /// ```
    pub fn acquire(config: &EtcdConfig, rng: &mut impl Rng) -> Result<EtcdLease, LeaseError> {
        let ttl_secs = check(config)?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("etcd-lease")
            .enable_all()
            .build()
            .map_err(|e| {
                LeaseError::new(
                    LeaseErrorKind::Config,
                    format!("cannot start the etcd lease's runtime: {e}"),
                )
            })?;
        let slot = Arc::new(LeaseSlot::new(config.bits, BootTime, config.timing.margin)?);
        slot.offset_wall(config.testing.wall_offset_ms);
        let limit = config.timing.answer_limit;
        let mut client = runtime.block_on(connect(config))?;
        let granted = within(limit, "grant a lease", client.lease_grant(ttl_secs, None));
        let granted = runtime.block_on(granted).map_err(|e| match e.kind() {
            LeaseErrorKind::Unreachable => LeaseError::new(
                LeaseErrorKind::Unreachable,
                format!("cannot reach etcd at {}: {e}", config.endpoints.join(",")),
            ),
            _ => e,
        })?;
        let (lease, ttl) = (granted.id(), secs(granted.ttl()));
        let claimed = runtime.block_on(claim(&mut client, config, lease, &slot, rng));
        let (value, high_water) = match claimed {
            Ok(claimed) => claimed,
            Err(e) => {
                let _ = runtime.block_on(within(limit, "revoke", client.lease_revoke(lease)));
                return Err(e);
            }
        };
        let mut keeper = Keeper {
            slot: slot.clone(),
            client: client.clone(),
            members: Members::new(config, &client),
            lease,
            key: config.key(value),
            holder: config.holder.clone(),
            high_water_key: config.high_water_key(value),
            ttl,
            every: config.timing.ttl / 3,
            limit,
            testing: config.testing,
            high_water: 0,
        };
        // Nothing is published before the clock is past the last holder's high-water and a
        // renewal, with this holder's own high-water written, is confirmed.
        let confirmed = runtime.block_on(async {
            if !config.testing.no_high_water {
                keeper.wait_above(high_water).await;
            }
            let mut last = Unconfirmed::Unproven;
            for _ in 0..CONFIRM_TRIES {
                match keeper.confirm().await {
                    Ok(sent) => return Ok(sent),
                    Err(Unconfirmed::Lost(lost)) => return Err(Unconfirmed::Lost(lost)),
                    Err(e) => last = e,
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(last)
        });
        let sent = match confirmed {
            Ok(sent) => sent,
            Err(e) => {
                let _ = runtime.block_on(within(limit, "revoke", client.lease_revoke(lease)));
                let why = match e {
                    Unconfirmed::Lost(lost) => lost.to_string(),
                    Unconfirmed::Unproven => format!(
                        "no keep-alive was confirmed in the term it was answered in \
                         ({CONFIRM_TRIES} tries; a leader change, or a member cut off from \
                         its peers)"
                    ),
                };
                return Err(LeaseError::new(
                    LeaseErrorKind::Timeout,
                    format!(
                        "etcd: cannot confirm the claim of {}: {why}",
                        config.key(value)
                    ),
                ));
            }
        };
        let node = slot.grant(value, sent, ttl)?;
        let (stop, stopped) = watch::channel(false);
        runtime.spawn(keeper.run(stopped));
        Ok(EtcdLease {
            slot,
            node,
            key: config.key(value),
            high_water_key: config.high_water_key(value),
            testing: config.testing,
            single: config.endpoints.len() == 1,
            lease,
            client,
            answer_limit: limit,
            stop,
            runtime: Some(runtime),
        })
    }

    /// The node ID held (as the slot first gave it out).
    ///
    /// ```no_run
    /// # use uuidkit_lease::etcd::{EtcdConfig, EtcdLease};
    /// # let config = EtcdConfig::new(vec!["127.0.0.1:2379".into()], "/n48", 48);
    /// let lease = EtcdLease::acquire(&config, &mut uuidkit::rng::ThreadRng)?;
    /// assert_eq!(lease.node().as_bytes6().unwrap()[0] & 1, 1); // the multicast bit
    /// # Ok::<(), uuidkit_lease::LeaseError>(())
    /// ```
    pub fn node(&self) -> NodeId {
        self.node
    }

    /// The node's key, `PREFIX/NODE`.
    ///
    /// ```no_run
    /// # use uuidkit_lease::etcd::{EtcdConfig, EtcdLease};
    /// # let config = EtcdConfig::new(vec!["127.0.0.1:2379".into()], "/n", 8);
    /// let lease = EtcdLease::acquire(&config, &mut uuidkit::rng::ThreadRng)?;
    /// assert!(lease.key().starts_with("/n/"));
    /// # Ok::<(), uuidkit_lease::LeaseError>(())
    /// ```
    pub fn key(&self) -> &str {
        &self.key
    }

    /// What the holder should know about its configuration: with one endpoint, every member
    /// failure, pause or cut costs the node (the lease cannot go on through another member), so
    /// the CLI prints this as a warning.
    ///
    /// ```no_run
    /// # use uuidkit_lease::etcd::{EtcdConfig, EtcdLease};
    /// # let config = EtcdConfig::new(vec!["127.0.0.1:2379".into()], "/n", 8);
    /// let lease = EtcdLease::acquire(&config, &mut uuidkit::rng::ThreadRng)?;
    /// assert!(lease.note().unwrap().contains("one endpoint"));
    /// # Ok::<(), uuidkit_lease::LeaseError>(())
    /// ```
    pub fn note(&self) -> Option<&'static str> {
        self.single.then_some(
            "one endpoint only: the node is lost whenever that member is down, paused or cut off \
             from its peers (name every member of the cluster)",
        )
    }

    /// The etcd lease's ID.
    ///
    /// ```no_run
    /// # use uuidkit_lease::etcd::{EtcdConfig, EtcdLease};
    /// # let config = EtcdConfig::new(vec!["127.0.0.1:2379".into()], "/n", 8);
    /// let lease = EtcdLease::acquire(&config, &mut uuidkit::rng::ThreadRng)?;
    /// assert_ne!(lease.lease_id(), 0);
    /// # Ok::<(), uuidkit_lease::LeaseError>(())
    /// ```
    pub fn lease_id(&self) -> i64 {
        self.lease
    }

    /// The slot generators read the node from.
    ///
    /// ```no_run
    /// # use uuidkit_lease::etcd::{EtcdConfig, EtcdLease};
    /// # use uuidkit::node::NodeSource;
    /// # let config = EtcdConfig::new(vec!["127.0.0.1:2379".into()], "/n", 8);
    /// let lease = EtcdLease::acquire(&config, &mut uuidkit::rng::ThreadRng)?;
    /// assert!(lease.slot().deadline().is_some());
    /// # Ok::<(), uuidkit_lease::LeaseError>(())
    /// ```
    pub fn slot(&self) -> &Arc<LeaseSlot> {
        &self.slot
    }

    /// The slot as a [`NodeSource`] for a generator.
    ///
    /// ```no_run
    /// # use uuidkit_lease::etcd::{EtcdConfig, EtcdLease};
    /// # let config = EtcdConfig::new(vec!["127.0.0.1:2379".into()], "/n", 8);
    /// let lease = EtcdLease::acquire(&config, &mut uuidkit::rng::ThreadRng)?;
    /// assert_eq!(lease.source().bits(), 8);
    /// # Ok::<(), uuidkit_lease::LeaseError>(())
    /// ```
    pub fn source(&self) -> Arc<dyn NodeSource> {
        self.slot.clone()
    }

    /// Marks the node lost (generators stop), stops the keep-alive and revokes the lease (etcd
    /// deletes the node key).
    ///
    /// # Errors
    ///
    /// [`LeaseErrorKind::Timeout`] or [`LeaseErrorKind::Registry`] if the revocation failed;
    /// the node is marked lost either way, and etcd deletes the key when the TTL runs out.
    ///
    /// ```no_run
    /// # use uuidkit_lease::etcd::{EtcdConfig, EtcdLease};
    /// # use uuidkit::node::NodeSource;
    /// # let config = EtcdConfig::new(vec!["127.0.0.1:2379".into()], "/n", 8);
    /// let lease = EtcdLease::acquire(&config, &mut uuidkit::rng::ThreadRng)?;
    /// let source = lease.source();
    /// lease.release()?;
    /// assert!(source.current().is_err());
    /// # Ok::<(), uuidkit_lease::LeaseError>(())
    /// ```
    pub fn release(mut self) -> Result<(), LeaseError> {
        self.finish()
    }

    fn finish(&mut self) -> Result<(), LeaseError> {
        let Some(runtime) = self.runtime.take() else {
            return Ok(());
        };
        self.slot.retire(
            NodeLost::new(NodeLostKind::Released).with_detail("the etcd lease was released"),
        );
        let _ = self.stop.send(true);
        if !self.testing.no_high_water {
            // The millisecond this holder stopped at, for the next one to start above; the key
            // goes in the same transaction, while it still carries this lease.
            let txn = Txn::new()
                .when([Compare::lease(
                    self.key.clone(),
                    CompareOp::Equal,
                    self.lease,
                )])
                .and_then([
                    TxnOp::put(
                        self.high_water_key.clone(),
                        super::keeper::stored(self.slot.high_water_now()),
                        None,
                    ),
                    TxnOp::delete(self.key.clone(), None),
                ]);
            let _ = runtime.block_on(within(
                self.answer_limit,
                "give the node back",
                self.client.txn(txn),
            ));
        }
        let revoke = within(
            self.answer_limit,
            "revoke the lease",
            self.client.lease_revoke(self.lease),
        );
        let revoked = runtime.block_on(revoke).map(drop);
        runtime.shutdown_timeout(self.answer_limit);
        revoked
    }
}

impl std::fmt::Debug for EtcdLease {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EtcdLease")
            .field("node", &self.node)
            .field("key", &self.key)
            .field("lease", &self.lease)
            .field("slot", &self.slot)
            .finish_non_exhaustive()
    }
}

impl crate::Registry for EtcdConfig {
    fn acquire(
        &self,
        mut rng: &mut dyn Rng,
        _waiting: &mut dyn FnMut(&str),
    ) -> Result<Box<dyn crate::Lease>, LeaseError> {
        Ok(Box::new(EtcdLease::acquire(self, &mut rng)?))
    }
}

impl crate::Lease for EtcdLease {
    fn slot(&self) -> &Arc<LeaseSlot> {
        &self.slot
    }

    fn node(&self) -> NodeId {
        self.node
    }

    fn name(&self) -> &'static str {
        "etcd node"
    }

    fn warnings(&self) -> Vec<String> {
        self.note().into_iter().map(String::from).collect()
    }

    fn release(self: Box<Self>) -> Result<(), LeaseError> {
        EtcdLease::release(*self)
    }
}

impl Drop for EtcdLease {
    fn drop(&mut self) {
        let _ = self.finish();
    }
}

/// Checks `config`; returns the TTL in whole seconds.
fn check(config: &EtcdConfig) -> Result<i64, LeaseError> {
    let bad = |what: String| Err(LeaseError::new(LeaseErrorKind::Config, what));
    check_bits(config.bits)?;
    if config.endpoints.is_empty() {
        return bad("etcd endpoints: expected at least one host:port, found none".into());
    }
    if config.prefix.is_empty() || config.prefix.ends_with('/') {
        return bad(format!(
            "etcd prefix: expected a key prefix not ending in '/', found {:?}",
            config.prefix
        ));
    }
    if config.timing.ttl < Duration::from_secs(1) || config.timing.ttl.subsec_nanos() != 0 {
        return bad(format!(
            "etcd lease TTL: expected whole seconds, at least 1, found {:?}",
            config.timing.ttl
        ));
    }
    config.timing.check()?;
    i64::try_from(config.timing.ttl.as_secs()).or_else(|_| bad("etcd lease TTL: too long".into()))
}

/// etcd-client's form of the certificates: the members checked against the CA (and the domain,
/// if one is named), the client's identity shown if given.
#[cfg(feature = "etcd-tls")]
fn tls_options(tls: &crate::Tls) -> etcd_client::TlsOptions {
    use etcd_client::{Certificate, Identity, TlsOptions};
    let mut options = TlsOptions::new().ca_certificate(Certificate::from_pem(&tls.ca));
    if let Some((cert, key)) = &tls.identity {
        options = options.identity(Identity::from_pem(cert, key));
    }
    if let Some(domain) = &tls.domain {
        options = options.domain_name(domain.clone());
    }
    options
}

fn secs(ttl: i64) -> Duration {
    Duration::from_secs(u64::try_from(ttl).unwrap_or(0))
}

async fn connect(config: &EtcdConfig) -> Result<Client, LeaseError> {
    connect_to(config, &config.endpoints).await
}

/// A client of `endpoints` (all of `config`'s, or one of them), with `config`'s settings.
pub(super) async fn connect_to(
    config: &EtcdConfig,
    endpoints: &[String],
) -> Result<Client, LeaseError> {
    let mut options = ConnectOptions::new()
        .with_connect_timeout(config.timing.answer_limit)
        .with_timeout(config.timing.answer_limit)
        .with_keep_alive(config.timing.answer_limit, config.timing.answer_limit);
    #[cfg(feature = "etcd-tls")]
    if let Some(tls) = &config.tls {
        options = options.with_tls(tls_options(tls));
    }
    if let Some(user) = &config.user {
        // A token that expires (etcd's --auth-token-ttl) is fetched again by the client, so a
        // keep-alive after a quiet spell is not refused for it.
        options = options
            .with_user(user.name(), user.password())
            .with_auto_token_refresh(true);
    }
    within(
        config.timing.answer_limit,
        "connect",
        Client::connect(endpoints, Some(options)),
    )
    .await
    .map_err(|e| {
        if e.kind() == LeaseErrorKind::Refused {
            // Authentication refused: etcd's words, and who asked.
            let user = config.user.as_ref().map_or("", |u| u.name());
            LeaseError::new(e.kind(), format!("{e} (as etcd user {user:?})"))
        } else {
            LeaseError::new(
                LeaseErrorKind::Unreachable,
                format!("cannot reach etcd at {}: {e}", endpoints.join(",")),
            )
        }
    })
}

/// How many times a claim's first renewal is tried before the claim is given up.
const CONFIRM_TRIES: u32 = 3;

/// Runs one request, bounded by `limit`; an error names `what`.
pub(super) async fn within<T>(
    limit: Duration,
    what: &str,
    request: impl Future<Output = Result<T, etcd_client::Error>>,
) -> Result<T, LeaseError> {
    match tokio::time::timeout(limit, request).await {
        Ok(Ok(answer)) => Ok(answer),
        Ok(Err(e)) => Err(LeaseError::new(
            if unreachable(&e) {
                LeaseErrorKind::Unreachable
            } else if refused(&e) {
                LeaseErrorKind::Refused
            } else {
                LeaseErrorKind::Registry
            },
            format!("etcd: cannot {what}: {e}"),
        )),
        Err(_) => Err(LeaseError::new(
            LeaseErrorKind::Timeout,
            format!("etcd did not answer within {limit:?} to a request to {what}"),
        )),
    }
}

/// Whether `e` is etcd refusing the user: authentication required or failed, or no right on
/// the keys asked for.
fn refused(e: &etcd_client::Error) -> bool {
    match e {
        // gRPC's PERMISSION_DENIED and UNAUTHENTICATED; etcd also answers INVALID_ARGUMENT with
        // these words.
        etcd_client::Error::GRpcStatus(s) => {
            matches!(s.code() as i32, 7 | 16)
                || [
                    "user name is empty",
                    "authentication failed",
                    "permission denied",
                ]
                .iter()
                .any(|m| s.message().contains(m))
        }
        _ => false,
    }
}

/// Whether `e` says that no member could be reached (the client connects lazily: the first
/// request is the one that finds out).
fn unreachable(e: &etcd_client::Error) -> bool {
    match e {
        etcd_client::Error::TransportError(_) | etcd_client::Error::IoError(_) => true,
        // gRPC's UNAVAILABLE: no connection to any endpoint.
        etcd_client::Error::GRpcStatus(status) => status.code() as i32 == 14,
        _ => false,
    }
}

/// Claims a free node with `lease`: the value claimed, and its high-water millisecond (0 if
/// none was recorded). A node whose high-water is further ahead of this host's clock than
/// `config.high_water_wait` is given back at once and set aside for another.
async fn claim(
    client: &mut Client,
    config: &EtcdConfig,
    lease: i64,
    slot: &LeaseSlot,
    rng: &mut impl Rng,
) -> Result<(u64, u64), LeaseError> {
    let attempts = config.timing.attempts.max(1);
    let place = format!("under etcd prefix {}", config.prefix);
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
        let key = config.key(value);
        let txn = Txn::new()
            .when([Compare::create_revision(key.clone(), CompareOp::Equal, 0)])
            .and_then([
                TxnOp::put(
                    key.clone(),
                    config.holder.clone(),
                    Some(PutOptions::new().with_lease(lease)),
                ),
                TxnOp::get(config.high_water_key(value), None),
            ]);
        let answer = within(config.timing.answer_limit, "claim a node", client.txn(txn)).await?;
        if !answer.succeeded() {
            continue;
        }
        let high_water = answer
            .op_responses()
            .into_iter()
            .find_map(|op| match op {
                TxnOpResponse::Get(get) => get.kvs().first().map(|kv| kv.value().to_vec()),
                _ => None,
            })
            .and_then(|v| std::str::from_utf8(&v).ok()?.parse::<u64>().ok())
            .unwrap_or(0);
        let wait = wait_for(high_water, slot.wall_ms());
        if config.testing.no_high_water || wait <= config.high_water_wait {
            return Ok((value, high_water));
        }
        let back = Txn::new()
            .when([Compare::lease(key.clone(), CompareOp::Equal, lease)])
            .and_then([TxnOp::delete(key, None)]);
        within(
            config.timing.answer_limit,
            "give a node back",
            client.txn(back),
        )
        .await?;
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
async fn taken_nodes(client: &mut Client, config: &EtcdConfig) -> Result<Vec<u64>, LeaseError> {
    let dir = format!("{}/", config.prefix);
    let options = GetOptions::new().with_prefix().with_keys_only();
    let answer = within(
        config.timing.answer_limit,
        "list the nodes taken",
        client.get(dir, Some(options)),
    )
    .await?;
    let mut taken: Vec<u64> = answer
        .kvs()
        .iter()
        .filter_map(|kv| config.node_of(std::str::from_utf8(kv.key()).ok()?))
        .collect();
    taken.sort_unstable();
    Ok(taken)
}
