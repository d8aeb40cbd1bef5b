//! `uiapd`: UIAP on real IPv6 networks — the daemon library behind the `uiapd` binary.
//!
//! The protocol core (`uiap::device`, in the `uiap` crate) makes every protocol decision and
//! does no I/O; the control protocol (its requests, responses and a blocking client) is the
//! `uiap-control` crate, which applications, the `uiap` command and the `uuidkit-lease` site
//! lease use without this crate. This crate is the daemon around them:
//!
//! * `socket`: one UDP/IPv6 socket per role — the claim port joined to the group on every
//!   participating interface, and the reply port Denies are sent from ([`Sockets`]);
//! * `link`: what a datagram must pass before the protocol core parses anything — the source
//!   checks of docs/uiap-design.md D21 (link-local source, hop limit 255, known interface,
//!   source port ≠ 0), the per-neighbour rate limit (D45), the optional PSK trailer (D41), the
//!   port each message type belongs to (D42) — and the PSK seal on everything sent;
//! * `neighbours` and `unicast`: the kernel's neighbour table, and which Denies go to the kernel
//!   now, wait for their neighbour to resolve, or are not sent (D79);
//! * `iface`: which interfaces participate, rescanned once a second from `/proc/net/if_inet6`
//!   and `/sys/class/net/*/flags` (up, multicast, a non-tentative link-local address);
//! * `claims`: the claim table — one method per control request and per claim event of the
//!   device, renewals, the reclaim after a restart, clients that went away;
//! * `control`: the control socket's server (newline-delimited JSON, mode 0660);
//! * `store`: the device ID and the claims, persisted atomically in the state directory
//!   ([`Store`]);
//! * [`run()`]: the select loop that feeds datagrams, timers and control requests to their
//!   part;
//! * [`config`]: flags and the optional TOML file; [`tuning`]: the protocol's settings among
//!   them, each checked against its range.
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

mod claims;
pub mod config;
mod control;
mod daemon;
mod error;
mod iface;
mod link;
mod neighbours;
pub mod quota;
mod socket;
mod store;
pub mod tuning;
mod unicast;

pub use config::Config;
pub use daemon::{run, run_with_signals};
pub use error::{DaemonError, DaemonErrorKind};
pub use socket::Sockets;
pub use store::Store;
