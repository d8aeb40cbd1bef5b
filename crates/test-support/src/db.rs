//! Throwaway database servers for tests and benchmarks: [`Postgres`],
//! [`MariaDb`] and [`Redis`], and registries: a three-member [`EtcdCluster`] and a
//! three-member [`ZooKeeperEnsemble`] on loopback ports.
//!
//! Each `start()` creates a fresh data directory under the system temporary
//! directory, starts the server on a Unix socket inside it (no TCP port, so
//! parallel tests never collide), waits until it answers, and creates one
//! empty database. Dropping the value stops the server and removes the
//! directory, also when a test panics.
//!
//! ```
//! use test_support::db::Postgres;
//! let Some(pg) = Postgres::for_test("db_module_doc") else { return };
//! assert_eq!(pg.query("SELECT 6 * 7").unwrap(), "42");
//! let socket = pg.socket_path();
//! drop(pg);
//! assert!(!socket.exists());
//! ```
//!
//! The examples of the starting functions run (each starts its server); those
//! of the accessors are compiled only: each would start a server of its own to
//! read one field, and the tests that use the servers read them all.
//!
//! # Guarantees
//! - `start()` never hangs: it gives up after [`START_TIMEOUT`], and its
//!   error carries the end of the server's log.
//! - The server runs as an unprivileged user when the caller is root
//!   (PostgreSQL refuses root): `postgres` if that user exists, else
//!   `nobody`. MariaDB is told `--user=root` instead, as it allows.
//! - The server is also killed if the thread that started it ends without
//!   dropping it (`PR_SET_PDEATHSIG`), so a killed test run leaves no server
//!   behind; keep the value on the thread that called `start()`.

mod etcd;
mod etcd_tls;
mod install;
mod mariadb;
mod postgres;
pub(crate) mod process;
mod redis;
mod zookeeper;

pub use etcd::{EtcdCluster, MEMBERS as ETCD_MEMBERS};
pub use etcd_tls::TlsFiles;
pub use mariadb::MariaDb;
pub use postgres::Postgres;
pub use redis::Redis;
pub use zookeeper::ZooKeeperEnsemble;

use std::time::Duration;

/// The longest `start()` waits for a server to accept connections.
///
/// Generous on purpose: on a loaded two-core machine several test binaries
/// start servers at once.
pub const START_TIMEOUT: Duration = Duration::from_secs(90);

/// The name of the empty database every started server has.
///
/// ```
/// assert_eq!(test_support::db::DATABASE, "uuidkit_test");
/// ```
pub const DATABASE: &str = "uuidkit_test";
