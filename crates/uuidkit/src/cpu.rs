//! Run-time detection of the x86_64 features the core type's SIMD paths use
//! (parsing and formatting), shared so that each is checked and cached once.
//! It works without `std` (`cpufeatures` reads CPUID and the OS's saved
//! register state itself); each check is one cached load after the first.

cpufeatures::new!(avx2_detected, "avx2");
cpufeatures::new!(ssse3_detected, "ssse3");

/// Whether the CPU and the OS support AVX2 (`true` at compile time when the
/// build enables it).
#[inline(always)]
pub(crate) fn avx2() -> bool {
    avx2_detected::get()
}

/// Whether the CPU supports SSSE3 (`true` at compile time when the build
/// enables it).
#[inline(always)]
pub(crate) fn ssse3() -> bool {
    ssse3_detected::get()
}
