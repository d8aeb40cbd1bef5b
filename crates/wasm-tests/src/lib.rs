//! uuidkit's tests on `wasm32-unknown-unknown`, in `tests/wasm.rs`: the
//! generators with randomness and time from the JavaScript host (the `js`
//! feature), and the text forms. Elsewhere this crate is empty.
//!
//! ```text
//! CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
//!     cargo test -p wasm-tests --target wasm32-unknown-unknown
//! ```
#![no_std]
