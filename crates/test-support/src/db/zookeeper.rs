//! A throwaway three-member ZooKeeper ensemble on loopback ports.
//!
//! Each member listens on three TCP ports of 127.0.0.1 (clients, quorum, election), ones the
//! kernel just handed out as free. The tick is 200 ms, so sessions may be negotiated from
//! 400 ms (two ticks) to 4 s (twenty): session expiries take seconds, not minutes.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::Command;
use std::time::Duration;

use super::process::{ScratchDir, Server, find_program, free_ports};

/// How many members an ensemble has: a majority survives the loss of one.
const MEMBERS: usize = 3;

/// Debian's `zookeeper` package puts the server and its libraries here.
const JARS: &str = "/usr/share/java/zookeeper.jar:/usr/share/java/*";
/// And its log configuration here: the level and the appender are set by properties.
const LOG4J: &str = "/etc/zookeeper/conf/log4j.properties";
/// Sets of ports an ensemble is started on before giving up.
const PORT_TRIES: usize = 3;

/// A three-member ZooKeeper ensemble in a temporary directory, stopped (and the directory
/// removed) on drop, also when a test panics.
///
/// Needs Debian's `zookeeper` package (and `java`).
///
/// ```
/// let Some(zk) = test_support::db::ZooKeeperEnsemble::for_test("zk_doc") else { return };
/// assert_eq!(zk.connect_string().split(',').count(), 3);
/// assert!(zk.serving(0));
/// ```
#[derive(Debug)]
pub struct ZooKeeperEnsemble {
    // Declared before `dir`: the members stop before their directory goes.
    members: Vec<Server>,
    clients: Vec<u16>,
    dir: ScratchDir,
}

impl ZooKeeperEnsemble {
    /// Starts an ensemble and waits until every member serves (a leader is elected).
    ///
    /// # Errors
    /// Why no ensemble could be started: ZooKeeper or Java is not installed, or the members
    /// did not serve in time (with the end of their logs).
    ///
    /// ```
    /// let zk = match test_support::db::ZooKeeperEnsemble::start() {
    ///     Ok(zk) => zk,
    ///     Err(reason) => return test_support::skip("zk_start_doc", reason),
    /// };
    /// assert!(zk.connect_string().starts_with("127.0.0.1:"));
    /// ```
    pub fn start() -> Result<Self, String> {
        let java = find_program("java", &["/usr/bin/java".into()])?;
        if !std::path::Path::new("/usr/share/java/zookeeper.jar").exists() {
            return Err("ZooKeeper is not installed (Debian's zookeeper package)".into());
        }
        // The ports were free when the kernel handed them out, not necessarily when a member
        // binds them (another test's server may take one in between): a member that exits
        // at once is tried again on new ports.
        let mut last = String::new();
        for _ in 0..PORT_TRIES {
            match Self::start_on(&java, &free_ports(3 * MEMBERS)?) {
                Ok(ensemble) => return Ok(ensemble),
                Err(e) => last = e,
            }
        }
        Err(last)
    }

    fn start_on(java: &std::path::Path, ports: &[u16]) -> Result<Self, String> {
        let dir = ScratchDir::new("zookeeper", None)?;
        let servers: String = (0..MEMBERS)
            .map(|j| {
                format!(
                    "server.{}=127.0.0.1:{}:{}\n",
                    j + 1,
                    ports[MEMBERS + j],
                    ports[2 * MEMBERS + j]
                )
            })
            .collect();
        let mut ensemble = Self {
            members: Vec::new(),
            clients: ports[..MEMBERS].to_vec(),
            dir,
        };
        for i in 0..MEMBERS {
            let data = ensemble.dir.path().join(format!("m{i}"));
            std::fs::create_dir_all(&data).map_err(|e| e.to_string())?;
            std::fs::write(data.join("myid"), format!("{}\n", i + 1)).map_err(|e| e.to_string())?;
            let config = format!(
                "tickTime=200\ninitLimit=20\nsyncLimit=5\ndataDir={}\nclientPort={}\n\
                 clientPortAddress=127.0.0.1\nadmin.enableServer=false\n\
                 4lw.commands.whitelist=srvr\n{servers}",
                data.display(),
                ensemble.clients[i]
            );
            let file = data.join("zoo.cfg");
            std::fs::write(&file, config).map_err(|e| e.to_string())?;
            let mut cmd = Command::new(java);
            cmd.arg(format!("-Dzookeeper.log.dir={}", data.display()))
                // Its log on standard output, which the member's log file keeps: without it
                // log4j has no appender and a member that fails says nothing of why.
                .arg(format!("-Dlog4j.configuration=file:{LOG4J}"))
                .arg("-Dzookeeper.root.logger=INFO,CONSOLE")
                .args(["-Xmx128m", "-cp", JARS])
                .arg("org.apache.zookeeper.server.quorum.QuorumPeerMain")
                .arg(&file);
            let log = ensemble.dir.path().join(format!("m{i}.log"));
            ensemble
                .members
                .push(Server::spawn("zookeeper", cmd, log, libc::SIGTERM)?);
        }
        for i in 0..MEMBERS {
            let port = ensemble.clients[i];
            ensemble.members[i].wait_ready(&format!("zookeeper member {i}"), || mode(port))?;
        }
        Ok(ensemble)
    }

    /// [`start`](Self::start), or `None` after recording why `test` is skipped
    /// ([`crate::skip`]: under `CI=true` that panics).
    ///
    /// # Panics
    /// Under CI, when no ensemble can be started.
    #[must_use]
    pub fn for_test(test: &str) -> Option<Self> {
        Self::start().map_err(|e| crate::skip(test, e)).ok()
    }

    /// The client connect string, `127.0.0.1:P1,127.0.0.1:P2,127.0.0.1:P3`
    /// (see the [type's example](Self)).
    #[must_use]
    pub fn connect_string(&self) -> String {
        self.clients
            .iter()
            .map(|p| format!("127.0.0.1:{p}"))
            .collect::<Vec<_>>()
            .join(",")
    }

    /// Whether member `i` serves clients (a leader or a follower)
    /// (see the [type's example](Self)).
    #[must_use]
    pub fn serving(&self, i: usize) -> bool {
        mode(self.clients[i]).is_ok()
    }
}

/// Whether the member serves (its `srvr` command says `leader` or `follower`).
fn mode(port: u16) -> Result<(), String> {
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    let mut s =
        TcpStream::connect_timeout(&addr, Duration::from_secs(1)).map_err(|e| e.to_string())?;
    s.set_read_timeout(Some(Duration::from_secs(1)))
        .map_err(|e| e.to_string())?;
    s.write_all(b"srvr").map_err(|e| e.to_string())?;
    let mut answer = String::new();
    let _ = s.read_to_string(&mut answer);
    if answer.contains("Mode: leader") || answer.contains("Mode: follower") {
        Ok(())
    } else {
        Err(format!("not serving yet: {answer:?}"))
    }
}
