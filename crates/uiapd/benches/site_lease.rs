//! Generation with a node from a real site lease against a static node, in the same run: the
//! lease must stay off the hot path (one atomic read of its slot per UUID). The bench starts its
//! own `uiapd` as a site of one (no participating interface: no root, no namespaces) and holds
//! one lease per width for the whole run.
//!
//! `cargo bench -p uiapd --bench site_lease`; figures in BENCHMARKS.md.

use std::hint::black_box;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use uiapd::site_node::{LeaseConfig, SiteLease};
use uuidkit::{
    Generator, StaticNode, SystemClock, ThreadRng, V1Generator, V6Generator, V8Distributed,
};

/// A uiapd on ports of its own, killed when dropped.
struct Daemon {
    dir: PathBuf,
    control: PathBuf,
    child: Child,
}

impl Daemon {
    fn start() -> Daemon {
        let dir = std::env::temp_dir().join(format!("uiapd-bench-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("bench directory");
        let control = dir.join("control.sock");
        let child = Command::new(env!("CARGO_BIN_EXE_uiapd"))
            .args([
                "--iface",
                "uiap-none0",
                "--claim-port",
                "61711",
                "--reply-port",
                "61712",
            ])
            .arg("--control")
            .arg(&control)
            .arg("--state")
            .arg(dir.join("state"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start uiapd");
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::os::unix::net::UnixStream::connect(&control).is_err() {
            assert!(Instant::now() < deadline, "uiapd did not start");
            std::thread::sleep(Duration::from_millis(20));
        }
        Daemon {
            dir,
            control,
            child,
        }
    }

    fn lease(&self, bits: u8) -> SiteLease {
        SiteLease::acquire(
            &LeaseConfig::new(self.control.clone(), bits),
            &mut ThreadRng,
        )
        .expect("a site of one grants the lease")
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn run(c: &mut Criterion, name: &str, g: &mut dyn Generator) {
    c.bench_function(name, |b| {
        b.iter(|| black_box(g.generate().expect("generate")))
    });
}

fn site_lease(c: &mut Criterion) {
    let daemon = Daemon::start();
    let (l48, l16) = (daemon.lease(48), daemon.lease(16));
    let node = l48.node().as_bytes6().expect("48 bits");
    let mut v1_static = V1Generator::builder()
        .node(node)
        .build(SystemClock, ThreadRng)
        .expect("v1");
    let mut v1_lease = V1Generator::builder()
        .node_source(l48.slot().clone())
        .build(SystemClock, ThreadRng)
        .expect("v1 lease");
    run(c, "site_lease/v1/static", &mut v1_static);
    run(c, "site_lease/v1/lease", &mut v1_lease);

    let mut v6_static = V6Generator::builder()
        .node(node)
        .build(SystemClock, ThreadRng)
        .expect("v6");
    let mut v6_lease = V6Generator::builder()
        .node_source(l48.slot().clone())
        .build(SystemClock, ThreadRng)
        .expect("v6 lease");
    run(c, "site_lease/v6/static", &mut v6_static);
    run(c, "site_lease/v6/lease", &mut v6_lease);

    let mut v8_static = V8Distributed::builder()
        .node_source(StaticNode::new(l16.node().value(), 16).expect("16-bit node"))
        .build(SystemClock, ThreadRng)
        .expect("v8");
    let mut v8_lease = V8Distributed::builder()
        .node_source(l16.slot().clone())
        .build(SystemClock, ThreadRng)
        .expect("v8 lease");
    run(c, "site_lease/v8-distributed/static", &mut v8_static);
    run(c, "site_lease/v8-distributed/lease", &mut v8_lease);

    // The leases were held (and renewed) throughout.
    assert!(uuidkit::NodeSource::current(&**l48.slot()).is_ok());
    assert!(uuidkit::NodeSource::current(&**l16.slot()).is_ok());
}

criterion_group!(benches, site_lease);
criterion_main!(benches);
