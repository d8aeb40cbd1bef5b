//! The hexadecimal text of a UUID as the parser, the formatter and the
//! vector code in `arch` share it: the digits, the fast decoders' result
//! and the length of a line. This module uses nothing else of the crate.

/// The hex digits in value order, in the case asked for.
#[inline(always)]
pub(crate) const fn digits(upper: bool) -> &'static [u8; 16] {
    if upper {
        b"0123456789ABCDEF"
    } else {
        b"0123456789abcdef"
    }
}

/// The fast decoders' result: the 16 bytes as a native-endian `u128`, which
/// the Rust ABI returns in two registers. An `Option<Uuid>` or a `[u8; 16]`
/// would go through memory, and an `Option<Uuid>` keeps its UUID at offset 1,
/// where reloading it whole from two 8-byte stores defeats store forwarding.
///
/// [`FAILED`] (the Max UUID's bytes) stands for "invalid"; a valid Max UUID
/// also gives it, and the parser tells the two apart on its slow path.
pub(crate) type Fast = u128;

/// See [`Fast`].
pub(crate) const FAILED: Fast = u128::MAX;

/// The length of a line of `Hyphenated::encode_lines_lower`: the hyphenated
/// form and a newline.
pub(crate) const LINE: usize = 37;
