//! Canonical lines in bulk (`36` characters and `'\n'` each), for
//! [`Hyphenated::encode_lines_lower`](crate::Hyphenated::encode_lines_lower).
//!
//! The AVX2 path works on a period of 16 UUIDs (256 source bytes, 592 bytes
//! of text). The text is built in 32-byte steps: every
//! step needs at most 16 contiguous source bytes (a 32-byte stretch of lines holds
//! at most 30 hex digits, since non-digits are never more than 13 bytes apart),
//! so one 16-byte window of the source, loaded whole, feeds it. A per-step index
//! picks each output byte's source byte (`pshufb`), two masks keep its high or
//! its low nibble, and positions holding `-` or `\n` get index `0x80` (a zero
//! nibble, so the digit `'0'`) and are then XOR-ed into place. Each step ends in
//! one whole 32-byte store.

use core::arch::x86_64::*;

use super::cpu::{self, Avx2};
use crate::hex::LINE;
use crate::uuid::Uuid;

/// Encodes as many of `uuids` as whole periods allow, as lines into the
/// start of `out`, with the best path this CPU has; returns how many UUIDs
/// were done (the caller writes the rest).
///
/// # Panics
/// If `out` is shorter than `LINE * uuids.len()` bytes.
#[inline]
pub(crate) fn encode(uuids: &[Uuid], out: &mut [u8], upper: bool) -> usize {
    match cpu::avx2() {
        Some(t) => avx2(t, uuids, out, upper),
        None => 0,
    }
}

/// UUIDs per period.
pub(crate) const PERIOD: usize = 16;
/// Text bytes per period.
const PERIOD_TEXT: usize = LINE * PERIOD;
/// 32-byte steps per period; the last one is half used (592 = 18 × 32 + 16).
const STEPS: usize = PERIOD_TEXT.div_ceil(32);

/// Per-step constants.
#[repr(C, align(32))]
pub(crate) struct Steps {
    /// `pshufb` indices into the step's window; `0x80`: no digit.
    pub(crate) index: [[u8; 32]; STEPS],
    /// `0x0f` where the digit is the low nibble of its byte, else 0.
    pub(crate) low: [[u8; 32]; STEPS],
    /// `0x0f` where the digit is the high nibble of its byte, else 0.
    pub(crate) high: [[u8; 32]; STEPS],
    /// XOR-ed onto the digits: `'-' ^ '0'` and `'\n' ^ '0'` where those go, else 0.
    pub(crate) xor: [[u8; 32]; STEPS],
    /// Where each step's 16-byte source window starts, within the period's 256 bytes.
    pub(crate) window: [usize; STEPS],
}

/// What goes at byte `col` (0..37) of a line: `Ok(digit index 0..32)` or `Err(byte)`.
const fn at(col: usize) -> Result<usize, u8> {
    match col {
        8 | 13 | 18 | 23 => Err(b'-'),
        36 => Err(b'\n'),
        _ => Ok(col
            - (col > 8) as usize
            - (col > 13) as usize
            - (col > 18) as usize
            - (col > 23) as usize),
    }
}

const fn build() -> Steps {
    let mut s = Steps {
        index: [[0x80; 32]; STEPS],
        low: [[0; 32]; STEPS],
        high: [[0; 32]; STEPS],
        xor: [[0; 32]; STEPS],
        window: [0; STEPS],
    };
    let mut t = 0;
    while t < STEPS {
        // The window starts at the first source byte this step needs.
        let mut first = usize::MAX;
        let mut j = 0;
        while j < 32 {
            let p = 32 * t + j;
            if p < PERIOD_TEXT
                && let Ok(d) = at(p % LINE)
            {
                let src = (p / LINE) * 16 + d / 2;
                if src < first {
                    first = src;
                }
            }
            j += 1;
        }
        if first > 256 - 16 {
            first = 256 - 16;
        }
        s.window[t] = first;
        let mut j = 0;
        while j < 32 {
            let p = 32 * t + j;
            if p < PERIOD_TEXT {
                match at(p % LINE) {
                    Ok(d) => {
                        let src = (p / LINE) * 16 + d / 2;
                        assert!(src >= first && src - first < 16, "window too narrow");
                        s.index[t][j] = (src - first) as u8;
                        if d % 2 == 0 {
                            s.high[t][j] = 0x0f;
                        } else {
                            s.low[t][j] = 0x0f;
                        }
                    }
                    Err(c) => s.xor[t][j] = c ^ b'0',
                }
            }
            j += 1;
        }
        t += 1;
    }
    s
}

pub(crate) static STEP: Steps = build();

/// Encodes whole periods of 16 UUIDs with AVX2; returns how many UUIDs were
/// done.
///
/// # Panics
/// If `out` is shorter than `LINE * uuids.len()` bytes.
pub(crate) fn avx2(_: Avx2, uuids: &[Uuid], out: &mut [u8], upper: bool) -> usize {
    // SAFETY: the token proves AVX2.
    unsafe { periods_avx2(uuids, out, upper) }
}

/// As [`avx2`], compiled for AVX2.
///
/// # Panics
/// If `out` is shorter than `LINE * uuids.len()` bytes.
#[target_feature(enable = "avx2")]
fn periods_avx2(uuids: &[Uuid], out: &mut [u8], upper: bool) -> usize {
    assert!(out.len() >= LINE * uuids.len());
    let periods = uuids.len() / PERIOD;
    let t = crate::hex::digits(upper);
    // SAFETY: `out` holds at least `periods * PERIOD_TEXT` bytes (asserted);
    // every load reads 16 bytes at `window ≤ 240` inside a period's 256
    // source bytes, 16 bytes of `t`, or 32 bytes of `STEP`; every store
    // writes inside the period's 592 bytes of `out` (steps 0..18 at 32 × t,
    // step 18's low half at 576..592). All unaligned.
    unsafe {
        let lut = _mm256_broadcastsi128_si256(_mm_loadu_si128(t.as_ptr().cast()));
        for p in 0..periods {
            let src = uuids.as_ptr().add(p * PERIOD).cast::<u8>();
            let dst = out.as_mut_ptr().add(p * PERIOD_TEXT);
            let step = |t: usize| {
                let w =
                    _mm256_broadcastsi128_si256(_mm_loadu_si128(src.add(STEP.window[t]).cast()));
                let idx = _mm256_load_si256(STEP.index[t].as_ptr().cast());
                let b = _mm256_shuffle_epi8(w, idx);
                let n = _mm256_or_si256(
                    _mm256_and_si256(b, _mm256_load_si256(STEP.low[t].as_ptr().cast())),
                    _mm256_and_si256(
                        _mm256_srli_epi16(b, 4),
                        _mm256_load_si256(STEP.high[t].as_ptr().cast()),
                    ),
                );
                let digits = _mm256_shuffle_epi8(lut, n);
                _mm256_xor_si256(digits, _mm256_load_si256(STEP.xor[t].as_ptr().cast()))
            };
            // Unrolled, so that every window offset and table address is a
            // constant (no index registers, no offset loads, no loop).
            macro_rules! steps {
                ($($t:literal)*) => {
                    $(_mm256_storeu_si256(dst.add(32 * $t).cast(), step($t));)*
                };
            }
            const _: () = assert!(STEPS == 19);
            steps!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17);
            _mm_storeu_si128(
                dst.add(32 * (STEPS - 1)).cast(),
                _mm256_castsi256_si128(step(STEPS - 1)),
            );
        }
    }
    periods * PERIOD
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::sweep;
    use crate::fmt::lines_each;

    /// A bulk path, finished one UUID at a time as `fmt` does.
    fn finished(
        bulk: impl Fn(&[Uuid], &mut [u8], bool) -> usize,
    ) -> impl Fn(&[Uuid], &mut [u8], bool) {
        move |uuids, out, upper| {
            let done = bulk(uuids, out, upper);
            assert_eq!(done, uuids.len() / PERIOD * PERIOD, "whole periods only");
            lines_each(&uuids[done..], &mut out[LINE * done..], upper);
        }
    }

    #[test]
    fn avx2_lines_agree_with_scalar_on_every_byte_in_every_position() {
        let test = "arch::x86_64::lines::tests::avx2_lines_agree_with_scalar_on_every_byte_in_every_position";
        let Some(t) = cpu::require(test, "avx2", cpu::avx2_uncapped()) else {
            return;
        };
        sweep::check_lines(finished(|u, o, up| avx2(t, u, o, up)));
    }

    #[test]
    fn the_bulk_entry_point_takes_whole_periods() {
        let batch = sweep::sweep_batch(3, 40);
        let mut out = std::vec![0u8; 40 * LINE];
        let done = encode(&batch, &mut out, false);
        assert_eq!(done, if cpu::avx2().is_some() { 32 } else { 0 });
    }
}
