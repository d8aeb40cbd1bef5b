//! What the workspace's tests need from the machine, one row per thing.
//!
//! A test that needs something new adds a row here, and `cargo xtask test`
//! (and CI, through `cargo xtask provision`) installs it: a Debian package
//! with `apt-get` when run as root, a cargo tool with `cargo install`. What a
//! row's `builds` names cannot even compile without it (a C library a
//! `-sys` crate links, a code generator a build script runs): when the row
//! is missing, those features or crates are left out of the build and
//! listed as not run, instead of failing in a build script.

use super::{Build, CargoTool, Package, Probe};

/// The Debian packages, each with how to tell that it is installed.
pub const PACKAGES: &[Package] = &[
    // Throwaway database servers (test-support's `db` module), for the
    // database tests, `uuidkit range --sql` and the locality benchmark. It
    // finds PostgreSQL beside `initdb` on PATH or in Debian's
    // /usr/lib/postgresql/<version>/bin; pgstattuple ships with it.
    Package {
        name: "postgresql-15",
        found: Probe::Any(&[
            Probe::Program("initdb"),
            Probe::Path("/usr/lib/postgresql/*/bin/initdb"),
        ]),
        builds: &[],
    },
    // `psql` on PATH is Debian's wrapper, there without any client: the
    // client itself is looked for where test-support looks first.
    Package {
        name: "postgresql-client-15",
        found: Probe::Path("/usr/lib/postgresql/*/bin/psql"),
        builds: &[],
    },
    Package {
        name: "mariadb-server",
        found: Probe::All(&[
            Probe::Program("mariadbd"),
            Probe::Program("mariadb-install-db"),
        ]),
        builds: &[],
    },
    Package {
        name: "mariadb-client",
        found: Probe::Program("mariadb"),
        builds: &[],
    },
    Package {
        name: "sqlite3",
        found: Probe::Program("sqlite3"),
        builds: &[],
    },
    // The SQLite the project on the drivers' current releases links
    // (crates/uuidkit-db-tests/current-drivers: rusqlite without `bundled`).
    Package {
        name: "libsqlite3-dev",
        found: Probe::Path("/usr/include/sqlite3.h"),
        builds: &[],
    },
    // The C client libraries diesel's PostgreSQL and MySQL connections link
    // (pq-sys, mysqlclient-sys): uuidkit's database tests (the crate
    // uuidkit-db-tests) connect with them.
    Package {
        name: "libpq-dev",
        found: Probe::Path("/usr/include/postgresql/libpq-fe.h"),
        builds: &[Build::Crate("uuidkit-db-tests")],
    },
    Package {
        name: "libmariadb-dev-compat",
        found: Probe::Path("/usr/bin/mysql_config"),
        builds: &[Build::Crate("uuidkit-db-tests")],
    },
    // A PostgreSQL extension's build: the server headers, and libclang for
    // the bindings generated from them.
    Package {
        name: "postgresql-server-dev-15",
        found: Probe::Path("/usr/include/postgresql/15/server/postgres.h"),
        builds: &[],
    },
    Package {
        name: "libclang-dev",
        found: Probe::Path("/usr/lib/llvm-*/lib/libclang.so"),
        builds: &[],
    },
    // A throwaway etcd cluster, and `protoc` for the etcd client's build.
    Package {
        name: "etcd-server",
        found: Probe::Program("etcd"),
        builds: &[],
    },
    // A throwaway Redis server (test-support's `db::Redis`), for the redis integration's tests
    // (crates/uuidkit-web-tests) and the web-service proof's cache (crates/web-proof).
    Package {
        name: "redis-server",
        found: Probe::Program("redis-server"),
        builds: &[],
    },
    // A throwaway ZooKeeper ensemble (test-support's `ZooKeeperEnsemble`): the server's jar and the
    // libraries beside it in /usr/share/java, run by the Java runtime the package depends on.
    Package {
        name: "zookeeper",
        found: Probe::Path("/usr/share/java/zookeeper.jar"),
        builds: &[],
    },
    // `etcdctl`: tests that act on a cluster as an operator would (the command's tests).
    Package {
        name: "etcd-client",
        found: Probe::Program("etcdctl"),
        builds: &[],
    },
    // `openssl`: the certificates of the etcd cluster held to TLS.
    Package {
        name: "openssl",
        found: Probe::Program("openssl"),
        builds: &[],
    },
    Package {
        name: "protobuf-compiler",
        found: Probe::Program("protoc"),
        builds: &[],
    },
    // protobuf's own definitions (`google/protobuf/descriptor.proto`, …), which etcd-client's
    // definitions import: protoc alone cannot compile them.
    Package {
        name: "libprotobuf-dev",
        found: Probe::Path("/usr/include/google/protobuf/descriptor.proto"),
        builds: &[],
    },
    // Network namespaces and their links (uiapd's tests); 20 % loss on a
    // link is an nftables rule where the kernel has no sch_netem.
    Package {
        name: "iproute2",
        found: Probe::All(&[Probe::Program("ip"), Probe::Program("tc")]),
        builds: &[],
    },
    Package {
        name: "nftables",
        found: Probe::Program("nft"),
        builds: &[],
    },
    // The state-store test of an unwritable directory: `chattr +i` (root
    // bypasses permission bits).
    Package {
        name: "e2fsprogs",
        found: Probe::Program("chattr"),
        builds: &[],
    },
    // The Python package's suite (a virtual environment made with `venv`),
    // and the encodings' second reference (Python's base64 module).
    Package {
        name: "python3",
        found: Probe::Program("python3"),
        builds: &[],
    },
    Package {
        name: "python3-venv",
        found: Probe::Runs(&["python3", "-c", "import ensurepip, venv"]),
        builds: &[],
    },
    // The torture suite steps the clock of CLI processes with libfaketime.
    Package {
        name: "faketime",
        found: Probe::Path("/usr/lib/*/faketime/libfaketime.so.1"),
        builds: &[],
    },
    // The CLI's tests: what `inspect --json` prints read by JavaScript, and
    // the system calls of `convert` counted.
    Package {
        name: "nodejs",
        found: Probe::Program("node"),
        builds: &[],
    },
    Package {
        name: "strace",
        found: Probe::Program("strace"),
        builds: &[],
    },
];

/// Programs built with `cargo install`, each at the version of the crate it
/// serves as a lock file pins it, and only once a lock file has that crate.
pub const CARGO_TOOLS: &[CargoTool] = &[
    // The runner of the wasm32 tests (crates/wasm-tests) under Node.js: it
    // must be exactly the wasm-bindgen the lock file names.
    CargoTool {
        name: "wasm-bindgen-cli",
        program: "wasm-bindgen-test-runner",
        locked_crate: "wasm-bindgen",
        lock_files: &["Cargo.lock"],
        builds: &[],
    },
];
