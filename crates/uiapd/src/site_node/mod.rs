//! Site node IDs: a node ID for UUID generators (RFC 9562 §6.4), claimed and defended through the
//! local `uiapd` (docs/uiap-design.md D49–D58).
//!
//! A [`SiteLease`] claims a random node ID of the requested width in the node-ID domain
//! ([`DEFAULT_NODE_DOMAIN`] unless overridden), keeps it renewed while it lives, and hands it to
//! generators through a [`uuidkit::NodeSlot`]. The moment the claim ends for any reason — a
//! late conflict, a denied renewal, an expiry, a release by someone else, the daemon gone — the
//! slot is marked lost, and every generator reading it stops with an error at its next UUID.
//! Dropping the lease marks the slot lost and releases the claim.
//!
//! Within one site where UIAP reaches every device, two live leases never hold the same node
//! ID; across a partition both sides may, until the first renewal after the merge (the
//! partition window, docs/uiap-design.md D53).
//!
//! # Example
//!
//! ```no_run
//! use std::sync::Arc;
//! use uiapd::site_node::{LeaseConfig, SiteLease};
//! use uuidkit::NodeSource;
//!
//! let config = LeaseConfig::new("/run/uiapd/control.sock".into(), 14);
//! let mut rng = rand_chacha::ChaCha20Rng::from_seed([7; 32]);
//! # use rand_core::SeedableRng;
//! let lease = SiteLease::acquire(&config, &mut rng)?;
//! let source: Arc<dyn NodeSource> = lease.source();
//! let node = source.current()?;
//! assert_eq!(node.bits(), 14);
//! drop(lease); // released: the source now reports the node lost
//! assert!(source.current().is_err());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod domain;
mod lease;

pub use domain::{
    DEFAULT_NODE_DOMAIN, MAX_NODE_BITS, check_bits, check_domain, node_of_uid, node_space, node_uid,
};
pub use lease::{LeaseConfig, SiteLease};

use std::fmt;

/// Why a [`SiteLease`] could not be had.
///
/// ```
/// use uiapd::site_node::{LeaseErrorKind, node_uid};
///
/// let err = node_uid(0, 49).unwrap_err();
/// assert_eq!(err.kind(), LeaseErrorKind::Config);
/// assert_eq!(err.to_string(), "node bits: expected 1 to 48, found 49");
/// ```
#[derive(Debug)]
pub struct LeaseError {
    kind: LeaseErrorKind,
    message: String,
}

/// The reason a [`LeaseError`] was returned.
///
/// ```
/// use uiapd::site_node::LeaseErrorKind;
///
/// assert_ne!(LeaseErrorKind::NoDaemon, LeaseErrorKind::Denied);
/// ```
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
#[non_exhaustive]
pub enum LeaseErrorKind {
    /// The lease's settings are invalid (domain, width, lifetime).
    Config,
    /// No daemon answers at the control path.
    NoDaemon,
    /// Every attempt was denied: other devices hold the node IDs drawn (or the site keeps
    /// refusing).
    Denied,
    /// The daemon refused the claim request itself (an error answer).
    Refused,
    /// The daemon answered something the control protocol does not allow, or the connection
    /// failed mid-request.
    Daemon,
}

impl LeaseError {
    #[cold]
    pub(crate) fn new(kind: LeaseErrorKind, message: impl Into<String>) -> LeaseError {
        LeaseError {
            kind,
            message: message.into(),
        }
    }

    /// What kind of failure this is.
    ///
    /// ```
    /// use uiapd::site_node::{check_bits, LeaseErrorKind};
    ///
    /// assert_eq!(check_bits(60).unwrap_err().kind(), LeaseErrorKind::Config);
    /// ```
    pub fn kind(&self) -> LeaseErrorKind {
        self.kind
    }
}

impl fmt::Display for LeaseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for LeaseError {}
