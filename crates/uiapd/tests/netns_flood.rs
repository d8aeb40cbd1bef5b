//! A flood from a hostile neighbour while honest devices make conflicting claims (design D44,
//! D45): none may be wrongly granted. Needs root and iproute2.
//!
//! Topology: H (the flooder, no daemon) — T (daemon under test) — N (a peer daemon). T holds one
//! range and N another; while H floods T with distinct, well-formed Claim-Attempts, N claims UIDs
//! in T's range (T must deny them, reading N's Attempts from the socket the flood fills) and T
//! claims UIDs in N's range (N's Denies must reach T).

use crate::netns_support;

use std::net::{Ipv6Addr, SocketAddrV6};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use netns_support::{CLAIM_PORT, GROUP, Net, can_run, index_of, ipv6_udp, udp};
use uiap::space::{Uid, UidSpace};

/// The flood must last at least this long ...
const FLOOD: Duration = Duration::from_secs(20);
/// ... at this rate, which the test asserts was reached.
const MIN_RATE: f64 = 50_000.0;
/// The rate the flooder paces itself to (a little above the minimum).
const TARGET_RATE: u64 = 60_000;
/// Conflicting claims per side.
const CLAIMS: u8 = 10;

/// What the flooder did.
struct Flood {
    sent: u64,
    failed: u64,
    elapsed: Duration,
}

/// How the flooder sends.
enum Sender {
    /// A UDP socket: one link-local source address.
    Udp(socket2::Socket),
    /// A raw IPv6 socket that writes the IPv6 and UDP headers itself: a different (forged)
    /// link-local source address for every datagram, cycling through 65,536.
    Spoofing(socket2::Socket),
}

impl Sender {
    fn new(index: u32, spoof: bool) -> Sender {
        if !spoof {
            return Sender::Udp(udp(index, 255, Ipv6Addr::UNSPECIFIED));
        }
        // IPPROTO_RAW on an IPv6 raw socket means the caller writes the IPv6 header.
        let raw = socket2::Socket::new(
            socket2::Domain::IPV6,
            socket2::Type::RAW,
            Some(socket2::Protocol::from(libc::IPPROTO_RAW)),
        )
        .expect("raw socket");
        Sender::Spoofing(raw)
    }

    fn send(&self, index: u32, n: u32, message: &[u8]) -> std::io::Result<usize> {
        match self {
            Sender::Udp(s) => s.send_to(
                message,
                &SocketAddrV6::new(GROUP, CLAIM_PORT, 0, index).into(),
            ),
            Sender::Spoofing(s) => {
                let source = Ipv6Addr::new(0xfe80, 0, 0, 0, 0, 0xbad, 0, n as u16);
                let packet = ipv6_udp(source, GROUP, CLAIM_PORT, message);
                s.send_to(&packet, &SocketAddrV6::new(GROUP, 0, 0, index).into())
            }
        }
    }
}

/// Sends distinct Claim-Attempts (new message IDs, so none is a duplicate) to the group on `h0`
/// at `TARGET_RATE` until `stop`, with hop limit 255, from one link-local source or (`spoof`)
/// from a different one each time.
fn flood(stop: Arc<AtomicBool>, spoof: bool) -> Flood {
    let index = index_of("h0");
    let sender = Sender::new(index, spoof);
    let mut repr = netns_support::hostile_attempt();
    let start = Instant::now();
    let (mut sent, mut failed) = (0u64, 0u64);
    while !stop.load(Ordering::Relaxed) {
        let due = u64::try_from(start.elapsed().as_micros()).unwrap() * TARGET_RATE / 1_000_000;
        if sent + failed >= due {
            std::thread::sleep(Duration::from_micros(500));
            continue;
        }
        for _ in 0..(due - sent - failed).min(1024) {
            repr.sequence = repr.sequence.wrapping_add(1);
            repr.space = UidSpace::Unique(Uid::from_octets(&repr.sequence.to_be_bytes()).unwrap());
            match sender.send(index, repr.sequence, &repr.to_vec()) {
                Ok(_) => sent += 1,
                // ENOBUFS and the like: the datagram never left, so it does not count.
                Err(_) => failed += 1,
            }
        }
    }
    Flood {
        sent,
        failed,
        elapsed: start.elapsed(),
    }
}

#[test]
fn conflicting_claims_are_denied_under_a_flood() {
    if can_run("conflicting_claims_are_denied_under_a_flood") {
        flood_and_claim(false);
    }
}

/// The same flood from a different forged source address for every datagram, which no
/// per-neighbour limit can single out (design D45): the forged addresses share one bucket while
/// T and N, known before the flood, keep their own; T forwards at most `forward_rate` floods a
/// second, so its own Attempts and N's Denies still pass N's limits (design D48).
#[test]
fn conflicting_claims_are_denied_under_a_flood_from_forged_addresses() {
    if can_run("conflicting_claims_are_denied_under_a_flood_from_forged_addresses") {
        flood_and_claim(true);
    }
}

/// Floods T from H (`spoof`: from forged source addresses) for at least `FLOOD` while T and N
/// make conflicting claims, and checks that none was granted.
/// `d` claims UID `uid` of `fff:0:2:0`: the exit code, 0 (granted), 3 (denied) or 1 when the
/// kernel dropped datagrams while it claimed, here or at a device that reported it (design D70,
/// D80: the claim fails closed).
fn claim_under_flood(d: &netns_support::Daemon, uid: &str) -> i32 {
    let (code, out, err) = d.uiap(&["claim", "--domain", "fff:0:2:0", "--uid", uid]);
    let lost = err.contains("dropped by the kernel") || err.contains("reported lost by");
    assert!(
        code == 0 || code == 3 || (code == 1 && lost),
        "uiap claim in {} exited {code}: {out}{err}",
        d.ns
    );
    code
}

fn flood_and_claim(spoof: bool) {
    // One flood at a time: two would share the CPU and measure each other.
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let mut net = Net::hostile();
    net.start_hostile_daemons(&[], &[]);
    let (t, n) = (&net.daemons[0], &net.daemons[1]);
    assert_eq!(t.claim("fff:0:2:0", &["--range", "10-1f"]).0, 0);
    assert_eq!(n.claim("fff:0:2:0", &["--range", "20-2f"]).0, 0);

    let stop = Arc::new(AtomicBool::new(false));
    let flooder = {
        let stop = stop.clone();
        net.spawn_in_ns(0, move || flood(stop, spoof))
    };
    let started = Instant::now();
    std::thread::sleep(Duration::from_secs(1));
    // (claimant, uid, exit code): every claim overlaps the other daemon's range.
    let mut outcomes = Vec::new();
    for i in 0..CLAIMS {
        let into_t = format!("{:02x}", 0x10 + i);
        let into_n = format!("{:02x}", 0x20 + i);
        outcomes.push(("N", into_t.clone(), claim_under_flood(n, &into_t)));
        outcomes.push(("T", into_n.clone(), claim_under_flood(t, &into_n)));
    }
    let claims_done = started.elapsed();
    // The flood outlasts the claims: claims that fail closed take their whole round (D70).
    while started.elapsed() < FLOOD.max(claims_done + Duration::from_secs(1)) {
        std::thread::sleep(Duration::from_millis(50));
    }
    stop.store(true, Ordering::Relaxed);
    let f = flooder.join().expect("flooder");

    let status = t.status();
    let drop = |k: &str| status.drops.get(k).copied().unwrap_or(0);
    let wrongly_granted: Vec<_> = outcomes.iter().filter(|(_, _, code)| *code == 0).collect();
    let rate = f.sent as f64 / f.elapsed.as_secs_f64();
    eprintln!(
        "flood{}: {} datagrams in {:.1} s ({rate:.0}/s, {} send errors); conflicting claims wrongly \
         granted: {} of {}; T dropped {} as rate_limited, {} in the kernel (buffer {:?}), {} as \
         message_table_full; N received {} Attempts",
        if spoof { " from forged addresses" } else { "" },
        f.sent,
        f.elapsed.as_secs_f64(),
        f.failed,
        wrongly_granted.len(),
        outcomes.len(),
        drop("rate_limited"),
        drop("socket_overflow_claim"),
        status.receive_buffers,
        drop("message_table_full"),
        n.counter("attempts_received"),
    );
    // The flood happened as claimed: long enough, fast enough, and around every claim.
    assert!(f.elapsed >= FLOOD, "{:?}", f.elapsed);
    assert!(
        rate >= MIN_RATE,
        "the flood reached only {rate:.0} datagrams/s"
    );
    assert!(claims_done < f.elapsed, "the claims ended after the flood");
    assert!(outcomes.len() >= 20);
    // Dropped before it was parsed: by the rate limit, or by the kernel when T cannot read as
    // fast (and then T's claims fail closed, D70).
    assert!(drop("rate_limited") + drop("socket_overflow_claim") > 0);
    assert!(status.receive_buffers["claim"] > 0);
    // T forwarded at most `forward_rate` floods a second to N (design D48), with slack for the
    // seconds before and after the flood and the claims themselves.
    let forward_rate = f64::from(uiap::config::Config::default().forward_rate);
    let bound = forward_rate * (f.elapsed.as_secs_f64() + 10.0) + 200.0;
    let at_n = n.counter("attempts_received") as f64;
    assert!(at_n < bound, "N received {at_n} Attempts (bound {bound})");
    // Each Attempt T did not forward was answered with a Deny (design D69).
    let answered = status
        .counters
        .get("denies_for_drops")
        .copied()
        .unwrap_or(0);
    assert_eq!(
        answered,
        drop("forward_rate_limited") + drop("message_table_full"),
        "{status:?}"
    );
    // From forged addresses too: T's Denies to them, and the drops, are told to the site in
    // Loss-Notices (D80), so N's claims fail where a Deny of T's may have been lost.
    assert!(
        wrongly_granted.is_empty(),
        "wrongly granted: {wrongly_granted:?}"
    );
}
