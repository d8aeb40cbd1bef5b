//! Generators taking their node from a `NodeSource` (RFC 9562 §6.4): a loss
//! stops them at once, a new node (epoch) starts a new clock sequence or
//! counter, node bits land where the v8 layout puts them, and a `NodeSlot`
//! flipped by a writer thread never yields a torn node or a UUID with a node
//! its reader had already seen lost.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crate::gen_support::{T_A, seeded};
use proptest::prelude::*;
use uuidkit::clock::ManualClock;
use uuidkit::generator::{GenErrorKind, RolloverPolicy};
use uuidkit::node::{NodeId, NodeLost, NodeLostKind, NodeSlot, NodeSource, RandomNode, StaticNode};
use uuidkit::rng::ThreadRng;
use uuidkit::{Generator, Uuid, V1Generator, V6Generator, V8Distributed};

const MS: u64 = 1_000_000;
const NODE_A: u64 = 0x0300_0000_00AA;
const NODE_B: u64 = 0x0300_0000_00BB;

/// A source driven by hand from the test: a node with an epoch, or a loss,
/// and how often it was asked.
#[derive(Debug, Default)]
struct Hand {
    state: std::sync::Mutex<Option<NodeId>>,
    asked: AtomicU64,
    /// Answers a loss once `asked` reaches this (0: never).
    lose_at: AtomicU64,
}

impl Hand {
    fn holding(value: u64, bits: u8, epoch: u64) -> Hand {
        let h = Hand::default();
        h.set(value, bits, epoch);
        h
    }
    fn set(&self, value: u64, bits: u8, epoch: u64) {
        *self.state.lock().unwrap() = Some(NodeId::new(value, bits, epoch).unwrap());
    }
    fn lose(&self) {
        *self.state.lock().unwrap() = None;
    }
}

impl NodeSource for Hand {
    fn bits(&self) -> u8 {
        self.state.lock().unwrap().map_or(48, |id| id.bits())
    }
    fn current(&self) -> Result<NodeId, NodeLost> {
        let asked = self.asked.fetch_add(1, Ordering::SeqCst) + 1;
        let lose_at = self.lose_at.load(Ordering::SeqCst);
        let state = *self.state.lock().unwrap();
        match state {
            Some(id) if lose_at == 0 || asked < lose_at => Ok(id),
            _ => Err(NodeLost::new(NodeLostKind::RenewalFailed).with_detail("by hand")),
        }
    }
}

fn clock_seq_of(u: Uuid) -> u16 {
    u.clock_seq().unwrap()
}

/// The node field of a v8 distributed UUID with `bits` node bits.
fn v8_node(u: Uuid, bits: u32) -> u64 {
    let field = (u128::from(u.custom_b().unwrap()) << 62) | u128::from(u.custom_c().unwrap());
    (field >> (74 - bits)) as u64
}

#[test]
fn a_loss_stops_v1_v6_and_v8_at_once_and_says_why() {
    let clock = ManualClock::new(T_A).with_resolution(1_000);
    let src = Hand::holding(NODE_A, 48, 1);
    let mut v1 = V1Generator::builder()
        .node_source(&src)
        .build(&clock, seeded(1))
        .unwrap();
    let mut v6 = V6Generator::builder()
        .node_source(&src)
        .build(&clock, seeded(2))
        .unwrap();
    assert_eq!(
        v1.generate().unwrap().node(),
        Some(NODE_A.to_be_bytes()[2..].try_into().unwrap())
    );
    assert_eq!(
        v6.generate().unwrap().node(),
        Some(NODE_A.to_be_bytes()[2..].try_into().unwrap())
    );
    let v1_state = v1.state();
    src.lose();
    let generators: [&mut dyn Generator; 2] = [&mut v1, &mut v6];
    for g in generators {
        let err = g.generate().unwrap_err();
        assert_eq!(err.kind(), GenErrorKind::NodeLost);
        assert_eq!(err.to_string(), "node lost: renewal failed: by hand");
        assert_eq!(err.node_lost().unwrap().kind(), NodeLostKind::RenewalFailed);
        let mut out = [Uuid::NIL; 3];
        assert_eq!(g.fill(&mut out).unwrap_err().kind(), GenErrorKind::NodeLost);
        assert_eq!(out, [Uuid::NIL; 3], "nothing written after the loss");
    }
    assert_eq!(
        v1.at(T_A + 5_000).unwrap_err().kind(),
        GenErrorKind::NodeLost
    );
    // The clock was read before the source was asked (so that no UUID carries a time past
    // its node's tenure): the refused tick is used up, never handed out, and the state
    // never goes back.
    assert!(v1.state().timestamp >= v1_state.timestamp);

    let v8src = Hand::holding(0x2A, 8, 1);
    let mut v8 = V8Distributed::builder()
        .node_source(&v8src)
        .build(&clock, seeded(3))
        .unwrap();
    assert_eq!(v8_node(v8.generate().unwrap(), 8), 0x2A);
    v8src.lose();
    assert_eq!(v8.generate().unwrap_err().kind(), GenErrorKind::NodeLost);
    // Held again: generation resumes with the new node.
    v8src.set(0x2B, 8, 2);
    assert_eq!(v8_node(v8.generate().unwrap(), 8), 0x2B);
}

/// A clock that moves on by 1 ms at every reading.
#[derive(Debug)]
struct Ticking(AtomicU64);

impl uuidkit::clock::Clock for Ticking {
    /// Time passes, then it is read: between two readings, anything else sees the later one.
    fn now_ns(&self) -> u64 {
        self.0.fetch_add(MS, Ordering::SeqCst) + MS
    }
}

/// A lease on `clock`: held while the clock reads at most `until` (asking does not move it).
#[derive(Debug)]
struct Until<'a> {
    clock: &'a Ticking,
    until: u64,
    bits: u8,
}

impl NodeSource for Until<'_> {
    fn bits(&self) -> u8 {
        self.bits
    }
    fn current(&self) -> Result<NodeId, NodeLost> {
        if self.clock.0.load(Ordering::SeqCst) <= self.until {
            Ok(NodeId::new(1, self.bits, 1).unwrap())
        } else {
            Err(NodeLost::new(NodeLostKind::RenewalFailed).with_detail("past the deadline"))
        }
    }
}

/// UUIDs made until the first error, which must be a loss.
fn until_lost(g: &mut dyn Generator) -> Vec<Uuid> {
    let mut made = Vec::new();
    loop {
        match g.generate() {
            Ok(u) => made.push(u),
            Err(e) => {
                assert_eq!(e.kind(), GenErrorKind::NodeLost, "{e}");
                return made;
            }
        }
    }
}

/// Every v1/v6 UUID of `made` carries a Gregorian timestamp of at most `limit`.
fn no_later_than(made: &[Uuid], limit: u64) {
    for u in made {
        assert!(u.gregorian_timestamp().unwrap() <= limit, "{u}");
    }
}

#[test]
fn no_uuid_carries_a_time_after_the_check_of_its_node() {
    // The source is asked after the clock is read: had it been asked first, the reading
    // after its last "held" answer would be 1 ms past the deadline, and so would that UUID.
    let until = T_A + 20 * MS;
    let gregorian_of = |unix_ns: u64| unix_ns / 100 + 0x01B2_1DD2_1381_4000;
    let clock = Ticking(AtomicU64::new(T_A));
    let src = Until {
        clock: &clock,
        until,
        bits: 48,
    };
    let mut v1 = V1Generator::builder()
        .node_source(&src)
        .build(&clock, seeded(7))
        .unwrap();
    let made = until_lost(&mut v1);
    assert!(made.len() >= 10, "{}", made.len());
    no_later_than(&made, gregorian_of(until));
    let clock = Ticking(AtomicU64::new(T_A));
    let src = Until {
        clock: &clock,
        until,
        bits: 48,
    };
    let mut v6 = V6Generator::builder()
        .node_source(&src)
        .build(&clock, seeded(8))
        .unwrap();
    no_later_than(&until_lost(&mut v6), gregorian_of(until));
    let clock = Ticking(AtomicU64::new(T_A));
    let src = Until {
        clock: &clock,
        until,
        bits: 16,
    };
    let mut v8 = V8Distributed::builder()
        .node_source(&src)
        .build(&clock, seeded(9))
        .unwrap();
    let made = until_lost(&mut v8);
    assert!(made.len() >= 10, "{}", made.len());
    let last_ms = made
        .iter()
        .map(|u| (u.as_u128() >> 80) as u64)
        .max()
        .unwrap();
    assert_eq!(
        last_ms,
        until / MS,
        "the last UUID is of the deadline's millisecond"
    );
    assert!(
        made.iter()
            .all(|u| (u.as_u128() >> 80) as u64 <= until / MS)
    );
}

#[test]
fn fill_stops_at_the_first_uuid_after_a_loss() {
    let clock = ManualClock::new(T_A).with_resolution(1_000_000);
    let src = Hand::holding(NODE_A, 48, 1);
    // Asked once before the first UUID (its node goes in before the first tick), then once
    // after each tick (`holds`, which this source answers through `current`): the 7th
    // question, answered with a loss, is the 6th UUID's. A no sends the generator to
    // `current` for the node (the 8th), which reports the loss.
    src.lose_at.store(7, Ordering::SeqCst);
    let mut g = V1Generator::builder()
        .node_source(&src)
        .build(&clock, seeded(1))
        .unwrap();
    let mut out = [Uuid::NIL; 10];
    assert_eq!(g.fill(&mut out).unwrap_err().kind(), GenErrorKind::NodeLost);
    assert_eq!(
        src.asked.load(Ordering::SeqCst),
        8,
        "asked once per UUID, once before, and once more after the no"
    );
    assert!(
        out[..5]
            .iter()
            .all(|u| u.node() == Some([3, 0, 0, 0, 0, 0xAA]))
    );
    assert!(out[5..].iter().all(|u| u.is_nil()), "{out:?}");

    let src = Hand::holding(7, 4, 1);
    src.lose_at.store(4, Ordering::SeqCst);
    let mut g = V8Distributed::builder()
        .node_source(&src)
        .build(&clock, seeded(2))
        .unwrap();
    let mut out = [Uuid::NIL; 10];
    assert_eq!(g.fill(&mut out).unwrap_err().kind(), GenErrorKind::NodeLost);
    assert!(out[..3].iter().all(|u| v8_node(*u, 4) == 7));
    assert!(out[3..].iter().all(|u| u.is_nil()));
}

#[test]
fn a_new_epoch_starts_a_new_clock_sequence_even_for_the_same_value() {
    let clock = ManualClock::new(T_A).with_resolution(1_000);
    for seed in 0..50 {
        let src = Hand::holding(NODE_A, 48, 1);
        let mut v1 = V1Generator::builder()
            .node_source(&src)
            .build(&clock, seeded(seed))
            .unwrap();
        let mut v6 = V6Generator::builder()
            .node_source(&src)
            .build(&clock, seeded(seed + 1000))
            .unwrap();
        let (a1, a6) = (v1.generate().unwrap(), v6.generate().unwrap());
        // Same epoch: the same sequence goes on.
        clock.advance(1_000);
        assert_eq!(clock_seq_of(v1.generate().unwrap()), clock_seq_of(a1));
        assert_eq!(clock_seq_of(v6.generate().unwrap()), clock_seq_of(a6));
        // Same value, new epoch (released and claimed again): a new sequence.
        src.set(NODE_A, 48, 2);
        let (b1, b6) = (v1.generate().unwrap(), v6.generate().unwrap());
        assert_ne!(clock_seq_of(b1), clock_seq_of(a1));
        assert_ne!(clock_seq_of(b6), clock_seq_of(a6));
        // Another value: a new sequence again.
        src.set(NODE_B, 48, 3);
        let c1 = v1.generate().unwrap();
        assert_ne!(clock_seq_of(c1), clock_seq_of(b1));
        assert_eq!(c1.node(), Some([3, 0, 0, 0, 0, 0xBB]));
    }
}

#[test]
fn a_new_epoch_restarts_the_v8_counter_from_the_clock() {
    let clock = ManualClock::new(T_A);
    let src = Hand::holding(5, 8, 1);
    let mut g = V8Distributed::builder()
        .node_source(&src)
        .counter_bits(2)
        .rollover(RolloverPolicy::AdvanceTimestamp)
        .build(&clock, seeded(9))
        .unwrap();
    // A 2-bit counter at a frozen clock runs the timestamp ahead of it.
    let mut last = Uuid::NIL;
    for _ in 0..40 {
        let u = g.generate().unwrap();
        assert!(u > last);
        last = u;
    }
    assert!(
        last.custom_a().unwrap() > T_A / MS + 5,
        "ran ahead of the clock"
    );
    // Same epoch: it keeps counting above the last UUID.
    assert!(g.generate().unwrap() > last);
    // New epoch: back at the clock, with a fresh counter.
    src.set(6, 8, 2);
    let u = g.generate().unwrap();
    assert_eq!(u.custom_a(), Some(T_A / MS));
    assert_eq!(v8_node(u, 8), 6);
    assert!(g.generate().unwrap() > u, "then increasing again");
}

#[test]
fn sources_of_the_wrong_width_are_refused() {
    let clock = ManualClock::new(T_A);
    let slot = NodeSlot::new(47).unwrap();
    let e = V1Generator::builder()
        .node_source(&slot)
        .build(&clock, ThreadRng)
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "invalid generator config: expected a 48-bit node source for v1/v6, found 47"
    );
    assert!(
        V6Generator::builder()
            .node_source(&slot)
            .build(&clock, ThreadRng)
            .is_err()
    );
    // A 48-bit node (a v1/v6-wide lease) fits the §6.4 layout beside the default 24-bit
    // counter; with a 42-bit counter it would not.
    let wide = NodeSlot::new(48).unwrap();
    wide.set((1 << 48) - 1).unwrap();
    let mut g = V8Distributed::builder()
        .node_source(&wide)
        .build(&clock, ThreadRng)
        .unwrap();
    let u = g.generate().unwrap().as_u128();
    let payload = (u >> 64 & 0xFFF) << 62 | (u & ((1 << 62) - 1));
    assert_eq!(
        payload >> (74 - 48),
        (1 << 48) - 1,
        "the node's 48 bits first"
    );
    let e = V8Distributed::builder()
        .node_source(&wide)
        .counter_bits(42)
        .build(&clock, ThreadRng)
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "invalid generator config: expected node bits + counter bits at most 74, found 90"
    );
    let e = V8Distributed::builder()
        .node_source(NodeSlot::new(32).unwrap())
        .counter_bits(43)
        .build(&clock, ThreadRng)
        .unwrap_err();
    assert_eq!(e.kind(), GenErrorKind::InvalidConfig);
    // A source that changes its width mid-run is refused, not spilled into the counter.
    let src = Hand::holding(1, 8, 1);
    let mut g = V8Distributed::builder()
        .node_source(&src)
        .build(&clock, ThreadRng)
        .unwrap();
    g.generate().unwrap();
    src.set(1, 9, 2);
    assert_eq!(
        g.generate().unwrap_err().to_string(),
        "invalid generator config: expected a node id as wide as the source's bits, found 9"
    );
}

#[test]
fn static_and_random_nodes_equal_a_configured_node() {
    // 1 ms resolution: room for 10,000 v1 ticks at one reading.
    let clock = ManualClock::new(T_A).with_resolution(1_000_000);
    // v8: a fixed node and a StaticNode source are the same generator.
    let mut a = V8Distributed::builder()
        .node(0x123, 12)
        .build(&clock, seeded(4))
        .unwrap();
    let mut b = V8Distributed::builder()
        .node_source(StaticNode::new(0x123, 12).unwrap())
        .build(&clock, seeded(4))
        .unwrap();
    for _ in 0..100 {
        assert_eq!(a.generate().unwrap(), b.generate().unwrap());
    }
    // v1: a static source gives the node a builder would.
    let node = [0x9F, 0x6B, 0xDE, 0xCE, 0xD8, 0x46];
    let mut a = V1Generator::builder()
        .node(node)
        .clock_seq(0x33C8)
        .build(&clock, seeded(5))
        .unwrap();
    let mut b = V1Generator::builder()
        .clock_seq(0x33C8)
        .node_source(StaticNode::from_bytes6(node))
        .build(&clock, seeded(5))
        .unwrap();
    for _ in 0..100 {
        assert_eq!(a.generate().unwrap(), b.generate().unwrap());
    }
    // A random node: reproducible from the seed, multicast bit set at 48 bits.
    let r = RandomNode::new(48, &mut seeded(6)).unwrap();
    assert_eq!(r, RandomNode::new(48, &mut seeded(6)).unwrap());
    assert_ne!(r, RandomNode::new(48, &mut seeded(7)).unwrap());
    assert_eq!(r.id().as_bytes6().unwrap()[0] & 0x01, 0x01);
    let g = V1Generator::new(&clock, seeded(6));
    assert_eq!(
        Some(g.node()),
        r.id().as_bytes6(),
        "the draw a v1 generator makes"
    );
}

/// What the test does next to a slot and the generators reading it.
#[derive(Clone, Debug)]
enum Op {
    /// A new lease of this value (the low 8 bits of a 48-bit node).
    Set(u8),
    Lose,
    Generate,
    /// Moves the clock on by this many microseconds.
    Advance(u16),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        1 => any::<u8>().prop_map(Op::Set),
        1 => Just(Op::Lose),
        6 => Just(Op::Generate),
        2 => any::<u16>().prop_map(Op::Advance),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Against a model of the slot: every UUID carries the node held when it
    /// was made, nothing is made while the node is lost, and the clock
    /// sequence changes exactly when the epoch does (the clock only moves on).
    #[test]
    fn v1_and_v6_follow_a_slot_through_any_sequence_of_leases(
        ops in proptest::collection::vec(op(), 1..60),
        seed in any::<u64>(),
    ) {
        let clock = ManualClock::new(T_A).with_resolution(1_000_000);
        let slot = NodeSlot::new(48).unwrap();
        let mut v1 = V1Generator::builder().node_source(&slot).build(&clock, seeded(seed)).unwrap();
        let mut v6 = V6Generator::builder().node_source(&slot).build(&clock, seeded(!seed)).unwrap();
        // The model: the node held (and its epoch), and per generator the
        // epoch and clock sequence of its last UUID.
        let mut held: Option<(u64, u64)> = None;
        let mut epochs = 0u64;
        let mut last: [Option<(u64, u16)>; 2] = [None, None];
        for op in ops {
            match op {
                Op::Set(v) => {
                    epochs += 1;
                    let value = 0x0300_0000_0000 | u64::from(v);
                    prop_assert_eq!(slot.set(value).unwrap().epoch(), epochs);
                    held = Some((value, epochs));
                }
                Op::Lose => {
                    slot.lose(NodeLost::new(NodeLostKind::Released));
                    held = None;
                }
                Op::Advance(us) => clock.advance(u64::from(us) * 1_000),
                Op::Generate => {
                    let made = [v1.generate(), v6.generate()];
                    for (i, result) in made.into_iter().enumerate() {
                        match (held, result) {
                            (None, Err(e)) => prop_assert_eq!(e.kind(), GenErrorKind::NodeLost),
                            (None, Ok(u)) => prop_assert!(false, "{u} made with no node held"),
                            (Some(_), Err(e)) => prop_assert!(false, "{e} with a node held"),
                            (Some((value, epoch)), Ok(u)) => {
                                let node = value.to_be_bytes()[2..].try_into().unwrap();
                                prop_assert_eq!(u.node(), Some(node));
                                let cs = u.clock_seq().unwrap();
                                if let Some((e, c)) = last[i] {
                                    prop_assert_eq!(cs == c, epoch == e, "epoch {} after {}", epoch, e);
                                }
                                last[i] = Some((epoch, cs));
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn v8_node_bits_land_where_the_layout_says(
        bits in 1u8..=32,
        raw in any::<u64>(),
        counter in 0u8..=42,
        seed in any::<u64>(),
    ) {
        let counter = counter.min(74 - bits);
        let value = raw & ((1u64 << bits) - 1);
        let slot = NodeSlot::new(bits).unwrap();
        slot.set(value).unwrap();
        let clock = ManualClock::new(T_A);
        let mut g = V8Distributed::builder().node_source(&slot)
            .counter_bits(counter)
            .guard_bits(u8::from(counter > 1))
            .build(&clock, seeded(seed))
            .unwrap();
        let first = g.generate().unwrap();
        prop_assert_eq!(first.custom_a(), Some(T_A / MS));
        let mut last = Uuid::NIL;
        for u in [first, g.generate().unwrap(), g.generate().unwrap()] {
            prop_assert_eq!(u.version(), Some(uuidkit::Version::Custom));
            prop_assert_eq!(v8_node(u, bits.into()), value);
            prop_assert!(u > last);
            last = u;
        }
        // A random node of the same width fits it.
        let r = RandomNode::new(bits, &mut seeded(seed)).unwrap();
        prop_assert!(r.id().value() >> bits == 0);
    }

    #[test]
    fn node_lost_details_survive_the_slot(detail in ".{0,120}", kind in 0usize..5) {
        let kinds = [
            NodeLostKind::NotAcquired,
            NodeLostKind::Released,
            NodeLostKind::Conflict,
            NodeLostKind::SourceGone,
            NodeLostKind::RenewalFailed,
        ];
        let lost = NodeLost::new(kinds[kind]).with_detail(&detail);
        prop_assert!(lost.detail().len() <= NodeLost::DETAIL_CAPACITY);
        if detail.len() <= NodeLost::DETAIL_CAPACITY {
            prop_assert_eq!(lost.detail(), detail.as_str());
        } else {
            prop_assert!(lost.detail().ends_with('…'));
            prop_assert!(detail.starts_with(lost.detail().trim_end_matches('…')));
        }
        let slot = NodeSlot::new(20).unwrap();
        slot.set(3).unwrap();
        slot.lose(lost);
        prop_assert_eq!(slot.current(), Err(lost));
    }
}

#[test]
fn a_slot_flipped_by_a_writer_is_never_torn_and_a_seen_loss_holds() {
    // The writer publishes the value `epoch` under each epoch, so a reader that
    // sees a value with another epoch has read a torn state.
    let slot = Arc::new(NodeSlot::new(32).unwrap());
    let stop = Arc::new(AtomicBool::new(false));
    // How many sets the writer has made, so that the readers run until it
    // has made enough, however the two cores are shared.
    let progress = Arc::new(AtomicU64::new(0));
    let writer = {
        let (slot, stop, progress) = (slot.clone(), stop.clone(), progress.clone());
        std::thread::spawn(move || {
            use rand_core::Rng;
            let mut rng = seeded(11);
            let (mut sets, mut losses) = (0u64, 0u64);
            while !stop.load(Ordering::Relaxed) {
                let r = rng.next_u64();
                if r.is_multiple_of(3) {
                    losses += 1;
                    let detail = format!("flip {losses}");
                    slot.lose(NodeLost::new(NodeLostKind::Conflict).with_detail(&detail));
                } else {
                    sets += 1;
                    assert_eq!(slot.set(sets).unwrap().epoch(), sets, "one epoch per set");
                    progress.store(sets, Ordering::Relaxed);
                }
                if r.is_multiple_of(64) {
                    std::thread::yield_now();
                }
            }
            (sets, losses)
        })
    };
    let readers: Vec<_> = (0..2)
        .map(|seed| {
            let (slot, progress) = (slot.clone(), progress.clone());
            std::thread::spawn(move || reader(&slot, seed, &progress))
        })
        .collect();
    let (mut losses, mut uuids) = (0, 0);
    for r in readers {
        let (l, u) = r.join().unwrap();
        losses += l;
        uuids += u;
    }
    stop.store(true, Ordering::Relaxed);
    let (sets, _) = writer.join().unwrap();
    assert!(
        losses > 0 && uuids > 0 && sets > 100,
        "{losses} losses seen, {uuids} UUIDs, {sets} sets"
    );
}

/// Generates from `slot` and reads it directly, checking both; returns
/// (losses seen, UUIDs made). It runs 200,000 rounds, and on until it has
/// seen a loss and made a UUID and the writer (`progress`) has made over 100
/// sets, so that a writer the scheduler starved is waited for rather than
/// failing the test; 50 million rounds at most.
fn reader(slot: &Arc<NodeSlot>, seed: u64, progress: &AtomicU64) -> (u64, u64) {
    let clock = ManualClock::new(T_A).with_resolution(1_000_000);
    let mut g = V8Distributed::builder()
        .node_source(slot.clone())
        .counter_bits(12)
        .build(&clock, seeded(seed))
        .unwrap();
    let (mut losses, mut uuids) = (0, 0);
    let mut last_epoch = 0u64;
    // The node of the last UUID made, and whether a loss was seen since.
    let (mut last_node, mut lost_since) = (0u64, false);
    for i in 0..50_000_000u64 {
        if i >= 200_000 && losses > 0 && uuids > 0 && progress.load(Ordering::Relaxed) > 100 {
            break;
        }
        match slot.current() {
            Ok(id) => {
                assert_eq!(id.value(), id.epoch(), "torn: {id:?}");
                assert!(id.epoch() >= last_epoch, "epochs never go back");
                last_epoch = id.epoch();
            }
            // Before the writer's first `set` the slot holds nothing yet;
            // after it, every loss is one the writer made.
            Err(lost) if last_epoch == 0 && lost.kind() == NodeLostKind::NotAcquired => {}
            Err(lost) => {
                assert_eq!(lost.kind(), NodeLostKind::Conflict);
                assert!(lost.detail().starts_with("flip "), "{lost:?}");
            }
        }
        match g.generate() {
            Ok(u) => {
                uuids += 1;
                let node = v8_node(u, 32);
                if lost_since {
                    // The lost node, and every older one, are gone for good.
                    assert!(node > last_node, "node {node} again after its loss");
                } else {
                    assert!(node >= last_node, "node {node} after {last_node}");
                }
                (last_node, lost_since) = (node, false);
            }
            Err(e) => {
                assert_eq!(e.kind(), GenErrorKind::NodeLost);
                losses += 1;
                lost_since = true;
            }
        }
        if i % 1_000 == 0 {
            clock.advance(MS);
        }
    }
    (losses, uuids)
}
