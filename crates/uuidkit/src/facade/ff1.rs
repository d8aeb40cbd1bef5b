//! FF1 (NIST SP 800-38G, Algorithm 7 and 8) for one shape only: radix 2,
//! 122 numerals, an empty tweak, AES-128.
//!
//! With those parameters the general algorithm reduces to a balanced Feistel
//! network on two 61-bit halves, which is what this is (the steps are named
//! as in SP 800-38G):
//!
//! - u = v = 61, b = ⌈61 / 8⌉ = 8, d = 4⌈b/4⌉ + 4 = 12;
//! - P = [1, 2, 1] ‖ [radix]³ ‖ [10] ‖ [u mod 256] ‖ [n]⁴ ‖ [t]⁴ is one
//!   constant block, so the CBC-MAC's first step AES(P) is done once per key;
//! - Q = [0]⁷ ‖ [i] ‖ [NUM₂(B)]⁸, one block; R = AES(AES(P) ⊕ Q);
//! - d ≤ 16, so S is the first 12 bytes of R, y = NUM(S), and since 2⁶¹
//!   divides 2⁶⁴, y mod 2⁶¹ is the low 61 bits of S's last 8 bytes;
//! - c = (NUM₂(A) + y) mod 2⁶¹; A ← B; B ← c; ten rounds.
//!
//! NUM₂ reads numerals most significant first, so the bit string X₁…X₁₂₂ is
//! the 122-bit integer whose top 61 bits are A. The tests check it against
//! the `fpe` crate's general FF1.

use aes::Aes128;
use aes::cipher::{Array, BlockCipherEncrypt, KeyInit};

/// SP 800-38G's round count for FF1.
const ROUNDS: u8 = 10;
/// Half width (u = v).
const HALF: u32 = 61;
const HALF_MASK: u64 = (1 << HALF) - 1;

/// The constant block P for radix 2, n = 122, t = 0.
const P: [u8; 16] = [1, 2, 1, 0, 0, 2, 10, HALF as u8, 0, 0, 0, 122, 0, 0, 0, 0];

/// An FF1 key: the AES key schedule and AES(P).
#[derive(Clone)]
pub(super) struct Ff1 {
    aes: Aes128,
    /// The CBC-MAC state after P, XORed into every round's Q.
    after_p: [u8; 16],
}

impl Ff1 {
    pub(super) fn new(key: &[u8; 16]) -> Ff1 {
        let aes = Aes128::new(&Array::from(*key));
        let mut block = Array::from(P);
        aes.encrypt_block(&mut block);
        Ff1 {
            aes,
            after_p: block.into(),
        }
    }

    /// The round function: y mod 2⁶¹ for round `i` on half `b`.
    #[inline]
    fn round(&self, i: u8, b: u64) -> u64 {
        let mut q = [0u8; 16];
        q[7] = i;
        q[8..].copy_from_slice(&b.to_be_bytes());
        let mut block = Array::from(core::array::from_fn::<u8, 16, _>(|j| {
            q[j] ^ self.after_p[j]
        }));
        self.aes.encrypt_block(&mut block);
        let mut s = [0u8; 8];
        s.copy_from_slice(&block[4..12]);
        u64::from_be_bytes(s) & HALF_MASK
    }

    /// Encrypts the 122-bit string held in the low bits of `x`.
    pub(super) fn encrypt(&self, x: u128) -> u128 {
        let (mut a, mut b) = split(x);
        for i in 0..ROUNDS {
            let c = a.wrapping_add(self.round(i, b)) & HALF_MASK;
            a = b;
            b = c;
        }
        join(a, b)
    }

    /// The inverse of [`Ff1::encrypt`].
    pub(super) fn decrypt(&self, x: u128) -> u128 {
        let (mut a, mut b) = split(x);
        for i in (0..ROUNDS).rev() {
            let c = b.wrapping_sub(self.round(i, a)) & HALF_MASK;
            b = a;
            a = c;
        }
        join(a, b)
    }
}

#[allow(clippy::cast_possible_truncation)]
const fn split(x: u128) -> (u64, u64) {
    ((x >> HALF) as u64 & HALF_MASK, x as u64 & HALF_MASK)
}

const fn join(a: u64, b: u64) -> u128 {
    ((a as u128) << HALF) | b as u128
}

#[cfg(test)]
mod tests {
    use super::*;
    use fpe::ff1::{FF1, FlexibleNumeralString};
    use rand_chacha::ChaCha8Rng;
    use rand_core::{Rng, SeedableRng};
    use std::vec::Vec;

    fn numerals(x: u128) -> FlexibleNumeralString {
        let v: Vec<u16> = (0..122).rev().map(|i| ((x >> i) & 1) as u16).collect();
        FlexibleNumeralString::from(v)
    }

    fn value(ns: FlexibleNumeralString) -> u128 {
        Vec::<u16>::from(ns)
            .into_iter()
            .fold(0, |acc, d| (acc << 1) | u128::from(d))
    }

    /// The general FF1 of the `fpe` crate, on the same key and bits, agrees
    /// both ways on 2,000 random keys and inputs.
    #[test]
    fn agrees_with_the_fpe_crate() {
        let mut rng = ChaCha8Rng::seed_from_u64(0xFF1);
        for _ in 0..2_000 {
            let mut key = [0u8; 16];
            rng.fill_bytes(&mut key);
            let x = (u128::from(rng.next_u64()) << 64 | u128::from(rng.next_u64())) >> 6;
            let ours = Ff1::new(&key);
            let theirs = FF1::<Aes128>::new(&key, 2).unwrap();
            let ct = ours.encrypt(x);
            assert_eq!(ct, value(theirs.encrypt(&[], &numerals(x)).unwrap()));
            assert_eq!(ours.decrypt(ct), x);
            assert_eq!(x, value(theirs.decrypt(&[], &numerals(ct)).unwrap()));
        }
    }
}
