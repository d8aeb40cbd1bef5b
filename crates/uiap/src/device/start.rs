//! When a claim that has not started yet will send its first Claim-Attempt.

use rand_core::Rng;

use super::{ClaimId, Device};
use crate::time::Instant;

impl<R: Rng> Device<R> {
    /// When `claim`'s first Claim-Attempt is due, if it has not been sent yet: the start delay
    /// of [`Config::start_jitter`](crate::config::Config::start_jitter), pushed back by
    /// [`Config::conflict_rate_limit`](crate::config::Config::conflict_rate_limit) after
    /// repeated conflicts. `None` once the claim has started, or for an unknown claim.
    ///
    /// ```
    /// # use rand_chacha::ChaCha8Rng; use rand_core::SeedableRng;
    /// # use uiap::{config::Config, device::{ClaimSpec, Device, InterfaceId}, wire::DeviceId, time::Instant};
    /// # use uiap::space::{DomainId, Uid, UidSpace};
    /// let config = Config { start_jitter: core::time::Duration::ZERO, ..Config::default() };
    /// let mut dev = Device::new(config, DeviceId::new(1).unwrap(), ChaCha8Rng::seed_from_u64(0));
    /// dev.add_interface(InterfaceId(1));
    /// let d = DomainId::from_bytes([0, 1, 0, 0, 0, 0, 0, 0]);
    /// let c = dev.claim(Instant::from_secs(3), ClaimSpec::new(d, UidSpace::Unique(Uid::from_octets(&[1])?)))?;
    /// assert_eq!(dev.first_attempt_at(c), Some(Instant::from_secs(3)));
    /// dev.handle_timeout(Instant::from_secs(3));
    /// assert_eq!(dev.first_attempt_at(c), None);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn first_attempt_at(&self, claim: ClaimId) -> Option<Instant> {
        let c = self.claims.get(&claim)?;
        let round = c.round.as_ref()?;
        (!c.held && round.sent == 0).then_some(round.next)
    }

    /// A claim released before its first Claim-Attempt gives its start back: when it was the
    /// last one scheduled, the next claim is spaced from the one before it, not from a start
    /// nobody used (docs/uiap-design.md D67). Earlier ones keep their places.
    pub(super) fn give_back_start(&mut self, claim: ClaimId) {
        let Some(at) = self.first_attempt_at(claim) else {
            return;
        };
        if self.last_claim_start == Some(at) {
            self.last_claim_start = Some(at - self.config.conflict_rate_limit);
        }
    }
}
