//! Renewing an etcd lease so that a renewal counts only once the leader that granted it is
//! known to have still led afterwards (docs/distributed-generation.md, "etcd: a leader that was
//! paused").

use std::sync::Arc;
use std::time::Duration;

use etcd_client::{Client, Compare, CompareOp, PutOptions, Txn, TxnOp};
use tokio::sync::watch;
use uuidkit::node::{NodeLost, NodeLostKind};

use super::EtcdConfig;
use super::lease::{connect_to, within};
use crate::{LeaseSlot, Testing};

/// The keep-alive task: renews the lease every third of its TTL until stopped, or until etcd
/// says the lease is gone or the node key no longer carries it.
pub(super) struct Keeper {
    pub(super) slot: Arc<LeaseSlot>,
    /// The client over every endpoint (the client picks the member of each request).
    pub(super) client: Client,
    /// The members renewals go to, one at a time.
    pub(super) members: Members,
    pub(super) lease: i64,
    pub(super) key: String,
    /// The node key's value: this holder's name.
    pub(super) holder: String,
    pub(super) high_water_key: String,
    /// The TTL etcd granted: what each keep-alive renews the lease for.
    pub(super) ttl: Duration,
    pub(super) every: Duration,
    pub(super) limit: Duration,
    pub(super) testing: Testing,
    /// The highest high-water millisecond written.
    pub(super) high_water: u64,
}

/// The member a renewal goes to. Its keep-alives and its confirming transaction go to one
/// member, and an unconfirmed renewal moves on to the next: the balanced client could send the
/// keep-alive to a member that still leads and the transaction to a stale leader cut off from its
/// peers (which cannot commit it) again and again, so the lease would be kept alive in etcd while
/// no renewal is ever confirmed, and its node would be held by nobody until the holder stopped.
pub(super) struct Members {
    config: EtcdConfig,
    /// A client per endpoint, connected when first used.
    clients: Vec<Option<Client>>,
    at: usize,
}

impl Members {
    /// The endpoints of `config`; with one, `only` (the lease's client) is its client.
    pub(super) fn new(config: &EtcdConfig, only: &Client) -> Members {
        let mut clients = vec![None; config.endpoints.len()];
        if clients.len() == 1 {
            clients[0] = Some(only.clone());
        }
        Members {
            config: config.clone(),
            clients,
            at: 0,
        }
    }

    /// The client of the current member, connected if need be; `None` if it cannot be reached.
    async fn current(&mut self) -> Option<Client> {
        if self.clients[self.at].is_none() {
            let endpoint = [self.config.endpoints[self.at].clone()];
            self.clients[self.at] = connect_to(&self.config, &endpoint).await.ok();
        }
        self.clients[self.at].clone()
    }

    /// Moves on to the next member.
    fn next(&mut self) {
        self.at = (self.at + 1) % self.clients.len();
    }
}

impl std::fmt::Debug for Members {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Members")
            .field("endpoints", &self.config.endpoints)
            .field("at", &self.at)
            .finish()
    }
}

/// How soon an unconfirmed renewal is tried again.
const RETRY: Duration = Duration::from_millis(100);

/// Why a renewal moved nothing.
pub(super) enum Unconfirmed {
    /// The lease or its node is gone: the node is lost.
    Lost(NodeLost),
    /// No answer, an error, or no proof that the renewing member still led: the deadline passes
    /// unless a later renewal is confirmed.
    Unproven,
}

impl Keeper {
    pub(super) async fn run(mut self, mut stopped: watch::Receiver<bool>) {
        let mut ticks = tokio::time::interval(self.every);
        ticks.tick().await;
        loop {
            tokio::select! {
                _ = stopped.changed() => return,
                _ = ticks.tick() => {}
            }
            match self.confirm().await {
                Ok(sent) => {
                    self.slot.renew(sent, self.ttl);
                }
                Err(Unconfirmed::Lost(lost)) => {
                    // A release in progress gives the key back while a renewal may be in
                    // flight: its failed transaction is the release, not a conflict, and the
                    // node is already marked released.
                    if !*stopped.borrow() {
                        self.slot.lose(lost);
                    }
                    return;
                }
                // Tried again soon rather than a third of the TTL later: an election, or a
                // request sent to a member that is gone, costs one retry, not the deadline.
                Err(Unconfirmed::Unproven) => {
                    ticks.reset_after(RETRY);
                }
            }
        }
    }

    /// One renewal, proven: the send instant of the keep-alive it confirms. Unproven, the next
    /// renewal goes to the next member ([`Members`]).
    ///
    /// A keep-alive on a fresh stream (the member that served the last one may be gone), and a
    /// second one on that stream, whose answer carries the raft term of the member that renewed
    /// (the client reads the first answer itself). Then a transaction, *if the node key still
    /// carries this lease, write the high-water millisecond of the deadline this renewal will
    /// publish*; the renewal is confirmed only if that transaction was committed in the same
    /// term. A stale leader answers keep-alives in its old term but cannot commit; any member
    /// of the new majority answers in a later term.
    pub(super) async fn confirm(&mut self) -> Result<Duration, Unconfirmed> {
        let confirmed = self.confirm_through_member().await;
        if matches!(confirmed, Err(Unconfirmed::Unproven)) {
            self.members.next();
        }
        confirmed
    }

    async fn confirm_through_member(&mut self) -> Result<Duration, Unconfirmed> {
        let Some(mut client) = self.members.current().await else {
            return Err(Unconfirmed::Unproven);
        };
        let sent = self.slot.now();
        let opened = tokio::time::timeout(self.limit, client.lease_keep_alive(self.lease)).await;
        let (mut keeper, mut stream) = match opened {
            Ok(Ok(pair)) => pair,
            // A lease etcd no longer has (expired, or revoked by an operator): etcd answers its
            // keep-alive with a TTL of 0, which the client, reading that first answer before it
            // hands out the stream, turns into this error; the node key went with the lease.
            Ok(Err(etcd_client::Error::LeaseKeepAliveError(e))) if e == "lease not found" => {
                return Err(Unconfirmed::Lost(gone()));
            }
            _ => return Err(Unconfirmed::Unproven),
        };
        let second = async {
            keeper.keep_alive().await?;
            stream.message().await
        };
        let term = match tokio::time::timeout(self.limit, second).await {
            Ok(Ok(Some(answer))) if answer.ttl() > 0 => answer.header().map(|h| h.raft_term()),
            Ok(Ok(Some(_))) => return Err(Unconfirmed::Lost(gone())),
            _ => return Err(Unconfirmed::Unproven),
        };
        if self.testing.no_leader_check {
            return Ok(sent);
        }
        let high_water = (!self.testing.no_high_water).then(|| {
            self.high_water
                .max(self.slot.high_water_until(sent, self.ttl))
        });
        // The transaction must write: etcd serves one that only compares as a read, from the
        // member's own store, without raft, so it proves nothing of the leader and may not even
        // see the claim that made the key. Without a high-water to write (a test-only switch)
        // the node key is written again, unchanged.
        let write = match high_water {
            Some(hw) => raise(&self.high_water_key, hw),
            None => TxnOp::put(
                self.key.clone(),
                self.holder.clone(),
                Some(PutOptions::new().with_lease(self.lease)),
            ),
        };
        let txn = Txn::new()
            .when([Compare::lease(
                self.key.clone(),
                CompareOp::Equal,
                self.lease,
            )])
            .and_then([write]);
        let Ok(done) = within(self.limit, "confirm a renewal", client.txn(txn)).await else {
            return Err(Unconfirmed::Unproven);
        };
        if !done.succeeded() {
            return Err(Unconfirmed::Lost(
                NodeLost::new(NodeLostKind::Conflict)
                    .with_detail("the etcd node key no longer carries this lease"),
            ));
        }
        if let Some(hw) = high_water {
            self.high_water = hw;
        }
        let same_term = term.is_some() && done.header().map(|h| h.raft_term()) == term;
        if same_term {
            Ok(sent)
        } else {
            Err(Unconfirmed::Unproven)
        }
    }

    /// Waits until this host's clock is past the node's last high-water millisecond,
    /// `high_water`, keeping the lease alive meanwhile (nothing is published yet, so an
    /// unconfirmed keep-alive is enough here).
    pub(super) async fn wait_above(&mut self, high_water: u64) {
        loop {
            let wait = crate::high_water::wait_for(high_water, self.slot.wall_ms());
            if wait.is_zero() {
                return;
            }
            tokio::time::sleep(wait.min(self.every)).await;
            if wait > self.every {
                let _ = within(
                    self.limit,
                    "keep the lease alive",
                    self.client.lease_keep_alive(self.lease),
                )
                .await;
            }
        }
    }
}

/// The high-water millisecond as stored: fixed-width decimal, so that etcd's byte-wise value
/// comparison orders values as numbers.
pub(super) fn stored(ms: u64) -> String {
    format!("{ms:020}")
}

/// A write that raises the high-water key to `ms`, and never lowers it: a renewal's transaction
/// may be applied late — sent to a leader whose disk stalled, given up on, committed after later
/// renewals through the new leader — and would otherwise put back an older, lower value, so the
/// next holder would start inside this one's last published deadline. A nested transaction:
/// written if the stored value is lower, if it is not in the fixed-width form, or if there is
/// none. It contains writes either way, so etcd commits the whole transaction through raft (what
/// confirms the renewal).
///
/// A value not in the fixed-width form — plain decimal, as earlier releases wrote it, or junk —
/// compares byte-wise above or below every fixed-width value whatever its number, so it would
/// either never be raised (plain decimal starts with a digit above `0`) or stay junk. It is
/// replaced: this holder's claim read it as a number and waited until its clock was past it, so
/// any deadline this holder publishes is above it.
fn raise(key: &str, ms: u64) -> TxnOp {
    let value = stored(ms);
    let put = || TxnOp::put(key, value.clone(), None);
    let absent = Txn::new()
        .when([Compare::create_revision(key, CompareOp::Equal, 0)])
        .and_then([put()]);
    let below_form = Txn::new()
        .when([Compare::value(key, CompareOp::Less, stored(0))])
        .and_then([put()])
        .or_else([TxnOp::txn(absent)]);
    let above_form = Txn::new()
        .when([Compare::value(key, CompareOp::Greater, ABOVE_FORM)])
        .and_then([put()])
        .or_else([TxnOp::txn(below_form)]);
    TxnOp::txn(
        Txn::new()
            .when([Compare::value(key, CompareOp::Less, value.clone())])
            .and_then([put()])
            .or_else([TxnOp::txn(above_form)]),
    )
}

/// Byte-wise above every fixed-width value (a `0`, then a byte above any digit), and below every
/// value whose first byte is above `0`.
const ABOVE_FORM: &str = "0~";

/// The loss of a lease etcd no longer has.
fn gone() -> NodeLost {
    NodeLost::new(NodeLostKind::RenewalFailed)
        .with_detail("etcd says the lease is not found (expired or revoked)")
}
