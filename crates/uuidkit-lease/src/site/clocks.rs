//! Where a site lease's tenure may start: above every millisecond a previous holder of its node
//! used, whatever the two hosts' clocks say (docs/uiap-design.md D72;
//! docs/distributed-generation.md, "Consecutive tenures across clocks").

use std::time::Duration;

use uiap_control::ClockAhead;

use super::config::LeaseConfig;
use crate::{LeaseError, LeaseErrorKind};

/// The key's freshness window (docs/uiap-design.md D41), with the daemon's allowance for
/// transit and rounding: a neighbour whose datagrams are accepted is at most this far ahead.
/// One further ahead is a split site (D71): its datagrams are refused and its presence fails
/// new claims.
const KEY_WINDOW_MS: u64 = 30_000 + 51;

/// How far past the claim's answer this host's clock must be before the tenure's first UUID,
/// and why; `None` when nothing is to be waited for. `clock` is what a keyed daemon measured;
/// `site_of_one`: the daemon had no participating interface, so no other device could hold
/// the node.
///
/// # Errors
///
/// [`LeaseErrorKind::Config`]: a daemon without a key and no `max_clock_offset`.
pub(super) fn lead(
    config: &LeaseConfig,
    clock: Option<&ClockAhead>,
    site_of_one: bool,
) -> Result<Option<(u64, String)>, LeaseError> {
    if config.testing.no_high_water {
        return Ok(None);
    }
    let vouched = config.max_clock_offset.map(millis);
    let (ms, why) = match clock {
        Some(clock) => {
            // A holder sends a Claim-Attempt at least once per renewal interval (under its
            // lifetime) while its daemon runs, and stops within the liveness window of a
            // daemon that stopped: its last datagram came at most this long before its end.
            let silent = u64::from(config.lifetime) * 1_000 + millis(config.liveness) + 1_000;
            let bound = vouched.unwrap_or(KEY_WINDOW_MS);
            let unheard = bound.saturating_sub(clock.listened_ms.saturating_sub(silent));
            if unheard > clock.ahead_ms {
                let said = vouched.map_or("the key's window", |_| "max_clock_offset");
                (
                    unheard,
                    format!(
                        "uiapd has heard its neighbours for {} s only, and a device it cannot \
                         have heard may be up to {} ms ahead ({said})",
                        clock.listened_ms / 1_000,
                        bound
                    ),
                )
            } else {
                (clock.ahead_ms, clock.to_string())
            }
        }
        None if site_of_one => return Ok(None),
        None => match vouched {
            Some(ms) => (
                ms,
                format!("uiapd has no key: the max_clock_offset vouched for is {ms} ms"),
            ),
            None => {
                return Err(LeaseError::new(
                    LeaseErrorKind::Config,
                    "uiapd has no key (--psk-file), so nothing tells how far other devices' \
                     clocks are ahead of this host's, and the node's next holder could reuse \
                     milliseconds of the last one's: give the site's daemons a key, or set the \
                     largest offset you vouch for (max_clock_offset; uuidkit \
                     --max-clock-offset MS), which every new tenure then waits out"
                        .to_string(),
                ));
            }
        },
    };
    Ok((ms > 0).then_some((ms, why)))
}

/// The error of a tenure that would wait longer than `limit` for this host's clock.
pub(super) fn too_far(node: u64, wait: Duration, limit: Duration, why: &str) -> LeaseError {
    LeaseError::new(
        LeaseErrorKind::Denied,
        format!(
            "node {node:#x} claimed, but its first UUID would have to wait {} ms, more than the \
             {} ms the lease waits: {why} (is this host's clock behind?); the claim was released",
            wait.as_millis(),
            limit.as_millis()
        ),
    )
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn heard(ahead_ms: u64, listened_ms: u64) -> ClockAhead {
        ClockAhead {
            ahead_ms,
            listened_ms,
            neighbour: (ahead_ms > 0).then(|| "fe80::2%2".to_string()),
        }
    }

    #[test]
    fn a_keyed_daemon_that_heard_long_enough_gives_the_measured_offset() {
        let config = LeaseConfig::new("/c".into(), 16);
        // Listened 120 s: every holder that matters was heard (lifetime 20 s + 2 s + 1 s, and
        // the key's window).
        let (ms, why) = lead(&config, Some(&heard(20_051, 120_000)), false)
            .unwrap()
            .unwrap();
        assert_eq!(ms, 20_051);
        assert!(why.contains("20.051 s ahead"), "{why}");
        assert_eq!(
            lead(&config, Some(&heard(0, 120_000)), false).unwrap(),
            None
        );
    }

    #[test]
    fn a_daemon_that_has_not_listened_long_enough_bounds_the_devices_it_missed() {
        let mut config = LeaseConfig::new("/c".into(), 16);
        // 5 s of listening: a holder silent since before may be up to the key's window ahead.
        let (ms, why) = lead(&config, Some(&heard(1_051, 5_000)), false)
            .unwrap()
            .unwrap();
        assert_eq!(ms, KEY_WINDOW_MS);
        assert!(why.contains("the key's window"), "{why}");
        // 40 s: a holder it missed ended by 23 s after it began to listen, 17 s ago.
        let (ms, _) = lead(&config, Some(&heard(1_051, 40_000)), false)
            .unwrap()
            .unwrap();
        assert_eq!(ms, KEY_WINDOW_MS - 17_000);
        // A vouched bound replaces the key's window for what the daemon missed.
        config.max_clock_offset = Some(Duration::from_millis(500));
        let (ms, _) = lead(&config, Some(&heard(1_051, 5_000)), false)
            .unwrap()
            .unwrap();
        assert_eq!(ms, 1_051);
    }

    #[test]
    fn without_a_key_the_lease_refuses_unless_a_bound_is_vouched_for() {
        let mut config = LeaseConfig::new("/c".into(), 16);
        let e = lead(&config, None, false).unwrap_err();
        assert_eq!(e.kind(), LeaseErrorKind::Config);
        assert!(e.to_string().contains("--max-clock-offset"), "{e}");
        // A site of one: nobody else could hold the node.
        assert_eq!(lead(&config, None, true).unwrap(), None);
        config.max_clock_offset = Some(Duration::from_secs(2));
        assert_eq!(lead(&config, None, false).unwrap().unwrap().0, 2_000);
        config.max_clock_offset = Some(Duration::ZERO);
        assert_eq!(lead(&config, None, false).unwrap(), None);
        // The test-only switch starts at once.
        config.max_clock_offset = None;
        config.testing.no_high_water = true;
        assert_eq!(lead(&config, None, false).unwrap(), None);
    }

    #[test]
    fn a_wait_too_long_names_the_node_and_the_reason() {
        let e = too_far(
            0x2a,
            Duration::from_secs(45),
            Duration::from_secs(40),
            "the clock of fe80::2%2 is up to 45 s ahead",
        );
        assert_eq!(e.kind(), LeaseErrorKind::Denied);
        assert!(
            e.to_string()
                .starts_with("node 0x2a claimed, but its first UUID would have to wait 45000 ms"),
            "{e}"
        );
    }
}
