//! Integration tests of the lease sources against real registries, each started by the test as
//! a throwaway instance (see the `test-support` crate), in one test binary: a module per source
//! and fault family, built with the features it needs.
//!
//! Each test takes its file's turn first (`test_support::turn`): the tests of one file run
//! together, never beside another file's servers and fleets, as when each file was a binary.
//! Some tests run one of their own ignored tests in a child process of this binary (a fleet
//! member, a paused holder): they name it with its module path, `--exact MODULE::NAME`.

/// The lease timing of the registry tests: a `ttl` short enough to run out within a test, a
/// 200 ms margin, 600 ms for an answer.
#[cfg(any(feature = "etcd", feature = "zookeeper"))]
fn quick_timing(ttl: std::time::Duration) -> uuidkit_lease::Timing {
    uuidkit_lease::Timing {
        margin: std::time::Duration::from_millis(200),
        answer_limit: std::time::Duration::from_millis(600),
        ..uuidkit_lease::Timing::for_ttl(ttl)
    }
}

#[cfg(feature = "etcd")]
mod etcd_faults;
#[cfg(feature = "etcd")]
mod etcd_keepalive;
#[cfg(feature = "etcd")]
mod etcd_lease;
#[cfg(feature = "etcd")]
mod etcd_paused_leader;
#[cfg(feature = "etcd")]
mod fleet_checker;
#[cfg(feature = "etcd")]
mod fleet_checker_snowflake;
#[cfg(feature = "postgres")]
mod pg_crash;
#[cfg(feature = "postgres")]
mod pg_lease;
#[cfg(feature = "postgres")]
mod pg_rights;
mod portable;
#[cfg(all(unix, feature = "uiap"))]
mod site_lease;
#[cfg(all(feature = "etcd", feature = "postgres"))]
mod skewed_clocks;
#[cfg(feature = "zookeeper")]
mod zookeeper_lease;
