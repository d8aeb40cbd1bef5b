//! Every vector path of the text code against the portable reference, on
//! arbitrary bytes: the decoders of both forms, the encoders, and the bulk
//! line encoders (those this CPU can run; under CI, all of them).
//!
//! cd crates/uuidkit && RUSTC_BOOTSTRAP=1 cargo fuzz run simd_text -- -max_total_time=60
#![no_main]

use libfuzzer_sys::fuzz_target;
use uuidkit::__differential as differential;

fuzz_target!(|data: &[u8]| {
    differential::decode(data);
    differential::encode(data);
    differential::lines(data);
});
