//! `uiapd`: UIAP on real IPv6 networks — the daemon library behind the `uiapd` and `uiap`
//! binaries.
//!
//! The protocol core ([`uiap::device`], in the `uiap` crate) makes every protocol decision and
//! does no I/O. This crate is the thin shell around it:
//!
//! * [`socket`]: one UDP/IPv6 socket per role — the claim port joined to the group on every
//!   participating interface, and the reply port Denies are sent from — with the source checks of
//!   docs/uiap-design.md D21 (link-local source, hop limit 255, known interface, source port ≠ 0);
//! * [`ingress`]: the per-neighbour rate limit and the port each message type belongs to, checked
//!   before the protocol core parses anything;
//! * [`iface`]: which interfaces participate, rescanned once a second from `/proc/net/if_inet6`
//!   and `/sys/class/net/*/flags` (up, multicast, a non-tentative link-local address);
//! * [`control`]: the newline-delimited JSON API on a Unix socket that applications and the
//!   `uiap` client use, and [`control::hold`], which claims a space and reports at once when the
//!   claim is renewed, conflicted, lost or expired;
//! * [`store`]: the device ID and the claims, persisted atomically in the state directory;
//! * [`run()`]: the select loop that feeds datagrams, timers and control requests to the device;
//! * [`config`]: flags and the optional TOML file; [`tuning`]: the protocol's settings among
//!   them, each checked against its range;
//! * [`site_node`]: a node ID for UUID generators, claimed and defended through the daemon
//!   ([`site_node::SiteLease`]).
//!
//! # Example
//!
//! ```no_run
//! use uiapd::Config;
//!
//! # async fn demo() -> Result<(), uiapd::DaemonError> {
//! let config = Config::default();
//! uiapd::run_with_signals(config).await?;
//! # Ok(()) }
//! ```

#![deny(missing_docs, missing_debug_implementations)]

pub mod config;
pub mod control;
mod error;
pub mod iface;
pub mod ingress;
mod psk;
mod run;
pub mod site_node;
pub mod socket;
pub mod store;
pub mod tuning;

pub use config::Config;
pub use error::{DaemonError, DaemonErrorKind};
pub use run::{run, run_with_signals};
