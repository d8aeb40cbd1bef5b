//! `speedy`: a [`Uuid`] is its 16 octets in order, whatever the context's
//! endianness, as speedy's own `uuid` feature writes `uuid::Uuid`.

use speedy::{Context, Readable, Reader, Writable, Writer};

use crate::Uuid;

/// Reads 16 octets; fewer is speedy's end-of-input error.
///
/// ```
/// use speedy::{Readable, Writable};
/// use uuidkit::Uuid;
///
/// let id = Uuid::parse("f81d4fae-7dec-11d0-a765-00a0c91e6bf6")?;
/// let bytes = id.write_to_vec()?;
/// assert_eq!(bytes, id.as_bytes()); // no length, no byte swapping
/// assert_eq!(Uuid::read_from_buffer(&bytes)?, id);
/// assert!(Uuid::read_from_buffer(&bytes[..15]).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
impl<'a, C: Context> Readable<'a, C> for Uuid {
    #[inline]
    fn read_from<R: Reader<'a, C>>(reader: &mut R) -> Result<Self, C::Error> {
        let mut bytes = [0; 16];
        reader.read_bytes(&mut bytes)?;
        Ok(Uuid::from_bytes(bytes))
    }

    #[inline]
    fn minimum_bytes_needed() -> usize {
        16
    }
}

/// Writes the 16 octets as they are.
impl<C: Context> Writable<C> for Uuid {
    #[inline]
    fn write_to<T: ?Sized + Writer<C>>(&self, writer: &mut T) -> Result<(), C::Error> {
        writer.write_bytes(self.as_bytes())
    }

    #[inline]
    fn bytes_needed(&self) -> Result<usize, C::Error> {
        Ok(16)
    }
}
