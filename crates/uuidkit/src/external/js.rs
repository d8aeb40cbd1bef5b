//! `js`: on `wasm32-unknown-unknown`, time from the JavaScript host.
//! (Randomness needs nothing here: the feature turns on `getrandom`'s
//! `wasm_js` backend, `crypto.getRandomValues`, which seeds `ThreadRng`.)

/// `Date.now()` ticks in whole milliseconds.
pub(crate) const RESOLUTION_NS: u64 = 1_000_000;

/// Nanoseconds since the Unix epoch from `Date.now()`: 0 before 1970 (and
/// for a host that returns NaN), saturating far in the future.
pub(crate) fn now_ns() -> u64 {
    // `as` saturates: negative and NaN give 0. Whole milliseconds first, so
    // no f64 rounding reaches the nanoseconds.
    let ms = js_sys::Date::now() as u64;
    ms.saturating_mul(1_000_000)
}
