//! Proxy defense (§5.1, docs/uiap-design.md D18): defending X+R claims of other devices.

use core::time::Duration;

use crate::space::{DomainId, UidSpace, conflicts};
use crate::time::Instant;
use crate::wire::DeviceId;

#[derive(Clone, Debug)]
struct Entry {
    origin: DeviceId,
    domain: DomainId,
    space: UidSpace,
    expires: Instant,
}

/// Claims defended on behalf of other devices: bounded, each for at most the lifetime it was
/// received with (from receipt) and at most `max_lifetime`.
#[derive(Debug)]
pub(crate) struct ProxyTable {
    entries: Vec<Entry>,
    capacity: usize,
    max_lifetime: Duration,
}

/// The outcome of [`ProxyTable::record`].
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Recorded {
    New,
    Refreshed,
    NotKept,
    Full,
    /// Over the share of its domain that proxied spaces, or one origin's, may cover.
    Share,
}

/// A domain's UIDs as [`share`] counts them: a space whose UIDs share `b` leading bits
/// covers `2^(32 - b)` of them (at least one).
const DOMAIN_UNITS: u64 = 1 << 32;
/// The share of a domain all proxied spaces together may cover: 1/256, one 8-bit prefix or
/// four 10-bit ones (docs/uiap-design.md D66). Forged X+R announcements can poison no more of it.
pub(crate) const DOMAIN_SHARE: u64 = DOMAIN_UNITS / 256;
/// The share of a domain one origin's proxied spaces may cover: 1/1024, one 10-bit prefix, or
/// 2^22 single UIDs; no 8-bit prefix fits.
pub(crate) const ORIGIN_SHARE: u64 = DOMAIN_UNITS / 1024;

/// How much of its domain `space` covers, in [`DOMAIN_UNITS`]: judged by the leading bits its
/// UIDs share, so a range counts as the prefix that holds it.
fn share(space: &UidSpace) -> u64 {
    let bits = match space {
        UidSpace::Unique(_) => 32,
        UidSpace::Prefix(p) => u32::from(p.bit_len()),
        UidSpace::Range { low, high } => {
            let (a, b) = (low.as_bytes(), high.as_bytes());
            if a.len() == b.len() {
                let differ = a.iter().zip(b).position(|(x, y)| x != y);
                differ.map_or(32, |i| i as u32 * 8 + (a[i] ^ b[i]).leading_zeros())
            } else {
                0
            }
        }
    };
    DOMAIN_UNITS >> bits.min(32)
}

impl ProxyTable {
    pub fn new(capacity: usize, max_lifetime: Duration) -> ProxyTable {
        ProxyTable {
            entries: Vec::new(),
            capacity,
            max_lifetime,
        }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn purge(&mut self, now: Instant) {
        self.entries.retain(|e| e.expires > now);
    }

    /// The device whose proxied claim a claim by `origin` conflicts with, if any.
    /// Never the original claimant itself.
    pub fn defends_against(
        &self,
        now: Instant,
        origin: DeviceId,
        domain: &DomainId,
        space: &UidSpace,
    ) -> Option<DeviceId> {
        self.entries
            .iter()
            .find(|e| {
                e.expires > now
                    && e.origin != origin
                    && conflicts(&e.domain, &e.space, domain, space)
            })
            .map(|e| e.origin)
    }

    /// The live entries, as (origin, domain, space, expiry).
    pub fn entries(&self, now: Instant) -> impl Iterator<Item = ProxyInfo> + '_ {
        self.entries
            .iter()
            .filter(move |e| e.expires > now)
            .map(|e| ProxyInfo {
                origin: e.origin,
                domain: e.domain,
                space: e.space.clone(),
                expires: e.expires,
            })
    }

    /// Forgets every entry; returns how many there were.
    pub fn clear(&mut self) -> usize {
        let n = self.entries.len();
        self.entries.clear();
        n
    }

    /// Remembers (or refreshes) an X+R claim received at `now` with `lifetime` seconds.
    pub fn record(
        &mut self,
        now: Instant,
        origin: DeviceId,
        domain: &DomainId,
        space: &UidSpace,
        lifetime: u32,
    ) -> Recorded {
        let secs = Duration::from_secs(u64::from(lifetime)).min(self.max_lifetime);
        if secs.is_zero() {
            return Recorded::NotKept;
        }
        let expires = now + secs;
        if let Some(e) = self
            .entries
            .iter_mut()
            .find(|e| e.origin == origin && e.domain == *domain && e.space == *space)
        {
            e.expires = expires;
            return Recorded::Refreshed;
        }
        if self.entries.len() >= self.capacity {
            return Recorded::Full;
        }
        let covered = |of_origin: bool| -> u64 {
            self.entries
                .iter()
                .filter(|e| e.expires > now && e.domain == *domain)
                .filter(|e| !of_origin || e.origin == origin)
                .map(|e| share(&e.space))
                .sum()
        };
        let more = share(space);
        if covered(false) + more > DOMAIN_SHARE || covered(true) + more > ORIGIN_SHARE {
            return Recorded::Share;
        }
        self.entries.push(Entry {
            origin,
            domain: *domain,
            space: space.clone(),
            expires,
        });
        Recorded::New
    }

    /// Forgets a proxied claim whose reclaim was denied (a Deny for it passed through us).
    pub fn forget(&mut self, origin: DeviceId, domain: &DomainId, space: &UidSpace) {
        self.entries
            .retain(|e| !(e.origin == origin && e.domain == *domain && e.space == *space));
    }
}

/// A claim of another device that this device defends by proxy, from [`Device::proxies`](super::Device::proxies).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ProxyInfo {
    /// The device that made the claim.
    pub origin: DeviceId,
    /// Its domain.
    pub domain: DomainId,
    /// The space.
    pub space: UidSpace,
    /// When this device stops defending it.
    pub expires: Instant,
}
