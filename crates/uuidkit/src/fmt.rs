//! Writing UUIDs as text: `Display` (canonical lowercase), `{:X}`, and the
//! [`Hyphenated`], [`Simple`], [`Braced`] and [`Urn`] adapters, each of which
//! can also encode into a caller's buffer without allocating.
//!
//! The adapters are also at the crate root; this module is where the `uuid`
//! crate has them (`uuid::fmt::Hyphenated`).
//!
//! The 16 bytes become 32 hex digits at once (with the best vector code the
//! CPU has; a table elsewhere); the hyphens and wrapping
//! are then put around them. For many UUIDs at once,
//! [`Hyphenated::encode_lines_lower`] writes whole lines in bulk.

use core::fmt;

use crate::Uuid;
use crate::hex::LINE;

/// The portable encoder: 16 bytes to 32 hex digits (the fallback where
/// [`crate::arch`] has no vector code, and the reference its encoders are
/// tested against).
#[inline]
pub(crate) const fn encode32_scalar(bytes: &[u8; 16], upper: bool) -> [u8; 32] {
    let table = crate::hex::digits(upper);
    let mut out = [0u8; 32];
    let mut i = 0;
    while i < 16 {
        out[2 * i] = table[(bytes[i] >> 4) as usize];
        out[2 * i + 1] = table[(bytes[i] & 0x0f) as usize];
        i += 1;
    }
    out
}

/// 16 bytes to 32 hex digits with the best encoder this CPU has.
#[inline(always)]
fn encode32(bytes: &[u8; 16], upper: bool) -> [u8; 32] {
    crate::arch::encode32(bytes, upper).unwrap_or_else(|| encode32_scalar(bytes, upper))
}

/// Where the text goes, which decides the faster encoder.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Sink {
    /// The caller's buffer (`encode_*`, batches): the widest encoder the CPU
    /// has.
    Buffer,
    /// A `Formatter` (`Display`, `to_string`), which copies the text out at
    /// once: the encoder the compiler sees whole (no feature check, no
    /// zeroing of the stack buffer), reading the UUID in two halves.
    Formatter,
}

/// Writes the 36-character hyphenated form: into a caller's buffer with the
/// widest encoder the CPU has, into a `Formatter` with the one the compiler
/// sees whole.
#[inline(always)]
fn hyphenated(bytes: &[u8; 16], upper: bool, out: &mut [u8; 36], sink: Sink) {
    if sink == Sink::Buffer && crate::arch::encode_hyphenated_wide(bytes, upper, out) {
        return;
    }
    if !crate::arch::encode_hyphenated(bytes, upper, out) {
        place_hyphens(&encode32_scalar(bytes, upper), out);
    }
}

/// The 32 digits `d` as the 36-character hyphenated form (8-4-4-4-12): the
/// portable path, and the reference the vector paths are tested against.
#[inline(always)]
pub(crate) fn place_hyphens(d: &[u8; 32], out: &mut [u8; 36]) {
    out[0..8].copy_from_slice(&d[0..8]);
    out[8] = b'-';
    out[9..13].copy_from_slice(&d[8..12]);
    out[13] = b'-';
    out[14..18].copy_from_slice(&d[12..16]);
    out[18] = b'-';
    out[19..23].copy_from_slice(&d[16..20]);
    out[23] = b'-';
    out[24..36].copy_from_slice(&d[20..32]);
}

/// The portable line encoder, one UUID at a time with the best per-UUID
/// encoder (the tail of a batch, and everything where [`crate::arch`] has no
/// bulk path).
#[inline]
pub(crate) fn lines_each(uuids: &[Uuid], out: &mut [u8], upper: bool) {
    for (u, line) in uuids.iter().zip(out.chunks_exact_mut(LINE)) {
        if let Some(text) = line.first_chunk_mut::<36>() {
            hyphenated(u.as_bytes(), upper, text, Sink::Buffer);
        }
        line[36] = b'\n';
    }
}

/// The reference the line encoders are tested against: the scalar encoder,
/// one UUID at a time.
#[cfg(any(test, fuzzing))]
pub(crate) fn lines_scalar(uuids: &[Uuid], out: &mut [u8], upper: bool) {
    for (u, line) in uuids.iter().zip(out.chunks_exact_mut(LINE)) {
        if let Some(text) = line.first_chunk_mut::<36>() {
            place_hyphens(&encode32_scalar(u.as_bytes(), upper), text);
        }
        line[36] = b'\n';
    }
}

/// Encodes `uuids` as lines into the start of `out` (at least `37 × len`
/// bytes): in bulk where the CPU can, the rest one at a time.
#[inline]
fn lines_encode(uuids: &[Uuid], out: &mut [u8], upper: bool) {
    let done = crate::arch::encode_lines(uuids, out, upper);
    lines_each(&uuids[done..], &mut out[LINE * done..], upper);
}

#[cold]
#[inline(never)]
#[track_caller]
pub(crate) fn buffer_too_small(len: usize, needed: usize) -> ! {
    panic!("buffer of {len} bytes is too small: expected at least {needed}")
}

macro_rules! adapter {
    (
        $(#[$doc:meta])*
        $name:ident, $len:expr, $method:ident, $example:literal,
        |$bytes:ident, $upper:ident, $out:ident, $sink:ident| $write:block
    ) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
        #[repr(transparent)]
        pub struct $name(Uuid);

        impl $name {
            /// The length of this form, in bytes (every character is ASCII).
            pub const LENGTH: usize = $len;

            /// Wraps a UUID; same as the method on [`Uuid`].
            #[inline]
            pub const fn from_uuid(uuid: Uuid) -> Self {
                $name(uuid)
            }

            /// The UUID this formats.
            #[must_use]
            #[inline]
            pub const fn as_uuid(&self) -> &Uuid {
                &self.0
            }

            /// The UUID this formats, by value.
            ///
            /// ```
            /// use uuidkit::Uuid;
            #[doc = concat!("assert_eq!(Uuid::MAX.", stringify!($method), "().into_uuid(), Uuid::MAX);")]
            /// ```
            #[must_use]
            #[inline]
            pub const fn into_uuid(self) -> Uuid {
                self.0
            }

            #[inline(always)]
            fn write(&self, $upper: bool, $out: &mut [u8; $len], $sink: Sink) {
                let $bytes = self.0.as_bytes();
                $write
            }

            #[inline(always)]
            fn encode<'b>(&self, buf: &'b mut [u8], upper: bool, sink: Sink) -> &'b mut str {
                let len = buf.len();
                let Some(out) = buf.first_chunk_mut::<{ $len }>() else {
                    buffer_too_small(len, $len)
                };
                self.write(upper, out, sink);
                // SAFETY: `write` filled `out` with ASCII only.
                unsafe { core::str::from_utf8_unchecked_mut(out) }
            }

            /// Writes the lowercase form into the start of `buf` and returns it as
            /// a `&mut str`, without allocating.
            ///
            /// # Panics
            ///
            /// If `buf` is shorter than [`Self::LENGTH`].
            ///
            /// ```
            /// use uuidkit::Uuid;
            /// let u = Uuid::from_u128(0xf81d4fae_7dec_11d0_a765_00a0c91e6bf6);
            #[doc = concat!("let mut buf = [0u8; ", stringify!($len), "];")]
            #[doc = concat!("assert_eq!(u.", stringify!($method), "().encode_lower(&mut buf), \"", $example, "\");")]
            /// ```
            #[inline]
            pub fn encode_lower<'b>(&self, buf: &'b mut [u8]) -> &'b mut str {
                self.encode(buf, false, Sink::Buffer)
            }

            /// Writes the uppercase form into the start of `buf` and returns it as
            /// a `&mut str`, without allocating. Only the hex digits change case.
            ///
            /// # Panics
            ///
            /// If `buf` is shorter than [`Self::LENGTH`].
            ///
            /// ```
            /// use uuidkit::Uuid;
            /// let u = Uuid::from_u128(0xf81d4fae_7dec_11d0_a765_00a0c91e6bf6);
            /// let mut buf = [0u8; 64];
            #[doc = concat!("let s = u.", stringify!($method), "().encode_upper(&mut buf);")]
            #[doc = concat!("assert_eq!(s.len(), ", stringify!($len), ");")]
            /// assert!(s.contains("F81D4FAE"));
            /// ```
            #[inline]
            pub fn encode_upper<'b>(&self, buf: &'b mut [u8]) -> &'b mut str {
                self.encode(buf, true, Sink::Buffer)
            }

            /// Encodes into a stack buffer and hands it over with one
            /// `write_str`; `pad` only when a width or precision asks for it.
            #[inline]
            fn fmt_case(&self, f: &mut fmt::Formatter<'_>, upper: bool) -> fmt::Result {
                let mut buf = [0u8; $len];
                let text = self.encode(&mut buf, upper, Sink::Formatter);
                if f.width().is_none() && f.precision().is_none() {
                    f.write_str(text)
                } else {
                    f.pad(text)
                }
            }
        }

        impl From<Uuid> for $name {
            #[inline]
            fn from(u: Uuid) -> Self {
                $name(u)
            }
        }

        impl From<$name> for Uuid {
            #[inline]
            fn from(a: $name) -> Uuid {
                a.0
            }
        }

        impl core::str::FromStr for $name {
            type Err = crate::ParseError;

            /// As [`Uuid::parse`]: any of the four forms, in any case
            /// (the `uuid` crate's adapters read only their own form).
            fn from_str(s: &str) -> Result<Self, crate::ParseError> {
                Uuid::parse(s).map($name)
            }
        }

        impl fmt::Display for $name {
            /// Lowercase; honours width, fill and alignment.
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.fmt_case(f, false)
            }
        }

        impl fmt::LowerHex for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.fmt_case(f, false)
            }
        }

        impl fmt::UpperHex for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.fmt_case(f, true)
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.fmt_case(f, false)
            }
        }
    };
}

adapter!(
    /// The hyphenated form of RFC 9562 §4, `f81d4fae-7dec-11d0-a765-00a0c91e6bf6`
    /// (what `Display` on [`Uuid`] writes).
    ///
    /// ```
    /// use uuidkit::Uuid;
    /// let u = Uuid::from_u128(0xf81d4fae_7dec_11d0_a765_00a0c91e6bf6);
    /// assert_eq!(format!("{:X}", u.hyphenated()), "F81D4FAE-7DEC-11D0-A765-00A0C91E6BF6");
    /// ```
    Hyphenated, 36, hyphenated, "f81d4fae-7dec-11d0-a765-00a0c91e6bf6",
    |bytes, upper, out, sink| { hyphenated(bytes, upper, out, sink) }
);

adapter!(
    /// The simple form: 32 hex digits, `f81d4fae7dec11d0a76500a0c91e6bf6`.
    ///
    /// ```
    /// use uuidkit::Uuid;
    /// let u = Uuid::from_u128(0xf81d4fae_7dec_11d0_a765_00a0c91e6bf6);
    /// assert_eq!(u.simple().to_string(), "f81d4fae7dec11d0a76500a0c91e6bf6");
    /// ```
    Simple, 32, simple, "f81d4fae7dec11d0a76500a0c91e6bf6",
    |bytes, upper, out, _sink| { *out = encode32(bytes, upper) }
);

adapter!(
    /// The braced form used by Microsoft tools, `{f81d4fae-7dec-11d0-a765-00a0c91e6bf6}`.
    ///
    /// ```
    /// use uuidkit::Uuid;
    /// let u = Uuid::from_u128(0xf81d4fae_7dec_11d0_a765_00a0c91e6bf6);
    /// assert_eq!(u.braced().to_string(), "{f81d4fae-7dec-11d0-a765-00a0c91e6bf6}");
    /// ```
    Braced, 38, braced, "{f81d4fae-7dec-11d0-a765-00a0c91e6bf6}",
    |bytes, upper, out, sink| {
        out[0] = b'{';
        if let Some(body) = out[1..].first_chunk_mut::<36>() {
            hyphenated(bytes, upper, body, sink);
        }
        out[37] = b'}';
    }
);

adapter!(
    /// The URN form of RFC 9562 §4 (RFC 8141 namespace `uuid`),
    /// `urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6`. The prefix stays
    /// lowercase in `{:X}`.
    ///
    /// ```
    /// use uuidkit::Uuid;
    /// let u = Uuid::from_u128(0xf81d4fae_7dec_11d0_a765_00a0c91e6bf6);
    /// assert_eq!(u.urn().to_string(), "urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6");
    /// ```
    Urn, 45, urn, "urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6",
    |bytes, upper, out, sink| {
        out[..9].copy_from_slice(b"urn:uuid:");
        if let Some(body) = out[9..].first_chunk_mut::<36>() {
            hyphenated(bytes, upper, body, sink);
        }
    }
);

impl Hyphenated {
    /// The length of one line written by [`Hyphenated::encode_lines_lower`]:
    /// the hyphenated form and a newline.
    pub const LINE_LENGTH: usize = LINE;

    #[inline]
    fn encode_lines<'b>(uuids: &[Uuid], buf: &'b mut [u8], upper: bool) -> &'b mut str {
        let needed = uuids.len().saturating_mul(LINE);
        let len = buf.len();
        let Some(out) = buf.get_mut(..needed) else {
            buffer_too_small(len, needed)
        };
        lines_encode(uuids, out, upper);
        // SAFETY: `lines_encode` filled all of `out` with ASCII.
        unsafe { core::str::from_utf8_unchecked_mut(out) }
    }

    /// Writes `uuids` as lines of text, each the lowercase hyphenated form
    /// followed by `'\n'`, into the start of `buf`, and returns them as a
    /// `&mut str` of `37 × uuids.len()` bytes. Many UUIDs per call: this is
    /// the bulk path (AVX2 when the CPU has it, detected at run time; the
    /// per-UUID encoder otherwise), faster per UUID than calling
    /// [`Hyphenated::encode_lower`] in a loop.
    ///
    /// # Panics
    ///
    /// If `buf` is shorter than `37 × uuids.len()` bytes.
    ///
    /// ```
    /// use uuidkit::{Hyphenated, Uuid};
    /// let batch = [Uuid::from_u128(0xf81d4fae_7dec_11d0_a765_00a0c91e6bf6), Uuid::MAX];
    /// let mut buf = [0u8; 2 * Hyphenated::LINE_LENGTH];
    /// assert_eq!(
    ///     Hyphenated::encode_lines_lower(&batch, &mut buf),
    ///     "f81d4fae-7dec-11d0-a765-00a0c91e6bf6\nffffffff-ffff-ffff-ffff-ffffffffffff\n"
    /// );
    /// ```
    #[inline]
    pub fn encode_lines_lower<'b>(uuids: &[Uuid], buf: &'b mut [u8]) -> &'b mut str {
        Hyphenated::encode_lines(uuids, buf, false)
    }

    /// As [`Hyphenated::encode_lines_lower`], with uppercase hex digits.
    ///
    /// # Panics
    ///
    /// If `buf` is shorter than `37 × uuids.len()` bytes.
    ///
    /// ```
    /// use uuidkit::{Hyphenated, Uuid};
    /// let batch = [Uuid::from_u128(0xf81d4fae_7dec_11d0_a765_00a0c91e6bf6)];
    /// let mut buf = vec![0u8; 100];
    /// let text = Hyphenated::encode_lines_upper(&batch, &mut buf);
    /// assert_eq!(text, "F81D4FAE-7DEC-11D0-A765-00A0C91E6BF6\n");
    /// ```
    #[inline]
    pub fn encode_lines_upper<'b>(uuids: &[Uuid], buf: &'b mut [u8]) -> &'b mut str {
        Hyphenated::encode_lines(uuids, buf, true)
    }
}

impl Uuid {
    /// The hyphenated form, `f81d4fae-7dec-11d0-a765-00a0c91e6bf6`.
    ///
    /// ```
    /// let u = uuidkit::Uuid::MAX;
    /// assert_eq!(u.hyphenated().to_string(), "ffffffff-ffff-ffff-ffff-ffffffffffff");
    /// ```
    #[inline]
    #[must_use]
    #[doc(alias("as_hyphenated"))]
    pub const fn hyphenated(self) -> Hyphenated {
        Hyphenated(self)
    }

    /// The simple form, `f81d4fae7dec11d0a76500a0c91e6bf6`.
    ///
    /// ```
    /// assert_eq!(uuidkit::Uuid::NIL.simple().to_string(), "0".repeat(32));
    /// ```
    #[inline]
    #[must_use]
    #[doc(alias("as_simple"))]
    pub const fn simple(self) -> Simple {
        Simple(self)
    }

    /// The braced form, `{f81d4fae-7dec-11d0-a765-00a0c91e6bf6}`.
    ///
    /// ```
    /// let u = uuidkit::Uuid::NIL;
    /// assert_eq!(u.braced().to_string(), "{00000000-0000-0000-0000-000000000000}");
    /// ```
    #[inline]
    #[must_use]
    #[doc(alias("as_braced"))]
    pub const fn braced(self) -> Braced {
        Braced(self)
    }

    /// The URN form, `urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6`.
    ///
    /// ```
    /// let u = uuidkit::Uuid::NIL;
    /// assert_eq!(u.urn().to_string(), "urn:uuid:00000000-0000-0000-0000-000000000000");
    /// ```
    #[inline]
    #[must_use]
    #[doc(alias("as_urn"))]
    pub const fn urn(self) -> Urn {
        Urn(self)
    }
}

impl fmt::Display for Uuid {
    /// The canonical form: hyphenated, lowercase (honours width, fill and alignment).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.hyphenated(), f)
    }
}

impl fmt::Debug for Uuid {
    /// The canonical form, as `Display`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.hyphenated(), f)
    }
}

impl fmt::LowerHex for Uuid {
    /// Hyphenated, lowercase (as `Display`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::LowerHex::fmt(&self.hyphenated(), f)
    }
}

impl fmt::UpperHex for Uuid {
    /// Hyphenated, uppercase.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::UpperHex::fmt(&self.hyphenated(), f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::sweep::{self, lines_with, sweep_batch};

    #[test]
    fn scalar_and_simd_encoders_agree_on_every_byte_in_every_lane() {
        sweep::check_encode32(encode32_scalar);
        sweep::check_encode32(encode32);
        sweep::check_encode32(|b, upper| {
            let (simple, mut buf) = (Uuid::from_bytes(*b).simple(), [0u8; 32]);
            match upper {
                true => simple.encode_upper(&mut buf),
                false => simple.encode_lower(&mut buf),
            };
            buf
        });
        for sink in [Sink::Buffer, Sink::Formatter] {
            sweep::check_hyphenated_encoder(|b, upper, out| hyphenated(b, upper, out, sink));
        }
    }

    #[test]
    #[cfg(feature = "std")]
    fn display_writes_once_without_width_and_pads_with_it() {
        use std::format;
        use std::string::ToString;
        let u = Uuid::from_u128(0xf81d4fae_7dec_11d0_a765_00a0c91e6bf6);
        let canonical = "f81d4fae-7dec-11d0-a765-00a0c91e6bf6";
        assert_eq!(u.to_string(), canonical);
        assert_eq!(format!("[{u:>38}]"), format!("[  {canonical}]"));
        assert_eq!(format!("[{u:*<37}]"), format!("[{canonical}*]"));
        assert_eq!(format!("{u:.8}"), "f81d4fae");
        assert_eq!(
            format!("{:X}", u.braced()),
            "{F81D4FAE-7DEC-11D0-A765-00A0C91E6BF6}"
        );
        assert_eq!(
            format!("{:^47}", u.urn()),
            format!(" urn:uuid:{canonical} ")
        );
    }

    #[test]
    fn scalar_lines_are_canonical_lines() {
        let u = Uuid::from_u128(0xf81d4fae_7dec_11d0_a765_00a0c91e6bf6);
        assert_eq!(
            lines_with(lines_scalar, &[u, Uuid::NIL], false),
            b"f81d4fae-7dec-11d0-a765-00a0c91e6bf6\n00000000-0000-0000-0000-000000000000\n"
        );
        assert_eq!(
            lines_with(lines_scalar, &[u], true),
            b"F81D4FAE-7DEC-11D0-A765-00A0C91E6BF6\n"
        );
        for round in [0u8, 0x5a, 0xff] {
            let batch = sweep_batch(round, 40);
            let text = lines_with(lines_scalar, &batch, false);
            for (u, line) in batch.iter().zip(text.chunks(37)) {
                let mut one = [0u8; 36];
                assert_eq!(
                    &line[..36],
                    u.hyphenated().encode_lower(&mut one).as_bytes()
                );
                assert_eq!(line[36], b'\n');
            }
        }
    }

    /// The per-UUID line path and the dispatching entry point against the
    /// scalar one (the bulk paths have their own tests in `crate::arch`).
    #[test]
    fn simd_lines_agree_with_scalar_on_every_byte_in_every_position() {
        sweep::check_lines(lines_each);
        sweep::check_lines(lines_encode);
    }

    #[test]
    fn encode_lines_fills_exactly_and_panics_clearly() {
        let batch = sweep_batch(7, 35);
        let mut buf = std::vec![b'#'; 35 * 37 + 3];
        let text = Hyphenated::encode_lines_lower(&batch, &mut buf);
        assert_eq!(text.len(), 35 * 37);
        assert_eq!(&buf[35 * 37..], b"###");
        assert_eq!(
            &buf[..35 * 37],
            &lines_with(lines_scalar, &batch, false)[..]
        );
        let upper = Hyphenated::encode_lines_upper(&batch[..3], &mut buf)
            .as_bytes()
            .to_vec();
        assert_eq!(upper, lines_with(lines_scalar, &batch[..3], true));
        assert_eq!(Hyphenated::encode_lines_lower(&[], &mut []), "");
        let err = std::panic::catch_unwind(|| {
            let mut small = [0u8; 73];
            Hyphenated::encode_lines_lower(&[Uuid::NIL; 2], &mut small);
        });
        let msg = err.unwrap_err();
        let msg = msg.downcast_ref::<std::string::String>().unwrap();
        assert_eq!(msg, "buffer of 73 bytes is too small: expected at least 74");
    }

    #[test]
    #[should_panic(expected = "buffer of 35 bytes is too small: expected at least 36")]
    fn short_buffer_panics_with_a_clear_message() {
        let mut buf = [0u8; 35];
        Uuid::NIL.hyphenated().encode_lower(&mut buf);
    }
}
