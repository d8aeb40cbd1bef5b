//! Loss-Notices (docs/uiap-design.md D80): a device that may have lost datagrams says so to the
//! site, and passes on what others say.
//!
//! UIAP takes silence as consent. A device that lost datagrams cannot tell which: an Attempt it
//! never read was never forwarded or denied, a Deny it never read never reached its claimant.
//! The claimant may be links away and hears only silence, so the loss is flooded, as an Attempt
//! is, and every device it reaches learns that claims in their rounds cannot trust the silence.
//! What a claim makes of it is the application's choice ([`Event::LossReported`]); uiapd fails
//! the claims in their rounds.
//!
//! Bounds: a device originates at most one notice per [`Config::loss_notice_interval`], with the
//! losses since the last one, and only for losses of its own; it forwards at most
//! [`Config::notice_forward_rate`] notices a second, shared fairly among previous hops. A notice
//! it cannot forward is counted, not told again: while it cuts some off it forwards others, and
//! any notice fails the claims in their rounds that it reaches. So notices cost each device a
//! bounded rate, and stop when the losses stop.

use core::time::Duration;
use std::collections::VecDeque;

use rand_core::Rng;

use super::budget::ForwardBudget;
use super::{Destination, Device, DropReason, Event, Peer, Transmit};
use crate::config::Config;
use crate::space::{DomainId, Uid, UidSpace};
use crate::time::Instant;
use crate::wire::{MessageType, Packet, Repr};

/// The longest span of losses a notice reports: 30 s, the default message TTL, far beyond any
/// claim round the losses could still affect. A wire constant, not a setting: every device
/// reads the span the same way.
pub(crate) const MAX_WINDOW: Duration = Duration::from_secs(30);

/// Losses not yet reported: how many, and since when.
#[derive(Clone, Copy, Debug)]
struct Pending {
    lost: u64,
    since: Instant,
}

/// The notice state of one device.
#[derive(Debug)]
pub(crate) struct Notices {
    pending: Option<Pending>,
    last_sent: Option<Instant>,
    /// Our own notices by sequence number, until they can no longer come back.
    own: VecDeque<(u32, Instant)>,
    forward: ForwardBudget,
}

impl Notices {
    pub(crate) fn new(config: &Config) -> Notices {
        Notices {
            pending: None,
            last_sent: None,
            own: VecDeque::new(),
            forward: ForwardBudget::new(config.notice_forward_rate),
        }
    }

    /// When the pending losses may be reported, if any are pending.
    pub(crate) fn due(&self, config: &Config) -> Option<Instant> {
        self.pending?;
        Some(
            self.last_sent
                .map_or(Instant::ZERO, |t| t + config.loss_notice_interval),
        )
    }

    fn is_own(&self, sequence: u32) -> bool {
        self.own.iter().any(|&(s, _)| s == sequence)
    }

    fn purge(&mut self, now: Instant) {
        while self.own.front().is_some_and(|&(_, until)| until <= now) {
            self.own.pop_front();
        }
    }
}

impl<R: Rng> Device<R> {
    /// Reports that this device may have lost `lost` datagrams between `since` and `now`: its
    /// receive queue overflowed, a rate limit dropped them, or Claim-Denies could not be sent
    /// (docs/uiap-design.md D80). A Loss-Notice goes out on every interface at once, or, within
    /// [`Config::loss_notice_interval`] of the last one, when that has passed (with every loss
    /// reported meanwhile; [`poll_timeout`](Self::poll_timeout) says when). Then poll.
    ///
    /// ```
    /// # use rand_chacha::ChaCha8Rng; use rand_core::SeedableRng;
    /// use core::time::Duration;
    /// use uiap::device::{Destination, Device, InterfaceId};
    /// use uiap::wire::{DeviceId, MessageType, Repr};
    /// use uiap::{config::Config, time::Instant};
    ///
    /// let mut dev = Device::new(Config::default(), DeviceId::new(1).unwrap(), ChaCha8Rng::seed_from_u64(0));
    /// dev.add_interface(InterfaceId(1));
    /// let now = Instant::from_millis(1_500);
    /// dev.report_loss(now, 40, Instant::from_millis(1_200));
    /// let t = dev.poll_transmit().expect("a notice");
    /// assert_eq!(t.destination, Destination::Multicast(InterfaceId(1)));
    /// let notice = Repr::parse(&t.payload)?;
    /// assert_eq!(notice.msg_type, MessageType::LossNotice);
    /// assert_eq!((notice.claim_ref, notice.lifetime), (40, 300)); // 40 lost within 300 ms
    ///
    /// // More losses within the interval wait for it, and go out together.
    /// dev.report_loss(now, 2, now);
    /// dev.report_loss(now, 3, now);
    /// assert!(dev.poll_transmit().is_none());
    /// let due = dev.poll_timeout().expect("the next notice is due");
    /// assert_eq!(due - now, Duration::from_millis(100));
    /// dev.handle_timeout(due);
    /// assert_eq!(Repr::parse(&dev.poll_transmit().unwrap().payload)?.claim_ref, 5);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn report_loss(&mut self, now: Instant, lost: u64, since: Instant) {
        if lost == 0 {
            return;
        }
        let since = since.min(now);
        let pending = self
            .notices
            .pending
            .get_or_insert(Pending { lost: 0, since });
        pending.lost = pending.lost.saturating_add(lost);
        pending.since = pending.since.min(since);
        self.send_due_notice(now);
    }

    /// Sends the pending notice if its time has come.
    pub(crate) fn send_due_notice(&mut self, now: Instant) {
        self.notices.purge(now);
        if self.notices.due(&self.config).is_none_or(|t| t > now) {
            return;
        }
        let Some(pending) = self.notices.pending.take() else {
            return;
        };
        self.notices.last_sent = Some(now);
        if self.interfaces.is_empty() {
            // A site of one: nobody to tell, and no claim beyond this device to fail.
            return;
        }
        let sequence = self.next_sequence;
        self.next_sequence = self.next_sequence.wrapping_add(1);
        let window = (now - pending.since).min(MAX_WINDOW);
        let repr = Repr {
            msg_type: MessageType::LossNotice,
            proxy: false,
            reclaim: false,
            hop_limit: self.config.hop_limit,
            // MAX_WINDOW is 30 s: the milliseconds fit.
            lifetime: window.as_millis() as u32,
            origin: self.device_id,
            sequence,
            claim_ref: u32::try_from(pending.lost).unwrap_or(u32::MAX),
            domain: DomainId::from_bytes([0; 8]),
            space: UidSpace::Unique(Uid::empty()),
        };
        let payload = repr.to_vec();
        self.notices
            .own
            .push_back((sequence, now + self.config.message_ttl));
        self.counters.notices_originated += 1;
        for &iface in &self.interfaces {
            self.transmits.push_back(Transmit {
                destination: Destination::Multicast(iface),
                payload: payload.clone(),
            });
        }
    }

    /// A Loss-Notice from `from`: reported to the application once, and passed on as Attempts
    /// are (docs/uiap-design.md D80).
    pub(crate) fn on_notice(
        &mut self,
        now: Instant,
        from: Peer,
        packet: &Packet<&[u8]>,
        repr: Repr,
    ) {
        self.counters.notices_received += 1;
        let id = repr.message_id();
        if self.is_own(repr.origin) && self.notices.is_own(repr.sequence) {
            self.counters.drop(DropReason::OwnLoop);
            return;
        }
        // The record keeps copies from being taken for new notices. No Deny answers a notice:
        // marked as answered, a Deny naming it is a second one and goes nowhere.
        let Some(recorded) = self.remember(now, from, &repr, true) else {
            return;
        };
        self.events.push_back(Event::LossReported {
            message: id,
            lost: repr.claim_ref,
            window: Duration::from_millis(u64::from(repr.lifetime)).min(MAX_WINDOW),
        });
        let h = repr.hop_limit.min(self.config.hop_limit);
        if h == 0 {
            self.counters.hop_limit_exhausted += 1;
            return;
        }
        if !self.interfaces.iter().any(|&i| i != from.interface) {
            return;
        }
        if !recorded || !self.notices.forward.take(now, from) {
            // Not a loss of this device's own: telling it would start a notice of its own for
            // each one cut off, and once a few devices cut off each other's, the notices would
            // go on after every loss had stopped. Nothing is lost by the cut: the notices it
            // does forward meanwhile (the budget's share at least) reach the same claims and
            // fail them in their rounds (docs/uiap-design.md D80).
            self.counters.notices_not_forwarded += 1;
            return;
        }
        self.counters.notices_forwarded += self.pass_on(from, packet, h);
    }
}
