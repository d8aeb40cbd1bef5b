//! What both servers share: a private directory, a supervised server
//! process, a bounded wait for it, and a clean stop.

use std::ffi::CString;
use std::fs::File;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use super::START_TIMEOUT;

/// How long a server gets to shut down cleanly before it is killed.
const STOP_TIMEOUT: Duration = Duration::from_secs(30);

/// How many bytes of a server's log an error message quotes.
const LOG_TAIL_BYTES: usize = 3000;

/// A directory removed, with everything in it, on drop.
#[derive(Debug)]
pub(crate) struct ScratchDir {
    path: PathBuf,
}

impl ScratchDir {
    /// A new empty directory `…/uuidkit-<kind>-<pid>-<n>-<nanos>`, owned by
    /// `owner` when given (so an unprivileged server can write it).
    pub(crate) fn new(kind: &str, owner: Option<&User>) -> Result<Self, String> {
        static COUNT: AtomicU32 = AtomicU32::new(0);
        let n = COUNT.fetch_add(1, Ordering::Relaxed);
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        // Short on purpose: a Unix socket path must fit in 108 bytes.
        let path = std::env::temp_dir().join(format!(
            "uuidkit-{kind}-{}-{n}-{nanos:x}",
            std::process::id()
        ));
        std::fs::create_dir(&path).map_err(|e| format!("cannot create {}: {e}", path.display()))?;
        let dir = Self { path };
        std::fs::set_permissions(&dir.path, std::fs::Permissions::from_mode(0o700))
            .map_err(|e| format!("cannot set the mode of {}: {e}", dir.path.display()))?;
        if let Some(user) = owner {
            std::os::unix::fs::chown(&dir.path, Some(user.uid), Some(user.gid)).map_err(|e| {
                format!(
                    "cannot give {} to user {}: {e}",
                    dir.path.display(),
                    user.name
                )
            })?;
        }
        Ok(dir)
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// Whether the effective user is root.
pub(crate) fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// `path` percent-encoded for a URL's host or query value: every byte but
/// RFC 3986's unreserved characters is escaped (`/` becomes `%2F`).
pub(crate) fn percent_encode(path: &Path) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    for &b in path.as_os_str().as_encoded_bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(char::from(b));
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

/// An unprivileged account a server is run as when the caller is root.
#[derive(Debug, Clone)]
pub(crate) struct User {
    pub(crate) name: String,
    pub(crate) uid: u32,
    pub(crate) gid: u32,
}

impl User {
    /// `None` unless the caller is root; then the first of `names` that
    /// exists.
    pub(crate) fn unprivileged(names: &[&str]) -> Result<Option<Self>, String> {
        if !is_root() {
            return Ok(None);
        }
        for name in names {
            let c = CString::new(*name).map_err(|e| e.to_string())?;
            // SAFETY: `c` is a valid C string; the returned record is read
            // at once, before any other getpw* call on this thread.
            let pw = unsafe { libc::getpwnam(c.as_ptr()) };
            if !pw.is_null() {
                // SAFETY: non-null, so it points at a valid passwd record.
                let (uid, gid) = unsafe { ((*pw).pw_uid, (*pw).pw_gid) };
                return Ok(Some(Self {
                    name: (*name).to_string(),
                    uid,
                    gid,
                }));
            }
        }
        Err(format!(
            "running as root and none of the users {names:?} exists to run the server as"
        ))
    }

    /// Makes `cmd` run as this user (std drops root's supplementary groups).
    pub(crate) fn apply(&self, cmd: &mut Command) {
        cmd.uid(self.uid).gid(self.gid);
    }
}

/// Runs `cmd` to completion with output captured; an error names the
/// command and quotes its output.
pub(crate) fn run(what: &str, cmd: &mut Command) -> Result<Output, String> {
    let out = cmd
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("{what}: cannot run {:?}: {e}", cmd.get_program()))?;
    if out.status.success() {
        Ok(out)
    } else {
        Err(format!(
            "{what} failed ({}): {}{}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim(),
            String::from_utf8_lossy(&out.stdout).trim()
        ))
    }
}

/// The first of `candidates` that exists, else `program` found on `PATH`.
pub(crate) fn find_program(program: &str, candidates: &[PathBuf]) -> Result<PathBuf, String> {
    if let Some(found) = candidates.iter().find(|p| p.is_file()) {
        return Ok(found.clone());
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|p| p.is_file())
        .ok_or_else(|| format!("`{program}` is not installed (not on PATH)"))
}

/// A running server, stopped by `stop_signal` (then killed) on drop.
#[derive(Debug)]
pub(crate) struct Server {
    child: Child,
    stop_signal: libc::c_int,
    log: PathBuf,
}

impl Server {
    /// Sends `signal` to the server (SIGSTOP freezes it, SIGCONT resumes it).
    pub(crate) fn signal(&self, signal: libc::c_int) {
        if let Ok(pid) = libc::pid_t::try_from(self.child.id()) {
            // SAFETY: `pid` is our own child, not yet reaped, so the id is not reused.
            unsafe { libc::kill(pid, signal) };
        }
    }

    /// Kills the server and every process it started with SIGKILL, as a crash of the server
    /// alone: nothing gets to write anything more (the operating system keeps what was
    /// written). Returns once they are all gone.
    pub(crate) fn crash(mut self) {
        let Ok(pid) = libc::pid_t::try_from(self.child.id()) else {
            return;
        };
        // Stopped first, so that it starts no process while its children are listed.
        self.signal(libc::SIGSTOP);
        let children = children_of(pid);
        for c in &children {
            // SAFETY: a child of our own stopped child: it cannot be reaped and reused before
            // its parent runs again, and its parent is stopped.
            unsafe { libc::kill(*c, libc::SIGKILL) };
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        let deadline = Instant::now() + STOP_TIMEOUT;
        while Instant::now() < deadline
            && children.iter().any(|c| {
                std::fs::read_to_string(format!("/proc/{c}/stat")).is_ok_and(|st| {
                    !st.rsplit(')')
                        .next()
                        .unwrap_or("")
                        .trim_start()
                        .starts_with('Z')
                })
            })
        {
            std::thread::sleep(Duration::from_millis(10));
        }
        // Reaped: nothing left for the drop to stop.
        std::mem::forget(self);
    }

    /// Starts `cmd` with stdout and stderr appended to `log`.
    pub(crate) fn spawn(
        name: &str,
        mut cmd: Command,
        log: PathBuf,
        stop_signal: libc::c_int,
    ) -> Result<Self, String> {
        let out =
            File::create(&log).map_err(|e| format!("cannot create {}: {e}", log.display()))?;
        let err = out.try_clone().map_err(|e| e.to_string())?;
        cmd.stdin(Stdio::null()).stdout(out).stderr(err);
        // SAFETY: prctl is async-signal-safe and touches only this process.
        unsafe {
            cmd.pre_exec(|| {
                // Runs after the switch of user, which would clear it.
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) == -1 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = cmd
            .spawn()
            .map_err(|e| format!("cannot start {name} ({:?}): {e}", cmd.get_program()))?;
        Ok(Self {
            child,
            stop_signal,
            log,
        })
    }

    /// Calls `ready` until it succeeds, the server exits, or
    /// [`START_TIMEOUT`] passes; the error quotes the server's log.
    pub(crate) fn wait_ready(
        &mut self,
        name: &str,
        mut ready: impl FnMut() -> Result<(), String>,
    ) -> Result<(), String> {
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            let last = match ready() {
                Ok(()) => return Ok(()),
                Err(e) => e,
            };
            if let Ok(Some(status)) = self.child.try_wait() {
                return Err(format!(
                    "{name} exited ({status}) before accepting connections; its log ends:\n{}",
                    self.log_tail()
                ));
            }
            if Instant::now() >= deadline {
                return Err(format!(
                    "{name} did not accept connections within {} s (last attempt: {last}); \
                     its log ends:\n{}",
                    START_TIMEOUT.as_secs(),
                    self.log_tail()
                ));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// The last few kilobytes of the server's log.
    pub(crate) fn log_tail(&self) -> String {
        tail(&self.log)
    }
}

/// The last [`LOG_TAIL_BYTES`] bytes of `path`, or why it cannot be read.
pub(crate) fn tail(path: &Path) -> String {
    match std::fs::read(path) {
        Ok(bytes) => {
            let start = bytes.len().saturating_sub(LOG_TAIL_BYTES);
            String::from_utf8_lossy(&bytes[start..]).into_owned()
        }
        Err(e) => format!("(cannot read {}: {e})", path.display()),
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let Ok(pid) = libc::pid_t::try_from(self.child.id()) else {
            return;
        };
        // SAFETY: `pid` is our own child, not yet reaped, so the id is not reused. A server a
        // test stopped (SIGSTOP) is continued, so that it can act on the stop signal.
        unsafe {
            libc::kill(pid, self.stop_signal);
            libc::kill(pid, libc::SIGCONT);
        }
        let deadline = Instant::now() + STOP_TIMEOUT;
        while Instant::now() < deadline {
            match self.child.try_wait() {
                Ok(Some(_)) | Err(_) => return,
                Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            }
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The processes whose parent is `pid`.
fn children_of(pid: libc::pid_t) -> Vec<libc::pid_t> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<libc::pid_t>().ok())
        .filter(|p| {
            std::fs::read_to_string(format!("/proc/{p}/stat")).is_ok_and(|st| {
                // After the command's closing parenthesis: state, then the parent's id.
                st.rsplit(')')
                    .next()
                    .and_then(|rest| rest.split_whitespace().nth(1))
                    == Some(&pid.to_string())
            })
        })
        .collect()
}

/// `count` distinct free loopback TCP ports, for servers that listen on one.
pub(crate) fn free_ports(count: usize) -> Result<Vec<u16>, String> {
    // All held at once, so the kernel hands out distinct ones.
    let listeners = (0..count)
        .map(|_| std::net::TcpListener::bind("127.0.0.1:0"))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("cannot find free loopback ports: {e}"))?;
    listeners
        .iter()
        .map(|l| l.local_addr().map(|a| a.port()))
        .collect::<Result<_, _>>()
        .map_err(|e| e.to_string())
}
