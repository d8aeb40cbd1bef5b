//! Every vector path of the bit-crunching code against the portable
//! reference, on arbitrary bytes: the thread RNG's ChaCha12 lanes and the
//! bulk v7 layout (those this CPU can run; under CI, all of them).
//!
//! cd crates/uuidkit && RUSTC_BOOTSTRAP=1 cargo fuzz run simd_bits -- -max_total_time=60
#![no_main]

use libfuzzer_sys::fuzz_target;
use uuidkit::__differential as differential;

fuzz_target!(|data: &[u8]| {
    differential::chacha(data);
    differential::v7_layout(data);
});
