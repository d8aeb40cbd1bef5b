//! uuidkit under a JavaScript host (Node.js): randomness from
//! `crypto.getRandomValues`, time from `Date.now()`.
#![cfg(all(target_arch = "wasm32", target_os = "unknown"))]

use uuidkit::clock::{Clock, SystemClock};
use uuidkit::{NonNilUuid, Uuid, Variant, Version};
use wasm_bindgen_test::wasm_bindgen_test;

#[wasm_bindgen_test]
fn v4_uuids_differ_and_carry_their_version() {
    let a = Uuid::new_v4();
    let b = Uuid::new_v4();
    assert_ne!(a, b);
    assert_eq!(a.version(), Some(Version::Random));
    assert_eq!(a.variant(), Variant::Rfc9562);
    let mut batch = [Uuid::NIL; 64];
    Uuid::fill_v4(&mut batch);
    assert!(batch.iter().all(|u| u.version() == Some(Version::Random)));
    assert_ne!(batch[0], batch[63]);
    assert_ne!(NonNilUuid::new_v4(), NonNilUuid::new_v4());
}

#[wasm_bindgen_test]
fn the_host_clock_reads_the_current_time_in_milliseconds() {
    let now = SystemClock.now_ns();
    assert!(now > 1_700_000_000_000_000_000, "{now}"); // after November 2023
    assert_eq!(now % 1_000_000, 0);
    assert_eq!(SystemClock.resolution_ns(), 1_000_000);
}

#[wasm_bindgen_test]
fn v7_uuids_increase_and_carry_the_host_time() {
    let before_ms = SystemClock.now_ns() / 1_000_000;
    let mut prev = Uuid::now_v7();
    for _ in 0..1000 {
        let next = Uuid::now_v7();
        assert!(next > prev);
        prev = next;
    }
    let after_ms = SystemClock.now_ns() / 1_000_000;
    let ms = prev.unix_ts_ms().expect("a v7 UUID has a timestamp");
    // The counter may carry a few milliseconds ahead of the clock.
    assert!(
        before_ms <= ms && ms <= after_ms + 16,
        "{before_ms} {ms} {after_ms}"
    );
    assert_eq!(prev.version(), Some(Version::SortRand));
}

#[wasm_bindgen_test]
fn text_forms_round_trip() {
    let u = Uuid::parse("F81D4FAE-7DEC-11D0-A765-00A0C91E6BF6").unwrap();
    assert_eq!(u.to_string(), "f81d4fae-7dec-11d0-a765-00a0c91e6bf6");
    assert_eq!(u.simple().to_string(), "f81d4fae7dec11d0a76500a0c91e6bf6");
    assert_eq!(Uuid::parse(&u.urn().to_string()), Ok(u));
    let err = Uuid::parse("f81d4fae-gdec-11d0-a765-00a0c91e6bf6").unwrap_err();
    assert_eq!(err.position(), Some(9));
}

#[wasm_bindgen_test]
fn v1_and_v6_generators_run_without_process_ids() {
    use uuidkit::rng::ThreadRng;
    use uuidkit::{Generator, V1Generator, V6Generator};
    let mut v1 = V1Generator::new(SystemClock, ThreadRng);
    let mut v6 = V6Generator::new(SystemClock, ThreadRng);
    let (a, b) = (v1.generate().unwrap(), v1.generate().unwrap());
    assert_ne!(a, b);
    assert_eq!(a.version(), Some(Version::Mac));
    let (c, d) = (v6.generate().unwrap(), v6.generate().unwrap());
    assert!(d > c, "v6 sorts by time");
    assert_eq!(c.version(), Some(Version::SortMac));
}
