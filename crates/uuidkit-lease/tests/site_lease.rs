//! `SiteLease` (docs/uiap-design.md D49–D52) against a scripted control server, which answers
//! claims as a test says and sends events on the held claim's connection, and against a real
//! `uiapd` running as a site of one (no root, no namespaces).

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use test_support::turn::Turn;
use test_support::uiapd::{FAST_TIMERS, SiteOfOne};
use uiap::space::{DomainId, UidSpace};
use uiap_control::{
    AuthFailures, ClaimAnswer, ClaimEvent, ClaimRequest, ClaimState, ClaimView, Client, EventKind,
    Hold, Request, Response, SpaceText,
};
use uuidkit::node::{NodeLostKind, NodeSource};
use uuidkit_lease::LeaseErrorKind;
use uuidkit_lease::site::{DEFAULT_NODE_DOMAIN, LeaseConfig, SiteLease, node_of_uid};

/// What the scripted server does with each claim, in order.
#[derive(Clone, Copy, Debug)]
enum Answer {
    Deny,
    Claim,
    /// Claimed, but in conflict by the time the watch answers.
    ClaimThenConflict,
}

/// A control server on a Unix socket in a temporary directory. Every request is recorded; the
/// connection of a held claim is handed to the test, which writes events on it or drops it.
struct Script {
    _dir: tempfile::TempDir,
    path: PathBuf,
    requests: Arc<Mutex<Vec<Request>>>,
    held: mpsc::Receiver<UnixStream>,
    /// What a `list` answers: the claims granted, as the test leaves them.
    listed: Arc<Mutex<Vec<ClaimView>>>,
    /// While set, a `list` is read and never answered, as by a stopped daemon.
    frozen: Arc<AtomicBool>,
    /// While set, a `release` is read and never answered.
    muted: Arc<AtomicBool>,
}

fn line(stream: &mut UnixStream, r: &Response) {
    let mut text = serde_json::to_string(r).unwrap();
    text.push('\n');
    let _ = stream.write_all(text.as_bytes());
}

fn view(id: u64, domain: &str, space: &SpaceText, state: ClaimState) -> ClaimView {
    ClaimView {
        id,
        domain: domain.into(),
        space: space.clone(),
        lifetime: 20,
        proxy: false,
        renew: true,
        state,
        expires_in: Some(20),
    }
}

impl Script {
    fn new(answers: Vec<Answer>) -> Script {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("control.sock");
        let listener = UnixListener::bind(&path).unwrap();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let (held_tx, held) = mpsc::channel();
        let recorded = requests.clone();
        let listed = Arc::new(Mutex::new(Vec::new()));
        let frozen = Arc::new(AtomicBool::new(false));
        let muted = Arc::new(AtomicBool::new(false));
        let (list, freeze, mute) = (listed.clone(), frozen.clone(), muted.clone());
        std::thread::spawn(move || {
            let mut unanswered = Vec::new();
            let mut answers = answers.into_iter();
            let mut next_id = 1;
            for stream in listener.incoming() {
                let Ok(stream) = stream else { return };
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut stream = stream;
                let mut text = String::new();
                while reader.read_line(&mut text).unwrap_or(0) > 0 {
                    let request: Request = serde_json::from_str(&text).unwrap();
                    text.clear();
                    recorded.lock().unwrap().push(request.clone());
                    match request {
                        Request::Claim(ClaimRequest { domain, space, .. }) => {
                            let id = next_id;
                            next_id += 1;
                            let answer = answers.next().unwrap_or(Answer::Deny);
                            let r = match answer {
                                Answer::Deny => ClaimAnswer::Denied {
                                    claim: view(id, &domain, &space, ClaimState::Denied),
                                    reason: "scripted denied".into(),
                                },
                                Answer::Claim | Answer::ClaimThenConflict => ClaimAnswer::Claimed {
                                    claim: view(id, &domain, &space, ClaimState::Held),
                                    note: Some("scripted claimed".into()),
                                    auth_failures: Some(AuthFailures {
                                        datagrams: 6,
                                        neighbours: 1,
                                        seconds: 302,
                                    }),
                                    clock: None,
                                },
                            };
                            line(&mut stream, &Response::Claim(r));
                            if matches!(answer, Answer::Deny) {
                                break;
                            }
                            list.lock()
                                .unwrap()
                                .push(view(id, &domain, &space, ClaimState::Held));
                            // The watch request, then hand the connection over.
                            reader.read_line(&mut text).unwrap();
                            recorded
                                .lock()
                                .unwrap()
                                .push(serde_json::from_str(&text).unwrap());
                            let state = match answer {
                                Answer::ClaimThenConflict => ClaimState::Conflicted,
                                _ => ClaimState::Held,
                            };
                            let watching =
                                Response::Watching(vec![view(id, &domain, &space, state)]);
                            line(&mut stream, &watching);
                            let _ = held_tx.send(stream);
                            break;
                        }
                        Request::List if freeze.load(Ordering::SeqCst) => {
                            unanswered.push(stream);
                            break;
                        }
                        Request::Release { .. } if mute.load(Ordering::SeqCst) => {
                            unanswered.push(stream);
                            break;
                        }
                        Request::Release { id } => line(&mut stream, &Response::Released { id }),
                        Request::List => {
                            let claims = list.lock().unwrap().clone();
                            line(&mut stream, &Response::Claims(claims));
                        }
                        _ => line(&mut stream, &Response::Released { id: 0 }),
                    }
                }
            }
        });
        Script {
            _dir: dir,
            path,
            requests,
            held,
            listed,
            frozen,
            muted,
        }
    }

    /// Stops (`true`) or resumes answering `list`, as SIGSTOP and SIGCONT would.
    fn freeze(&self, on: bool) {
        self.frozen.store(on, Ordering::SeqCst);
    }

    /// Stops answering `release`, and nothing else: the lease stays alive up to its release.
    fn mute_releases(&self) {
        self.muted.store(true, Ordering::SeqCst);
    }

    /// How many `list` questions have come.
    fn lists(&self) -> usize {
        let requests = self.requests.lock().unwrap();
        requests
            .iter()
            .filter(|r| matches!(r, Request::List))
            .count()
    }

    fn config(&self, bits: u8) -> LeaseConfig {
        LeaseConfig {
            backoff: Duration::from_millis(2),
            max_backoff: Duration::from_millis(8),
            liveness: LIVENESS,
            margin: Duration::from_millis(50),
            ..LeaseConfig::new(self.path.clone(), bits)
        }
    }

    fn claims(&self) -> Vec<SpaceText> {
        self.requests
            .lock()
            .unwrap()
            .iter()
            .filter_map(|r| match r {
                Request::Claim(c) => {
                    assert!(c.renew, "a lease asks the daemon to renew its claim");
                    Some(c.space.clone())
                }
                _ => None,
            })
            .collect()
    }

    fn tied_watches(&self) -> usize {
        self.requests
            .lock()
            .unwrap()
            .iter()
            .filter(|r| {
                matches!(
                    r,
                    Request::Watch {
                        id: Some(_),
                        release_on_close: true
                    }
                )
            })
            .count()
    }

    fn released(&self) -> Vec<u64> {
        self.requests
            .lock()
            .unwrap()
            .iter()
            .filter_map(|r| match r {
                Request::Release { id } => Some(*id),
                _ => None,
            })
            .collect()
    }

    /// Sends one event for claim `id` on the held connection.
    fn event(stream: &mut UnixStream, id: u64, kind: EventKind) {
        Script::event_why(stream, id, kind, "scripted");
    }

    /// Sends one event for claim `id` with the daemon's reason `why`.
    fn event_why(stream: &mut UnixStream, id: u64, kind: EventKind, why: &str) {
        let space = SpaceText::Uid("00".into());
        let e = ClaimEvent {
            id,
            kind,
            reason: Some(why.into()),
            claim: view(
                id,
                "ffe:9562:6:400",
                &space,
                kind.state_after(ClaimState::Held),
            ),
        };
        line(stream, &Response::Event(e));
    }
}

/// The scripted leases' liveness window: short, so that the tests of a silent daemon take a
/// fraction of a second.
const LIVENESS: Duration = Duration::from_millis(400);

fn rng(seed: u8) -> ChaCha20Rng {
    ChaCha20Rng::from_seed([seed; 32])
}

/// Waits until `source` reports a loss, and returns it with the time it took.
fn wait_lost(source: &dyn NodeSource, limit: Duration) -> (uuidkit::node::NodeLost, Duration) {
    let start = Instant::now();
    loop {
        if let Err(lost) = source.current() {
            return (lost, start.elapsed());
        }
        assert!(
            start.elapsed() < limit,
            "the node was not marked lost within {limit:?}"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
}

fn uid_value(space: &SpaceText, bits: u8) -> u64 {
    match space.parse(&DEFAULT_NODE_DOMAIN).unwrap() {
        UidSpace::Unique(u) => node_of_uid(&u, bits).unwrap(),
        other => panic!("expected a unique UID, found {other:?}"),
    }
}

#[test]
fn a_denied_claim_is_retried_with_a_fresh_value() {
    let _turn = Turn::of_caller();
    let script = Script::new(vec![Answer::Deny, Answer::Deny, Answer::Claim]);
    let lease = SiteLease::acquire(&script.config(48), &mut rng(1)).unwrap();
    let claims = script.claims();
    assert_eq!(claims.len(), 3);
    let values: Vec<u64> = claims.iter().map(|s| uid_value(s, 48)).collect();
    assert!(values[0] != values[1] && values[1] != values[2] && values[0] != values[2]);
    for v in &values {
        assert_eq!(v >> 40 & 1, 1, "{v:#x}: the multicast bit (RFC 9562 §6.10)");
    }
    let node = lease.source().current().unwrap();
    assert_eq!((node.value(), node.bits()), (values[2], 48));
    assert_eq!(lease.node(), node);
    assert_eq!(lease.claim_id(), 3);
    assert_eq!(lease.note(), Some("scripted claimed"));
    assert_eq!(
        lease.auth_failures(),
        Some(AuthFailures {
            datagrams: 6,
            neighbours: 1,
            seconds: 302
        })
    );
    assert_eq!(
        script.tied_watches(),
        1,
        "the claim ends with the lease's connection"
    );
    // The same seed draws the same values: randomness is the caller's.
    drop(lease);
    let again = Script::new(vec![Answer::Deny, Answer::Deny, Answer::Claim]);
    let _lease = SiteLease::acquire(&again.config(48), &mut rng(1)).unwrap();
    assert_eq!(again.claims(), claims);
}

/// Through `Registry` and `Box<dyn Lease>`, the site lease is the same lease: the same draws,
/// its node in its slot, its name, the daemon's note and the failed authentications as
/// warnings, and a release that marks the node released.
#[test]
fn the_registry_trait_acquires_and_releases_the_same_lease() {
    let _turn = Turn::of_caller();
    use uuidkit_lease::{Lease, Registry};
    let script = Script::new(vec![Answer::Deny, Answer::Claim]);
    let config = script.config(16);
    let registry: &dyn Registry = &config;
    let lease: Box<dyn Lease> = registry.acquire(&mut rng(2), &mut |_| {}).unwrap();
    assert_eq!(lease.name(), "site node");
    assert_eq!(lease.slot().current(), Ok(lease.node()));
    assert_eq!(lease.node().value(), uid_value(&script.claims()[1], 16));
    let said = lease.warnings();
    assert_eq!(said.len(), 2, "{said:?}");
    assert_eq!(
        said[0],
        "uiapd says scripted claimed; the node is unique on this device only"
    );
    assert!(
        said[1].starts_with("claimed, but ")
            && said[1].contains("source addresses are not authenticated")
            && said[1].ends_with("(uiap status lists the addresses)"),
        "{said:?}"
    );
    assert_eq!(lease.loss(), None);
    let slot = lease.slot().clone();
    lease.release().unwrap();
    assert_eq!(slot.current().unwrap_err().kind(), NodeLostKind::Released);
    // The same seed draws the same values as the lease's own acquire.
    let again = Script::new(vec![Answer::Deny, Answer::Claim]);
    let _lease = SiteLease::acquire(&again.config(16), &mut rng(2)).unwrap();
    assert_eq!(again.claims(), script.claims());
}

#[test]
fn denied_every_time_is_an_error_naming_the_count() {
    let _turn = Turn::of_caller();
    let script = Script::new(vec![]);
    let config = LeaseConfig {
        attempts: 4,
        ..script.config(12)
    };
    let err = SiteLease::acquire(&config, &mut rng(2)).unwrap_err();
    assert_eq!(err.kind(), LeaseErrorKind::Denied);
    let text = err.to_string();
    assert!(
        text.starts_with(
            "no node ID of 12 bits in domain ffe:9562:6:400: denied 4 times, last: denied node 0x"
        ),
        "{text}"
    );
    assert!(text.ends_with(": scripted denied"), "{text}");
    assert_eq!(script.claims().len(), 4);
}

#[test]
fn no_daemon_names_the_path() {
    let _turn = Turn::of_caller();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nobody.sock");
    let err = SiteLease::acquire(&LeaseConfig::new(path.clone(), 16), &mut rng(3)).unwrap_err();
    assert_eq!(err.kind(), LeaseErrorKind::Unreachable);
    let text = err.to_string();
    assert!(
        text.starts_with(&format!(
            "cannot reach uiapd: is uiapd running? tried {}",
            path.display()
        )),
        "{text}"
    );
}

#[test]
fn a_right_justified_domain_and_bad_widths_are_refused() {
    let _turn = Turn::of_caller();
    let script = Script::new(vec![Answer::Claim]);
    let config = LeaseConfig {
        domain: "ffe:9562:6:480".parse::<DomainId>().unwrap(),
        ..script.config(16)
    };
    let err = SiteLease::acquire(&config, &mut rng(4)).unwrap_err();
    assert_eq!(err.kind(), LeaseErrorKind::Config);
    assert!(err.to_string().contains("left-justified"), "{err}");
    for bits in [0, 49] {
        let err = SiteLease::acquire(&script.config(bits), &mut rng(4)).unwrap_err();
        assert_eq!(err.kind(), LeaseErrorKind::Config, "{bits}");
    }
    let zero = LeaseConfig {
        lifetime: 0,
        ..script.config(16)
    };
    assert!(
        SiteLease::acquire(&zero, &mut rng(4))
            .unwrap_err()
            .to_string()
            .contains("lifetime")
    );
    assert!(
        script.claims().is_empty(),
        "nothing was sent for a bad configuration"
    );
}

#[test]
fn a_late_conflict_marks_the_node_lost_at_once() {
    let _turn = Turn::of_caller();
    let script = Script::new(vec![Answer::Claim]);
    let lease = SiteLease::acquire(&script.config(16), &mut rng(5)).unwrap();
    let source = lease.source();
    let mut held = script.held.recv_timeout(Duration::from_secs(5)).unwrap();
    Script::event(&mut held, 1, EventKind::Renewed);
    std::thread::sleep(Duration::from_millis(100));
    assert!(source.current().is_ok(), "a renewal keeps the node");
    Script::event(&mut held, 1, EventKind::Conflict);
    let (lost, took) = wait_lost(&*source, Duration::from_secs(2));
    assert_eq!(lost.kind(), NodeLostKind::Conflict);
    assert!(
        lost.detail().contains("another device holds this node ID"),
        "{lost}"
    );
    eprintln!("conflict event to node lost: {took:?}");
    // The lease released its claim so that the other holder keeps the node in peace.
    let deadline = Instant::now() + Duration::from_secs(2);
    while script.released().is_empty() {
        assert!(Instant::now() < deadline, "the claim was not released");
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(script.released(), [1]);
}

#[test]
fn each_end_of_the_claim_is_a_loss_of_its_kind() {
    let _turn = Turn::of_caller();
    for (event, kind) in [
        (EventKind::Lost, NodeLostKind::Conflict),
        (EventKind::Expired, NodeLostKind::RenewalFailed),
        (EventKind::Released, NodeLostKind::Released),
        // The site cut off: nobody else can deny the node (docs/uiap-design.md D63).
        (EventKind::Isolated, NodeLostKind::SourceGone),
        // A neighbour's traffic dropped by the rate limit: its Attempt may have gone unanswered
        // (docs/uiap-design.md D64).
        (EventKind::Suppressed, NodeLostKind::SourceGone),
    ] {
        let script = Script::new(vec![Answer::Claim]);
        let lease = SiteLease::acquire(&script.config(8), &mut rng(6)).unwrap();
        let mut held = script.held.recv_timeout(Duration::from_secs(5)).unwrap();
        Script::event(&mut held, 1, event);
        let (lost, _) = wait_lost(&*lease.source(), Duration::from_secs(2));
        assert_eq!(lost.kind(), kind, "{event}");
    }
}

/// A daemon's reason longer than a `NodeLost` carries: the slot's copy is cut, the lease keeps
/// it whole for whoever reports the loss.
#[test]
fn a_long_reason_is_kept_whole_by_the_lease() {
    let _turn = Turn::of_caller();
    let script = Script::new(vec![Answer::Claim]);
    let lease = SiteLease::acquire(&script.config(8), &mut rng(7)).unwrap();
    assert_eq!(lease.loss(), None, "held");
    let mut held = script.held.recv_timeout(Duration::from_secs(5)).unwrap();
    let why = format!(
        "Claim-Deny from fe80::1c2d:3eff:fe4f:5a6b%veth-a for ffe:9562:6:400 {}end",
        "x".repeat(200)
    );
    Script::event_why(&mut held, 1, EventKind::Lost, &why);
    let (lost, _) = wait_lost(&*lease.source(), Duration::from_secs(2));
    assert!(lost.detail().len() <= uuidkit::node::NodeLost::DETAIL_CAPACITY);
    assert!(
        !lost.detail().ends_with("end"),
        "the slot's copy is cut: {lost}"
    );
    let whole = lease.loss().expect("the loss is recorded");
    assert!(
        whole.ends_with(&format!("{why})")) || whole.ends_with(&why),
        "{whole}"
    );
    assert!(
        whole.starts_with(&NodeLostKind::Conflict.to_string()),
        "{whole}"
    );
}

/// A conflict between the claim's answer and the watch's: the watch answer's state is what
/// counts, and the node is lost from the start.
#[test]
fn a_conflict_before_the_watch_began_is_a_loss_at_once() {
    let _turn = Turn::of_caller();
    let script = Script::new(vec![Answer::ClaimThenConflict]);
    let lease = SiteLease::acquire(&script.config(8), &mut rng(9)).unwrap();
    let (lost, _) = wait_lost(&*lease.source(), Duration::from_secs(2));
    assert_eq!(lost.kind(), NodeLostKind::Conflict);
    assert!(lost.to_string().contains("conflicted"), "{lost}");
    let deadline = Instant::now() + Duration::from_secs(2);
    while script.released().is_empty() {
        assert!(Instant::now() < deadline, "the claim was not released");
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(script.released(), [1], "released, as after a late conflict");
}

#[test]
fn the_daemon_gone_marks_the_node_lost_at_once() {
    let _turn = Turn::of_caller();
    let script = Script::new(vec![Answer::Claim]);
    let lease = SiteLease::acquire(&script.config(48), &mut rng(7)).unwrap();
    let held = script.held.recv_timeout(Duration::from_secs(5)).unwrap();
    drop(held); // end of stream: the daemon is gone
    let (lost, took) = wait_lost(&*lease.source(), Duration::from_secs(2));
    assert_eq!(lost.kind(), NodeLostKind::SourceGone);
    assert!(lost.detail().starts_with("uiapd is gone"), "{lost}");
    eprintln!("end of stream to node lost: {took:?}");
}

#[test]
fn dropping_the_lease_marks_the_node_lost_then_releases_the_claim() {
    let _turn = Turn::of_caller();
    let script = Script::new(vec![Answer::Deny, Answer::Claim]);
    let lease = SiteLease::acquire(&script.config(16), &mut rng(8)).unwrap();
    let slot = lease.slot().clone();
    let _held = script.held.recv_timeout(Duration::from_secs(5)).unwrap();
    assert!(slot.current().is_ok());
    drop(lease);
    assert_eq!(slot.current().unwrap_err().kind(), NodeLostKind::Released);
    assert_eq!(script.released(), [2]);
}

// ---- against a real daemon, a site of one ----

fn claims(site: &SiteOfOne) -> Vec<ClaimView> {
    Client::new(site.control()).list().unwrap()
}

/// Claims `space` of the node domain (not renewed) and returns what became of it.
fn claim_of(control: &Path, space: SpaceText) -> Hold {
    let request = ClaimRequest {
        lifetime: 20,
        ..ClaimRequest::new(DEFAULT_NODE_DOMAIN.to_string(), space)
    };
    Client::new(control)
        .hold(&request, Some(Duration::from_secs(10)))
        .unwrap()
}

#[test]
fn a_real_lease_holds_a_renewed_claim_and_releases_it() {
    let _turn = Turn::of_caller();
    let site = SiteOfOne::start((61611, 61612), &FAST_TIMERS);
    let config = LeaseConfig {
        lifetime: 4, // FAST_TIMERS renew at half of it
        ..LeaseConfig::new(site.control().to_path_buf(), 48)
    };
    let lease = SiteLease::acquire(&config, &mut rng(9)).unwrap();
    let held = claims(&site);
    assert_eq!(held.len(), 1);
    let c = &held[0];
    assert_eq!(
        (c.id, c.renew, c.state),
        (lease.claim_id(), true, ClaimState::Held)
    );
    assert_eq!(c.domain, "ffe:9562:6:400");
    assert_eq!(uid_value(&c.space, 48), lease.node().value());
    // Another claim of the same node on this device is refused while the lease lives.
    let other = claim_of(site.control(), c.space.clone());
    assert!(matches!(other, Hold::Denied { .. }), "{other:?}");
    // Renewals keep it (two renewal intervals).
    std::thread::sleep(Duration::from_secs(5));
    assert!(lease.source().current().is_ok());
    assert_eq!(claims(&site)[0].state, ClaimState::Held);
    let space = c.space.clone();
    drop(lease);
    assert!(claims(&site).is_empty(), "released: {:?}", claims(&site));
    let again = claim_of(site.control(), space);
    assert!(matches!(again, Hold::Held(_)), "{again:?}");
}

#[test]
fn a_claim_held_while_connected_is_released_when_its_client_goes() {
    let _turn = Turn::of_caller();
    let site = SiteOfOne::start((61615, 61616), &FAST_TIMERS);
    let uiapd = Client::new(site.control());
    let request = ClaimRequest {
        lifetime: 20,
        renew: true,
        ..ClaimRequest::new(
            DEFAULT_NODE_DOMAIN.to_string(),
            SpaceText::Uid("0123456789ab".into()),
        )
    };
    let Hold::Held(held) = uiapd.hold_while_connected(&request, None).unwrap() else {
        panic!("a site of one grants the claim");
    };
    assert_eq!(claims(&site).len(), 1);
    drop(held); // no release request: only the connection closes
    let deadline = Instant::now() + Duration::from_secs(3);
    while !claims(&site).is_empty() {
        assert!(Instant::now() < deadline, "still held: {:?}", claims(&site));
        std::thread::sleep(Duration::from_millis(20));
    }
    // A plain hold is not tied to its connection.
    let Hold::Held(held) = uiapd.hold(&request, None).unwrap() else {
        panic!("a site of one grants the claim");
    };
    drop(held);
    std::thread::sleep(Duration::from_millis(600));
    assert_eq!(claims(&site).len(), 1);
    // Tying needs one claim's id.
    let r = uiapd
        .call(&Request::Watch {
            id: None,
            release_on_close: true,
        })
        .unwrap();
    let Response::Error(e) = r else {
        panic!("expected an error, found {r:?}")
    };
    assert!(e.message.contains("release_on_close needs the id"), "{e:?}");
}

#[test]
fn a_real_daemon_killed_marks_the_node_lost_at_once() {
    let _turn = Turn::of_caller();
    let mut site = SiteOfOne::start((61613, 61614), &FAST_TIMERS);
    let config = LeaseConfig::new(site.control().to_path_buf(), 16);
    let lease = SiteLease::acquire(&config, &mut rng(10)).unwrap();
    let source = lease.source();
    assert!(source.current().is_ok());
    site.kill();
    let (lost, took) = wait_lost(&*source, Duration::from_secs(2));
    assert_eq!(lost.kind(), NodeLostKind::SourceGone);
    eprintln!("daemon killed to node lost: {took:?}");
    // Dropping a lease whose daemon is gone does not hang or panic.
    drop(lease);
}

/// A daemon that says the claim is rate limited and then does not answer: the lease reports
/// what it waits for, gives up at its answer limit, and says why.
#[test]
fn a_rate_limited_daemon_is_reported_and_the_wait_is_bounded() {
    let _turn = Turn::of_caller();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("control.sock");
    let listener = UnixListener::bind(&path).unwrap();
    let server = std::thread::spawn(move || {
        // The lease first asks for the site's liveness window: this daemon does not say.
        let (mut stream, _) = listener.accept().unwrap();
        let mut text = String::new();
        BufReader::new(stream.try_clone().unwrap())
            .read_line(&mut text)
            .unwrap();
        assert!(
            matches!(serde_json::from_str(&text), Ok(Request::Status)),
            "{text}"
        );
        line(&mut stream, &Response::Released { id: 0 });
        text.clear();
        let (stream, _) = listener.accept().unwrap();
        let mut reader = BufReader::new(stream.try_clone().unwrap());
        reader.read_line(&mut text).unwrap();
        let Request::Claim(ClaimRequest { domain, space, .. }) =
            serde_json::from_str(&text).unwrap()
        else {
            panic!("expected a claim: {text}")
        };
        let mut stream = stream;
        let waiting = Response::Waiting {
            claim: view(1, &domain, &space, ClaimState::Claiming),
            reason: "rate limited, starts in 115 s".into(),
        };
        line(&mut stream, &waiting);
        // Held open, silent, until the client gives up.
        let _ = reader.read_line(&mut text);
    });
    let config = LeaseConfig {
        answer_limit: Some(Duration::from_millis(500)),
        attempts: 1,
        ..LeaseConfig::new(path, 16)
    };
    let mut said = Vec::new();
    let started = Instant::now();
    let err = SiteLease::acquire_reporting(&config, &mut rng(9), &mut |w| said.push(w.to_string()))
        .unwrap_err();
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(said, ["uiapd: rate limited, starts in 115 s"]);
    assert_eq!(err.kind(), LeaseErrorKind::Timeout);
    let text = err.to_string();
    assert!(
        text.contains("did not answer the claim of node 0x"),
        "{text}"
    );
    assert!(
        text.ends_with("within 0.5 s (it said: rate limited, starts in 115 s): giving up"),
        "{text}"
    );
    server.join().unwrap();
}

#[test]
fn answered_questions_keep_the_node_past_many_liveness_windows() {
    let _turn = Turn::of_caller();
    let script = Script::new(vec![Answer::Claim]);
    let lease = SiteLease::acquire(&script.config(16), &mut rng(5)).unwrap();
    let _held = script.held.recv().unwrap();
    std::thread::sleep(LIVENESS * 3);
    let node = lease.source().current().unwrap();
    assert_eq!((node.value(), node.epoch()), (lease.node().value(), 1));
    assert!(
        script.lists() >= 6,
        "{} questions in 3 windows",
        script.lists()
    );
}

#[test]
fn a_daemon_that_stops_answering_loses_the_node_within_its_liveness_window() {
    let _turn = Turn::of_caller();
    let script = Script::new(vec![Answer::Claim]);
    let lease = SiteLease::acquire(&script.config(16), &mut rng(6)).unwrap();
    let _held = script.held.recv().unwrap();
    std::thread::sleep(LIVENESS);
    assert!(lease.source().current().is_ok());
    script.freeze(true);
    // The event stream stays open and silent: only the deadline can tell.
    let (lost, took) = wait_lost(&*lease.source(), LIVENESS * 4);
    assert_eq!(lost.kind(), NodeLostKind::RenewalFailed, "{lost}");
    assert!(lost.detail().contains("deadline"), "{lost}");
    assert!(took < LIVENESS, "lost {took:?} after the daemon froze");
    // Answers after the deadline do not bring the node back: it may have been won meanwhile.
    script.freeze(false);
    std::thread::sleep(LIVENESS);
    let lost = lease.source().current().unwrap_err();
    assert_eq!(lost.kind(), NodeLostKind::SourceGone, "{lost}");
    assert!(lost.detail().contains("liveness window"), "{lost}");
}

/// A run must end when its lease does, also when the daemon is stopped: the release waits for
/// its answer at most the liveness window, and says so.
#[test]
fn a_release_the_daemon_does_not_answer_ends_within_the_liveness_window() {
    let _turn = Turn::of_caller();
    let script = Script::new(vec![Answer::Claim]);
    let lease = SiteLease::acquire(&script.config(16), &mut rng(10)).unwrap();
    let slot = lease.slot().clone();
    let _held = script.held.recv().unwrap();
    script.mute_releases();
    let start = Instant::now();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(lease.release());
    });
    let out = rx
        .recv_timeout(LIVENESS * 10)
        .expect("the release still waits for the stopped daemon");
    let e = out.unwrap_err();
    assert_eq!(e.kind(), LeaseErrorKind::Timeout, "{e}");
    assert!(e.to_string().contains("did not answer the release"), "{e}");
    assert!(start.elapsed() < LIVENESS * 3, "{:?}", start.elapsed());
    assert_eq!(slot.current().unwrap_err().kind(), NodeLostKind::Released);
}

#[test]
fn a_claim_the_daemon_no_longer_lists_is_lost() {
    let _turn = Turn::of_caller();
    let script = Script::new(vec![Answer::Claim]);
    let lease = SiteLease::acquire(&script.config(16), &mut rng(7)).unwrap();
    let _held = script.held.recv().unwrap();
    script.listed.lock().unwrap().clear();
    let (lost, took) = wait_lost(&*lease.source(), LIVENESS * 4);
    assert!(lost.detail().contains("no longer lists claim"), "{lost}");
    assert!(took < LIVENESS, "{took:?}");
}

#[test]
fn a_frozen_real_daemon_loses_the_node_within_the_liveness_window() {
    let _turn = Turn::of_caller();
    let site = SiteOfOne::start((61617, 61618), &FAST_TIMERS);
    let config = LeaseConfig {
        lifetime: 3,
        liveness: LIVENESS,
        margin: Duration::from_millis(50),
        ..LeaseConfig::new(site.control().to_path_buf(), 12)
    };
    let lease = SiteLease::acquire(&config, &mut rng(8)).unwrap();
    std::thread::sleep(LIVENESS);
    if let Err(lost) = lease.source().current() {
        panic!("lost before the daemon froze: {lost}");
    }
    site.signal(libc::SIGSTOP);
    let (lost, took) = wait_lost(&*lease.source(), LIVENESS * 4);
    site.signal(libc::SIGCONT);
    assert_eq!(lost.kind(), NodeLostKind::RenewalFailed, "{lost}");
    assert!(took < LIVENESS, "lost {took:?} after the daemon froze");
}

#[test]
fn a_daemon_frozen_before_the_claim_ends_the_acquisition_at_the_answer_limit() {
    let _turn = Turn::of_caller();
    let site = SiteOfOne::start((61619, 61620), &FAST_TIMERS);
    site.signal(libc::SIGSTOP);
    let config = LeaseConfig {
        answer_limit: Some(Duration::from_millis(500)),
        ..LeaseConfig::new(site.control().to_path_buf(), 12)
    };
    let start = Instant::now();
    let err = SiteLease::acquire(&config, &mut rng(9)).unwrap_err();
    let took = start.elapsed();
    site.signal(libc::SIGCONT);
    assert_eq!(err.kind(), LeaseErrorKind::Timeout, "{err}");
    assert!(err.to_string().contains("did not answer"), "{err}");
    assert!(took < Duration::from_secs(5), "{took:?}");
}

/// docs/uiap-design.md D73: a lease keeps the liveness window its daemon allows. This daemon's
/// claim window is 1.6 s and its `lease-liveness-ms` 1.2 s: a lease configured for 2 s keeps
/// 1.2 s, so a frozen daemon costs the node within 1.2 s − 100 ms, before another daemon of
/// that site could win it (with its own 2 s it would write until 1.9 s after the freeze).
#[test]
fn a_lease_keeps_the_liveness_window_its_daemon_allows() {
    let _turn = Turn::of_caller();
    let site = SiteOfOne::start(
        (61621, 61622),
        &[
            "--claim-period-ms",
            "400",
            "--claim-timeout-ms",
            "400",
            "--start-jitter-ms",
            "0",
            "--lease-liveness-ms",
            "1200",
        ],
    );
    let config = LeaseConfig::new(site.control().to_path_buf(), 12);
    assert_eq!(config.liveness, Duration::from_secs(2));
    let lease = SiteLease::acquire(&config, &mut rng(11)).unwrap();
    std::thread::sleep(Duration::from_millis(1200));
    if let Err(lost) = lease.source().current() {
        panic!("lost before the daemon froze: {lost}");
    }
    site.signal(libc::SIGSTOP);
    // The deadline is on the boot clock: a test thread that oversleeps only looks later.
    std::thread::sleep(Duration::from_millis(1300));
    let still = lease.source().current();
    site.signal(libc::SIGCONT);
    let lost = still.expect_err("the node outlived the daemon's 1.2 s liveness window");
    assert!(
        matches!(
            lost.kind(),
            NodeLostKind::RenewalFailed | NodeLostKind::SourceGone
        ),
        "{lost}"
    );
}
