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
use aes::cipher::consts::U16;
use aes::cipher::{
    Array, BlockCipherEncBackend, BlockCipherEncClosure, BlockCipherEncrypt, BlockSizeUser, KeyInit,
};

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
    /// The CBC-MAC state after P, as a big-endian integer, XORed into every
    /// round's Q.
    after_p: u128,
}

impl Ff1 {
    pub(super) fn new(key: &[u8; 16]) -> Ff1 {
        let aes = Aes128::new(&Array::from(*key));
        let mut block = Array::from(P);
        aes.encrypt_block(&mut block);
        Ff1 {
            aes,
            after_p: u128::from_be_bytes(block.into()),
        }
    }

    /// Encrypts the 122-bit string held in the low bits of `x`.
    #[inline]
    pub(super) fn encrypt(&self, x: u128) -> u128 {
        let mut out = x;
        self.aes.encrypt_with_backend(Rounds::<false> {
            after_p: self.after_p,
            x: &mut out,
        });
        out
    }

    /// The inverse of [`Ff1::encrypt`].
    #[inline]
    pub(super) fn decrypt(&self, x: u128) -> u128 {
        let mut out = x;
        self.aes.encrypt_with_backend(Rounds::<true> {
            after_p: self.after_p,
            x: &mut out,
        });
        out
    }
}

/// The ten rounds, run inside one `encrypt_with_backend` call: the `aes`
/// crate picks its backend (AES-NI, VAES or software, detected at run time)
/// and prepares it once per call, and the rounds are compiled into the
/// backend's code, so each round's AES is inlined rather than a call that
/// detects and prepares again. `DECRYPT` runs them backwards.
struct Rounds<'a, const DECRYPT: bool> {
    after_p: u128,
    x: &'a mut u128,
}

impl<const DECRYPT: bool> BlockSizeUser for Rounds<'_, DECRYPT> {
    type BlockSize = U16;
}

impl<const DECRYPT: bool> BlockCipherEncClosure for Rounds<'_, DECRYPT> {
    #[inline(always)]
    fn call<B: BlockCipherEncBackend<BlockSize = U16>>(self, aes: &B) {
        // The round function: y mod 2⁶¹ for round `i` on half `b`.
        // Q = [0]⁷ ‖ [i] ‖ [b]⁸ is the big-endian integer i·2⁶⁴ + b.
        #[allow(clippy::cast_possible_truncation)]
        let f = |i: u8, b: u64| -> u64 {
            let q = (u128::from(i) << 64) | u128::from(b);
            let mut block = Array::from((self.after_p ^ q).to_be_bytes());
            aes.encrypt_block_inplace(&mut block);
            (u128::from_be_bytes(block.into()) >> 32) as u64 & HALF_MASK
        };
        let (mut a, mut b) = split(*self.x);
        if DECRYPT {
            for i in (0..ROUNDS).rev() {
                let c = b.wrapping_sub(f(i, a)) & HALF_MASK;
                b = a;
                a = c;
            }
        } else {
            for i in 0..ROUNDS {
                let c = a.wrapping_add(f(i, b)) & HALF_MASK;
                a = b;
                b = c;
            }
        }
        *self.x = join(a, b);
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
