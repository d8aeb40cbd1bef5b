//! The owned, validated form of a UIAP message.

use core::cmp::Ordering;
use core::fmt;
use core::num::NonZeroU64;

use super::packet::field;
use super::{HEADER_LEN, Packet, VERSION, WireError, WireErrorKind};
use crate::space::{DomainId, Justification, Uid, UidSpace};

/// A device ID (§4.1): a non-zero 64-bit value; 0 is reserved for "no device".
///
/// [`Display`](fmt::Display) prints 16 lowercase hex digits.
///
/// ```
/// use uiap::wire::DeviceId;
///
/// let id = DeviceId::new(0x0211_2233_4455_6677).unwrap();
/// assert_eq!(id.to_string(), "0211223344556677");
/// assert_eq!(DeviceId::new(0), None);
/// ```
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct DeviceId(NonZeroU64);

impl DeviceId {
    /// Returns the device ID `id`, or `None` for the reserved 0.
    ///
    /// ```
    /// use uiap::wire::DeviceId;
    ///
    /// assert_eq!(DeviceId::new(7).map(DeviceId::get), Some(7));
    /// ```
    pub const fn new(id: u64) -> Option<DeviceId> {
        match NonZeroU64::new(id) {
            Some(id) => Some(DeviceId(id)),
            None => None,
        }
    }

    /// The device ID as a number.
    ///
    /// ```
    /// use uiap::wire::DeviceId;
    ///
    /// assert_eq!(DeviceId::new(0xff).unwrap().get(), 0xff);
    /// ```
    pub const fn get(self) -> u64 {
        self.0.get()
    }

    /// The 8 octets as they appear on the wire (big-endian).
    ///
    /// ```
    /// use uiap::wire::DeviceId;
    ///
    /// assert_eq!(DeviceId::new(1).unwrap().to_bytes(), [0, 0, 0, 0, 0, 0, 0, 1]);
    /// ```
    pub const fn to_bytes(self) -> [u8; 8] {
        self.0.get().to_be_bytes()
    }
}

impl fmt::Display for DeviceId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:016x}", self.0.get())
    }
}

/// A message ID (§4.5.1): the originating device and its sequence number. It identifies one
/// flood; every attempt of a claim has its own.
///
/// ```
/// use uiap::wire::{DeviceId, MessageId};
///
/// let id = MessageId { origin: DeviceId::new(7).unwrap(), sequence: 1 };
/// assert_eq!(id.to_string(), "0000000000000007/1");
/// ```
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct MessageId {
    /// The originating device ID (octets 8–15).
    pub origin: DeviceId,
    /// The sequence number (octets 16–19).
    pub sequence: u32,
}

impl fmt::Display for MessageId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.origin, self.sequence)
    }
}

/// The two message types of the draft (§4.2, §4.3), and this implementation's Loss-Notice
/// (type 2, docs/uiap-design.md D80).
///
/// ```
/// use uiap::wire::MessageType;
///
/// assert_eq!(MessageType::from_raw(1), Some(MessageType::ClaimDeny));
/// assert_eq!(MessageType::ClaimAttempt.raw(), 0);
/// assert_eq!(MessageType::from_raw(2), Some(MessageType::LossNotice));
/// assert_eq!(MessageType::from_raw(3), None);
/// ```
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum MessageType {
    /// Type 0: a Claim-Attempt, flooded over link-local multicast.
    ClaimAttempt,
    /// Type 1: a Claim-Deny, unicast hop by hop back along the Attempt's path.
    ClaimDeny,
    /// Type 2, an extension of the draft: a device may have lost datagrams (its receive queue
    /// overflowed, a rate limit dropped them, a Deny could not be sent), flooded like an
    /// Attempt so that claims in their rounds beyond it do not succeed on that silence
    /// (docs/uiap-design.md D80). It carries no Domain ID and no UID: Lifetime holds the
    /// milliseconds the losses span, Claim Reference how many datagrams were lost.
    LossNotice,
}

impl MessageType {
    /// The type for a 4-bit wire value, `None` for the undefined 3–15.
    ///
    /// ```
    /// use uiap::wire::MessageType;
    ///
    /// assert_eq!(MessageType::from_raw(0), Some(MessageType::ClaimAttempt));
    /// ```
    pub const fn from_raw(raw: u8) -> Option<MessageType> {
        match raw {
            0 => Some(MessageType::ClaimAttempt),
            1 => Some(MessageType::ClaimDeny),
            2 => Some(MessageType::LossNotice),
            _ => None,
        }
    }

    /// The 4-bit wire value.
    ///
    /// ```
    /// use uiap::wire::MessageType;
    ///
    /// assert_eq!(MessageType::ClaimDeny.raw(), 1);
    /// ```
    pub const fn raw(self) -> u8 {
        match self {
            MessageType::ClaimAttempt => 0,
            MessageType::ClaimDeny => 1,
            MessageType::LossNotice => 2,
        }
    }

    /// A stable kebab-case name: `claim-attempt`, `claim-deny` or `loss-notice`.
    ///
    /// ```
    /// use uiap::wire::MessageType;
    ///
    /// assert_eq!(MessageType::ClaimAttempt.as_str(), "claim-attempt");
    /// ```
    pub const fn as_str(self) -> &'static str {
        match self {
            MessageType::ClaimAttempt => "claim-attempt",
            MessageType::ClaimDeny => "claim-deny",
            MessageType::LossNotice => "loss-notice",
        }
    }
}

impl fmt::Display for MessageType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An owned, valid UIAP message (smoltcp's `Repr`): parse one from octets, emit one into octets.
///
/// [`Repr::parse`] accepts exactly the messages of docs/uiap-design.md D1–D5 and [`Repr::emit`]
/// writes them with every reserved bit 0, so `parse(emit(r)) == r` for every `r` that `parse`
/// returns. Fields that a receiver ignores (reserved bits, and UID Len 2 and BA2 outside ranges)
/// are not kept. The hop limit is kept as received; clamping values above 32 is the device's job
/// (docs/uiap-design.md D16).
///
/// ```
/// use uiap::space::{Uid, UidSpace};
/// use uiap::wire::{DeviceId, MessageType, Repr, INITIAL_HOP_LIMIT};
///
/// let repr = Repr {
///     msg_type: MessageType::ClaimAttempt,
///     proxy: false,
///     reclaim: false,
///     hop_limit: INITIAL_HOP_LIMIT,
///     lifetime: 3600,
///     origin: DeviceId::new(0x0211_2233_4455_6677).unwrap(),
///     sequence: 1,
///     claim_ref: 0xdead_beef,
///     domain: "1:2:3:0".parse()?,
///     space: UidSpace::Prefix(Uid::from_octets(&[0xc0, 0xa8])?),
/// };
/// let bytes = repr.to_vec();
/// assert_eq!(bytes.len(), 38);
/// assert_eq!(&bytes[33..], &[0x01, 0x02, 0x00, 0xc0, 0xa8]);
/// assert_eq!(Repr::parse(&bytes)?, repr);
/// Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Repr {
    /// Claim-Attempt or Claim-Deny.
    pub msg_type: MessageType,
    /// X: the claimant allows proxy defense.
    pub proxy: bool,
    /// R: this is a reclaim of a UID space claimed before.
    pub reclaim: bool,
    /// Hop limit, as received (32 when sent by the originator).
    pub hop_limit: u8,
    /// Lifetime in seconds; `0xffff_ffff` is infinite (docs/uiap-design.md D5).
    pub lifetime: u32,
    /// The originating device.
    pub origin: DeviceId,
    /// The sequence number of this flood.
    pub sequence: u32,
    /// The claim reference number: opaque to everyone but the originator.
    pub claim_ref: u32,
    /// The domain of the claim, flags octet included.
    pub domain: DomainId,
    /// The UIDs claimed.
    pub space: UidSpace,
}

impl Repr {
    /// Parses and validates a message (docs/uiap-design.md D1–D5). Never panics, whatever the
    /// input.
    ///
    /// The checks run in this order, and the first failure is returned: header length
    /// ([`Truncated`](WireErrorKind::Truncated)), [`UnknownVersion`](WireErrorKind::UnknownVersion),
    /// [`UnknownType`](WireErrorKind::UnknownType), [`UnknownFormat`](WireErrorKind::UnknownFormat),
    /// [`LengthMismatch`](WireErrorKind::LengthMismatch), [`ZeroDeviceId`](WireErrorKind::ZeroDeviceId),
    /// then UID 1 and UID 2 in turn ([`EmptyUid`](WireErrorKind::EmptyUid),
    /// [`NonZeroPadding`](WireErrorKind::NonZeroPadding)),
    /// [`PrefixInRightJustified`](WireErrorKind::PrefixInRightJustified) and
    /// [`RangeReversed`](WireErrorKind::RangeReversed). Reserved bits are ignored, as are
    /// UID Len 2 and BA2 when the format is not a range.
    ///
    /// # Errors
    ///
    /// A [`WireError`] with the kind and the octet offset of the first problem.
    ///
    /// ```
    /// use uiap::wire::{Repr, WireErrorKind};
    ///
    /// let mut bytes = vec![0u8; 37];
    /// bytes[0] = 1; // version
    /// bytes[15] = 7; // device id 7
    /// bytes[33] = 4 << 5; // BA = 4
    /// bytes[34] = 1; // one UID octet
    /// bytes[36] = 0xa0; // 1010 and four zero padding bits
    /// assert_eq!(Repr::parse(&bytes)?.space.clone(), uiap::space::UidSpace::Unique(uiap::space::Uid::new(&[0xa0], 4)?));
    /// bytes[36] = 0xaf;
    /// let err = Repr::parse(&bytes).unwrap_err();
    /// assert_eq!(err.kind(), WireErrorKind::NonZeroPadding);
    /// assert_eq!(err.offset(), 36);
    /// Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn parse(bytes: &[u8]) -> Result<Repr, WireError> {
        Repr::parse_packet(&Packet::new_unchecked(bytes))
    }

    /// Parses and validates a message already wrapped in a [`Packet`], as [`Repr::parse`] does.
    ///
    /// # Errors
    ///
    /// As [`Repr::parse`].
    ///
    /// ```
    /// use uiap::wire::{Packet, Repr, WireErrorKind};
    ///
    /// let packet = Packet::new_checked(&[0u8; 36][..])?;
    /// assert_eq!(Repr::parse_packet(&packet).unwrap_err().kind(), WireErrorKind::UnknownVersion);
    /// Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn parse_packet<T: AsRef<[u8]>>(packet: &Packet<T>) -> Result<Repr, WireError> {
        let len = packet.as_ref().len();
        if len < HEADER_LEN {
            // check_len reports the short header.
            packet.check_len()?;
        }
        let version = packet.version();
        if version != VERSION {
            return Err(WireError::new(
                WireErrorKind::UnknownVersion,
                field::VERSION,
                1,
                version.into(),
            ));
        }
        let raw_type = packet.msg_type_raw();
        let Some(msg_type) = MessageType::from_raw(raw_type) else {
            return Err(WireError::new(
                WireErrorKind::UnknownType,
                field::TYPE_FLAGS,
                0,
                raw_type.into(),
            ));
        };
        let fmt = packet.format_raw();
        if fmt == 3 {
            return Err(WireError::new(
                WireErrorKind::UnknownFormat,
                field::FORMAT,
                0,
                fmt.into(),
            ));
        }
        packet.check_len()?;
        let Some(origin) = DeviceId::new(packet.origin_raw()) else {
            return Err(WireError::new(
                WireErrorKind::ZeroDeviceId,
                field::ORIGIN.start,
                0,
                0,
            ));
        };
        let domain = packet.domain();
        if msg_type == MessageType::LossNotice {
            // A notice names no claim: every octet that would is 0, so that no receiver reads
            // one into it (docs/uiap-design.md D80).
            if let Some(at) = notice_claim_octet(packet) {
                return Err(WireError::new(
                    WireErrorKind::NoticeNamesClaim,
                    at,
                    0,
                    packet.as_ref()[at].into(),
                ));
            }
        }
        let j = domain.justification();
        let uid1 = parse_uid(packet.uid1(), packet.ba(), j, 1, field::UID)?;
        let space = match fmt {
            0 => UidSpace::Unique(uid1),
            1 => {
                if j == Justification::Right {
                    return Err(WireError::new(
                        WireErrorKind::PrefixInRightJustified,
                        field::FORMAT,
                        0,
                        1,
                    ));
                }
                UidSpace::Prefix(uid1)
            }
            _ => {
                let start2 = field::UID + usize::from(packet.uid_len());
                let uid2 = parse_uid(packet.uid2(), packet.ba2(), j, 2, start2)?;
                if uid1.compare(&uid2, j) == Ordering::Greater {
                    return Err(WireError::new(WireErrorKind::RangeReversed, start2, 0, 0));
                }
                UidSpace::Range {
                    low: uid1,
                    high: uid2,
                }
            }
        };
        Ok(Repr {
            msg_type,
            proxy: packet.proxy(),
            reclaim: packet.reclaim(),
            hop_limit: packet.hop_limit(),
            lifetime: packet.lifetime(),
            origin,
            sequence: packet.sequence(),
            claim_ref: packet.claim_ref(),
            domain,
            space,
        })
    }

    /// The number of octets [`emit`](Self::emit) writes: 36 + the UID octets.
    ///
    /// ```
    /// use uiap::space::{Uid, UidSpace};
    /// use uiap::wire::{DeviceId, MessageType, Repr};
    ///
    /// let repr = Repr {
    ///     msg_type: MessageType::ClaimAttempt, proxy: false, reclaim: false, hop_limit: 32,
    ///     lifetime: 60, origin: DeviceId::new(1).unwrap(), sequence: 0, claim_ref: 0,
    ///     domain: "1:2:3:0".parse()?,
    ///     space: UidSpace::Range { low: Uid::from_octets(&[13])?, high: Uid::from_octets(&[42])? },
    /// };
    /// assert_eq!(repr.buffer_len(), 38);
    /// Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn buffer_len(&self) -> usize {
        HEADER_LEN
            + match &self.space {
                UidSpace::Unique(v) | UidSpace::Prefix(v) => v.as_bytes().len(),
                UidSpace::Range { low, high } => low.as_bytes().len() + high.as_bytes().len(),
            }
    }

    /// Writes the message into `buf`, every reserved bit 0, UID Len 2 and BA2 0 outside ranges.
    ///
    /// The fields are written as they are: a `Repr` that [`parse`](Self::parse) would not
    /// return (say, a prefix in a right-justified domain) is emitted faithfully and rejected by
    /// the receiver.
    ///
    /// # Panics
    ///
    /// If `buf.len() != self.buffer_len()`. Never otherwise.
    ///
    /// ```
    /// use uiap::space::{Uid, UidSpace};
    /// use uiap::wire::{DeviceId, MessageType, Repr};
    ///
    /// let repr = Repr {
    ///     msg_type: MessageType::ClaimDeny, proxy: true, reclaim: true, hop_limit: 32,
    ///     lifetime: 60, origin: DeviceId::new(1).unwrap(), sequence: 0, claim_ref: 0,
    ///     domain: "1:2:3:0".parse()?, space: UidSpace::Unique(Uid::from_octets(&[42])?),
    /// };
    /// let mut buf = [0xa5; 37];
    /// repr.emit(&mut buf);
    /// assert_eq!(&buf[..4], &[0x01, 0x13, 0x00, 0x20]);
    /// assert_eq!(&buf[32..], &[0x00, 0x00, 0x01, 0x00, 42]);
    /// Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn emit(&self, buf: &mut [u8]) {
        assert_eq!(
            buf.len(),
            self.buffer_len(),
            "buffer length must equal Repr::buffer_len()"
        );
        let flags = (self.msg_type.raw() << 4)
            | if self.proxy { field::X } else { 0 }
            | if self.reclaim { field::R } else { 0 };
        buf[field::VERSION] = VERSION;
        buf[field::TYPE_FLAGS] = flags;
        buf[field::RESERVED] = 0;
        buf[field::HOP_LIMIT] = self.hop_limit;
        buf[field::LIFETIME].copy_from_slice(&self.lifetime.to_be_bytes());
        buf[field::ORIGIN].copy_from_slice(&self.origin.to_bytes());
        buf[field::SEQUENCE].copy_from_slice(&self.sequence.to_be_bytes());
        buf[field::CLAIM_REF].copy_from_slice(&self.claim_ref.to_be_bytes());
        buf[field::DOMAIN].copy_from_slice(self.domain.as_bytes());
        buf[field::RESERVED2] = 0;
        let (fmt, uid1, uid2) = match &self.space {
            UidSpace::Unique(v) => (0, v, None),
            UidSpace::Prefix(v) => (1, v, None),
            UidSpace::Range { low, high } => (2, low, Some(high)),
        };
        let ba2 = uid2.map_or(0, Uid::ba);
        buf[field::FORMAT] = (uid1.ba() << 5) | (ba2 << 2) | fmt;
        let len1 = uid1.as_bytes().len();
        let len2 = uid2.map_or(0, |u| u.as_bytes().len());
        // A Uid holds at most 255 octets, so both lengths fit their octet.
        buf[field::UID_LEN] = len1 as u8;
        buf[field::UID_LEN2] = len2 as u8;
        buf[field::UID..field::UID + len1].copy_from_slice(uid1.as_bytes());
        if let Some(uid2) = uid2 {
            buf[field::UID + len1..].copy_from_slice(uid2.as_bytes());
        }
    }

    /// Emits the message into a new vector of [`buffer_len`](Self::buffer_len) octets.
    ///
    /// ```
    /// use uiap::space::{Uid, UidSpace};
    /// use uiap::wire::{DeviceId, MessageType, Repr};
    ///
    /// let repr = Repr {
    ///     msg_type: MessageType::ClaimAttempt, proxy: false, reclaim: false, hop_limit: 32,
    ///     lifetime: 60, origin: DeviceId::new(1).unwrap(), sequence: 0, claim_ref: 0,
    ///     domain: "1:2:3:0".parse()?, space: UidSpace::Unique(Uid::from_octets(&[])?),
    /// };
    /// assert_eq!(repr.to_vec().len(), 36);
    /// Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn to_vec(&self) -> Vec<u8> {
        let mut buf = vec![0; self.buffer_len()];
        self.emit(&mut buf);
        buf
    }

    /// The message ID: (origin, sequence).
    ///
    /// ```
    /// use uiap::space::{Uid, UidSpace};
    /// use uiap::wire::{DeviceId, MessageId, MessageType, Repr};
    ///
    /// let origin = DeviceId::new(9).unwrap();
    /// let repr = Repr {
    ///     msg_type: MessageType::ClaimAttempt, proxy: false, reclaim: false, hop_limit: 32,
    ///     lifetime: 60, origin, sequence: 5, claim_ref: 0,
    ///     domain: "1:2:3:0".parse()?, space: UidSpace::Unique(Uid::from_octets(&[1])?),
    /// };
    /// assert_eq!(repr.message_id(), MessageId { origin, sequence: 5 });
    /// Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn message_id(&self) -> MessageId {
        MessageId {
            origin: self.origin,
            sequence: self.sequence,
        }
    }
}

/// The first octet of a Loss-Notice that would name a claim and is not 0: the flags X and R,
/// the Domain ID, the format octet and the UID lengths. `None` for a notice that names none.
fn notice_claim_octet<T: AsRef<[u8]>>(packet: &Packet<T>) -> Option<usize> {
    let bytes = packet.as_ref();
    if bytes[field::TYPE_FLAGS] & (field::X | field::R) != 0 {
        return Some(field::TYPE_FLAGS);
    }
    field::DOMAIN
        .chain([field::FORMAT, field::UID_LEN, field::UID_LEN2])
        .find(|&at| bytes[at] != 0)
}

/// Builds a UID from its wire octets and BA for justification `j`; `which` (1 or 2) and `start`
/// (offset of its first octet) locate errors.
fn parse_uid(
    bytes: &[u8],
    ba: u8,
    j: Justification,
    which: u32,
    start: usize,
) -> Result<Uid, WireError> {
    if bytes.is_empty() {
        if ba != 0 {
            return Err(WireError::new(
                WireErrorKind::EmptyUid,
                field::FORMAT,
                which,
                ba.into(),
            ));
        }
    } else if ba != 0 {
        let (at, octet, mask) = match j {
            Justification::Left => (bytes.len() - 1, bytes[bytes.len() - 1], 0xffu8 >> ba),
            Justification::Right => (0, bytes[0], 0xffu8 << ba),
        };
        if octet & mask != 0 {
            return Err(WireError::new(
                WireErrorKind::NonZeroPadding,
                start + at,
                mask.into(),
                octet.into(),
            ));
        }
    }
    // Cannot fail after the checks above (length <= 255 by construction); map defensively.
    Uid::from_wire(bytes, ba, j)
        .map_err(|_| WireError::new(WireErrorKind::BadBitAlignment, field::FORMAT, 0, ba.into()))
}
