//! Per-device statistics: messages sent and forwarded per type, and every drop by reason.

use std::collections::BTreeMap;

use crate::wire::WireErrorKind;

/// Why a received datagram led to no action: the key of [`Counters::dropped`].
///
/// A closed set, so a counter cannot be created by a typo; [`as_str`](Self::as_str) gives the
/// stable snake_case name used in logs and statistics.
///
/// ```
/// use uiap::device::DropReason;
/// use uiap::wire::WireErrorKind;
///
/// assert_eq!(DropReason::SecondDeny.as_str(), "second_deny");
/// assert_eq!(DropReason::Wire(WireErrorKind::Truncated).as_str(), "truncated");
/// assert_eq!(DropReason::from(WireErrorKind::Truncated), DropReason::Wire(WireErrorKind::Truncated));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum DropReason {
    /// Not a valid UIAP message; named after the [`WireErrorKind`].
    Wire(WireErrorKind),
    /// Arrived on an interface the device does not have.
    UnknownInterface,
    /// An Attempt already seen (its message ID is remembered).
    Duplicate,
    /// Our own Attempt came back (multicast loopback or a loop).
    OwnLoop,
    /// A Deny matching no remembered Attempt.
    UnknownDeny,
    /// A Deny whose DID or UID space differs from the remembered Attempt's.
    DenyMismatch,
    /// A Deny for an Attempt that already had one Deny sent or forwarded.
    SecondDeny,
    /// A Deny for one of our claims whose round has already finished (a late conflict).
    LateDeny,
    /// A Deny that arrived with hop limit 0 and cannot be forwarded.
    DenyHopLimit,
    /// A Deny whose reverse path leads out an interface that was removed.
    DenyInterfaceGone,
    /// A new Attempt met a message table full of records younger than the claim window, none of
    /// which may be evicted (docs/uiap-design.md D44).
    TableFull,
    /// An Attempt to forward beyond [`Config::forward_rate`](crate::config::Config::forward_rate)
    /// (docs/uiap-design.md D48).
    ForwardLimited,
}

impl DropReason {
    /// The protocol reasons, i.e. every reason but [`DropReason::Wire`], in declaration order.
    ///
    /// ```
    /// use uiap::device::DropReason;
    ///
    /// assert_eq!(DropReason::PROTOCOL.len(), 11);
    /// assert!(!DropReason::PROTOCOL.iter().any(|r| matches!(r, DropReason::Wire(_))));
    /// ```
    pub const PROTOCOL: [DropReason; 11] = [
        DropReason::UnknownInterface,
        DropReason::Duplicate,
        DropReason::OwnLoop,
        DropReason::UnknownDeny,
        DropReason::DenyMismatch,
        DropReason::SecondDeny,
        DropReason::LateDeny,
        DropReason::DenyHopLimit,
        DropReason::DenyInterfaceGone,
        DropReason::TableFull,
        DropReason::ForwardLimited,
    ];

    /// A stable snake_case name, for statistics and logs. Names never change once released.
    ///
    /// ```
    /// use uiap::device::DropReason;
    ///
    /// assert_eq!(DropReason::DenyInterfaceGone.as_str(), "deny_interface_gone");
    /// ```
    pub fn as_str(&self) -> &'static str {
        match self {
            DropReason::Wire(kind) => kind.as_str(),
            DropReason::UnknownInterface => "unknown_interface",
            DropReason::Duplicate => "duplicate",
            DropReason::OwnLoop => "own_loop",
            DropReason::UnknownDeny => "unknown_deny",
            DropReason::DenyMismatch => "deny_mismatch",
            DropReason::SecondDeny => "second_deny",
            DropReason::LateDeny => "late_deny",
            DropReason::DenyHopLimit => "deny_hop_limit",
            DropReason::DenyInterfaceGone => "deny_interface_gone",
            DropReason::TableFull => "message_table_full",
            DropReason::ForwardLimited => "forward_rate_limited",
        }
    }
}

impl From<WireErrorKind> for DropReason {
    fn from(kind: WireErrorKind) -> DropReason {
        DropReason::Wire(kind)
    }
}

impl core::fmt::Display for DropReason {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a [`Device`](super::Device) has done since it was created.
///
/// Datagram counts are per datagram: an Attempt multicast on three interfaces counts three.
/// Every received datagram that leads to no action is counted in exactly one [`DropReason`]
/// (see [`Counters::dropped`]).
///
/// # Example
/// ```
/// use uiap::config::Config;
/// use uiap::device::{Device, DropReason, InterfaceId, Peer};
/// use uiap::time::Instant;
/// use uiap::wire::{DeviceId, WireErrorKind};
/// # use rand_chacha::ChaCha8Rng; use rand_core::SeedableRng;
///
/// let mut dev = Device::new(Config::default(), DeviceId::new(1).unwrap(), ChaCha8Rng::seed_from_u64(1));
/// dev.add_interface(InterfaceId(0));
/// let from = Peer { interface: InterfaceId(0), addr: "fe80::2".parse().unwrap() };
/// dev.handle_datagram(Instant::ZERO, from, &[1, 0, 0]); // too short
/// let c = dev.counters();
/// assert_eq!(c.datagrams_received, 1);
/// assert_eq!(c.total_drops(), 1);
/// assert_eq!(c.dropped(DropReason::Wire(WireErrorKind::Truncated)), 1);
/// assert_eq!(c.drops().collect::<Vec<_>>(), [(DropReason::Wire(WireErrorKind::Truncated), 1)]);
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
    /// Claim-Deny datagrams sent for Attempts this device could not forward (its forwarding
    /// budget spent or its message table full): their claims fail rather than succeed on the
    /// silence of the drop (docs/uiap-design.md D69). Not counted in `denies_sent`.
    pub denies_for_drops: u64,
    /// Loss-Notice floods this device started (docs/uiap-design.md D80).
    pub notices_originated: u64,
    /// Loss-Notices received (including duplicates).
    pub notices_received: u64,
    /// Loss-Notice datagrams forwarded for other devices.
    pub notices_forwarded: u64,
    /// Loss-Notices not forwarded: the notice budget spent, or the message table full.
    pub notices_not_forwarded: u64,
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
    /// X+R claims taken into the proxy table (new entries, not refreshes).
    pub proxies_recorded: u64,
    /// X+R claims not proxied because their space is wider than
    /// [`Config::proxy_min_prefix_bits`](crate::config::Config::proxy_min_prefix_bits) allows.
    pub proxy_refused_wide: u64,
    /// X+R claims not proxied because the proxied spaces of their domain, or of their origin in
    /// that domain, would cover more than a bounded share of the domain (docs/uiap-design.md
    /// D66).
    pub proxy_refused_share: u64,
    /// Proxied claims forgotten on request ([`Device::flush_proxies`](super::Device::flush_proxies)).
    pub proxies_flushed: u64,
    /// The largest number of remembered Attempts at once.
    pub peak_message_table: usize,
    /// The largest number of proxied claims at once.
    pub peak_proxy_table: usize,
    drops: BTreeMap<DropReason, u64>,
}

impl Counters {
    pub(crate) fn drop(&mut self, reason: impl Into<DropReason>) {
        *self.drops.entry(reason.into()).or_insert(0) += 1;
    }

    /// How many datagrams were dropped for `reason` (0 for a reason never seen).
    ///
    /// ```
    /// # use uiap::device::{Counters, DropReason};
    /// assert_eq!(Counters::default().dropped(DropReason::Duplicate), 0);
    /// ```
    pub fn dropped(&self, reason: DropReason) -> u64 {
        self.drops.get(&reason).copied().unwrap_or(0)
    }

    /// Every drop reason seen, with its count, in the order of their names
    /// ([`DropReason::as_str`]).
    ///
    /// ```
    /// # use uiap::device::Counters;
    /// assert_eq!(Counters::default().drops().next(), None);
    /// ```
    pub fn drops(&self) -> impl Iterator<Item = (DropReason, u64)> + '_ {
        let mut seen: Vec<(DropReason, u64)> = self.drops.iter().map(|(k, v)| (*k, *v)).collect();
        seen.sort_unstable_by_key(|(k, _)| k.as_str());
        seen.into_iter()
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
        self.denies_for_drops += other.denies_for_drops;
        self.notices_originated += other.notices_originated;
        self.notices_received += other.notices_received;
        self.notices_forwarded += other.notices_forwarded;
        self.notices_not_forwarded += other.notices_not_forwarded;
        self.proxy_denies += other.proxy_denies;
        self.hop_limit_exhausted += other.hop_limit_exhausted;
        self.late_conflicts += other.late_conflicts;
        self.device_id_collisions += other.device_id_collisions;
        self.table_evictions += other.table_evictions;
        self.proxy_table_full += other.proxy_table_full;
        self.proxies_recorded += other.proxies_recorded;
        self.proxy_refused_wide += other.proxy_refused_wide;
        self.proxy_refused_share += other.proxy_refused_share;
        self.proxies_flushed += other.proxies_flushed;
        self.peak_message_table = self.peak_message_table.max(other.peak_message_table);
        self.peak_proxy_table = self.peak_proxy_table.max(other.peak_proxy_table);
        for (k, v) in &other.drops {
            *self.drops.entry(*k).or_insert(0) += v;
        }
    }
}
