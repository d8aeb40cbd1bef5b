//! `borsh`: a [`Uuid`] is its 16 octets, in order, with no length prefix
//! (borsh's encoding of `[u8; 16]`).

use borsh::io::{Read, Result, Write};
use borsh::{BorshDeserialize, BorshSerialize};

use crate::Uuid;

/// Writes the 16 octets as they are.
///
/// ```
/// use uuidkit::Uuid;
/// let u = Uuid::from_u128(0xf81d4fae_7dec_11d0_a765_00a0c91e6bf6);
/// let bytes = borsh::to_vec(&u)?;
/// assert_eq!(bytes, u.as_bytes());
/// assert_eq!(borsh::from_slice::<Uuid>(&bytes)?, u);
/// # Ok::<(), borsh::io::Error>(())
/// ```
impl BorshSerialize for Uuid {
    fn serialize<W: Write>(&self, writer: &mut W) -> Result<()> {
        writer.write_all(self.as_bytes())
    }
}

/// Reads 16 octets; fewer is an error (borsh's unexpected end of input).
impl BorshDeserialize for Uuid {
    fn deserialize_reader<R: Read>(reader: &mut R) -> Result<Uuid> {
        <[u8; 16]>::deserialize_reader(reader).map(Uuid::from_bytes)
    }
}

#[cfg(test)]
mod tests {
    use std::vec::Vec;

    use crate::Uuid;

    #[test]
    fn round_trips_as_sixteen_bytes_and_refuses_short_input() {
        let list = [Uuid::NIL, Uuid::from_u128(0x0102), Uuid::MAX];
        for u in list {
            let bytes = borsh::to_vec(&u).unwrap();
            assert_eq!(bytes.len(), 16);
            assert_eq!(bytes, u.as_bytes());
            assert_eq!(borsh::from_slice::<Uuid>(&bytes).unwrap(), u);
        }
        // In a container: borsh's u32 length, then 16 octets each.
        let v = borsh::to_vec(&Vec::from(list)).unwrap();
        assert_eq!(v.len(), 4 + 48);
        assert_eq!(v[..4], 3u32.to_le_bytes());
        assert_eq!(&v[4 + 16..4 + 32], Uuid::from_u128(0x0102).as_bytes());

        assert!(borsh::from_slice::<Uuid>(&[0; 15]).is_err());
        // Trailing bytes are refused by `from_slice`, too.
        assert!(borsh::from_slice::<Uuid>(&[0; 17]).is_err());
    }
}
