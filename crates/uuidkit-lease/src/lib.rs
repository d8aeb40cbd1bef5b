//! `uuidkit-lease`: node sources for uuidkit's generators that lease their node ID from a
//! registry, so that no two generators of a fleet embed the same node.
//!
//! `uuidkit` itself holds the seam — [`uuidkit::node::NodeSource`], read before every UUID, and
//! [`uuidkit::node::NodeSlot`], the source a lease fills and marks lost — and the sources that need no
//! registry ([`uuidkit::node::StaticNode`], [`uuidkit::node::RandomNode`]). The sources here talk to
//! something outside the process, so they live outside the core, each behind a Cargo feature.
//!
//! # Which one should I use?
//!
//! * Devices on one site that UIAP's link-local multicast reaches, each running `uiapd`:
//!   [`site::SiteLease`] (feature `uiap`, on by default; Unix). No server to run; a partition
//!   is the one window in which two devices may hold one node.
//! * Generators anywhere that reach one etcd cluster (cloud VPCs, Kubernetes, hosts in
//!   different subnets): `etcd::EtcdLease` (feature `etcd`). A node key attached to an etcd
//!   lease; nothing to run on each host.
//! * Generators whose one shared system is a PostgreSQL database: `postgres::PgLease`
//!   (feature `postgres`), a row of a lease table with an expiry by the server's clock.
//! * Generators whose fleet already runs a ZooKeeper ensemble: `zookeeper::ZkLease` (feature
//!   `zookeeper`), an ephemeral node of a session, renewed by writes through the leader.
//! * One process, or nodes assigned by hand: no lease; [`uuidkit::node::StaticNode`].
//!
//! Every source hands out a [`LeaseSlot`] and marks it lost the moment its lease ends, so a
//! generator stops (an error of kind `NodeLost`) rather than write with a node someone else may
//! hold. The slot also keeps the lease's deadline — the send instant of the last confirmed grant
//! or renewal, plus its TTL, less a margin, on `CLOCK_BOOTTIME` — and reports the node lost past
//! it even when nothing has failed yet: a stopped process, a frozen VM or a partition cannot
//! leave a generator writing with a node the registry may have granted to someone else. Errors
//! are one type, [`LeaseError`], whatever the source.
//!
//! # Example
//!
//! ```no_run
//! # #[cfg(unix)] {
//! use uuidkit::{clock::SystemClock, rng::ThreadRng, Generator, V8Distributed};
//! use uuidkit_lease::site::{LeaseConfig, SiteLease};
//!
//! let lease = SiteLease::acquire(&LeaseConfig::new("/run/uiapd/control.sock".into(), 16), &mut ThreadRng)?;
//! let mut g = V8Distributed::builder().node_source(lease.slot().clone()).build(SystemClock, ThreadRng)?;
//! let id = g.generate()?; // an error of kind NodeLost once the lease is gone
//! # let _ = id; }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # One shape for every source
//!
//! Each source's settings implement [`Registry`], whose `acquire` returns a [`Lease`]: a
//! program that takes its node from whichever registry the operator names holds a
//! `Box<dyn Lease>` and asks it for its slot, its node, what to call the node in messages, the
//! warnings to show once, the whole text of a loss, and its release — the same calls for every
//! source. [`Timing`] is the lifetime and retry settings the sources with a TTL share. A new
//! registry is one module implementing both traits (ARCHITECTURE.md, "Adding a registry").
//!
//! ```
//! # #[cfg(unix)] {
//! use uuidkit_lease::{LeaseErrorKind, Registry, site::LeaseConfig};
//!
//! let mut registries: Vec<Box<dyn Registry>> =
//!     vec![Box::new(LeaseConfig::new("/nonexistent/control.sock".into(), 16))];
//! # #[cfg(feature = "etcd")]
//! registries.push(Box::new(uuidkit_lease::etcd::EtcdConfig::new(vec![], "/n", 16)));
//! for registry in &registries {
//!     // Nothing to reach (or no endpoint named): an error of the same type from each.
//!     let err = registry.acquire(&mut uuidkit::rng::ThreadRng, &mut |_| {}).unwrap_err();
//!     assert!(matches!(err.kind(), LeaseErrorKind::Unreachable | LeaseErrorKind::Config), "{err}");
//! }
//! # }
//! ```
//!
//! # Crate features
//!
//! * `uiap` (default): [`site`], the site lease through the local `uiapd` (the `uiap-control`
//!   client: no async runtime).
//! * `etcd`: `etcd`, the etcd v3 lease (the `etcd-client` crate, on a tokio runtime the lease
//!   starts and stops itself).
//! * `postgres`: `postgres`, the PostgreSQL lease (the synchronous `postgres` client).
//! * `zookeeper`: `zookeeper`, the ZooKeeper lease (the `zookeeper-client` crate, on a tokio
//!   runtime the lease starts and stops itself).
//! * `etcd-tls`, `postgres-tls`: TLS to the registry (`Tls`; rustls with ring, which compiles
//!   C).

#![deny(missing_docs, missing_debug_implementations)]

mod deadline;
mod error;
#[cfg(feature = "etcd")]
pub mod etcd;
#[cfg(any(
    feature = "etcd",
    feature = "postgres",
    feature = "zookeeper",
    all(feature = "uiap", unix)
))]
mod high_water;
mod node;
mod paired;
#[cfg(feature = "postgres")]
pub mod postgres;
mod registry;
#[cfg(feature = "uiap")]
pub mod site;
#[cfg(any(feature = "etcd-tls", feature = "postgres-tls"))]
mod tls;
#[cfg(feature = "zookeeper")]
pub mod zookeeper;

pub use deadline::{
    BootClock, BootTime, LeaseSlot, MANUAL_UNIX_AT_ZERO, ManualBootClock, RELEASE_GAP,
    default_margin,
};
pub use error::{LeaseError, LeaseErrorKind};
#[cfg(any(
    feature = "etcd",
    feature = "postgres",
    feature = "zookeeper",
    all(feature = "uiap", unix)
))]
pub use high_water::Testing;
pub use node::{MAX_NODE_BITS, check_bits, no_free_node, pick_node};
pub use paired::{LeaseClock, LeaseSource};
pub use registry::{Lease, Registry, Timing};
#[cfg(any(feature = "etcd-tls", feature = "postgres-tls"))]
pub use tls::Tls;
