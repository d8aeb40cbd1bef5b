//! Per-device statistics: messages sent and forwarded per type, and every drop by reason.

use std::collections::BTreeMap;

/// What a [`Device`](super::Device) has done since it was created.
///
/// Datagram counts are per datagram: an Attempt multicast on three interfaces counts three.
/// Every received datagram that leads to no action is counted in exactly one drop reason
/// (see [`Counters::dropped`]).
///
/// Drop reasons are stable snake_case names: for datagrams that do not parse, the name of the
/// [`WireErrorKind`](crate::wire::WireErrorKind) (`as_str()`); for protocol drops one of
/// `unknown_interface` (arrived on an interface the device does not have), `duplicate` (an Attempt
/// already seen), `own_loop` (our own Attempt came back), `unknown_deny` (a Deny matching no
/// remembered Attempt), `deny_mismatch` (a Deny whose DID or UID space differs from the Attempt's),
/// `second_deny` (a Deny for an Attempt that already had one sent or forwarded), `late_deny` (a
/// Deny for one of our claims that has already finished), `deny_hop_limit` (a Deny that arrived
/// with hop limit 0 and cannot be forwarded), `deny_interface_gone` (the reverse path's interface
/// was removed).
///
/// # Example
/// ```
/// use uiap::config::Config;
/// use uiap::device::{Device, InterfaceId, Peer};
/// use uiap::time::Instant;
/// use uiap::wire::DeviceId;
/// # use rand_chacha::ChaCha8Rng; use rand_core::SeedableRng;
///
/// let mut dev = Device::new(Config::default(), DeviceId::new(1).unwrap(), ChaCha8Rng::seed_from_u64(1));
/// dev.add_interface(InterfaceId(0));
/// let from = Peer { interface: InterfaceId(0), addr: "fe80::2".parse().unwrap() };
/// dev.handle_datagram(Instant::ZERO, from, &[1, 0, 0]); // too short
/// let c = dev.counters();
/// assert_eq!(c.datagrams_received, 1);
/// assert_eq!(c.total_drops(), 1);
/// assert_eq!(c.drops().count(), 1);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Counters {
    /// Datagrams passed to `handle_datagram`.
    pub datagrams_received: u64,
    /// Valid Claim-Attempts received (including duplicates).
    pub attempts_received: u64,
    /// Valid Claim-Denies received.
    pub denies_received: u64,
    /// Claim-Attempt floods this device started (one per attempt, whatever the interface count).
    pub floods_originated: u64,
    /// Claim-Attempt datagrams this device originated.
    pub attempts_sent: u64,
    /// Claim-Deny datagrams this device originated (it held or proxied a conflicting claim).
    pub denies_sent: u64,
    /// Claim-Attempt datagrams forwarded for other devices.
    pub attempts_forwarded: u64,
    /// Claim-Deny datagrams forwarded along a reverse path.
    pub denies_forwarded: u64,
    /// Of [`denies_sent`](Self::denies_sent), those sent by proxy defense.
    pub proxy_denies: u64,
    /// Attempts processed but not forwarded because their hop limit was 0.
    pub hop_limit_exhausted: u64,
    /// Denies that arrived for one of our claims after it had finished.
    pub late_conflicts: u64,
    /// Device-ID collisions detected (§9).
    pub device_id_collisions: u64,
    /// Message-table records evicted because the table was full.
    pub table_evictions: u64,
    /// X+R claims not proxied because the proxy table was full.
    pub proxy_table_full: u64,
    /// The largest number of remembered Attempts at once.
    pub peak_message_table: usize,
    /// The largest number of proxied claims at once.
    pub peak_proxy_table: usize,
    drops: BTreeMap<&'static str, u64>,
}

impl Counters {
    pub(crate) fn drop(&mut self, reason: &'static str) {
        *self.drops.entry(reason).or_insert(0) += 1;
    }

    /// How many datagrams were dropped for `reason` (0 for a reason never seen).
    ///
    /// ```
    /// # use uiap::device::Counters;
    /// assert_eq!(Counters::default().dropped("duplicate"), 0);
    /// ```
    pub fn dropped(&self, reason: &str) -> u64 {
        self.drops.get(reason).copied().unwrap_or(0)
    }

    /// Every drop reason seen, with its count, in name order.
    ///
    /// ```
    /// # use uiap::device::Counters;
    /// assert_eq!(Counters::default().drops().next(), None);
    /// ```
    pub fn drops(&self) -> impl Iterator<Item = (&'static str, u64)> + '_ {
        self.drops.iter().map(|(k, v)| (*k, *v))
    }

    /// The sum of all drops.
    ///
    /// ```
    /// # use uiap::device::Counters;
    /// assert_eq!(Counters::default().total_drops(), 0);
    /// ```
    pub fn total_drops(&self) -> u64 {
        self.drops.values().sum()
    }

    /// Adds `other` into `self` (sums; peaks take the maximum), e.g. for totals over a network.
    ///
    /// ```
    /// # use uiap::device::Counters;
    /// let mut total = Counters::default();
    /// total.add(&Counters::default());
    /// assert_eq!(total, Counters::default());
    /// ```
    pub fn add(&mut self, other: &Counters) {
        self.datagrams_received += other.datagrams_received;
        self.attempts_received += other.attempts_received;
        self.denies_received += other.denies_received;
        self.floods_originated += other.floods_originated;
        self.attempts_sent += other.attempts_sent;
        self.denies_sent += other.denies_sent;
        self.attempts_forwarded += other.attempts_forwarded;
        self.denies_forwarded += other.denies_forwarded;
        self.proxy_denies += other.proxy_denies;
        self.hop_limit_exhausted += other.hop_limit_exhausted;
        self.late_conflicts += other.late_conflicts;
        self.device_id_collisions += other.device_id_collisions;
        self.table_evictions += other.table_evictions;
        self.proxy_table_full += other.proxy_table_full;
        self.peak_message_table = self.peak_message_table.max(other.peak_message_table);
        self.peak_proxy_table = self.peak_proxy_table.max(other.peak_proxy_table);
        for (k, v) in &other.drops {
            *self.drops.entry(k).or_insert(0) += v;
        }
    }
}
