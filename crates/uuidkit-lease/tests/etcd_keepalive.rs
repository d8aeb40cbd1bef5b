//! The etcd lease's keep-alives against a real three-member cluster started by the test: one
//! request per renewal, counted by the cluster itself.

use std::time::{Duration, Instant};

use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use test_support::db::EtcdCluster;
use test_support::turn::Turn;
use uuidkit::node::NodeSource;
use uuidkit_lease::etcd::{EtcdConfig, EtcdLease};

fn config(cluster: &EtcdCluster, prefix: &str, ttl: u64) -> EtcdConfig {
    EtcdConfig {
        timing: crate::quick_timing(Duration::from_secs(ttl)),
        ..EtcdConfig::new(cluster.endpoints(), prefix, 12)
    }
}

/// Keep-alive requests the cluster has received.
fn keep_alives(cluster: &EtcdCluster) -> f64 {
    cluster
        .counter(
            "grpc_server_msg_received_total",
            "grpc_method=\"LeaseKeepAlive\"",
        )
        .unwrap()
}

#[test]
fn each_renewal_is_one_keep_alive_exchange() {
    let _turn = Turn::of_caller();
    let Some(cluster) = EtcdCluster::for_test("etcd_keepalive_count") else {
        return;
    };
    // A renewal every second (a third of the TTL).
    let lease = EtcdLease::acquire(
        &config(&cluster, "/k/count", 3),
        &mut ChaCha20Rng::from_seed([1; 32]),
    )
    .unwrap();
    let before = keep_alives(&cluster);
    let start = Instant::now();
    std::thread::sleep(Duration::from_millis(4500));
    let after = keep_alives(&cluster);
    // At most one renewal per elapsed second, and one more at either end; each is two
    // keep-alive messages on one stream (the second's answer carries the renewing member's
    // raft term).
    let most = 2.0 * (start.elapsed().as_secs_f64().floor() + 1.0);
    let sent = after - before;
    assert!(
        sent >= 1.0 && sent <= most,
        "{sent} keep-alive requests in {:?}",
        start.elapsed()
    );
    assert!(lease.source().current().is_ok());
}
