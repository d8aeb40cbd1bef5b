//! Segments, links and the fault model of the simulator.

use core::time::Duration;

/// Identifies a segment of a [`Sim`](super::Sim) (a shared link: every multicast on it reaches
/// all other attached members).
///
/// ```
/// # use uiap::sim::SegmentId;
/// assert_eq!(SegmentId(3).0, 3);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SegmentId(pub usize);

/// Identifies a device (node) of a [`Sim`](super::Sim).
///
/// ```
/// # use uiap::sim::NodeId;
/// assert_eq!(NodeId(0).0, 0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NodeId(pub usize);

/// The behaviour of one segment. Each delivery of a datagram to one member is lost with
/// probability `loss`; otherwise it arrives after `delay` plus a uniform `0..=jitter`, and with
/// probability `reorder` a further uniform `0..=reorder_delay` (overtaken by later datagrams);
/// with probability `duplicate` a second copy is delivered, with its own delay.
///
/// ```
/// # use uiap::sim::SegmentParams;
/// # use core::time::Duration;
/// let p = SegmentParams { loss: 0.1, ..SegmentParams::default() };
/// assert_eq!(p.delay, Duration::from_millis(1));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct SegmentParams {
    /// Fixed one-way delay (1 ms).
    pub delay: Duration,
    /// Random extra delay, uniform in `0..=jitter` (0).
    pub jitter: Duration,
    /// Probability that one delivery is lost (0).
    pub loss: f64,
    /// Probability that one delivery is duplicated (0).
    pub duplicate: f64,
    /// Probability that one delivery is held back by up to `reorder_delay` (0).
    pub reorder: f64,
    /// The largest hold-back of a reordered delivery (5 ms).
    pub reorder_delay: Duration,
}

impl Default for SegmentParams {
    fn default() -> SegmentParams {
        SegmentParams {
            delay: Duration::from_millis(1),
            jitter: Duration::ZERO,
            loss: 0.0,
            duplicate: 0.0,
            reorder: 0.0,
            reorder_delay: Duration::from_millis(5),
        }
    }
}

#[derive(Clone, Debug)]
pub(crate) struct Segment {
    pub params: SegmentParams,
    /// (node, interface index on that node)
    pub members: Vec<(NodeId, usize)>,
}
