//! This host's own wall-clock steps, seen against its boot clock (docs/uiap-design.md D76).
//!
//! The PSK trailer seals the wall clock (D41). When it steps — a first NTP synchronisation on a
//! device without a real-time clock, a resumed virtual machine, an operator's `date -s` — this
//! daemon's authenticated datagrams may be stale at every neighbour whose clock did not step,
//! and theirs here: the site split of D71, which each side would otherwise notice only at the
//! other's next claim or renewal. The boot clock (`CLOCK_BOOTTIME`) counts time suspended and
//! is never set, so the wall clock's advance against it is a step and nothing else; slewing
//! moves it by at most half a millisecond a second.

use std::time::Duration;

/// The smallest move of the wall clock against the boot clock between two readings that counts
/// as a step: the tolerance within which stale datagrams agree on an offset (D71), above what
/// NTP slews (500 ppm) between readings, and the default threshold at which chrony steps
/// instead of slewing.
pub(crate) const STEP_MS: i64 = 1_000;

/// A step of this host's wall clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Step {
    /// How far the wall clock moved against the boot clock, in milliseconds (ahead if positive).
    pub(crate) step_ms: i64,
    /// When it was seen, on the daemon's clock.
    pub(crate) at: Duration,
}

impl std::fmt::Display for Step {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (direction, step) = if self.step_ms >= 0 {
            ("ahead", self.step_ms)
        } else {
            ("back", -self.step_ms)
        };
        write!(
            f,
            "this host's wall clock stepped {}.{:03} s {direction} against its boot clock",
            step / 1000,
            step % 1000,
        )
    }
}

impl Step {
    /// What the step means on a site with a key, for the watchers of held claims.
    pub(crate) fn as_split(&self) -> String {
        format!(
            "{self}: its authenticated datagrams are stale at every neighbour whose clock it left \
             more than the {} s window apart, and theirs here; the site may be split, their \
             Claim-Denies and ours not counting at each other",
            super::psk::WINDOW_MS / 1000,
        )
    }
}

/// The wall clock's offset from the boot clock at the last reading.
#[derive(Debug, Default)]
pub(crate) struct StepWatch {
    /// Wall-clock milliseconds minus boot-clock milliseconds.
    base: Option<i64>,
}

impl StepWatch {
    /// The wall clock read `wall_ms` and the boot clock `boot`, together, at `now` on the
    /// daemon's clock: the step since the last reading, if it moved by [`STEP_MS`] or more.
    pub(crate) fn check(&mut self, wall_ms: u64, boot: Duration, now: Duration) -> Option<Step> {
        let boot_ms = i64::try_from(boot.as_millis()).unwrap_or(i64::MAX);
        let offset = i64::try_from(wall_ms)
            .unwrap_or(i64::MAX)
            .saturating_sub(boot_ms);
        let moved = self.base.map(|base| offset.saturating_sub(base));
        self.base = Some(offset);
        let step_ms = moved.filter(|m| m.abs() >= STEP_MS)?;
        Some(Step { step_ms, at: now })
    }
}

/// The boot clock: time since boot, counting time suspended (`CLOCK_BOOTTIME`), or the
/// monotonic clock where there is none.
pub(crate) fn boot_clock() -> Duration {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    let clock = nix::time::ClockId::CLOCK_BOOTTIME;
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    let clock = nix::time::ClockId::CLOCK_MONOTONIC;
    nix::time::clock_gettime(clock).map_or(Duration::ZERO, Duration::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: Duration = Duration::from_secs(1);

    #[test]
    fn a_step_is_a_move_of_the_wall_clock_against_the_boot_clock() {
        let mut watch = StepWatch::default();
        let wall = 1_700_000_000_000u64;
        assert_eq!(
            watch.check(wall, 10 * S, S),
            None,
            "the first reading sets the base"
        );
        // Both clocks advance together, with a slewed millisecond: no step.
        assert_eq!(watch.check(wall + 5_001, 15 * S, 2 * S), None);
        // The daemon was stopped for a minute: both advanced, still no step.
        assert_eq!(watch.check(wall + 65_001, 75 * S, 3 * S), None);
        let step = watch
            .check(wall + 105_101, 75 * S + S / 10, 4 * S)
            .expect("a step");
        assert_eq!(
            step,
            Step {
                step_ms: 40_000,
                at: 4 * S
            }
        );
        assert_eq!(
            step.to_string(),
            "this host's wall clock stepped 40.000 s ahead against its boot clock"
        );
        assert!(
            step.as_split().contains("the site may be split"),
            "{}",
            step.as_split()
        );
        // It is measured from the new base; a step back is one too.
        assert_eq!(watch.check(wall + 105_200, 75 * S + S / 5, 5 * S), None);
        let back = watch
            .check(wall + 104_000, 75 * S + S / 5, 6 * S)
            .expect("a step back");
        assert_eq!(back.step_ms, -1_200);
        assert!(back.to_string().contains("1.200 s back"), "{back}");
    }

    #[test]
    fn the_boot_clock_advances() {
        let a = boot_clock();
        std::thread::sleep(Duration::from_millis(5));
        assert!(boot_clock() >= a + Duration::from_millis(5));
    }
}
