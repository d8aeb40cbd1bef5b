//! The node-mode matrix's machinery: a worker forked now that waits for a
//! go, the pair of workers whose process ids are equal modulo 2¹⁴ (reached
//! by burning process ids with throwaway threads), and the summary grid that
//! lays every row out by entry point × topology × node mode, so that a cell
//! nobody ran shows as missing.
//!
//! ```
//! use uuidkit_torture::matrix::{Cell, Grid};
//! let mut g = Grid::new(&["random", "given"]);
//! g.topology("Rust API", "threads");
//! g.record("Rust API", "threads", "random", "v1", Cell::Ok);
//! let table = g.table();
//! assert!(table.contains("v1 ok"));
//! assert!(table.contains("MISSING"), "the given-node cell was never run:\n{table}");
//! ```

use std::fmt::Write as _;

use test_support::fork::{pipe, read_to_end as read_all, write_all};
use uuidkit::Uuid;

/// What one generator's row gave in a cell of the grid.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cell {
    /// 0 duplicates, order kept where promised.
    Ok,
    /// The row failed.
    Failed,
    /// A negative control found the duplicates it must.
    Caught,
    /// A negative control found none: the checker or the row is blind.
    Missed,
}

impl Cell {
    fn word(&self) -> &'static str {
        match self {
            Cell::Ok => "ok",
            Cell::Failed => "FAILED",
            Cell::Caught => "caught",
            Cell::Missed => "MISSED",
        }
    }
}

/// The summary grid: one line per (entry point, topology), one column per
/// node mode; each cell lists its generators' results, or why the cell does
/// not apply, or `MISSING`.
#[derive(Clone, Debug, Default)]
pub struct Grid {
    modes: Vec<String>,
    lines: Vec<(String, String)>,
    cells: Vec<(String, String, String, String)>,
}

impl Grid {
    /// A grid with these node-mode columns.
    pub fn new(modes: &[&str]) -> Grid {
        Grid {
            modes: modes.iter().map(|m| (*m).to_string()).collect(),
            ..Grid::default()
        }
    }

    /// Declares a line (entry point, topology) that must have every column.
    pub fn topology(&mut self, entry: &str, topology: &str) {
        let line = (entry.to_string(), topology.to_string());
        if !self.lines.contains(&line) {
            self.lines.push(line);
        }
    }

    /// Records a generator's result in a cell.
    pub fn record(&mut self, entry: &str, topology: &str, mode: &str, generator: &str, cell: Cell) {
        self.topology(entry, topology);
        self.cells.push((
            entry.into(),
            topology.into(),
            mode.into(),
            format!("{generator} {}", cell.word()),
        ));
    }

    /// Marks a cell as not applicable, with the reason.
    pub fn not_applicable(&mut self, entry: &str, topology: &str, mode: &str, why: &str) {
        self.topology(entry, topology);
        self.cells.push((
            entry.into(),
            topology.into(),
            mode.into(),
            format!("n/a: {why}"),
        ));
    }

    /// Whether a cell is missing, or any recorded one failed or missed.
    pub fn complete_and_passed(&self) -> bool {
        let text = self.table();
        !text.contains("MISSING") && !text.contains("FAILED") && !text.contains("MISSED")
    }

    /// The grid as a table.
    pub fn table(&self) -> String {
        let mut rows: Vec<Vec<String>> = Vec::new();
        let mut head = vec!["entry point".to_string(), "topology".to_string()];
        head.extend(self.modes.iter().cloned());
        rows.push(head);
        for (entry, topology) in &self.lines {
            let mut row = vec![entry.clone(), topology.clone()];
            for mode in &self.modes {
                let mut found: Vec<&str> = Vec::new();
                for c in &self.cells {
                    if &c.0 == entry && &c.1 == topology && &c.2 == mode && !found.contains(&&*c.3)
                    {
                        found.push(&c.3);
                    }
                }
                row.push(if found.is_empty() {
                    "MISSING".into()
                } else {
                    found.join(", ")
                });
            }
            rows.push(row);
        }
        let widths: Vec<usize> = (0..rows[0].len())
            .map(|i| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0))
            .collect();
        let mut out = String::new();
        for (n, row) in rows.iter().enumerate() {
            let cells: Vec<String> = row
                .iter()
                .zip(&widths)
                .map(|(c, w)| format!("{c:w$}"))
                .collect();
            let _ = writeln!(out, "| {} |", cells.join(" | "));
            if n == 0 {
                let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
                let _ = writeln!(out, "|-{}-|", rule.join("-|-"));
            }
        }
        out
    }
}

/// What two workers returned: each one's streams, and their process ids.
pub type PairResult = ((Vec<Vec<Uuid>>, Vec<Vec<Uuid>>), (i32, i32));

/// A forked worker that waits for [`Waiting::go`] before it runs.
#[derive(Debug)]
pub struct Waiting {
    /// Its process id.
    pub pid: i32,
    go: i32,
    out: i32,
}

/// Streams as bytes: for each, its length in UUIDs (8 bytes, little
/// endian), then its UUIDs.
fn encode(streams: &[Vec<Uuid>]) -> Vec<u8> {
    let mut out = Vec::new();
    for s in streams {
        out.extend_from_slice(&(s.len() as u64).to_le_bytes());
        for u in s {
            out.extend_from_slice(u.as_bytes());
        }
    }
    out
}

fn decode(mut bytes: &[u8]) -> Vec<Vec<Uuid>> {
    let mut out = Vec::new();
    while bytes.len() >= 8 {
        let mut n = [0u8; 8];
        n.copy_from_slice(&bytes[..8]);
        let n = u64::from_le_bytes(n) as usize;
        let end = (8 + 16 * n).min(bytes.len());
        out.push(crate::from_bytes(&bytes[8..end]));
        bytes = &bytes[end..];
    }
    out
}

impl Waiting {
    /// Forks a worker that waits for the go, then runs `make` and sends
    /// back its streams. Call it with no other thread running.
    ///
    /// # Panics
    /// If the fork or a pipe fails.
    pub fn fork(make: &mut dyn FnMut() -> Vec<Vec<Uuid>>) -> Waiting {
        let (go, out) = (pipe(), pipe());
        // SAFETY: the caller runs no other thread, so the child may allocate.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0, "fork failed");
        if pid == 0 {
            // The child's copies of the parent's ends: with its own write end of the go pipe
            // open, a worker that is discarded would wait for the go for ever (its read never
            // sees the pipe close), and so would the parent waiting for it.
            // SAFETY: our pipes' ends, not used here.
            unsafe {
                libc::close(go[1]);
                libc::close(out[0]);
            }
            let mut b = [0u8; 1];
            // SAFETY: our pipe; the go (or the parent's end closing).
            let n = unsafe { libc::read(go[0], b.as_mut_ptr().cast(), 1) };
            let code = if n == 1 && write_all(out[1], &encode(&make())) {
                0
            } else {
                3
            };
            // SAFETY: ends the child at once, without the parent's atexit work.
            unsafe { libc::_exit(code) };
        }
        // SAFETY: the parent's copies of the child's ends.
        unsafe {
            libc::close(go[0]);
            libc::close(out[1]);
        }
        Waiting {
            pid,
            go: go[1],
            out: out[0],
        }
    }

    /// Lets the worker run.
    pub fn go(&self) {
        // A worker that already ended finds out at its collect.
        let _ = write_all(self.go, b"g");
    }

    /// Waits for the worker's streams.
    ///
    /// # Panics
    /// If the worker failed.
    pub fn collect(self) -> Vec<Vec<Uuid>> {
        let bytes = read_all(self.out);
        let mut status = 0;
        // SAFETY: our pipes and our child.
        unsafe {
            libc::close(self.out);
            libc::close(self.go);
            assert_eq!(libc::waitpid(self.pid, &mut status, 0), self.pid);
        }
        assert!(
            libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
            "worker {} failed: {status:#x}",
            self.pid
        );
        decode(&bytes)
    }

    /// Ends a worker that must not run: it never gets the go.
    pub fn discard(self) {
        // SAFETY: our pipes and our child, which exits when its go pipe closes.
        unsafe {
            libc::close(self.go);
            libc::close(self.out);
            libc::waitpid(self.pid, std::ptr::null_mut(), 0);
        }
    }
}

/// The kernel thread id of a thread that starts now and ends at once: each
/// takes the next free process id, as a fork would.
fn burn_one() -> u32 {
    std::thread::spawn(|| {
        // SAFETY: gettid cannot fail.
        unsafe { libc::gettid() as u32 }
    })
    .join()
    .expect("a throwaway thread")
}

/// After wrapping, the kernel hands out process ids from 300 up
/// (`RESERVED_PIDS`) to `pid_max - 1`: the only ids a fork can get again.
const FIRST_REUSED_PID: u32 = 300;

/// The kernel's `pid_max` (32,768 if it cannot be read, its smallest default).
fn pid_max() -> u32 {
    std::fs::read_to_string("/proc/sys/kernel/pid_max")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(32_768)
}

/// The other ids a fork can get below `top` that equal `pid` modulo 2¹⁴.
fn partners(pid: u32, top: u32) -> Vec<u32> {
    (pid % 16_384..top)
        .step_by(16_384)
        .filter(|&q| q != pid && q >= FIRST_REUSED_PID)
        .collect()
}

/// Whether no live process holds `pid` now.
fn is_free(pid: u32) -> bool {
    !std::path::Path::new(&format!("/proc/{pid}")).exists()
}

/// Whether one of `pid`'s partners is free now: one a live process holds (a
/// daemon started long ago) is skipped by every fork.
fn has_free_partner(pid: u32, top: u32) -> bool {
    partners(pid, top).into_iter().any(is_free)
}

/// Throwaway threads until the next process id is `want` modulo 2¹⁴; false
/// if `steps` of them did not get there (other processes took the id).
fn burn_until(want: u32, steps: u32) -> bool {
    (0..steps).any(|_| (burn_one() + 1) % 16_384 == want)
}

/// Two workers forked from this process whose process ids are equal modulo
/// 2¹⁴ — as a pre-fork server gets when it replaces a worker while the
/// host's process ids move on — both running `make` from the state this
/// process has now, started together. Returns the two workers' streams and
/// their process ids. Reaching the second id takes up to 16,383 throwaway
/// threads (well under a second), started and joined before any fork. The
/// first worker is forked again until its id has a free partner a fork can
/// reach: ids below 300 are never handed out again, so a first id of 16,384
/// to 16,683 under the default `pid_max` of 32,768 has none, and the search
/// for it would never end; a partner a live process holds is skipped by every
/// fork, and every round would miss it.
///
/// # Panics
/// If no such pair is reached in a few bounded rounds (a host whose process
/// ids are taken by others as fast as this burns them).
pub fn pid_equal_pair(make: &mut dyn FnMut() -> Vec<Vec<Uuid>>) -> PairResult {
    let top = pid_max();
    let mut first = None;
    for _ in 0..6 {
        let a = Waiting::fork(make);
        if has_free_partner(a.pid as u32, top) {
            first = Some(a);
            break;
        }
        a.discard();
    }
    let a = first.expect("a worker whose process id has a partner modulo 16384");
    let want = a.pid as u32 % 16_384;
    for _ in 0..6 {
        if !burn_until(want, top + 16_384) {
            continue;
        }
        let b = Waiting::fork(make);
        if b.pid as u32 % 16_384 == want {
            let pids = (a.pid, b.pid);
            a.go();
            b.go();
            return ((a.collect(), b.collect()), pids);
        }
        b.discard();
    }
    a.discard();
    panic!("no process id equal to {} modulo 16384 was reached", want);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pid_partner_is_a_free_id_a_fork_can_get() {
        assert_eq!(partners(114, 32_768), [16_498]);
        assert!(partners(16_498, 32_768).is_empty()); // 114 is never handed out again
        assert_eq!(partners(16_684, 32_768), [300]);
        assert!(partners(16_683, 32_768).is_empty());
        assert_eq!(partners(20_000, 4_194_304)[..2], [3_616, 36_384]);
        // This process holds its id: no fork reaches it while it runs.
        assert!(!is_free(std::process::id()));
    }

    /// A worker that never gets the go ends once it is discarded, and so does the wait for it
    /// (the pid-equal pair discards every worker whose id misses, which happens when other
    /// processes take ids meanwhile).
    #[test]
    fn a_discarded_worker_ends_and_so_does_the_wait_for_it() {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            Waiting::fork(&mut Vec::new).discard();
            let _ = tx.send(());
        });
        rx.recv_timeout(std::time::Duration::from_secs(10))
            .expect("the discarded worker still waits for its go");
    }
}
