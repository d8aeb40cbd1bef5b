//! MD5's block function (RFC 1321 §3.4), ordered for latency.
//!
//! MD5 is one serial chain of 64 steps, `a = b + ((a + f(b, c, d) + m + t) <<< s)`,
//! so its speed is the latency of that chain. Each step here adds `a + m + t`
//! (ready long before `b`) first, and computes everything in `f` that does not
//! involve `b` first, so only the few operations that need the previous
//! step's result stay on the chain: 5 in rounds 1 and 4, 4 in rounds 2 and 3.
//! In round 2, `(b & d) | (c & !d)` is computed as `(c & !d) + (b & d)` (the
//! two never share a bit), which lets `c & !d` join the early sum.
//!
//! Why not the `md-5` crate's block function: it adds the constant after
//! `f`, which puts one more addition on the chain in every step. The tests
//! below check this block function against that crate's, and
//! `name::tests` checks v3 against its `Digest` for every name length 0–200.

/// The 64 additive constants, `floor(2^32 · |sin(i + 1)|)`.
const T: [u32; 64] = [
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
    0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
    0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
    0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
    0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
    0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
    0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
    0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391,
];

/// MD5's initial state (RFC 1321 §3.3).
pub(crate) const INITIAL_STATE: [u32; 4] = [0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476];

/// `x`, opaque to the optimiser: it stops LLVM from re-associating the early
/// sum with the late term (it otherwise moves the constant `t` last, which
/// puts one more addition on the chain).
#[inline(always)]
fn settled(x: u32) -> u32 {
    crate::arch::opaque_u32(x).unwrap_or(x)
}

/// `early + f(b, c, d)` for each round, with `b` used last.
#[inline(always)]
fn f(early: u32, b: u32, c: u32, d: u32) -> u32 {
    settled(early).wrapping_add(d ^ (b & (c ^ d)))
}
#[inline(always)]
fn g(early: u32, b: u32, c: u32, d: u32) -> u32 {
    settled(early.wrapping_add(c & !d)).wrapping_add(b & d)
}
#[inline(always)]
fn h(early: u32, b: u32, c: u32, d: u32) -> u32 {
    settled(early).wrapping_add(b ^ (c ^ d))
}
#[inline(always)]
fn i(early: u32, b: u32, c: u32, d: u32) -> u32 {
    settled(early).wrapping_add(c ^ (b | !d))
}

/// One step: `a = b + ((a + m[k] + t[j] + fun(b, c, d)) <<< s)`.
macro_rules! step {
    ($fun:ident, $a:ident, $b:ident, $c:ident, $d:ident, $m:expr, $j:expr, $s:expr) => {
        $a = $fun($a.wrapping_add($m).wrapping_add(T[$j]), $b, $c, $d)
            .rotate_left($s)
            .wrapping_add($b);
    };
}

/// Four steps with the argument rotation of RFC 1321, on message words
/// `(k + n·dk) mod 16` for n = 0..4.
macro_rules! four {
    ($fun:ident, $a:ident, $b:ident, $c:ident, $d:ident, $m:ident, $j:expr, $k:expr, $dk:expr, $r:ident) => {
        step!($fun, $a, $b, $c, $d, $m[($k) % 16], $j, $r[0]);
        step!($fun, $d, $a, $b, $c, $m[($k + $dk) % 16], $j + 1, $r[1]);
        step!($fun, $c, $d, $a, $b, $m[($k + 2 * $dk) % 16], $j + 2, $r[2]);
        step!($fun, $b, $c, $d, $a, $m[($k + 3 * $dk) % 16], $j + 3, $r[3]);
    };
}

/// Compresses one 64-byte block into `state` (start from [`INITIAL_STATE`]).
#[inline(always)]
pub(crate) fn compress(state: &mut [u32; 4], block: &[u8; 64]) {
    run(state, block, None);
}

/// As [`compress`], for a block whose first four steps are already done:
/// `mid` is [`after_first_four`] of `*state` and the block's words 0–3.
#[inline(always)]
pub(crate) fn compress_from_step_4(state: &mut [u32; 4], mid: [u32; 4], block: &[u8; 64]) {
    run(state, block, Some(mid));
}

/// The working variables after steps 0–3 from `state`, which read message
/// words 0–3 only, the block's first 16 bytes: for a name-based UUID, just
/// the namespace. A `const fn`, so the RFC namespaces' values are computed
/// at compile time; it repeats
/// the first `four!` of [`compress`] without the (non-`const`) `asm!` barrier,
/// and the tests check that resuming from it gives the same state.
pub(crate) const fn after_first_four(state: [u32; 4], first_16: &[u8; 16]) -> [u32; 4] {
    const S: [u32; 4] = [7, 12, 17, 22];
    let [mut a, mut b, mut c, mut d] = state;
    let mut j = 0;
    while j < 4 {
        let at = 4 * j;
        let word = u32::from_le_bytes([
            first_16[at],
            first_16[at + 1],
            first_16[at + 2],
            first_16[at + 3],
        ]);
        let f = d ^ (b & (c ^ d));
        let t = a.wrapping_add(f).wrapping_add(word).wrapping_add(T[j]);
        let new_b = b.wrapping_add(t.rotate_left(S[j]));
        // Rotate the roles: (a, b, c, d) <- (d, new b, b, c).
        a = d;
        d = c;
        c = b;
        b = new_b;
        j += 1;
    }
    [a, b, c, d]
}

#[inline(always)]
fn run(state: &mut [u32; 4], block: &[u8; 64], first_four_done: Option<[u32; 4]>) {
    let mut m = [0u32; 16];
    for (word, bytes) in m.iter_mut().zip(block.chunks_exact(4)) {
        *word = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
    }
    const R1: [u32; 4] = [7, 12, 17, 22];
    const R2: [u32; 4] = [5, 9, 14, 20];
    const R3: [u32; 4] = [4, 11, 16, 23];
    const R4: [u32; 4] = [6, 10, 15, 21];
    let [mut a, mut b, mut c, mut d] = match first_four_done {
        Some(mid) => mid,
        None => {
            let [mut a, mut b, mut c, mut d] = *state;
            four!(f, a, b, c, d, m, 0, 0, 1, R1);
            [a, b, c, d]
        }
    };
    // Round 1: words 0, 1, 2, … (k = j).
    four!(f, a, b, c, d, m, 4, 4, 1, R1);
    four!(f, a, b, c, d, m, 8, 8, 1, R1);
    four!(f, a, b, c, d, m, 12, 12, 1, R1);
    // Round 2: k = 1 + 5j.
    four!(g, a, b, c, d, m, 16, 1, 5, R2);
    four!(g, a, b, c, d, m, 20, 5, 5, R2);
    four!(g, a, b, c, d, m, 24, 9, 5, R2);
    four!(g, a, b, c, d, m, 28, 13, 5, R2);
    // Round 3: k = 5 + 3j.
    four!(h, a, b, c, d, m, 32, 5, 3, R3);
    four!(h, a, b, c, d, m, 36, 1, 3, R3);
    four!(h, a, b, c, d, m, 40, 13, 3, R3);
    four!(h, a, b, c, d, m, 44, 9, 3, R3);
    // Round 4: k = 7j.
    four!(i, a, b, c, d, m, 48, 0, 7, R4);
    four!(i, a, b, c, d, m, 52, 12, 7, R4);
    four!(i, a, b, c, d, m, 56, 8, 7, R4);
    four!(i, a, b, c, d, m, 60, 4, 7, R4);
    state[0] = state[0].wrapping_add(a);
    state[1] = state[1].wrapping_add(b);
    state[2] = state[2].wrapping_add(c);
    state[3] = state[3].wrapping_add(d);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_function_matches_the_md5_crate_on_arbitrary_states_and_blocks() {
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..2000 {
            let mut block = [0u8; 64];
            for b in block.iter_mut() {
                *b = next() as u8;
            }
            let start = [next() as u32, next() as u32, next() as u32, next() as u32];
            let (mut ours, mut theirs) = (start, start);
            compress(&mut ours, &block);
            ::md5::block_api::compress(&mut theirs, core::slice::from_ref(&block));
            assert_eq!(ours, theirs, "state {start:x?} block {block:x?}");
        }
        // Starting after the first four steps gives the same state.
        for _ in 0..200 {
            let mut block = [0u8; 64];
            for b in block.iter_mut() {
                *b = next() as u8;
            }
            let (mut whole, mut resumed) = (INITIAL_STATE, INITIAL_STATE);
            compress(&mut whole, &block);
            let mid = after_first_four(INITIAL_STATE, block.first_chunk().unwrap());
            compress_from_step_4(&mut resumed, mid, &block);
            assert_eq!(resumed, whole);
        }
        // RFC 1321 A.5: MD5("") = d41d8cd98f00b204e9800998ecf8427e.
        let mut state = INITIAL_STATE;
        let mut empty = [0u8; 64];
        empty[0] = 0x80;
        compress(&mut state, &empty);
        assert_eq!(state[0].to_le_bytes(), [0xd4, 0x1d, 0x8c, 0xd9]);
        assert_eq!(state[3].to_le_bytes(), [0xec, 0xf8, 0x42, 0x7e]);
    }
}
