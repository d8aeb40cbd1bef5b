//! What a user other than root may take of the daemon (docs/uiap-design.md D65): control
//! connections, claims, and how long and how wide each claim may be. Root is bound by none of
//! them and keeps connections in reserve. Set by `uiapd` flags or the `[users]` table of the
//! configuration file.
//!
//! ```toml
//! [users]
//! max-connections = 8
//! max-claims = 16
//! max-lifetime-s = 3600
//! min-prefix-bits = 16
//! ```

use serde::Deserialize;
use uiap::device::INFINITE_LIFETIME;
use uiap::space::UidSpace;

use crate::{DaemonError, DaemonErrorKind};

/// The limits on each user other than root.
///
/// ```
/// use uiapd::quota::UserLimits;
///
/// let limits = UserLimits::default();
/// assert_eq!((limits.max_connections, limits.max_claims), (16, 64));
/// assert_eq!((limits.max_lifetime_s, limits.min_prefix_bits), (86_400, 8));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UserLimits {
    /// Control connections one user may have open at once.
    pub max_connections: usize,
    /// Claims one user may have that have not ended (claiming, held or conflicted).
    pub max_claims: usize,
    /// The longest lifetime of a claim, in seconds (an infinite one is refused).
    pub max_lifetime_s: u32,
    /// The fewest leading bits every UID of a claimed prefix or range must share.
    pub min_prefix_bits: u16,
}

impl Default for UserLimits {
    fn default() -> UserLimits {
        UserLimits {
            max_connections: 16,
            max_claims: 64,
            max_lifetime_s: 86_400,
            min_prefix_bits: 8,
        }
    }
}

/// The limits as flags and the `[users]` table; `None` leaves the default (or the file's value,
/// for flags).
///
/// ```
/// use uiapd::quota::{UserArgs, UserLimits};
///
/// let mut limits = UserLimits::default();
/// UserArgs { max_claims: Some(4), ..UserArgs::default() }.apply(&mut limits)?;
/// assert_eq!(limits.max_claims, 4);
/// let bad = UserArgs { min_prefix_bits: Some(0), ..UserArgs::default() };
/// assert_eq!(bad.apply(&mut limits).unwrap_err().message(),
///            "users: min-prefix-bits: expected 1 to 256, found 0");
/// Ok::<(), uiapd::DaemonError>(())
/// ```
#[derive(clap::Args, Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct UserArgs {
    /// Control connections a user other than root may have open at once (1 to 100000; 16).
    #[arg(
        id = "user-max-connections",
        long = "user-max-connections",
        value_name = "N"
    )]
    pub max_connections: Option<usize>,
    /// Claims a user other than root may have that have not ended (0 to 1000000; 64).
    #[arg(id = "user-max-claims", long = "user-max-claims", value_name = "N")]
    pub max_claims: Option<usize>,
    /// The longest claim lifetime a user other than root may ask for, in seconds (1 to
    /// 4294967294; 86400).
    #[arg(
        id = "user-max-lifetime-s",
        long = "user-max-lifetime-s",
        value_name = "S"
    )]
    pub max_lifetime_s: Option<u32>,
    /// The fewest leading bits the UIDs of a prefix or range claimed by a user other than root
    /// must share (1 to 256; 8).
    #[arg(
        id = "user-min-prefix-bits",
        long = "user-min-prefix-bits",
        value_name = "BITS"
    )]
    pub min_prefix_bits: Option<u16>,
}

impl UserArgs {
    /// These flags over `file`'s values.
    pub(crate) fn overlaid(self, flags: &UserArgs) -> UserArgs {
        UserArgs {
            max_connections: flags.max_connections.or(self.max_connections),
            max_claims: flags.max_claims.or(self.max_claims),
            max_lifetime_s: flags.max_lifetime_s.or(self.max_lifetime_s),
            min_prefix_bits: flags.min_prefix_bits.or(self.min_prefix_bits),
        }
    }

    /// Sets the given limits in `limits`, each checked against its range.
    ///
    /// # Errors
    ///
    /// [`DaemonErrorKind::Config`] naming the first value out of its range.
    pub fn apply(&self, limits: &mut UserLimits) -> Result<(), DaemonError> {
        let lifetime_max = u64::from(INFINITE_LIFETIME - 1);
        for (key, value, lo, hi) in [
            (
                "max-connections",
                self.max_connections.map(|v| v as u64),
                1,
                100_000,
            ),
            (
                "max-claims",
                self.max_claims.map(|v| v as u64),
                0,
                1_000_000,
            ),
            (
                "max-lifetime-s",
                self.max_lifetime_s.map(u64::from),
                1,
                lifetime_max,
            ),
            (
                "min-prefix-bits",
                self.min_prefix_bits.map(u64::from),
                1,
                256,
            ),
        ] {
            if let Some(v) = value.filter(|v| !(lo..=hi).contains(v)) {
                return Err(DaemonError::new(
                    DaemonErrorKind::Config,
                    format!("users: {key}: expected {lo} to {hi}, found {v}"),
                ));
            }
        }
        let UserLimits {
            max_connections,
            max_claims,
            max_lifetime_s,
            min_prefix_bits,
        } = limits;
        *max_connections = self.max_connections.unwrap_or(*max_connections);
        *max_claims = self.max_claims.unwrap_or(*max_claims);
        *max_lifetime_s = self.max_lifetime_s.unwrap_or(*max_lifetime_s);
        *min_prefix_bits = self.min_prefix_bits.unwrap_or(*min_prefix_bits);
        Ok(())
    }
}

impl UserLimits {
    /// Why user `uid`, who has `held` claims that have not ended, may not claim `space` for
    /// `lifetime` seconds; `None` when it may (root always may).
    pub(crate) fn refuse_claim(
        &self,
        uid: u32,
        held: usize,
        lifetime: u32,
        space: &UidSpace,
    ) -> Option<String> {
        if uid == 0 {
            return None;
        }
        if held >= self.max_claims {
            return Some(format!(
                "uid {uid} has {held} claims, the most a user other than root may have \
                 (users max-claims {}); release one first",
                self.max_claims
            ));
        }
        if lifetime > self.max_lifetime_s {
            let found = if lifetime == INFINITE_LIFETIME {
                "infinite".to_string()
            } else {
                format!("{lifetime} s")
            };
            return Some(format!(
                "lifetime: expected at most {} s for a user other than root (users \
                 max-lifetime-s), found {found}; renew a shorter claim instead",
                self.max_lifetime_s
            ));
        }
        if !space.shares_leading_bits(self.min_prefix_bits) {
            return Some(format!(
                "space: expected a UID, or a prefix or range whose UIDs share at least {} leading \
                 bits, for a user other than root (users min-prefix-bits); found a wider one",
                self.min_prefix_bits
            ));
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use uiap::space::Uid;

    #[test]
    fn root_may_claim_anything_and_others_within_the_limits() {
        let limits = UserLimits {
            max_claims: 2,
            ..UserLimits::default()
        };
        let one = UidSpace::Unique(Uid::from_octets(&[1]).unwrap());
        let all = UidSpace::Prefix(Uid::new(&[], 0).unwrap());
        let byte = UidSpace::Prefix(Uid::from_octets(&[0xc0]).unwrap());
        assert_eq!(limits.refuse_claim(0, 99, INFINITE_LIFETIME, &all), None);
        assert_eq!(limits.refuse_claim(1000, 1, 86_400, &byte), None);
        let why = |held, lifetime, space| limits.refuse_claim(1000, held, lifetime, space).unwrap();
        assert!(why(2, 60, &one).contains("uid 1000 has 2 claims"));
        assert!(
            why(0, INFINITE_LIFETIME, &one)
                .ends_with("found infinite; renew a shorter claim instead")
        );
        assert!(why(0, 86_401, &one).contains("found 86401 s"));
        assert!(why(0, 60, &all).contains("at least 8 leading bits"));
    }
}
