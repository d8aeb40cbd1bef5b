//! The high-water millisecond a registry keeps per node, so that consecutive tenures of one node
//! never share a millisecond, whatever the holders' wall clocks say
//! (docs/distributed-generation.md, "Consecutive tenures across clocks").
//!
//! A holder writes, before it publishes a deadline, the wall-clock millisecond of that deadline
//! by its own clock (plus a slew allowance): no UUID of its tenure carries a later one. When it
//! gives the node back it writes the millisecond it stopped at instead. A new holder takes the
//! node only once its own clock is past the high-water by [`ABOVE_MS`], waiting for that up to a
//! bound, and preferring another node to a long wait.

use std::time::Duration;

/// How far past the high-water a new holder's clock must be before its first UUID: more than a
/// coarse clock's resolution (1–10 ms), since a generator reading `CLOCK_REALTIME_COARSE` may
/// lag the precise clock the holder compared by that much.
pub(crate) const ABOVE_MS: u64 = 12;

/// Test-only switches of a lease source's safeguards, and a wall-clock offset. Fault tests turn
/// a safeguard off to show that their checker finds the defect it prevents, and offset a
/// holder's wall clock to play a host whose clock is off. Nothing else may set them.
///
/// ```
/// assert_eq!(uuidkit_lease::Testing::default().wall_offset_ms, 0);
/// ```
#[doc(hidden)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Testing {
    /// etcd: a keep-alive's answer alone confirms a renewal, with no transaction after it to
    /// show that the member that renewed still led (and no high-water written by renewals).
    pub no_leader_check: bool,
    /// Neither record a high-water millisecond nor start above the previous holder's (the
    /// site lease: start at once, whatever the neighbours' clocks).
    pub no_high_water: bool,
    /// PostgreSQL: leave the session's `synchronous_commit` as the server has it.
    pub no_sync_commit: bool,
    /// The lease's wall clock (what its slot's pair clock gives generators) is this far off.
    pub wall_offset_ms: i64,
}

/// Nanoseconds to whole milliseconds, rounded up.
#[cfg_attr(
    not(any(feature = "etcd", feature = "postgres", feature = "zookeeper")),
    allow(dead_code)
)]
pub(crate) fn ceil_ms(nanos: u64) -> u64 {
    nanos.div_ceil(1_000_000)
}

/// The wall clock may slew by 500 ppm; twice that, plus a millisecond for the two clock readings
/// a sample of it takes, over `span`.
#[cfg_attr(
    not(any(feature = "etcd", feature = "postgres", feature = "zookeeper")),
    allow(dead_code)
)]
pub(crate) fn slew(span: Duration) -> u64 {
    u64::try_from(span.as_nanos() / 1_000).unwrap_or(u64::MAX) + 1_000_000
}

/// How long a new holder must wait, from `now_ms` on its clock, to be past `high_water` by
/// [`ABOVE_MS`]; zero if it is already.
pub(crate) fn wait_for(high_water: u64, now_ms: u64) -> Duration {
    Duration::from_millis((high_water + ABOVE_MS + 1).saturating_sub(now_ms))
}

/// The error of a node space whose free nodes all have a high-water too far ahead of this
/// host's clock.
#[cfg_attr(
    not(any(feature = "etcd", feature = "postgres", feature = "zookeeper")),
    allow(dead_code)
)]
pub(crate) fn ahead(place: &str, node: u64, by: Duration, limit: Duration) -> crate::LeaseError {
    crate::LeaseError::new(
        crate::LeaseErrorKind::Denied,
        format!(
            "no free node {place} whose last holder's clock is behind this host's: node {node:#x} \
             was used up to {} ms ahead of this clock, more than the {} ms the lease waits \
             (is this host's clock behind?)",
            by.as_millis(),
            limit.as_millis()
        ),
    )
}

/// Before attempt `n`: the error of a full space (`taken`, the nodes held, listed), else
/// `taken` with the nodes set aside as `ahead` added, or the error of a space where every node
/// is held or set aside.
#[cfg_attr(
    not(any(feature = "etcd", feature = "postgres", feature = "zookeeper")),
    allow(dead_code)
)]
pub(crate) fn set_aside(
    taken: &mut Vec<u64>,
    ahead: &[(u64, Duration)],
    bits: u8,
    place: &str,
    n: u32,
    limit: Duration,
) -> Result<(), crate::LeaseError> {
    let full = |t: &[u64]| crate::node::space(bits).is_some_and(|size| t.len() as u64 >= size);
    if full(taken) {
        return Err(crate::no_free_node(bits, place, taken.len(), n));
    }
    taken.extend(ahead.iter().map(|(v, _)| *v));
    taken.sort_unstable();
    taken.dedup();
    match ahead.first() {
        Some((node, by)) if full(taken) => Err(self::ahead(place, *node, *by, limit)),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_holder_waits_until_its_clock_is_past_the_high_water() {
        assert_eq!(ceil_ms(1), 1);
        assert_eq!(ceil_ms(2_000_000), 2);
        assert_eq!(wait_for(1_000, 900), Duration::from_millis(113));
        assert_eq!(wait_for(1_000, 1_013), Duration::ZERO);
        assert_eq!(wait_for(1_000, 1_012), Duration::from_millis(1));
        assert_eq!(slew(Duration::from_secs(10)), 11_000_000);
        let e = ahead(
            "under /p",
            1,
            Duration::from_secs(20),
            Duration::from_secs(2),
        );
        assert_eq!(e.kind(), crate::LeaseErrorKind::Denied);
        assert!(e.to_string().contains("20000 ms ahead"), "{e}");
    }
}
