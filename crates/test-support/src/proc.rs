//! Child processes of tests: a run bounded by a deadline, a signal to a child, and a run whose
//! output a thread drains while the test watches when it arrives.
//!
//! ```
//! use std::process::Command;
//! use std::time::Duration;
//!
//! let mut yes = Command::new("sh");
//! yes.args(["-c", "echo one; echo two"]);
//! let run = test_support::proc::Drained::start(yes, 1 << 10);
//! assert_eq!(run.first_line(Duration::from_secs(10)), "one");
//! let done = run.finish(Duration::from_secs(10));
//! assert_eq!(done.code, Some(0));
//! assert_eq!(done.seen.lock().unwrap().lines(), 2);
//! ```

use std::io::Read;
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Runs `command` to completion with both pipes drained meanwhile; kills it and panics, with
/// what it wrote to stderr, if it is still running after `limit`: a run that hangs fails its
/// test instead of the suite.
///
/// # Panics
/// When the command cannot start, or runs past `limit`.
///
/// ```
/// use std::process::Command;
/// use std::time::Duration;
///
/// let mut echo = Command::new("sh");
/// echo.args(["-c", "echo hi; exit 3"]);
/// let out = test_support::proc::output_within(echo, Duration::from_secs(10));
/// assert_eq!((out.status.code(), &out.stdout[..]), (Some(3), &b"hi\n"[..]));
/// ```
pub fn output_within(mut command: Command, limit: Duration) -> Output {
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{command:?}: {e}"));
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = r.read_to_end(&mut buf);
            buf
        })
    };
    let stdout = drain(Box::new(child.stdout.take().expect("piped")));
    let stderr = drain(Box::new(child.stderr.take().expect("piped")));
    let deadline = Instant::now() + limit;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            let err = stderr.join().unwrap_or_default();
            panic!(
                "{command:?} did not finish within {limit:?}: {}",
                String::from_utf8_lossy(&err)
            );
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    Output {
        status,
        stdout: stdout.join().unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
    }
}

/// Sends `signal` to `child` (SIGSTOP freezes it, SIGCONT resumes it); whether it was sent.
/// `child` must not have been waited for yet, so that its id is still its own.
///
/// ```
/// let mut sleeper = std::process::Command::new("sleep").arg("30").spawn().unwrap();
/// assert!(test_support::proc::signal(&sleeper, libc::SIGKILL));
/// assert!(!sleeper.wait().unwrap().success());
/// ```
pub fn signal(child: &Child, signal: libc::c_int) -> bool {
    let Ok(pid) = libc::pid_t::try_from(child.id()) else {
        return false;
    };
    // SAFETY: kill(2) with the id of a child not yet reaped, so not reused by another process.
    unsafe { libc::kill(pid, signal) == 0 }
}

/// What a drained run wrote: its first bytes (up to the limit given to [`Drained::start`]), its
/// last chunk, when each chunk arrived and its size, and its number of lines. A run may write
/// gigabytes: only the ends are kept.
#[derive(Debug, Default)]
pub struct Seen {
    keep: usize,
    head: Vec<u8>,
    last: Vec<u8>,
    arrivals: Vec<(Instant, usize)>,
    lines: usize,
}

impl Seen {
    fn add(&mut self, bytes: &[u8]) {
        self.arrivals.push((Instant::now(), bytes.len()));
        self.lines += bytes.iter().filter(|&&b| b == b'\n').count();
        let room = self.keep.saturating_sub(self.head.len());
        self.head.extend_from_slice(&bytes[..bytes.len().min(room)]);
        self.last.clear();
        self.last.extend_from_slice(bytes);
    }

    /// The first bytes written, as many as were kept.
    #[must_use]
    pub fn head(&self) -> &[u8] {
        &self.head
    }

    /// The number of lines written (newlines counted over the whole output).
    #[must_use]
    pub fn lines(&self) -> usize {
        self.lines
    }

    /// The whole lines of the kept head, then the last line written.
    ///
    /// # Panics
    /// When the output does not end with a newline (its last line is partial), or is not UTF-8.
    #[must_use]
    pub fn kept_lines(&self) -> Vec<&str> {
        assert!(self.last.ends_with(b"\n"), "a partial last line");
        let whole = match self.head.iter().rposition(|&b| b == b'\n') {
            Some(i) => &self.head[..=i],
            None => &[][..],
        };
        let last = std::str::from_utf8(&self.last)
            .expect("UTF-8 output")
            .lines()
            .last()
            .unwrap_or_default();
        std::str::from_utf8(whole)
            .expect("UTF-8 output")
            .lines()
            .chain([last])
            .collect()
    }

    /// Bytes that arrived after `at`.
    #[must_use]
    pub fn bytes_after(&self, at: Instant) -> usize {
        self.arrivals
            .iter()
            .filter(|(t, _)| *t > at)
            .map(|(_, n)| n)
            .sum()
    }
}

/// A running command whose stdout goes to a pipe that a thread drains, recording when each
/// chunk arrived ([`Seen`]); stderr is kept for [`Drained::finish`]. Killed when dropped.
#[derive(Debug)]
pub struct Drained {
    child: Child,
    seen: Arc<Mutex<Seen>>,
    reader: Option<JoinHandle<()>>,
}

/// How a drained run ended: see [`Drained::finish`].
#[derive(Debug)]
pub struct Finished {
    /// Its exit code (`None` when a signal ended it).
    pub code: Option<i32>,
    /// What it wrote to stderr.
    pub stderr: String,
    /// What it wrote to stdout.
    pub seen: Arc<Mutex<Seen>>,
    /// When its exit was noticed.
    pub exited: Instant,
}

impl Drained {
    /// Starts `command`, keeping up to `keep` of its first bytes.
    ///
    /// # Panics
    /// When the command cannot start.
    #[must_use]
    pub fn start(mut command: Command, keep: usize) -> Drained {
        let mut child = command
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("{command:?}: {e}"));
        let mut out = child.stdout.take().expect("piped");
        let seen = Arc::new(Mutex::new(Seen {
            keep,
            ..Seen::default()
        }));
        let sink = seen.clone();
        let reader = std::thread::spawn(move || {
            let mut buf = vec![0u8; 1 << 16];
            while let Ok(n) = out.read(&mut buf) {
                if n == 0 {
                    return;
                }
                sink.lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .add(&buf[..n]);
            }
        });
        Drained {
            child,
            seen,
            reader: Some(reader),
        }
    }

    /// Waits, at most `limit`, for the first whole line; returns it without its newline.
    ///
    /// # Panics
    /// When no whole line arrived within `limit`.
    #[must_use]
    pub fn first_line(&self, limit: Duration) -> String {
        let deadline = Instant::now() + limit;
        loop {
            {
                let s = self.seen.lock().unwrap_or_else(|e| e.into_inner());
                if let Some(end) = s.head.iter().position(|&b| b == b'\n') {
                    return String::from_utf8_lossy(&s.head[..end]).into_owned();
                }
            }
            assert!(Instant::now() < deadline, "no output within {limit:?}");
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// When the run exited, if it has.
    ///
    /// # Panics
    /// When the child cannot be waited for.
    pub fn exited(&mut self) -> Option<Instant> {
        self.child.try_wait().expect("wait").map(|_| Instant::now())
    }

    /// Waits for the exit, at most `limit`, and for the drain of its output.
    ///
    /// # Panics
    /// When the run is still going after `limit` (it is then killed, on drop).
    #[must_use]
    pub fn finish(mut self, limit: Duration) -> Finished {
        let deadline = Instant::now() + limit;
        let status = loop {
            if let Some(s) = self.child.try_wait().expect("wait") {
                break s;
            }
            assert!(Instant::now() < deadline, "still running after {limit:?}");
            std::thread::sleep(Duration::from_millis(5));
        };
        let exited = Instant::now();
        let mut stderr = String::new();
        if let Some(mut err) = self.child.stderr.take() {
            let _ = err.read_to_string(&mut stderr);
        }
        if let Some(reader) = self.reader.take() {
            let _ = reader.join();
        }
        Finished {
            code: status.code(),
            stderr,
            seen: self.seen.clone(),
            exited,
        }
    }
}

impl Drop for Drained {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
