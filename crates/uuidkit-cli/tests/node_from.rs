//! `uuidkit new … --node-from SOURCE` refused before anything is claimed: a source that does not
//! parse, flags that do not apply to it, a backend this binary was built without (exit 2).

use crate::util::fails;

#[test]
fn a_bad_node_source_is_a_usage_error_saying_what_is_wrong() {
    for (source, want) in [
        ("etcd:///p", "etcd://: no endpoint before '/'"),
        (
            "etcd://h:2379",
            "etcd://: expected HOST:PORT[,HOST:PORT…]/PREFIX, found no '/'",
        ),
        (
            "etcd://h:2379/",
            "etcd://: empty key prefix after the endpoints",
        ),
        (
            "etcd://h:2379,h/p",
            "etcd://: endpoint 2 'h': expected HOST:PORT, found no ':'",
        ),
        (
            "etcd://h:70000/p",
            "endpoint 1 'h:70000': expected a port of 1 to 65535, found '70000'",
        ),
        (
            "postgres-env:",
            "postgres-env: expected an environment variable's name",
        ),
        (
            "mysql://h/db",
            "expected etcd://[USER@]HOST:PORT[,HOST:PORT…]/PREFIX, postgres://…, postgresql://…, \
             postgres-env:VAR, zookeeper://HOST:PORT[,HOST:PORT…]/PREFIX or uiap[:CONTROL], found \
             'mysql://h/db'",
        ),
    ] {
        let e = fails(&["new", "v6", "--node-from", source], 2);
        assert_contains!(
            e,
            format!("invalid value '{source}' for '--node-from <SOURCE>'")
        );
        assert_contains!(e, want);
    }
    let e = fails(&["new", "v7", "--node-from", "etcd://h:1/p"], 2);
    assert_contains!(
        e,
        "--node-from does not apply to v7: it applies to v1, v6 and time-based v8"
    );
    let e = fails(
        &[
            "new",
            "v1",
            "--node-from",
            "etcd://h:1/p",
            "--lease-ttl",
            "2500ms",
        ],
        2,
    );
    assert_contains!(
        e,
        "--lease-ttl 2.5s: etcd counts a lease's TTL in whole seconds"
    );
    let e = fails(&["new", "v1", "--lease-ttl", "3s"], 2);
    assert_contains!(
        e,
        "--lease-ttl applies only with --node-from or --site-node"
    );
    let e = fails(&["new", "v1", "--node-from", "uiap", "--site-node"], 2);
    assert_contains!(e, "cannot be used with");
    let e = fails(
        &[
            "new",
            "v1",
            "--node-from",
            "postgres-env:UUIDKIT_TEST_NO_SUCH_VARIABLE",
        ],
        2,
    );
    assert_contains!(
        e,
        "UUIDKIT_TEST_NO_SUCH_VARIABLE: environment variable not found"
    );
}

/// A binary built without the etcd lease says which feature to build it with.
#[cfg(not(feature = "etcd"))]
#[test]
fn etcd_without_the_feature_names_the_feature() {
    let e = fails(&["new", "v1", "--node-from", "etcd://127.0.0.1:2379/p"], 2);
    assert_eq!(
        e,
        "uuidkit: error: --node-from etcd://…: this uuidkit was built without the etcd lease; build it \
         with the Cargo feature `etcd` (cargo install uuidkit-cli --features etcd)\n"
    );
}

/// A binary built without the PostgreSQL lease says which feature to build it with.
#[cfg(not(feature = "postgres"))]
#[test]
fn postgres_without_the_feature_names_the_feature() {
    let e = fails(&["new", "v1", "--node-from", "postgres://h/db"], 2);
    assert_contains!(e, "--features postgres");
}

/// With the etcd lease built in, an etcd that does not answer is a failure (exit 1) naming
/// where it was looked for.
#[cfg(feature = "etcd")]
#[test]
fn an_unreachable_etcd_is_a_failure_naming_the_endpoints() {
    // A port nothing listens on: bound, then released.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let source = format!("etcd://127.0.0.1:{port}/p");
    let e = fails(
        &["new", "v1", "--node-from", &source, "--lease-ttl", "3"],
        1,
    );
    assert_contains!(
        e,
        format!("uuidkit: error: --node-from etcd: cannot reach etcd at 127.0.0.1:{port}")
    );
}

/// With the PostgreSQL lease built in, settings the lease refuses are a usage error, and the
/// connection string is never echoed.
#[cfg(feature = "postgres")]
#[test]
fn a_bad_lease_table_is_a_usage_error() {
    let e = fails(
        &[
            "new",
            "v1",
            "--node-from",
            "postgres://u:secret@h/db",
            "--lease-table",
            "a;b",
        ],
        2,
    );
    assert_contains!(
        e,
        "--node-from postgres: lease table: expected an identifier or schema.identifier"
    );
    assert!(!e.contains("secret"), "{e}");
    let e = fails(
        &[
            "new",
            "v1",
            "--node-from",
            "etcd://h:1/p",
            "--lease-table",
            "t",
        ],
        2,
    );
    assert_contains!(e, "--lease-table applies only to PostgreSQL leases");
}
