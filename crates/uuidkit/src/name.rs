//! Name-based UUIDs of versions 3 (MD5, RFC 9562 §5.3) and 5 (SHA-1, §5.5),
//! and the namespace IDs of §6.6. Version 8 with a modern hash (Appendix B.2)
//! is in `v8.rs`: it shares nothing with these two but the namespaces, while
//! v3 and v5 share the one-block machinery below.
//!
//! The hash input is the namespace ID's 16 octets followed by the name's octets,
//! with no separator (§6.5). MD5 and SHA-1 are driven through their block
//! functions with our own padding: a name of up to 39 bytes is one block, and
//! the `Digest` machinery (buffering, generic output arrays) would cost a
//! third on top of MD5's compression and more than SHA-1's with SHA-NI.
//! That one block is assembled in registers, never byte by byte in memory
//! (see `single_block`). MD5's block function is our own, ordered for the
//! latency of its serial chain (`name/md5.rs`); SHA-1's is the `sha1`
//! crate's, which uses the SHA extensions where the CPU has them.

mod md5;

use crate::{Uuid, Version};

/// The namespace IDs of RFC 9562 §6.6, for [`Uuid::new_v3`], [`Uuid::new_v5`]
/// and [`Uuid::new_v8_name`].
///
/// There is deliberately no constant for `6ba7b813-9dad-11d1-80b4-00c04fd430c8`:
/// RFC 4122 never defined it, and §6.6 says it should not be used. For your own
/// names, pick a fresh v4 or v7 UUID once and keep it (§6.6).
///
/// ```
/// use uuidkit::{namespace, Uuid};
/// let u = Uuid::new_v5(&namespace::DNS, b"www.example.com");
/// assert_eq!(u.to_string(), "2ed6657d-e927-568b-95e1-2665a8aea6a2");
/// ```
pub mod namespace {
    use crate::Uuid;

    /// Names are fully qualified domain names: `6ba7b810-9dad-11d1-80b4-00c04fd430c8`.
    ///
    /// ```
    /// assert_eq!(uuidkit::namespace::DNS.to_string(), "6ba7b810-9dad-11d1-80b4-00c04fd430c8");
    /// ```
    pub const DNS: Uuid = Uuid::from_u128(0x6ba7b810_9dad_11d1_80b4_00c04fd430c8);

    /// Names are URLs (RFC 1738): `6ba7b811-9dad-11d1-80b4-00c04fd430c8`.
    ///
    /// ```
    /// assert_eq!(uuidkit::namespace::URL.to_string(), "6ba7b811-9dad-11d1-80b4-00c04fd430c8");
    /// ```
    pub const URL: Uuid = Uuid::from_u128(0x6ba7b811_9dad_11d1_80b4_00c04fd430c8);

    /// Names are ISO object identifiers: `6ba7b812-9dad-11d1-80b4-00c04fd430c8`.
    ///
    /// ```
    /// assert_eq!(uuidkit::namespace::OID.to_string(), "6ba7b812-9dad-11d1-80b4-00c04fd430c8");
    /// ```
    pub const OID: Uuid = Uuid::from_u128(0x6ba7b812_9dad_11d1_80b4_00c04fd430c8);

    /// Names are X.500 distinguished names (DER or text): `6ba7b814-9dad-11d1-80b4-00c04fd430c8`.
    ///
    /// ```
    /// assert_eq!(uuidkit::namespace::X500.to_string(), "6ba7b814-9dad-11d1-80b4-00c04fd430c8");
    /// ```
    pub const X500: Uuid = Uuid::from_u128(0x6ba7b814_9dad_11d1_80b4_00c04fd430c8);
}

impl Uuid {
    /// A version 3 UUID (RFC 9562 §5.3): MD5 of the namespace ID's 16 octets
    /// followed by `name`, with the version and variant bits overwritten.
    ///
    /// The name is taken as raw bytes, exactly as given: no case folding, no
    /// trailing-dot or encoding normalisation (§6.5). Prefer [`Uuid::new_v5`]
    /// (§5.3 says so); v3 exists for compatibility.
    ///
    /// ```
    /// use uuidkit::{namespace, Uuid, Version};
    /// // RFC 9562 Appendix A.2
    /// let u = Uuid::new_v3(&namespace::DNS, b"www.example.com");
    /// assert_eq!(u.to_string(), "5df41881-3aed-3515-88a7-2f4a814cf09e");
    /// assert_eq!(u.version(), Some(Version::Md5));
    /// ```
    #[inline]
    #[must_use]
    pub fn new_v3(namespace: &Uuid, name: &[u8]) -> Uuid {
        let mut state = md5::INITIAL_STATE;
        match rfc_namespace_md5_midstate(namespace) {
            Some(mid) if name.len() <= SINGLE_BLOCK_NAME => {
                md5::compress_from_step_4(&mut state, mid, &single_block(namespace, name, false));
            }
            _ => merkle_damgard(namespace, name, false, |block| {
                md5::compress(&mut state, block)
            }),
        }
        let mut out = [0u8; 16];
        for (chunk, word) in out.chunks_exact_mut(4).zip(state) {
            chunk.copy_from_slice(&word.to_le_bytes());
        }
        Uuid::from_bytes(out).with_version(Version::Md5)
    }

    /// A version 5 UUID (RFC 9562 §5.5): the leftmost 128 bits of SHA-1 of the
    /// namespace ID's 16 octets followed by `name`, with the version and
    /// variant bits overwritten. Names are raw bytes, as for [`Uuid::new_v3`].
    ///
    /// ```
    /// use uuidkit::{namespace, Uuid, Version};
    /// // RFC 9562 Appendix A.4
    /// let u = Uuid::new_v5(&namespace::DNS, b"www.example.com");
    /// assert_eq!(u.to_string(), "2ed6657d-e927-568b-95e1-2665a8aea6a2");
    /// assert_eq!(u.version(), Some(Version::Sha1));
    /// ```
    #[inline]
    #[must_use]
    pub fn new_v5(namespace: &Uuid, name: &[u8]) -> Uuid {
        let mut state = [
            0x67452301_u32,
            0xefcdab89,
            0x98badcfe,
            0x10325476,
            0xc3d2e1f0,
        ];
        merkle_damgard(namespace, name, true, |block| {
            sha1::block_api::compress(&mut state, core::slice::from_ref(block));
        });
        let mut out = [0u8; 16];
        for (chunk, word) in out.chunks_exact_mut(4).zip(state) {
            chunk.copy_from_slice(&word.to_be_bytes());
        }
        Uuid::from_bytes(out).with_version(Version::Sha1)
    }
}

/// MD5's working variables after its first four steps, which read only the
/// namespace, for the four namespaces of RFC 9562 §6.6 (computed at compile
/// time): v3 of one of them skips those steps.
const RFC_NAMESPACE_MD5_MIDSTATES: [[u32; 4]; 4] = {
    let namespaces = [
        namespace::DNS,
        namespace::URL,
        namespace::OID,
        namespace::X500,
    ];
    let mut mid = [[0u32; 4]; 4];
    let mut n = 0;
    while n < 4 {
        mid[n] = md5::after_first_four(md5::INITIAL_STATE, namespaces[n].as_bytes());
        n += 1;
    }
    mid
};

/// The precomputed MD5 midstate when `ns` is one of the RFC 9562 namespaces.
/// They differ only in their fourth byte (`6ba7b810`, `…11`, `…12`, `…14`).
#[inline(always)]
fn rfc_namespace_md5_midstate(ns: &Uuid) -> Option<[u32; 4]> {
    const FOURTH_BYTE: u128 = 0xff << 96;
    if ns.as_u128() & !FOURTH_BYTE != namespace::DNS.as_u128() & !FOURTH_BYTE {
        return None;
    }
    let index = match ns.as_bytes()[3] {
        0x10 => 0,
        0x11 => 1,
        0x12 => 2,
        0x14 => 3,
        _ => return None,
    };
    Some(RFC_NAMESPACE_MD5_MIDSTATES[index])
}

/// The longest name whose `ns ‖ name ‖ 0x80 ‖ length` fits one 64-byte block.
const SINGLE_BLOCK_NAME: usize = 64 - 16 - 1 - 8;

/// The one padded block of a short name, assembled in registers and written
/// with four 16-byte stores.
///
/// The hash functions read their block with 16-byte (SHA-NI) or 4-byte loads.
/// A block filled byte-wise or by `memcpy` makes those loads span several
/// smaller stores, which the CPU cannot forward: each such load waits for the
/// stores to retire.
#[inline(always)]
fn single_block(ns: &Uuid, name: &[u8], big_endian: bool) -> [u8; 64] {
    let mut block = [0u8; 64];
    for (i, [lo, hi]) in single_block_lanes(ns, name, big_endian)
        .into_iter()
        .enumerate()
    {
        store_lane(&mut block, i, lo, hi);
    }
    block
}

/// The block of [`single_block`] as four lanes of two little-endian words
/// (lane `i` is bytes `16 * i..16 * i + 16`), built from loads of the inputs
/// only. The 64-bit bit length at the end is big-endian for SHA-1 and
/// little-endian for MD5.
#[inline(always)]
fn single_block_lanes(ns: &Uuid, name: &[u8], big_endian: bool) -> [[u64; 2]; 4] {
    debug_assert!(name.len() <= SINGLE_BLOCK_NAME);
    let len = name.len();
    // Bytes 16..56 of the block as five little-endian words: the name, then
    // the 0x80 terminator, then zeros.
    let word = |i: usize| {
        let start = 8 * i;
        let chunk = name.get(start..len.min(start + 8)).unwrap_or(&[]);
        let mut w = read_le_partial(chunk);
        if (start..start + 8).contains(&len) {
            w |= 0x80 << (8 * (len - start));
        }
        w
    };
    let len_bits = (16 + len as u64) * 8;
    // The length field's bytes, read back as a little-endian word.
    let bits = if big_endian {
        len_bits.swap_bytes()
    } else {
        len_bits
    };
    let ns = u128::from_le_bytes(*ns.as_bytes());
    [
        [ns as u64, (ns >> 64) as u64],
        [word(0), word(1)],
        [word(2), word(3)],
        [word(4), bits],
    ]
}

/// Writes two little-endian words as bytes `16 * lane ..` of `block`, as one
/// 16-byte store where the CPU has one (see [`crate::arch::store_16`]).
#[inline(always)]
fn store_lane(block: &mut [u8; 64], lane: usize, lo: u64, hi: u64) {
    if let Some(dst) = block[16 * lane..].first_chunk_mut::<16>()
        && !crate::arch::store_16(dst, lo, hi)
    {
        *dst = (u128::from(lo) | u128::from(hi) << 64).to_le_bytes();
    }
}

/// Up to 8 bytes as a little-endian word (missing high bytes zero), read with
/// at most two overlapping loads and no stores.
#[inline(always)]
fn read_le_partial(s: &[u8]) -> u64 {
    let n = s.len();
    if let Some(b) = s.first_chunk::<8>() {
        u64::from_le_bytes(*b)
    } else if n >= 4 {
        let lo = u32::from_le_bytes([s[0], s[1], s[2], s[3]]);
        let hi = u32::from_le_bytes([s[n - 4], s[n - 3], s[n - 2], s[n - 1]]);
        u64::from(lo) | u64::from(hi) << (8 * (n - 4))
    } else if n >= 2 {
        let lo = u16::from_le_bytes([s[0], s[1]]);
        let hi = u16::from_le_bytes([s[n - 2], s[n - 1]]);
        u64::from(lo) | u64::from(hi) << (8 * (n - 2))
    } else if n == 1 {
        u64::from(s[0])
    } else {
        0
    }
}

/// Feeds `ns ‖ name` plus MD-style padding (0x80, zeros, 64-bit bit length,
/// little-endian for MD5, big-endian for SHA-1) to `compress`, block by block.
#[inline(always)]
fn merkle_damgard(ns: &Uuid, name: &[u8], big_endian: bool, mut compress: impl FnMut(&[u8; 64])) {
    if name.len() <= SINGLE_BLOCK_NAME {
        compress(&single_block(ns, name, big_endian));
        return;
    }
    let len_bits = (16 + name.len() as u64).wrapping_mul(8);
    let bits = if big_endian {
        len_bits.to_be_bytes()
    } else {
        len_bits.to_le_bytes()
    };
    let mut block = [0u8; 64];
    block[..16].copy_from_slice(ns.as_bytes());
    let (head, mut rest) = name.split_at(name.len().min(48));
    block[16..16 + head.len()].copy_from_slice(head);
    let mut used = 16 + head.len();
    if used == 64 {
        compress(&block);
        while let Some((full, tail)) = rest.split_first_chunk::<64>() {
            compress(full);
            rest = tail;
        }
        block = [0u8; 64];
        block[..rest.len()].copy_from_slice(rest);
        used = rest.len();
    }
    block[used] = 0x80;
    if used >= 56 {
        compress(&block);
        block = [0u8; 64];
    }
    block[56..].copy_from_slice(&bits);
    compress(&block);
}

#[cfg(test)]
mod tests {
    use super::*;
    use sha1::Digest as _;

    /// Our padding against the crates' own `Digest` API, at every length
    /// around the one-, two- and three-block boundaries.
    #[test]
    fn own_padding_matches_the_digest_api_at_every_boundary() {
        let name: [u8; 200] = core::array::from_fn(|i| (i * 7 + 3) as u8);
        // The RFC namespaces (precomputed MD5 midstates), their neighbours
        // that must not take that path, and an unrelated one.
        let namespaces = [
            namespace::DNS,
            namespace::URL,
            namespace::OID,
            namespace::X500,
            Uuid::from_u128(0x6ba7b813_9dad_11d1_80b4_00c04fd430c8),
            Uuid::from_u128(0x6ba7b815_9dad_11d1_80b4_00c04fd430c8),
            Uuid::from_u128(0x6ba7b810_9dad_11d1_80b4_00c04fd430c9),
            Uuid::from_u128(0xf81d4fae_7dec_11d0_a765_00a0c91e6bf6),
        ];
        for (ns, len) in namespaces
            .into_iter()
            .flat_map(|ns| (0..=200).map(move |len| (ns, len)))
        {
            let n = &name[..len];
            let md5 = ::md5::Md5::new()
                .chain_update(ns.as_bytes())
                .chain_update(n)
                .finalize();
            let sha1 = sha1::Sha1::new()
                .chain_update(ns.as_bytes())
                .chain_update(n)
                .finalize();
            let mut v3: [u8; 16] = md5[..16].try_into().unwrap();
            let mut v5: [u8; 16] = sha1[..16].try_into().unwrap();
            v3[6] = (v3[6] & 0x0f) | 0x30;
            v3[8] = (v3[8] & 0x3f) | 0x80;
            v5[6] = (v5[6] & 0x0f) | 0x50;
            v5[8] = (v5[8] & 0x3f) | 0x80;
            assert_eq!(
                Uuid::new_v3(&ns, n).into_bytes(),
                v3,
                "v3, namespace {ns}, name length {len}"
            );
            assert_eq!(
                Uuid::new_v5(&ns, n).into_bytes(),
                v5,
                "v5, namespace {ns}, name length {len}"
            );
        }
    }
}
