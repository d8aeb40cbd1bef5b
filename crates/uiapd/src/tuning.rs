//! The protocol's settings (timers, table sizes, proxy defense, renewal) as `uiapd` flags and
//! the `[protocol]` table of the configuration file, each checked against a stated range
//! (docs/uiap-design.md D35).
//!
//! ```toml
//! [protocol]
//! claim-period-ms = 500
//! renew-at-percent = 75
//! proxy-defense = false
//! ```

use std::time::Duration;

use serde::Deserialize;

use crate::{DaemonError, DaemonErrorKind};

/// Every protocol setting; `None` leaves the default (or the file's value, for flags).
///
/// ```
/// use uiapd::tuning::Tuning;
///
/// let t = Tuning { renew_at_percent: Some(50), ..Tuning::default() };
/// let mut config = uiap::config::Config::default();
/// t.apply(&mut config)?;
/// assert_eq!(config.renew_at_percent, 50);
/// let bad = Tuning { hop_limit: Some(0), ..Tuning::default() };
/// assert_eq!(bad.apply(&mut config).unwrap_err().message(),
///            "hop-limit: expected 1 to 255, found 0");
/// Ok::<(), uiapd::DaemonError>(())
/// ```
#[derive(clap::Args, Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Tuning {
    /// Milliseconds between the Claim-Attempts of a claim (10 to 60000; default 500).
    #[arg(long, value_name = "MS")]
    pub claim_period_ms: Option<u64>,
    /// Extra milliseconds after the last period until a claim succeeds (0 to 60000; 1000).
    #[arg(long, value_name = "MS")]
    pub claim_timeout_ms: Option<u64>,
    /// Claim-Attempts of a new claim (1 to 10; 3).
    #[arg(long, value_name = "N")]
    pub new_attempts: Option<u8>,
    /// Claim-Attempts of a reclaim or renewal (1 to 10; 2).
    #[arg(long, value_name = "N")]
    pub reclaim_attempts: Option<u8>,
    /// Upper bound of the random delay before a claim's first attempt, ms (0 to 10000; 250).
    #[arg(long, value_name = "MS")]
    pub start_jitter_ms: Option<u64>,
    /// Seconds a received Claim-Attempt is remembered (1 to 3600; 30).
    #[arg(long, value_name = "S")]
    pub message_ttl_s: Option<u64>,
    /// Claim-Attempts of other devices remembered at once (16 to 1000000; 4096).
    #[arg(long, value_name = "N")]
    pub message_table_capacity: Option<usize>,
    /// Hop limit of the messages this device originates (1 to 255; 32).
    #[arg(long, value_name = "N")]
    pub hop_limit: Option<u8>,
    /// Defend other devices' X+R claims by proxy (true or false; true).
    #[arg(long, value_name = "BOOL")]
    pub proxy_defense: Option<bool>,
    /// Claims defended by proxy at once (0 to 100000; 256).
    #[arg(long, value_name = "N")]
    pub proxy_capacity: Option<usize>,
    /// Longest proxy defense in seconds, whatever the claim asked (1 to 86400; 3600).
    #[arg(long, value_name = "S")]
    pub proxy_max_lifetime_s: Option<u64>,
    /// Leading bits every UID of a proxied space must share (1 to 128; 8).
    #[arg(long, value_name = "BITS")]
    pub proxy_min_prefix_bits: Option<u16>,
    /// Other devices' floods forwarded per second at most (0 to 1000000, 0 = no limit; 500).
    #[arg(long, value_name = "N")]
    pub forward_rate: Option<u32>,
    /// Conflicts within the window after which new claims are rate limited (1 to 1000; 10).
    #[arg(long, value_name = "N")]
    pub conflict_limit: Option<usize>,
    /// The window conflicts are counted over, seconds (1 to 3600; 60).
    #[arg(long, value_name = "S")]
    pub conflict_window_s: Option<u64>,
    /// While rate limited, seconds between claim starts (0 to 3600; 60).
    #[arg(long, value_name = "S")]
    pub conflict_rate_limit_s: Option<u64>,
    /// Renew a claim when this percentage of its lifetime has passed (10 to 90; 75).
    #[arg(long, value_name = "PCT")]
    pub renew_at_percent: Option<u8>,
    /// The shortest lifetime a claim may ask to be renewed with, seconds (1 to 86400; 10).
    #[arg(long, value_name = "S")]
    pub renew_min_lifetime_s: Option<u64>,
    /// Claims of this device at once, probing or held (1 to 100000; 1024).
    #[arg(long, value_name = "N")]
    pub max_claims: Option<usize>,
    /// The site leases' liveness window, ms (0 to 60000; 2000; 0: no site lease relies on this
    /// daemon's claims). A new claim's window must be at least this plus a quarter
    /// (docs/uiap-design.md D73).
    #[arg(long, value_name = "MS")]
    pub lease_liveness_ms: Option<u64>,
}

/// The site leases' liveness window unless configured: `uuidkit_lease::site::LeaseConfig`'s
/// default, which every lease on the site must keep or shorten (docs/uiap-design.md D73).
pub const DEFAULT_LEASE_LIVENESS: Duration = Duration::from_secs(2);

/// The shortest new-claim window that keeps the site leases safe: `liveness` plus a quarter.
///
/// ```
/// use std::time::Duration;
/// use uiapd::tuning::{least_claim_window, DEFAULT_LEASE_LIVENESS};
///
/// // The default claim window (3 × 500 ms + 1000 ms) is exactly the least one.
/// assert_eq!(least_claim_window(DEFAULT_LEASE_LIVENESS), Duration::from_millis(2_500));
/// ```
#[must_use]
pub fn least_claim_window(liveness: Duration) -> Duration {
    liveness + liveness / 4
}

/// Checks that `value` of `key` is within `lo..=hi`.
fn within<T: PartialOrd + std::fmt::Display + Copy>(
    key: &str,
    value: T,
    lo: T,
    hi: T,
) -> Result<T, DaemonError> {
    if value < lo || value > hi {
        return Err(DaemonError::new(
            DaemonErrorKind::Config,
            format!("{key}: expected {lo} to {hi}, found {value}"),
        ));
    }
    Ok(value)
}

fn ms(v: u64) -> Duration {
    Duration::from_millis(v)
}

fn secs(v: u64) -> Duration {
    Duration::from_secs(v)
}

impl Tuning {
    /// `over`'s values where it has them, ours elsewhere (flags over the file).
    ///
    /// ```
    /// use uiapd::tuning::Tuning;
    ///
    /// let file = Tuning { hop_limit: Some(8), max_claims: Some(5), ..Tuning::default() };
    /// let flags = Tuning { hop_limit: Some(16), ..Tuning::default() };
    /// let merged = file.overlaid(&flags);
    /// assert_eq!((merged.hop_limit, merged.max_claims), (Some(16), Some(5)));
    /// ```
    #[must_use]
    pub fn overlaid(&self, over: &Tuning) -> Tuning {
        macro_rules! pick {
            ($($f:ident),*) => { Tuning { $($f: over.$f.or(self.$f)),* } };
        }
        pick!(
            claim_period_ms,
            claim_timeout_ms,
            new_attempts,
            reclaim_attempts,
            start_jitter_ms,
            message_ttl_s,
            message_table_capacity,
            hop_limit,
            proxy_defense,
            proxy_capacity,
            proxy_max_lifetime_s,
            proxy_min_prefix_bits,
            forward_rate,
            conflict_limit,
            conflict_window_s,
            conflict_rate_limit_s,
            renew_at_percent,
            renew_min_lifetime_s,
            max_claims,
            lease_liveness_ms
        )
    }

    /// The site leases' liveness window: `lease-liveness-ms`, or [`DEFAULT_LEASE_LIVENESS`]
    /// (its range is checked by [`Tuning::apply`]).
    ///
    /// ```
    /// use std::time::Duration;
    /// use uiapd::tuning::Tuning;
    ///
    /// let t = Tuning { lease_liveness_ms: Some(320), ..Tuning::default() };
    /// assert_eq!(t.lease_liveness(), Duration::from_millis(320));
    /// assert_eq!(Tuning::default().lease_liveness(), Duration::from_secs(2));
    /// ```
    #[must_use]
    pub fn lease_liveness(&self) -> Duration {
        self.lease_liveness_ms.map_or(DEFAULT_LEASE_LIVENESS, ms)
    }

    /// Writes the values that are set into `config`, each checked against its range, then
    /// checks that a new claim's window outlasts the site leases' liveness window by a quarter
    /// of it, and that a renewal fits in the part of the shortest renewed lifetime left after it
    /// starts.
    ///
    /// # Errors
    ///
    /// [`DaemonErrorKind::Config`], naming the key, the allowed range and the value.
    ///
    /// ```
    /// use uiapd::tuning::Tuning;
    ///
    /// let t = Tuning { renew_min_lifetime_s: Some(2), ..Tuning::default() };
    /// let err = t.apply(&mut uiap::config::Config::default()).unwrap_err();
    /// assert!(err.message().starts_with("renew-min-lifetime-s: expected"), "{err}");
    /// // A 400 ms claim window would grant a frozen holder's node while its lease still writes.
    /// let short = Tuning { claim_period_ms: Some(100), claim_timeout_ms: Some(100), ..Tuning::default() };
    /// let err = short.apply(&mut uiap::config::Config::default()).unwrap_err();
    /// assert!(err.message().starts_with("claim window: 400 ms is shorter than"), "{err}");
    /// ```
    #[allow(clippy::too_many_lines)] // one line per setting: a table
    pub fn apply(&self, c: &mut uiap::config::Config) -> Result<(), DaemonError> {
        if let Some(v) = self.claim_period_ms {
            c.claim_period = ms(within("claim-period-ms", v, 10, 60_000)?);
        }
        if let Some(v) = self.claim_timeout_ms {
            c.claim_timeout = ms(within("claim-timeout-ms", v, 0, 60_000)?);
        }
        if let Some(v) = self.new_attempts {
            c.new_attempts = within("new-attempts", v, 1, 10)?;
        }
        if let Some(v) = self.reclaim_attempts {
            c.reclaim_attempts = within("reclaim-attempts", v, 1, 10)?;
        }
        if let Some(v) = self.start_jitter_ms {
            c.start_jitter = ms(within("start-jitter-ms", v, 0, 10_000)?);
        }
        if let Some(v) = self.message_ttl_s {
            c.message_ttl = secs(within("message-ttl-s", v, 1, 3600)?);
        }
        if let Some(v) = self.message_table_capacity {
            c.message_table_capacity = within("message-table-capacity", v, 16, 1_000_000)?;
        }
        if let Some(v) = self.hop_limit {
            c.hop_limit = within("hop-limit", v, 1, 255)?;
        }
        if let Some(v) = self.proxy_defense {
            c.proxy_defense = v;
        }
        if let Some(v) = self.proxy_min_prefix_bits {
            c.proxy_min_prefix_bits = within("proxy-min-prefix-bits", v, 1, 128)?;
        }
        if let Some(v) = self.forward_rate {
            c.forward_rate = within("forward-rate", v, 0, 1_000_000)?;
        }
        if let Some(v) = self.proxy_capacity {
            c.proxy_capacity = within("proxy-capacity", v, 0, 100_000)?;
        }
        if let Some(v) = self.proxy_max_lifetime_s {
            c.proxy_max_lifetime = secs(within("proxy-max-lifetime-s", v, 1, 86_400)?);
        }
        if let Some(v) = self.conflict_limit {
            c.conflict_limit = within("conflict-limit", v, 1, 1000)?;
        }
        if let Some(v) = self.conflict_window_s {
            c.conflict_window = secs(within("conflict-window-s", v, 1, 3600)?);
        }
        if let Some(v) = self.conflict_rate_limit_s {
            c.conflict_rate_limit = secs(within("conflict-rate-limit-s", v, 0, 3600)?);
        }
        if let Some(v) = self.renew_at_percent {
            c.renew_at_percent = within("renew-at-percent", v, 10, 90)?;
        }
        if let Some(v) = self.renew_min_lifetime_s {
            c.renew_min_lifetime = secs(within("renew-min-lifetime-s", v, 1, 86_400)?);
        }
        if let Some(v) = self.max_claims {
            c.max_claims = within("max-claims", v, 1, 100_000)?;
        }
        let liveness = self
            .lease_liveness_ms
            .map_or(Ok(DEFAULT_LEASE_LIVENESS), |v| {
                within("lease-liveness-ms", v, 0, 60_000).map(ms)
            })?;
        check_lease_liveness(c, liveness)?;
        // The renewal of the shortest renewed lifetime starts at renew-at-percent and must end
        // (one reclaim window) before the lifetime does.
        let window = c.claim_window(true);
        let left = c.renew_min_lifetime * u32::from(100 - c.renew_at_percent) / 100;
        if left <= window {
            let pct = 100 - u32::from(c.renew_at_percent);
            let need = (window.as_millis() * 100).div_ceil(u128::from(pct)) / 1000 + 1;
            return Err(DaemonError::new(
                DaemonErrorKind::Config,
                format!(
                    "renew-min-lifetime-s: expected at least {need} s, so that a renewal ({} ms) ends before the lifetime does, found {}",
                    window.as_millis(),
                    c.renew_min_lifetime.as_secs()
                ),
            ));
        }
        Ok(())
    }
}

/// Refuses a new-claim window shorter than `liveness` plus a quarter: a site lease whose daemon
/// froze writes for up to its liveness window, and a daemon with a shorter window could grant
/// that node to another device meanwhile. `liveness` 0 checks nothing.
fn check_lease_liveness(c: &uiap::config::Config, liveness: Duration) -> Result<(), DaemonError> {
    let window = c.claim_window(false);
    let least = least_claim_window(liveness);
    if liveness.is_zero() || window >= least {
        return Ok(());
    }
    Err(DaemonError::new(
        DaemonErrorKind::Config,
        format!(
            "claim window: {} ms is shorter than {} ms, the site leases' liveness window \
             (lease-liveness-ms {}) plus a quarter: another device's lease could still write with \
             a node this daemon grants; lengthen claim-period-ms × new-attempts + claim-timeout-ms, \
             or lower lease-liveness-ms on every daemon of the site (at most {} ms here)",
            window.as_millis(),
            least.as_millis(),
            liveness.as_millis(),
            (window * 4 / 5).as_millis()
        ),
    ))
}
