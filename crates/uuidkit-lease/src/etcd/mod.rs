//! Node IDs leased from etcd v3: a key `PREFIX/NODE` attached to an etcd lease with a TTL,
//! created by a transaction only if it does not exist, and kept alive from a runtime of the
//! lease's own.
//!
//! [`EtcdLease::acquire`] grants a lease, draws a random node ID of the requested width and
//! claims it with one transaction: *if* `create_revision(PREFIX/NODE) == 0` (nobody holds it)
//! *then* put it, attached to the lease. A taken node is retried with another, after a back-off,
//! a bounded number of times; once at least half of a small space is taken, the next node is
//! drawn among the free ones. A keep-alive every third of the TTL renews the lease; each
//! confirmed renewal moves the [`LeaseSlot`](crate::LeaseSlot)'s deadline to its send instant
//! plus the TTL etcd granted, less a margin, so a holder that is stopped or cut off stops using
//! the node before etcd can let the key expire and another holder create it
//! (docs/distributed-generation.md, "The lease deadline").
//!
//! A keep-alive's answer alone confirms nothing: a leader that was paused while the others
//! elected a new one renews locally when it resumes, as if it still led. So each keep-alive is
//! followed by a transaction that checks the node key still carries this lease and writes the
//! holder's high-water millisecond to `PREFIX/hw/NODE`; the renewal counts only if that
//! transaction was committed in the raft term the keep-alive was answered in, which proves
//! that the term's leader still had a majority after it renewed (docs/distributed-generation.md,
//! "etcd: a leader that was paused"). A new holder of the node starts only once its clock is
//! past that high-water ("Consecutive tenures across clocks").
//!
//! The node key's value is the holder's description ([`EtcdConfig::holder`]), for operators.
//! One prefix holds nodes of one width: holders of different widths must use different
//! prefixes. The etcd client runs on a tokio runtime that this lease starts (one worker
//! thread) and stops when it is dropped; it never leaks into the caller, and the calls of this
//! module block. Do not call them from inside an async runtime.
//!
//! # Example
//!
//! ```no_run
//! use uuidkit::{clock::SystemClock, rng::ThreadRng, Generator, V8Distributed};
//! use uuidkit_lease::etcd::{EtcdConfig, EtcdLease};
//!
//! let config = EtcdConfig::new(vec!["10.0.0.1:2379".into(), "10.0.0.2:2379".into()], "/uuidkit/v8-16", 16);
//! let lease = EtcdLease::acquire(&config, &mut ThreadRng)?;
//! let mut g = V8Distributed::builder().node_source(lease.source()).build(SystemClock, ThreadRng)?;
//! let id = g.generate()?; // an error of kind NodeLost once the lease is gone or its deadline passed
//! # let _ = id;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod keeper;
mod lease;

use std::time::Duration;

pub use lease::EtcdLease;

crate::registry::timed_config!(
    EtcdConfig,
    "etcd::EtcdConfig",
    "EtcdConfig::new(vec![], \"/n\", 12)"
);

/// How an [`EtcdLease`] claims its node ID.
///
/// ```
/// use std::time::Duration;
/// use uuidkit_lease::etcd::EtcdConfig;
///
/// let c = EtcdConfig::new(vec!["127.0.0.1:2379".into()], "/uuidkit/nodes", 48);
/// assert_eq!(c.timing.ttl, Duration::from_secs(10));
/// assert_eq!(c.timing.margin, Duration::from_millis(500));
/// assert_eq!(c.timing.attempts, 16);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EtcdConfig {
    /// The cluster's client endpoints (`host:port`, or `http://host:port`), any number: the
    /// client balances over them and goes on through the others when one fails.
    pub endpoints: Vec<String>,
    /// The key prefix; a node's key is `PREFIX/NODE`, NODE in lower-case hexadecimal, as many
    /// digits as the width needs. Must not be empty or end in `/`.
    pub prefix: String,
    /// The node ID's width, 1 to 48 (48: the v1/v6 node field, drawn with the multicast bit set).
    pub bits: u8,
    /// The lease's lifetime and retry settings ([`Timing::default`](crate::Timing::default): a
    /// TTL of 10 s, 500 ms of margin, 16 attempts). etcd counts the TTL in whole seconds, at
    /// least 1 s; a request not answered within the answer limit, connecting included, counts
    /// as failed.
    pub timing: crate::Timing,
    /// What the node key holds: who holds the node, for operators (`uuidkit pid PID`).
    pub holder: String,
    /// The longest a claim waits for this host's clock to pass a node's high-water millisecond
    /// (`PREFIX/hw/NODE`, written by its last holder) before it tries another node (the TTL).
    pub high_water_wait: Duration,
    /// Test-only switches ([`Testing`](crate::Testing)).
    #[doc(hidden)]
    pub testing: crate::Testing,
    /// The etcd user to authenticate as, on a cluster with authentication enabled (none). The
    /// user needs read and write rights on `PREFIX/` only (docs/distributed-generation.md,
    /// "The operator's part").
    pub user: Option<EtcdUser>,
    /// TLS to the cluster (none: plain HTTP/2). Feature `etcd-tls`.
    #[cfg(feature = "etcd-tls")]
    pub tls: Option<crate::Tls>,
}

/// An etcd user name and password ([`EtcdConfig::user`]). Its `Debug` leaves the password out.
///
/// ```
/// use uuidkit_lease::etcd::EtcdUser;
///
/// let u = EtcdUser::new("uuidkit", "s3cret");
/// assert_eq!(u.name(), "uuidkit");
/// assert!(!format!("{u:?}").contains("s3cret"));
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct EtcdUser {
    name: String,
    password: String,
}

impl EtcdUser {
    /// The user `name` with its `password`.
    ///
    /// ```
    /// # use uuidkit_lease::etcd::EtcdUser;
    /// assert_eq!(EtcdUser::new("a", "b").name(), "a");
    /// ```
    pub fn new(name: impl Into<String>, password: impl Into<String>) -> EtcdUser {
        EtcdUser {
            name: name.into(),
            password: password.into(),
        }
    }

    /// The user name.
    ///
    /// ```
    /// # use uuidkit_lease::etcd::EtcdUser;
    /// assert_eq!(EtcdUser::new("gen", "pw").name(), "gen");
    /// ```
    pub fn name(&self) -> &str {
        &self.name
    }

    pub(crate) fn password(&self) -> &str {
        &self.password
    }
}

impl std::fmt::Debug for EtcdUser {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EtcdUser")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl EtcdConfig {
    /// The defaults for node IDs `bits` wide under `prefix`, from the cluster at `endpoints`.
    ///
    /// ```
    /// use uuidkit_lease::etcd::EtcdConfig;
    ///
    /// let c = EtcdConfig::new(vec!["a:2379".into(), "b:2379".into()], "/n", 12);
    /// assert_eq!((c.endpoints.len(), c.prefix.as_str(), c.bits), (2, "/n", 12));
    /// assert!(c.holder.starts_with("uuidkit pid "));
    /// ```
    pub fn new(endpoints: Vec<String>, prefix: impl Into<String>, bits: u8) -> EtcdConfig {
        EtcdConfig {
            endpoints,
            prefix: prefix.into(),
            bits,
            timing: crate::Timing::default(),
            holder: format!("uuidkit pid {}", std::process::id()),
            high_water_wait: crate::Timing::default().ttl,
            testing: crate::Testing::default(),
            user: None,
            #[cfg(feature = "etcd-tls")]
            tls: None,
        }
    }

    /// The key of node `value`.
    ///
    /// ```
    /// use uuidkit_lease::etcd::EtcdConfig;
    ///
    /// let c = EtcdConfig::new(vec![], "/uuidkit/v8", 12);
    /// assert_eq!(c.key(0x2a), "/uuidkit/v8/02a");
    /// assert_eq!(EtcdConfig::new(vec![], "/p", 48).key(1), "/p/000000000001");
    /// ```
    pub fn key(&self, value: u64) -> String {
        format!("{}/{}", self.prefix, self.node_name(value))
    }

    /// The key of node `value`'s high-water millisecond, `PREFIX/hw/NODE`: the latest Unix
    /// millisecond its holders' UUIDs may carry, kept (without a lease) after the node is
    /// given back, for the next holder to start above.
    ///
    /// ```
    /// use uuidkit_lease::etcd::EtcdConfig;
    ///
    /// assert_eq!(EtcdConfig::new(vec![], "/uuidkit/v8", 12).high_water_key(0x2a), "/uuidkit/v8/hw/02a");
    /// ```
    pub fn high_water_key(&self, value: u64) -> String {
        format!("{}/hw/{}", self.prefix, self.node_name(value))
    }

    /// The node a key under the prefix names, if it is a node key of this width: exactly as
    /// many lower-case hexadecimal digits as [`key`](Self::key) writes, of a value that fits.
    /// Any other key (`PREFIX/hw/…`, another width's `PREFIX/01`, junk) names none.
    ///
    /// ```
    /// use uuidkit_lease::etcd::EtcdConfig;
    ///
    /// let c = EtcdConfig::new(vec![], "/p", 1);
    /// assert_eq!(c.node_of("/p/1"), Some(1));
    /// assert_eq!((c.node_of("/p/01"), c.node_of("/p/2"), c.node_of("/p/hw/1")), (None, None, None));
    /// ```
    pub fn node_of(&self, key: &str) -> Option<u64> {
        let name = key.strip_prefix(&self.prefix)?.strip_prefix('/')?;
        crate::node::node_of_name(self.bits, name)
    }

    fn node_name(&self, value: u64) -> String {
        crate::node::node_name(self.bits, value)
    }
}
