//! `EtcdLease` against a real three-member etcd cluster started by each test (test-support's
//! `EtcdCluster`, on free loopback ports), with TTLs of 2 s so that faults take seconds.

use std::time::{Duration, Instant};

use etcd_client::{Client, GetOptions, Permission};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use test_support::db::EtcdCluster;
use test_support::turn::Turn;
use uuidkit::node::{NodeLostKind, NodeSource};
use uuidkit_lease::LeaseErrorKind;
use uuidkit_lease::etcd::{EtcdConfig, EtcdLease, EtcdUser};

const TTL: Duration = Duration::from_secs(2);
/// etcd's default election timeout, which the test cluster keeps.
const ELECTION_TIMEOUT: Duration = Duration::from_secs(1);

fn config(cluster: &EtcdCluster, prefix: &str, bits: u8) -> EtcdConfig {
    EtcdConfig {
        timing: uuidkit_lease::Timing {
            backoff: Duration::from_millis(5),
            max_backoff: Duration::from_millis(20),
            ..crate::quick_timing(TTL)
        },
        ..EtcdConfig::new(cluster.endpoints(), prefix, bits)
    }
}

fn rng(seed: u8) -> ChaCha20Rng {
    ChaCha20Rng::from_seed([seed; 32])
}

/// Runs `f` with a client of its own, on a runtime of its own.
fn with_client<T>(endpoints: &[String], f: impl AsyncFnOnce(&mut Client) -> T) -> T {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let mut c = Client::connect(endpoints, None).await.unwrap();
        f(&mut c).await
    })
}

/// The node keys under `prefix`, with the lease each is attached to and its value.
fn keys(cluster: &EtcdCluster, prefix: &str) -> Vec<(String, i64, String)> {
    with_client(&cluster.endpoints(), async |c| {
        let r = c
            .get(format!("{prefix}/"), Some(GetOptions::new().with_prefix()))
            .await
            .unwrap();
        r.kvs()
            .iter()
            .map(|kv| {
                (
                    kv.key_str().unwrap().to_string(),
                    kv.lease(),
                    kv.value_str().unwrap().to_string(),
                )
            })
            .collect()
    })
}

/// Waits until `source` reports a loss; returns it with the time it took.
fn wait_lost(source: &dyn NodeSource, limit: Duration) -> (uuidkit::node::NodeLost, Duration) {
    let start = Instant::now();
    loop {
        if let Err(lost) = source.current() {
            return (lost, start.elapsed());
        }
        assert!(start.elapsed() < limit, "not lost within {limit:?}");
        std::thread::sleep(Duration::from_millis(2));
    }
}

#[test]
fn a_node_is_a_key_attached_to_the_lease_and_released_on_drop() {
    let _turn = Turn::of_caller();
    let Some(cluster) = EtcdCluster::for_test("etcd_key_attached") else {
        return;
    };
    let c = config(&cluster, "/t/a", 12);
    let lease = EtcdLease::acquire(&c, &mut rng(1)).unwrap();
    let node = lease.source().current().unwrap();
    assert_eq!((node.bits(), node.epoch()), (12, 1));
    let all = keys(&cluster, "/t/a");
    assert_eq!(
        all[0],
        (c.key(node.value()), lease.lease_id(), c.holder.clone())
    );
    // Beside it, without a lease, the high-water millisecond of the deadline published.
    assert_eq!(
        (all.len(), all[1].0.as_str(), all[1].1),
        (2, c.high_water_key(node.value()).as_str(), 0)
    );
    let wall_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis();
    assert!(all[1].2.parse::<u128>().unwrap() > wall_ms, "{all:?}");
    // Kept alive past several TTLs, without a lapse.
    std::thread::sleep(TTL * 2);
    assert_eq!(lease.source().current(), Ok(node));
    let source = lease.source();
    lease.release().unwrap();
    assert_eq!(source.current().unwrap_err().kind(), NodeLostKind::Released);
    // The key goes with the lease; the high-water stays, lowered to where the holder stopped.
    let left = keys(&cluster, "/t/a");
    assert_eq!(left.len(), 1, "{left:?}");
    assert_eq!(left[0].0, c.high_water_key(node.value()));
    let stopped_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis();
    assert!(
        left[0].2.parse::<u128>().unwrap() <= stopped_ms + 2,
        "{left:?}"
    );
}

/// A lease revoked by someone else (an operator): the next keep-alive finds it gone and marks the
/// node lost at once, with etcd's reason, well before the deadline would.
#[test]
fn a_revoked_lease_is_lost_at_the_next_keep_alive() {
    let _turn = Turn::of_caller();
    let Some(cluster) = EtcdCluster::for_test("etcd_revoked") else {
        return;
    };
    let mut c = config(&cluster, "/t/r", 12);
    c.timing.ttl = Duration::from_secs(12);
    let lease = EtcdLease::acquire(&c, &mut rng(3)).unwrap();
    let id = lease.lease_id();
    with_client(&cluster.endpoints(), async |client| {
        client.lease_revoke(id).await.unwrap();
    });
    // A keep-alive every 4 s; the deadline is 11.8 s away, and the detail says which came
    // first (the limit only keeps a broken build from hanging).
    let (lost, took) = wait_lost(&*lease.source(), Duration::from_secs(60));
    assert_eq!(lost.kind(), NodeLostKind::RenewalFailed);
    assert_eq!(
        lost.detail(),
        "etcd says the lease is not found (expired or revoked)"
    );
    eprintln!("revoked to lost: {took:?}");
}

#[test]
fn leases_hold_distinct_nodes_until_the_space_is_full_then_say_so() {
    let _turn = Turn::of_caller();
    let Some(cluster) = EtcdCluster::for_test("etcd_full_space") else {
        return;
    };
    let c = config(&cluster, "/t/full", 2);
    let leases: Vec<EtcdLease> = (0..4)
        .map(|i| EtcdLease::acquire(&c, &mut rng(i)).unwrap())
        .collect();
    let mut nodes: Vec<u64> = leases.iter().map(|l| l.node().value()).collect();
    nodes.sort_unstable();
    assert_eq!(nodes, vec![0, 1, 2, 3]);
    let err = EtcdLease::acquire(&c, &mut rng(9)).unwrap_err();
    assert_eq!(err.kind(), LeaseErrorKind::Denied, "{err}");
    let text = err.to_string();
    assert!(text.contains("/t/full"), "{text}");
    assert!(text.contains("4 of 4 nodes are taken"), "{text}");
    drop(leases);
}

#[test]
fn bad_settings_are_refused_with_what_was_wrong() {
    let _turn = Turn::of_caller();
    let endpoints = vec!["127.0.0.1:1".to_string()];
    let cases = [
        (
            EtcdConfig::new(vec![], "/p", 8),
            "expected at least one host:port",
        ),
        (
            EtcdConfig::new(endpoints.clone(), "/p/", 8),
            "not ending in '/'",
        ),
        (
            EtcdConfig::new(endpoints.clone(), "/p", 49),
            "expected 1 to 48",
        ),
        (
            EtcdConfig {
                timing: uuidkit_lease::Timing {
                    ttl: Duration::from_millis(1500),
                    ..uuidkit_lease::Timing::default()
                },
                ..EtcdConfig::new(endpoints.clone(), "/p", 8)
            },
            "whole seconds",
        ),
    ];
    for (c, says) in cases {
        let err = EtcdLease::acquire(&c, &mut rng(1)).unwrap_err();
        assert_eq!(err.kind(), LeaseErrorKind::Config, "{err}");
        assert!(err.to_string().contains(says), "{err}");
    }
    let c = EtcdConfig {
        timing: uuidkit_lease::Timing {
            answer_limit: Duration::from_millis(300),
            ..uuidkit_lease::Timing::default()
        },
        ..EtcdConfig::new(endpoints, "/p", 8)
    };
    let err = EtcdLease::acquire(&c, &mut rng(1)).unwrap_err();
    assert_eq!(err.kind(), LeaseErrorKind::Unreachable, "{err}");
    assert!(err.to_string().contains("127.0.0.1:1"), "{err}");
}

/// The member that is the cluster's leader.
fn leader(cluster: &EtcdCluster) -> usize {
    let endpoints = cluster.endpoints();
    for (i, e) in endpoints.iter().enumerate() {
        let (me, leader) = with_client(std::slice::from_ref(e), async |c| {
            let s = c.status().await.unwrap();
            (s.header().unwrap().member_id(), s.leader())
        });
        if me == leader {
            return i;
        }
    }
    panic!("no member says it is the leader");
}

#[test]
fn the_node_survives_the_leaders_death_while_keep_alives_go_on() {
    let _turn = Turn::of_caller();
    let Some(mut cluster) = EtcdCluster::for_test("etcd_leader_death") else {
        return;
    };
    let lease = EtcdLease::acquire(&config(&cluster, "/t/leader", 16), &mut rng(3)).unwrap();
    let node = lease.node();
    cluster.stop(leader(&cluster));
    // Three TTLs with a new election in them: the same tenure throughout.
    let start = Instant::now();
    while start.elapsed() < TTL * 3 {
        assert_eq!(lease.source().current(), Ok(node));
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_lost_majority_stops_the_generator_at_the_deadline() {
    let _turn = Turn::of_caller();
    let Some(mut cluster) = EtcdCluster::for_test("etcd_majority_lost") else {
        return;
    };
    let lease = EtcdLease::acquire(&config(&cluster, "/t/majority", 16), &mut rng(4)).unwrap();
    cluster.stop(1);
    std::thread::sleep(TTL);
    assert!(
        lease.source().current().is_ok(),
        "a minority lost costs nothing"
    );
    cluster.stop(2);
    // The limit only keeps a broken build from hanging; the time it took is a figure.
    let (lost, took) = wait_lost(&*lease.source(), TTL * 10);
    assert_eq!(lost.kind(), NodeLostKind::RenewalFailed, "{lost}");
    // Found out at the deadline: a leader renews leases without a round of consensus until it
    // steps down, one election timeout after it stopped hearing from a majority, so the last
    // renewal it confirms may be that late, and the deadline is one TTL (less the margin) later.
    assert!(lost.detail().contains("deadline"), "{lost}");
    eprintln!(
        "majority lost: the holder stopped {took:?} later (expected under TTL + {ELECTION_TIMEOUT:?})"
    );
}

#[test]
fn with_authentication_a_user_with_rights_on_the_prefix_alone_holds_a_node() {
    let _turn = Turn::of_caller();
    let Some(cluster) = EtcdCluster::for_test("etcd_auth") else {
        return;
    };
    // As an operator would: a root user, a role with read and write rights on the prefix only,
    // a user for the generators, then authentication on.
    with_client(&cluster.endpoints(), async |c| {
        c.user_add("root", "root-pw", None).await.unwrap();
        c.user_grant_role("root", "root").await.unwrap();
        c.role_add("uuidkit").await.unwrap();
        let rights = Permission::read_write("/t/auth/").with_prefix();
        c.role_grant_permission("uuidkit", rights).await.unwrap();
        c.user_add("gen", "gen-pw", None).await.unwrap();
        c.user_grant_role("gen", "uuidkit").await.unwrap();
        c.auth_enable().await.unwrap();
    });
    let as_gen = |prefix: &str, password: &str| EtcdConfig {
        user: Some(EtcdUser::new("gen", password)),
        ..config(&cluster, prefix, 8)
    };
    let lease = EtcdLease::acquire(&as_gen("/t/auth", "gen-pw"), &mut rng(6)).unwrap();
    assert!(lease.source().current().is_ok());
    // Kept alive as that user, through more than one TTL.
    std::thread::sleep(TTL + TTL / 2);
    assert_eq!(lease.source().current(), Ok(lease.node()));

    let refused = |c: &EtcdConfig| {
        let err = EtcdLease::acquire(c, &mut rng(7)).unwrap_err();
        assert_eq!(err.kind(), LeaseErrorKind::Refused, "{err}");
        err.to_string()
    };
    let no_user = refused(&config(&cluster, "/t/auth", 8));
    assert!(no_user.contains("user name is empty"), "{no_user}");
    let wrong = refused(&as_gen("/t/auth", "guess"));
    assert!(
        wrong.contains("authentication failed") && wrong.contains("\"gen\""),
        "{wrong}"
    );
    let elsewhere = refused(&as_gen("/t/other", "gen-pw"));
    assert!(elsewhere.contains("permission denied"), "{elsewhere}");
}

#[cfg(feature = "etcd-tls")]
#[test]
fn over_tls_a_client_with_the_clusters_certificate_holds_a_node() {
    let _turn = Turn::of_caller();
    use uuidkit_lease::Tls;
    let test = "etcd_tls";
    if !test_support::require(test, test_support::command("openssl", &["version"])) {
        return;
    }
    let cluster = match EtcdCluster::start_tls() {
        Ok(c) => c,
        Err(e) => return test_support::skip(test, e),
    };
    let files = cluster.tls_files().unwrap();
    let with = |tls: Option<Tls>| EtcdConfig {
        tls,
        ..config(&cluster, "/t/tls", 8)
    };
    let identity = Some((files.client_cert.as_path(), files.client_key.as_path()));
    let tls = Tls::from_files(&files.ca, identity).unwrap();
    let lease = EtcdLease::acquire(&with(Some(tls)), &mut rng(8)).unwrap();
    std::thread::sleep(TTL + TTL / 2);
    assert_eq!(
        lease.source().current(),
        Ok(lease.node()),
        "kept alive over TLS"
    );
    // Plain HTTP/2, or TLS without a client certificate: the cluster takes neither.
    for tls in [None, Some(Tls::from_files(&files.ca, None).unwrap())] {
        let err = EtcdLease::acquire(&with(tls), &mut rng(9)).unwrap_err();
        assert!(
            matches!(
                err.kind(),
                LeaseErrorKind::Unreachable | LeaseErrorKind::Timeout | LeaseErrorKind::Registry
            ),
            "{err}"
        );
    }
    let err = Tls::from_files(&files.ca.with_extension("missing"), None).unwrap_err();
    assert_eq!(err.kind(), LeaseErrorKind::Config, "{err}");
}

/// Keys under the prefix that are not node keys of the lease's width — another width's
/// spelling, junk, the high-water keys — are not counted as taken: a 1-bit space with all of
/// them present still gives out both of its nodes.
#[test]
fn keys_that_are_not_node_keys_of_this_width_are_ignored() {
    let _turn = Turn::of_caller();
    let Some(cluster) = EtcdCluster::for_test("etcd_junk_keys") else {
        return;
    };
    with_client(&cluster.endpoints(), async |c| {
        for key in [
            "/t/j/01",
            "/t/j/zz",
            "/t/j/1/x",
            "/t/j/hw/0",
            "/t/j/2",
            "/t/j/A",
        ] {
            c.put(key, "junk", None).await.unwrap();
        }
    });
    let mut c = config(&cluster, "/t/j", 1);
    c.timing.attempts = 4;
    let a = EtcdLease::acquire(&c, &mut rng(1)).unwrap();
    let b = EtcdLease::acquire(&c, &mut rng(2)).expect("the second node is free");
    let mut held = [a.node().value(), b.node().value()];
    held.sort_unstable();
    assert_eq!(held, [0, 1]);
}

/// Through `Registry` and `Box<dyn Lease>`, the etcd lease is the same lease: its node in its
/// slot, its name, the one-endpoint warning only with one endpoint, and a release that deletes
/// the key.
#[test]
fn the_registry_trait_acquires_and_releases_the_same_lease() {
    let _turn = Turn::of_caller();
    use uuidkit_lease::{Lease, Registry};
    let Some(cluster) = EtcdCluster::for_test("etcd_registry_trait") else {
        return;
    };
    let c = config(&cluster, "/t/r", 8);
    let registry: &dyn Registry = &c;
    let lease: Box<dyn Lease> = registry
        .acquire(&mut rng(3), &mut |what| {
            panic!("etcd made the claim wait: {what}")
        })
        .unwrap();
    assert_eq!(lease.name(), "etcd node");
    assert_eq!(lease.slot().current(), Ok(lease.node()));
    assert_eq!((lease.warnings(), lease.loss()), (vec![], None));
    assert_eq!(keys(&cluster, "/t/r")[0].0, c.key(lease.node().value()));
    let one = EtcdConfig {
        endpoints: cluster.endpoints()[..1].to_vec(),
        ..config(&cluster, "/t/r", 8)
    };
    let single = Registry::acquire(&one, &mut rng(4), &mut |_| {}).unwrap();
    assert_ne!(single.node(), lease.node());
    let said = single.warnings();
    assert!(
        said.len() == 1 && said[0].starts_with("one endpoint only"),
        "{said:?}"
    );
    let slot = lease.slot().clone();
    lease.release().unwrap();
    assert_eq!(slot.current().unwrap_err().kind(), NodeLostKind::Released);
    drop(single);
    let left = keys(&cluster, "/t/r");
    assert!(left.iter().all(|k| k.0.starts_with("/t/r/hw/")), "{left:?}");
}

/// A renewal raises the node's high-water millisecond and never lowers it. A renewal's
/// transaction can be applied late — sent to a leader whose disk stalled, given up on, then
/// committed after later renewals through a new leader — and would put back an older value, so
/// the next holder would start inside this one's last published deadline. Stand-in for the late
/// value already overtaken: a higher value written from outside; the holder's renewals leave it,
/// and still raise a lower one.
#[test]
fn renewals_never_lower_the_high_water_millisecond() {
    let _turn = Turn::of_caller();
    let Some(cluster) = EtcdCluster::for_test("etcd_high_water_raise") else {
        return;
    };
    let c = config(&cluster, "/t/hw", 4);
    let lease = EtcdLease::acquire(&c, &mut rng(9)).unwrap();
    let key = c.high_water_key(lease.node().value());
    let now_ms = || {
        let d = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap();
        u64::try_from(d.as_millis()).unwrap()
    };
    let read = || -> u64 {
        with_client(&cluster.endpoints(), async |cl| {
            let r = cl.get(key.clone(), None).await.unwrap();
            let v = r
                .kvs()
                .first()
                .expect("the high-water key")
                .value_str()
                .unwrap();
            v.parse().unwrap()
        })
    };
    let write = |ms: u64| {
        with_client(&cluster.endpoints(), async |cl| {
            cl.put(key.clone(), format!("{ms:020}"), None)
                .await
                .unwrap();
        });
    };
    // Several renewals (one every third of the TTL) after each write.
    let renewals = TTL;
    let far = now_ms() + 3_600_000;
    write(far);
    std::thread::sleep(renewals);
    assert!(lease.source().current().is_ok(), "the holder still holds");
    assert_eq!(read(), far, "a renewal lowered the high-water");
    let low = now_ms() - 60_000;
    write(low);
    std::thread::sleep(renewals);
    let raised = read();
    assert!(raised > now_ms(), "not raised past now: {raised}");
    // Values not in the fixed-width form: an earlier release's plain decimal (byte-wise above
    // every fixed-width value), and junk below and above the form. Each is replaced.
    for foreign in [low.to_string(), String::new(), "junk".into()] {
        with_client(&cluster.endpoints(), async |cl| {
            cl.put(key.clone(), foreign.clone(), None).await.unwrap();
        });
        std::thread::sleep(renewals);
        let raised = read();
        assert!(raised > now_ms(), "{foreign:?} was not replaced: {raised}");
    }
}
