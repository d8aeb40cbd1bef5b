//! Time from a fault to the generator's stop, for each fault several times: a generator
//! process stopped (SIGSTOP) past its TTL, a lost etcd majority, PostgreSQL shut down, and a
//! generator cut off from etcd (an nftables rule dropping the members' client ports; needs
//! root). Each run holds a fresh lease (TTL 2 s, margin 200 ms, answer limit 600 ms, as the
//! fault tests use) and a v8 generator making a UUID every 200 µs; the fault comes at a phase
//! of the keep-alive cycle that moves with each run, and the figure is the boot-clock time from
//! the fault to the generator's first refused UUID.
//!
//! For SIGSTOP the generator cannot stop by itself while stopped: the figures are the time from
//! the SIGSTOP to its lease's deadline (after which it makes nothing with the node), the time
//! from the deadline to etcd freeing the node (which must be positive), and the time from the
//! SIGCONT to its first refused UUID.
//!
//! ```text
//! cargo bench -p uuidkit-lease --all-features --bench lease_faults -- [--runs 5] \
//!     [--only sigstop,majority,postgres,cut]
//! ```
//!
//! Figures in benchmarks/node-sources-and-leases.md.

mod measure;

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::Duration;

use measure::{number, summary, wanted};
use std::sync::Arc;
use std::thread::JoinHandle;
use test_support::db::{EtcdCluster, Postgres};

use uuidkit::clock::SystemClock;
use uuidkit::node::{NodeLost, NodeSource};
use uuidkit::rng::ThreadRng;
use uuidkit::{Generator, V8Distributed};
use uuidkit_lease::etcd::{EtcdConfig, EtcdLease};
use uuidkit_lease::postgres::{PgConfig, PgLease};
use uuidkit_lease::{BootClock, BootTime, LeaseSlot};

const TTL: Duration = Duration::from_secs(2);
const MARGIN: Duration = Duration::from_millis(200);
const ANSWER_LIMIT: Duration = Duration::from_millis(600);
/// The child generator's settings: the endpoints and the prefix.
const CHILD: &str = "LEASE_FAULTS_CHILD";

fn etcd_config(endpoints: Vec<String>, prefix: &str) -> EtcdConfig {
    EtcdConfig {
        timing: uuidkit_lease::Timing {
            ttl: TTL,
            margin: MARGIN,
            answer_limit: ANSWER_LIMIT,
            ..uuidkit_lease::Timing::default()
        },
        ..EtcdConfig::new(endpoints, prefix, 16)
    }
}

/// The wait before run `i`'s fault: spread over one keep-alive interval.
fn phase(i: u64, runs: u64) -> Duration {
    TTL / 3 * u32::try_from(i).unwrap_or(0) / u32::try_from(runs).unwrap_or(1) + TTL / 6
}

fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

/// The child: holds a node, prints `HELD KEY`, makes UUIDs every 200 µs, printing the last
/// deadline it saw; at the first refused UUID prints `LOST BOOT_NS DEADLINE_NS` and ends.
fn child(settings: &str) {
    let (endpoints, prefix) = settings.split_once(' ').expect("endpoints and prefix");
    let config = etcd_config(endpoints.split(',').map(str::to_string).collect(), prefix);
    let lease = EtcdLease::acquire(&config, &mut ThreadRng).expect("a node");
    let mut g = V8Distributed::builder()
        .node_source(lease.slot().clone())
        .build(SystemClock, ThreadRng)
        .expect("v8");
    let mut out = std::io::stdout().lock();
    writeln!(out, "HELD {}", lease.key()).expect("stdout");
    out.flush().expect("stdout");
    let mut deadline = Duration::ZERO;
    while g.generate().is_ok() {
        deadline = lease.slot().deadline().unwrap_or(deadline);
        std::thread::sleep(Duration::from_micros(200));
    }
    let at = BootTime.now();
    writeln!(out, "LOST {} {}", nanos(at), nanos(deadline)).expect("stdout");
}

/// Polls etcd every 5 ms until `key` is gone: the boot-clock instant it was seen gone.
fn freed(endpoints: &[String], key: &str) -> Duration {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    rt.block_on(async {
        let mut c = etcd_client::Client::connect(endpoints, None)
            .await
            .expect("etcd");
        loop {
            let answer = c.get(key, None).await.expect("a get");
            if answer.kvs().is_empty() {
                return BootTime.now();
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
}

/// A v8 generator on `source` in a thread of its own, making a UUID every 200 µs until the
/// node is lost: the thread's result is the boot-clock instant of the failed UUID and why.
pub fn generate_until_lost(source: Arc<dyn NodeSource>) -> JoinHandle<(Duration, NodeLost)> {
    std::thread::spawn(move || {
        let mut g = V8Distributed::builder()
            .node_source(source)
            .build(SystemClock, ThreadRng)
            .expect("a v8 generator");
        loop {
            match g.generate() {
                Ok(u) => {
                    std::hint::black_box(u);
                    std::thread::sleep(Duration::from_micros(200));
                }
                Err(e) => {
                    let at = BootTime.now();
                    return (at, e.node_lost().copied().expect("a NodeLost error"));
                }
            }
        }
    })
}

fn sigstop(runs: u64) {
    let cluster = EtcdCluster::start().expect("a three-member etcd cluster");
    let (mut to_deadline, mut to_freed, mut resumed) = (vec![], vec![], vec![]);
    for i in 0..runs {
        let settings = format!("{} /faults/stop{i}", cluster.endpoints().join(","));
        let mut generator = Command::new(std::env::current_exe().expect("this program"))
            .env(CHILD, settings)
            .stdout(Stdio::piped())
            .spawn()
            .expect("the generator process");
        let mut out = BufReader::new(generator.stdout.take().expect("its stdout"));
        let mut line = String::new();
        out.read_line(&mut line).expect("HELD");
        let key = line.trim().strip_prefix("HELD ").expect("HELD").to_string();
        std::thread::sleep(phase(i, runs));
        let pid = libc::pid_t::try_from(generator.id()).expect("a pid");
        // SAFETY: our own child, not yet reaped.
        unsafe { libc::kill(pid, libc::SIGSTOP) };
        let stopped = BootTime.now();
        let gone = freed(&cluster.endpoints(), &key);
        std::thread::sleep(Duration::from_millis(300));
        let continued = BootTime.now();
        // SAFETY: as above.
        unsafe { libc::kill(pid, libc::SIGCONT) };
        line.clear();
        out.read_line(&mut line).expect("LOST");
        generator.wait().expect("the generator's end");
        let mut f = line
            .split(' ')
            .skip(1)
            .map(|v| Duration::from_nanos(v.trim().parse().expect("an instant")));
        let (lost, deadline) = (f.next().expect("LOST"), f.next().expect("deadline"));
        to_deadline.push(deadline.saturating_sub(stopped));
        match gone.checked_sub(deadline) {
            Some(gap) => to_freed.push(gap),
            None => println!(
                "SIGSTOP run {i}: etcd freed the node {:?} BEFORE the holder's deadline",
                deadline - gone
            ),
        }
        resumed.push(lost - continued);
    }
    println!("SIGSTOP: stop to deadline {}", summary(&mut to_deadline));
    println!(
        "SIGSTOP: deadline to etcd freeing the node {}",
        summary(&mut to_freed)
    );
    println!(
        "SIGSTOP: SIGCONT to the first refused UUID {}",
        summary(&mut resumed)
    );
}

/// Runs `runs` faults against a fresh lease each: `hold` makes the lease and returns its slot
/// and whatever keeps it, `fault` injects the fault, `mend` undoes it. Prints the times from
/// each fault to the generator's stop, and the reasons it gave.
fn faults<L>(
    name: &str,
    runs: u64,
    mut hold: impl FnMut(u64) -> (Arc<LeaseSlot>, L),
    mut fault: impl FnMut(u64),
    mut mend: impl FnMut(u64),
) {
    let mut times = Vec::new();
    let mut reasons = std::collections::BTreeSet::new();
    for i in 0..runs {
        let (slot, lease) = hold(i);
        let generator = generate_until_lost(slot);
        std::thread::sleep(phase(i, runs));
        fault(i);
        let at = BootTime.now();
        let (lost, why) = generator.join().expect("the generator thread");
        times.push(lost.saturating_sub(at));
        reasons.insert(why.to_string());
        drop(lease);
        mend(i);
    }
    println!(
        "{name}: fault to the generator's stop {}",
        summary(&mut times)
    );
    for r in reasons {
        println!("{name}:   {r}");
    }
}

fn majority(runs: u64) {
    let cluster =
        std::cell::RefCell::new(EtcdCluster::start().expect("a three-member etcd cluster"));
    faults(
        "etcd majority lost",
        runs,
        |i| {
            let config = etcd_config(cluster.borrow().endpoints(), &format!("/faults/maj{i}"));
            let lease = EtcdLease::acquire(&config, &mut ThreadRng).expect("a node");
            (lease.slot().clone(), lease)
        },
        |i| {
            let first = usize::try_from(i % 3).expect("a member");
            let mut c = cluster.borrow_mut();
            c.stop(first);
            c.stop((first + 1) % 3);
        },
        |i| {
            let first = usize::try_from(i % 3).expect("a member");
            let mut c = cluster.borrow_mut();
            c.restart(first).expect("a member back");
            c.restart((first + 1) % 3).expect("a member back");
        },
    );
}

fn postgres(runs: u64) {
    let server = std::cell::RefCell::new(None::<Postgres>);
    faults(
        "PostgreSQL shut down",
        runs,
        |_| {
            let pg = Postgres::start().expect("a PostgreSQL server");
            let config = PgConfig {
                timing: uuidkit_lease::Timing {
                    ttl: TTL,
                    margin: MARGIN,
                    answer_limit: ANSWER_LIMIT,
                    ..uuidkit_lease::Timing::default()
                },
                ..PgConfig::new(pg.url(), 16)
            };
            let lease = PgLease::acquire(&config, &mut ThreadRng).expect("a node");
            *server.borrow_mut() = Some(pg);
            (lease.slot().clone(), lease)
        },
        |_| server.borrow_mut().as_mut().expect("the server").stop(),
        |_| drop(server.borrow_mut().take()),
    );
}

/// An nftables table dropping every TCP segment to or from `ports` (the cluster's client
/// ports) while it exists.
struct Cut(String);

impl Cut {
    fn new(ports: &[String]) -> Cut {
        let table = format!("uuidkit_cut_{}", std::process::id());
        let set = ports.join(", ");
        let script = format!(
            "table inet {table} {{\n chain out {{\n  type filter hook output priority 0;\n  \
             tcp dport {{ {set} }} drop\n  tcp sport {{ {set} }} drop\n }}\n}}\n"
        );
        nft(&["-f", "-"], Some(&script));
        Cut(table)
    }
}

impl Drop for Cut {
    fn drop(&mut self) {
        nft(&["delete", "table", "inet", &self.0], None);
    }
}

fn nft(args: &[&str], input: Option<&str>) {
    let mut nft = Command::new("nft")
        .args(args)
        .stdin(Stdio::piped())
        .spawn()
        .expect("nft (nftables; run as root)");
    if let Some(text) = input {
        nft.stdin
            .take()
            .expect("its stdin")
            .write_all(text.as_bytes())
            .expect("the rules");
    }
    drop(nft.stdin.take());
    assert!(nft.wait().expect("nft").success(), "nft {args:?} failed");
}

fn cut(runs: u64) {
    let cluster = EtcdCluster::start().expect("a three-member etcd cluster");
    let ports: Vec<String> = cluster
        .endpoints()
        .iter()
        .map(|e| e.rsplit(':').next().expect("a port").to_string())
        .collect();
    let cut = std::cell::RefCell::new(None::<Cut>);
    faults(
        "cut off from etcd",
        runs,
        |i| {
            let config = etcd_config(cluster.endpoints(), &format!("/faults/cut{i}"));
            let lease = EtcdLease::acquire(&config, &mut ThreadRng).expect("a node");
            (lease.slot().clone(), lease)
        },
        |_| *cut.borrow_mut() = Some(Cut::new(&ports)),
        |_| drop(cut.borrow_mut().take()),
    );
}

fn main() {
    if let Ok(settings) = std::env::var(CHILD) {
        return child(&settings);
    }
    let runs = number("runs", 5);
    if wanted("sigstop") {
        sigstop(runs);
    }
    if wanted("majority") {
        majority(runs);
    }
    if wanted("postgres") {
        postgres(runs);
    }
    if wanted("cut") {
        cut(runs);
    }
}
