//! uiapd's control API, client exit codes and persistence, without namespaces or root: the
//! daemon runs with `--iface` naming no interface, so claims succeed as a site of one
//! (docs/uiap-design.md D23). Ports are test-specific so that tests in this namespace do not
//! collide.

use crate::netns_support;

use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use uiap_control::{ClaimAnswer, ClaimState, ClaimView, Client, EventKind, Response, SpaceText};

struct Uiapd {
    dir: PathBuf,
    control: PathBuf,
    ports: (u16, u16),
    extra: Vec<String>,
    /// A soft and hard `RLIMIT_NOFILE` for the daemon.
    nofile: Option<u64>,
    child: Option<Child>,
    /// This file's turn among the daemon tests, released after the teardown.
    _turn: netns_support::Turn,
}

impl Uiapd {
    fn new(tag: &str, ports: (u16, u16)) -> Uiapd {
        Uiapd::with_args(tag, ports, &[])
    }

    /// A daemon with extra flags (protocol settings, limits).
    fn with_args(tag: &str, ports: (u16, u16), extra: &[&str]) -> Uiapd {
        // The client is built before any test times it.
        netns_support::uiap_bin();
        let dir = std::env::temp_dir().join(format!("uiapd-control-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let control = dir.join("run").join("control.sock");
        let mut d = Uiapd {
            dir,
            control,
            ports,
            extra: extra.iter().map(|s| s.to_string()).collect(),
            nofile: None,
            child: None,
            _turn: netns_support::Turn::of_caller(),
        };
        d.start();
        d
    }

    /// A daemon started under `RLIMIT_NOFILE` = `nofile`.
    fn limited(tag: &str, ports: (u16, u16), extra: &[&str], nofile: u64) -> Uiapd {
        let mut d = Uiapd::with_args(tag, ports, extra);
        d.stop();
        d.nofile = Some(nofile);
        d.start();
        d
    }

    fn start(&mut self) {
        let mut command = Command::new(env!("CARGO_BIN_EXE_uiapd"));
        if let Some(n) = self.nofile {
            use std::os::unix::process::CommandExt;
            // SAFETY: setrlimit is async-signal-safe; the closure allocates nothing.
            unsafe {
                command.pre_exec(move || {
                    let limit = libc::rlimit {
                        rlim_cur: n,
                        rlim_max: n,
                    };
                    if libc::setrlimit(libc::RLIMIT_NOFILE, &limit) == 0 {
                        Ok(())
                    } else {
                        Err(std::io::Error::last_os_error())
                    }
                });
            }
        }
        let child = command
            .args(["--iface", "uiap-none0", "--log-level", "debug"])
            .arg("--control")
            .arg(&self.control)
            .arg("--state")
            .arg(self.dir.join("state"))
            .args([
                "--claim-port",
                &self.ports.0.to_string(),
                "--reply-port",
                &self.ports.1.to_string(),
            ])
            .args(&self.extra)
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(self.dir.join("log")).unwrap())
            .spawn()
            .unwrap();
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(10);
        while UnixStream::connect(&self.control).is_err() {
            assert!(
                Instant::now() < deadline,
                "no control socket; log: {}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// SIGTERM and wait; returns the exit code.
    fn stop(&mut self) -> Option<i32> {
        let mut child = self.child.take()?;
        // SAFETY: kill with a PID we spawned.
        unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            if let Ok(Some(s)) = child.try_wait() {
                return s.code();
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("log")).unwrap_or_default()
    }

    fn uiap(&self, args: &[&str]) -> (i32, String, String) {
        let mut command = Command::new(netns_support::uiap_bin());
        command.args(args).arg("--control").arg(&self.control);
        let out = netns_support::output_within(command, Duration::from_secs(30));
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    fn raw(&self, lines: &[&str]) -> Vec<serde_json::Value> {
        raw_call(&self.control, lines)
    }

    /// The answers to `lines`, read as the control protocol's responses.
    fn answers(&self, lines: &[&str]) -> Vec<Response> {
        self.raw(lines)
            .into_iter()
            .map(|v| serde_json::from_value(v).unwrap())
            .collect()
    }

    fn claims(&self) -> Vec<ClaimView> {
        Client::new(&self.control).list().unwrap()
    }
}

impl Drop for Uiapd {
    fn drop(&mut self) {
        self.stop();
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

fn raw_call(path: &Path, lines: &[&str]) -> Vec<serde_json::Value> {
    let mut s = UnixStream::connect(path).unwrap();
    for l in lines {
        s.write_all(l.as_bytes()).unwrap();
        s.write_all(b"\n").unwrap();
    }
    let mut r = BufReader::new(s);
    lines
        .iter()
        .map(|_| {
            let mut line = String::new();
            r.read_line(&mut line).unwrap();
            serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"))
        })
        .collect()
}

#[test]
fn claim_list_release_and_exit_codes() {
    let d = Uiapd::new("api", (47101, 47102));
    let mode = std::fs::metadata(&d.control).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o660, "control socket mode");

    let (code, out, err) = d.uiap(&[
        "claim",
        "--domain",
        "fff:0:1:0",
        "--uid",
        "c0a8/16",
        "--lifetime",
        "600",
    ]);
    assert_eq!(code, 0, "{out}{err}\n{}", d.log());
    // The response says the claim was made as a site of one, not only the log (D23).
    assert_eq!(
        out,
        "claimed id=1 domain=fff:0:1:0 uid c0a8 (a site of one: no participating interface)\n"
    );
    let answer = d.raw(&[r#"{"op":"claim","domain":"fff:0:1:0","space":{"uid":"d0"}}"#]);
    assert_eq!(
        answer[0]["reason"], "a site of one: no participating interface",
        "{}",
        answer[0]
    );
    assert_eq!(d.uiap(&["release", "2"]).0, 0);
    assert!(d.log().contains("site of one"), "{}", d.log());

    // Overlapping claim on the same device: denied at once (exit 3).
    let (code, out, _) = d.uiap(&["claim", "--domain", "fff:0:1:0", "--prefix", "c0/4"]);
    assert_eq!(code, 3);
    assert!(
        out.starts_with("denied domain=fff:0:1:0 prefix c0/4")
            && out.contains("local conflict with claim 1"),
        "a claim that never started has no id to print: {out}"
    );
    // A malformed UID: exit 1 with the position.
    let (code, _, err) = d.uiap(&["claim", "--domain", "fff:0:1:0", "--uid", "c0g8"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("uid: expected a hex digit, found `g` at 2 in `c0g8`"),
        "{err}"
    );
    let (code, _, err) = d.uiap(&["claim", "--domain", "fff:0:0", "--uid", "01"]);
    assert_eq!(code, 1);
    assert!(err.contains("domain: "), "{err}");

    let (code, out, _) = d.uiap(&["list", "--json"]);
    assert_eq!(code, 0);
    let mut list: serde_json::Value = serde_json::from_str(&out).unwrap();
    // The lifetime counts down from 600 s (docs/uiap-design.md D32).
    let left = list[0]["expires_in"].take().as_u64().unwrap();
    assert!((590..=600).contains(&left), "expires_in {left}");
    assert_eq!(
        list,
        serde_json::json!([{"id":1,"domain":"fff:0:1:0","space":{"uid":"c0a8"},"lifetime":600,"proxy":false,"renew":false,"state":"held","expires_in":null}])
    );
    let (code, out, _) = d.uiap(&["list"]);
    assert_eq!(code, 0);
    assert!(out.lines().nth(1).unwrap().contains("held"), "{out}");

    // Raw protocol: several requests on one connection, errors stay on the line.
    let answers = d.raw(&[
        r#"{"op":"status"}"#,
        "not json",
        r#"{"op":"release","id":42}"#,
        r#"{"op":"frobnicate"}"#,
    ]);
    assert_eq!(answers[0]["ok"], true);
    assert_eq!(answers[0]["status"]["claims"], 1);
    assert_eq!(answers[0]["status"]["interfaces"], serde_json::json!([]));
    assert_eq!(
        answers[0]["status"]["device_id"].as_str().unwrap().len(),
        16
    );
    assert_eq!(answers[1]["ok"], false);
    assert_eq!(answers[1]["error"]["kind"], "request");
    assert_eq!(
        answers[2]["error"]["message"],
        "release: expected a claim id, found no claim 42"
    );
    assert!(
        answers[3]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("frobnicate"),
        "{}",
        answers[3]
    );

    let (code, out, _) = d.uiap(&["release", "1"]);
    assert_eq!((code, out.as_str()), (0, "released id=1\n"));
    let (code, _, err) = d.uiap(&["release", "1"]);
    assert_eq!(code, 1);
    assert!(err.contains("no claim 1"), "{err}");
    assert_eq!(d.uiap(&["list", "--json"]).1, "[]\n");
}

#[test]
fn claims_and_device_id_survive_a_restart() {
    let mut d = Uiapd::new("persist", (47201, 47202));
    assert_eq!(
        d.uiap(&["claim", "--domain", "fff:0:1:0", "--range", "10-1f"])
            .0,
        0
    );
    assert_eq!(
        d.uiap(&["claim", "--domain", "fff:0:1:0", "--uid", "20", "--proxy"])
            .0,
        0
    );
    let status = |d: &Uiapd| d.raw(&[r#"{"op":"status"}"#]).remove(0);
    let id = status(&d)["status"]["device_id"].clone();
    let stored = std::fs::read_to_string(d.dir.join("state/device-id")).unwrap();
    assert_eq!(stored.trim(), id.as_str().unwrap());

    assert_eq!(d.stop(), Some(0), "SIGTERM exits 0; log: {}", d.log());
    assert!(!d.control.exists(), "control socket removed on shutdown");
    let claims: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.dir.join("state/claims.json")).unwrap())
            .unwrap();
    assert_eq!(claims["claims"].as_array().unwrap().len(), 2);
    assert_eq!(claims["next_id"], 3);

    d.start();
    assert_eq!(status(&d)["status"]["device_id"], id);
    // Reclaimed with R: "claiming" until the (shorter) reclaim window ends, then held.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let list = d.claims();
        if list.iter().map(|c| c.state).eq([ClaimState::Held; 2]) {
            assert_eq!(list[0].space, SpaceText::Range("10-1f".into()));
            assert!(list[1].proxy);
            break;
        }
        assert!(Instant::now() < deadline, "not reclaimed: {list:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(d.log().contains("reclaiming"), "{}", d.log());
    // New IDs continue after the persisted ones; the reclaimed range is still ours.
    let (code, out, _) = d.uiap(&["claim", "--domain", "fff:0:1:0", "--uid", "30"]);
    assert_eq!(
        (code, out.as_str()),
        (
            0,
            "claimed id=3 domain=fff:0:1:0 uid 30 (a site of one: no participating interface)\n"
        )
    );
    assert_eq!(
        d.uiap(&["claim", "--domain", "fff:0:1:0", "--uid", "15"]).0,
        3
    );
}

#[test]
fn unreachable_daemon_and_bad_config_are_errors() {
    let (code, _, err) = {
        let out = Command::new(netns_support::uiap_bin())
            .args(["status", "--control", "/nonexistent/uiapd.sock"])
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    assert_eq!(code, Some(1));
    assert!(
        err.contains("cannot connect to uiapd (/nonexistent/uiapd.sock)"),
        "{err}"
    );
    let out = Command::new(env!("CARGO_BIN_EXE_uiapd"))
        .args(["--claim-port", "5", "--reply-port", "5"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("expected claim and reply ports to differ, found 5 for both")
    );
    let dir = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_uiapd"))
            .args(args)
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    // A log level that is no filter is refused, not replaced by `info`.
    let (code, err) = run(&[
        "--log-level",
        "bogus=[[[",
        "--claim-port",
        "5",
        "--reply-port",
        "6",
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("log-level: expected a level or tracing filter"),
        "{err}"
    );
    // A key file the configuration file names: the error names the key file.
    let config = dir.path().join("uiapd.toml");
    std::fs::write(&config, "psk-file = \"/nonexistent/uiapd.key\"\n").unwrap();
    let (code, err) = run(&["--config", config.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("cannot read psk file (/nonexistent/uiapd.key)"),
        "{err}"
    );
    // `--help` is the command's description, not its API example.
    let help = Command::new(env!("CARGO_BIN_EXE_uiapd"))
        .arg("--help")
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(
        help.starts_with("UIAP daemon: claims and defends"),
        "{help}"
    );
    assert!(!help.contains("use clap::Parser"), "{help}");
}

/// Runs `uiap ARGS --control …` with stdout a pipe whose reading end is already closed, as in
/// `uiap list | head` once `head` has exited; returns (exit code, stderr).
fn uiap_into_closed_pipe(d: &Uiapd, args: &[&str]) -> (Option<i32>, String) {
    use std::os::fd::FromRawFd;
    let mut fds = [0i32; 2];
    // SAFETY: `fds` has room for the two descriptors pipe(2) writes.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
    // SAFETY: both descriptors were just created and are owned here, once each.
    let (read, write) = unsafe {
        (
            std::fs::File::from_raw_fd(fds[0]),
            std::fs::File::from_raw_fd(fds[1]),
        )
    };
    drop(read);
    let out = Command::new(netns_support::uiap_bin())
        .args(args)
        .arg("--control")
        .arg(&d.control)
        .stdout(write)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn list_and_status_into_a_closed_pipe_exit_quietly() {
    let d = Uiapd::new("pipe", (47301, 47302));
    assert_eq!(
        d.uiap(&["claim", "--domain", "fff:0:1:0", "--uid", "01"]).0,
        0
    );
    for args in [
        &["list"][..],
        &["list", "--json"],
        &["status"],
        &["status", "--json"],
    ] {
        let (code, err) = uiap_into_closed_pipe(&d, args);
        assert_eq!(code, Some(0), "uiap {args:?}: {err}");
        assert!(!err.contains("panicked"), "uiap {args:?}: {err}");
    }
}

#[test]
fn a_non_utf8_line_is_answered_and_the_connection_stays_open() {
    let d = Uiapd::new("utf8", (47401, 47402));
    let mut s = UnixStream::connect(&d.control).unwrap();
    s.write_all(b"{\"op\":\"st\xffatus\"}\n{\"op\":\"status\"}\n")
        .unwrap();
    let mut r = BufReader::new(s);
    let mut answers = Vec::new();
    for _ in 0..2 {
        let mut line = String::new();
        r.read_line(&mut line).unwrap();
        answers.push(
            serde_json::from_str::<serde_json::Value>(&line)
                .unwrap_or_else(|e| panic!("{e}: {line:?}")),
        );
    }
    assert_eq!(answers[0]["ok"], false);
    assert_eq!(answers[0]["error"]["kind"], "request");
    assert_eq!(
        answers[0]["error"]["message"],
        "expected UTF-8 text, found byte 0xff at 9"
    );
    assert_eq!(answers[1]["ok"], true, "{}", answers[1]);
}

#[test]
fn an_endless_request_line_is_refused_without_buffering_it() {
    let d = Uiapd::new("longline", (47501, 47502));
    let s = UnixStream::connect(&d.control).unwrap();
    let mut w = s.try_clone().unwrap();
    // 64 MiB without a newline: the daemon answers once the line passes its limit and closes;
    // the writer then fails (the daemon stopped reading), which is the point.
    let writer = std::thread::spawn(move || {
        let chunk = vec![b'x'; 1 << 20];
        for _ in 0..64 {
            if w.write_all(&chunk).is_err() {
                return false;
            }
        }
        true
    });
    let mut line = String::new();
    BufReader::new(&s).read_line(&mut line).unwrap();
    let answer: serde_json::Value = serde_json::from_str(&line).unwrap();
    assert_eq!(answer["ok"], false);
    assert_eq!(
        answer["error"]["message"],
        "expected a request line of at most 16384 bytes, found more"
    );
    assert!(!writer.join().unwrap(), "the daemon kept reading 64 MiB");
    // The daemon still serves others.
    assert_eq!(d.raw(&[r#"{"op":"status"}"#])[0]["ok"], true);
}

/// Runs a second `uiapd` to completion (it must exit by itself) and returns (code, stderr).
fn second_uiapd(control: &Path, state: &Path, ports: (u16, u16)) -> (Option<i32>, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_uiapd"));
    command
        .args(["--iface", "uiap-none0", "--control"])
        .arg(control)
        .arg("--state")
        .arg(state)
        .args([
            "--claim-port",
            &ports.0.to_string(),
            "--reply-port",
            &ports.1.to_string(),
        ]);
    let out = netns_support::output_within(command, Duration::from_secs(10));
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// docs/uiap-design.md D27: one daemon per host; a second one exits and leaves the first alone.
#[test]
fn a_second_daemon_exits_already_running_and_leaves_the_first_alone() {
    let d = Uiapd::new("twice", (47601, 47602));
    let other = d.dir.join("other");
    // Same ports: the reply port is not shared.
    let (code, err) = second_uiapd(&other.join("c.sock"), &other.join("s"), d.ports);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("already running"), "{err}");
    // Same control socket and state directory, other ports: the lock and the live socket.
    let (code, err) = second_uiapd(&d.control, &d.dir.join("state"), (47603, 47604));
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("already running"), "{err}");
    // Same control socket only: it answers, so it is not removed.
    let (code, err) = second_uiapd(&d.control, &other.join("s2"), (47605, 47606));
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("already running"), "{err}");
    assert_eq!(d.raw(&[r#"{"op":"status"}"#])[0]["ok"], true, "{}", d.log());
}

/// docs/uiap-design.md D28: a claim belongs to the UID that made it; only that UID or root
/// releases it. The client runs as `nobody` in group 0, so the 0660 socket lets it in.
#[test]
fn only_the_owner_or_root_releases_a_claim() {
    if !test_support::require(
        "only_the_owner_or_root_releases_a_claim",
        test_support::root(),
    ) {
        return;
    }
    let d = Uiapd::new("owner", (47701, 47702));
    let as_nobody = |args: &[&str]| uiap_as(&d.control, 65534, args);
    assert_eq!(
        d.uiap(&["claim", "--domain", "fff:0:1:0", "--uid", "01"]).0,
        0
    );
    let (code, out) = as_nobody(&["claim", "--domain", "fff:0:1:0", "--uid", "02"]);
    assert_eq!(code, 0, "{out}");
    assert_eq!(
        as_nobody(&["claim", "--domain", "fff:0:1:0", "--uid", "03"]).0,
        0
    );
    // nobody cannot release root's claim 1.
    let (code, out) = as_nobody(&["release", "1"]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("claim 1 belongs to uid 0; only that user or root may release it"),
        "{out}"
    );
    // nobody releases its own claim 2; root releases nobody's claim 3.
    assert_eq!(as_nobody(&["release", "2"]).0, 0);
    assert_eq!(d.uiap(&["release", "3"]).0, 0);
    let ids: Vec<u64> = d.raw(&[r#"{"op":"list"}"#])[0]["claims"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_u64().unwrap())
        .collect();
    assert_eq!(ids, [1]);
    // Anyone on the socket may see the proxy table; only root may flush it (design D43).
    let (code, out) = as_nobody(&["proxies"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("ORIGIN"), "{out}");
    let (code, out) = as_nobody(&["proxies", "--flush"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("only root may flush the proxy table"), "{out}");
    let (code, out, err) = d.uiap(&["proxies", "--flush", "--json"]);
    assert_eq!((code, out.trim()), (0, "[]"), "{err}");
    assert!(err.contains("flushed 0"), "{err}");
}

/// docs/uiap-design.md D29: a lifetime of 0 is refused, never "held" and then gone.
#[test]
fn a_zero_lifetime_is_refused() {
    let d = Uiapd::new("zero", (47801, 47802));
    let answer =
        d.raw(&[r#"{"op":"claim","domain":"fff:0:1:0","space":{"uid":"01"},"lifetime":0}"#]);
    assert_eq!(answer[0]["ok"], false, "{}", answer[0]);
    assert_eq!(
        answer[0]["error"]["message"],
        "lifetime: expected at least 1 second, found 0"
    );
    let (code, _, err) = d.uiap(&[
        "claim",
        "--domain",
        "fff:0:1:0",
        "--uid",
        "01",
        "--lifetime",
        "0",
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("lifetime: expected at least 1 second, found 0"),
        "{err}"
    );
    assert_eq!(d.uiap(&["list", "--json"]).1, "[]\n");
}

/// docs/uiap-design.md D30: a claim whose requesting connection closes while it is still being
/// claimed is cancelled, and never persisted.
#[test]
fn a_claim_whose_client_went_away_is_cancelled() {
    let d = Uiapd::new("gone", (47901, 47902));
    {
        let mut s = UnixStream::connect(&d.control).unwrap();
        s.write_all(b"{\"op\":\"claim\",\"domain\":\"fff:0:1:0\",\"space\":{\"uid\":\"01\"}}\n")
            .unwrap();
        std::thread::sleep(Duration::from_millis(300));
        let list = d.claims();
        assert_eq!(list[0].state, ClaimState::Claiming, "{list:?}");
    } // The client closes its connection here, about 2 s before the claim would succeed.
    let deadline = Instant::now() + Duration::from_secs(3);
    loop {
        let list = d.raw(&[r#"{"op":"list"}"#]).remove(0);
        if list["claims"] == serde_json::json!([]) {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "not cancelled: {list}\n{}",
            d.log()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    // Past the claim window: still nothing held, nothing persisted.
    std::thread::sleep(Duration::from_secs(3));
    assert_eq!(d.uiap(&["list", "--json"]).1, "[]\n");
    let stored = std::fs::read_to_string(d.dir.join("state/claims.json")).unwrap_or_default();
    assert!(!stored.contains("\"01\""), "{stored}");
    assert!(d.log().contains("cancelled"), "{}", d.log());
}

/// `uiap claim --timeout S` gives up after S seconds with exit 1, and the claim it left is
/// cancelled (docs/uiap-design.md D30).
#[test]
fn a_claim_client_times_out_and_its_claim_is_cancelled() {
    let d = Uiapd::new("timeout", (48001, 48002));
    let started = Instant::now();
    let (code, out, err) = d.uiap(&[
        "claim",
        "--domain",
        "fff:0:1:0",
        "--uid",
        "01",
        "--timeout",
        "1",
    ]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(err.contains("no answer within 1 s"), "{err}");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    std::thread::sleep(Duration::from_secs(3));
    assert_eq!(d.uiap(&["list", "--json"]).1, "[]\n", "{}", d.log());
}

/// Reads one answer from a watching connection.
fn next_answer(r: &mut BufReader<UnixStream>) -> Response {
    let mut line = String::new();
    r.read_line(&mut line).unwrap();
    serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line:?}"))
}

fn claim_line(uid: &str, lifetime: u32, renew: bool) -> String {
    format!(
        r#"{{"op":"claim","domain":"fff:0:1:0","space":{{"uid":"{uid}"}},"lifetime":{lifetime},"renew":{renew}}}"#
    )
}

/// docs/uiap-design.md D32/D33: a claim without `renew` is defended for its lifetime and then
/// expires (`list` and a watcher say so); with `renew` it is renewed and outlives its lifetime.
#[test]
fn a_claim_without_renew_expires_and_a_renewed_one_stays() {
    let d = Uiapd::with_args("renew", (48101, 48102), &netns_support::FAST_TIMERS);
    let mut watch = UnixStream::connect(&d.control).unwrap();
    watch.write_all(b"{\"op\":\"watch\"}\n").unwrap();
    let mut events = BufReader::new(watch);
    assert!(matches!(next_answer(&mut events), Response::Watching(_)));

    let once = claim_line("0a", 2, false);
    let kept = claim_line("0b", 3, true);
    let answers = d.answers(&[&once, &kept]);
    let claimed = |r: &Response| match r {
        Response::Claim(ClaimAnswer::Claimed { claim, .. }) => Some(claim.clone()),
        _ => None,
    };
    assert!(claimed(&answers[0]).is_some(), "{:?}", answers[0]);
    assert!(
        claimed(&answers[1]).is_some_and(|c| c.renew),
        "{:?}",
        answers[1]
    );
    let started = Instant::now();
    let too_short = d.answers(&[&claim_line("0c", 2, true)]).remove(0);
    assert_eq!(
        too_short,
        Response::error(
            uiap_control::ErrorKind::Request,
            "lifetime: expected at least 3 s for a renewed claim, found 2"
        )
    );

    // Within 4.5 s: claim 1 expired (2 s), claim 2 renewed at least once (at 1.5 s).
    let mut seen = Vec::new();
    while started.elapsed() < Duration::from_millis(4500) {
        if let Response::Event(e) = next_answer(&mut events) {
            seen.push((e.id, e.kind));
        }
        if seen.contains(&(1, EventKind::Expired)) && seen.contains(&(2, EventKind::Renewed)) {
            break;
        }
    }
    assert!(seen.contains(&(1, EventKind::Expired)), "{seen:?}");
    assert!(seen.contains(&(2, EventKind::Renewed)), "{seen:?}");
    assert!(
        !seen.contains(&(2, EventKind::Expired)),
        "the renewed claim expired: {seen:?}"
    );

    // Past claim 2's first lifetime (3 s): it is still held, claim 1 is listed as expired.
    while started.elapsed() < Duration::from_millis(3500) {
        std::thread::sleep(Duration::from_millis(50));
    }
    let list = d.claims();
    assert_eq!(
        (list[0].state, list[0].expires_in),
        (ClaimState::Expired, None),
        "{list:?}"
    );
    assert_eq!(list[1].state, ClaimState::Held, "{list:?}");
    assert!(list[1].expires_in.unwrap() <= 3, "{list:?}");
    let (_, table, _) = d.uiap(&["list"]);
    assert!(table.lines().any(|l| l.contains("expired")), "{table}");
    // An ended claim is forgotten when released, and never persisted.
    let stored = std::fs::read_to_string(d.dir.join("state/claims.json")).unwrap();
    assert!(!stored.contains("\"0a\""), "{stored}");
    assert_eq!(d.uiap(&["release", "1"]).0, 0);
    let list = d.raw(&[r#"{"op":"list"}"#]).remove(0);
    assert_eq!(list["claims"].as_array().unwrap().len(), 1, "{list}");
}

/// docs/uiap-design.md D32: a restart reclaims only the persisted claims whose lifetime has not
/// ended, a claim without `renew` for what is left of its lifetime.
#[test]
fn a_restart_reclaims_only_claims_whose_lifetime_has_not_ended() {
    let mut d = Uiapd::with_args("ended", (48201, 48202), &netns_support::FAST_TIMERS);
    let answers = d.answers(&[
        &claim_line("0a", 2, false),
        &claim_line("0b", 600, false),
        &claim_line("0c", 600, true),
    ]);
    assert!(
        answers
            .iter()
            .all(|a| matches!(a, Response::Claim(ClaimAnswer::Claimed { .. }))),
        "{answers:?}"
    );
    assert_eq!(d.stop(), Some(0));
    let stored: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.dir.join("state/claims.json")).unwrap())
            .unwrap();
    assert_eq!(stored["claims"].as_array().unwrap().len(), 3, "{stored}");
    assert!(
        stored["claims"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["expires_at"].is_u64()),
        "{stored}"
    );
    std::thread::sleep(Duration::from_millis(2500));
    d.start();
    let deadline = Instant::now() + Duration::from_secs(5);
    let list = loop {
        let claims = d.claims();
        if !claims.is_empty() && claims.iter().all(|c| c.state == ClaimState::Held) {
            break claims;
        }
        assert!(Instant::now() < deadline, "{claims:?}");
        std::thread::sleep(Duration::from_millis(50));
    };
    let ids: Vec<u64> = list.iter().map(|c| c.id).collect();
    assert_eq!(
        ids,
        [2, 3],
        "claim 1's lifetime ended while stopped: {list:?}"
    );
    assert!(list[0].expires_in.unwrap() < 598, "{list:?}");
    assert!(list[1].renew);
    assert!(
        d.log()
            .contains("its lifetime ended while the daemon was stopped"),
        "{}",
        d.log()
    );
}

/// CPU time (user + system) of a process so far, from `/proc/PID/stat`.
fn cpu_time(pid: u32) -> Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let after = &stat[stat.rfind(')').unwrap() + 2..];
    let fields: Vec<&str> = after.split(' ').collect();
    let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as u64;
    Duration::from_millis(ticks * 1000 / hz)
}

/// docs/uiap-design.md D36: under a descriptor limit of 128, 300 clients get 64 connections
/// (the rest are refused with an answer, not left hanging), the daemon does not spin, a claim
/// on a connection it accepted is answered and persisted, and idle connections are dropped.
#[test]
fn control_connections_are_capped_and_idle_ones_dropped() {
    let d = Uiapd::limited("fds", (48301, 48302), &["--control-idle-s", "8"], 128);
    let pid = d.child.as_ref().unwrap().id();
    let mut first = UnixStream::connect(&d.control).unwrap();
    let connected = Instant::now();
    let mut clients = Vec::new();
    for _ in 0..300 {
        clients.push(UnixStream::connect(&d.control).unwrap());
    }
    let before = cpu_time(pid);
    first
        .write_all(format!("{}\n", claim_line("0e", 600, false)).as_bytes())
        .unwrap();
    let mut r = BufReader::new(first.try_clone().unwrap());
    let answer = next_answer(&mut r);
    assert!(
        matches!(answer, Response::Claim(ClaimAnswer::Claimed { .. })),
        "{answer:?}"
    );
    std::thread::sleep(Duration::from_millis(500));
    let used = cpu_time(pid) - before;
    // A spinning accept loop burns the whole 3 s of the claim; a quiet one almost nothing.
    assert!(
        used < Duration::from_millis(1500),
        "{used:?} of CPU in ~3 s"
    );
    let stored = std::fs::read_to_string(d.dir.join("state/claims.json")).unwrap();
    assert!(stored.contains("\"0e\""), "{stored}");

    let mut refused = 0;
    let mut served = 0;
    for c in &clients {
        c.set_read_timeout(Some(Duration::from_millis(50))).unwrap();
        let mut line = String::new();
        match BufReader::new(c).read_line(&mut line) {
            Ok(n) if n > 0 && line.contains("too many control connections") => refused += 1,
            _ => served += 1,
        }
    }
    assert_eq!(served, 64 - 1, "served {served}, refused {refused}");
    assert_eq!(refused, 300 - served);

    // Idle connections are closed after 8 s with a line saying why; then new clients get in.
    assert!(
        connected.elapsed() < Duration::from_secs(8),
        "too slow to tell"
    );
    std::thread::sleep(Duration::from_secs(9).saturating_sub(connected.elapsed()));
    let mut line = String::new();
    let c = &clients[0];
    c.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
    BufReader::new(c).read_line(&mut line).unwrap();
    assert!(line.contains("no request for 8 s"), "{line:?}");
    drop(clients);
    let (code, _, err) = d.uiap(&["status"]);
    assert_eq!(code, 0, "{err}");
}

/// `uiap watch` prints each event of the claims as it happens, as a sentence or JSON, and
/// refuses an unknown claim (docs/uiap-design.md D33).
#[test]
fn uiap_watch_prints_events_as_they_happen() {
    let d = Uiapd::with_args("watch", (48401, 48402), &netns_support::FAST_TIMERS);
    let mut watch = Command::new(netns_support::uiap_bin());
    watch
        .args(["watch", "--count", "1"])
        .arg("--control")
        .arg(&d.control);
    let mut json = Command::new(netns_support::uiap_bin());
    json.args(["watch", "1", "--count", "1", "--json"])
        .arg("--control")
        .arg(&d.control);
    let all =
        std::thread::spawn(move || netns_support::output_within(watch, Duration::from_secs(20)));
    std::thread::sleep(Duration::from_millis(300));
    let answers = d.answers(&[&claim_line("0a", 2, false)]);
    assert!(
        matches!(answers[0], Response::Claim(ClaimAnswer::Claimed { .. })),
        "{answers:?}"
    );
    let one =
        std::thread::spawn(move || netns_support::output_within(json, Duration::from_secs(20)));
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(d.uiap(&["release", "1"]).0, 0);
    let out = all.join().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert_eq!(text, "claim 1 (uid 0a in fff:0:1:0) released\n");
    let out = one.join().unwrap();
    let event: uiap_control::ClaimEvent = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((event.id, event.kind), (1, EventKind::Released));
    let (code, _, err) = d.uiap(&["watch", "9"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("watch: expected a claim id, found no claim 9"),
        "{err}"
    );
}

/// `uiap ARGS --control CONTROL`, to run as `uid` in group 0 (the 0660 socket lets it in).
fn uiap_command_as(control: &Path, uid: u32, args: &[&str]) -> Command {
    use std::os::unix::process::CommandExt;
    let mut command = Command::new(netns_support::uiap_bin());
    command
        .args(args)
        .arg("--control")
        .arg(control)
        .uid(uid)
        .gid(0);
    command
}

/// `uiap` run as `uid`: exit code and stdout+stderr.
fn uiap_as(control: &Path, uid: u32, args: &[&str]) -> (i32, String) {
    let out =
        netns_support::output_within(uiap_command_as(control, uid, args), Duration::from_secs(30));
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr),
    )
}

/// `uiap watch` processes, each as its user, holding control connections open.
struct Watchers<'a> {
    control: &'a Path,
    running: Vec<(u32, Child)>,
}

impl<'a> Watchers<'a> {
    fn new(control: &'a Path) -> Self {
        Watchers {
            control,
            running: Vec::new(),
        }
    }

    fn add(&mut self, uid: u32) {
        self.running.push((uid, watch_as(self.control, uid)));
    }

    /// Starts again every watcher that ended: one that connected while a claim attempt held
    /// its user's last slot was refused, and exits.
    fn keep(&mut self) {
        for (uid, child) in &mut self.running {
            if child.try_wait().ok().flatten().is_some() {
                *child = watch_as(self.control, *uid);
            }
        }
    }
}

impl Drop for Watchers<'_> {
    fn drop(&mut self) {
        for (_, w) in &mut self.running {
            let _ = w.kill();
            let _ = w.wait();
        }
    }
}

/// `uiap watch` as `uid`, in the background.
fn watch_as(control: &Path, uid: u32) -> Child {
    uiap_command_as(control, uid, &["watch"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// `uiap claim` as `uid`, retried until it is refused for `why` while `watchers` hold their
/// connections (they connect once scheduled, and one refused is started again); the last output.
fn refused_as(watchers: &mut Watchers, uid: u32, why: &str) -> String {
    // Generous: watchers started as other users connect only once scheduled, which on a loaded
    // two-core machine has taken more than 10 s.
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        watchers.keep();
        std::thread::sleep(Duration::from_millis(200));
        let (code, out) = uiap_as(
            watchers.control,
            uid,
            &["claim", "--domain", "fff:0:1:0", "--uid", "7f"],
        );
        if code == 1 && out.contains(why) {
            return out;
        }
        assert!(
            Instant::now() < deadline,
            "never refused for `{why}`: exit {code}: {out}"
        );
    }
}

/// docs/uiap-design.md D65: a user other than root gets a cap of connections and claims, a
/// longest lifetime and a narrowest prefix, each refused with the reason; the shared
/// connection cap keeps a reserve for root.
#[test]
fn users_other_than_root_are_capped_and_cannot_lock_root_out() {
    if !test_support::require(
        "users_other_than_root_are_capped_and_cannot_lock_root_out",
        test_support::root(),
    ) {
        return;
    }
    let d = Uiapd::with_args(
        "users",
        (48501, 48502),
        &[
            "--max-connections",
            "4",
            "--user-max-connections",
            "2",
            "--user-max-claims",
            "2",
            "--user-max-lifetime-s",
            "3600",
        ],
    );
    let user = 1000;
    let claim = |args: &[&str]| {
        let mut all = vec!["claim", "--domain", "fff:0:1:0"];
        all.extend_from_slice(args);
        uiap_as(&d.control, user, &all)
    };
    let (code, out) = claim(&["--prefix", "c0/4"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("share at least 8 leading bits"), "{out}");
    let (code, out) = claim(&["--uid", "01", "--lifetime", "4294967295"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("expected at most 3600 s"), "{out}");
    assert!(out.contains("found infinite"), "{out}");
    assert_eq!(claim(&["--uid", "01", "--lifetime", "3600"]).0, 0);
    assert_eq!(claim(&["--prefix", "c0/8"]).0, 0);
    let (code, out) = claim(&["--uid", "03"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("uid 1000 has 2 claims"), "{out}");
    // Root is bound by none of them.
    assert_eq!(
        d.uiap(&[
            "claim",
            "--domain",
            "fff:0:2:0",
            "--prefix",
            "8/1",
            "--lifetime",
            "4294967295"
        ])
        .0,
        0
    );

    // Watchers hold connections open: two of the user's, then one of another user.
    let mut watchers = Watchers::new(&d.control);
    watchers.add(user);
    watchers.add(user);
    let out = refused_as(
        &mut watchers,
        user,
        "uid 1000 has 2 control connections open",
    );
    assert!(!out.contains("Broken pipe"), "{out}");
    watchers.add(65534);
    let out = refused_as(
        &mut watchers,
        65534,
        "too many control connections (3 open)",
    );
    assert!(!out.contains("Broken pipe"), "{out}");
    // The shared cap's last connection is root's.
    let (code, out, err) = d.uiap(&["list"]);
    assert_eq!(code, 0, "root locked out: {out}{err}");
    drop(watchers);
    let (code, out) = uiap_as(&d.control, user, &["list"]);
    assert_eq!(
        code, 0,
        "the closed connections gave their slots back: {out}"
    );
}

/// SIGTERM while a claim is in its round: the client is told the daemon is shutting down, not
/// that the stream ended.
#[test]
fn a_claim_in_progress_at_sigterm_is_answered_shutting_down() {
    let mut d = Uiapd::with_args(
        "sigterm",
        (48601, 48602),
        &["--claim-period-ms", "5000", "--renew-min-lifetime-s", "60"],
    );
    let claim = Command::new(netns_support::uiap_bin())
        .args(["claim", "--domain", "fff:0:1:0", "--uid", "01", "--control"])
        .arg(&d.control)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while !d.log().contains("claiming") {
        assert!(Instant::now() < deadline, "no claim; log: {}", d.log());
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(d.stop(), Some(0));
    let out = claim.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("the daemon is shutting down"), "{err}");
}

/// docs/uiap-design.md D73: a daemon whose new-claim window is shorter than the site leases'
/// liveness window plus a quarter would grant a frozen holder's node while the holder's lease
/// still writes (a 400 ms window: 1.22 s of overlap), so it does not start; with the leases'
/// window lowered to match on the site, it does.
#[test]
fn a_claim_window_a_site_lease_could_outlive_is_refused_at_start() {
    // The fast timers' claim window without their `--lease-liveness-ms 0`: 3 × 100 + 100 ms.
    let short = &netns_support::FAST_TIMERS[..6];
    assert_eq!(short[0], "--claim-period-ms");
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_uiapd"))
        .args(["--iface", "uiap-none0", "--control"])
        .arg(dir.path().join("control.sock"))
        .arg("--state")
        .arg(dir.path().join("state"))
        .args(["--claim-port", "48701", "--reply-port", "48702"])
        .args(short)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = wait_bounded(out, Duration::from_secs(10));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("claim window: 400 ms is shorter than 2500 ms")
            && err.contains("lease-liveness-ms 2000")
            && err.contains("at most 320 ms"),
        "{err}"
    );
    let mut fitting = short.to_vec();
    fitting.extend(["--lease-liveness-ms", "320", "--renew-min-lifetime-s", "10"]);
    let mut d = Uiapd::with_args("leasewin", (48703, 48704), &fitting);
    assert_eq!(d.stop(), Some(0), "{}", d.log());
}

/// The output of `child`, killed if it has not exited within `limit` (a daemon that should have
/// refused to start must not hang the test).
fn wait_bounded(mut child: Child, limit: Duration) -> std::process::Output {
    let deadline = Instant::now() + limit;
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// A `uuidkit new v8 --site-node` run as `uid` through `control`, its UUIDs read slowly (100
/// lines a second, so that it writes, and checks its lease before each write, all along), its
/// stderr kept in `err`.
fn site_generator_as(control: &Path, uid: u32, err: &Path) -> Child {
    use std::os::unix::process::CommandExt;
    let mut child = Command::new(test_support::workspace::binary("uuidkit-cli", "uuidkit"))
        .args([
            "new",
            "v8",
            "--site-node",
            "--node-bits",
            "8",
            "-n",
            "1000000000",
        ])
        .arg("--uiap-control")
        .arg(control)
        // A site of one: no other device's clock to wait for (docs/uiap-design.md D72).
        .args(["--max-clock-offset", "0ms"])
        .uid(uid)
        .gid(0)
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(err).unwrap())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            if line.is_err() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    });
    child
}

/// docs/uiap-design.md D77: a site lease's watch holds its user's claim for as long as it lives
/// and does not count in the user's connection cap (16), up to the user's claims (64): 22 site
/// leases of one user other than root are held together, none lost. Beyond the cap, a lease
/// fails at once with the cap named.
#[test]
fn a_users_site_leases_are_not_lost_to_its_connection_cap() {
    if !test_support::require(
        "a_users_site_leases_are_not_lost_to_its_connection_cap",
        test_support::root(),
    ) {
        return;
    }
    const LEASES: usize = 22;
    let d = Uiapd::with_args("user-leases", (48511, 48512), &netns_support::FAST_TIMERS);
    let user = 65534;
    let held = || {
        let (code, out, err) = d.uiap(&["list", "--json"]);
        assert_eq!(code, 0, "{err}");
        serde_json::from_str::<Vec<ClaimView>>(&out)
            .unwrap()
            .iter()
            .filter(|c| c.state == ClaimState::Held && c.domain == "ffe:9562:6:400")
            .count()
    };
    let started = Instant::now();
    let mut generators = Vec::new();
    // Four at a time, each batch's claims held before the next: a lease starting counts in the
    // cap with its claim in its round and its first questions, until its watch is confirmed.
    for batch in 0..LEASES.div_ceil(4) {
        for i in batch * 4..LEASES.min(batch * 4 + 4) {
            let err = d.dir.join(format!("gen{i}.err"));
            generators.push((site_generator_as(&d.control, user, &err), err));
        }
        let deadline = Instant::now() + Duration::from_secs(20);
        while held() < generators.len() {
            let ended: Vec<String> = generators
                .iter_mut()
                .filter_map(|(g, err)| {
                    g.try_wait().unwrap()?;
                    Some(std::fs::read_to_string(err).unwrap_or_default())
                })
                .collect();
            assert!(ended.is_empty(), "generators ended: {ended:?}");
            assert!(
                Instant::now() < deadline,
                "{} of {} held",
                held(),
                generators.len()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    let all_held = started.elapsed();
    // Eight liveness questions each, every half second.
    std::thread::sleep(Duration::from_secs(4));
    for (g, err) in &mut generators {
        assert!(
            g.try_wait().unwrap().is_none(),
            "a lease ended: {}",
            std::fs::read_to_string(&*err).unwrap_or_default()
        );
    }
    assert_eq!(held(), LEASES);
    eprintln!(
        "{LEASES} site leases of uid {user} held after {:.1} s, none lost 4 s later",
        all_held.as_secs_f64()
    );

    // The user's 16 other connections: one more lease is refused at once, naming the cap.
    let mut watchers = Watchers::new(&d.control);
    for _ in 0..16 {
        watchers.add(user);
    }
    refused_as(
        &mut watchers,
        user,
        "uid 65534 has 16 control connections open",
    );
    let err = d.dir.join("over.err");
    let mut over = site_generator_as(&d.control, user, &err);
    let status = over.wait().unwrap();
    let text = std::fs::read_to_string(&err).unwrap_or_default();
    assert!(!status.success(), "{text}");
    assert!(
        text.contains("uid 65534 has 16 control connections open")
            && text.contains("users max-connections 16"),
        "{text}"
    );
    drop(watchers);
    for (g, _) in &mut generators {
        let _ = g.kill();
        let _ = g.wait();
    }
}
