//! The one run-time detection of the x86_64 features the crate's SIMD paths
//! use. Every dispatch consults it; nothing else in the crate reads CPUID.
//!
//! It works without `std`: `cpufeatures` reads CPUID and, for the AVX
//! features, the OS's saved register state (XCR0) itself. The answer is one
//! level (SSE2 or AVX2), detected once and cached in one byte, so that a
//! dispatch is one load and one compare.
//!
//! Each feature set is a token: a zero-sized value that only its detection
//! function makes, and only when the CPU and OS support the set (AVX2 is the
//! only set beyond the SSE2 baseline that the crate uses: benchmarks/library.md
//! gives the AVX-512 variants' gains, under the 15 % a path must make). A
//! function that runs those instructions takes the token as an argument, so
//! it can be safe: holding the token is the proof.
//! Code outside this module cannot construct one (the field is private).
//!
//! The build can cap the level: `--cfg uuidkit_simd="sse2"` in `RUSTFLAGS`
//! makes every dispatch take the SSE2 path (what a CPU without AVX2 runs)
//! even on a CPU with AVX2, so that that path can be tested and measured
//! through the public API on any x86_64 machine. It can only lower the
//! level: it never makes a path run that the CPU lacks. It is a build setting, not an
//! environment variable, because the generators promise to read none.

use core::sync::atomic::{AtomicU8, Ordering};

cpufeatures::new!(avx2_cpuid, "avx2");

const UNKNOWN: u8 = 0;
const SSE2: u8 = 1;
const AVX2: u8 = 2;

/// The level, [`UNKNOWN`] until the first detection.
static LEVEL: AtomicU8 = AtomicU8::new(UNKNOWN);

#[inline(always)]
fn level() -> u8 {
    match LEVEL.load(Ordering::Relaxed) {
        UNKNOWN => detect(),
        known => known,
    }
}

/// Detects the level, caps it (see the module docs) and caches it. Threads
/// that race here compute the same answer.
#[cold]
#[inline(never)]
fn detect() -> u8 {
    let detected = if avx2_cpuid::get() { AVX2 } else { SSE2 };
    let level = detected.min(cap());
    LEVEL.store(level, Ordering::Relaxed);
    level
}

/// The level the build allows at most (see the module docs).
const fn cap() -> u8 {
    if cfg!(uuidkit_simd = "sse2") {
        SSE2
    } else {
        AVX2
    }
}

/// Proof that the CPU has AVX2 and the OS saves the YMM registers; only
/// [`avx2`] makes one.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx2(());

/// The AVX2 token, if this CPU and OS support AVX2 (within the cap).
#[inline(always)]
pub(crate) fn avx2() -> Option<Avx2> {
    (level() >= AVX2).then_some(Avx2(()))
}

/// The AVX2 token whatever the cap: a kernel's own test runs wherever the
/// CPU has the kernel's features.
#[cfg(test)]
pub(crate) fn avx2_uncapped() -> Option<Avx2> {
    avx2_cpuid::get().then_some(Avx2(()))
}

/// A test's token for a feature set: under CI a CPU without it fails the
/// test; elsewhere the skip is recorded and `None` returned.
#[cfg(test)]
pub(crate) fn require<T>(test: &str, feature: &str, token: Option<T>) -> Option<T> {
    test_support::require(test, test_support::cpu_feature(feature, token.is_some()))
        .then_some(())?;
    token
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The token agrees with `std`'s own detection, within the cap, so
    /// neither can hand out a feature the other does not see.
    #[test]
    fn tokens_agree_with_std_detection() {
        let allowed = cap() == AVX2;
        assert_eq!(
            avx2().is_some(),
            std::is_x86_feature_detected!("avx2") && allowed
        );
        assert_eq!(
            avx2_uncapped().is_some(),
            std::is_x86_feature_detected!("avx2")
        );
    }
}
