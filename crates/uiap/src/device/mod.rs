//! The UIAP device: a sans-IO state machine that claims and defends UID spaces (§2.4, §4, §5.1,
//! §9 of the draft; docs/uiap-design.md D10–D18).
//!
//! A [`Device`] has no sockets, no clock and no global RNG. The caller feeds it datagrams
//! ([`Device::handle_datagram`]) and the passing of time ([`Device::handle_timeout`]), and
//! after every call drains what it wants done:
//!
//! * [`Device::poll_transmit`] — datagrams to send: Claim-Attempts multicast on an interface
//!   (to the UIAP group, claim port) and Claim-Denies unicast to a link-local neighbour (reply
//!   port);
//! * [`Device::poll_event`] — outcomes for the application (claim succeeded, denied, expired…);
//! * [`Device::poll_timeout`] — when to call [`Device::handle_timeout`] next.
//!
//! Call all three after [`Device::new`] interactions that change state: `claim`, `release`,
//! `renew`, `handle_datagram`, `handle_timeout`, `add_interface` and `remove_interface`. A
//! daemon maps `poll_timeout` onto one runtime timer; a spurious or early `handle_timeout` is a
//! no-op.
//!
//! # Guarantees
//! * No input panics the device. Every datagram that leads to no action is counted in exactly
//!   one drop reason of [`Counters`].
//! * One datagram in produces at most (interfaces − 1) multicasts plus one unicast.
//! * A received Attempt is forwarded as the received bytes with only the hop-limit octet changed;
//!   a Deny is the Attempt's bytes with type 1 and hop limit 32 (docs/uiap-design.md D3, §4.3.1).
//! * Same inputs, same RNG seed: same outputs, byte for byte.
//!
//! # Example: a claim on an empty site
//! ```
//! use core::time::Duration;
//! use rand_chacha::ChaCha8Rng;
//! use rand_core::SeedableRng;
//! use uiap::config::Config;
//! use uiap::device::{ClaimSpec, Destination, Device, Event, InterfaceId};
//! use uiap::space::{DomainId, Uid, UidSpace};
//! use uiap::time::Instant;
//! use uiap::wire::DeviceId;
//!
//! let mut dev = Device::new(Config::default(), DeviceId::new(7).unwrap(), ChaCha8Rng::seed_from_u64(1));
//! dev.add_interface(InterfaceId(1));
//! let domain = DomainId::from_bytes([0x0f, 0xff, 0, 0, 0, 1, 0, 0]);
//! let space = UidSpace::Unique(Uid::from_octets(&[0x2a])?);
//! let claim = dev.claim(Instant::ZERO, ClaimSpec::new(domain, space))?;
//!
//! let mut now = Instant::ZERO;
//! let mut attempts = 0;
//! let outcome = loop {
//!     while let Some(t) = dev.poll_transmit() {
//!         assert_eq!(t.destination, Destination::Multicast(InterfaceId(1)));
//!         attempts += 1;
//!     }
//!     if let Some(e) = dev.poll_event() {
//!         break e;
//!     }
//!     now = dev.poll_timeout().expect("a claim in flight has a timer");
//!     dev.handle_timeout(now);
//! };
//! assert_eq!(attempts, 3);
//! assert!(matches!(outcome, Event::ClaimSucceeded { claim: c, .. } if c == claim));
//! // 2.5 s after the first attempt, which waited a random 0–250 ms.
//! assert!(now >= Instant::from_millis(2_500) && now <= Instant::from_millis(2_750));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod budget;
mod claim;
mod counters;
mod deny;
mod forward;
mod notice;
mod proxy;
mod seen;
mod start;

use std::collections::{BTreeMap, VecDeque};
use std::net::Ipv6Addr;

use rand_core::Rng;

pub use claim::{
    ClaimError, ClaimErrorKind, ClaimId, ClaimInfo, ClaimSpec, ClaimState, DEFAULT_LIFETIME,
    INFINITE_LIFETIME,
};
pub use counters::{Counters, DropReason};
pub use proxy::ProxyInfo;

use crate::config::Config;
use crate::space::{DomainId, conflicts};
use crate::time::Instant;
use crate::wire::{DeviceId, MessageId, MessageType, Packet, Repr};

use claim::{Claim, RoundKind};
use proxy::ProxyTable;
use seen::{MessageTable, OwnFloods};

/// A participating network interface, named by the caller (e.g. the OS interface index).
///
/// ```
/// # use uiap::device::InterfaceId;
/// assert!(InterfaceId(1) < InterfaceId(2));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct InterfaceId(pub u32);

/// A neighbour on one link: the interface and its link-local address (docs/uiap-design.md D12: the
/// same `fe80::` address may exist on two links, so the interface is part of the key).
///
/// ```
/// # use uiap::device::{InterfaceId, Peer};
/// let p = Peer { interface: InterfaceId(2), addr: "fe80::1".parse().unwrap() };
/// assert_eq!(p.interface, InterfaceId(2));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Peer {
    /// The interface the neighbour is reached through.
    pub interface: InterfaceId,
    /// The neighbour's link-local address.
    pub addr: Ipv6Addr,
}

/// Where a [`Transmit`] goes.
///
/// ```
/// # use uiap::device::{Destination, InterfaceId};
/// assert_ne!(Destination::Multicast(InterfaceId(0)), Destination::Multicast(InterfaceId(1)));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Destination {
    /// To the UIAP multicast group and claim port, out this interface (Claim-Attempts).
    Multicast(InterfaceId),
    /// To this neighbour's reply port (Claim-Denies).
    Unicast(Peer),
}

/// A datagram the device wants sent.
///
/// ```
/// # use uiap::device::{Destination, InterfaceId, Transmit};
/// let t = Transmit { destination: Destination::Multicast(InterfaceId(0)), payload: vec![1] };
/// assert_eq!(t.payload.len(), 1);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Transmit {
    /// Where to send it.
    pub destination: Destination,
    /// The UIAP message.
    pub payload: Vec<u8>,
}

/// Why a claim failed.
///
/// ```
/// # use rand_chacha::ChaCha8Rng; use rand_core::SeedableRng;
/// use uiap::device::{ClaimSpec, Device, Event, FailureReason, InterfaceId, Peer};
/// use uiap::space::{Uid, UidSpace};
/// use uiap::wire::{DeviceId, MessageType, Packet};
/// use uiap::{config::Config, time::Instant};
///
/// let mut dev = Device::new(Config::default(), DeviceId::new(1).unwrap(), ChaCha8Rng::seed_from_u64(0));
/// dev.add_interface(InterfaceId(1));
/// let spec = ClaimSpec::new("fff:0:1:0".parse()?, UidSpace::Unique(Uid::from_octets(&[7])?));
/// let claim = dev.claim(Instant::ZERO, spec)?;
/// let first = dev.poll_timeout().expect("the first attempt is due");
/// dev.handle_timeout(first);
/// let attempt = dev.poll_transmit().expect("an attempt").payload;
///
/// // A neighbour holds 07 and denies: the attempt's octets with type 1.
/// let mut deny = Packet::new_checked(attempt)?;
/// deny.set_msg_type(MessageType::ClaimDeny);
/// let neighbour = Peer { interface: InterfaceId(1), addr: "fe80::2".parse()? };
/// dev.handle_datagram(first, neighbour, deny.as_ref());
/// let message = deny.message_id().expect("a non-zero device id");
/// assert_eq!(
///     dev.poll_event(),
///     Some(Event::ClaimDenied { claim, reason: FailureReason::Denied { message } })
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum FailureReason {
    /// A Claim-Deny came back for one of its attempts (`message`).
    Denied {
        /// Our attempt that was denied.
        message: MessageId,
    },
    /// A conflicting Claim-Attempt of the same kind (both new or both reclaims) arrived while
    /// this claim was in progress: both sides fail (§4.2.2.2, docs/uiap-design.md D17).
    Simultaneous {
        /// The other device's attempt.
        message: MessageId,
    },
    /// A conflicting reclaim arrived while this new claim was in progress: the reclaim wins.
    Reclaimed {
        /// The other device's reclaim.
        message: MessageId,
    },
}

/// Something the application should know, from [`Device::poll_event`].
///
/// ```
/// # use rand_chacha::ChaCha8Rng; use rand_core::SeedableRng;
/// use core::time::Duration;
/// use uiap::device::{ClaimSpec, Device, Event};
/// use uiap::space::{Uid, UidSpace};
/// use uiap::{config::Config, time::Instant, wire::DeviceId};
///
/// // A device with no interface is a site of one: its claim succeeds, then expires.
/// let mut dev = Device::new(Config::default(), DeviceId::new(1).unwrap(), ChaCha8Rng::seed_from_u64(0));
/// let spec = ClaimSpec::new("fff:0:1:0".parse()?, UidSpace::Unique(Uid::from_octets(&[7])?));
/// let claim = dev.claim(Instant::ZERO, spec.lifetime(60))?;
/// let mut events = Vec::new();
/// while let Some(at) = dev.poll_timeout() {
///     dev.handle_timeout(at);
///     events.extend(std::iter::from_fn(|| dev.poll_event().map(|e| (at, e))));
/// }
/// let [(held_at, succeeded), (gone_at, expired)] = &events[..] else { panic!("{events:?}") };
/// assert_eq!(*succeeded, Event::ClaimSucceeded { claim, expires: Some(*gone_at) });
/// assert_eq!(*expired, Event::ClaimExpired { claim });
/// assert_eq!(*gone_at - *held_at, Duration::from_secs(60));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Event {
    /// The claim's first round ended with no Deny: the space is ours until `expires`.
    ClaimSucceeded {
        /// The claim.
        claim: ClaimId,
        /// When its lifetime ends (`None`: infinite).
        expires: Option<Instant>,
    },
    /// The claim failed (in its first round) or was lost (while reclaiming); it is gone.
    ClaimDenied {
        /// The claim.
        claim: ClaimId,
        /// Why.
        reason: FailureReason,
    },
    /// A renewal (reclaim) of a held claim succeeded; the lifetime starts again.
    ClaimRenewed {
        /// The claim.
        claim: ClaimId,
        /// When its lifetime now ends.
        expires: Option<Instant>,
    },
    /// The claim's lifetime ended; it is no longer defended and is gone.
    ClaimExpired {
        /// The claim.
        claim: ClaimId,
    },
    /// A Deny arrived for an attempt of ours whose round had already finished: someone else
    /// holds a conflicting claim. The Deny was dropped (docs/uiap-design.md D14).
    LateConflict {
        /// The claim, if it still exists.
        claim: Option<ClaimId>,
        /// Our attempt that was denied.
        message: MessageId,
    },
    /// A Claim-Attempt with our device ID that we never sent (§9): our sequence number moved far
    /// away and, with [`Config::random_device_id`], the device took a new ID (at most once per
    /// [`Config::conflict_window`]). Claims made before keep the ID they were made under.
    DeviceIdCollision {
        /// The sequence number of the foreign attempt.
        sequence: u32,
        /// The new device ID, if one was picked.
        new_device_id: Option<DeviceId>,
    },
    /// A Loss-Notice (docs/uiap-design.md D80): device `message.origin` may have lost `lost`
    /// datagrams within the `window` before it sent the notice. An Attempt of a claim in its
    /// round, or the Deny that answered it, may be among them, so the silence that ends the
    /// round is not consent: uiapd fails such claims, and tells the watchers of claims whose
    /// round ended within the window. Reported once per notice, whichever way it arrived.
    LossReported {
        /// The notice.
        message: MessageId,
        /// How many datagrams its origin may have lost (saturating).
        lost: u32,
        /// The span of the losses, ending when the notice was sent (at most 30 s).
        window: core::time::Duration,
    },
}

/// A UIAP device (one per host): claims, defends, forwards.
///
/// `R` supplies all randomness (start jitter, sequence numbers, new device IDs): a seeded
/// `rand_chacha` generator in simulations and tests, an OS-seeded one in a daemon.
/// See the [module docs](self) for how to drive it.
#[derive(Debug)]
pub struct Device<R> {
    config: Config,
    device_id: DeviceId,
    retired_ids: Vec<DeviceId>,
    rng: R,
    interfaces: Vec<InterfaceId>,
    next_sequence: u32,
    next_claim: u64,
    claims: BTreeMap<ClaimId, Claim>,
    table: MessageTable,
    own: OwnFloods,
    proxies: ProxyTable,
    conflicts: VecDeque<Instant>,
    last_claim_start: Option<Instant>,
    /// When the device last picked a new device ID after a collision.
    last_id_change: Option<Instant>,
    /// Forwarding budget, shared fairly among previous hops (docs/uiap-design.md D48, D69).
    forward_budget: budget::ForwardBudget,
    /// Loss-Notices to send and to pass on (docs/uiap-design.md D80).
    notices: notice::Notices,
    transmits: VecDeque<Transmit>,
    events: VecDeque<Event>,
    counters: Counters,
}

impl<R: Rng> Device<R> {
    /// A device with no interfaces and no claims. The first sequence number is drawn from `rng`.
    ///
    /// ```
    /// # use rand_chacha::ChaCha8Rng; use rand_core::SeedableRng;
    /// # use uiap::{config::Config, device::Device, wire::DeviceId};
    /// let dev = Device::new(Config::default(), DeviceId::new(1).unwrap(), ChaCha8Rng::seed_from_u64(0));
    /// assert_eq!(dev.device_id(), DeviceId::new(1).unwrap());
    /// assert_eq!(dev.poll_timeout(), None);
    /// ```
    pub fn new(config: Config, device_id: DeviceId, mut rng: R) -> Device<R> {
        let next_sequence = rng.next_u32();
        let forward_budget = budget::ForwardBudget::new(config.forward_rate);
        let notices = notice::Notices::new(&config);
        Device {
            table: MessageTable::new(
                config.message_table_capacity,
                config.message_ttl,
                config.claim_window(false).max(config.claim_window(true)),
            ),
            proxies: ProxyTable::new(config.proxy_capacity, config.proxy_max_lifetime),
            config,
            device_id,
            retired_ids: Vec::new(),
            rng,
            interfaces: Vec::new(),
            next_sequence,
            next_claim: 1,
            claims: BTreeMap::new(),
            own: OwnFloods::default(),
            conflicts: VecDeque::new(),
            last_claim_start: None,
            last_id_change: None,
            forward_budget,
            notices,
            transmits: VecDeque::new(),
            events: VecDeque::new(),
            counters: Counters::default(),
        }
    }

    /// This device's ID (it changes after a [`Event::DeviceIdCollision`] with a new ID).
    ///
    /// ```
    /// # use rand_chacha::ChaCha8Rng; use rand_core::SeedableRng;
    /// # use uiap::{config::Config, device::Device, wire::DeviceId};
    /// let dev = Device::new(Config::default(), DeviceId::new(9).unwrap(), ChaCha8Rng::seed_from_u64(0));
    /// assert_eq!(dev.device_id().get(), 9);
    /// ```
    pub fn device_id(&self) -> DeviceId {
        self.device_id
    }

    /// The configuration.
    ///
    /// ```
    /// # use rand_chacha::ChaCha8Rng; use rand_core::SeedableRng;
    /// # use uiap::{config::Config, device::Device, wire::DeviceId};
    /// let dev = Device::new(Config::default(), DeviceId::new(9).unwrap(), ChaCha8Rng::seed_from_u64(0));
    /// assert_eq!(dev.config().hop_limit, 32);
    /// ```
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The sequence number of the next flood (random at start, +1 per flood, wrapping).
    ///
    /// ```
    /// # use rand_chacha::ChaCha8Rng; use rand_core::SeedableRng;
    /// # use uiap::{config::Config, device::Device, wire::DeviceId};
    /// let a = Device::new(Config::default(), DeviceId::new(9).unwrap(), ChaCha8Rng::seed_from_u64(0));
    /// let b = Device::new(Config::default(), DeviceId::new(9).unwrap(), ChaCha8Rng::seed_from_u64(1));
    /// assert_ne!(a.next_sequence(), b.next_sequence());
    /// ```
    pub fn next_sequence(&self) -> u32 {
        self.next_sequence
    }

    /// Adds a participating interface (no-op if present). New claims and floods use it at once.
    ///
    /// ```
    /// # use rand_chacha::ChaCha8Rng; use rand_core::SeedableRng;
    /// # use uiap::{config::Config, device::{Device, InterfaceId}, wire::DeviceId};
    /// let mut dev = Device::new(Config::default(), DeviceId::new(1).unwrap(), ChaCha8Rng::seed_from_u64(0));
    /// dev.add_interface(InterfaceId(3));
    /// dev.add_interface(InterfaceId(3));
    /// assert_eq!(dev.interfaces(), &[InterfaceId(3)]);
    /// ```
    pub fn add_interface(&mut self, id: InterfaceId) {
        if let Err(at) = self.interfaces.binary_search(&id) {
            self.interfaces.insert(at, id);
        }
    }

    /// Removes an interface (no-op if absent). Denies whose reverse path used it are dropped.
    ///
    /// ```
    /// # use rand_chacha::ChaCha8Rng; use rand_core::SeedableRng;
    /// # use uiap::{config::Config, device::{Device, InterfaceId}, wire::DeviceId};
    /// let mut dev = Device::new(Config::default(), DeviceId::new(1).unwrap(), ChaCha8Rng::seed_from_u64(0));
    /// dev.add_interface(InterfaceId(3));
    /// dev.remove_interface(InterfaceId(3));
    /// assert!(dev.interfaces().is_empty());
    /// ```
    pub fn remove_interface(&mut self, id: InterfaceId) {
        self.interfaces.retain(|&i| i != id);
    }

    /// The participating interfaces, in order.
    ///
    /// ```
    /// # use rand_chacha::ChaCha8Rng; use rand_core::SeedableRng;
    /// # use uiap::{config::Config, device::Device, wire::DeviceId};
    /// let dev = Device::new(Config::default(), DeviceId::new(1).unwrap(), ChaCha8Rng::seed_from_u64(0));
    /// assert!(dev.interfaces().is_empty());
    /// ```
    pub fn interfaces(&self) -> &[InterfaceId] {
        &self.interfaces
    }

    /// Starts a claim on `spec.space` in `spec.domain`, defended for `spec.lifetime` seconds
    /// after success ([`INFINITE_LIFETIME`] for ever).
    ///
    /// A new claim (`spec.reclaim == false`) sends [`Config::new_attempts`] Claim-Attempts, a
    /// reclaim (R flag: the application held this space before, e.g. across a restart)
    /// [`Config::reclaim_attempts`]; the first goes out after a random start delay. With
    /// `spec.proxy`, attempts carry the X flag and, after a new claim succeeds, the device reclaims
    /// at once with X and R so that other devices may defend the claim by proxy (§5.1).
    ///
    /// The outcome arrives later as [`Event::ClaimSucceeded`] or [`Event::ClaimDenied`]. Then
    /// call [`poll_timeout`](Self::poll_timeout).
    ///
    /// # Errors
    /// [`ClaimErrorKind::LocalConflict`] at once if a claim of this device overlaps the space;
    /// [`ClaimErrorKind::ProxiedConflict`] at once if this device defends an overlapping claim of
    /// another device by proxy;
    /// [`ClaimErrorKind::InvalidSpace`] if the space is invalid in the domain;
    /// [`ClaimErrorKind::ReservedFlags`] if the domain has a reserved flag bit set (§4.1: they
    /// MUST be 0 when sent);
    /// [`ClaimErrorKind::TooManyClaims`] past [`Config::max_claims`].
    ///
    /// ```
    /// # use rand_chacha::ChaCha8Rng; use rand_core::SeedableRng;
    /// # use uiap::{config::Config, device::{ClaimErrorKind, ClaimSpec, Device}, wire::DeviceId, time::Instant};
    /// # use uiap::space::{DomainId, Uid, UidSpace};
    /// let mut dev = Device::new(Config::default(), DeviceId::new(1).unwrap(), ChaCha8Rng::seed_from_u64(0));
    /// let d = DomainId::from_bytes([0, 1, 0, 0, 0, 0, 0, 0]);
    /// let lo = Uid::from_octets(&[10])?;
    /// let hi = Uid::from_octets(&[20])?;
    /// let first = dev.claim(Instant::ZERO, ClaimSpec::new(d, UidSpace::Range { low: lo, high: hi }).lifetime(60))?;
    /// let again = dev.claim(Instant::ZERO, ClaimSpec::new(d, UidSpace::Unique(Uid::from_octets(&[15])?)).lifetime(60));
    /// assert_eq!(again.unwrap_err().kind(), ClaimErrorKind::LocalConflict { existing: first });
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn claim(&mut self, now: Instant, spec: ClaimSpec) -> Result<ClaimId, ClaimError> {
        let ClaimSpec {
            domain,
            space,
            lifetime,
            reclaim,
            proxy,
            origin,
        } = spec;
        let origin = origin.unwrap_or(self.device_id);
        let reserved = domain.as_bytes()[7] & DomainId::RESERVED_FLAGS;
        if reserved != 0 {
            return Err(ClaimError::new(ClaimErrorKind::ReservedFlags {
                found: reserved,
            }));
        }
        if space.validate(domain.justification()).is_err() {
            return Err(ClaimError::new(ClaimErrorKind::InvalidSpace));
        }
        if let Some(c) = self
            .claims
            .values()
            .find(|c| conflicts(&c.domain, &c.space, &domain, &space))
        {
            return Err(ClaimError::new(ClaimErrorKind::LocalConflict {
                existing: c.id,
            }));
        }
        if let Some(origin) = self.proxies.defends_against(now, origin, &domain, &space) {
            return Err(ClaimError::new(ClaimErrorKind::ProxiedConflict { origin }));
        }
        if self.claims.len() >= self.config.max_claims {
            return Err(ClaimError::new(ClaimErrorKind::TooManyClaims));
        }
        let id = ClaimId::from_raw(self.next_claim);
        self.next_claim += 1;
        let start = self.claim_start(now);
        let mut claim = Claim {
            id,
            domain,
            space,
            lifetime,
            proxy,
            origin,
            claim_ref: self.rng.next_u32(),
            held: false,
            round: None,
            rounds: 0,
            expires: None,
            renew_at: None,
        };
        self.new_round(&mut claim, RoundKind::Initial, reclaim, start);
        self.claims.insert(id, claim);
        Ok(id)
    }

    /// Stops a claim (probing or held): no more attempts, no more defense, no event.
    /// Returns whether it existed.
    ///
    /// ```
    /// # use rand_chacha::ChaCha8Rng; use rand_core::SeedableRng;
    /// # use uiap::{config::Config, device::{ClaimSpec, Device}, wire::DeviceId, time::Instant};
    /// # use uiap::space::{DomainId, Uid, UidSpace};
    /// let mut dev = Device::new(Config::default(), DeviceId::new(1).unwrap(), ChaCha8Rng::seed_from_u64(0));
    /// let d = DomainId::from_bytes([0, 1, 0, 0, 0, 0, 0, 0]);
    /// let c = dev.claim(Instant::ZERO, ClaimSpec::new(d, UidSpace::Unique(Uid::from_octets(&[1])?)).lifetime(60))?;
    /// assert!(dev.release(c));
    /// assert!(!dev.release(c));
    /// assert_eq!(dev.claims().count(), 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn release(&mut self, claim: ClaimId) -> bool {
        self.give_back_start(claim);
        self.claims.remove(&claim).is_some()
    }

    /// Re-verifies a held claim now by a reclaim (R flag, [`Config::reclaim_attempts`]
    /// attempts); on success its lifetime starts again ([`Event::ClaimRenewed`]), on a Deny it is
    /// lost ([`Event::ClaimDenied`]). [`Config::auto_renew`] does this by itself.
    ///
    /// # Errors
    /// [`ClaimErrorKind::UnknownClaim`] or [`ClaimErrorKind::NotHeld`].
    ///
    /// ```
    /// # use rand_chacha::ChaCha8Rng; use rand_core::SeedableRng;
    /// # use uiap::{config::Config, device::{ClaimErrorKind, ClaimSpec, Device}, wire::DeviceId, time::Instant};
    /// # use uiap::space::{DomainId, Uid, UidSpace};
    /// let mut dev = Device::new(Config::default(), DeviceId::new(1).unwrap(), ChaCha8Rng::seed_from_u64(0));
    /// let d = DomainId::from_bytes([0, 1, 0, 0, 0, 0, 0, 0]);
    /// let c = dev.claim(Instant::ZERO, ClaimSpec::new(d, UidSpace::Unique(Uid::from_octets(&[1])?)).lifetime(60))?;
    /// assert_eq!(dev.renew(Instant::ZERO, c).unwrap_err().kind(), ClaimErrorKind::NotHeld);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn renew(&mut self, now: Instant, claim: ClaimId) -> Result<(), ClaimError> {
        let Some(mut c) = self.claims.remove(&claim) else {
            return Err(ClaimError::new(ClaimErrorKind::UnknownClaim));
        };
        let result = if c.held && c.round.is_none() {
            c.renew_at = None;
            self.new_round(&mut c, RoundKind::Renew, true, now);
            Ok(())
        } else {
            Err(ClaimError::new(ClaimErrorKind::NotHeld))
        };
        self.claims.insert(claim, c);
        result
    }

    /// Every claim of this device, in claim order.
    ///
    /// ```
    /// # use rand_chacha::ChaCha8Rng; use rand_core::SeedableRng;
    /// # use uiap::{config::Config, device::{ClaimSpec, ClaimState, Device}, wire::DeviceId, time::Instant};
    /// # use uiap::space::{DomainId, Uid, UidSpace};
    /// let mut dev = Device::new(Config::default(), DeviceId::new(1).unwrap(), ChaCha8Rng::seed_from_u64(0));
    /// let d = DomainId::from_bytes([0, 1, 0, 0, 0, 0, 0, 0]);
    /// dev.claim(Instant::ZERO, ClaimSpec::new(d, UidSpace::Unique(Uid::from_octets(&[1])?)).lifetime(60))?;
    /// assert_eq!(dev.claims().next().unwrap().state, ClaimState::Probing);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn claims(&self) -> impl Iterator<Item = ClaimInfo> + '_ {
        self.claims.values().map(Claim::info)
    }

    /// One claim, if it exists.
    ///
    /// ```
    /// # use rand_chacha::ChaCha8Rng; use rand_core::SeedableRng;
    /// # use uiap::{config::Config, device::{ClaimId, Device}, wire::DeviceId};
    /// let dev = Device::new(Config::default(), DeviceId::new(1).unwrap(), ChaCha8Rng::seed_from_u64(0));
    /// assert!(dev.claim_info(ClaimId::from_raw(1)).is_none());
    /// ```
    pub fn claim_info(&self, claim: ClaimId) -> Option<ClaimInfo> {
        self.claims.get(&claim).map(Claim::info)
    }

    /// Processes one received datagram: `from` is the receiving interface and the sender's
    /// link-local address. Never panics; anything unusable is counted as a drop. Then poll.
    ///
    /// ```
    /// # use rand_chacha::ChaCha8Rng; use rand_core::SeedableRng;
    /// # use uiap::{config::Config, device::{Device, DropReason, InterfaceId, Peer}, wire::DeviceId, time::Instant};
    /// let mut dev = Device::new(Config::default(), DeviceId::new(1).unwrap(), ChaCha8Rng::seed_from_u64(0));
    /// let from = Peer { interface: InterfaceId(5), addr: "fe80::9".parse().unwrap() };
    /// dev.handle_datagram(Instant::ZERO, from, &[0; 40]);
    /// assert_eq!(dev.counters().dropped(DropReason::UnknownInterface), 1);
    /// assert!(dev.poll_transmit().is_none());
    /// ```
    pub fn handle_datagram(&mut self, now: Instant, from: Peer, bytes: &[u8]) {
        self.counters.datagrams_received += 1;
        self.purge(now);
        if !self.interfaces.contains(&from.interface) {
            self.counters.drop(DropReason::UnknownInterface);
            return;
        }
        // `parse_packet` checks the length: after it, every getter and setter is in bounds.
        let packet = Packet::new_unchecked(bytes);
        let repr = match Repr::parse_packet(&packet) {
            Ok(r) => r,
            Err(e) => {
                self.counters.drop(e.kind());
                return;
            }
        };
        match repr.msg_type {
            MessageType::ClaimAttempt => self.on_attempt(now, from, &packet, repr),
            MessageType::ClaimDeny => self.on_deny(now, &packet, repr),
            MessageType::LossNotice => self.on_notice(now, from, &packet, repr),
        }
    }

    /// Does whatever is due at `now`: sends attempts, ends claim windows, expires and renews
    /// claims. Call it at (or after) [`poll_timeout`](Self::poll_timeout); a call when nothing is
    /// due is a no-op. Then poll.
    ///
    /// ```
    /// # use rand_chacha::ChaCha8Rng; use rand_core::SeedableRng;
    /// # use uiap::{config::Config, device::Device, wire::DeviceId, time::Instant};
    /// let mut dev = Device::new(Config::default(), DeviceId::new(1).unwrap(), ChaCha8Rng::seed_from_u64(0));
    /// dev.handle_timeout(Instant::from_secs(5));
    /// assert!(dev.poll_event().is_none());
    /// ```
    pub fn handle_timeout(&mut self, now: Instant) {
        self.purge(now);
        self.advance_claims(now);
        self.send_due_notice(now);
    }

    fn purge(&mut self, now: Instant) {
        self.table.purge(now);
        self.own.purge(now);
        self.proxies.purge(now);
    }

    /// The next datagram to send, if any. Call it until `None` after every `handle_*`, `claim`,
    /// `renew` or interface change.
    ///
    /// ```
    /// # use rand_chacha::ChaCha8Rng; use rand_core::SeedableRng;
    /// # use uiap::{config::Config, device::Device, wire::DeviceId};
    /// let mut dev = Device::new(Config::default(), DeviceId::new(1).unwrap(), ChaCha8Rng::seed_from_u64(0));
    /// assert!(dev.poll_transmit().is_none());
    /// ```
    #[must_use]
    pub fn poll_transmit(&mut self) -> Option<Transmit> {
        self.transmits.pop_front()
    }

    /// The next event for the application, if any. Call it until `None` after every
    /// `handle_*`, `claim` or `renew`.
    ///
    /// ```
    /// # use rand_chacha::ChaCha8Rng; use rand_core::SeedableRng;
    /// # use uiap::{config::Config, device::Device, wire::DeviceId};
    /// let mut dev = Device::new(Config::default(), DeviceId::new(1).unwrap(), ChaCha8Rng::seed_from_u64(0));
    /// assert!(dev.poll_event().is_none());
    /// ```
    #[must_use]
    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    /// When [`handle_timeout`](Self::handle_timeout) must next be called (`None`: only when
    /// something else happens). Ask again after every other call.
    ///
    /// Expired table records are purged lazily, on the next input, and need no timer.
    ///
    /// ```
    /// # use rand_chacha::ChaCha8Rng; use rand_core::SeedableRng;
    /// # use uiap::{config::Config, device::Device, wire::DeviceId};
    /// let dev = Device::new(Config::default(), DeviceId::new(1).unwrap(), ChaCha8Rng::seed_from_u64(0));
    /// assert_eq!(dev.poll_timeout(), None);
    /// ```
    #[must_use]
    pub fn poll_timeout(&self) -> Option<Instant> {
        self.claims
            .values()
            .filter_map(Claim::deadline)
            .chain(self.notices.due(&self.config))
            .min()
    }

    /// Statistics: messages per type, drops by reason, peak table sizes.
    ///
    /// ```
    /// # use rand_chacha::ChaCha8Rng; use rand_core::SeedableRng;
    /// # use uiap::{config::Config, device::Device, wire::DeviceId};
    /// let dev = Device::new(Config::default(), DeviceId::new(1).unwrap(), ChaCha8Rng::seed_from_u64(0));
    /// assert_eq!(dev.counters().attempts_sent, 0);
    /// ```
    pub fn counters(&self) -> &Counters {
        &self.counters
    }

    /// Remembered Claim-Attempts of other devices right now (expired ones may linger until the
    /// next input).
    ///
    /// ```
    /// # use rand_chacha::ChaCha8Rng; use rand_core::SeedableRng;
    /// # use uiap::{config::Config, device::Device, wire::DeviceId};
    /// let dev = Device::new(Config::default(), DeviceId::new(1).unwrap(), ChaCha8Rng::seed_from_u64(0));
    /// assert_eq!(dev.message_table_len(), 0);
    /// ```
    pub fn message_table_len(&self) -> usize {
        self.table.len()
    }

    /// Claims defended by proxy right now.
    ///
    /// ```
    /// # use rand_chacha::ChaCha8Rng; use rand_core::SeedableRng;
    /// # use uiap::{config::Config, device::Device, wire::DeviceId};
    /// let dev = Device::new(Config::default(), DeviceId::new(1).unwrap(), ChaCha8Rng::seed_from_u64(0));
    /// assert_eq!(dev.proxy_table_len(), 0);
    /// ```
    pub fn proxy_table_len(&self) -> usize {
        self.proxies.len()
    }

    /// The claims this device defends by proxy at `now` (§5.1), in the order they were taken.
    ///
    /// ```
    /// # use rand_chacha::ChaCha8Rng; use rand_core::SeedableRng;
    /// use uiap::device::{Device, InterfaceId, Peer};
    /// use uiap::space::{Uid, UidSpace};
    /// use uiap::wire::{DeviceId, MessageType, Repr};
    /// use uiap::{config::Config, time::Instant};
    ///
    /// let mut dev = Device::new(Config::default(), DeviceId::new(1).unwrap(), ChaCha8Rng::seed_from_u64(0));
    /// dev.add_interface(InterfaceId(1));
    /// let announce = Repr {
    ///     msg_type: MessageType::ClaimAttempt, proxy: true, reclaim: true, hop_limit: 32,
    ///     lifetime: 600, origin: DeviceId::new(9).unwrap(), sequence: 1, claim_ref: 1,
    ///     domain: "fff:0:1:0".parse()?, space: UidSpace::Unique(Uid::from_octets(&[7])?),
    /// };
    /// let from = Peer { interface: InterfaceId(1), addr: "fe80::9".parse()? };
    /// dev.handle_datagram(Instant::ZERO, from, &announce.to_vec());
    /// let proxied: Vec<_> = dev.proxies(Instant::ZERO).collect();
    /// assert_eq!(proxied.len(), 1);
    /// assert_eq!(proxied[0].origin, DeviceId::new(9).unwrap());
    /// assert_eq!(proxied[0].expires, Instant::from_secs(600));
    /// assert_eq!(dev.proxies(Instant::from_secs(600)).count(), 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn proxies(&self, now: Instant) -> impl Iterator<Item = ProxyInfo> + '_ {
        self.proxies.entries(now)
    }

    /// Forgets every claim defended by proxy (an operator's remedy for a forged one); returns how
    /// many there were. Counted in [`Counters::proxies_flushed`].
    ///
    /// ```
    /// # use rand_chacha::ChaCha8Rng; use rand_core::SeedableRng;
    /// # use uiap::{config::Config, device::Device, wire::DeviceId};
    /// let mut dev = Device::new(Config::default(), DeviceId::new(1).unwrap(), ChaCha8Rng::seed_from_u64(0));
    /// assert_eq!(dev.flush_proxies(), 0);
    /// assert_eq!(dev.counters().proxies_flushed, 0);
    /// ```
    pub fn flush_proxies(&mut self) -> usize {
        let n = self.proxies.clear();
        self.counters.proxies_flushed += n as u64;
        n
    }
}
