//! Loss-Notices (docs/uiap-design.md D80): a device that may have lost datagrams floods a notice;
//! every device reports it once and passes it on as it does an Attempt, within bounds, and a
//! notice it cannot pass on is a loss it reports itself.

use core::time::Duration;

use uiap::device::{Destination, Event, InterfaceId, Transmit};
use uiap::time::Instant;
use uiap::wire::{DeviceId, MessageId, MessageType, Repr};

use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;
use uiap::config::Config;
use uiap::device::Device;

use crate::device_support::{config, device, drain, events, peer};

fn notices(out: &[Transmit]) -> Vec<(Destination, Repr)> {
    out.iter()
        .map(|t| (t.destination, Repr::parse(&t.payload).expect("valid")))
        .filter(|(_, r)| r.msg_type == MessageType::LossNotice)
        .collect()
}

#[test]
fn a_reported_loss_goes_out_on_every_interface_and_later_ones_wait_for_the_interval() {
    let mut d = device(1, &[1, 2]);
    let t0 = Instant::from_secs(10);
    d.report_loss(t0, 7, t0 - Duration::from_millis(40));
    let out = notices(&drain(&mut d));
    assert_eq!(
        out.iter().map(|(dest, _)| *dest).collect::<Vec<_>>(),
        [
            Destination::Multicast(InterfaceId(1)),
            Destination::Multicast(InterfaceId(2))
        ]
    );
    let (_, first) = &out[0];
    assert_eq!(first.origin, DeviceId::new(1).unwrap());
    assert_eq!(
        (first.claim_ref, first.lifetime, first.hop_limit),
        (7, 40, 32)
    );
    assert_eq!(
        out[0].1, out[1].1,
        "one flood, the same octets on each link"
    );
    assert_eq!(d.counters().notices_originated, 1);

    // Within the interval: held, summed, and sent when it has passed, spanning from the
    // earliest loss reported.
    d.report_loss(
        t0 + Duration::from_millis(10),
        1,
        t0 + Duration::from_millis(5),
    );
    d.report_loss(
        t0 + Duration::from_millis(30),
        2,
        t0 + Duration::from_millis(30),
    );
    assert!(drain(&mut d).is_empty());
    assert_eq!(d.poll_timeout(), Some(t0 + Duration::from_millis(100)));
    d.handle_timeout(t0 + Duration::from_millis(100));
    let out = notices(&drain(&mut d));
    assert_eq!(out.len(), 2);
    assert_eq!((out[0].1.claim_ref, out[0].1.lifetime), (3, 95));
    assert_ne!(out[0].1.sequence, first.sequence, "a flood of its own");
    assert_eq!(d.poll_timeout(), None, "nothing pending");
}

#[test]
fn a_notice_is_reported_once_and_forwarded_once_with_hop_minus_one() {
    let mut origin = device(1, &[1]);
    let now = Instant::from_secs(10);
    origin.report_loss(now, 3, now - Duration::from_millis(250));
    let bytes = drain(&mut origin).remove(0).payload;

    let mut relay = device(2, &[1, 2, 3]);
    relay.handle_datagram(now, peer(1, 1), &bytes);
    let out = drain(&mut relay);
    let forwarded = notices(&out);
    assert_eq!(
        forwarded.iter().map(|(d, _)| *d).collect::<Vec<_>>(),
        [
            Destination::Multicast(InterfaceId(2)),
            Destination::Multicast(InterfaceId(3))
        ],
        "every interface but the one it came in on"
    );
    assert_eq!(out[0].payload[3], 31);
    let mut unchanged = out[0].payload.clone();
    unchanged[3] = 32;
    assert_eq!(unchanged, bytes, "only the hop limit changes");
    let message = MessageId {
        origin: DeviceId::new(1).unwrap(),
        sequence: Repr::parse(&bytes).unwrap().sequence,
    };
    assert_eq!(
        events(&mut relay),
        [Event::LossReported {
            message,
            lost: 3,
            window: Duration::from_millis(250)
        }]
    );
    // A copy by another path: neither reported nor forwarded again.
    relay.handle_datagram(now, peer(2, 9), &out[0].payload);
    assert!(drain(&mut relay).is_empty());
    assert!(events(&mut relay).is_empty());
    assert_eq!(relay.counters().notices_forwarded, 2);
    assert_eq!(relay.counters().notices_received, 2);

    // The origin hears its own notice back: dropped.
    origin.handle_datagram(now, peer(1, 2), &out[0].payload);
    assert!(events(&mut origin).is_empty());
    assert!(drain(&mut origin).is_empty());
}

#[test]
fn a_notice_at_hop_limit_zero_is_reported_not_forwarded() {
    let mut origin = device(1, &[1]);
    let now = Instant::from_secs(10);
    origin.report_loss(now, 1, now);
    let mut bytes = drain(&mut origin).remove(0).payload;
    bytes[3] = 0;
    let mut relay = device(2, &[1, 2]);
    relay.handle_datagram(now, peer(1, 1), &bytes);
    assert!(drain(&mut relay).is_empty());
    assert_eq!(events(&mut relay).len(), 1);
    assert_eq!(relay.counters().hop_limit_exhausted, 1);
}

#[test]
fn notices_beyond_the_forwarding_budget_are_counted_not_told_again() {
    let mut relay = device(2, &[1, 2]);
    let now = Instant::from_secs(10);
    let rate = relay.config().notice_forward_rate as usize;
    let mut forwarded = 0;
    for n in 0..rate * 4 {
        let mut origin = device(100 + n as u64, &[1]);
        origin.report_loss(now, 1, now);
        let bytes = drain(&mut origin).remove(0).payload;
        relay.handle_datagram(now, peer(1, 1 + (n % 8) as u16), &bytes);
        for (_, r) in notices(&drain(&mut relay)) {
            assert_ne!(r.origin, DeviceId::new(2).unwrap(), "no notice of its own");
            forwarded += 1;
        }
    }
    assert!(
        (rate / 2..=rate * 3 / 2).contains(&forwarded),
        "about the budget's second's worth (each new hop's share comes full): {forwarded}"
    );
    let cut = rate * 4 - forwarded;
    assert_eq!(relay.counters().notices_not_forwarded, cut as u64);
    assert_eq!(relay.counters().notices_originated, 0);
    assert_eq!(relay.poll_timeout(), None, "nothing pending");
    assert_eq!(
        events(&mut relay).len(),
        rate * 4,
        "each reported here all the same"
    );
    // A second on, the budget has refilled: the next is forwarded.
    let later = now + Duration::from_secs(1);
    let mut origin = device(99, &[1]);
    origin.report_loss(later, 1, later);
    let bytes = drain(&mut origin).remove(0).payload;
    relay.handle_datagram(later, peer(1, 1), &bytes);
    assert_eq!(notices(&drain(&mut relay)).len(), 1);
}

/// Devices that each join two links, so every notice is forwarded by all of them, report losses
/// for three seconds, more than the notice budget can forward: the notices stop when the losses
/// do. Twelve devices and a budget of 5 notices a second stand in for a site ten times larger
/// at the default 50. (When a notice cut off was told again as a loss of the relay's own, these
/// devices kept each other's notices going for as long as they ran: 1,368 datagrams in the 3.8 s
/// after the losses stopped.)
#[test]
fn notices_stop_when_the_losses_stop() {
    const DEVICES: u64 = 12;
    let mut devices: Vec<_> = (1..=DEVICES)
        .map(|id| {
            let mut d = Device::new(
                Config {
                    notice_forward_rate: 5,
                    ..config()
                },
                DeviceId::new(id).unwrap(),
                ChaCha8Rng::seed_from_u64(id),
            );
            d.add_interface(InterfaceId(1));
            d.add_interface(InterfaceId(2));
            d
        })
        .collect();
    let step = Duration::from_millis(10);
    let mut now = Instant::from_secs(10);
    let losses_end = now + Duration::from_secs(3);
    let end = now + Duration::from_secs(7);
    let mut sent_after = 0u64;
    while now < end {
        for d in &mut devices {
            if now < losses_end {
                d.report_loss(now, 3, now - step);
            }
            if d.poll_timeout().is_some_and(|t| t <= now) {
                d.handle_timeout(now);
            }
        }
        // Deliver until quiet: every multicast reaches the others on its link at once.
        loop {
            let mut out = Vec::new();
            for (i, d) in devices.iter_mut().enumerate() {
                for t in drain(d) {
                    if now >= losses_end + Duration::from_millis(200) {
                        sent_after += 1;
                    }
                    out.push((i, t));
                }
            }
            if out.is_empty() {
                break;
            }
            for (from, t) in out {
                let Destination::Multicast(iface) = t.destination else {
                    continue;
                };
                for (i, d) in devices.iter_mut().enumerate() {
                    if i != from {
                        d.handle_datagram(now, peer(iface.0, from as u16 + 1), &t.payload);
                    }
                }
            }
        }
        for d in &mut devices {
            events(d);
        }
        now += step;
    }
    let cut: u64 = devices
        .iter()
        .map(|d| d.counters().notices_not_forwarded)
        .sum();
    assert!(cut > 0, "no notice was cut off: the test means nothing");
    assert_eq!(sent_after, 0, "notices went on after the losses stopped");
}

#[test]
fn a_device_without_interfaces_sends_no_notice() {
    let mut d = device(1, &[]);
    d.report_loss(Instant::from_secs(1), 5, Instant::ZERO);
    assert!(drain(&mut d).is_empty());
    assert_eq!(d.poll_timeout(), None);
    assert_eq!(d.counters().notices_originated, 0);
}

#[test]
fn a_deny_naming_a_notice_goes_nowhere() {
    let mut origin = device(1, &[1]);
    let now = Instant::from_secs(10);
    origin.report_loss(now, 1, now);
    let bytes = drain(&mut origin).remove(0).payload;
    let mut relay = device(2, &[1, 2]);
    relay.handle_datagram(now, peer(1, 1), &bytes);
    drain(&mut relay);
    events(&mut relay);
    let mut deny = bytes.clone();
    // Type 1 with the notice's message ID: its record is marked answered, so this is a second
    // Deny, and no claim is named that it could fail.
    deny[1] = 0x10;
    relay.handle_datagram(now, peer(2, 5), &deny);
    assert!(drain(&mut relay).is_empty());
    assert!(events(&mut relay).is_empty());
}
