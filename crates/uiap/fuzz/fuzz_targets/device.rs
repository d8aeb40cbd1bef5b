//! Fuzz the device: fed arbitrary datagrams it never panics, and each datagram in produces at most
//! (interfaces − 1) multicasts plus one unicast.
//!
//! Input: a sequence of records `[selector, len, bytes…]`; the selector picks the arrival
//! interface (low 2 bits: 1–3, or 0 for an unknown one) and how far the clock advances.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;
use uiap::config::Config;
use uiap::device::{ClaimSpec, Destination, Device, InterfaceId, Peer};
use uiap::space::{DomainId, Uid, UidSpace};
use uiap::time::Instant;
use uiap::wire::DeviceId;

const IFACES: u32 = 3;

fuzz_target!(|data: &[u8]| {
    let config = Config {
        message_table_capacity: 64,
        proxy_capacity: 8,
        ..Config::default()
    };
    let mut dev = Device::new(
        config,
        DeviceId::new(0x0211_2233_4455_6677).unwrap(),
        ChaCha8Rng::seed_from_u64(0),
    );
    for i in 1..=IFACES {
        dev.add_interface(InterfaceId(i));
    }
    let domain = DomainId::from_bytes([0, 1, 0, 2, 0, 3, 0, 0]);
    // A held claim (192.168/16) and one in progress, so Denies and simultaneous claims are reachable.
    let _ = dev.claim(
        Instant::ZERO,
        ClaimSpec::new(
            domain,
            UidSpace::Prefix(Uid::new(&[0xc0, 0xa8], 16).unwrap()),
        )
        .proxy(true),
    );
    let mut now = Instant::ZERO;
    while let Some(t) = dev.poll_timeout() {
        if t > Instant::from_secs(3) {
            break;
        }
        now = t;
        dev.handle_timeout(now);
    }
    let _ = dev.claim(
        now,
        ClaimSpec::new(domain, UidSpace::Unique(Uid::from_octets(&[0x2a]).unwrap())).lifetime(60),
    );
    while dev.poll_transmit().is_some() {}
    let mut rest = data;
    while let [selector, len, tail @ ..] = rest {
        let n = usize::from(*len).min(tail.len());
        let (bytes, next) = tail.split_at(n);
        rest = next;
        now += core::time::Duration::from_millis(u64::from(selector >> 2) * 37);
        let from = Peer {
            interface: InterfaceId(u32::from(selector & 3)),
            addr: std::net::Ipv6Addr::new(0xfe80, 0, 0, 0, 0, 0, 0, u16::from(*selector)),
        };
        dev.handle_datagram(now, from, bytes);
        let (mut multi, mut uni) = (0, 0);
        while let Some(t) = dev.poll_transmit() {
            match t.destination {
                Destination::Multicast(_) => multi += 1,
                Destination::Unicast(_) => uni += 1,
            }
        }
        assert!(
            multi <= IFACES - 1 && uni <= 1,
            "{multi} multicasts, {uni} unicasts for one datagram"
        );
        while dev.poll_event().is_some() {}
        if selector & 0x80 != 0 {
            dev.handle_timeout(now);
            while dev.poll_transmit().is_some() {}
            while dev.poll_event().is_some() {}
        }
    }
});
