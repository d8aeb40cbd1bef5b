//! Site leases (docs/uiap-design.md D49–D57) through daemons without a key, while a host on the
//! link floods the holder: every node is held, a lease on another device tries for one, and no
//! node may be used by two devices at once. Figures are printed: the flood, the drops it caused,
//! the grants, the overlap. The holder is also stopped for a second, as a daemon starved of CPU
//! would be, so that its kernel drops datagrams (D70): its leases must stop before another
//! device's claim of their nodes can succeed. Node IDs are 1 bit wide: two leases hold them
//! all. Needs root and iproute2.

use crate::netns_support;

use std::net::Ipv6Addr;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use netns_support::{Net, can_run, wait_not_tentative};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use uuidkit::node::NodeSource;
use uuidkit_lease::site::{LeaseConfig, SiteLease};

/// A flood: its rate, all sources together, and its forged sources, each under a neighbour's
/// rate limit (1,000 a second, D45), so that only a relay's budget or a kernel drops them.
#[derive(Clone, Copy, Debug)]
struct Flood {
    rate: u64,
    sources: u64,
}

/// The n-th forged source of `sources`.
fn forged(n: u64, sources: u64) -> Ipv6Addr {
    Ipv6Addr::new(0xfe80, 0, 0, 0, 0, 0xbad, 0, (n % sources) as u16)
}

/// A lease's configuration: 1-bit nodes, few tries, no clock wait (the namespaces share this
/// host's clock; without a key the offset must be vouched for, D72).
fn config(control: &Path, attempts: u32) -> LeaseConfig {
    LeaseConfig {
        max_clock_offset: Some(Duration::ZERO),
        attempts,
        backoff: Duration::from_millis(100),
        max_backoff: Duration::from_millis(200),
        answer_limit: Some(Duration::from_secs(10)),
        ..LeaseConfig::new(control.to_path_buf(), 1)
    }
}

/// One device's tenure of a node: while its slot is usable, as often as a generator would check.
struct Tenure {
    device: &'static str,
    node: u64,
    from: Instant,
    to: Instant,
    /// It ended before the test stopped it: the lease was lost.
    lost: bool,
}

/// Holds `lease` until `stop` or until it is lost; the tenure it had.
fn hold(device: &'static str, lease: SiteLease, stop: Arc<AtomicBool>) -> JoinHandle<Tenure> {
    std::thread::spawn(move || {
        let (node, from) = (lease.node().value(), Instant::now());
        let mut to = from;
        while !stop.load(Ordering::Relaxed) && lease.slot().current().is_ok() {
            to = Instant::now();
            std::thread::sleep(Duration::from_millis(1));
        }
        let lost = !stop.load(Ordering::Relaxed);
        let _ = lease.release();
        Tenure {
            device,
            node,
            from,
            to,
            lost,
        }
    })
}

/// Two leases of every node through `control`: the tenures, running.
fn hold_every_node(
    device: &'static str,
    control: &Path,
    stop: &Arc<AtomicBool>,
) -> Vec<JoinHandle<Tenure>> {
    let mut rng = ChaCha20Rng::from_seed([7; 32]);
    let mut held = Vec::new();
    for _ in 0..2 {
        let lease = SiteLease::acquire(&config(control, 8), &mut rng).expect("a free node");
        held.push(hold(device, lease, stop.clone()));
    }
    held
}

/// Milliseconds in which two devices used one node.
fn overlap_ms(tenures: &[Tenure]) -> u128 {
    let mut total = 0;
    for (i, a) in tenures.iter().enumerate() {
        for b in &tenures[i + 1..] {
            if a.device != b.device && a.node == b.node {
                let (from, to) = (a.from.max(b.from), a.to.min(b.to));
                total += to.saturating_duration_since(from).as_millis();
            }
        }
    }
    total
}

/// What one scenario showed.
struct Outcome {
    tenures: Vec<Tenure>,
    /// The claimant's leases granted, and why the others failed.
    grants: usize,
    refusals: Vec<String>,
    /// Floods sent.
    sent: u64,
}

impl Outcome {
    /// The holder's leases that were lost before the test stopped them.
    fn holders_lost(&self) -> usize {
        self.tenures
            .iter()
            .filter(|t| t.device == "holder" && t.lost)
            .count()
    }
}

/// When things happen in a [`scenario`].
#[derive(Clone, Copy, Debug)]
struct Timing {
    /// From the holder's leases to the flood, and from the flood to `during`: a held claim is
    /// told of losses reported within a claim round of its own (D80), and these leases are
    /// meant to be past that.
    settle: Duration,
    /// From `during` to the first try.
    lead: Duration,
}

const TIMING: Timing = Timing {
    settle: Duration::from_millis(500),
    lead: Duration::from_millis(50),
};

/// While the daemon `holder` holds every node for two leases and `flooder` floods on `dev`,
/// `tries` leases through `claimant` try for a node, one after another; `during` runs beside
/// them from `timing.lead` before the first.
fn scenario(
    net: &Net,
    (holder, claimant): (usize, usize),
    (flooder, dev, flood): (usize, &'static str, Flood),
    (tries, timing): (usize, Timing),
    during: impl FnOnce() + Send,
) -> Outcome {
    let stop = Arc::new(AtomicBool::new(false));
    let mut running = hold_every_node("holder", &net.daemons[holder].control, &stop);
    std::thread::sleep(timing.settle);
    let flooding = Arc::new(AtomicBool::new(false));
    let flood = {
        let flooding = flooding.clone();
        let source = move |n| forged(n, flood.sources);
        net.spawn_in_ns(flooder, move || {
            netns_support::spoof_attempts(dev, source, flood.rate, flooding)
        })
    };
    std::thread::sleep(timing.settle);
    let (mut grants, mut refusals) = (0, Vec::new());
    std::thread::scope(|scope| {
        scope.spawn(during);
        std::thread::sleep(timing.lead);
        let mut rng = ChaCha20Rng::from_seed([9; 32]);
        for _ in 0..tries {
            match SiteLease::acquire(&config(&net.daemons[claimant].control, 2), &mut rng) {
                Ok(lease) => {
                    grants += 1;
                    running.push(hold("claimant", lease, stop.clone()));
                }
                Err(e) => refusals.push(format!("{:?}: {e}", e.kind())),
            }
        }
    });
    flooding.store(true, Ordering::Relaxed);
    let (sent, _) = flood.join().expect("flooder");
    std::thread::sleep(Duration::from_millis(500));
    stop.store(true, Ordering::Relaxed);
    let tenures = running
        .into_iter()
        .map(|t| t.join().expect("tenure"))
        .collect();
    Outcome {
        tenures,
        grants,
        refusals,
        sent,
    }
}

/// A — B — C, and H on a link of B's own, each with a daemon but H: the network and the
/// daemons' indices (holder C, relay B, claimant A).
fn relayed_site() -> (Net, (usize, usize, usize)) {
    // A, B, C, H.
    let mut net = Net::new(4);
    net.link(0, "a0", 1, "b0");
    net.link(1, "b1", 2, "c0");
    net.link(3, "h0", 1, "b2");
    let holder = net.start_daemon(2, &[]);
    let relay = net.start_daemon(1, &[]);
    let claimant = net.start_daemon(0, &[]);
    net.daemons[holder].wait_interfaces(1);
    net.daemons[relay].wait_interfaces(3);
    net.daemons[claimant].wait_interfaces(1);
    wait_not_tentative(&net.names[3], "h0");
    (net, (holder, relay, claimant))
}

/// A and B on a LAN with H, the protocol's default timers. A holds every node; H floods A; A is
/// stopped for a second (as a daemon starved of CPU) and its kernel drops datagrams while B's
/// leases try for a node.
#[test]
fn a_holders_kernel_drops_grant_no_lease_its_node() {
    if !can_run("a_holders_kernel_drops_grant_no_lease_its_node") {
        return;
    }
    let started = Instant::now();
    let mut net = Net::lan(4);
    net.start_daemon(1, &[]);
    net.start_daemon(2, &[]);
    for d in &net.daemons {
        d.wait_interfaces(1);
    }
    wait_not_tentative(&net.names[3], "l0");
    let holder = &net.daemons[0];
    let flood = Flood {
        rate: 20_000,
        sources: 32,
    };
    let out = scenario(&net, (0, 1), (3, "l0", flood), (2, TIMING), || {
        assert!(holder.signal(libc::SIGSTOP));
        std::thread::sleep(Duration::from_millis(1_000));
        assert!(holder.signal(libc::SIGCONT));
    });
    let kernel = holder.drops("socket_overflow_claim");
    let overlap = overlap_ms(&out.tenures);
    let lost = out.holders_lost();
    eprintln!(
        "holder flood: {} Attempts ({flood:?}); A's kernel dropped {kernel}, its rate limit {}; \
         B's leases granted {} of 2 ({:?}); A's leases lost: {lost} of 2; overlap {overlap} ms; \
         {:.1} s",
        out.sent,
        holder.drops("rate_limited"),
        out.grants,
        out.refusals,
        started.elapsed().as_secs_f64(),
    );
    assert!(
        kernel > 0,
        "A's kernel dropped nothing: the test means nothing"
    );
    assert_eq!(overlap, 0);
}

/// A relay flooded from forged addresses while a claim crosses it: A — B — C, and H on a link
/// of B's own. C holds every node; H floods B with valid, distinct Attempts from 16 forged
/// sources, each under a neighbour's rate limit, so that B's forwarding budget is spent; A's
/// leases try for a node through B. B answers what it does not forward with a Deny (D69) and
/// its Denies to the forged sources, whose addresses never resolve, must not hold up the rest:
/// A's leases are denied, C's keep their nodes, no node is used twice.
#[test]
fn a_flooded_relay_grants_no_lease_a_node_held_beyond_it() {
    if !can_run("a_flooded_relay_grants_no_lease_a_node_held_beyond_it") {
        return;
    }
    let started = Instant::now();
    let (net, (holder, relay, claimant)) = relayed_site();
    for rate in [1_500, 8_000] {
        let flood = Flood { rate, sources: 16 };
        let b = &net.daemons[relay];
        let (limited, answered) = (
            b.drops("forward_rate_limited"),
            b.counter("denies_for_drops"),
        );
        let timing = Timing {
            settle: Duration::from_secs(4),
            ..TIMING
        };
        let out = scenario(
            &net,
            (holder, claimant),
            (3, "h0", flood),
            (3, timing),
            || {},
        );
        let b = &net.daemons[relay];
        let limited = b.drops("forward_rate_limited") - limited;
        let answered = b.counter("denies_for_drops") - answered;
        let overlap = overlap_ms(&out.tenures);
        let lost = out.holders_lost();
        eprintln!(
            "relay flood: {} Attempts ({flood:?}); B dropped {limited} over its budget and \
             answered {answered}, its kernel dropped {}, {} unicast Denies not sent; A's leases \
             granted {} of 3 ({:?}); C's leases lost: {lost} of 2; overlap {overlap} ms; {:.1} s",
            out.sent,
            b.drops("socket_overflow_claim"),
            b.drops("denies_unsent"),
            out.grants,
            out.refusals,
            started.elapsed().as_secs_f64(),
        );
        assert!(
            limited > 0,
            "B's budget was never spent: the test means nothing"
        );
        assert_eq!(overlap, 0);
        assert_eq!(out.grants, 0, "{:?}", out.refusals);
        assert_eq!(lost, 0);
    }
}

/// A relay whose kernel drops what it cannot read: A — B — C, and H on a link of B's own. C
/// holds every node; H floods B with valid Attempts from 32 forged sources, and B is stopped for
/// 2.5 s (a daemon starved of CPU) while A's lease claims through it, so that B's full receive
/// queue loses A's every Attempt and C never hears of the claim. B tells the site of its losses
/// when it runs again (a Loss-Notice, D80), within A's round: A's claim fails, and no node is
/// used twice. Without the notice A was granted C's node.
#[test]
fn a_relays_kernel_drops_grant_no_lease_a_node_held_beyond_it() {
    if !can_run("a_relays_kernel_drops_grant_no_lease_a_node_held_beyond_it") {
        return;
    }
    let started = Instant::now();
    let (net, (holder, relay, claimant)) = relayed_site();
    let flood = Flood {
        rate: 20_000,
        sources: 32,
    };
    let b = &net.daemons[relay];
    // A's claim starts 0.8 s into the stop, once B's queue is full (its 8 MiB hold about 8,000
    // of these datagrams, 0.4 s of the flood); its three Attempts (0 to 1.25 s later) all meet
    // the full queue, and its round ends at least 0.8 s after B resumes.
    let timing = Timing {
        settle: Duration::from_secs(4),
        lead: Duration::from_millis(800),
    };
    let out = scenario(
        &net,
        (holder, claimant),
        (3, "h0", flood),
        (1, timing),
        || {
            assert!(b.signal(libc::SIGSTOP));
            std::thread::sleep(Duration::from_millis(2_500));
            assert!(b.signal(libc::SIGCONT));
        },
    );
    let (a, c) = (&net.daemons[claimant], &net.daemons[holder]);
    let kernel = b.drops("socket_overflow_claim");
    let overlap = overlap_ms(&out.tenures);
    eprintln!(
        "relay stopped under a flood: {} Attempts ({flood:?}); B's kernel dropped {kernel} and B \
         sent {} Loss-Notices; A heard {}, C heard {}; A's leases granted {} of 1 ({:?}); C's \
         leases lost: {} of 2; overlap {overlap} ms; {:.1} s",
        out.sent,
        b.counter("notices_originated"),
        a.counter("notices_received"),
        c.counter("notices_received"),
        out.grants,
        out.refusals,
        out.holders_lost(),
        started.elapsed().as_secs_f64(),
    );
    assert!(
        kernel > 0,
        "B's kernel dropped nothing: the test means nothing"
    );
    assert_eq!(overlap, 0);
    assert_eq!(out.grants, 0, "{:?}", out.refusals);
    // The lease's answer names its last try; A's log names why the first failed.
    let log = a.log_text();
    assert!(
        log.lines().any(|l| l.contains("claim failed")
            && l.contains("reported lost by")
            && l.contains("(Loss-Notices), while claiming")),
        "A's first claim failed for B's notice:\n{log}"
    );
}
