//! RFC 9562 Appendix A.1, A.3, A.5, A.6 and B.1 reproduced by the generators from
//! their inputs.

use crate::gen_support::{NODE_A, Script, T_A};
use uuidkit::clock::ManualClock;
use uuidkit::generator::V7Method;
use uuidkit::{Generator, Uuid, V1Generator, V6Generator, V7Generator, V8TimeGenerator};

#[test]
fn a1_v1_from_time_clock_seq_and_node() {
    let clock = ManualClock::new(T_A);
    let mut g = V1Generator::builder()
        .node(NODE_A)
        .clock_seq(0x33C8)
        .build(&clock, Script::new(&[1, 2]))
        .unwrap();
    let u = g.generate().unwrap();
    assert_eq!(u.as_u128(), 0xC232AB00_9414_11EC_B3C8_9F6BDECED846);
    assert_eq!(g.state().timestamp, 0x1EC9414C232AB00);
}

#[test]
fn a5_v6_from_time_clock_seq_and_node() {
    let clock = ManualClock::new(T_A);
    let mut g = V6Generator::builder()
        .node(NODE_A)
        .clock_seq(0x33C8)
        .build(&clock, Script::new(&[1, 2]))
        .unwrap();
    assert_eq!(
        g.generate().unwrap().as_u128(),
        0x1EC9414C_232A_6B00_B3C8_9F6BDECED846
    );
    // The same through `at`, on a fresh generator.
    let mut g = V6Generator::builder()
        .node(NODE_A)
        .clock_seq(0x33C8)
        .build(ManualClock::new(0), Script::new(&[1, 2]))
        .unwrap();
    assert_eq!(
        g.at(T_A).unwrap().as_u128(),
        0x1EC9414C_232A_6B00_B3C8_9F6BDECED846
    );
}

#[test]
fn a6_v7_method1_with_the_vector_random_bits() {
    // A 12-bit counter (rand_a) without guard bits, seeded with A.6's rand_a, then
    // 62 random bits: A.6's rand_b.
    let clock = ManualClock::new(T_A);
    let mut g = V7Generator::builder()
        .method(V7Method::Counter { bits: 12 })
        .guard_bits(0)
        .build(&clock, Script::new(&[0xCC3, 0x18C4DC0C0C07398F]))
        .unwrap();
    assert_eq!(
        g.generate().unwrap().as_u128(),
        0x017F22E2_79B0_7CC3_98C4_DC0C0C07398F
    );
}

#[test]
fn a6_v7_method2_with_the_vector_random_bits() {
    // Method 2 seeds all 74 bits: rand_a ‖ rand_b = 0xCC3 << 62 | 0x18C4DC0C0C07398F.
    let field: u128 = (0xCC3u128 << 62) | 0x18C4DC0C0C07398F;
    let mut g = V7Generator::builder()
        .method(V7Method::MonotonicRandom { increment_bits: 16 })
        .guard_bits(0)
        .build(
            ManualClock::new(0),
            Script::new(&[(field >> 64) as u64, field as u64]),
        )
        .unwrap();
    assert_eq!(
        g.at(T_A).unwrap().as_u128(),
        0x017F22E2_79B0_7CC3_98C4_DC0C0C07398F
    );
}

#[test]
fn a3_v4_from_random_bytes() {
    let u = Uuid::from_random_bytes(0x919108F752D133205BACF847DB4148A8u128.to_be_bytes());
    assert_eq!(u.as_u128(), 0x919108f7_52d1_4320_9bac_f847db4148a8);
    let mut rng = Script::new(&[0x919108F752D13320, 0x5BACF847DB4148A8]);
    assert_eq!(
        Uuid::new_v4_from_rng(&mut rng).as_u128(),
        0x919108f7_52d1_4320_9bac_f847db4148a8
    );
}

#[test]
fn b1_v8_time_based() {
    // 64-bit Unix time in 10-ns units 0x2489E9AD2EE2E00, random custom_c.
    let clock = ManualClock::new(T_A);
    let mut g = V8TimeGenerator::new(&clock, Script::new(&[0x0EC932D5F69181C0]));
    assert_eq!(
        g.generate().unwrap().as_u128(),
        0x2489E9AD_2EE2_8E00_8EC9_32D5F69181C0
    );
    assert_eq!(
        Uuid::new_v8_time(0x2489E9AD2EE2E00, 0x0EC932D5F69181C0).as_u128(),
        0x2489E9AD_2EE2_8E00_8EC9_32D5F69181C0
    );
}
