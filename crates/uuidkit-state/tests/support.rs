//! What several areas of these tests share: generators bound to a lease.

use uuidkit::clock::Clock;
use uuidkit::rng::ThreadRng;
use uuidkit::{V1Generator, V7Generator};
use uuidkit_state::{GregorianLease, Reserver, V7Lease};

/// 2022-02-22T19:22:22Z, the RFC 9562 Appendix A time.
pub const T_A: u64 = 1_645_557_742_000_000_000;

/// A v7 generator on `clock` bound to a lease of `r`.
pub fn leased_v7<C: Clock>(clock: C, r: &Reserver) -> V7Generator<C, ThreadRng, V7Lease> {
    V7Generator::builder()
        .store(r.lease_v7())
        .build(clock, ThreadRng)
        .unwrap()
}

/// A v1 generator on `clock` bound to a lease of `r`.
pub fn leased_v1<C: Clock>(clock: C, r: &Reserver) -> V1Generator<C, ThreadRng, GregorianLease> {
    V1Generator::builder()
        .store(r.lease_v1())
        .build(clock, ThreadRng)
        .unwrap()
}

/// Held by each test that configures the process-wide generators
/// (`uuidkit_state::configure`), which every test of this binary shares.
pub static GLOBAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Takes [`GLOBAL`] (a test that failed while holding it does not stop the others).
pub fn global() -> std::sync::MutexGuard<'static, ()> {
    GLOBAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}
