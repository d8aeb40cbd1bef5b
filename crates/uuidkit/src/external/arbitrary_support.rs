//! `arbitrary`: a [`Uuid`] from 16 bytes of fuzzer input, so fuzz targets
//! and property tests can take UUIDs (and structs holding them) directly.

use arbitrary::{Arbitrary, Result, Unstructured};

use crate::{NonNilUuid, Uuid};

/// Takes 16 bytes of input as the UUID's octets, so every UUID (Nil, Max,
/// every version and variant) can come out.
///
/// ```
/// use arbitrary::{Arbitrary, Unstructured};
/// use uuidkit::Uuid;
/// let input = [0xf8, 0x1d, 0x4f, 0xae, 0x7d, 0xec, 0x11, 0xd0, 0xa7, 0x65, 0, 0xa0, 0xc9, 0x1e, 0x6b, 0xf6];
/// let u = Uuid::arbitrary(&mut Unstructured::new(&input))?;
/// assert_eq!(u.to_string(), "f81d4fae-7dec-11d0-a765-00a0c91e6bf6");
/// assert_eq!(<Uuid as Arbitrary>::size_hint(0), (16, Some(16)));
/// # Ok::<(), arbitrary::Error>(())
/// ```
impl<'a> Arbitrary<'a> for Uuid {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Uuid> {
        <[u8; 16]>::arbitrary(u).map(Uuid::from_bytes)
    }

    fn size_hint(_depth: usize) -> (usize, Option<usize>) {
        (16, Some(16))
    }
}

/// As for [`Uuid`]; sixteen zero bytes are
/// [`IncorrectFormat`](arbitrary::Error::IncorrectFormat), the error that
/// tells a fuzzer to try other input.
///
/// ```
/// use arbitrary::{Arbitrary, Unstructured};
/// use uuidkit::NonNilUuid;
/// let err = NonNilUuid::arbitrary(&mut Unstructured::new(&[0; 16])).unwrap_err();
/// assert!(matches!(err, arbitrary::Error::IncorrectFormat));
/// let id = NonNilUuid::arbitrary(&mut Unstructured::new(&[1; 16]))?;
/// assert_eq!(id.get().as_bytes(), &[1; 16]);
/// # Ok::<(), arbitrary::Error>(())
/// ```
impl<'a> Arbitrary<'a> for NonNilUuid {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<NonNilUuid> {
        NonNilUuid::new(Uuid::arbitrary(u)?).ok_or(arbitrary::Error::IncorrectFormat)
    }

    fn size_hint(depth: usize) -> (usize, Option<usize>) {
        Uuid::size_hint(depth)
    }
}

#[cfg(test)]
mod tests {
    use arbitrary::{Arbitrary, Unstructured};

    use crate::Uuid;

    #[test]
    fn consumes_exactly_sixteen_bytes_in_order() {
        let input: [u8; 20] = core::array::from_fn(|i| i as u8);
        let mut u = Unstructured::new(&input);
        let a = Uuid::arbitrary(&mut u).unwrap();
        assert_eq!(a.as_u128(), 0x000102030405060708090a0b0c0d0e0f);
        assert_eq!(u.len(), 4);
        // Short input is padded with zeros by `arbitrary`, never a panic.
        let b = Uuid::arbitrary(&mut u).unwrap();
        assert_eq!(b.as_bytes()[..4], [16, 17, 18, 19]);
        assert_eq!(b.as_bytes()[4..], [0; 12]);
    }
}
