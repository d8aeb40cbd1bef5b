//! Losses other devices reported in Loss-Notices (docs/uiap-design.md D80): when each notice
//! arrived, from whom, how many datagrams and over what window, for as long as a claim round
//! may still ask; and a log line at most once a minute.

use std::collections::VecDeque;
use std::time::Duration;

use tracing::warn;
use uiap::wire::DeviceId;

/// Notices are kept this long: far beyond a claim round, which is what asks of them.
const KEEP: Duration = Duration::from_secs(60);
/// Notices kept at most: each device sends at most ten a second, and a flood of forged ones
/// must not grow the daemon. The oldest go first; a claim round asks of the newest.
const MAX_KEPT: usize = 4096;
/// A log line at most this often.
const LOG_EVERY: Duration = Duration::from_secs(60);

/// One notice as it arrived.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Notice {
    /// When it arrived, on the daemon's clock.
    pub(crate) at: Duration,
    /// The device that may have lost datagrams.
    pub(crate) origin: DeviceId,
    /// How many it may have lost.
    pub(crate) lost: u64,
    /// The span of the losses, ending when the notice was sent.
    pub(crate) window: Duration,
}

/// What the notices in a span add up to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Reported {
    /// Datagrams reported lost.
    pub(crate) datagrams: u64,
    /// By how many devices.
    pub(crate) devices: usize,
    /// The seconds from the start of the span to now, whole.
    pub(crate) seconds: u64,
}

/// The notices heard lately.
#[derive(Debug, Default)]
pub(crate) struct ReportedLosses {
    notices: VecDeque<Notice>,
    logged: Option<Duration>,
    /// Datagrams reported since the last log line.
    unlogged: u64,
}

impl ReportedLosses {
    /// A notice arrived: kept, and logged at most once a minute.
    pub(crate) fn record(&mut self, notice: Notice) {
        while self
            .notices
            .front()
            .is_some_and(|n| notice.at.saturating_sub(n.at) > KEEP)
            || self.notices.len() >= MAX_KEPT
        {
            self.notices.pop_front();
        }
        self.notices.push_back(notice);
        self.unlogged = self.unlogged.saturating_add(notice.lost);
        if self
            .logged
            .is_none_or(|t| notice.at.saturating_sub(t) >= LOG_EVERY)
        {
            self.logged = Some(notice.at);
            warn!(
                device = %notice.origin,
                lost = self.unlogged,
                window_ms = notice.window.as_millis() as u64,
                "another device reported datagrams lost (Loss-Notice): claims in their rounds \
                 fail while such reports come, since a Claim-Attempt or Claim-Deny among the \
                 losses would leave a conflict unanswered (logged at most once a minute)"
            );
            self.unlogged = 0;
        }
    }

    /// The notices that arrived from `from` to `now`, if any.
    pub(crate) fn since(&self, from: Duration, now: Duration) -> Option<Reported> {
        let mut datagrams = 0u64;
        let mut devices: Vec<DeviceId> = Vec::new();
        for n in self.notices.iter().rev() {
            if n.at < from {
                break;
            }
            if n.at > now {
                continue;
            }
            datagrams = datagrams.saturating_add(n.lost.max(1));
            if !devices.contains(&n.origin) {
                devices.push(n.origin);
            }
        }
        (!devices.is_empty()).then(|| Reported {
            datagrams,
            devices: devices.len(),
            seconds: now.saturating_sub(from).as_secs(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn notice(at_ms: u64, origin: u64, lost: u64) -> Notice {
        Notice {
            at: Duration::from_millis(at_ms),
            origin: DeviceId::new(origin).unwrap(),
            lost,
            window: Duration::from_millis(100),
        }
    }

    #[test]
    fn notices_are_summed_from_a_point_by_device() {
        let mut log = ReportedLosses::default();
        assert_eq!(log.since(Duration::ZERO, Duration::from_secs(9)), None);
        log.record(notice(1_000, 7, 10));
        log.record(notice(2_000, 7, 5));
        log.record(notice(2_500, 8, 0));
        let ms = Duration::from_millis;
        assert_eq!(
            log.since(ms(1_500), ms(3_000)),
            Some(Reported {
                datagrams: 6, // a notice of 0 still counts one
                devices: 2,
                seconds: 1,
            })
        );
        assert_eq!(log.since(ms(2_600), ms(3_000)), None);
    }

    #[test]
    fn old_and_surplus_notices_are_forgotten() {
        let mut log = ReportedLosses::default();
        log.record(notice(0, 1, 1));
        log.record(notice(61_000, 2, 1));
        assert_eq!(log.notices.len(), 1, "older than a minute");
        for i in 0..MAX_KEPT as u64 + 10 {
            log.record(notice(61_000 + i, 3, 1));
        }
        assert_eq!(log.notices.len(), MAX_KEPT);
    }
}
