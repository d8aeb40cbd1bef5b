//! A throwaway Redis server.

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use super::process::{ScratchDir, Server, find_program, tail};

/// A Redis server in a temporary directory, on a Unix socket only (no TCP
/// port) and keeping nothing on disk, stopped (and the directory removed)
/// on drop. See the [module docs](super).
///
/// Needs `redis-server` (Debian's `redis-server` package), on `PATH` or in
/// `/usr/bin`. Connect without a password; database 0 is empty.
#[derive(Debug)]
pub struct Redis {
    // Declared before `dir`: the server stops before its directory goes.
    server: Server,
    dir: ScratchDir,
}

impl Redis {
    /// Starts a server.
    ///
    /// # Errors
    /// Why no server could be started: `redis-server` is not installed, or
    /// it did not answer `PING` in time (with the end of its log).
    ///
    /// ```
    /// let redis = match test_support::db::Redis::start() {
    ///     Ok(r) => r,
    ///     Err(reason) => return test_support::skip("redis_start_doc", reason),
    /// };
    /// assert_eq!(redis.command(&["ECHO", "hi"]).unwrap(), b"$2\r\nhi\r\n");
    /// ```
    pub fn start() -> Result<Self, String> {
        let program = find_program("redis-server", &[PathBuf::from("/usr/bin/redis-server")])?;
        let dir = ScratchDir::new("redis", None)?;
        let mut cmd = Command::new(program);
        // Options on the command line, no configuration file: nothing of a
        // system-wide redis.conf applies.
        cmd.args(["--port", "0", "--save", "", "--appendonly", "no"])
            .arg("--unixsocket")
            .arg(socket(dir.path()))
            .args(["--unixsocketperm", "700", "--daemonize", "no"])
            .arg("--dir")
            .arg(dir.path())
            .arg("--logfile")
            .arg(dir.path().join("server.log"));
        let console = dir.path().join("console.log");
        let server = Server::spawn("redis-server", cmd, console, libc::SIGTERM)?;
        let mut redis = Self { server, dir };
        let socket = redis.socket_path();
        let log = redis.dir.path().join("server.log");
        redis
            .server
            .wait_ready("redis-server", || match send(&socket, &["PING"]) {
                Ok(reply) if reply == b"+PONG\r\n" => Ok(()),
                Ok(reply) => Err(format!(
                    "PING answered {:?}",
                    String::from_utf8_lossy(&reply)
                )),
                Err(e) => Err(e),
            })
            .map_err(|e| format!("{e}\n{}", tail(&log)))?;
        Ok(redis)
    }

    /// [`start`](Self::start), or `None` after recording why `test` is
    /// skipped ([`crate::skip`]: under `CI=true` that panics).
    ///
    /// # Panics
    /// Under CI, when no server can be started.
    ///
    /// ```no_run
    /// let Some(redis) = test_support::db::Redis::for_test("redis_for_test_doc") else { return };
    /// assert!(redis.socket_path().exists());
    /// ```
    #[must_use]
    pub fn for_test(test: &str) -> Option<Self> {
        Self::start().map_err(|e| crate::skip(test, e)).ok()
    }

    /// A connection URL in the form the `redis` crate reads
    /// (`redis+unix:///…/redis.sock`).
    ///
    /// ```no_run
    /// let Some(redis) = test_support::db::Redis::for_test("redis_url_doc") else { return };
    /// assert!(redis.url().starts_with("redis+unix:///"));
    /// ```
    #[must_use]
    pub fn url(&self) -> String {
        format!("redis+unix://{}", self.socket_path().display())
    }

    /// The server's Unix socket.
    ///
    /// ```no_run
    /// let Some(redis) = test_support::db::Redis::for_test("redis_socket_doc") else { return };
    /// assert!(redis.socket_path().ends_with("redis.sock"));
    /// ```
    #[must_use]
    pub fn socket_path(&self) -> PathBuf {
        socket(self.dir.path())
    }

    /// Sends one command (each argument a bulk string, binary-safe) on a
    /// fresh connection and returns the raw RESP reply: a test's view of
    /// what is stored that owes nothing to a client library.
    ///
    /// # Errors
    /// The connection failed or the reply did not come within 10 seconds.
    ///
    /// ```no_run
    /// let Some(redis) = test_support::db::Redis::for_test("redis_command_doc") else { return };
    /// assert_eq!(redis.command(&["SET", "k", "v"]).unwrap(), b"+OK\r\n");
    /// assert_eq!(redis.command(&["GET", "k"]).unwrap(), b"$1\r\nv\r\n");
    /// ```
    pub fn command<A: AsRef<[u8]>>(&self, args: &[A]) -> Result<Vec<u8>, String> {
        send(&self.socket_path(), args)
    }

    /// The end of the server's log (for a failing test's message).
    ///
    /// ```no_run
    /// let Some(redis) = test_support::db::Redis::for_test("redis_log_doc") else { return };
    /// assert!(redis.log_tail().contains("Ready to accept connections"));
    /// ```
    #[must_use]
    pub fn log_tail(&self) -> String {
        tail(&self.dir.path().join("server.log"))
    }
}

fn socket(dir: &Path) -> PathBuf {
    dir.join("redis.sock")
}

/// One command in RESP on a new connection; the reply is read until the
/// server closes the connection (`QUIT` follows the command).
fn send<A: AsRef<[u8]>>(socket: &Path, args: &[A]) -> Result<Vec<u8>, String> {
    let mut stream = UnixStream::connect(socket)
        .map_err(|e| format!("cannot connect to {}: {e}", socket.display()))?;
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .map_err(|e| e.to_string())?;
    let mut request = Vec::new();
    for command in [
        args.iter().map(AsRef::as_ref).collect::<Vec<&[u8]>>(),
        vec![b"QUIT"],
    ] {
        request.extend_from_slice(format!("*{}\r\n", command.len()).as_bytes());
        for arg in command {
            request.extend_from_slice(format!("${}\r\n", arg.len()).as_bytes());
            request.extend_from_slice(arg);
            request.extend_from_slice(b"\r\n");
        }
    }
    stream.write_all(&request).map_err(|e| e.to_string())?;
    let mut reply = Vec::new();
    stream
        .read_to_end(&mut reply)
        .map_err(|e| format!("no reply from {}: {e}", socket.display()))?;
    // What QUIT answered is not the command's.
    Ok(reply
        .strip_suffix(b"+OK\r\n")
        .map_or(reply.clone(), <[u8]>::to_vec))
}
