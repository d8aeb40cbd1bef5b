//! The UIAP message format (§4.1, docs/uiap-design.md D1–D5): Claim-Attempt and Claim-Deny, and
//! this implementation's Loss-Notice (D80), which is the header alone.
//!
//! Two layers, as in smoltcp:
//!
//! * [`Packet`] is a zero-copy view of octets in a buffer, with a getter (and for the fields a
//!   forwarder changes, a setter) per field. Forwarders use it to pass a message on unchanged
//!   except its hop limit, and to turn an Attempt into a Deny.
//! * [`Repr`] is an owned message that holds only valid values: [`Repr::parse`] checks
//!   everything, [`Repr::emit`] writes it back with every reserved bit 0.
//!
//! ```text
//!  0               1               2               3
//!  0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7
//! +---------------+-------+---+-+-+---------------+---------------+
//! |  Version = 1  | Type  | 0 |X|R|       0       |   Hop Limit   |  0
//! +---------------+-------+---+-+-+---------------+---------------+
//! |                       Lifetime (seconds)                      |  4
//! +---------------------------------------------------------------+
//! |                 Originating Device ID (8 octets)              |  8
//! +---------------------------------------------------------------+
//! |                        Sequence Number                        | 16
//! +---------------------------------------------------------------+
//! |                     Claim Reference Number                    | 20
//! +---------------------------------------------------------------+
//! |              Domain ID (7 octets)             |J|  0 (flags)  | 24
//! +---------------+-----+-----+---+---------------+---------------+
//! |       0       | BA  | BA2 |Fmt|    UID Len    |   UID Len 2   | 32
//! +---------------+-----+-----+---+---------------+---------------+
//! |          UID (UID Len octets) [UID 2 (UID Len 2 octets)]      | 36
//! +---------------------------------------------------------------+
//! ```
//!
//! All integers are big-endian. Fmt is 0 (unique), 1 (prefix) or 2 (range); only a range carries
//! UID 2. A UID's bit length is `8·L` if BA = 0, else `8·(L − 1) + BA`; see [`crate::space::Uid`]
//! for which bits of the partial octet are significant.
//!
//! # Untrusted input
//!
//! It is a guarantee of this module that no function panics on any input octets:
//! [`Repr::parse`] and [`Packet::new_checked`] return a [`WireError`] for every malformed
//! message, and once `new_checked` has succeeded no [`Packet`] getter panics. The only panics
//! are on a caller's own mistakes, documented under `# Panics`: [`Repr::emit`] into a buffer
//! that is not [`Repr::buffer_len`] octets long, and `Packet` getters on a buffer wrapped with
//! [`Packet::new_unchecked`] that is too short. The `wire` fuzz target (`crates/uiap/fuzz`)
//! backs this up, together with a parse → emit → parse round trip.
//!
//! # Example: decode, forward, deny
//!
//! ```
//! use uiap::wire::{MessageType, Packet, Repr, INITIAL_HOP_LIMIT};
//!
//! let datagram: Vec<u8> = [
//!     &[0x01, 0x00, 0x00, 0x20, 0x00, 0x00, 0x0e, 0x10][..],
//!     &[0x02, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77],
//!     &[0x00, 0x00, 0x00, 0x01, 0xde, 0xad, 0xbe, 0xef],
//!     &[0x00, 0x01, 0x00, 0x02, 0x00, 0x03, 0x00, 0x00],
//!     &[0x00, 0x01, 0x02, 0x00, 0xc0, 0xa8],
//! ]
//! .concat();
//! let repr = Repr::parse(&datagram)?;
//! assert_eq!(repr.domain.to_string(), "1:2:3:0");
//! assert_eq!(repr.lifetime, 3600);
//!
//! let mut deny = Packet::new_checked(datagram.clone())?;
//! deny.set_msg_type(MessageType::ClaimDeny);
//! deny.set_hop_limit(INITIAL_HOP_LIMIT);
//! assert_eq!(Repr::parse(deny.as_ref())?.msg_type, MessageType::ClaimDeny);
//! Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod error;
mod packet;
mod repr;

pub use self::error::{WireError, WireErrorKind};
pub use self::packet::Packet;
pub use self::repr::{DeviceId, MessageId, MessageType, Repr};

/// The length of the fixed header, in octets.
pub const HEADER_LEN: usize = 36;
/// The protocol version this crate speaks (octet 0).
pub const VERSION: u8 = 1;
/// The hop limit an originator sends, and a Deny starts with (§4.1, docs/uiap-design.md D16).
pub const INITIAL_HOP_LIMIT: u8 = 32;
/// The longest valid message: the header and two UIDs of 255 octets.
pub const MAX_MESSAGE_LEN: usize = HEADER_LEN + 255 + 255;
/// The lifetime value that means "infinite" (docs/uiap-design.md D5).
pub const INFINITE_LIFETIME: u32 = u32::MAX;
