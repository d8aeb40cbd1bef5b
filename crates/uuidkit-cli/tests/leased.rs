//! What the `--node-from` tests share: runs whose output goes to a pipe, and the node read back
//! out of the UUIDs they wrote.

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A UUID's 128 bits, from a whole canonical line.
pub fn parse(line: &str) -> u128 {
    assert_eq!(line.len(), 36, "not a whole UUID: {line:?}");
    u128::from_str_radix(&line.replace('-', ""), 16).unwrap_or_else(|e| panic!("{line:?}: {e}"))
}

/// The node of a v1 or v6 UUID (its last 48 bits), or of a v8 UUID of the §6.4 distributed
/// layout with 16 node bits (the 12 bits after the version, then 4 after the variant).
pub fn node_of(u: u128) -> u64 {
    match (u >> 76) & 0xf {
        1 | 6 => (u & 0xffff_ffff_ffff) as u64,
        8 => ((((u >> 64) & 0xfff) << 4) | ((u >> 58) & 0xf)) as u64,
        v => panic!("unexpected version {v}: {u:032x}"),
    }
}

/// `uuidkit new KIND -n 4000000000 ARGS…`: a run that goes on until stopped, with its lease seed
/// (`seed`) fixed so that runs started with the same seed draw the same first node.
pub fn endless(kind: &str, args: &[&str], seed: u64) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_uuidkit"));
    c.args(["new", kind, "-n", "4000000000"])
        .args(args)
        .env("UUIDKIT_TEST_LEASE_SEED", seed.to_string());
    c
}

/// A run blocked on a pipe nobody reads after its first line: it holds its node until
/// [`Blocked::end`].
pub struct Blocked {
    child: Child,
    out: Option<BufReader<ChildStdout>>,
    /// The node of its first UUID.
    pub node: u64,
}

impl Blocked {
    /// Starts `command` and reads its first UUID.
    pub fn start(mut command: Command) -> Blocked {
        let mut child = command
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut first = String::new();
        out.read_line(&mut first).unwrap();
        if first.is_empty() {
            let mut err = String::new();
            child
                .stderr
                .take()
                .unwrap()
                .read_to_string(&mut err)
                .unwrap();
            panic!("no output: {err}");
        }
        Blocked {
            node: node_of(parse(first.trim_end())),
            child,
            out: Some(out),
        }
    }

    /// Closes the pipe: the run ends quietly (a broken pipe, exit 0), releasing its node.
    pub fn end(mut self) {
        drop(self.out.take());
        let status = self.child.wait().unwrap();
        let mut err = String::new();
        self.child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut err)
            .unwrap();
        assert_eq!(status.code(), Some(0), "{err}");
    }
}

impl Drop for Blocked {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The most of a drained run's output kept (its first bytes).
const HEAD: usize = 4 << 20;

pub use test_support::proc::Seen;

/// The check of what a drained run wrote.
pub trait Whole {
    /// Asserts that every kept line is a whole UUID of `node`, the last one too.
    fn all_whole_of(&self, node: u64);
}

impl Whole for Seen {
    fn all_whole_of(&self, node: u64) {
        for line in self.kept_lines() {
            assert_eq!(node_of(parse(line)), node, "{line}");
        }
    }
}

/// A run whose output is drained by a thread that records when each chunk arrived (see
/// [`test_support::proc::Drained`]).
pub struct Drained(test_support::proc::Drained);

impl Drained {
    /// Starts `command`.
    pub fn start(command: Command) -> Drained {
        Drained(test_support::proc::Drained::start(command, HEAD))
    }

    /// Waits until some output arrived; the node of its first UUID.
    pub fn first_node(&self) -> u64 {
        node_of(parse(&self.0.first_line(Duration::from_secs(20))))
    }

    /// Waits for the exit, at most `limit`: (exit code, stderr, what it wrote, when it exited).
    pub fn finish(self, limit: Duration) -> (Option<i32>, String, Arc<Mutex<Seen>>, Instant) {
        let done = self.0.finish(limit);
        (done.code, done.stderr, done.seen, done.exited)
    }
}
