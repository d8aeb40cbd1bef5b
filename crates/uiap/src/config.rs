//! Every timer and bound of the [`Device`](crate::device::Device) state machine, in one place.
//!
//! The defaults follow the draft's suggested constants (§10) and docs/uiap-design.md D10–D18:
//! three Claim-Attempts 500 ms apart, success 2.5 s after the first (§2.4.1: three times {send,
//! wait 500 ms}, then wait 1 s), a random 0–250 ms start delay, two attempts for a reclaim, a
//! 30 s / 4096-entry message table, hop limit 32, proxy defense for at most one hour, and
//! RFC 5227-style back-off after ten conflicts in a minute.

use core::time::Duration;

/// The configuration of one [`Device`](crate::device::Device).
///
/// Build it with [`Config::default()`] and change the fields you need; every field is public.
/// Values that make no sense (zero attempts, a zero-sized table) are clamped to the nearest
/// working value by the device rather than rejected, so a `Config` can never make it panic.
///
/// # Example
/// ```
/// use core::time::Duration;
/// use uiap::config::Config;
///
/// let mut config = Config::default();
/// assert_eq!(config.claim_period, Duration::from_millis(500));
/// assert_eq!(config.claim_window(false), Duration::from_millis(2_500));
/// config.start_jitter = Duration::ZERO; // deterministic start, e.g. for tests
/// assert_eq!(config.claim_window(true), Duration::from_millis(2_000));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// `UIAP_CLAIM_PERIOD`: time between the Claim-Attempts of one claim (500 ms).
    pub claim_period: Duration,
    /// `UIAP_CLAIM_TIMEOUT`: the extra wait, after the period that follows the last
    /// Claim-Attempt, until the claim succeeds (1 s; §2.4.1: repeat {send; wait PERIOD}, then
    /// wait TIMEOUT: 3 × 500 ms + 1 s = 2.5 s).
    pub claim_timeout: Duration,
    /// Claim-Attempts sent for a new claim (3).
    pub new_attempts: u8,
    /// Claim-Attempts sent for a reclaim, a renewal or the proxy announcement (2).
    pub reclaim_attempts: u8,
    /// Upper bound of the uniformly random delay before the first attempt of a claim (250 ms).
    pub start_jitter: Duration,
    /// How long a received Claim-Attempt is remembered, refreshed by duplicates (30 s).
    pub message_ttl: Duration,
    /// Maximum number of remembered Claim-Attempts of other devices (4096). When full, the
    /// oldest record is evicted. Records of our own floods are kept apart and never evicted
    /// while their claim is in flight.
    pub message_table_capacity: usize,
    /// Hop limit of originated Claim-Attempts and Claim-Denies; also the clamp for received
    /// values (32).
    pub hop_limit: u8,
    /// Floods of other devices forwarded per second at most, with as many at once (500; 0: no
    /// limit). Kept below what a neighbour accepts from one device, so that an honest forwarder
    /// relaying a flood never makes its neighbours drop its own traffic (docs/uiap-design.md
    /// D48).
    pub forward_rate: u32,
    /// The shortest time between two Loss-Notices this device originates (100 ms): losses
    /// meanwhile wait, and go out together (docs/uiap-design.md D80). Far below the 1 s between
    /// a claim's last Attempt and its success, so a notice still reaches the claim in its round.
    pub loss_notice_interval: Duration,
    /// Loss-Notices of other devices forwarded per second at most, shared fairly among previous
    /// hops (50; 0: no limit). One beyond it is counted, not forwarded: the ones forwarded
    /// meanwhile fail the same claims (docs/uiap-design.md D80).
    pub notice_forward_rate: u32,
    /// Whether this device defends X+R claims of other devices (§5.1) (true).
    pub proxy_defense: bool,
    /// Maximum number of claims defended by proxy (256). When full, new ones are not taken.
    pub proxy_capacity: usize,
    /// Upper bound of a proxy defense, whatever lifetime the claim carried (1 h).
    pub proxy_max_lifetime: Duration,
    /// The fewest leading bits every UID of a proxied space must share (8): a prefix shorter than
    /// this, or a range whose ends differ within these bits, is not defended by proxy, so that one
    /// forged Attempt cannot make a whole domain unclaimable (docs/uiap-design.md D43).
    pub proxy_min_prefix_bits: u16,
    /// Conflicts (denied or symmetric claims) within [`conflict_window`](Self::conflict_window)
    /// after which new claims are rate limited (10).
    pub conflict_limit: usize,
    /// The window over which conflicts are counted (60 s).
    pub conflict_window: Duration,
    /// While rate limited, claims start at least this far apart (60 s).
    pub conflict_rate_limit: Duration,
    /// Renew held claims automatically by a reclaim before their lifetime ends (false).
    pub auto_renew: bool,
    /// With [`auto_renew`](Self::auto_renew): start the renewal when this percentage of the
    /// lifetime has passed (75).
    pub renew_at_percent: u8,
    /// With [`auto_renew`](Self::auto_renew): lifetimes shorter than this are not renewed (10 s).
    pub renew_min_lifetime: Duration,
    /// On a device-ID collision (§9), pick a new random device ID as well as moving the sequence
    /// number (true; set false when the ID is a configured EUI-64).
    pub random_device_id: bool,
    /// Maximum number of own claims (probing or held) at once (1024).
    pub max_claims: usize,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            claim_period: Duration::from_millis(500),
            claim_timeout: Duration::from_secs(1),
            new_attempts: 3,
            reclaim_attempts: 2,
            start_jitter: Duration::from_millis(250),
            message_ttl: Duration::from_secs(30),
            message_table_capacity: 4096,
            hop_limit: 32,
            forward_rate: 500,
            loss_notice_interval: Duration::from_millis(100),
            notice_forward_rate: 50,
            proxy_defense: true,
            proxy_capacity: 256,
            proxy_max_lifetime: Duration::from_secs(3600),
            proxy_min_prefix_bits: 8,
            conflict_limit: 10,
            conflict_window: Duration::from_secs(60),
            conflict_rate_limit: Duration::from_secs(60),
            auto_renew: false,
            renew_at_percent: 75,
            renew_min_lifetime: Duration::from_secs(10),
            random_device_id: true,
            max_claims: 1024,
        }
    }
}

impl Config {
    /// Attempts per round, at least one.
    pub(crate) fn attempts(&self, reclaim: bool) -> u8 {
        let n = if reclaim {
            self.reclaim_attempts
        } else {
            self.new_attempts
        };
        n.max(1)
    }

    /// The time from the first Claim-Attempt of a claim to its success, without the start jitter:
    /// `attempts × claim_period + claim_timeout` (§2.4.1).
    ///
    /// ```
    /// # use uiap::config::Config;
    /// # use core::time::Duration;
    /// assert_eq!(Config::default().claim_window(false), Duration::from_millis(2_500));
    /// ```
    pub fn claim_window(&self, reclaim: bool) -> Duration {
        let n = u32::from(self.attempts(reclaim));
        self.claim_period
            .saturating_mul(n)
            .saturating_add(self.claim_timeout)
    }
}
