//! The zero-copy view of a UIAP message (smoltcp style).

use super::{DeviceId, HEADER_LEN, MessageId, MessageType, WireError, WireErrorKind};
use crate::space::DomainId;

/// Octet offsets of the header fields (docs/uiap-design.md D1), in the order of the §4.1 figure.
pub(super) mod field {
    /// A range of octets.
    pub type Field = core::ops::Range<usize>;

    /// Version (= 1).
    pub const VERSION: usize = 0;
    /// Type (high nibble), 2 reserved bits, X (0x02), R (0x01).
    pub const TYPE_FLAGS: usize = 1;
    /// Reserved.
    pub const RESERVED: usize = 2;
    /// Hop Limit.
    pub const HOP_LIMIT: usize = 3;
    /// Lifetime in seconds.
    pub const LIFETIME: Field = 4..8;
    /// Originating Device ID.
    pub const ORIGIN: Field = 8..16;
    /// Sequence Number.
    pub const SEQUENCE: Field = 16..20;
    /// Claim Reference Number.
    pub const CLAIM_REF: Field = 20..24;
    /// Domain ID; its last octet (31) is the flags octet.
    pub const DOMAIN: Field = 24..32;
    /// Reserved.
    pub const RESERVED2: usize = 32;
    /// BA (top 3 bits), BA2 (next 3), Fmt (low 2).
    pub const FORMAT: usize = 33;
    /// UID Len.
    pub const UID_LEN: usize = 34;
    /// UID Len 2.
    pub const UID_LEN2: usize = 35;
    /// The first UID octet.
    pub const UID: usize = 36;

    /// Mask of the X (proxy enable) flag in [`TYPE_FLAGS`].
    pub const X: u8 = 0x02;
    /// Mask of the R (reclaim) flag in [`TYPE_FLAGS`].
    pub const R: u8 = 0x01;
}

/// The Fmt value of a range, the only format that carries UID 2.
const FMT_RANGE: u8 = 2;

/// A read/write view of a UIAP message in a buffer, without copying (smoltcp's `Packet`).
///
/// [`Packet::new_checked`] is the only length check: once it has succeeded, no getter panics.
/// The getters return the raw fields, reserved bits aside; they do not validate values (use
/// [`Repr::parse`](super::Repr::parse) for that). Forwarders use a `Packet` to pass the received
/// octets on unchanged except the hop limit (docs/uiap-design.md D3), and to turn an Attempt into a
/// Deny.
///
/// ```
/// use uiap::wire::{MessageType, Packet, INITIAL_HOP_LIMIT};
///
/// let attempt = [
///     0x01, 0x00, 0x00, 0x20, 0x00, 0x00, 0x0e, 0x10, // version, type/flags, -, hop limit, lifetime
///     0x02, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, // originating device id
///     0x00, 0x00, 0x00, 0x01, 0xde, 0xad, 0xbe, 0xef, // sequence, claim reference
///     0x00, 0x01, 0x00, 0x02, 0x00, 0x03, 0x00, 0x00, // domain id 1:2:3:0
///     0x00, 0x01, 0x02, 0x00, 0xc0, 0xa8, //             -, ba/ba2/fmt, uid len, uid len 2, uid
/// ];
/// let received = Packet::new_checked(&attempt[..])?;
/// assert_eq!(received.hop_limit(), 32);
/// assert_eq!(received.uid1(), &[0xc0, 0xa8]);
///
/// // Forward: the same octets, hop limit minus one.
/// let mut forwarded = Packet::new_checked(attempt.to_vec())?;
/// forwarded.set_hop_limit(received.hop_limit() - 1);
///
/// // Deny: the same octets, type 1 and a fresh hop limit.
/// let mut deny = Packet::new_checked(attempt.to_vec())?;
/// deny.set_msg_type(MessageType::ClaimDeny);
/// deny.set_hop_limit(INITIAL_HOP_LIMIT);
/// assert_eq!(deny.as_ref()[1], 0x10);
/// Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Packet<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Packet<T> {
    /// Wraps a buffer without checking its length. Getters may panic on a buffer that
    /// [`check_len`](Self::check_len) would reject; use this for buffers you build yourself.
    ///
    /// ```
    /// use uiap::wire::{Packet, HEADER_LEN};
    ///
    /// let packet = Packet::new_unchecked([0u8; HEADER_LEN]);
    /// assert_eq!(packet.uid_len(), 0);
    /// ```
    pub const fn new_unchecked(buffer: T) -> Packet<T> {
        Packet { buffer }
    }

    /// Wraps a buffer after checking its length (docs/uiap-design.md D2): at least 36 octets, and
    /// exactly 36 + UID Len, plus UID Len 2 when Fmt = 2 (range). Any other Fmt, including the
    /// undefined 3, carries UID 1 only.
    ///
    /// # Errors
    ///
    /// [`WireErrorKind::Truncated`] if shorter than the header, [`WireErrorKind::LengthMismatch`]
    /// if the length fields disagree with the length of the buffer.
    ///
    /// ```
    /// use uiap::wire::{Packet, WireErrorKind};
    ///
    /// let mut header = [0u8; 36];
    /// header[34] = 2; // UID Len 2, but no UID octets follow
    /// let err = Packet::new_checked(&header[..]).unwrap_err();
    /// assert_eq!(err.kind(), WireErrorKind::LengthMismatch);
    /// ```
    pub fn new_checked(buffer: T) -> Result<Packet<T>, WireError> {
        let packet = Packet::new_unchecked(buffer);
        packet.check_len()?;
        Ok(packet)
    }

    /// Checks the length rules of [`new_checked`](Self::new_checked).
    ///
    /// # Errors
    ///
    /// As [`new_checked`](Self::new_checked).
    ///
    /// ```
    /// use uiap::wire::{Packet, WireErrorKind};
    ///
    /// let err = Packet::new_unchecked(&[0u8; 35][..]).check_len().unwrap_err();
    /// assert_eq!(err.kind(), WireErrorKind::Truncated);
    /// ```
    pub fn check_len(&self) -> Result<(), WireError> {
        let len = self.buffer.as_ref().len();
        if len < HEADER_LEN {
            return Err(WireError::new(
                WireErrorKind::Truncated,
                len,
                HEADER_LEN as u32,
                len as u32,
            ));
        }
        let expected = self.total_len();
        if len != expected {
            let at = if self.format_raw() == FMT_RANGE {
                field::UID_LEN2
            } else {
                field::UID_LEN
            };
            // len <= 65535 for a datagram; saturate rather than wrap for anything larger.
            let found = u32::try_from(len).unwrap_or(u32::MAX);
            return Err(WireError::new(
                WireErrorKind::LengthMismatch,
                at,
                expected as u32,
                found,
            ));
        }
        Ok(())
    }

    /// The message length the header announces: 36 + UID Len (+ UID Len 2 for a range).
    ///
    /// ```
    /// use uiap::wire::Packet;
    ///
    /// let mut header = [0u8; 36];
    /// header[33] = 2; // Fmt = range
    /// header[34] = 4;
    /// header[35] = 4;
    /// assert_eq!(Packet::new_unchecked(header).total_len(), 44);
    /// ```
    pub fn total_len(&self) -> usize {
        let uid2 = if self.format_raw() == FMT_RANGE {
            usize::from(self.uid_len2())
        } else {
            0
        };
        HEADER_LEN + usize::from(self.uid_len()) + uid2
    }

    /// Returns the underlying buffer.
    ///
    /// ```
    /// use uiap::wire::Packet;
    ///
    /// assert_eq!(Packet::new_unchecked(vec![1u8; 36]).into_inner().len(), 36);
    /// ```
    pub fn into_inner(self) -> T {
        self.buffer
    }

    fn octet(&self, at: usize) -> u8 {
        self.buffer.as_ref()[at]
    }

    fn be32(&self, at: core::ops::Range<usize>) -> u32 {
        let b = &self.buffer.as_ref()[at];
        u32::from_be_bytes([b[0], b[1], b[2], b[3]])
    }

    /// Octet 0: the protocol version (1 for this draft).
    ///
    /// ```
    /// use uiap::wire::Packet;
    ///
    /// let mut header = [0u8; 36];
    /// header[0] = 1;
    /// assert_eq!(Packet::new_unchecked(header).version(), 1);
    /// ```
    pub fn version(&self) -> u8 {
        self.octet(field::VERSION)
    }

    /// The message type nibble (high half of octet 1): 0 Claim-Attempt, 1 Claim-Deny.
    ///
    /// ```
    /// use uiap::wire::Packet;
    ///
    /// let mut header = [0u8; 36];
    /// header[1] = 0x1f;
    /// assert_eq!(Packet::new_unchecked(header).msg_type_raw(), 1);
    /// ```
    pub fn msg_type_raw(&self) -> u8 {
        self.octet(field::TYPE_FLAGS) >> 4
    }

    /// The X (proxy enable) flag, octet 1 mask `0x02`.
    ///
    /// ```
    /// use uiap::wire::Packet;
    ///
    /// let mut header = [0u8; 36];
    /// header[1] = 0x02;
    /// assert!(Packet::new_unchecked(header).proxy());
    /// ```
    pub fn proxy(&self) -> bool {
        self.octet(field::TYPE_FLAGS) & field::X != 0
    }

    /// The R (reclaim) flag, octet 1 mask `0x01`.
    ///
    /// ```
    /// use uiap::wire::Packet;
    ///
    /// let mut header = [0u8; 36];
    /// header[1] = 0x01;
    /// assert!(Packet::new_unchecked(header).reclaim());
    /// ```
    pub fn reclaim(&self) -> bool {
        self.octet(field::TYPE_FLAGS) & field::R != 0
    }

    /// Octet 3: the hop limit.
    ///
    /// ```
    /// use uiap::wire::Packet;
    ///
    /// let mut header = [0u8; 36];
    /// header[3] = 32;
    /// assert_eq!(Packet::new_unchecked(header).hop_limit(), 32);
    /// ```
    pub fn hop_limit(&self) -> u8 {
        self.octet(field::HOP_LIMIT)
    }

    /// Octets 4–7: the lifetime in seconds (`0xffff_ffff` = infinite, docs/uiap-design.md D5).
    ///
    /// ```
    /// use uiap::wire::Packet;
    ///
    /// let mut header = [0u8; 36];
    /// header[6..8].copy_from_slice(&[0x0e, 0x10]);
    /// assert_eq!(Packet::new_unchecked(header).lifetime(), 3600);
    /// ```
    pub fn lifetime(&self) -> u32 {
        self.be32(field::LIFETIME)
    }

    /// Octets 8–15: the originating device ID as a number (0 if the sender broke the rules).
    ///
    /// ```
    /// use uiap::wire::Packet;
    ///
    /// let mut header = [0u8; 36];
    /// header[15] = 7;
    /// assert_eq!(Packet::new_unchecked(header).origin_raw(), 7);
    /// ```
    pub fn origin_raw(&self) -> u64 {
        let b = &self.buffer.as_ref()[field::ORIGIN];
        u64::from_be_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]])
    }

    /// Octets 16–19: the sequence number.
    ///
    /// ```
    /// use uiap::wire::Packet;
    ///
    /// let mut header = [0u8; 36];
    /// header[19] = 1;
    /// assert_eq!(Packet::new_unchecked(header).sequence(), 1);
    /// ```
    pub fn sequence(&self) -> u32 {
        self.be32(field::SEQUENCE)
    }

    /// Octets 20–23: the claim reference number.
    ///
    /// ```
    /// use uiap::wire::Packet;
    ///
    /// let mut header = [0u8; 36];
    /// header[20..24].copy_from_slice(&[0xde, 0xad, 0xbe, 0xef]);
    /// assert_eq!(Packet::new_unchecked(header).claim_ref(), 0xdead_beef);
    /// ```
    pub fn claim_ref(&self) -> u32 {
        self.be32(field::CLAIM_REF)
    }

    /// Octets 24–31: the Domain ID, flags octet included.
    ///
    /// ```
    /// use uiap::wire::Packet;
    ///
    /// let mut header = [0u8; 36];
    /// header[31] = 0x80;
    /// assert_eq!(Packet::new_unchecked(header).domain().to_string(), "0:0:0:80");
    /// ```
    pub fn domain(&self) -> DomainId {
        let b = &self.buffer.as_ref()[field::DOMAIN];
        DomainId::from_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]])
    }

    /// BA: the top 3 bits of octet 33.
    ///
    /// ```
    /// use uiap::wire::Packet;
    ///
    /// let mut header = [0u8; 36];
    /// header[33] = 0b100_011_10;
    /// assert_eq!(Packet::new_unchecked(header).ba(), 4);
    /// ```
    pub fn ba(&self) -> u8 {
        self.octet(field::FORMAT) >> 5
    }

    /// BA2: bits 4–2 of octet 33 (meaningful for ranges only).
    ///
    /// ```
    /// use uiap::wire::Packet;
    ///
    /// let mut header = [0u8; 36];
    /// header[33] = 0b100_011_10;
    /// assert_eq!(Packet::new_unchecked(header).ba2(), 3);
    /// ```
    pub fn ba2(&self) -> u8 {
        (self.octet(field::FORMAT) >> 2) & 0x07
    }

    /// Fmt: the low 2 bits of octet 33 (0 unique, 1 prefix, 2 range; 3 undefined).
    ///
    /// ```
    /// use uiap::wire::Packet;
    ///
    /// let mut header = [0u8; 36];
    /// header[33] = 0b100_011_10;
    /// assert_eq!(Packet::new_unchecked(header).format_raw(), 2);
    /// ```
    pub fn format_raw(&self) -> u8 {
        self.octet(field::FORMAT) & 0x03
    }

    /// Octet 34: UID Len, the number of octets of UID 1.
    ///
    /// ```
    /// use uiap::wire::Packet;
    ///
    /// let mut header = [0u8; 36];
    /// header[34] = 2;
    /// assert_eq!(Packet::new_unchecked(header).uid_len(), 2);
    /// ```
    pub fn uid_len(&self) -> u8 {
        self.octet(field::UID_LEN)
    }

    /// Octet 35: UID Len 2, the number of octets of UID 2 (ranges only; ignored otherwise).
    ///
    /// ```
    /// use uiap::wire::Packet;
    ///
    /// let mut header = [0u8; 36];
    /// header[35] = 5;
    /// assert_eq!(Packet::new_unchecked(header).uid_len2(), 5);
    /// ```
    pub fn uid_len2(&self) -> u8 {
        self.octet(field::UID_LEN2)
    }

    /// The octets of UID 1.
    ///
    /// ```
    /// use uiap::wire::Packet;
    ///
    /// let mut message = vec![0u8; 38];
    /// message[34] = 2;
    /// message[36..].copy_from_slice(&[0xc0, 0xa8]);
    /// assert_eq!(Packet::new_checked(&message[..])?.uid1(), &[0xc0, 0xa8]);
    /// Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn uid1(&self) -> &[u8] {
        let start = field::UID;
        &self.buffer.as_ref()[start..start + usize::from(self.uid_len())]
    }

    /// The octets of UID 2: the upper bound of a range, empty for any other format (whatever
    /// UID Len 2 says, §4.1).
    ///
    /// ```
    /// use uiap::wire::Packet;
    ///
    /// let mut message = vec![0u8; 38];
    /// message[33] = 2; // range
    /// message[34] = 1;
    /// message[35] = 1;
    /// message[36..].copy_from_slice(&[13, 42]);
    /// assert_eq!(Packet::new_checked(&message[..])?.uid2(), &[42]);
    /// Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn uid2(&self) -> &[u8] {
        if self.format_raw() != FMT_RANGE {
            return &[];
        }
        let start = field::UID + usize::from(self.uid_len());
        &self.buffer.as_ref()[start..start + usize::from(self.uid_len2())]
    }

    /// The message ID (originating device, sequence number), or `None` if the device ID is the
    /// reserved 0.
    ///
    /// ```
    /// use uiap::wire::Packet;
    ///
    /// let mut header = [0u8; 36];
    /// assert_eq!(Packet::new_unchecked(header).message_id(), None);
    /// header[15] = 7;
    /// header[19] = 1;
    /// let id = Packet::new_unchecked(header).message_id().unwrap();
    /// assert_eq!((id.origin.get(), id.sequence), (7, 1));
    /// ```
    pub fn message_id(&self) -> Option<MessageId> {
        Some(MessageId {
            origin: DeviceId::new(self.origin_raw())?,
            sequence: self.sequence(),
        })
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Packet<T> {
    /// Sets the hop limit (octet 3).
    ///
    /// ```
    /// use uiap::wire::Packet;
    ///
    /// let mut packet = Packet::new_unchecked([0u8; 36]);
    /// packet.set_hop_limit(31);
    /// assert_eq!(packet.hop_limit(), 31);
    /// ```
    pub fn set_hop_limit(&mut self, hop_limit: u8) {
        self.buffer.as_mut()[field::HOP_LIMIT] = hop_limit;
    }

    /// Sets the message type nibble, leaving the reserved bits and X and R as they are.
    ///
    /// ```
    /// use uiap::wire::{MessageType, Packet};
    ///
    /// let mut packet = Packet::new_unchecked([0u8; 36]);
    /// packet.as_mut()[1] = 0x03;
    /// packet.set_msg_type(MessageType::ClaimDeny);
    /// assert_eq!(packet.as_ref()[1], 0x13);
    /// ```
    pub fn set_msg_type(&mut self, msg_type: MessageType) {
        let octet = &mut self.buffer.as_mut()[field::TYPE_FLAGS];
        *octet = (*octet & 0x0f) | (msg_type.raw() << 4);
    }

    /// Sets the lifetime (octets 4–7); a Deny MAY carry 0 (§4.5.2).
    ///
    /// ```
    /// use uiap::wire::Packet;
    ///
    /// let mut packet = Packet::new_unchecked([0u8; 36]);
    /// packet.set_lifetime(3600);
    /// assert_eq!(packet.lifetime(), 3600);
    /// ```
    pub fn set_lifetime(&mut self, lifetime: u32) {
        self.buffer.as_mut()[field::LIFETIME].copy_from_slice(&lifetime.to_be_bytes());
    }
}

impl<T: AsRef<[u8]>> AsRef<[u8]> for Packet<T> {
    fn as_ref(&self) -> &[u8] {
        self.buffer.as_ref()
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> AsMut<[u8]> for Packet<T> {
    fn as_mut(&mut self) -> &mut [u8] {
        self.buffer.as_mut()
    }
}
