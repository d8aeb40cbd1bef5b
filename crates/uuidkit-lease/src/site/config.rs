//! [`LeaseConfig`]: how a site lease claims, keeps and starts its node ID.

use std::path::PathBuf;
use std::time::Duration;

use uiap::space::DomainId;

/// How a [`SiteLease`](super::SiteLease) claims its node ID.
///
/// ```
/// use uuidkit_lease::site::{LeaseConfig, DEFAULT_NODE_DOMAIN};
///
/// let c = LeaseConfig::new("/run/uiapd/control.sock".into(), 48);
/// assert_eq!(c.domain, DEFAULT_NODE_DOMAIN);
/// assert_eq!(c.lifetime, 20);
/// assert_eq!(c.answer_limit, Some(std::time::Duration::from_secs(30)));
/// assert_eq!(c.liveness, std::time::Duration::from_secs(2));
/// assert_eq!((c.max_clock_offset, c.clock_wait), (None, std::time::Duration::from_secs(40)));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeaseConfig {
    /// The daemon's control socket.
    pub control: PathBuf,
    /// The node-ID domain (docs/uiap-design.md D49); must be left-justified.
    pub domain: DomainId,
    /// The node ID's width, 1 to 48 (48: the v1/v6 node field, drawn with the multicast bit
    /// set).
    pub bits: u8,
    /// The claim's lifetime in seconds (20). The daemon renews it when `renew-at-percent` (75 %)
    /// of it has passed, and that renewal interval bounds the partition window
    /// (docs/uiap-design.md D53); it must be at least the daemon's `renew-min-lifetime-s`.
    pub lifetime: u32,
    /// Claims tried, each with a fresh random node ID, before giving up (8).
    pub attempts: u32,
    /// The wait after the first denial, doubled after each one up to `max_backoff`, each wait
    /// drawn uniformly from its upper half (250 ms).
    pub backoff: Duration,
    /// The longest wait between two attempts (8 s).
    pub max_backoff: Duration,
    /// How long one claim may take to be answered (30 s; `None`: as long as the daemon needs,
    /// e.g. when it rate-limits claims after conflicts). A daemon that does not answer in time
    /// ends [`SiteLease::acquire`](super::SiteLease::acquire) with [`LeaseErrorKind::Timeout`](crate::LeaseErrorKind::Timeout) and what it said meanwhile.
    pub answer_limit: Option<Duration>,
    /// How long the node stays usable after the daemon last proved it alive and still holding
    /// the claim (2 s): the lease asks the daemon every quarter of this, each question bounded by
    /// a quarter of it, and counts it from when the question was sent. A daemon that stops
    /// answering (SIGSTOP, blocked I/O) also stops defending the node, and another device may
    /// win it after one claim window (2.5 s by default, docs/uiap-design.md D44): this must be
    /// shorter, less `margin`, for the node to be reported lost first.
    pub liveness: Duration,
    /// Taken off each deadline for clock-rate error and scheduling (100 ms:
    /// [`default_margin`](crate::default_margin) of the liveness window).
    pub margin: Duration,
    /// How far ahead of this host's the clock of a device `uiapd` has not heard may be, as the
    /// operator vouches (`None`). A new tenure starts only once this host's clock is past the
    /// claim's answer by the largest offset ahead the daemon measured among the neighbours it
    /// heard (with a key), and by this for the devices it cannot have heard: with a key, those
    /// whose last datagram came before it listened (`None`: the key's 30 s window); without
    /// one, every device (`None`: the lease refuses, as nothing bounds their clocks)
    /// (docs/uiap-design.md D72).
    pub max_clock_offset: Option<Duration>,
    /// The longest a new tenure waits for this host's clock to pass the neighbours' (40 s:
    /// more than the key's window); beyond it the claim is released and the lease fails.
    pub clock_wait: Duration,
    /// Test-only switches ([`Testing`](crate::Testing)): `no_high_water` starts a tenure at
    /// once whatever the neighbours' clocks, `wall_offset_ms` offsets the lease's wall clock.
    #[doc(hidden)]
    pub testing: crate::Testing,
}

impl LeaseConfig {
    /// The defaults for a node ID `bits` wide in the default domain.
    ///
    /// ```
    /// use uuidkit_lease::site::LeaseConfig;
    ///
    /// assert_eq!(LeaseConfig::new("/tmp/c.sock".into(), 12).bits, 12);
    /// ```
    pub fn new(control: PathBuf, bits: u8) -> LeaseConfig {
        LeaseConfig {
            control,
            domain: super::DEFAULT_NODE_DOMAIN,
            bits,
            lifetime: 20,
            attempts: 8,
            backoff: Duration::from_millis(250),
            max_backoff: Duration::from_secs(8),
            answer_limit: Some(DEFAULT_ANSWER_LIMIT),
            liveness: DEFAULT_LIVENESS,
            margin: crate::default_margin(DEFAULT_LIVENESS),
            max_clock_offset: None,
            clock_wait: DEFAULT_CLOCK_WAIT,
            testing: crate::Testing::default(),
        }
    }
}

/// How long a claim may wait for its answer unless configured: a few claim windows, far less
/// than a rate limit after repeated conflicts (docs/uiap-design.md D34, D61).
const DEFAULT_ANSWER_LIMIT: Duration = Duration::from_secs(30);

/// The liveness window unless configured: under the default claim window (2.5 s) by more than
/// the default margin.
const DEFAULT_LIVENESS: Duration = Duration::from_secs(2);

/// The longest wait for the neighbours' clocks unless configured: past the key's 30 s window
/// and the margins, so that on a keyed site only a shorter configured wait can fail a lease.
const DEFAULT_CLOCK_WAIT: Duration = Duration::from_secs(40);
