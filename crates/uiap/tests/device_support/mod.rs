//! Helpers shared by the device tests: a device with chosen interfaces, neighbours, and draining
//! what it sends and reports.
#![allow(dead_code)]

use core::time::Duration;

use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;
use uiap::config::Config;
use uiap::device::{Device, Event, InterfaceId, Peer, Transmit};
use uiap::space::{DomainId, Uid, UidSpace};
use uiap::time::Instant;
use uiap::wire::{DeviceId, MessageType, Repr};

pub const DOMAIN: DomainId = DomainId::from_bytes([0x0f, 0xff, 0, 0, 0, 1, 0, 0]);

pub fn uid(b: &[u8]) -> Uid {
    Uid::from_octets(b).unwrap()
}

pub fn unique(b: u8) -> UidSpace {
    UidSpace::Unique(uid(&[b]))
}

/// The default configuration without the random start delay.
pub fn config() -> Config {
    Config {
        start_jitter: Duration::ZERO,
        ..Config::default()
    }
}

/// A device with `config()`, device ID `id` (also its RNG seed) and these interfaces.
pub fn device(id: u64, ifaces: &[u32]) -> Device<ChaCha8Rng> {
    let mut d = Device::new(
        config(),
        DeviceId::new(id).unwrap(),
        ChaCha8Rng::seed_from_u64(id),
    );
    for &i in ifaces {
        d.add_interface(InterfaceId(i));
    }
    d
}

/// The neighbour `fe80::LAST` on interface `iface`.
pub fn peer(iface: u32, last: u16) -> Peer {
    Peer {
        interface: InterfaceId(iface),
        addr: std::net::Ipv6Addr::new(0xfe80, 0, 0, 0, 0, 0, 0, last),
    }
}

pub fn drain<R: rand_core::Rng>(d: &mut Device<R>) -> Vec<Transmit> {
    std::iter::from_fn(|| d.poll_transmit()).collect()
}

pub fn events<R: rand_core::Rng>(d: &mut Device<R>) -> Vec<Event> {
    std::iter::from_fn(|| d.poll_event()).collect()
}

/// Runs timers until `end`, returning (time, transmit) pairs.
pub fn run<R: rand_core::Rng>(d: &mut Device<R>, end: Instant) -> Vec<(Instant, Transmit)> {
    let mut out = Vec::new();
    while let Some(t) = d.poll_timeout() {
        if t > end {
            break;
        }
        d.handle_timeout(t);
        out.extend(drain(d).into_iter().map(|x| (t, x)));
    }
    out
}

/// A Claim-Attempt of `origin` for `space` in [`DOMAIN`].
pub fn attempt(origin: u64, seq: u32, space: UidSpace, reclaim: bool, hop: u8) -> Repr {
    Repr {
        msg_type: MessageType::ClaimAttempt,
        proxy: false,
        reclaim,
        hop_limit: hop,
        lifetime: 3600,
        origin: DeviceId::new(origin).unwrap(),
        sequence: seq,
        claim_ref: 0xdead_beef,
        domain: DOMAIN,
        space,
    }
}
