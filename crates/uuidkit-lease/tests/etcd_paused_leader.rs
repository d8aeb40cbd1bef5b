//! The etcd leader cut off from its peers and paused (SIGSTOP) while they elect another, then
//! continued while still cut off, against a real three-member etcd whose member 0 runs in a
//! network namespace of its own. Resumed, that member still believes it leads until it next
//! counts an election timeout without hearing from a majority, and meanwhile renews leases
//! locally, answering keep-alives in its old raft term.
//!
//! Holder A reaches the cluster through member 0 only, which is made the leader first. Holder B
//! reaches it through the two other members and takes A's node once the new leader has let A's
//! lease expire. Each holder makes UUIDs with the node, about one a millisecond, with its
//! lease's pair clock. The checker reads them back, as the fleet checker does: a UUID carries
//! its node and its millisecond, a tenure spans its UUIDs' milliseconds, and two tenures of one
//! node that share even one millisecond are two holders at once. With each renewal counted only
//! once a transaction committed in the keep-alive's term proves the leader still led, the
//! tenures do not meet. The negative control trusts a keep-alive's answer alone, and finds them
//! overlapping.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use test_support::db::EtcdCluster;
use test_support::netns::Namespace;
use test_support::turn::Turn;
use uuidkit::node::NodeSource;
use uuidkit::rng::ThreadRng;
use uuidkit::{Generator, V8Distributed};
use uuidkit_lease::etcd::{EtcdConfig, EtcdLease};
use uuidkit_lease::{LeaseSlot, Testing};

/// The lease's TTL. A's keep-alives go out every third of it.
const TTL: Duration = Duration::from_secs(10);
/// How long member 0 stays stopped: longer than an election of the others (1 to 2 s), shorter
/// than A's lease has left on member 0's own clock (the test cuts right after a renewal), so
/// that on resuming it still finds the lease alive and renews it.
const PAUSE: Duration = Duration::from_secs(6);
/// The node space: two nodes, one held by a third lease throughout, so B can take only A's.
const BITS: u8 = 1;

fn config(endpoints: Vec<String>, prefix: &str, testing: Testing) -> EtcdConfig {
    EtcdConfig {
        timing: uuidkit_lease::Timing {
            ttl: TTL,
            answer_limit: Duration::from_secs(1),
            ..uuidkit_lease::Timing::default()
        },
        testing,
        ..EtcdConfig::new(endpoints, prefix, BITS)
    }
}

/// Makes member `to` of `endpoints` the leader (etcd's move-leader, asked of the leader), and
/// waits until it says it leads.
fn lead(endpoints: &[String], to: usize) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let start = Instant::now();
        loop {
            assert!(
                start.elapsed() < Duration::from_secs(15),
                "member {to} never became the leader"
            );
            let mut ids = Vec::new();
            let mut leader = 0;
            for e in endpoints {
                let mut c = etcd_client::Client::connect([e], None).await.unwrap();
                let s = c.status().await.unwrap();
                ids.push(s.header().unwrap().member_id());
                leader = s.leader();
            }
            if leader == ids[to] {
                return;
            }
            if let Some(i) = ids.iter().position(|&id| id == leader) {
                let mut c = etcd_client::Client::connect([&endpoints[i]], None)
                    .await
                    .unwrap();
                let _ = c.move_leader(ids[to]).await;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    });
}

/// A generator on `slot`'s pair clock and source.
fn paired(slot: &Arc<LeaseSlot>) -> impl Generator + Send + 'static {
    let (clock, source) = slot.pair();
    let built = V8Distributed::builder()
        .node_source(source)
        .build(clock, ThreadRng);
    built.unwrap()
}

/// Makes UUIDs with `g`, about one a millisecond, until `stop`: every UUID made (an error, once
/// the node is lost, makes none), and when the last was made.
fn generate(
    mut g: impl Generator + Send + 'static,
    stop: Arc<AtomicBool>,
) -> JoinHandle<(Vec<u128>, Instant)> {
    std::thread::spawn(move || {
        let (mut made, mut last) = (Vec::new(), Instant::now());
        while !stop.load(Ordering::Relaxed) {
            if let Ok(u) = g.generate() {
                made.push(u.as_u128());
                last = Instant::now();
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        (made, last)
    })
}

fn node_of(u: u128) -> u128 {
    (((u >> 64) & 0x0FFF) << 62 | (u & ((1 << 62) - 1))) >> (74 - u32::from(BITS))
}

/// The endpoints holder A is given.
#[derive(Clone, Copy, Debug, PartialEq)]
enum AReaches {
    /// Member 0's only.
    One,
    /// All three, member 0's first: the client may send A's keep-alives to any of them.
    All,
}

/// What the checker found over A's and B's tenures.
#[derive(Debug)]
struct Report {
    /// Whether B was granted the node at all: with every endpoint, A may go on renewing
    /// through a member that still leads, and then rightly keeps it.
    handed_over: bool,
    uuids: (usize, usize),
    /// Milliseconds both tenures' spans cover; negative: the gap between them. None when B
    /// made no UUID.
    overlap_ms: Option<i128>,
    /// (node, ms) pairs used by both.
    shared: usize,
    /// The longest A went without a UUID, in ms: a renewal not confirmed in time stops it.
    a_longest_gap_ms: u128,
    /// When, after the cut, A made its last UUID, and B was granted the node.
    a_last: Duration,
    b_granted: Duration,
}

fn check(a: &[u128], b: &[u128]) -> (i128, usize) {
    let span = |v: &[u128]| {
        let ms = v.iter().map(|&u| u >> 80);
        (ms.clone().min().unwrap() as i128, ms.max().unwrap() as i128)
    };
    let ((a0, a1), (b0, b1)) = (span(a), span(b));
    let pairs = |v: &[u128]| -> BTreeSet<(u128, u128)> {
        v.iter().map(|&u| (node_of(u), u >> 80)).collect()
    };
    (
        a1.min(b1) - a0.max(b0) + 1,
        pairs(a).intersection(&pairs(b)).count(),
    )
}

/// What the checker finds in A's and B's UUIDs (`handed_over`: B was granted the node).
fn report(
    node: u128,
    a_made: &[u128],
    a_last: Duration,
    b_made: &[u128],
    handed_over: bool,
    b_granted: Duration,
) -> Report {
    assert!(
        a_made.iter().chain(b_made).all(|&u| node_of(u) == node),
        "one node"
    );
    assert!(
        !a_made.is_empty() && (!handed_over || !b_made.is_empty()),
        "A made {} UUIDs, B {}",
        a_made.len(),
        b_made.len()
    );
    let (overlap_ms, shared) = if b_made.is_empty() {
        (None, 0)
    } else {
        let (o, s) = check(a_made, b_made);
        (Some(o), s)
    };
    let a_longest_gap_ms = a_made
        .windows(2)
        .map(|w| (w[1] >> 80).saturating_sub(w[0] >> 80))
        .max()
        .unwrap_or(0);
    Report {
        handed_over,
        a_longest_gap_ms,
        uuids: (a_made.len(), b_made.len()),
        overlap_ms,
        shared,
        a_last,
        b_granted,
    }
}

/// The run: A on member 0 only or on all three (switches `testing`), B on the two others;
/// member 0 cut off and stopped for `PAUSE`, continued while still cut off; until A has lost
/// its node and B holds it, or (A on all three) A has renewed its lease through another member
/// for two TTLs after the cut and B was never granted it.
fn paused_leader_run(test: &str, testing: Testing, reach: AReaches) -> Option<Report> {
    let prerequisites = test_support::all([
        test_support::root(),
        test_support::command("ip", &["-V"]),
        test_support::command("nft", &["--version"]),
    ]);
    if !test_support::require(test, prerequisites) {
        return None;
    }
    let ns = Namespace::create();
    let cluster = match EtcdCluster::start_split(&ns) {
        Ok(c) => c,
        Err(e) => {
            test_support::skip(test, e);
            return None;
        }
    };
    let endpoints = cluster.endpoints();
    lead(&endpoints, 0);
    let prefix = format!("/paused/{test}");
    let others = endpoints[1..].to_vec();
    let a_endpoints = match reach {
        AReaches::One => vec![endpoints[0].clone()],
        AReaches::All => endpoints.clone(),
    };
    let a = EtcdLease::acquire(&config(a_endpoints, &prefix, testing), &mut ThreadRng).unwrap();
    let _third = EtcdLease::acquire(
        &config(others.clone(), &prefix, Testing::default()),
        &mut ThreadRng,
    )
    .unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let a_made = generate(paired(a.slot()), stop.clone());
    // Cut right after a renewal: member 0 then holds A's lease for most of a TTL.
    let before = a.slot().deadline();
    let start = Instant::now();
    while a.slot().deadline() == before {
        assert!(start.elapsed() < TTL, "A's lease was not renewed");
        std::thread::sleep(Duration::from_millis(1));
    }
    let port = endpoints[0].rsplit(':').next().unwrap().parse().unwrap();
    ns.cut(Some(port));
    cluster.signal(0, libc::SIGSTOP);
    let cut = Instant::now();
    let b_config = config(others, &prefix, Testing::default());
    let taker = std::thread::spawn(move || {
        loop {
            if let Ok(l) = EtcdLease::acquire(&b_config, &mut ThreadRng) {
                return Some((l, cut.elapsed()));
            }
            if cut.elapsed() >= TTL * 2 {
                return None;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    });
    std::thread::sleep(PAUSE);
    cluster.signal(0, libc::SIGCONT);
    let taken = taker.join().unwrap();
    if taken.is_none() {
        assert_eq!(reach, AReaches::All, "B never took a node");
        assert!(
            a.source().current().is_ok(),
            "A lost its node, B never had it"
        );
    }
    let (b_made, b_granted) = match &taken {
        Some((b, granted)) => {
            assert_eq!(b.node().value(), a.node().value(), "B took A's node");
            (Some(generate(paired(b.slot()), stop.clone())), *granted)
        }
        None => (None, cut.elapsed()),
    };
    while taken.is_some() && a.source().current().is_ok() {
        assert!(cut.elapsed() < TTL * 3, "A never lost its node");
        std::thread::sleep(Duration::from_millis(1));
    }
    std::thread::sleep(Duration::from_millis(300));
    stop.store(true, Ordering::Relaxed);
    let (a_made, a_last) = a_made.join().unwrap();
    let b_made = b_made.map_or_else(Vec::new, |b| b.join().unwrap().0);
    ns.heal();
    let node = u128::from(a.node().value());
    let report = report(
        node,
        &a_made,
        a_last - cut,
        &b_made,
        taken.is_some(),
        b_granted,
    );
    eprintln!("{test}: {report:?}");
    Some(report)
}

#[test]
fn a_paused_leader_cut_off_from_its_peers_never_gives_a_node_two_holders() {
    let _turn = Turn::of_caller();
    let Some(r) = paused_leader_run("etcd_paused_leader", Testing::default(), AReaches::One) else {
        return;
    };
    // Both held the node for a while: A until its deadline, B for the last 300 ms.
    assert!(r.uuids.0 > 1_000 && r.uuids.1 > 100, "{r:?}");
    assert!(r.overlap_ms.is_some_and(|o| o <= 0), "{r:?}");
    assert_eq!(r.shared, 0, "{r:?}");
    assert!(r.a_last < r.b_granted, "{r:?}");
}

#[test]
fn trusting_its_keep_alive_answers_gives_a_node_two_holders() {
    let _turn = Turn::of_caller();
    let testing = Testing {
        no_leader_check: true,
        ..Testing::default()
    };
    let Some(r) = paused_leader_run("etcd_paused_leader_control", testing, AReaches::One) else {
        return;
    };
    assert!(
        r.overlap_ms.is_some_and(|o| o > 0),
        "the negative control found no overlap: {r:?}"
    );
    assert!(r.a_last > r.b_granted, "{r:?}");
}

/// A given every endpoint, member 0's first. Whether its client sends its keep-alives to the
/// cut-off member or to one that still leads is the client's choice: either A renews through a
/// leader and keeps its node (B is never granted it), or its renewals fail to be confirmed and
/// B is granted the node only after A's last UUID. Never both at once.
#[test]
fn with_every_endpoint_a_paused_leader_never_gives_a_node_two_holders() {
    let _turn = Turn::of_caller();
    let Some(r) = paused_leader_run("etcd_paused_leader_all", Testing::default(), AReaches::All)
    else {
        return;
    };
    assert!(r.uuids.0 > 1_000, "{r:?}");
    if r.handed_over {
        assert!(r.uuids.1 > 100, "{r:?}");
        assert!(r.overlap_ms.is_some_and(|o| o <= 0), "{r:?}");
        assert_eq!(r.shared, 0, "{r:?}");
        assert!(r.a_last < r.b_granted, "{r:?}");
    } else {
        // A held the node throughout, through a member that still led: it made UUIDs up to
        // the end of the run without a stop (one renewal sent to the stale leader costs a
        // retry, not the deadline).
        assert!(r.a_last > TTL * 2 - Duration::from_secs(1), "{r:?}");
        assert!(r.a_longest_gap_ms < 1_000, "{r:?}");
    }
}
