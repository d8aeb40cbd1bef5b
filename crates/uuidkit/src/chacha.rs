//! The ChaCha12 block function over lanes of 32-bit words, as the thread
//! RNG (`rng.rs`) runs it: one block at a time portably ([`Lanes`] for
//! `u32`), and the same code over vector lanes in `arch`, which implements
//! [`Lanes`] for its registers. This module uses nothing else of the crate.
//!
//! The block function is `rand_chacha::ChaCha12Rng`'s: ChaCha with 12
//! rounds, a 256-bit key, a 64-bit block counter and stream 0.

/// Double rounds: ChaCha12.
const DOUBLE_ROUNDS: usize = 6;
/// Bytes per group of blocks (8 blocks), the unit of generation and buffering.
pub(crate) const GROUP: usize = 512;

/// Lanes of 32-bit words.
pub(crate) trait Lanes: Copy {
    /// What proves that the CPU can run these lanes' instructions (`()`
    /// where every CPU of the target can). The constructors take it, so
    /// a value exists only where its methods may run.
    type Token: Copy;
    /// Words per vector.
    const N: usize;
    /// Loads `N` words.
    fn load(t: Self::Token, w: &[u32]) -> Self;
    /// All lanes `x`.
    fn splat(t: Self::Token, x: u32) -> Self;
    fn add(self, o: Self) -> Self;
    fn xor(self, o: Self) -> Self;
    fn rotl<const R: u32>(self) -> Self;
    /// Stores the lanes as little-endian bytes into `out[..4 * N]`.
    fn store(self, out: &mut [u8]);
}

impl Lanes for u32 {
    type Token = ();
    const N: usize = 1;
    #[inline(always)]
    fn load((): (), w: &[u32]) -> u32 {
        w[0]
    }
    #[inline(always)]
    fn splat((): (), x: u32) -> u32 {
        x
    }
    #[inline(always)]
    fn add(self, o: u32) -> u32 {
        self.wrapping_add(o)
    }
    #[inline(always)]
    fn xor(self, o: u32) -> u32 {
        self ^ o
    }
    #[inline(always)]
    fn rotl<const R: u32>(self) -> u32 {
        self.rotate_left(R)
    }
    #[inline(always)]
    fn store(self, out: &mut [u8]) {
        out[..4].copy_from_slice(&self.to_le_bytes());
    }
}

#[inline(always)]
fn quarter<V: Lanes>(x: &mut [V; 16], a: usize, b: usize, c: usize, d: usize) {
    x[a] = x[a].add(x[b]);
    x[d] = x[d].xor(x[a]).rotl::<16>();
    x[c] = x[c].add(x[d]);
    x[b] = x[b].xor(x[c]).rotl::<12>();
    x[a] = x[a].add(x[b]);
    x[d] = x[d].xor(x[a]).rotl::<8>();
    x[c] = x[c].add(x[d]);
    x[b] = x[b].xor(x[c]).rotl::<7>();
}

/// `V::N` blocks from block `counter` on, into `out[..64 * V::N]`: word `w`
/// of block `j` at word `w * V::N + j` (the standard order when `N == 1`).
#[inline(always)]
pub(crate) fn blocks<V: Lanes>(t: V::Token, key: &[u32; 8], counter: u64, out: &mut [u8]) {
    let mut lo = [0u32; 8];
    let mut hi = [0u32; 8];
    for j in 0..V::N {
        let c = counter.wrapping_add(j as u64);
        lo[j] = c as u32;
        hi[j] = (c >> 32) as u32;
    }
    let init: [V; 16] = [
        V::splat(t, 0x6170_7865),
        V::splat(t, 0x3320_646e),
        V::splat(t, 0x7962_2d32),
        V::splat(t, 0x6b20_6574),
        V::splat(t, key[0]),
        V::splat(t, key[1]),
        V::splat(t, key[2]),
        V::splat(t, key[3]),
        V::splat(t, key[4]),
        V::splat(t, key[5]),
        V::splat(t, key[6]),
        V::splat(t, key[7]),
        V::load(t, &lo),
        V::load(t, &hi),
        V::splat(t, 0),
        V::splat(t, 0),
    ];
    let mut x = init;
    for _ in 0..DOUBLE_ROUNDS {
        quarter(&mut x, 0, 4, 8, 12);
        quarter(&mut x, 1, 5, 9, 13);
        quarter(&mut x, 2, 6, 10, 14);
        quarter(&mut x, 3, 7, 11, 15);
        quarter(&mut x, 0, 5, 10, 15);
        quarter(&mut x, 1, 6, 11, 12);
        quarter(&mut x, 2, 7, 8, 13);
        quarter(&mut x, 3, 4, 9, 14);
    }
    for (w, (v, i)) in x.iter().zip(init.iter()).enumerate() {
        v.add(*i).store(&mut out[4 * V::N * w..]);
    }
}

/// A group (8 blocks, 512 bytes) with the portable lanes.
pub(crate) fn group_scalar(key: &[u32; 8], counter: u64, out: &mut [u8; GROUP]) {
    for (j, block) in out.chunks_exact_mut(64).enumerate() {
        blocks::<u32>((), key, counter.wrapping_add(j as u64), block);
    }
}

/// The keystream of a group as lanes `n` wide emit it: in runs of `n`
/// blocks, word `w` of each block of the run, then word `w + 1`, …
#[cfg(any(test, fuzzing))]
pub(crate) fn interleaved(plain: &[u8; GROUP], n: usize) -> [u8; GROUP] {
    let mut out = [0u8; GROUP];
    for run in 0..8 / n {
        for j in 0..n {
            for w in 0..16 {
                let from = 64 * (run * n + j) + 4 * w;
                let to = 64 * run * n + 4 * (w * n + j);
                out[to..to + 4].copy_from_slice(&plain[from..from + 4]);
            }
        }
    }
    out
}
