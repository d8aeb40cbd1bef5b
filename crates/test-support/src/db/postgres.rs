//! A throwaway PostgreSQL server.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::DATABASE;
use super::install;
use super::process::{ScratchDir, Server, User, find_program, free_ports, percent_encode, run};

/// The port number in the socket's name (`.s.PGSQL.<port>`) of a server that opens no TCP
/// port; one held to TLS ([`Postgres::start_tls`]) listens on a free loopback port instead.
const PORT: u16 = 5432;

/// The superuser role the cluster is created with (trust authentication).
const SUPERUSER: &str = "postgres";

/// Settings every instance starts with: durability is pointless for a
/// throwaway cluster, and nothing listens on TCP. Later settings win.
const BASE_SETTINGS: &[(&str, &str)] = &[
    ("listen_addresses", ""),
    ("fsync", "off"),
    ("synchronous_commit", "off"),
];

/// A PostgreSQL server in a temporary directory, stopped (and the directory
/// removed) on drop. See the [module docs](super).
///
/// The server is found as `initdb` next to `postgres`: on `PATH`, else in
/// the newest `/usr/lib/postgresql/<version>/bin` (Debian's layout).
#[derive(Debug)]
pub struct Postgres {
    // Declared before `dir`: the server stops before its directory goes.
    server: Option<Server>,
    /// How the server is started, for [`restart`](Self::restart).
    command: Vec<std::ffi::OsString>,
    user: Option<User>,
    bin: PathBuf,
    port: u16,
    tls: bool,
    dir: ScratchDir,
}

impl Postgres {
    /// Starts a server with the default settings (see [`start_with`](Self::start_with)).
    ///
    /// # Errors
    /// Why no server could be started: PostgreSQL is not installed, `initdb`
    /// failed, or the server did not accept connections in time (with the
    /// end of its log). Tests pass this to [`crate::skip`], or call
    /// [`for_test`](Self::for_test).
    ///
    /// ```
    /// let pg = match test_support::db::Postgres::start() {
    ///     Ok(pg) => pg,
    ///     Err(reason) => return test_support::skip("postgres_start_doc", reason),
    /// };
    /// assert!(pg.query("SHOW server_version").unwrap().starts_with(char::is_numeric));
    /// ```
    pub fn start() -> Result<Self, String> {
        Self::start_with(&[])
    }

    /// Starts a server with `settings` (`postgresql.conf` names and values)
    /// on top of these defaults: `listen_addresses = ''`, `fsync = off`,
    /// `synchronous_commit = off`.
    ///
    /// # Errors
    /// As [`start`](Self::start); an unknown setting's error names it.
    ///
    /// ```
    /// use test_support::db::Postgres;
    /// let pg = match Postgres::start_with(&[("work_mem", "8MB")]) {
    ///     Ok(pg) => pg,
    ///     Err(reason) => return test_support::skip("postgres_settings_doc", reason),
    /// };
    /// assert_eq!(pg.query("SHOW work_mem").unwrap(), "8MB");
    /// ```
    pub fn start_with(settings: &[(&str, &str)]) -> Result<Self, String> {
        Self::start_from(None, settings, false)
    }

    /// Starts a server that also listens on a free loopback port, where it takes only
    /// connections that speak TLS and show a client certificate signed by the server's own CA
    /// (`hostssl … clientcert=verify-ca`; plain TCP connections find no `pg_hba.conf` entry).
    /// Its certificate names IP 127.0.0.1. The CA, and a client certificate and key signed by
    /// it, are made with the `openssl` command: see [`tls_files`](Self::tls_files). The Unix
    /// socket stays open, without TLS, for [`query`](Self::query).
    ///
    /// # Errors
    /// As [`start`](Self::start); also when `openssl` cannot make the certificates.
    ///
    /// ```
    /// use test_support::db::Postgres;
    /// let pg = match Postgres::start_tls() {
    ///     Ok(pg) => pg,
    ///     Err(reason) => return test_support::skip("postgres_tls_doc", reason),
    /// };
    /// assert_eq!(pg.query("SHOW ssl").unwrap(), "on");
    /// assert!(pg.tls_files().unwrap().ca.exists());
    /// ```
    pub fn start_tls() -> Result<Self, String> {
        Self::start_from(None, &[], true)
    }

    /// As [`start_with`](Self::start_with), from a private copy of the
    /// installation with the files of `package` added: a directory laid out
    /// as the installation's own (`usr/lib/postgresql/15/lib/…`,
    /// `usr/share/postgresql/15/extension/…` on Debian), as `cargo pgrx
    /// package` and `make install DESTDIR=…` write it. So `CREATE EXTENSION`
    /// and `shared_preload_libraries` find an extension that is not
    /// installed, and nothing outside the server's temporary directory is
    /// written.
    ///
    /// # Errors
    /// As [`start`](Self::start); also when `package` has no files under the
    /// share or library directory, or they cannot be copied.
    ///
    /// ```no_run
    /// use test_support::db::Postgres;
    /// // As `cargo pgrx package` leaves it (PostgreSQL 15 on Debian):
    /// // target/release/uuidkit-pg15/usr/share/postgresql/15/extension/uuidkit.control, …
    /// // target/release/uuidkit-pg15/usr/lib/postgresql/15/lib/uuidkit.so
    /// let package = std::path::Path::new("target/release/uuidkit-pg15");
    /// let pg = Postgres::start_with_package(package, &[("shared_preload_libraries", "uuidkit")])?;
    /// pg.query("CREATE EXTENSION uuidkit")?;
    /// # Ok::<(), String>(())
    /// ```
    pub fn start_with_package(package: &Path, settings: &[(&str, &str)]) -> Result<Self, String> {
        Self::start_from(Some(package), settings, false)
    }

    /// One of the directories `pg_config` reports (`--sharedir`,
    /// `--pkglibdir`, `--bindir`, …) for the installation the servers start
    /// from; for laying out a package for
    /// [`start_with_package`](Self::start_with_package), or finding a tool
    /// such as `pg_regress` (under `--pkglibdir`, in `pgxs/src/test/regress`).
    ///
    /// # Errors
    /// PostgreSQL or its `pg_config` is not installed, or it reported
    /// something other than an absolute path.
    ///
    /// ```no_run
    /// use test_support::db::Postgres;
    /// let Ok(share) = Postgres::pg_config("--sharedir") else {
    ///     return test_support::skip("postgres_pg_config_doc", "no PostgreSQL");
    /// };
    /// assert!(share.join("extension").join("plpgsql.control").is_file());
    /// ```
    pub fn pg_config(flag: &str) -> Result<PathBuf, String> {
        install::pg_config(&bin_dir()?, flag)
    }

    fn start_from(
        package: Option<&Path>,
        settings: &[(&str, &str)],
        tls: bool,
    ) -> Result<Self, String> {
        let bin = bin_dir()?;
        let user = User::unprivileged(&["postgres", "nobody"])?;
        let dir = ScratchDir::new("pg", user.as_ref())?;
        let (port, tls_settings) = if tls {
            let port = free_ports(1)?[0];
            (port, tls_setup(dir.path(), user.as_ref())?)
        } else {
            (PORT, Vec::new())
        };
        let data = dir.path().join("data");

        let mut initdb = Command::new(bin.join("initdb"));
        initdb
            .arg("--pgdata")
            .arg(&data)
            .args(["--username", SUPERUSER, "--auth=trust", "--no-sync"])
            .args(["--encoding=UTF8", "--locale=C"]);
        if let Some(u) = &user {
            u.apply(&mut initdb);
        }
        run("initdb", &mut initdb)?;

        let server_bin = match package {
            Some(p) => install::build(&bin, p, &dir.path().join("install"))?,
            None => bin.clone(),
        };
        let mut command = vec![server_bin.join("postgres").into_os_string(), "-D".into()];
        command.push(data.into_os_string());
        command.extend(["-k".into(), dir.path().as_os_str().to_owned()]);
        command.extend(["-p".into(), port.to_string().into()]);
        let tls_settings: Vec<(&str, &str)> =
            tls_settings.iter().map(|(n, v)| (*n, v.as_str())).collect();
        for (name, value) in BASE_SETTINGS.iter().chain(&tls_settings).chain(settings) {
            command.extend(["-c".into(), format!("{name}={value}").into()]);
        }
        let mut pg = Self {
            server: None,
            command,
            user,
            bin,
            port,
            tls,
            dir,
        };
        pg.spawn()?;
        pg.query_in("postgres", &format!("CREATE DATABASE {DATABASE}"))?;
        Ok(pg)
    }

    /// Starts the server on its data directory and waits until it accepts
    /// connections.
    fn spawn(&mut self) -> Result<(), String> {
        let mut postgres = Command::new(&self.command[0]);
        postgres.args(&self.command[1..]);
        if let Some(u) = &self.user {
            u.apply(&mut postgres);
        }
        // SIGINT is PostgreSQL's "fast" shutdown: no waiting for clients.
        let log = self.dir.path().join("server.log");
        let server = self
            .server
            .insert(Server::spawn("PostgreSQL", postgres, log, libc::SIGINT)?);
        let (bin, dir, port) = (self.bin.clone(), self.dir.path().to_path_buf(), self.port);
        server.wait_ready("PostgreSQL", || {
            psql(&bin, &dir, port, "postgres", "SELECT 1").map(drop)
        })
    }

    /// Stops the server (a fast shutdown: clients are disconnected) and
    /// waits for it; its data stays, for [`restart`](Self::restart).
    pub fn stop(&mut self) {
        self.server = None;
    }

    /// Crashes the server: every one of its processes killed with SIGKILL at once, so that
    /// whatever it had not written (WAL held back by `synchronous_commit = off`) is lost, as in
    /// a crash; [`restart`](Self::restart) then runs crash recovery.
    ///
    /// ```no_run
    /// let Some(mut pg) = test_support::db::Postgres::for_test("postgres_crash_doc") else { return };
    /// pg.query("CREATE TABLE t (x int); CHECKPOINT").unwrap();
    /// pg.crash();
    /// pg.restart().unwrap();
    /// assert_eq!(pg.query("SELECT count(*) FROM t").unwrap(), "0");
    /// ```
    pub fn crash(&mut self) {
        if let Some(server) = self.server.take() {
            server.crash();
        }
    }

    /// Starts the server again on its data (after [`stop`](Self::stop); a
    /// running server is left as it is) and waits until it accepts
    /// connections.
    ///
    /// # Errors
    /// When it does not accept connections in time (with the end of its log).
    ///
    /// ```
    /// let Some(mut pg) = test_support::db::Postgres::for_test("postgres_restart_doc") else { return };
    /// pg.query("CREATE TABLE kept (x int); INSERT INTO kept VALUES (7)").unwrap();
    /// pg.stop();
    /// assert!(pg.query("SELECT 1").is_err());
    /// pg.restart().unwrap();
    /// assert_eq!(pg.query("SELECT x FROM kept").unwrap(), "7");
    /// ```
    pub fn restart(&mut self) -> Result<(), String> {
        if self.server.is_none() {
            self.spawn()?;
        }
        Ok(())
    }

    /// [`start`](Self::start), or `None` after recording why `test` is
    /// skipped ([`crate::skip`]: under `CI=true` that panics).
    ///
    /// # Panics
    /// Under CI, when no server can be started.
    ///
    /// ```no_run
    /// let Some(pg) = test_support::db::Postgres::for_test("postgres_for_test_doc") else {
    ///     return;
    /// };
    /// assert_eq!(pg.query("SELECT current_database()").unwrap(), "uuidkit_test");
    /// ```
    #[must_use]
    pub fn for_test(test: &str) -> Option<Self> {
        Self::start().map_err(|e| crate::skip(test, e)).ok()
    }

    /// A connection URL for the fresh database [`DATABASE`], which
    /// libpq, `tokio-postgres`, `postgres` and sqlx all accept: the socket
    /// directory is the percent-encoded host.
    ///
    /// ```no_run
    /// let Some(pg) = test_support::db::Postgres::for_test("postgres_url_doc") else { return };
    /// let url = pg.url();
    /// assert!(url.starts_with("postgresql://postgres@%2F"), "{url}");
    /// assert!(url.ends_with(":5432/uuidkit_test"), "{url}");
    /// ```
    #[must_use]
    pub fn url(&self) -> String {
        let host = percent_encode(self.socket_dir());
        format!("postgresql://{SUPERUSER}@{host}:{}/{DATABASE}", self.port)
    }

    /// A connection URL over TCP to the loopback port of a server held to TLS
    /// ([`start_tls`](Self::start_tls)), which answers there only; `None` for one on its
    /// socket alone.
    ///
    /// ```no_run
    /// let Some(pg) = test_support::db::Postgres::for_test("postgres_tcp_url_doc") else { return };
    /// assert_eq!(pg.tcp_url(), None);
    /// ```
    #[must_use]
    pub fn tcp_url(&self) -> Option<String> {
        self.tls.then(|| {
            format!(
                "postgresql://{SUPERUSER}@127.0.0.1:{}/{DATABASE}",
                self.port
            )
        })
    }

    /// The directory holding the server's socket (a client's "host").
    ///
    /// ```no_run
    /// let Some(pg) = test_support::db::Postgres::for_test("postgres_dir_doc") else { return };
    /// assert_eq!(pg.socket_path().parent(), Some(pg.socket_dir()));
    /// ```
    #[must_use]
    pub fn socket_dir(&self) -> &Path {
        self.dir.path()
    }

    /// The server's socket file (`.s.PGSQL.5432` in [`socket_dir`](Self::socket_dir)).
    ///
    /// ```no_run
    /// let Some(pg) = test_support::db::Postgres::for_test("postgres_socket_doc") else { return };
    /// assert!(pg.socket_path().exists());
    /// ```
    #[must_use]
    pub fn socket_path(&self) -> PathBuf {
        self.dir.path().join(format!(".s.PGSQL.{}", self.port))
    }

    /// The port number clients give along with [`socket_dir`](Self::socket_dir).
    ///
    /// ```no_run
    /// let Some(pg) = test_support::db::Postgres::for_test("postgres_port_doc") else { return };
    /// assert!(pg.socket_path().ends_with(format!(".s.PGSQL.{}", pg.port())));
    /// ```
    #[must_use]
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The certificates of a server held to TLS ([`start_tls`](Self::start_tls)); `None` for
    /// one that is not.
    ///
    /// ```no_run
    /// let Some(pg) = test_support::db::Postgres::for_test("postgres_no_tls_doc") else { return };
    /// assert!(pg.tls_files().is_none());
    /// ```
    #[must_use]
    pub fn tls_files(&self) -> Option<super::TlsFiles> {
        self.tls
            .then(|| super::TlsFiles::in_dir(&self.dir.path().join("tls")))
    }

    /// The role to connect as (a superuser; no password).
    ///
    /// ```no_run
    /// let Some(pg) = test_support::db::Postgres::for_test("postgres_user_doc") else { return };
    /// assert_eq!(pg.query("SELECT current_user").unwrap(), pg.user());
    /// ```
    #[must_use]
    pub fn user(&self) -> &'static str {
        SUPERUSER
    }

    /// Runs `sql` in [`DATABASE`] with the command-line client `psql` and
    /// returns its output: one line per row, fields separated by `|`, no
    /// header, without the final newline.
    ///
    /// # Errors
    /// `psql` failed (for example an SQL error), with its message.
    ///
    /// ```no_run
    /// let Some(pg) = test_support::db::Postgres::for_test("postgres_query_doc") else { return };
    /// assert_eq!(pg.query("SELECT 1, 'a' UNION ALL SELECT 2, 'b'").unwrap(), "1|a\n2|b");
    /// assert!(pg.query("SELEC 1").unwrap_err().contains("syntax error"));
    /// ```
    pub fn query(&self, sql: &str) -> Result<String, String> {
        self.query_in(DATABASE, sql)
    }

    /// The end of the server's log (for a failing test's message).
    ///
    /// ```no_run
    /// let Some(pg) = test_support::db::Postgres::for_test("postgres_log_doc") else { return };
    /// assert!(pg.log_tail().contains("ready to accept connections"));
    /// ```
    #[must_use]
    pub fn log_tail(&self) -> String {
        super::process::tail(&self.dir.path().join("server.log"))
    }

    fn query_in(&self, database: &str, sql: &str) -> Result<String, String> {
        psql(&self.bin, self.dir.path(), self.port, database, sql)
    }
}

/// Runs `psql` from `bin` (or `PATH`) on the socket in `dir`.
fn psql(bin: &Path, dir: &Path, port: u16, database: &str, sql: &str) -> Result<String, String> {
    let program = find_program("psql", &[bin.join("psql")])?;
    let out = run(
        "psql",
        Command::new(program)
            .args(["-X", "-A", "-t", "-q", "-v", "ON_ERROR_STOP=1"])
            .arg("-h")
            .arg(dir)
            .args(["-p", &port.to_string(), "-U", SUPERUSER, "-d", database])
            .arg("-c")
            .arg(sql),
    )?;
    let text = String::from_utf8_lossy(&out.stdout);
    Ok(text.strip_suffix('\n').unwrap_or(&text).to_string())
}

/// Makes the certificates of a server held to TLS in `dir/tls` (the server's key readable by
/// `user` alone, as PostgreSQL demands) and its `pg_hba.conf`; returns the settings that use
/// them.
fn tls_setup(dir: &Path, user: Option<&User>) -> Result<Vec<(&'static str, String)>, String> {
    use std::os::unix::fs::PermissionsExt;
    let tls = dir.join("tls");
    std::fs::create_dir(&tls).map_err(|e| format!("cannot create {}: {e}", tls.display()))?;
    super::etcd_tls::make(&tls)?;
    let hba = dir.join("pg_hba.conf");
    std::fs::write(
        &hba,
        "local all all trust\nhostssl all all 127.0.0.1/32 trust clientcert=verify-ca\n",
    )
    .map_err(|e| format!("cannot write {}: {e}", hba.display()))?;
    for entry in std::fs::read_dir(&tls)
        .map_err(|e| e.to_string())?
        .flatten()
    {
        let path = entry.path();
        if let Some(u) = user {
            std::os::unix::fs::chown(&path, Some(u.uid), Some(u.gid))
                .map_err(|e| format!("cannot give {} to {}: {e}", path.display(), u.name))?;
        }
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))
            .map_err(|e| format!("cannot set the mode of {}: {e}", path.display()))?;
    }
    let file = |name: &str| tls.join(name).display().to_string();
    Ok(vec![
        ("listen_addresses", "127.0.0.1".into()),
        ("ssl", "on".into()),
        ("ssl_cert_file", file("server.crt")),
        ("ssl_key_file", file("server.key")),
        ("ssl_ca_file", file("ca.crt")),
        ("hba_file", hba.display().to_string()),
    ])
}

/// The directory with `initdb` and `postgres`: next to `initdb` on `PATH`
/// (following a symlink), else the newest `/usr/lib/postgresql/*/bin`.
fn bin_dir() -> Result<PathBuf, String> {
    let has_server = |dir: &Path| dir.join("initdb").is_file() && dir.join("postgres").is_file();
    if let Ok(initdb) = find_program("initdb", &[])
        && let Some(dir) = std::fs::canonicalize(&initdb)
            .ok()
            .and_then(|p| p.parent().map(Path::to_path_buf))
            .filter(|d| has_server(d))
    {
        return Ok(dir);
    }
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let version = e.file_name().to_str()?.parse().ok()?;
            Some((version, e.path().join("bin")))
        })
        .filter(|(_, bin)| has_server(bin))
        .collect();
    versions.sort();
    versions.pop().map(|(_, bin)| bin).ok_or_else(|| {
        "PostgreSQL is not installed: no `initdb` beside `postgres` on PATH \
         or in /usr/lib/postgresql/*/bin"
            .to_string()
    })
}
