//! The one run-time detection of the x86_64 features the crate's SIMD paths
//! use. Every dispatch consults it; nothing else in the crate reads CPUID.
//!
//! It works without `std`: `cpufeatures` reads CPUID and, for the AVX
//! features, the OS's saved register state (XCR0) itself, and caches the
//! answer, so each check is one load after the first.
//!
//! Each feature set is a token: a zero-sized value that only its detection
//! function makes, and only when the CPU and OS support the set (AVX2 is the
//! only set beyond the SSE2 baseline that the crate uses). A function
//! that runs those instructions takes the token as an argument, so it can be
//! safe: holding the token is the proof. Code outside this module cannot
//! construct one (the field is private).

cpufeatures::new!(avx2_cpuid, "avx2");

/// Proof that the CPU has AVX2 and the OS saves the YMM registers; only
/// [`avx2`] makes one.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx2(());

/// The AVX2 token, if this CPU and OS support AVX2.
#[inline(always)]
pub(crate) fn avx2() -> Option<Avx2> {
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

    /// The tokens agree with `std`'s own detection, so neither can hand out
    /// a feature the other does not see.
    #[test]
    fn tokens_agree_with_std_detection() {
        assert_eq!(avx2().is_some(), std::is_x86_feature_detected!("avx2"));
    }
}
