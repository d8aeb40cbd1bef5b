//! Own claims (§2.4.1, §4.4, docs/uiap-design.md D10, D11, D17): rounds of Claim-Attempts,
//! success, lifetimes, renewal by reclaim, and the proxy announcement (§5.1).

use core::fmt;
use core::time::Duration;

use rand_core::Rng;

use super::seen::OwnRecord;
use super::{Destination, Device, Event, FailureReason, Transmit};
use crate::space::{DomainId, UidSpace};
use crate::time::Instant;
use crate::wire::{DeviceId, MessageType, Repr};

pub use crate::wire::INFINITE_LIFETIME;

/// Identifies one claim of one [`Device`] for as long as the device exists.
///
/// ```
/// # use uiap::device::ClaimId;
/// assert_eq!(ClaimId::from_raw(3).get(), 3);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ClaimId(u64);

impl ClaimId {
    /// The claim's number (claims are numbered from 1 in the order they were made).
    pub const fn get(self) -> u64 {
        self.0
    }

    /// A claim ID from its number, e.g. one a daemon stored.
    pub const fn from_raw(n: u64) -> ClaimId {
        ClaimId(n)
    }
}

impl fmt::Display for ClaimId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "claim#{}", self.0)
    }
}

/// What to claim, and how: the argument of [`Device::claim`].
///
/// ```
/// use uiap::device::{ClaimSpec, INFINITE_LIFETIME};
/// use uiap::space::{DomainId, Uid, UidSpace};
///
/// let domain: DomainId = "fff:0:1:0".parse()?;
/// let spec = ClaimSpec::new(domain, UidSpace::Unique(Uid::from_octets(&[1])?));
/// assert_eq!((spec.lifetime, spec.reclaim, spec.proxy), (3600, false, false));
/// let forever = spec.lifetime(INFINITE_LIFETIME).reclaim(true);
/// assert!(forever.reclaim && forever.lifetime == u32::MAX);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClaimSpec {
    /// The domain.
    pub domain: DomainId,
    /// The space.
    pub space: UidSpace,
    /// Lifetime in seconds after success ([`DEFAULT_LIFETIME`]; [`INFINITE_LIFETIME`] for ever).
    pub lifetime: u32,
    /// The R flag: the application held this space before, e.g. across a restart (false).
    pub reclaim: bool,
    /// The X flag: ask other devices to defend the claim by proxy (false).
    pub proxy: bool,
    /// The device ID to announce the claim under (`None`: the device's current ID). A reclaim
    /// after a restart passes the ID the claim was made under, which
    /// [`ClaimInfo::origin`] reported (docs/uiap-design.md D40).
    pub origin: Option<DeviceId>,
}

/// The lifetime of a [`ClaimSpec::new`], in seconds.
pub const DEFAULT_LIFETIME: u32 = 3600;

impl ClaimSpec {
    /// A new claim (no R flag) of `space` in `domain`, for [`DEFAULT_LIFETIME`] seconds, without
    /// proxy defense.
    ///
    /// ```
    /// # use uiap::device::ClaimSpec;
    /// # use uiap::space::{DomainId, Uid, UidSpace};
    /// let spec = ClaimSpec::new(DomainId::from_bytes([0; 8]), UidSpace::Unique(Uid::from_octets(&[1])?));
    /// assert_eq!(spec.lifetime, 3600);
    /// assert!(!spec.reclaim && !spec.proxy);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(domain: DomainId, space: UidSpace) -> ClaimSpec {
        ClaimSpec {
            domain,
            space,
            lifetime: DEFAULT_LIFETIME,
            reclaim: false,
            proxy: false,
            origin: None,
        }
    }

    /// With this lifetime in seconds.
    ///
    /// ```
    /// # use uiap::device::ClaimSpec;
    /// # use uiap::space::{DomainId, Uid, UidSpace};
    /// let s = ClaimSpec::new(DomainId::from_bytes([0; 8]), UidSpace::Unique(Uid::from_octets(&[1])?)).lifetime(5);
    /// assert_eq!(s.lifetime, 5);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn lifetime(mut self, seconds: u32) -> ClaimSpec {
        self.lifetime = seconds;
        self
    }

    /// As a reclaim (R flag) or not.
    ///
    /// ```
    /// # use uiap::device::ClaimSpec;
    /// # use uiap::space::{DomainId, Uid, UidSpace};
    /// let s = ClaimSpec::new(DomainId::from_bytes([0; 8]), UidSpace::Unique(Uid::from_octets(&[1])?)).reclaim(true);
    /// assert!(s.reclaim);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn reclaim(mut self, reclaim: bool) -> ClaimSpec {
        self.reclaim = reclaim;
        self
    }

    /// With or without proxy defense (X flag).
    ///
    /// ```
    /// # use uiap::device::ClaimSpec;
    /// # use uiap::space::{DomainId, Uid, UidSpace};
    /// let s = ClaimSpec::new(DomainId::from_bytes([0; 8]), UidSpace::Unique(Uid::from_octets(&[1])?)).proxy(true);
    /// assert!(s.proxy);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn proxy(mut self, proxy: bool) -> ClaimSpec {
        self.proxy = proxy;
        self
    }

    /// Announced under this device ID rather than the device's current one.
    ///
    /// ```
    /// # use uiap::device::ClaimSpec;
    /// # use uiap::space::{DomainId, Uid, UidSpace};
    /// # use uiap::wire::DeviceId;
    /// let s = ClaimSpec::new(DomainId::from_bytes([0; 8]), UidSpace::Unique(Uid::from_octets(&[1])?))
    ///     .origin(DeviceId::new(5));
    /// assert_eq!(s.origin, DeviceId::new(5));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn origin(mut self, origin: Option<DeviceId>) -> ClaimSpec {
        self.origin = origin;
        self
    }
}

/// Where a claim stands.
///
/// ```
/// # use uiap::device::ClaimState;
/// assert_ne!(ClaimState::Probing, ClaimState::Held);
/// assert_eq!(ClaimState::Reclaiming.as_str(), "reclaiming");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ClaimState {
    /// Sending its first round of Claim-Attempts; no outcome yet.
    Probing,
    /// Succeeded, and defended by this device.
    Held,
    /// Held, and re-verifying itself by a reclaim (renewal or proxy announcement).
    Reclaiming,
}

impl ClaimState {
    /// A stable lower-case name, for logs and statistics.
    ///
    /// ```
    /// # use uiap::device::ClaimState;
    /// assert_eq!(ClaimState::Probing.as_str(), "probing");
    /// ```
    pub fn as_str(&self) -> &'static str {
        match self {
            ClaimState::Probing => "probing",
            ClaimState::Held => "held",
            ClaimState::Reclaiming => "reclaiming",
        }
    }
}

/// A snapshot of one claim, as listed by [`Device::claims`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ClaimInfo {
    /// The claim.
    pub id: ClaimId,
    /// Its domain.
    pub domain: DomainId,
    /// The space claimed.
    pub space: UidSpace,
    /// The lifetime in seconds ([`INFINITE_LIFETIME`] for ever).
    pub lifetime: u32,
    /// Whether proxy defense was requested.
    pub proxy: bool,
    /// The device ID its attempts carry (kept across a device-ID change: docs/uiap-design.md
    /// D40); persist it to reclaim under the same ID after a restart.
    pub origin: DeviceId,
    /// Where it stands.
    pub state: ClaimState,
    /// When a held claim stops being defended (`None`: never, or not yet held).
    pub expires: Option<Instant>,
}

/// Why [`Device::claim`] or [`Device::renew`] refused.
///
/// ```
/// # use rand_chacha::ChaCha8Rng; use rand_core::SeedableRng;
/// use uiap::device::{ClaimErrorKind, ClaimSpec, Device};
/// use uiap::space::{Uid, UidSpace};
/// use uiap::{config::Config, time::Instant, wire::DeviceId};
///
/// let mut dev = Device::new(Config::default(), DeviceId::new(1).unwrap(), ChaCha8Rng::seed_from_u64(0));
/// let spec = ClaimSpec::new("fff:0:1:0".parse()?, UidSpace::Unique(Uid::from_octets(&[7])?));
/// let first = dev.claim(Instant::ZERO, spec.clone())?;
/// let err = dev.claim(Instant::ZERO, spec).unwrap_err();
/// assert_eq!(err.kind(), ClaimErrorKind::LocalConflict { existing: first });
/// assert_eq!(err.to_string(), "expected a space free on this device, found it overlaps claim#1");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClaimError {
    kind: ClaimErrorKind,
}

/// The kind of a [`ClaimError`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ClaimErrorKind {
    /// Another claim on this device already covers part of the space (§2.4.1: "a claim will
    /// immediately fail if a conflicting claim already exists on the local device").
    LocalConflict {
        /// The existing claim.
        existing: ClaimId,
    },
    /// The space is not valid in the domain (e.g. a prefix in a right-justified domain).
    InvalidSpace,
    /// [`Config::max_claims`](crate::config::Config::max_claims) claims exist already.
    TooManyClaims,
    /// No such claim (it failed, expired or was released).
    UnknownClaim,
    /// This device defends an overlapping claim of another device by proxy (§5.1): the claim
    /// would be denied by everyone else holding the same proxy record, so it fails at once
    /// (docs/uiap-design.md D46).
    ProxiedConflict {
        /// The device whose claim is proxied.
        origin: DeviceId,
    },
    /// The claim is not held (still probing, or already reclaiming).
    NotHeld,
    /// The Domain ID has reserved flag bits set: §4.1 says they MUST be 0 when sent, so a
    /// device never originates an Attempt with them (received ones are compared as they are,
    /// docs/uiap-design.md D8).
    ReservedFlags {
        /// The reserved bits found (octet 7 without the J flag).
        found: u8,
    },
}

impl ClaimError {
    pub(crate) fn new(kind: ClaimErrorKind) -> ClaimError {
        ClaimError { kind }
    }

    /// What went wrong.
    pub fn kind(&self) -> ClaimErrorKind {
        self.kind
    }
}

impl fmt::Display for ClaimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            ClaimErrorKind::LocalConflict { existing } => {
                write!(
                    f,
                    "expected a space free on this device, found it overlaps {existing}"
                )
            }
            ClaimErrorKind::InvalidSpace => f.write_str(
                "expected a space valid in the domain's justification, found an invalid one",
            ),
            ClaimErrorKind::TooManyClaims => f.write_str(
                "expected fewer claims than the configured maximum, found the table full",
            ),
            ClaimErrorKind::UnknownClaim => {
                f.write_str("expected a live claim, found an unknown claim id")
            }
            ClaimErrorKind::ProxiedConflict { origin } => write!(
                f,
                "expected a space nobody holds, found it overlaps a claim of device {origin} that this device defends by proxy"
            ),
            ClaimErrorKind::NotHeld => {
                f.write_str("expected a held claim, found one still probing or reclaiming")
            }
            ClaimErrorKind::ReservedFlags { found } => write!(
                f,
                "expected the reserved flag bits of the Domain ID (octet 7 but J) to be 0, found {found:#04x}"
            ),
        }
    }
}

impl std::error::Error for ClaimError {}

/// What a round of attempts is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RoundKind {
    /// The claim's first round (new or reclaim); success is reported.
    Initial,
    /// The X+R reclaim right after success that lets proxies defend the claim (§5.1).
    Announce,
    /// A renewal before the lifetime ends; reported as `ClaimRenewed`.
    Renew,
}

#[derive(Clone, Debug)]
pub(crate) struct Round {
    pub kind: RoundKind,
    pub number: u32,
    /// The R flag of its attempts.
    pub reclaim: bool,
    pub sent: u8,
    pub total: u8,
    /// When the next attempt is due, or (all sent) when the round succeeds.
    pub next: Instant,
}

#[derive(Clone, Debug)]
pub(crate) struct Claim {
    pub id: ClaimId,
    /// The device ID its attempts carry: the device's ID when the claim was made, kept across a
    /// device-ID change so that proxies and holders keep recognising it (docs/uiap-design.md D40).
    pub origin: DeviceId,
    pub domain: DomainId,
    pub space: UidSpace,
    pub lifetime: u32,
    pub proxy: bool,
    pub claim_ref: u32,
    pub held: bool,
    pub round: Option<Round>,
    pub rounds: u32,
    pub expires: Option<Instant>,
    pub renew_at: Option<Instant>,
}

impl Claim {
    pub fn state(&self) -> ClaimState {
        match (self.held, &self.round) {
            (false, _) => ClaimState::Probing,
            (true, None) => ClaimState::Held,
            (true, Some(_)) => ClaimState::Reclaiming,
        }
    }

    pub fn info(&self) -> ClaimInfo {
        ClaimInfo {
            id: self.id,
            domain: self.domain,
            space: self.space.clone(),
            lifetime: self.lifetime,
            proxy: self.proxy,
            origin: self.origin,
            state: self.state(),
            expires: if self.held { self.expires } else { None },
        }
    }

    /// The earliest instant at which this claim needs `handle_timeout`.
    pub fn deadline(&self) -> Option<Instant> {
        let mut t = self.round.as_ref().map(|r| r.next);
        for x in [self.expires, self.renew_at].into_iter().flatten() {
            if self.held {
                t = Some(t.map_or(x, |t| t.min(x)));
            }
        }
        t
    }
}

fn lifetime_duration(lifetime: u32) -> Option<Duration> {
    (lifetime != INFINITE_LIFETIME).then(|| Duration::from_secs(u64::from(lifetime)))
}

impl<R: Rng> Device<R> {
    pub(crate) fn new_round(
        &mut self,
        claim: &mut Claim,
        kind: RoundKind,
        reclaim: bool,
        start: Instant,
    ) {
        claim.rounds += 1;
        claim.round = Some(Round {
            kind,
            number: claim.rounds,
            reclaim,
            sent: 0,
            total: self.config.attempts(reclaim),
            next: start,
        });
    }

    /// Runs every claim's due work at `now`.
    pub(crate) fn advance_claims(&mut self, now: Instant) {
        let ids: Vec<_> = self.claims.keys().copied().collect();
        for id in ids {
            let Some(mut claim) = self.claims.remove(&id) else {
                continue;
            };
            if self.advance_claim(now, &mut claim) {
                self.claims.insert(id, claim);
            }
        }
    }

    /// Advances one claim; returns false if it ended.
    fn advance_claim(&mut self, now: Instant, claim: &mut Claim) -> bool {
        // Bounded: each pass either sends an attempt, completes a round or ends the claim.
        for _ in 0..64 {
            if let Some(round) = claim.round.clone() {
                if round.next > now {
                    break;
                }
                if round.sent < round.total {
                    self.send_attempt(now, claim, &round);
                    let (period, timeout) = (self.config.claim_period, self.config.claim_timeout);
                    if let Some(r) = claim.round.as_mut() {
                        r.sent += 1;
                        // §2.4.1: repeat { send; wait PERIOD } then wait TIMEOUT.
                        r.next = round.next
                            + if r.sent < r.total {
                                period
                            } else {
                                period + timeout
                            };
                    }
                    continue;
                }
                self.complete_round(now, claim, round.kind);
                continue;
            }
            if !claim.held {
                break;
            }
            if claim.expires.is_some_and(|e| e <= now) {
                self.events
                    .push_back(Event::ClaimExpired { claim: claim.id });
                return false;
            }
            if claim.renew_at.is_some_and(|r| r <= now) {
                claim.renew_at = None;
                self.new_round(claim, RoundKind::Renew, true, now);
                continue;
            }
            break;
        }
        true
    }

    fn complete_round(&mut self, now: Instant, claim: &mut Claim, kind: RoundKind) {
        let first_success = !claim.held;
        let was_reclaim = claim.round.as_ref().is_some_and(|r| r.reclaim);
        claim.round = None;
        claim.held = true;
        claim.expires = lifetime_duration(claim.lifetime).map(|d| now + d);
        claim.renew_at = None;
        if self.config.auto_renew
            && let Some(d) = lifetime_duration(claim.lifetime)
            && d >= self.config.renew_min_lifetime
        {
            let pct = u32::from(self.config.renew_at_percent.clamp(1, 99));
            claim.renew_at = Some(now + d * pct / 100);
        }
        match kind {
            RoundKind::Initial => {
                self.events.push_back(Event::ClaimSucceeded {
                    claim: claim.id,
                    expires: claim.expires,
                });
                if first_success && claim.proxy && !was_reclaim {
                    self.new_round(claim, RoundKind::Announce, true, now);
                }
            }
            RoundKind::Announce => {}
            RoundKind::Renew => self.events.push_back(Event::ClaimRenewed {
                claim: claim.id,
                expires: claim.expires,
            }),
        }
    }

    fn send_attempt(&mut self, now: Instant, claim: &Claim, round: &Round) {
        let sequence = self.next_sequence;
        self.next_sequence = self.next_sequence.wrapping_add(1);
        let repr = Repr {
            msg_type: MessageType::ClaimAttempt,
            proxy: claim.proxy,
            reclaim: round.reclaim,
            hop_limit: self.config.hop_limit,
            lifetime: claim.lifetime,
            origin: claim.origin,
            sequence,
            claim_ref: claim.claim_ref,
            domain: claim.domain,
            space: claim.space.clone(),
        };
        let payload = repr.to_vec();
        let remaining = self.config.claim_window(round.reclaim);
        self.own.insert(
            sequence,
            OwnRecord {
                origin: claim.origin,
                claim: claim.id,
                round: round.number,
                expires: now + remaining + self.config.message_ttl,
                denied: false,
                domain: claim.domain,
                space: claim.space.clone(),
            },
        );
        self.counters.floods_originated += 1;
        for &iface in &self.interfaces {
            self.counters.attempts_sent += 1;
            self.transmits.push_back(Transmit {
                destination: Destination::Multicast(iface),
                payload: payload.clone(),
            });
        }
    }

    /// Ends a claim that lost (a Deny, or a simultaneous claim), with its event.
    pub(crate) fn fail_claim(&mut self, now: Instant, id: super::ClaimId, reason: FailureReason) {
        if self.claims.remove(&id).is_some() {
            self.note_conflict(now);
            self.events
                .push_back(Event::ClaimDenied { claim: id, reason });
        }
    }

    pub(crate) fn note_conflict(&mut self, now: Instant) {
        self.conflicts.push_back(now);
        let window = self.config.conflict_window;
        while self.conflicts.front().is_some_and(|&t| now - t >= window) {
            self.conflicts.pop_front();
        }
    }

    /// When a claim made at `now` may send its first attempt (start jitter and conflict back-off).
    pub(crate) fn claim_start(&mut self, now: Instant) -> Instant {
        let jitter_us = crate::time::micros(self.config.start_jitter);
        let jitter = if jitter_us == 0 {
            0
        } else {
            self.rng.next_u64() % (jitter_us + 1)
        };
        let mut start = now + Duration::from_micros(jitter);
        let window = self.config.conflict_window;
        while self.conflicts.front().is_some_and(|&t| now - t >= window) {
            self.conflicts.pop_front();
        }
        if self.conflicts.len() >= self.config.conflict_limit.max(1)
            && let Some(last) = self.last_claim_start
        {
            start = start.max(last + self.config.conflict_rate_limit);
        }
        self.last_claim_start = Some(start);
        start
    }
}
