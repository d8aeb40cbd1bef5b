//! A throwaway three-member etcd cluster on loopback ports.
//!
//! etcd has no Unix-socket listener for its peers, so each member listens on
//! two TCP ports of 127.0.0.1 (clients, peers). The ports are ones the kernel
//! just handed out as free; if another process takes one before etcd binds
//! it, the start is retried on new ports.

use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use super::process::{ScratchDir, Server, find_program, free_ports};

/// How many members a cluster has: a majority survives the loss of one.
pub const MEMBERS: usize = 3;

/// Starts tried on new ports before giving up (a port taken meanwhile).
const PORT_TRIES: usize = 3;

/// A three-member etcd cluster in a temporary directory, stopped (and the
/// directory removed) on drop, also when a test panics. Members can be
/// stopped and started again, for fault tests.
///
/// Needs `etcd` (Debian's `etcd-server`) on `PATH` or in `/usr/bin`.
///
/// ```
/// let Some(cluster) = test_support::db::EtcdCluster::for_test("etcd_doc") else { return };
/// assert_eq!(cluster.endpoints().len(), 3);
/// for e in cluster.endpoints() {
///     assert!(e.parse::<std::net::SocketAddr>().is_ok(), "{e}");
/// }
/// assert!(cluster.healthy(0));
/// ```
#[derive(Debug)]
pub struct EtcdCluster {
    // Declared before `dir`: the members stop before their directory goes.
    members: Vec<Option<Server>>,
    clients: Vec<u16>,
    peers: Vec<u16>,
    /// Where each member serves `/health` and `/metrics` over plain HTTP (its client port may
    /// speak TLS).
    metrics: Vec<u16>,
    /// An address the members also take clients on, besides 127.0.0.1.
    also: Option<Ipv4Addr>,
    /// Clients must speak TLS and show a certificate of the cluster's CA.
    tls: bool,
    /// Member 0 runs inside this network namespace (its name, the host's address on its link,
    /// and its own), the others on the host's address: [`start_split`](Self::start_split).
    split: Option<(String, Ipv4Addr, Ipv4Addr)>,
    etcd: PathBuf,
    dir: ScratchDir,
}

impl EtcdCluster {
    /// Starts a cluster and waits until every member reports itself healthy
    /// (which needs an elected leader).
    ///
    /// # Errors
    /// Why no cluster could be started: etcd is not installed, or the
    /// members did not become healthy in time (with the end of their logs).
    ///
    /// ```
    /// let cluster = match test_support::db::EtcdCluster::start() {
    ///     Ok(c) => c,
    ///     Err(reason) => return test_support::skip("etcd_start_doc", reason),
    /// };
    /// assert!(cluster.endpoints()[0].starts_with("127.0.0.1:"));
    /// ```
    pub fn start() -> Result<Self, String> {
        Self::start_also_on(None)
    }

    /// As [`start`](Self::start), with the members also taking clients on
    /// `also` (an address of this host, such as the host's end of a link to
    /// a network namespace), on the same ports: see
    /// [`endpoints_on`](Self::endpoints_on).
    ///
    /// # Errors
    /// As [`start`](Self::start); also when `also` is not an address of
    /// this host.
    ///
    /// ```
    /// use std::net::Ipv4Addr;
    /// let also = Ipv4Addr::new(127, 0, 0, 2); // all of 127/8 is this host's
    /// let cluster = match test_support::db::EtcdCluster::start_also_on(Some(also)) {
    ///     Ok(c) => c,
    ///     Err(reason) => return test_support::skip("etcd_also_doc", reason),
    /// };
    /// assert!(cluster.endpoints_on(also)[0].starts_with("127.0.0.2:"));
    /// ```
    pub fn start_also_on(also: Option<Ipv4Addr>) -> Result<Self, String> {
        Self::start_with(also, false)
    }

    /// As [`start`](Self::start), with clients held to TLS: each member takes only clients
    /// that speak TLS and show a certificate signed by the cluster's own CA (etcd's
    /// `--client-cert-auth`). The CA, and a client certificate and key signed by it, are made
    /// for the cluster with the `openssl` command: see [`tls_files`](Self::tls_files).
    ///
    /// # Errors
    /// As [`start`](Self::start); also when `openssl` cannot make the certificates.
    ///
    /// ```
    /// let cluster = match test_support::db::EtcdCluster::start_tls() {
    ///     Ok(c) => c,
    ///     Err(reason) => return test_support::skip("etcd_tls_doc", reason),
    /// };
    /// let files = cluster.tls_files().unwrap();
    /// assert!(std::fs::read_to_string(&files.ca).unwrap().contains("BEGIN CERTIFICATE"));
    /// assert!(cluster.healthy(0));
    /// ```
    pub fn start_tls() -> Result<Self, String> {
        Self::start_with(None, true)
    }

    /// As [`start`](Self::start), with member 0 inside the network namespace `ns` (on its
    /// address there) and the others on the host's end of its link, every port of each on its
    /// own address: a firewall rule inside `ns` ([`Namespace::cut`](crate::netns::Namespace::cut))
    /// then cuts member 0 off from its peers, its client port left open or not.
    ///
    /// # Errors
    /// As [`start`](Self::start).
    ///
    /// ```no_run
    /// let ns = test_support::netns::Namespace::create();
    /// let cluster = test_support::db::EtcdCluster::start_split(&ns).unwrap();
    /// assert!(cluster.endpoints()[0].starts_with(&ns.inside().to_string()));
    /// ```
    pub fn start_split(ns: &crate::netns::Namespace) -> Result<Self, String> {
        Self::start_with_split(
            None,
            false,
            Some((ns.name().to_string(), ns.host(), ns.inside())),
        )
    }

    fn start_with(also: Option<Ipv4Addr>, tls: bool) -> Result<Self, String> {
        Self::start_with_split(also, tls, None)
    }

    fn start_with_split(
        also: Option<Ipv4Addr>,
        tls: bool,
        split: Option<(String, Ipv4Addr, Ipv4Addr)>,
    ) -> Result<Self, String> {
        let etcd = find_program("etcd", &[PathBuf::from("/usr/bin/etcd")])?;
        let mut last = String::new();
        for _ in 0..PORT_TRIES {
            let ports = free_ports(3 * MEMBERS)?;
            match Self::start_on(&etcd, &ports, also, tls, split.clone()) {
                Ok(cluster) => return Ok(cluster),
                Err(e) => last = e,
            }
        }
        Err(last)
    }

    /// [`start`](Self::start), or `None` after recording why `test` is
    /// skipped ([`crate::skip`]: under `CI=true` that panics).
    ///
    /// # Panics
    /// Under CI, when no cluster can be started.
    #[must_use]
    pub fn for_test(test: &str) -> Option<Self> {
        Self::start().map_err(|e| crate::skip(test, e)).ok()
    }

    fn start_on(
        etcd: &std::path::Path,
        ports: &[u16],
        also: Option<Ipv4Addr>,
        tls: bool,
        split: Option<(String, Ipv4Addr, Ipv4Addr)>,
    ) -> Result<Self, String> {
        let dir = ScratchDir::new("etcd", None)?;
        if tls {
            super::etcd_tls::make(dir.path())?;
        }
        let mut cluster = Self {
            members: Vec::new(),
            clients: ports[..MEMBERS].to_vec(),
            peers: ports[MEMBERS..2 * MEMBERS].to_vec(),
            metrics: ports[2 * MEMBERS..].to_vec(),
            also,
            tls,
            split,
            etcd: etcd.to_path_buf(),
            dir,
        };
        for i in 0..MEMBERS {
            let server = cluster.spawn(i, "new")?;
            cluster.members.push(Some(server));
        }
        for i in 0..MEMBERS {
            cluster.wait_healthy(i)?;
        }
        Ok(cluster)
    }

    /// The address member `i` listens on.
    fn addr(&self, i: usize) -> Ipv4Addr {
        match &self.split {
            Some((_, _, inside)) if i == 0 => *inside,
            Some((_, host, _)) => *host,
            None => Ipv4Addr::LOCALHOST,
        }
    }

    fn spawn(&self, i: usize, state: &str) -> Result<Server, String> {
        let at = |j: usize, port: u16| format!("http://{}:{port}", self.addr(j));
        let url = |port: u16| at(i, port);
        let initial = (0..MEMBERS)
            .map(|j| format!("m{j}={}", at(j, self.peers[j])))
            .collect::<Vec<_>>()
            .join(",");
        let scheme = if self.tls { "https" } else { "http" };
        let client = format!("{scheme}://{}:{}", self.addr(i), self.clients[i]);
        let mut listen = client.clone();
        if let Some(also) = self.also {
            listen.push_str(&format!(",{scheme}://{also}:{}", self.clients[i]));
        }
        let mut cmd = match &self.split {
            Some((ns, _, _)) if i == 0 => {
                let mut cmd = Command::new("ip");
                cmd.args(["netns", "exec", ns]).arg(&self.etcd);
                cmd
            }
            _ => Command::new(&self.etcd),
        };
        cmd.args(["--name", &format!("m{i}")])
            .arg("--data-dir")
            .arg(self.dir.path().join(format!("m{i}")))
            .args(["--listen-client-urls", &listen])
            .args(["--advertise-client-urls", &client])
            .args(["--listen-metrics-urls", &url(self.metrics[i])])
            .args(["--listen-peer-urls", &url(self.peers[i])])
            .args(["--initial-advertise-peer-urls", &url(self.peers[i])])
            .args(["--initial-cluster", &initial])
            .args(["--initial-cluster-token", &self.token()])
            .args(["--initial-cluster-state", state])
            .args(["--logger", "zap", "--log-outputs", "stderr"]);
        if self.tls {
            let file = |name: &str| self.dir.path().join(name);
            cmd.arg("--cert-file")
                .arg(file("server.crt"))
                .arg("--key-file")
                .arg(file("server.key"))
                .arg("--trusted-ca-file")
                .arg(file("ca.crt"))
                .arg("--client-cert-auth");
        }
        Server::spawn("etcd", cmd, self.log(i), libc::SIGTERM)
    }

    /// A token unique to this cluster: members of another test's cluster
    /// that happen to reach these ports refuse to join.
    fn token(&self) -> String {
        format!("uuidkit-{}", self.peers[0])
    }

    fn log(&self, i: usize) -> PathBuf {
        self.dir.path().join(format!("m{i}.log"))
    }

    fn wait_healthy(&mut self, i: usize) -> Result<(), String> {
        let (addr, port) = (self.addr(i), self.metrics[i]);
        let Some(server) = self.members[i].as_mut() else {
            return Err(format!("etcd member m{i} is stopped"));
        };
        server.wait_ready(&format!("etcd member m{i}"), || health(addr, port))
    }

    /// The members' client endpoints, `127.0.0.1:PORT` (on their own addresses for a
    /// [split](Self::start_split) cluster), in member order
    /// (see the [type's example](Self)).
    #[must_use]
    pub fn endpoints(&self) -> Vec<String> {
        (0..MEMBERS)
            .map(|i| format!("{}:{}", self.addr(i), self.clients[i]))
            .collect()
    }

    /// The members' client endpoints on the address given to
    /// [`start_also_on`](Self::start_also_on), `ADDR:PORT`, in member order.
    #[must_use]
    pub fn endpoints_on(&self, addr: Ipv4Addr) -> Vec<String> {
        self.clients.iter().map(|p| format!("{addr}:{p}")).collect()
    }

    /// The CA certificate clients check the members with, and the client certificate and key
    /// the members accept, of a cluster started with [`start_tls`](Self::start_tls) (PEM
    /// files); `None` for one without TLS.
    #[must_use]
    pub fn tls_files(&self) -> Option<super::etcd_tls::TlsFiles> {
        self.tls
            .then(|| super::etcd_tls::TlsFiles::in_dir(self.dir.path()))
    }

    /// Whether member `i` answers its health check (running, and part of a
    /// cluster with a leader).
    ///
    /// ```no_run
    /// let Some(mut cluster) = test_support::db::EtcdCluster::for_test("etcd_healthy_doc") else { return };
    /// cluster.stop(2);
    /// assert!(!cluster.healthy(2));
    /// assert!(cluster.healthy(0)); // two of three: still a majority
    /// ```
    #[must_use]
    pub fn healthy(&self, i: usize) -> bool {
        self.members[i].is_some() && health(self.addr(i), self.metrics[i]).is_ok()
    }

    /// Stops member `i` (SIGTERM, then SIGKILL if it lingers) and waits for
    /// it; its data stays, for [`restart`](Self::restart).
    pub fn stop(&mut self, i: usize) {
        self.members[i] = None;
    }

    /// Starts member `i` again on its data and ports, and waits until it is
    /// healthy.
    ///
    /// # Errors
    /// When it does not become healthy in time (with the end of its log).
    ///
    /// ```
    /// let Some(mut cluster) = test_support::db::EtcdCluster::for_test("etcd_restart_doc") else { return };
    /// cluster.stop(1);
    /// cluster.restart(1).unwrap();
    /// assert!(cluster.healthy(1));
    /// ```
    pub fn restart(&mut self, i: usize) -> Result<(), String> {
        if self.members[i].is_none() {
            self.members[i] = Some(self.spawn(i, "existing")?);
        }
        self.wait_healthy(i)
    }

    /// Sends `signal` to member `i` (SIGSTOP freezes it, SIGCONT resumes).
    pub fn signal(&self, i: usize, signal: libc::c_int) {
        if let Some(server) = &self.members[i] {
            server.signal(signal);
        }
    }
}

impl EtcdCluster {
    /// The sum, over the running members, of the Prometheus metric lines
    /// named `name` whose labels contain `label` (`""`: all of them), from
    /// each member's `/metrics`: what the cluster counted, for tests and
    /// benchmarks that measure a client's load.
    ///
    /// # Errors
    /// A member that does not answer, or a line whose value is not a number.
    ///
    /// ```no_run
    /// let Some(cluster) = test_support::db::EtcdCluster::for_test("etcd_counter_doc") else { return };
    /// let up = cluster.counter("etcd_server_has_leader", "").unwrap();
    /// assert_eq!(up, 3.0);
    /// ```
    pub fn counter(&self, name: &str, label: &str) -> Result<f64, String> {
        let mut sum = 0.0;
        for (i, port) in self.metrics.iter().enumerate() {
            if self.members[i].is_none() {
                continue;
            }
            let text = get(self.addr(i), *port, "/metrics")?;
            for line in text.lines() {
                let named = line
                    .strip_prefix(name)
                    .is_some_and(|rest| rest.starts_with([' ', '{']));
                if named && line.contains(label) {
                    let value = line.rsplit(' ').next().unwrap_or("");
                    sum += value
                        .parse::<f64>()
                        .map_err(|e| format!("etcd metric line {line:?}: {e}"))?;
                }
            }
        }
        Ok(sum)
    }
}

/// `count` distinct loopback ports that were free a moment ago.
/// etcd's `/health` on a member's metrics port: `Ok` when it says
/// `"health":"true"`.
fn health(addr: Ipv4Addr, port: u16) -> Result<(), String> {
    let answer = get(addr, port, "/health")?;
    if answer.contains("\"health\":\"true\"") {
        Ok(())
    } else {
        Err(format!(
            "etcd on port {port} is not healthy: {}",
            answer.lines().last().unwrap_or("no answer")
        ))
    }
}

/// The whole answer (head and body) to `GET path` on a member's metrics port.
fn get(addr: Ipv4Addr, port: u16, path: &str) -> Result<String, String> {
    let addr = SocketAddr::from((addr, port));
    let timeout = Duration::from_secs(2);
    let mut s = TcpStream::connect_timeout(&addr, timeout).map_err(|e| e.to_string())?;
    s.set_read_timeout(Some(timeout))
        .map_err(|e| e.to_string())?;
    s.write_all(format!("GET {path} HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n").as_bytes())
        .map_err(|e| e.to_string())?;
    let mut answer = String::new();
    let _ = s.read_to_string(&mut answer);
    Ok(answer)
}
