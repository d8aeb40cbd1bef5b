//! V1Generator, V6Generator and the v8 generators with a manual clock.

use std::collections::HashSet;

use crate::gen_support::{MS, NODE_A, T_A, seeded};
use uuidkit::clock::ManualClock;
use uuidkit::generator::{
    GenErrorKind, Reservation, Reserve, RolloverPolicy, V1State, V8DistributedBuilder,
};
use uuidkit::layout::GREGORIAN_TO_UNIX_100NS;
use uuidkit::node::StaticNode;
use uuidkit::{GenError, Generator, Uuid, V1Generator, V6Generator, V8Distributed, Version};

fn node_of(u: Uuid) -> [u8; 6] {
    u.as_bytes()[10..16].try_into().unwrap()
}

fn clock_seq_of(u: Uuid) -> u16 {
    ((u.as_u128() >> 48) & 0x3FFF) as u16
}

/// The 60-bit timestamp of a v6 UUID.
fn ts_v6(u: Uuid) -> u64 {
    let x = u.as_u128();
    (((x >> 80) as u64) << 12) | ((x >> 64) & 0xFFF) as u64
}

#[test]
fn default_node_is_random_with_the_multicast_bit_and_no_mac() {
    let mut nodes = HashSet::new();
    let mut seqs = HashSet::new();
    for seed in 0..1000 {
        let g = V1Generator::new(ManualClock::new(T_A), seeded(seed));
        assert_eq!(g.node()[0] & 0x01, 0x01, "multicast bit (0x01 of octet 0)");
        nodes.insert(g.node());
        seqs.insert(g.clock_seq());
    }
    assert_eq!(nodes.len(), 1000, "random per generator, never a fixed MAC");
    assert!(
        seqs.len() >= 940,
        "clock_seq random: {} distinct of 1000",
        seqs.len()
    );
    // In the UUID, too: octet 10 carries the bit; the local/global bit is random.
    let mut g = V1Generator::new(ManualClock::new(T_A), seeded(7));
    let u = g.generate().unwrap();
    assert_eq!(u.as_bytes()[10] & 0x01, 0x01);
    assert_eq!(u.version(), Some(Version::Mac));
    // Only a node the caller passes is used as is.
    let mut g = V1Generator::builder()
        .node([0, 0x11, 0x22, 0x33, 0x44, 0x55])
        .build(ManualClock::new(T_A), seeded(7))
        .unwrap();
    assert_eq!(
        node_of(g.generate().unwrap()),
        [0, 0x11, 0x22, 0x33, 0x44, 0x55]
    );
}

#[test]
fn several_per_tick_never_repeat_and_never_run_a_resolution_ahead() {
    // A 1 µs clock: 10 ticks of 100 ns per reading.
    let clock = ManualClock::new(T_A).with_resolution(1_000);
    let mut g = V1Generator::builder()
        .rollover(RolloverPolicy::Error)
        .build(&clock, seeded(1))
        .unwrap();
    let mut ts = Vec::new();
    for _ in 0..10 {
        g.generate().unwrap();
        ts.push(g.state().timestamp);
    }
    let base = 0x1EC9414C232AB00;
    assert_eq!(ts, (base..base + 10).collect::<Vec<_>>());
    let err = g.generate().unwrap_err();
    assert_eq!(err.kind(), GenErrorKind::CounterExhausted);
    clock.advance(1_000);
    g.generate().unwrap();
    assert_eq!(g.state().timestamp, base + 10);
}

#[test]
fn overrun_waits_by_default() {
    let clock = ManualClock::new(T_A)
        .with_resolution(1_000)
        .advancing_on_relax(1_000);
    let mut g = V6Generator::new(&clock, seeded(2));
    let v: Vec<Uuid> = (0..1000).map(|_| g.generate().unwrap()).collect();
    assert!(v.windows(2).all(|w| w[0] < w[1]));
    let now_ts = clock.now() / 100 + 0x01B2_1DD2_1381_4000;
    for u in &v {
        assert!(ts_v6(*u) < now_ts + 10, "never one resolution ahead");
    }
    assert_eq!(ts_v6(v[999]) - ts_v6(v[0]), 999, "consecutive ticks");
}

#[test]
fn clock_back_changes_the_clock_sequence() {
    for back in [MS, 1_000 * MS, 3_600_000 * MS] {
        let clock = ManualClock::new(T_A);
        let mut g = V1Generator::builder()
            .node(NODE_A)
            .clock_seq(0x3FFF)
            .build(&clock, seeded(3))
            .unwrap();
        let a = g.generate().unwrap();
        clock.step_back(back);
        let b = g.generate().unwrap();
        assert_ne!(a, b);
        assert_eq!(clock_seq_of(b), 0, "incremented modulo 2^14");
        assert_eq!(
            g.state().timestamp,
            (T_A - back) / 100 + 0x01B2_1DD2_1381_4000
        );
    }
}

#[test]
fn node_change_changes_the_clock_sequence() {
    // A 1 ms clock: room for several UUIDs per reading (a frozen 1-ns clock would
    // make the default Wait policy wait for ever).
    let clock = ManualClock::new(T_A).with_resolution(MS);
    let mut g = V1Generator::new(&clock, seeded(4));
    let a = g.generate().unwrap();
    g.set_node(NODE_A);
    let b = g.generate().unwrap();
    assert_ne!(clock_seq_of(a), clock_seq_of(b));
    assert_eq!(node_of(b), NODE_A);
    // Setting the same node again changes nothing.
    g.set_node(NODE_A);
    assert_eq!(clock_seq_of(g.generate().unwrap()), clock_seq_of(b));
}

#[test]
fn restored_state_with_clock_behind_changes_the_clock_sequence() {
    let clock = ManualClock::new(T_A - 5_000 * MS);
    let stored = V1State {
        timestamp: T_A / 100 + 0x01B2_1DD2_1381_4000,
        clock_seq: 0x1234,
        node: NODE_A,
        node_given: true,
        valid: true,
    };
    let mut g = V1Generator::new(&clock, seeded(5)).with_state(stored);
    let u = g.generate().unwrap();
    assert_eq!(clock_seq_of(u), 0x1235);
    assert_eq!(node_of(u), NODE_A);
    // And with the clock ahead of the stored timestamp, it is kept.
    let clock = ManualClock::new(T_A + 5_000 * MS);
    let mut g = V1Generator::new(&clock, seeded(5)).with_state(stored);
    assert_eq!(clock_seq_of(g.generate().unwrap()), 0x1234);
}

#[test]
fn v6_fresh_clock_seq_and_node_per_uuid() {
    let clock = ManualClock::new(T_A).with_resolution(1_000_000);
    let mut g = V6Generator::new(&clock, seeded(6));
    let v: Vec<Uuid> = (0..1000).map(|_| g.generate().unwrap()).collect();
    let pairs: HashSet<(u16, [u8; 6])> =
        v.iter().map(|u| (clock_seq_of(*u), node_of(*u))).collect();
    assert!(pairs.len() >= 990, "{} distinct of 1000", pairs.len());
    assert!(v.iter().all(|u| u.as_bytes()[10] & 0x01 == 0x01));
    assert!(v.iter().all(|u| u.version() == Some(Version::SortMac)));
    let locals = v.iter().filter(|u| u.as_bytes()[10] & 0x02 != 0).count();
    assert!((400..600).contains(&locals), "local bit random: {locals}");
    assert!(v.windows(2).all(|w| w[0] < w[1]), "sorted by time");
}

#[test]
fn v6_retain_keeps_clock_seq_and_node() {
    let clock = ManualClock::new(T_A).with_resolution(1_000_000);
    let mut g = V6Generator::builder()
        .retain()
        .build(&clock, seeded(7))
        .unwrap();
    let (cs, node) = (g.clock_seq(), g.node());
    for _ in 0..100 {
        let u = g.generate().unwrap();
        assert_eq!((clock_seq_of(u), node_of(u)), (cs, node));
    }
}

#[test]
fn v8_distributed_layout() {
    let clock = ManualClock::new(1_700_000_000_000 * MS);
    // 20-bit node id, 16-bit counter, 38 random bits.
    let mut g = V8Distributed::builder()
        .node(0xABCDE, 20)
        .counter_bits(16)
        .build(&clock, seeded(8))
        .unwrap();
    let a = g.generate().unwrap();
    let b = g.generate().unwrap();
    assert_eq!(a.version(), Some(Version::Custom));
    let payload = |u: Uuid| {
        let x = u.as_u128();
        (((x >> 64) & 0xFFF) << 62) | (x & ((1 << 62) - 1))
    };
    assert_eq!(a.as_u128() >> 80, 1_700_000_000_000);
    assert_eq!(payload(a) >> 54, 0xABCDE, "node id right after the version");
    let ctr = |u: Uuid| (payload(u) >> 38) & 0xFFFF;
    assert!(ctr(a) < 0x8000, "guard bit");
    assert_eq!(ctr(b), ctr(a) + 1);
    assert!(a < b);
    // Counter rollover advances the millisecond.
    let mut g = V8Distributed::builder()
        .node(1, 8)
        .counter_bits(4)
        .build(&clock, seeded(9))
        .unwrap();
    let v: Vec<Uuid> = (0..100).map(|_| g.generate().unwrap()).collect();
    assert!(v.windows(2).all(|w| w[0] < w[1]));
    assert!(v[99].as_u128() >> 80 > 1_700_000_000_000);
}

#[test]
fn v8_distributed_config_errors() {
    let clock = ManualClock::new(0);
    let cases: [(V8DistributedBuilder<StaticNode>, &str); 4] = [
        (
            V8Distributed::builder().node(0, 0),
            "expected node bits in 1..=48, found 0",
        ),
        (
            V8Distributed::builder().node(16, 4),
            "expected a node id that fits the node bits, found 16",
        ),
        (
            V8Distributed::builder().node(1, 8).counter_bits(43),
            "expected counter bits in 0..=42, found 43",
        ),
        (
            V8Distributed::builder()
                .node(1, 8)
                .counter_bits(2)
                .guard_bits(2),
            "expected guard bits smaller than the counter width, found 2",
        ),
    ];
    for (cfg, msg) in cases {
        let err = cfg.build(&clock, seeded(0)).unwrap_err();
        assert_eq!(err.kind(), GenErrorKind::InvalidConfig);
        assert_eq!(err.to_string(), format!("invalid generator config: {msg}"));
    }
}

/// A v1 store that holds another clock sequence and node, with a mark 5 ms
/// ahead of the clock: the generator takes them and waits for the clock.
#[derive(Debug, Default)]
struct AheadStore {
    requests: Vec<(V1State, u64)>,
}

impl Reserve<V1State> for AheadStore {
    fn reserve(&mut self, state: &V1State, needed: u64) -> Result<Reservation<V1State>, GenError> {
        self.requests.push((*state, needed));
        let mark = T_A / 100 + GREGORIAN_TO_UNIX_100NS + 50_000;
        if needed >= mark && state.clock_seq == 0x0123 {
            return Ok(Reservation::Until(mark + 1_000_000));
        }
        Ok(Reservation::ResumeFrom(V1State {
            timestamp: mark - 1,
            clock_seq: 0x0123,
            node: if state.node_given { state.node } else { [2; 6] },
            node_given: state.node_given,
            valid: true,
        }))
    }
}

#[test]
fn a_v1_store_resume_takes_its_clock_sequence_and_waits_for_the_clock() {
    let clock = ManualClock::new(T_A).advancing_on_relax(100_000);
    let mut g = V1Generator::builder()
        .store(AheadStore::default())
        .build(&clock, seeded(10))
        .unwrap();
    let u = g.generate().unwrap();
    let mark = T_A / 100 + GREGORIAN_TO_UNIX_100NS + 50_000;
    assert_eq!(u.gregorian_timestamp(), Some(mark));
    assert_eq!((u.clock_seq(), u.node()), (Some(0x0123), Some([2; 6])));
    assert!(
        clock.now() >= T_A + 5 * MS - 100,
        "waited for the clock: never ahead of it"
    );
    assert!(!g.store().requests[0].0.node_given);
    // A node given to the builder travels with the request, and the store keeps it.
    let clock = ManualClock::new(T_A).advancing_on_relax(100_000);
    let mut g = V1Generator::builder()
        .node(NODE_A)
        .store(AheadStore::default())
        .build(&clock, seeded(11))
        .unwrap();
    let u = g.generate().unwrap();
    assert!(g.store().requests[0].0.node_given);
    assert_eq!(u.node(), Some(NODE_A));
    // At a fixed time the generator cannot wait: the block ahead is an error.
    let mut g = V1Generator::builder()
        .store(AheadStore::default())
        .build(ManualClock::new(0), seeded(12))
        .unwrap();
    assert_eq!(
        g.at(T_A).unwrap_err().kind(),
        GenErrorKind::CounterExhausted
    );
}

#[test]
fn a_clock_step_back_or_node_change_goes_through_the_store() {
    let clock = ManualClock::new(T_A).with_resolution(MS);
    let mut g = V1Generator::builder()
        .store(Counting::default())
        .build(&clock, seeded(13))
        .unwrap();
    g.generate().unwrap();
    g.generate().unwrap();
    assert_eq!(g.store().0, 1, "one reservation for both");
    clock.step_back(MS);
    let u = g.generate().unwrap();
    assert_eq!(
        g.store().0,
        2,
        "a new clock sequence is the store's business"
    );
    assert_eq!(u.clock_seq(), Some(g.clock_seq()));
    g.set_node(NODE_A);
    g.generate().unwrap();
    assert_eq!(g.store().0, 3, "so is a new node");
}

#[derive(Debug, Default)]
struct Counting(u32);

impl Reserve<V1State> for Counting {
    fn reserve(&mut self, _: &V1State, _needed: u64) -> Result<Reservation<V1State>, GenError> {
        self.0 += 1;
        Ok(Reservation::Until(u64::MAX))
    }
}

/// RFC 9562 §5.1: the clock sequence starts at a random value, also when the node is given:
/// generators sharing one node do not share a clock sequence, so their UUIDs differ even at the
/// same timestamp.
#[test]
fn the_initial_clock_sequence_is_random_for_a_fixed_node() {
    let node = [0x02, 0x11, 0x22, 0x33, 0x44, 0x55];
    let mut v1_seqs = HashSet::new();
    let mut v6_seqs = HashSet::new();
    for seed in 0..1000 {
        let mut g = V1Generator::builder()
            .node(node)
            .build(ManualClock::new(T_A), seeded(seed))
            .unwrap();
        let u = g.generate().unwrap();
        assert_eq!(node_of(u), node);
        assert_eq!(clock_seq_of(u), g.clock_seq());
        v1_seqs.insert(g.clock_seq());
        let mut g = V6Generator::builder()
            .node(node)
            .build(ManualClock::new(T_A), seeded(seed))
            .unwrap();
        let u = g.generate().unwrap();
        assert_eq!(node_of(u), node);
        v6_seqs.insert(clock_seq_of(u));
    }
    // 1000 draws of 14 bits: about 30 repeats are expected, 60 would be very unlikely.
    assert!(
        v1_seqs.len() >= 940,
        "v1: {} distinct of 1000",
        v1_seqs.len()
    );
    assert!(
        v6_seqs.len() >= 940,
        "v6: {} distinct of 1000",
        v6_seqs.len()
    );
}
