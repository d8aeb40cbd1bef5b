//! `rkyv`: a [`Uuid`] archives as itself, its 16 octets (alignment 1, no
//! resolver, no relative pointer), as rkyv's own `uuid-1` feature archives
//! `uuid::Uuid`: an archived struct holds a `Uuid` field a reader uses as it
//! is, without deserializing, and the archive's bytes are the same.

use rkyv::bytecheck::CheckBytes;
use rkyv::rancor::Fallible;
use rkyv::traits::{CopyOptimization, NoUndef};
use rkyv::{Archive, Deserialize, Place, Portable, Serialize};

use crate::Uuid;

// SAFETY: `Uuid` is `#[repr(transparent)]` over `[u8; 16]`: the same layout
// on every platform (size 16, alignment 1, no padding), as `Portable` asks.
unsafe impl Portable for Uuid {}

// SAFETY: 16 initialised bytes and nothing else: no padding, no undefined
// byte to leak into an archive.
unsafe impl NoUndef for Uuid {}

// SAFETY: every bit pattern of 16 bytes is a valid `Uuid`, so there is
// nothing to check (`[u8; 16]` has no invalid values either).
unsafe impl<C: Fallible + ?Sized> CheckBytes<C> for Uuid {
    #[inline]
    unsafe fn check_bytes(_: *const Self, _: &mut C) -> Result<(), C::Error> {
        Ok(())
    }
}

/// The archived form is the `Uuid` itself.
///
/// ```
/// use rkyv::rancor::Error;
/// use uuidkit::Uuid;
///
/// #[derive(rkyv::Archive, rkyv::Serialize, rkyv::Deserialize)]
/// struct Event {
///     id: Uuid,
///     seq: u32,
/// }
/// let id = Uuid::parse("f81d4fae-7dec-11d0-a765-00a0c91e6bf6")?;
/// let bytes = rkyv::to_bytes::<Error>(&Event { id, seq: 7 })?;
/// let archived = rkyv::access::<ArchivedEvent, Error>(&bytes)?;
/// assert_eq!(archived.id, id); // read in place, no copy
/// assert_eq!(&bytes[..16], id.as_bytes());
/// let back: Event = rkyv::deserialize::<Event, Error>(archived)?;
/// assert_eq!(back.id, id);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
impl Archive for Uuid {
    // SAFETY: the archived form is the value itself, byte for byte, so
    // serializing may copy it as a block.
    const COPY_OPTIMIZATION: CopyOptimization<Self> = unsafe { CopyOptimization::enable() };

    type Archived = Uuid;
    type Resolver = ();

    #[inline]
    fn resolve(&self, _: Self::Resolver, out: Place<Self::Archived>) {
        out.write(*self);
    }
}

/// Nothing to write out of line: the octets are the archived value.
impl<S: Fallible + ?Sized> Serialize<S> for Uuid {
    #[inline]
    fn serialize(&self, _: &mut S) -> Result<Self::Resolver, S::Error> {
        Ok(())
    }
}

/// Copies the archived octets out.
impl<D: Fallible + ?Sized> Deserialize<Uuid, D> for Uuid {
    #[inline]
    fn deserialize(&self, _: &mut D) -> Result<Uuid, D::Error> {
        Ok(*self)
    }
}
