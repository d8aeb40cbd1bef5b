//! UIAP: the Unique Identifier Allocation Protocol (draft-white-zeroconf-uiap-00), as a
//! protocol library.
//!
//! Devices on a site claim a UID space in a domain; a Claim-Attempt floods hop by hop over
//! link-local multicast, and any device holding a conflicting claim answers with a Claim-Deny
//! that travels back along the recorded reverse path. Where the draft is silent or ambiguous,
//! the project's design record (`docs/uiap-design.md`) decides.
//!
//! This crate is fully deterministic: it contains no networking code, reads no clock and uses no
//! global random number generator. Octets come in as `&[u8]`, time comes in as `now`
//! ([`time::Instant`]), randomness as an RNG you pass; what a device wants sent or reported comes
//! out of its `poll_*` methods. The `uiapd` crate drives it on real IPv6 links (sockets, timers,
//! a control socket, persistence); the [`sim`] module drives it on a simulated site.
//!
//! * [`space`]: Domain IDs and their text form, UIDs, UID spaces and when two claims conflict.
//! * [`wire`]: the message format, as a zero-copy [`wire::Packet`] and a validated [`wire::Repr`].
//! * [`device`]: the state machine of one device: claim, defend, forward.
//! * [`config`]: every timer and bound of the device, in one place.
//! * [`sim`]: a deterministic discrete-event simulator of whole sites.
//!
//! # Crate features
//!
//! * `serde`: `serde::Deserialize` for the simulator's scenario format ([`sim`]'s `scenario`
//!   module). Off by default; the crate's only other dependencies are `rand_core` and
//!   `rand_chacha`.
//!
//! # Example: does a received attempt conflict with what we hold?
//!
//! ```
//! use uiap::space::{conflicts, DomainId, Uid, UidSpace};
//! use uiap::wire::Repr;
//!
//! let datagram = [
//!     0x01, 0x00, 0x00, 0x20, 0x00, 0x00, 0x0e, 0x10, 0x02, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
//!     0x00, 0x00, 0x00, 0x01, 0xde, 0xad, 0xbe, 0xef, 0x00, 0x01, 0x00, 0x02, 0x00, 0x03, 0x00, 0x00,
//!     0x00, 0x01, 0x02, 0x00, 0xc0, 0xa8,
//! ];
//! let attempt = Repr::parse(&datagram)?;
//!
//! // We hold 192.168.1.20 in the same domain: the attempt for 192.168/16 conflicts.
//! let ours: DomainId = "1:2:3:0".parse()?;
//! let held = UidSpace::Unique(Uid::from_octets(&[192, 168, 1, 20])?);
//! assert!(conflicts(&ours, &held, &attempt.domain, &attempt.space));
//! Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs, missing_debug_implementations)]

pub mod config;
pub mod device;
pub mod sim;
pub mod space;
pub mod time;
pub mod wire;
