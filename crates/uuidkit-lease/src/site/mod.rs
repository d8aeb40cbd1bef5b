//! Site node IDs: a node ID for UUID generators (RFC 9562 §6.4), claimed and defended through the
//! local `uiapd` with UIAP (docs/uiap-design.md D49–D58).
//!
//! A [`SiteLease`] claims a random node ID of the requested width in the node-ID domain
//! ([`DEFAULT_NODE_DOMAIN`] unless overridden), keeps it renewed while it lives, and hands it to
//! generators through a [`uuidkit::node::NodeSlot`]. The moment the claim ends for any reason — a
//! late conflict, a denied renewal, an expiry, a release by someone else, the daemon gone — the
//! slot is marked lost, and every generator reading it stops with an error at its next UUID.
//! Dropping the lease marks the slot lost and releases the claim.
//!
//! Within one site where UIAP reaches every device, two live leases never hold the same node
//! ID; across a partition both sides may, until the first renewal after the merge (the
//! partition window, docs/uiap-design.md D53).
//!
//! Consecutive holders of one node never share a millisecond, whatever their clocks say: a new
//! tenure starts only once this host's clock is past the claim's answer by how far ahead the
//! clocks of the neighbours its daemon heard are (with a key, `uiapd --psk-file`), or by
//! [`LeaseConfig::max_clock_offset`] (without one, where the lease refuses unless it is set;
//! docs/uiap-design.md D72).
//!
//! The lease talks to the daemon over its Unix control socket: [`SiteLease`] and
//! [`LeaseConfig`] exist on Unix only. The domain and the node's UID ([`node_uid`],
//! [`check_domain`]) are plain values, there on every platform.
//!
//! # Example
//!
//! ```no_run
//! use std::sync::Arc;
//! use uuidkit_lease::site::{LeaseConfig, SiteLease};
//! use uuidkit::node::NodeSource;
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

#[cfg(unix)]
mod clocks;
#[cfg(unix)]
mod config;
mod domain;
#[cfg(unix)]
mod lease;
#[cfg(unix)]
mod window;

#[cfg(unix)]
pub use config::LeaseConfig;
pub use domain::{DEFAULT_NODE_DOMAIN, check_domain, node_of_uid, node_space, node_uid};
#[cfg(unix)]
pub use lease::SiteLease;
/// Where `uiapd` listens unless told otherwise ([`LeaseConfig::new`] takes the path).
pub use uiap_control::DEFAULT_CONTROL;
