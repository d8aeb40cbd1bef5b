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

/// What a drained run wrote: the first [`HEAD`] bytes, the last chunk, and when each chunk
/// arrived and its size.
#[derive(Default)]
pub struct Seen {
    head: Vec<u8>,
    last: Vec<u8>,
    arrivals: Vec<(Instant, usize)>,
}

const HEAD: usize = 4 << 20;

impl Seen {
    fn add(&mut self, bytes: &[u8]) {
        self.arrivals.push((Instant::now(), bytes.len()));
        let room = HEAD.saturating_sub(self.head.len());
        self.head.extend_from_slice(&bytes[..bytes.len().min(room)]);
        self.last.clear();
        self.last.extend_from_slice(bytes);
    }

    /// Asserts that every kept line is a whole UUID of `node`, the last one too.
    pub fn all_whole_of(&self, node: u64) {
        assert!(self.last.ends_with(b"\n"), "a partial last line");
        let whole = match self.head.iter().rposition(|&b| b == b'\n') {
            Some(i) => &self.head[..=i],
            None => &[][..],
        };
        let last = std::str::from_utf8(&self.last)
            .unwrap()
            .lines()
            .last()
            .unwrap();
        for line in std::str::from_utf8(whole).unwrap().lines().chain([last]) {
            assert_eq!(node_of(parse(line)), node, "{line}");
        }
    }

    /// Bytes that arrived after `at`.
    pub fn bytes_after(&self, at: Instant) -> usize {
        self.arrivals
            .iter()
            .filter(|(t, _)| *t > at)
            .map(|(_, n)| n)
            .sum()
    }
}

/// A run whose output is drained by a thread that records when each chunk arrived.
pub struct Drained {
    child: Child,
    seen: Arc<Mutex<Seen>>,
    reader: Option<std::thread::JoinHandle<()>>,
}

impl Drained {
    /// Starts `command`.
    pub fn start(mut command: Command) -> Drained {
        let mut child = command
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut out = child.stdout.take().unwrap();
        let seen = Arc::new(Mutex::new(Seen::default()));
        let sink = seen.clone();
        let reader = std::thread::spawn(move || {
            let mut buf = vec![0u8; 1 << 16];
            while let Ok(n) = out.read(&mut buf) {
                if n == 0 {
                    return;
                }
                sink.lock().unwrap().add(&buf[..n]);
            }
        });
        Drained {
            child,
            seen,
            reader: Some(reader),
        }
    }

    /// Waits until some output arrived; the node of its first UUID.
    pub fn first_node(&self) -> u64 {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            {
                let s = self.seen.lock().unwrap();
                if s.head.len() >= 37 {
                    return node_of(parse(std::str::from_utf8(&s.head[..36]).unwrap()));
                }
            }
            assert!(Instant::now() < deadline, "no output");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Waits for the exit, at most `limit`: (exit code, stderr, what it wrote, when it exited).
    pub fn finish(mut self, limit: Duration) -> (Option<i32>, String, Arc<Mutex<Seen>>, Instant) {
        let deadline = Instant::now() + limit;
        let status = loop {
            if let Some(s) = self.child.try_wait().unwrap() {
                break s;
            }
            assert!(Instant::now() < deadline, "still running after {limit:?}");
            std::thread::sleep(Duration::from_millis(5));
        };
        let exited = Instant::now();
        let mut err = String::new();
        self.child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut err)
            .unwrap();
        self.reader.take().unwrap().join().unwrap();
        (status.code(), err, self.seen.clone(), exited)
    }
}

impl Drop for Drained {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
