//! Number spaces: Domain IDs, UIDs, UID spaces, and when two claims conflict (§2.2, §3.2, §6.1).
//!
//! A claim names a domain ([`DomainId`], 8 octets whose last carries the justification flag J)
//! and a set of UIDs in it ([`UidSpace`]: a unique value, a range or a prefix of [`Uid`]s). Two
//! claims conflict iff their Domain IDs are byte-identical and their spaces share a UID
//! ([`conflicts`]). The order of UIDs follows docs/uiap-design.md D6–D8:
//!
//! * every bit of a UID is significant, zeros included;
//! * left-justified (J = 0): lexicographic on bit strings, a proper prefix is smaller;
//! * right-justified (J = 1): a longer bit length is larger, then the octets compare as an
//!   unsigned integer; a partial octet is the first one, and its significant bits are its low bits.
//!
//! Everything here is pure computation: no I/O, no clock, no randomness.
//!
//! ```
//! use uiap::space::{conflicts, DomainId, DomainPattern, Uid, UidSpace};
//!
//! // IPv4 subnets in a private left-justified domain.
//! let did: DomainId = "ffe:1:0:0".parse()?;
//! let home = UidSpace::Prefix(Uid::from_octets(&[192, 168])?);
//! let printer = UidSpace::Unique(Uid::from_octets(&[192, 168, 1, 20])?);
//! assert!(conflicts(&did, &home, &did, &printer));
//!
//! // Patterns select domains, for instance in a configuration file.
//! let private: DomainPattern = "ffe:*:*:*".parse()?;
//! assert!(private.matches(&did));
//! Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod did;
mod error;
mod uid;
mod uid_space;

pub use self::did::{
    DomainId, DomainPattern, Justification, ParseDomainError, ParseDomainErrorKind,
};
pub use self::error::{SpaceError, SpaceErrorKind};
pub use self::uid::{MAX_UID_LEN, Uid};
pub use self::uid_space::{UidSpace, conflicts};
