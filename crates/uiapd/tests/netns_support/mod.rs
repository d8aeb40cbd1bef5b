//! Shared harness of the network-namespace tests: namespaces joined by veth links, a `uiapd` in
//! each, and the `uiap` client. Everything is torn down on drop (daemons killed, namespaces
//! deleted), and every wait has a deadline.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use std::net::{Ipv6Addr, SocketAddrV6};

use socket2::{Domain, Protocol, Socket, Type};
use uiap_control::{ClaimView, StatusView};

/// Fast timers for the lifetime tests (a round of 300 ms, renewals at half the lifetime).
pub const FAST_TIMERS: [&str; 12] = test_support::uiapd::FAST_TIMERS;

/// The `uiap` client (the `uiap-cli` package's), built for this test's profile.
pub fn uiap_bin() -> PathBuf {
    test_support::workspace::binary("uiap-cli", "uiap")
}

/// The default group and ports every daemon of these tests uses.
pub const GROUP: Ipv6Addr = Ipv6Addr::new(0xff12, 0, 0, 0, 0, 0, 0x8000, 0x7569);
pub const CLAIM_PORT: u16 = 61001;
pub const REPLY_PORT: u16 = 61002;

static NEXT: AtomicU32 = AtomicU32::new(0);

/// A test file's turn (see `test_support::turn`): held by each [`Net`] and each daemon of
/// `daemon_control` until its teardown, so that the namespace tests run file by file, with the
/// timing margins of each file's own run (fast timers, floods that must not measure each other).
pub use test_support::turn::Turn;

/// Whether the namespace tests can run here: they need root and `ip` (iproute2). A missing
/// prerequisite fails the test under CI and is listed by `cargo xtask test` elsewhere.
pub fn can_run(test: &str) -> bool {
    test_support::require(
        test,
        test_support::all([test_support::root(), test_support::command("ip", &["-V"])]),
    )
}

/// Runs a command, panicking with its output on failure.
pub fn sh(args: &[&str]) -> Output {
    let out = Command::new(args[0])
        .args(&args[1..])
        .output()
        .unwrap_or_else(|e| panic!("{args:?}: {e}"));
    assert!(
        out.status.success(),
        "{args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

pub use test_support::proc::output_within;

/// A uiapd running in a namespace.
pub struct Daemon {
    pub ns: String,
    pub control: PathBuf,
    pub state: PathBuf,
    pub log: PathBuf,
    /// Environment variables the daemon is started with.
    pub env: Vec<(String, String)>,
    child: Option<Child>,
}

impl Daemon {
    fn spawn(ns: &str, dir: &Path, extra: &[String], env: &[(String, String)]) -> Daemon {
        let control = dir.join(format!("{ns}.sock"));
        let state = dir.join(format!("{ns}.state"));
        let log = dir.join(format!("{ns}.log"));
        let mut d = Daemon {
            ns: ns.into(),
            control,
            state,
            log,
            env: env.to_vec(),
            child: None,
        };
        d.start(extra);
        d
    }

    /// Starts (or restarts) the daemon process.
    pub fn start(&mut self, extra: &[String]) {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.log)
            .unwrap();
        let child = Command::new("ip")
            .args(["netns", "exec", &self.ns, env!("CARGO_BIN_EXE_uiapd")])
            .arg("--control")
            .arg(&self.control)
            .arg("--state")
            .arg(&self.state)
            .args(["--log-level", "debug"])
            .args(extra)
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("spawn uiapd");
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::os::unix::net::UnixStream::connect(&self.control).is_err() {
            assert!(
                Instant::now() < deadline,
                "uiapd in {} did not open its control socket; log:\n{}",
                self.ns,
                self.log_text()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Sends `signal` to the daemon (e.g. SIGSTOP, SIGCONT); false if it is not running.
    pub fn signal(&self, signal: i32) -> bool {
        let Some(child) = &self.child else {
            return false;
        };
        // SAFETY: kill with a PID we spawned and have not waited for.
        unsafe { libc::kill(child.id() as i32, signal) == 0 }
    }

    /// SIGKILL, and wait: the daemon ends without a word (its sockets close).
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// SIGTERM, then wait (SIGKILL after 5 s). Returns whether it exited by itself.
    pub fn stop(&mut self) -> bool {
        let Some(mut child) = self.child.take() else {
            return true;
        };
        // SAFETY: kill with a PID we spawned.
        unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            if let Ok(Some(status)) = child.try_wait() {
                return status.success();
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                return false;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Runs `uiap ARGS --control SOCK` and returns (exit code, stdout, stderr).
    pub fn uiap(&self, args: &[&str]) -> (i32, String, String) {
        let out = output_within(self.uiap_command(args), Duration::from_secs(30));
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    pub fn uiap_command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(uiap_bin());
        c.args(args).arg("--control").arg(&self.control);
        c
    }

    /// `uiap claim --domain DOMAIN ARGS…`; returns the exit code and stdout.
    pub fn claim(&self, domain: &str, space: &[&str]) -> (i32, String) {
        let mut args = vec!["claim", "--domain", domain];
        args.extend_from_slice(space);
        let (code, out, err) = self.uiap(&args);
        assert!(
            code == 0 || code == 3,
            "uiap claim in {} exited {code}: {out}{err}\nlog:\n{}",
            self.ns,
            self.log_text()
        );
        (code, out)
    }

    pub fn status(&self) -> StatusView {
        let (code, out, err) = self.uiap(&["status", "--json"]);
        assert_eq!(code, 0, "uiap status: {err}");
        serde_json::from_str(&out).expect("status json")
    }

    pub fn list(&self) -> Vec<ClaimView> {
        let (code, out, err) = self.uiap(&["list", "--json"]);
        assert_eq!(code, 0, "uiap list: {err}");
        serde_json::from_str(&out).expect("list json")
    }

    pub fn drops(&self, reason: &str) -> u64 {
        self.status().drops.get(reason).copied().unwrap_or(0)
    }

    pub fn counter(&self, name: &str) -> u64 {
        self.status().counters.get(name).copied().unwrap_or(0)
    }

    /// Waits until the daemon reports `n` participating interfaces.
    pub fn wait_interfaces(&self, n: usize) {
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            let got = self.status().interfaces.len();
            if got == n {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "{}: expected {n} interfaces, found {got}",
                self.ns
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Waits until every claim is `held`.
    pub fn wait_all_held(&self) {
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            let claims = self.list();
            if !claims.is_empty()
                && claims
                    .iter()
                    .all(|c| c.state == uiap_control::ClaimState::Held)
            {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "{}: claims not held: {claims:?}",
                self.ns
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A set of namespaces, deleted on drop.
pub struct Net {
    pub names: Vec<String>,
    pub dir: PathBuf,
    pub daemons: Vec<Daemon>,
    /// Released after the teardown (fields drop after `Drop::drop`).
    _turn: Turn,
}

impl Net {
    /// Creates `count` namespaces named `u<pid>x<n><letter>`.
    #[track_caller]
    pub fn new(count: usize) -> Net {
        // The client is built before any test times it.
        uiap_bin();
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let pid = std::process::id();
        let names: Vec<String> = (0..count)
            .map(|i| format!("uiap{pid}x{n}{}", (b'a' + i as u8) as char))
            .collect();
        let dir = std::env::temp_dir().join(format!("uiap-netns-{pid}-{n}"));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mut net = Net {
            names: Vec::new(),
            dir,
            daemons: Vec::new(),
            _turn: Turn::of_caller(),
        };
        for name in names {
            sh(&["ip", "netns", "add", &name]);
            net.names.push(name.clone());
            sh(&["ip", "-n", &name, "link", "set", "lo", "up"]);
        }
        net
    }

    /// A linear chain: link i joins namespace i (interface `r0`/`r1`…) to namespace i+1.
    /// Interface `eN` on the left side, `wN` on the right.
    #[track_caller]
    pub fn chain(count: usize) -> Net {
        let net = Net::new(count);
        for i in 0..count - 1 {
            net.link(i, &format!("e{i}"), i + 1, &format!("w{i}"));
        }
        net
    }

    /// The hostile site: H (namespace 0, no daemon) — T (1) — N (2), joined by `h0`–`t0` and
    /// `t1`–`n0`. Start the daemons with [`start_hostile_daemons`](Self::start_hostile_daemons).
    #[track_caller]
    pub fn hostile() -> Net {
        let net = Net::new(3);
        net.link(0, "h0", 1, "t0");
        net.link(1, "t1", 2, "n0");
        net
    }

    /// Starts T's and N's daemons (`daemons[0]`, `daemons[1]`) with these flags, and waits until
    /// both see their interfaces and H's address is usable.
    pub fn start_hostile_daemons(&mut self, t: &[String], n: &[String]) {
        self.start_daemon(1, t);
        self.start_daemon(2, n);
        self.daemons[0].wait_interfaces(2);
        self.daemons[1].wait_interfaces(1);
        wait_not_tentative(&self.names[0], "h0");
    }

    /// A LAN: namespace 0 holds a bridge (multicast snooping off, so multicast reaches every
    /// port) that namespaces 1…count−1 join through their interface `l0`.
    #[track_caller]
    pub fn lan(count: usize) -> Net {
        let net = Net::new(count);
        let sw = net.names[0].clone();
        sh(&[
            "ip",
            "-n",
            &sw,
            "link",
            "add",
            "br0",
            "type",
            "bridge",
            "mcast_snooping",
            "0",
        ]);
        for i in 1..count {
            let port = format!("p{i}");
            sh(&[
                "ip",
                "link",
                "add",
                "l0",
                "netns",
                &net.names[i],
                "type",
                "veth",
                "peer",
                "name",
                &port,
                "netns",
                &sw,
            ]);
            sh(&["ip", "-n", &sw, "link", "set", &port, "master", "br0"]);
            sh(&["ip", "-n", &sw, "link", "set", &port, "up"]);
            sh(&["ip", "-n", &net.names[i], "link", "set", "l0", "up"]);
        }
        sh(&["ip", "-n", &sw, "link", "set", "br0", "up"]);
        net
    }

    /// A veth pair between namespace `a` (interface `ia`) and `b` (interface `ib`).
    pub fn link(&self, a: usize, ia: &str, b: usize, ib: &str) {
        let (na, nb) = (&self.names[a], &self.names[b]);
        sh(&[
            "ip", "link", "add", ia, "netns", na, "type", "veth", "peer", "name", ib, "netns", nb,
        ]);
        sh(&["ip", "-n", na, "link", "set", ia, "up"]);
        sh(&["ip", "-n", nb, "link", "set", ib, "up"]);
    }

    /// Starts a uiapd in namespace `i` (returns its index in `daemons`).
    pub fn start_daemon(&mut self, i: usize, extra: &[String]) -> usize {
        self.start_daemon_with_env(i, extra, &[])
    }

    /// As [`start_daemon`](Self::start_daemon), with environment variables.
    pub fn start_daemon_with_env(
        &mut self,
        i: usize,
        extra: &[String],
        env: &[(String, String)],
    ) -> usize {
        let d = Daemon::spawn(&self.names[i], &self.dir, extra, env);
        self.daemons.push(d);
        self.daemons.len() - 1
    }

    pub fn ns_path(&self, i: usize) -> PathBuf {
        PathBuf::from("/var/run/netns").join(&self.names[i])
    }

    /// Runs `f` on a thread that has entered namespace `i`.
    pub fn in_ns<T: Send + 'static>(&self, i: usize, f: impl FnOnce() -> T + Send + 'static) -> T {
        self.spawn_in_ns(i, f).join().expect("namespace thread")
    }

    /// Starts `f` on a thread that has entered namespace `i`; join it for the result.
    pub fn spawn_in_ns<T: Send + 'static>(
        &self,
        i: usize,
        f: impl FnOnce() -> T + Send + 'static,
    ) -> std::thread::JoinHandle<T> {
        let path = self.ns_path(i);
        std::thread::spawn(move || {
            let file = std::fs::File::open(&path).expect("open netns");
            use std::os::fd::AsRawFd;
            // SAFETY: setns on a valid namespace fd affects only this thread (CLONE_NEWNET).
            let rc = unsafe { libc::setns(file.as_raw_fd(), libc::CLONE_NEWNET) };
            assert_eq!(rc, 0, "setns: {}", std::io::Error::last_os_error());
            f()
        })
    }

    /// Drops every UDP datagram leaving interface `dev` of namespace `i` (nftables, netdev
    /// egress): what the daemon there sends is never heard.
    pub fn mute(&self, i: usize, dev: &str) {
        let rules = format!(
            "table netdev uiapmute_{dev} {{\n chain eg {{\n  type filter hook egress device \"{dev}\" priority 0;\n  \
             meta l4proto udp counter drop\n }}\n}}\n"
        );
        let mut nft = Command::new("ip")
            .args(["netns", "exec", &self.names[i], "nft", "-f", "-"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("nft");
        {
            use std::io::Write;
            nft.stdin
                .take()
                .unwrap()
                .write_all(rules.as_bytes())
                .unwrap();
        }
        let out = nft.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "nft: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// Undoes [`mute`](Self::mute): what the daemon in namespace `i` sends out `dev` is heard
    /// again.
    pub fn unmute(&self, i: usize, dev: &str) {
        sh(&[
            "ip",
            "netns",
            "exec",
            &self.names[i],
            "nft",
            "delete",
            "table",
            "netdev",
            &format!("uiapmute_{dev}"),
        ]);
    }

    /// Drops `percent` % of UDP datagrams leaving every interface of every namespace (nftables
    /// `numgen random` on the netdev egress hook; stands in for `tc netem loss` where the
    /// kernel has no `sch_netem`). Returns a description of the mechanism used.
    pub fn add_loss(&self, percent: u32) -> Result<&'static str, String> {
        let mut mechanism = "tc netem";
        for name in &self.names {
            let out = sh(&["ip", "-n", name, "-o", "link", "show"]);
            let text = String::from_utf8_lossy(&out.stdout).into_owned();
            for dev in text
                .lines()
                .filter_map(|l| l.split(": ").nth(1))
                .map(|d| d.split('@').next().unwrap_or(d))
            {
                if dev == "lo" {
                    continue;
                }
                let netem = Command::new("ip")
                    .args([
                        "netns", "exec", name, "tc", "qdisc", "add", "dev", dev, "root", "netem",
                        "loss",
                    ])
                    .arg(format!("{percent}%"))
                    .output()
                    .map_err(|e| e.to_string())?;
                if netem.status.success() {
                    continue;
                }
                mechanism = "nftables numgen (no sch_netem in this kernel)";
                let rules = format!(
                    "table netdev uiaploss_{dev} {{\n chain eg {{\n  type filter hook egress device \"{dev}\" priority 0;\n  \
                     meta l4proto udp numgen random mod 100 < {percent} counter drop\n }}\n}}\n"
                );
                let nft = Command::new("ip")
                    .args(["netns", "exec", name, "nft", "-f", "-"])
                    .stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .and_then(|mut c| {
                        use std::io::Write;
                        c.stdin.take().unwrap().write_all(rules.as_bytes())?;
                        c.wait_with_output()
                    })
                    .map_err(|e| {
                        format!(
                            "neither tc netem ({}) nor nft ({e}) available",
                            String::from_utf8_lossy(&netem.stderr).trim()
                        )
                    })?;
                if !nft.status.success() {
                    return Err(format!(
                        "neither tc netem ({}) nor nft ({}) works",
                        String::from_utf8_lossy(&netem.stderr).trim(),
                        String::from_utf8_lossy(&nft.stderr).trim()
                    ));
                }
            }
        }
        Ok(mechanism)
    }
}

impl Drop for Net {
    fn drop(&mut self) {
        for d in &mut self.daemons {
            d.stop();
        }
        self.daemons.clear();
        for name in &self.names {
            let _ = Command::new("ip").args(["netns", "del", name]).status();
        }
        if std::thread::panicking() {
            eprintln!("test failed: logs kept in {}", self.dir.display());
        } else {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// A UDP socket sending with hop limit `hops` out interface `index`, bound to `bind` (scoped to
/// `index` unless unspecified).
pub fn udp(index: u32, hops: u32, bind: Ipv6Addr) -> Socket {
    let s = Socket::new(Domain::IPV6, Type::DGRAM, Some(Protocol::UDP)).unwrap();
    s.set_multicast_hops_v6(hops).unwrap();
    s.set_unicast_hops_v6(hops).unwrap();
    s.set_multicast_if_v6(index).unwrap();
    s.bind(&SocketAddrV6::new(bind, 0, 0, if bind.is_unspecified() { 0 } else { index }).into())
        .unwrap();
    s
}

/// The index of interface `name` in the calling thread's namespace.
pub fn index_of(name: &str) -> u32 {
    let c = std::ffi::CString::new(name).unwrap();
    // SAFETY: a valid NUL-terminated name.
    let i = unsafe { libc::if_nametoindex(c.as_ptr()) };
    assert_ne!(i, 0, "no interface {name}");
    i
}

/// Waits until `dev` in `ns` has a link-local address that is no longer tentative.
pub fn wait_not_tentative(ns: &str, dev: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let out = sh(&["ip", "-n", ns, "-6", "addr", "show", "dev", dev]);
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        if text.contains("fe80") && !text.contains("tentative") {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{ns}/{dev} still tentative: {text}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// An IPv6 packet (hop limit 255) carrying `payload` in a UDP datagram from port 61001 to `port`,
/// with the UDP checksum over the pseudo-header (RFC 8200 §8.1).
pub fn ipv6_udp(source: Ipv6Addr, destination: Ipv6Addr, port: u16, payload: &[u8]) -> Vec<u8> {
    let udp_len = (8 + payload.len()) as u16;
    let mut udp = Vec::with_capacity(usize::from(udp_len));
    udp.extend_from_slice(&CLAIM_PORT.to_be_bytes());
    udp.extend_from_slice(&port.to_be_bytes());
    udp.extend_from_slice(&udp_len.to_be_bytes());
    udp.extend_from_slice(&[0, 0]);
    udp.extend_from_slice(payload);
    let mut sum: u32 = 0;
    let mut add = |bytes: &[u8]| {
        for pair in bytes.chunks(2) {
            sum += u32::from(u16::from_be_bytes([pair[0], *pair.get(1).unwrap_or(&0)]));
        }
    };
    add(&source.octets());
    add(&destination.octets());
    add(&u32::from(udp_len).to_be_bytes());
    add(&[0, 0, 0, 17]);
    add(&udp);
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    let checksum = match !(sum as u16) {
        0 => 0xffff,
        c => c,
    };
    udp[6..8].copy_from_slice(&checksum.to_be_bytes());
    let mut packet = vec![0x60, 0, 0, 0];
    packet.extend_from_slice(&udp_len.to_be_bytes());
    packet.extend_from_slice(&[17, 255]);
    packet.extend_from_slice(&source.octets());
    packet.extend_from_slice(&destination.octets());
    packet.extend_from_slice(&udp);
    packet
}

/// A Claim-Attempt from a device that is not on the site (domain `fff:0:3:0`, a 4-octet UID of
/// zeros): a hostile sender changes its sequence and space to make each one new.
pub fn hostile_attempt() -> uiap::wire::Repr {
    uiap::wire::Repr {
        msg_type: uiap::wire::MessageType::ClaimAttempt,
        proxy: false,
        reclaim: false,
        hop_limit: 32,
        lifetime: 60,
        origin: uiap::wire::DeviceId::new(0x0bad_0bad_0bad_0bad).unwrap(),
        sequence: 0,
        claim_ref: 1,
        domain: "fff:0:3:0".parse().unwrap(),
        space: uiap::space::UidSpace::Unique(uiap::space::Uid::from_octets(&[0; 4]).unwrap()),
    }
}

/// Junk shaped like a sealed Claim-Attempt (40 octets of zeros as its trailer), sent to the
/// group's claim port on `l0` at `rate` a second until `stop`, the n-th from `source(n)`; how
/// many were sent and over how long. Run it in a namespace with an `l0` on the LAN.
pub fn spoof_junk(
    source: impl Fn(u64) -> Ipv6Addr,
    rate: u64,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
) -> (u64, Duration) {
    let mut repr = hostile_attempt();
    spoof("l0", source, rate, stop, move || {
        repr.sequence = repr.sequence.wrapping_add(1);
        let mut junk = repr.to_vec();
        junk.extend_from_slice(&[0u8; 40]);
        junk
    })
}

/// Valid Claim-Attempts, each of a new claim (a new sequence and UID, so that each is a flood
/// of its own to forward), sent to the group's claim port on `dev` as [`spoof_junk`] sends.
pub fn spoof_attempts(
    dev: &str,
    source: impl Fn(u64) -> Ipv6Addr,
    rate: u64,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
) -> (u64, Duration) {
    let mut repr = hostile_attempt();
    spoof(dev, source, rate, stop, move || {
        repr.sequence = repr.sequence.wrapping_add(1);
        let uid = uiap::space::Uid::from_octets(&repr.sequence.to_be_bytes()).unwrap();
        repr.space = uiap::space::UidSpace::Unique(uid);
        repr.to_vec()
    })
}

/// Sends `message()` to the group's claim port on `dev` at `rate` a second until `stop`, the
/// n-th from `source(n)`, through a raw socket that writes its own IPv6 header.
pub fn spoof(
    dev: &str,
    source: impl Fn(u64) -> Ipv6Addr,
    rate: u64,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    mut message: impl FnMut() -> Vec<u8>,
) -> (u64, Duration) {
    let index = index_of(dev);
    let raw = Socket::new(
        Domain::IPV6,
        Type::RAW,
        Some(Protocol::from(libc::IPPROTO_RAW)),
    )
    .expect("raw socket");
    let to = SocketAddrV6::new(GROUP, 0, 0, index).into();
    let start = Instant::now();
    let mut sent = 0u64;
    while !stop.load(Ordering::Relaxed) {
        let due = u64::try_from(start.elapsed().as_micros()).unwrap() * rate / 1_000_000;
        if sent >= due {
            std::thread::sleep(Duration::from_micros(500));
            continue;
        }
        for _ in 0..(due - sent).min(256) {
            let packet = ipv6_udp(source(sent), GROUP, CLAIM_PORT, &message());
            if raw.send_to(&packet, &to).is_ok() {
                sent += 1;
            }
        }
    }
    (sent, start.elapsed())
}

/// A LAN of `count` namespaces with daemons on fast timers in namespaces 1 to `daemons`, each
/// on the LAN; the rest are free for hostile hosts.
pub fn lan_of_fast_daemons(count: usize, daemons: usize) -> Net {
    let mut net = Net::lan(count);
    let flags: Vec<String> = FAST_TIMERS.iter().map(|s| s.to_string()).collect();
    for i in 1..=daemons {
        net.start_daemon(i, &flags);
    }
    for d in &net.daemons {
        d.wait_interfaces(1);
    }
    net
}

/// `space` of `domain` claimed by `d` for 60 s, renewed, and watched: the claim's events.
pub fn hold_renewed(
    d: &Daemon,
    domain: &str,
    space: uiap_control::SpaceText,
) -> uiap_control::HeldClaim {
    let request = uiap_control::ClaimRequest {
        lifetime: 60,
        renew: true,
        ..uiap_control::ClaimRequest::new(domain, space)
    };
    match uiap_control::Client::new(&d.control)
        .hold(&request, Some(Duration::from_secs(10)))
        .unwrap()
    {
        uiap_control::Hold::Held(held) => held,
        other => panic!("the claim in {} was not granted: {other:?}", d.ns),
    }
}
