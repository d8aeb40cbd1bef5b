//! A throwaway `uiapd` running as a site of one: no participating
//! interface, so no root and no network namespace, and every claim
//! succeeds after its claim window (docs/uiap-design.md D23).
//!
//! ```no_run
//! use test_support::uiapd::{SiteOfOne, FAST_TIMERS};
//!
//! let site = SiteOfOne::start((61801, 61802), &FAST_TIMERS);
//! assert!(site.control().exists());
//! drop(site); // killed, its directory removed
//! ```

use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::db::process::{ScratchDir, Server};

/// Fast timers for the lifetime tests: a round takes 300 ms, a reclaim
/// 300 ms, no start delay; renewals start at half the lifetime, and
/// lifetimes of 3 s or more may be renewed. Their new-claim window
/// (3 × 100 ms + 100 ms) is shorter than any site lease's liveness
/// window, so these daemons say that no lease relies on their windows
/// (`--lease-liveness-ms 0`, docs/uiap-design.md D73).
pub const FAST_TIMERS: [&str; 12] = [
    "--claim-period-ms",
    "100",
    "--claim-timeout-ms",
    "100",
    "--start-jitter-ms",
    "0",
    "--renew-at-percent",
    "50",
    "--renew-min-lifetime-s",
    "3",
    "--lease-liveness-ms",
    "0",
];

/// A `uiapd` on ports of its own, with its control socket and state in a
/// private directory; killed (SIGKILL) when dropped.
#[derive(Debug)]
pub struct SiteOfOne {
    server: Option<Server>,
    control: PathBuf,
    // Declared last: removed after the daemon is gone.
    _dir: ScratchDir,
}

impl SiteOfOne {
    /// Starts the workspace's `uiapd` (built if needed) on UDP `ports`
    /// (claim, reply) with `extra` flags, and waits until its control
    /// socket answers.
    ///
    /// # Panics
    /// When it cannot be built or started, or does not answer in time (the
    /// message quotes its log).
    pub fn start(ports: (u16, u16), extra: &[&str]) -> SiteOfOne {
        let dir = ScratchDir::new("uiapd", None).unwrap_or_else(|e| panic!("{e}"));
        let control = dir.path().join("control.sock");
        let mut command = Command::new(crate::workspace::binary("uiapd", "uiapd"));
        command
            .args(["--iface", "uiap-none0"])
            .arg("--control")
            .arg(&control)
            .arg("--state")
            .arg(dir.path().join("state"))
            .args(["--claim-port", &ports.0.to_string()])
            .args(["--reply-port", &ports.1.to_string()])
            .args(extra);
        let log = dir.path().join("log");
        let mut server =
            Server::spawn("uiapd", command, log, libc::SIGKILL).unwrap_or_else(|e| panic!("{e}"));
        server
            .wait_ready("uiapd", || {
                UnixStream::connect(&control)
                    .map(drop)
                    .map_err(|e| e.to_string())
            })
            .unwrap_or_else(|e| panic!("{e}"));
        SiteOfOne {
            server: Some(server),
            control,
            _dir: dir,
        }
    }

    /// The daemon's control socket.
    pub fn control(&self) -> &Path {
        &self.control
    }

    /// Sends `signal` to the daemon: `libc::SIGSTOP` freezes it (it answers nothing and defends
    /// nothing), `libc::SIGCONT` resumes it. A frozen daemon is still killed when dropped.
    pub fn signal(&self, signal: libc::c_int) {
        if let Some(server) = &self.server {
            server.signal(signal);
        }
    }

    /// Kills the daemon at once (SIGKILL) and waits for it: its clients'
    /// connections end without a word.
    pub fn kill(&mut self) {
        self.server = None;
    }
}
