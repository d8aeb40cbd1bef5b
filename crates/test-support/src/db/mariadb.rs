//! A throwaway MariaDB server.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::DATABASE;
use super::process::{ScratchDir, Server, find_program, is_root, percent_encode, run, tail};

/// Options every instance starts with (after `--no-defaults`, so no
/// system-wide `my.cnf` applies): no TCP, and no flushing on commit, which a
/// throwaway server does not need. Later options win.
const BASE_OPTIONS: &[(&str, &str)] = &[
    ("skip-networking", ""),
    ("innodb-flush-log-at-trx-commit", "0"),
    ("innodb-buffer-pool-size", "128M"),
];

/// A MariaDB server in a temporary directory, stopped (and the directory
/// removed) on drop. See the [module docs](super).
///
/// Needs `mariadb-install-db`, `mariadbd` (on `PATH` or in `/usr/sbin`) and
/// the client `mariadb`. Connect as `root` without a password.
#[derive(Debug)]
pub struct MariaDb {
    // Declared before `dir`: the server stops before its directory goes.
    server: Server,
    client: PathBuf,
    dir: ScratchDir,
}

impl MariaDb {
    /// Starts a server with the default options (see [`start_with`](Self::start_with)).
    ///
    /// # Errors
    /// Why no server could be started: MariaDB is not installed,
    /// `mariadb-install-db` failed, or the server did not accept connections
    /// in time (with the end of its log).
    ///
    /// ```
    /// let db = match test_support::db::MariaDb::start() {
    ///     Ok(db) => db,
    ///     Err(reason) => return test_support::skip("mariadb_start_doc", reason),
    /// };
    /// assert!(db.query("SELECT VERSION()").unwrap().contains("MariaDB"));
    /// ```
    pub fn start() -> Result<Self, String> {
        Self::start_with(&[])
    }

    /// Starts a server with `options` (server option names without the
    /// leading `--`, and values; an empty value gives a bare flag) on top of
    /// these defaults: `--skip-networking`,
    /// `--innodb-flush-log-at-trx-commit=0`, `--innodb-buffer-pool-size=128M`.
    ///
    /// # Errors
    /// As [`start`](Self::start); an unknown option's error names it.
    ///
    /// ```
    /// use test_support::db::MariaDb;
    /// let db = match MariaDb::start_with(&[("innodb-buffer-pool-size", "64M")]) {
    ///     Ok(db) => db,
    ///     Err(reason) => return test_support::skip("mariadb_options_doc", reason),
    /// };
    /// let bytes = db.query("SELECT @@innodb_buffer_pool_size").unwrap();
    /// assert_eq!(bytes, (64 << 20).to_string());
    /// ```
    pub fn start_with(options: &[(&str, &str)]) -> Result<Self, String> {
        let sbin = [PathBuf::from("/usr/sbin/mariadbd")];
        let mariadbd = find_program("mariadbd", &sbin)?;
        let install = find_program("mariadb-install-db", &[])?;
        let client = find_program("mariadb", &[])?;
        // MariaDB may run as root when told so; the directory stays root's.
        let root = is_root();
        let dir = ScratchDir::new("maria", None)?;
        let data = dir.path().join("data");
        // Temporary tables in the instance's own directory, not the shared
        // /tmp: the bootstrap of `mariadb-install-db` failed now and then
        // with its temporary table gone from /tmp while other tests ran.
        let tmp = dir.path().join("tmp");
        std::fs::create_dir(&tmp).map_err(|e| format!("cannot create {}: {e}", tmp.display()))?;

        let mut cmd = Command::new(install);
        cmd.env("TMPDIR", &tmp)
            .arg("--no-defaults")
            .arg(format!("--datadir={}", data.display()))
            .args(["--auth-root-authentication-method=normal", "--skip-test-db"]);
        if root {
            cmd.arg("--user=root");
        }
        run("mariadb-install-db", &mut cmd)?;

        let mut server = Command::new(mariadbd);
        server
            .env("TMPDIR", &tmp)
            .arg("--no-defaults")
            .arg(format!("--datadir={}", data.display()))
            .arg(format!("--tmpdir={}", tmp.display()))
            .arg(format!("--socket={}", socket(dir.path()).display()))
            .arg(format!(
                "--pid-file={}",
                dir.path().join("mariadbd.pid").display()
            ))
            .arg(format!(
                "--log-error={}",
                dir.path().join("server.log").display()
            ));
        if root {
            server.arg("--user=root");
        }
        for (name, value) in BASE_OPTIONS.iter().chain(options) {
            server.arg(if value.is_empty() {
                format!("--{name}")
            } else {
                format!("--{name}={value}")
            });
        }
        // The server writes its log to `server.log` itself (--log-error);
        // what it prints before that is opened goes to `console.log`.
        let console = dir.path().join("console.log");
        let server = Server::spawn("MariaDB", server, console, libc::SIGTERM)?;
        let mut db = Self {
            server,
            client,
            dir,
        };
        let (client, dir) = (db.client.clone(), db.dir.path().to_path_buf());
        db.server
            .wait_ready("MariaDB", || {
                mariadb(&client, &dir, None, "SELECT 1").map(drop)
            })
            .map_err(|e| format!("{e}\n{}", tail(&dir.join("server.log"))))?;
        mariadb(
            &db.client,
            db.dir.path(),
            None,
            &format!("CREATE DATABASE {DATABASE}"),
        )?;
        Ok(db)
    }

    /// [`start`](Self::start), or `None` after recording why `test` is
    /// skipped ([`crate::skip`]: under `CI=true` that panics).
    ///
    /// # Panics
    /// Under CI, when no server can be started.
    ///
    /// ```no_run
    /// let Some(db) = test_support::db::MariaDb::for_test("mariadb_for_test_doc") else {
    ///     return;
    /// };
    /// assert_eq!(db.query("SELECT DATABASE()").unwrap(), "uuidkit_test");
    /// ```
    #[must_use]
    pub fn for_test(test: &str) -> Option<Self> {
        Self::start().map_err(|e| crate::skip(test, e)).ok()
    }

    /// A connection URL for the fresh database [`DATABASE`] in the form
    /// sqlx's MySQL driver reads (`mysql://root@localhost/uuidkit_test?socket=…`).
    /// Other clients take [`socket_path`](Self::socket_path) and
    /// [`user`](Self::user) directly.
    ///
    /// ```no_run
    /// let Some(db) = test_support::db::MariaDb::for_test("mariadb_url_doc") else { return };
    /// let url = db.url();
    /// assert!(url.starts_with("mysql://root@localhost/uuidkit_test?socket=%2F"), "{url}");
    /// ```
    #[must_use]
    pub fn url(&self) -> String {
        let socket = percent_encode(&self.socket_path());
        format!("mysql://root@localhost/{DATABASE}?socket={socket}")
    }

    /// The server's Unix socket.
    ///
    /// ```no_run
    /// let Some(db) = test_support::db::MariaDb::for_test("mariadb_socket_doc") else { return };
    /// assert!(db.socket_path().exists());
    /// ```
    #[must_use]
    pub fn socket_path(&self) -> PathBuf {
        socket(self.dir.path())
    }

    /// The user to connect as (`root`, no password).
    ///
    /// ```no_run
    /// let Some(db) = test_support::db::MariaDb::for_test("mariadb_user_doc") else { return };
    /// assert!(db.query("SELECT CURRENT_USER()").unwrap().starts_with(db.user()));
    /// ```
    #[must_use]
    pub fn user(&self) -> &'static str {
        "root"
    }

    /// Runs `sql` in [`DATABASE`] with the command-line client `mariadb`
    /// and returns its output: one line per row, fields separated by tabs,
    /// no header, without the final newline.
    ///
    /// # Errors
    /// The client failed (for example an SQL error), with its message.
    ///
    /// ```no_run
    /// let Some(db) = test_support::db::MariaDb::for_test("mariadb_query_doc") else { return };
    /// assert_eq!(db.query("SELECT 1, 'a' UNION ALL SELECT 2, 'b'").unwrap(), "1\ta\n2\tb");
    /// assert!(db.query("SELEC 1").unwrap_err().contains("syntax"));
    /// ```
    pub fn query(&self, sql: &str) -> Result<String, String> {
        mariadb(&self.client, self.dir.path(), Some(DATABASE), sql)
    }

    /// The end of the server's log (for a failing test's message).
    ///
    /// ```no_run
    /// let Some(db) = test_support::db::MariaDb::for_test("mariadb_log_doc") else { return };
    /// assert!(db.log_tail().contains("ready for connections"));
    /// ```
    #[must_use]
    pub fn log_tail(&self) -> String {
        tail(&self.dir.path().join("server.log"))
    }
}

fn socket(dir: &Path) -> PathBuf {
    dir.join("mariadbd.sock")
}

/// Runs the `mariadb` client on the socket in `dir`.
fn mariadb(client: &Path, dir: &Path, database: Option<&str>, sql: &str) -> Result<String, String> {
    let mut cmd = Command::new(client);
    cmd.arg("--no-defaults")
        .arg(format!("--socket={}", socket(dir).display()))
        .args(["--user=root", "--batch", "--skip-column-names"]);
    if let Some(db) = database {
        cmd.arg(format!("--database={db}"));
    }
    let out = run("mariadb", cmd.arg("--execute").arg(sql))?;
    let text = String::from_utf8_lossy(&out.stdout);
    Ok(text.strip_suffix('\n').unwrap_or(&text).to_string())
}
