//! Writing UUIDs as text: `Display` (canonical lowercase), `{:X}`, and the
//! [`Hyphenated`], [`Simple`], [`Braced`] and [`Urn`] adapters, each of which
//! can also encode into a caller's buffer without allocating.
//!
//! The 16 bytes become 32 hex digits at once (SSE2 on x86_64, a table
//! otherwise); the hyphens and wrapping are then put around them.

use core::fmt;

use crate::Uuid;

/// The portable encoder: 16 bytes to 32 hex digits (used where SSE2 is not,
/// and by the tests that check the SIMD encoder against it).
#[cfg_attr(all(target_arch = "x86_64", target_feature = "sse2"), allow(dead_code))]
#[inline]
pub(crate) const fn encode32_scalar(bytes: &[u8; 16], upper: bool) -> [u8; 32] {
    let table = if upper {
        b"0123456789ABCDEF"
    } else {
        b"0123456789abcdef"
    };
    let mut out = [0u8; 32];
    let mut i = 0;
    while i < 16 {
        out[2 * i] = table[(bytes[i] >> 4) as usize];
        out[2 * i + 1] = table[(bytes[i] & 0x0f) as usize];
        i += 1;
    }
    out
}

/// 16 bytes to 32 hex digits with the best encoder this build has.
#[inline(always)]
pub(crate) fn encode32(bytes: &[u8; 16], upper: bool) -> [u8; 32] {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    {
        // SAFETY: SSE2 is enabled at compile time (it is part of x86_64).
        unsafe { sse2::encode32(bytes, upper) }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    {
        encode32_scalar(bytes, upper)
    }
}

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
pub(crate) mod sse2 {
    use core::arch::x86_64::*;

    /// Encodes 16 bytes as 32 hex digits.
    ///
    /// # Safety
    /// The CPU must support SSE2 (always true on x86_64).
    #[inline(always)]
    pub(crate) unsafe fn encode32(bytes: &[u8; 16], upper: bool) -> [u8; 32] {
        // SAFETY: one 16-byte load from `bytes`, two 16-byte stores into `out`,
        // all unaligned; the rest is plain SSE2 arithmetic.
        unsafe {
            let x = _mm_loadu_si128(bytes.as_ptr().cast());
            let m = _mm_set1_epi8(0x0f);
            let hi = _mm_and_si128(_mm_srli_epi16(x, 4), m);
            let lo = _mm_and_si128(x, m);
            let letter = _mm_set1_epi8(if upper { 7 } else { 39 });
            let ascii = |n: __m128i| {
                let gt9 = _mm_cmpgt_epi8(n, _mm_set1_epi8(9));
                _mm_add_epi8(
                    _mm_add_epi8(n, _mm_set1_epi8(b'0' as i8)),
                    _mm_and_si128(gt9, letter),
                )
            };
            let mut out = [0u8; 32];
            let p = out.as_mut_ptr().cast::<__m128i>();
            _mm_storeu_si128(p, ascii(_mm_unpacklo_epi8(hi, lo)));
            _mm_storeu_si128(p.add(1), ascii(_mm_unpackhi_epi8(hi, lo)));
            out
        }
    }
}

/// Writes the 36-character hyphenated form.
#[inline(always)]
fn hyphenated(bytes: &[u8; 16], upper: bool, out: &mut [u8; 36]) {
    let d = encode32(bytes, upper);
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

#[cold]
#[inline(never)]
#[track_caller]
fn buffer_too_small(len: usize, needed: usize) -> ! {
    panic!("buffer of {len} bytes is too small: expected at least {needed}")
}

macro_rules! adapter {
    (
        $(#[$doc:meta])*
        $name:ident, $len:expr, $method:ident, $example:literal,
        |$bytes:ident, $upper:ident, $out:ident| $write:block
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
            #[inline]
            pub const fn as_uuid(&self) -> &Uuid {
                &self.0
            }

            #[inline(always)]
            fn write(&self, $upper: bool, $out: &mut [u8; $len]) {
                let $bytes = self.0.as_bytes();
                $write
            }

            #[inline(always)]
            fn encode<'b>(&self, buf: &'b mut [u8], upper: bool) -> &'b mut str {
                let len = buf.len();
                let Some(out) = buf.first_chunk_mut::<{ $len }>() else {
                    buffer_too_small(len, $len)
                };
                self.write(upper, out);
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
                self.encode(buf, false)
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
                self.encode(buf, true)
            }

            /// Encodes into a stack buffer and hands it over with one
            /// `write_str`; `pad` only when a width or precision asks for it.
            #[inline]
            fn fmt_case(&self, f: &mut fmt::Formatter<'_>, upper: bool) -> fmt::Result {
                let mut buf = [0u8; $len];
                let text = self.encode(&mut buf, upper);
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
    |bytes, upper, out| { hyphenated(bytes, upper, out) }
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
    |bytes, upper, out| { *out = encode32(bytes, upper) }
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
    |bytes, upper, out| {
        out[0] = b'{';
        if let Some(body) = out[1..].first_chunk_mut::<36>() {
            hyphenated(bytes, upper, body);
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
    |bytes, upper, out| {
        out[..9].copy_from_slice(b"urn:uuid:");
        if let Some(body) = out[9..].first_chunk_mut::<36>() {
            hyphenated(bytes, upper, body);
        }
    }
);

impl Uuid {
    /// The hyphenated form, `f81d4fae-7dec-11d0-a765-00a0c91e6bf6`.
    ///
    /// ```
    /// let u = uuidkit::Uuid::MAX;
    /// assert_eq!(u.hyphenated().to_string(), "ffffffff-ffff-ffff-ffff-ffffffffffff");
    /// ```
    #[inline]
    pub const fn hyphenated(self) -> Hyphenated {
        Hyphenated(self)
    }

    /// The simple form, `f81d4fae7dec11d0a76500a0c91e6bf6`.
    ///
    /// ```
    /// assert_eq!(uuidkit::Uuid::NIL.simple().to_string(), "0".repeat(32));
    /// ```
    #[inline]
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

    #[test]
    fn scalar_and_simd_encoders_agree_on_every_byte_in_every_lane() {
        for lane in 0..16 {
            for byte in 0..=255u8 {
                let mut b = [0x5a; 16];
                b[lane] = byte;
                for upper in [false, true] {
                    let table = if upper {
                        b"0123456789ABCDEF"
                    } else {
                        b"0123456789abcdef"
                    };
                    let scalar = encode32_scalar(&b, upper);
                    assert_eq!(scalar[2 * lane], table[(byte >> 4) as usize]);
                    assert_eq!(scalar[2 * lane + 1], table[(byte & 15) as usize]);
                    assert_eq!(encode32(&b, upper), scalar, "lane {lane} byte {byte:#x}");
                }
            }
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
    #[should_panic(expected = "buffer of 35 bytes is too small: expected at least 36")]
    fn short_buffer_panics_with_a_clear_message() {
        let mut buf = [0u8; 35];
        Uuid::NIL.hyphenated().encode_lower(&mut buf);
    }
}
