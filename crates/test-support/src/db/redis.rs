//! A throwaway redis server.

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use super::process::{ScratchDir, Server, find_program};

/// The socket's name in the server's directory.
const SOCKET: &str = "redis.sock";

/// A redis server in a temporary directory, listening on a Unix socket there
/// and on no TCP port, keeping nothing on disk; stopped (and the directory
/// removed) on drop. See the [module docs](super).
///
/// Needs `redis-server` (Debian's package of that name), on `PATH` or in
/// `/usr/bin`.
#[derive(Debug)]
pub struct Redis {
    // Declared before `dir`: the server stops before its directory goes.
    server: Server,
    dir: ScratchDir,
}

impl Redis {
    /// Starts a server: no TCP port (`--port 0`), its socket in a fresh
    /// directory, no snapshots and no append-only file.
    ///
    /// # Errors
    /// Why no server could be started: redis is not installed, or it did not
    /// answer `PING` in time (with the end of its log).
    ///
    /// ```
    /// let redis = match test_support::db::Redis::start() {
    ///     Ok(r) => r,
    ///     Err(reason) => return test_support::skip("redis_start_doc", reason),
    /// };
    /// assert_eq!(redis.command(&["SET", "k", "v"]).unwrap(), "+OK\r\n");
    /// assert_eq!(redis.command(&["GET", "k"]).unwrap(), "$1\r\nv\r\n");
    /// let socket = redis.socket_path();
    /// drop(redis);
    /// assert!(!socket.exists());
    /// ```
    pub fn start() -> Result<Self, String> {
        let program = find_program("redis-server", &[PathBuf::from("/usr/bin/redis-server")])?;
        let dir = ScratchDir::new("redis", None)?;
        let socket = dir.path().join(SOCKET);
        let mut cmd = Command::new(program);
        cmd.args(["--port", "0", "--unixsocket"])
            .arg(&socket)
            .args([
                "--unixsocketperm",
                "700",
                "--save",
                "",
                "--appendonly",
                "no",
            ])
            .arg("--dir")
            .arg(dir.path());
        let log = dir.path().join("server.log");
        let mut server = Server::spawn("redis", cmd, log, libc::SIGTERM)?;
        server.wait_ready("redis", || match send(&socket, &["PING"]) {
            Ok(reply) if reply == "+PONG\r\n" => Ok(()),
            Ok(reply) => Err(format!("PING answered {reply:?}")),
            Err(e) => Err(e),
        })?;
        Ok(Self { server, dir })
    }

    /// [`start`](Self::start), or `None` after recording why `test` is
    /// skipped ([`crate::skip`]: under `CI=true` that panics).
    ///
    /// # Panics
    /// Under CI, when no server can be started.
    ///
    /// ```no_run
    /// let Some(redis) = test_support::db::Redis::for_test("redis_for_test_doc") else { return };
    /// assert_eq!(redis.command(&["DBSIZE"]).unwrap(), ":0\r\n");
    /// ```
    #[must_use]
    pub fn for_test(test: &str) -> Option<Self> {
        Self::start().map_err(|e| crate::skip(test, e)).ok()
    }

    /// The server's socket file.
    ///
    /// ```no_run
    /// let Some(redis) = test_support::db::Redis::for_test("redis_socket_doc") else { return };
    /// assert!(redis.socket_path().exists());
    /// ```
    #[must_use]
    pub fn socket_path(&self) -> PathBuf {
        self.dir.path().join(SOCKET)
    }

    /// A connection URL the `redis` crate accepts: `redis+unix://` and the
    /// socket's path.
    ///
    /// ```no_run
    /// let Some(redis) = test_support::db::Redis::for_test("redis_url_doc") else { return };
    /// assert!(redis.url().starts_with("redis+unix:///"), "{}", redis.url());
    /// assert!(redis.url().ends_with("/redis.sock"));
    /// ```
    #[must_use]
    pub fn url(&self) -> String {
        format!("redis+unix://{}", self.socket_path().display())
    }

    /// Sends one command (its words) and returns the server's reply as it
    /// came, in the RESP protocol (`+OK\r\n`, `$1\r\nv\r\n`, …), read until
    /// the server has sent nothing for 50 ms after the first bytes.
    ///
    /// # Errors
    /// The server cannot be reached, or sent nothing within a second.
    ///
    /// ```no_run
    /// let Some(redis) = test_support::db::Redis::for_test("redis_command_doc") else { return };
    /// assert_eq!(redis.command(&["ECHO", "hi"]).unwrap(), "$2\r\nhi\r\n");
    /// ```
    pub fn command(&self, words: &[&str]) -> Result<String, String> {
        send(&self.socket_path(), words)
    }

    /// The last few kilobytes of the server's log.
    #[must_use]
    pub fn log_tail(&self) -> String {
        self.server.log_tail()
    }
}

/// Sends `words` as one RESP array to the server at `socket` and returns the
/// reply.
fn send(socket: &Path, words: &[&str]) -> Result<String, String> {
    let mut stream = UnixStream::connect(socket)
        .map_err(|e| format!("cannot connect to {}: {e}", socket.display()))?;
    let mut request = format!("*{}\r\n", words.len());
    for w in words {
        request.push_str(&format!("${}\r\n{w}\r\n", w.len()));
    }
    stream
        .write_all(request.as_bytes())
        .map_err(|e| format!("cannot send to redis: {e}"))?;
    stream
        .set_read_timeout(Some(Duration::from_secs(1)))
        .map_err(|e| e.to_string())?;
    let mut reply = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                reply.extend_from_slice(&buf[..n]);
                stream
                    .set_read_timeout(Some(Duration::from_millis(50)))
                    .map_err(|e| e.to_string())?;
            }
            Err(e) if reply.is_empty() => return Err(format!("no reply from redis: {e}")),
            Err(_) => break,
        }
    }
    Ok(String::from_utf8_lossy(&reply).into_owned())
}
