//! Generation with a node from a real site lease against a static node, in the same run: the
//! lease must stay off the hot path (one atomic read of its slot per UUID). The bench starts the
//! workspace's `uiapd` as a site of one (no participating interface: no root, no namespaces) and
//! holds one lease per width for the whole run.
//!
//! `cargo bench -p uuidkit-lease --bench site_lease`; figures in benchmarks/node-sources-and-leases.md.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use test_support::uiapd::SiteOfOne;
use uuidkit::clock::SystemClock;
use uuidkit::node::StaticNode;
use uuidkit::rng::ThreadRng;
use uuidkit::{Generator, V1Generator, V6Generator, V8Distributed};
use uuidkit_lease::site::{LeaseConfig, SiteLease};

/// A lease of `bits` from `site`, held for the whole run.
fn lease(site: &SiteOfOne, bits: u8) -> SiteLease {
    let config = LeaseConfig::new(site.control().to_path_buf(), bits);
    SiteLease::acquire(&config, &mut ThreadRng).expect("a site of one grants the lease")
}

fn run(c: &mut Criterion, name: &str, g: &mut dyn Generator) {
    c.bench_function(name, |b| {
        b.iter(|| black_box(g.generate().expect("generate")))
    });
}

fn site_lease(c: &mut Criterion) {
    let site = SiteOfOne::start((61711, 61712), &[]);
    let (l48, l16) = (lease(&site, 48), lease(&site, 16));
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
    assert!(uuidkit::node::NodeSource::current(&**l48.slot()).is_ok());
    assert!(uuidkit::node::NodeSource::current(&**l16.slot()).is_ok());
}

criterion_group!(benches, site_lease);
criterion_main!(benches);
