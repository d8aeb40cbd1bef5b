//! Throwaway PostgreSQL servers with the `uuidkit` extension loaded, for the
//! extension's tests (`tests/`), its SQL regression suite (`regress/`) and
//! its benchmarks (`benches/sql.rs`).
//!
//! The extension (`crates/uuidkit-pg`) is built outside the workspace with
//! `cargo xtask test`, which lays it out as `cargo pgrx package` does and names the package
//! directory in [`PACKAGE_VAR`]. [`Server::start`] installs a copy of that
//! package into a private installation of the server
//! ([`test_support::db::Postgres::start_with_package`]), starts it, and runs
//! `CREATE EXTENSION uuidkit`.
//!
//! ```
//! use uuidkit_pg_tests::{Scope, Server};
//! let Some(server) = Server::for_test("harness_doc", Scope::Cluster) else { return };
//! let mut client = server.client();
//! let row = client.query_one("SELECT uuidkit.v7_scope()", &[]).unwrap();
//! assert_eq!(row.get::<_, &str>(0), "cluster");
//! ```
#![deny(missing_docs)]

use std::path::PathBuf;

use test_support::db::Postgres;

pub use postgres;

pub mod pure;

/// The environment variable naming the directory `cargo pgrx package`
/// wrote (`…/uuidkit-pg15`, holding `usr/lib/postgresql/15/lib/uuidkit.so`
/// and the control and SQL files).
pub const PACKAGE_VAR: &str = "UUIDKIT_PG_PACKAGE";

/// The environment variable naming the extension's Debian package (the
/// `.deb` file `cargo xtask pg-deb` writes; `cargo xtask test` builds it and
/// sets this), for the test that installs it with `dpkg`.
///
/// ```
/// if let Some(deb) = std::env::var_os(uuidkit_pg_tests::DEB_VAR) {
///     assert!(deb.to_string_lossy().ends_with(".deb"));
/// }
/// ```
pub const DEB_VAR: &str = "UUIDKIT_PG_DEB";

/// Whether the server preloads the library (`shared_preload_libraries`),
/// which decides the order `uuidkit.v7()` keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Preloaded: `v7()` keeps its state in shared memory, one order for
    /// every session of the cluster.
    Cluster,
    /// Loaded by each backend on first use: one order per session.
    Backend,
}

/// The packaged extension, from [`PACKAGE_VAR`].
///
/// # Errors
/// The variable is not set, or does not name a directory with the
/// extension's control file.
///
/// ```
/// match uuidkit_pg_tests::package() {
///     Ok(dir) => assert!(dir.is_dir()),
///     Err(reason) => assert!(reason.contains("UUIDKIT_PG_PACKAGE"), "{reason}"),
/// }
/// ```
pub fn package() -> Result<PathBuf, String> {
    let Some(dir) = std::env::var_os(PACKAGE_VAR) else {
        return Err(format!(
            "the extension is not packaged: run `cargo xtask test` (which builds \
             and packages it and sets {PACKAGE_VAR}), or set {PACKAGE_VAR} to a directory \
             `cargo pgrx package` wrote"
        ));
    };
    let dir = PathBuf::from(dir);
    let control = Postgres::pg_config("--sharedir").map(|share| {
        let relative: PathBuf = share.components().skip(1).collect();
        dir.join(relative).join("extension").join("uuidkit.control")
    })?;
    if control.is_file() {
        Ok(dir)
    } else {
        Err(format!(
            "{PACKAGE_VAR}={} is not the extension's package: expected {}",
            dir.display(),
            control.display()
        ))
    }
}

/// A throwaway server with the extension created in its database; stopped,
/// and its directory removed, on drop.
#[derive(Debug)]
pub struct Server {
    pg: Postgres,
}

impl Server {
    /// Starts a server with the packaged extension and runs
    /// `CREATE EXTENSION uuidkit` in its database.
    ///
    /// # Errors
    /// No package ([`package`]), or the server could not start, or the
    /// extension could not be created (with the server's message).
    ///
    /// ```
    /// use uuidkit_pg_tests::{Scope, Server};
    /// let server = match Server::start(Scope::Backend) {
    ///     Ok(s) => s,
    ///     Err(reason) => return test_support::skip("server_start_doc", reason),
    /// };
    /// assert_eq!(server.postgres().query("SELECT uuidkit.v7_scope()").unwrap(), "backend");
    /// ```
    pub fn start(scope: Scope) -> Result<Self, String> {
        Self::start_with(scope, &[])
    }

    /// As [`start`](Self::start), with more server settings.
    ///
    /// # Errors
    /// As [`start`](Self::start).
    ///
    /// ```
    /// use uuidkit_pg_tests::{Scope, Server};
    /// let Ok(server) = Server::start_with(Scope::Cluster, &[("max_connections", "40")]) else {
    ///     return test_support::skip("server_settings_doc", "no package");
    /// };
    /// assert_eq!(server.postgres().query("SHOW max_connections").unwrap(), "40");
    /// ```
    pub fn start_with(scope: Scope, settings: &[(&str, &str)]) -> Result<Self, String> {
        let package = package()?;
        let mut all: Vec<(&str, &str)> = Vec::new();
        if scope == Scope::Cluster {
            all.push(("shared_preload_libraries", "uuidkit"));
        }
        all.extend_from_slice(settings);
        let pg = Postgres::start_with_package(&package, &all)?;
        pg.query("CREATE EXTENSION uuidkit")
            .map_err(|e| format!("CREATE EXTENSION uuidkit failed: {e}\n{}", pg.log_tail()))?;
        Ok(Self { pg })
    }

    /// [`start`](Self::start), or `None` after recording why `test` is
    /// skipped ([`test_support::skip`]: under `CI=true` that panics).
    ///
    /// # Panics
    /// Under CI, when the server cannot be started.
    ///
    /// ```
    /// use uuidkit_pg_tests::{Scope, Server};
    /// let Some(server) = Server::for_test("server_for_test_doc", Scope::Backend) else { return };
    /// assert_eq!(server.postgres().query("SELECT extversion FROM pg_extension WHERE extname = 'uuidkit'").unwrap(), "0.2.0");
    /// ```
    #[must_use]
    pub fn for_test(test: &str, scope: Scope) -> Option<Self> {
        Self::start(scope)
            .map_err(|e| test_support::skip(test, e))
            .ok()
    }

    /// A new session (a new backend) on the server.
    ///
    /// # Panics
    /// If the server does not accept the connection.
    ///
    /// ```
    /// use uuidkit_pg_tests::{Scope, Server};
    /// let Some(server) = Server::for_test("server_client_doc", Scope::Cluster) else { return };
    /// let (mut a, mut b) = (server.client(), server.client());
    /// let pid = |c: &mut uuidkit_pg_tests::postgres::Client| -> i32 {
    ///     c.query_one("SELECT pg_backend_pid()", &[]).unwrap().get(0)
    /// };
    /// assert_ne!(pid(&mut a), pid(&mut b));
    /// ```
    #[must_use]
    pub fn client(&self) -> postgres::Client {
        postgres::Client::connect(&self.pg.url(), postgres::NoTls)
            .unwrap_or_else(|e| panic!("cannot connect to {}: {e}", self.pg.url()))
    }

    /// The server, for `psql` queries, its socket and its log.
    ///
    /// ```
    /// use uuidkit_pg_tests::{Scope, Server};
    /// let Some(server) = Server::for_test("server_postgres_doc", Scope::Cluster) else { return };
    /// assert_eq!(server.postgres().query("SHOW shared_preload_libraries").unwrap(), "uuidkit");
    /// ```
    #[must_use]
    pub fn postgres(&self) -> &Postgres {
        &self.pg
    }
}

/// The one value of the one row `sql` returns.
///
/// # Panics
/// If the statement fails or does not return exactly one row, with the
/// statement and the error.
///
/// ```
/// use uuidkit_pg_tests::{Scope, Server, scalar};
/// let Some(server) = Server::for_test("scalar_doc", Scope::Backend) else { return };
/// let n: i32 = scalar(&mut server.client(), "SELECT 6 * 7");
/// assert_eq!(n, 42);
/// ```
pub fn scalar<T>(client: &mut postgres::Client, sql: &str) -> T
where
    T: for<'a> postgres::types::FromSql<'a>,
{
    match client.query_one(sql, &[]) {
        Ok(row) => row.get(0),
        Err(e) => panic!("{sql}: {e}"),
    }
}

/// The SQLSTATE and message of the error `sql` raises; the session stays
/// usable afterwards (an error, not a crash).
///
/// # Panics
/// If the statement succeeds, or fails other than with an error from the
/// server (a lost connection: the backend crashed).
///
/// ```
/// use uuidkit_pg_tests::{Scope, Server, sql_error};
/// let Some(server) = Server::for_test("sql_error_doc", Scope::Backend) else { return };
/// let (code, message) = sql_error(&mut server.client(), "SELECT 1 / 0");
/// assert_eq!((code.as_str(), message.as_str()), ("22012", "division by zero"));
/// ```
pub fn sql_error(client: &mut postgres::Client, sql: &str) -> (String, String) {
    let e = match client.simple_query(sql) {
        Ok(_) => panic!("{sql}: succeeded, expected an error"),
        Err(e) => e,
    };
    let Some(db) = e.as_db_error() else {
        panic!("{sql}: failed without an error from the server (a crash?): {e}")
    };
    let got = (db.code().code().to_string(), db.message().to_string());
    let alive = client.simple_query("SELECT 1");
    assert!(
        alive.is_ok(),
        "{sql}: the session did not survive: {alive:?}"
    );
    got
}
