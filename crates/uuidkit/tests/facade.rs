//! The façade: uuidv47's published vectors and 100,000 values against its Rust
//! port (the `uuid47` crate, an independent implementation with its own
//! SipHash), round trips and refusals as properties, and the full mode's
//! statistical tests (rank correlation and per-bit chi-square), seeded so that
//! they give the same verdict on every run.

use proptest::prelude::*;
use rand_chacha::ChaCha12Rng;
use rand_core::{Rng, SeedableRng};
use uuidkit::clock::ManualClock;
use uuidkit::facade::{Facade, FacadeKey, FacadeMode};
use uuidkit::{Generator, Uuid, V7Generator, uuid};

/// The vector shared by every surface's tests (the library, the CLI, the
/// PostgreSQL extension, Python): uuidv47's demo (its `main.c`, whose output
/// its ports publish) with `k0 = 0x0123456789abcdef`, `k1 =
/// 0xfedcba9876543210`, as one key, and the full mode's façade under it.
const KEY_HEX: &str = "efcdab89674523011032547698badcfe";
const V7: Uuid = uuid!("018f2d9f-9a2a-7def-8c3f-7b1a2c4d5e6f");
const UUIDV47: Uuid = uuid!("2463c780-7fca-4def-8c3f-7b1a2c4d5e6f");
const FULL: Uuid = uuid!("20d59025-677f-4fbd-9e0a-a9812b2c8948");

fn key() -> FacadeKey {
    FacadeKey::parse_hex(KEY_HEX).unwrap()
}

fn both(key: &FacadeKey) -> [Facade; 2] {
    [
        Facade::new(key, FacadeMode::Uuidv47),
        Facade::new(key, FacadeMode::Full),
    ]
}

fn theirs_key(key: &FacadeKey) -> uuid47::UuidV47Key {
    let b = key.as_bytes();
    uuid47::UuidV47Key::new(
        u64::from_le_bytes(b[..8].try_into().unwrap()),
        u64::from_le_bytes(b[8..].try_into().unwrap()),
    )
}

fn theirs(u: Uuid) -> uuid47::Uuid128 {
    uuid47::Uuid128::from_bytes(u.into_bytes()).unwrap()
}

#[test]
fn the_shared_vector_in_both_modes() {
    let [v47, full] = both(&key());
    assert_eq!(v47.encode(V7).unwrap(), UUIDV47);
    assert_eq!(v47.decode(UUIDV47).unwrap(), V7);
    assert_eq!(full.encode(V7).unwrap(), FULL);
    assert_eq!(full.decode(FULL).unwrap(), V7);
}

/// uuidv47's SipHash-2-4 vector for a 10-byte message (key 00…0f, message
/// 00…09, `tests.c`) is the mask of the v7 whose random bits spell that
/// message, with timestamp 0: the façade's first 48 bits are its low 48 bits.
#[test]
fn the_reference_siphash_vector_is_the_mask() {
    let key = FacadeKey::from_bytes(core::array::from_fn(|i| i as u8));
    let f = Facade::new(&key, FacadeMode::Uuidv47);
    let v7 = uuid!("00000000-0000-7001-8203-040506070809");
    let sip = 0x7a5d_bbc5_94dd_b9f3_u64; // bytes f3 b9 dd 94 c5 bb 5d 7a
    let shown = f.encode(v7).unwrap();
    assert_eq!(shown.as_u128() >> 80, u128::from(sip & 0xFFFF_FFFF_FFFF));
    assert_eq!(shown, uuid!("bbc594dd-b9f3-4001-8203-040506070809"));
}

/// The reference's `tests.c` round trips: its 16 crafted v7s under its key
/// give v4 façades of the RFC variant that decode back, that a wrong key does
/// not decode, and that the port computes too.
#[test]
fn the_reference_round_trips() {
    let key = FacadeKey::parse_hex("efcdab89674523011032547698badcfe").unwrap();
    let wrong_k0 = 0x0123_4567_89ab_cdef_u64 ^ 0xdead_beef;
    let wrong_k1 = 0xfedc_ba98_7654_3210_u64 ^ 0x1337;
    let mut wrong = [0u8; 16];
    wrong[..8].copy_from_slice(&wrong_k0.to_le_bytes());
    wrong[8..].copy_from_slice(&wrong_k1.to_le_bytes());
    let f = Facade::new(&key, FacadeMode::Uuidv47);
    let g = Facade::new(&FacadeKey::from_bytes(wrong), FacadeMode::Uuidv47);
    for i in 0..16u64 {
        let ts = 0x10_0000 * i + 123;
        let ra = u128::from((0x0AAA ^ (i * 7)) & 0x0FFF);
        let rb =
            u128::from((0x0123_4567_89AB_CDEF ^ (0x1111_1111_1111_1111 * i)) & ((1 << 62) - 1));
        let v7 = Uuid::from_u128(u128::from(ts) << 80 | 7 << 76 | ra << 64 | 2 << 62 | rb);
        let shown = f.encode(v7).unwrap();
        assert_eq!(shown.version_nibble(), 4);
        assert_eq!(shown.variant(), uuidkit::Variant::Rfc9562);
        assert_eq!(f.decode(shown).unwrap(), v7);
        assert_ne!(g.decode(shown).unwrap(), v7);
        assert_eq!(
            theirs(shown),
            theirs(v7).encode_as_v4facade(&theirs_key(&key))
        );
    }
}

/// 100,000 random v7s, a new random key every 1,000: encode and decode agree
/// with the `uuid47` crate's, byte for byte.
#[test]
fn uuidv47_agrees_with_its_rust_port_on_100_000_values() {
    let mut rng = ChaCha12Rng::seed_from_u64(47);
    let mut checked = 0;
    for _ in 0..100 {
        let mut k = [0u8; 16];
        rng.fill_bytes(&mut k);
        let key = FacadeKey::from_bytes(k);
        let f = Facade::new(&key, FacadeMode::Uuidv47);
        let tk = theirs_key(&key);
        for _ in 0..1_000 {
            let x = u128::from(rng.next_u64()) << 64 | u128::from(rng.next_u64());
            let v7 = Uuid::from_u128(x & !(0xF << 76 | 3 << 62) | 7 << 76 | 2 << 62);
            let shown = f.encode(v7).unwrap();
            assert_eq!(
                theirs(shown),
                theirs(v7).encode_as_v4facade(&tk),
                "{v7} {k:02x?}"
            );
            assert_eq!(theirs(v7), theirs(shown).decode_from_v4facade(&tk));
            assert_eq!(f.decode(shown).unwrap(), v7);
            checked += 1;
        }
    }
    assert_eq!(checked, 100_000);
}

/// The full mode as docs/facade-design.md specifies it, computed here from
/// other code: the AES key is SipHash-2-4 (the `siphasher` crate) of the two
/// labels, and the façade is the `fpe` crate's FF1 (radix 2, empty tweak) of
/// the 122 bits in order, put back with version 4. The shared vector and
/// 1,000 random values under random keys agree.
#[test]
fn full_mode_is_ff1_under_the_derived_key() {
    use fpe::ff1::{FF1, FlexibleNumeralString};
    let reference = |key: &FacadeKey, v7: Uuid| -> Uuid {
        let sip = siphasher::sip::SipHasher24::new_with_key(key.as_bytes());
        let mut aes_key = [0u8; 16];
        aes_key[..8].copy_from_slice(&sip.hash(b"uuidkit facade full AES-128 key 0").to_le_bytes());
        aes_key[8..].copy_from_slice(&sip.hash(b"uuidkit facade full AES-128 key 1").to_le_bytes());
        let x = v7.as_u128();
        // Bit positions, most significant first, skipping version and variant.
        let positions: Vec<u32> = (0..128)
            .rev()
            .filter(|p| !(76..80).contains(p) && !(62..64).contains(p))
            .collect();
        let bits: Vec<u16> = positions.iter().map(|&p| ((x >> p) & 1) as u16).collect();
        let ff1 = FF1::<aes::Aes128>::new(&aes_key, 2).unwrap();
        let out = Vec::<u16>::from(
            ff1.encrypt(&[], &FlexibleNumeralString::from(bits))
                .unwrap(),
        );
        let y = positions
            .iter()
            .zip(out)
            .fold(4 << 76 | 2 << 62, |acc, (&p, b)| acc | u128::from(b) << p);
        Uuid::from_u128(y)
    };
    assert_eq!(reference(&key(), V7), FULL);
    let mut rng = ChaCha12Rng::seed_from_u64(0xFF1);
    for _ in 0..1_000 {
        let mut k = [0u8; 16];
        rng.fill_bytes(&mut k);
        let key = FacadeKey::from_bytes(k);
        let x = u128::from(rng.next_u64()) << 64 | u128::from(rng.next_u64());
        let v7 = Uuid::from_u128(x & !(0xF << 76 | 3 << 62) | 7 << 76 | 2 << 62);
        let full = Facade::new(&key, FacadeMode::Full);
        assert_eq!(full.encode(v7).unwrap(), reference(&key, v7));
    }
}

fn any_v7() -> impl Strategy<Value = Uuid> {
    any::<u128>().prop_map(|x| Uuid::from_u128(x & !(0xF << 76 | 3 << 62) | 7 << 76 | 2 << 62))
}

proptest! {
    #[test]
    fn decode_inverts_encode(k in any::<[u8; 16]>(), v7 in any_v7()) {
        for f in both(&FacadeKey::from_bytes(k)) {
            let shown = f.encode(v7).unwrap();
            prop_assert_eq!(shown.version_nibble(), 4);
            prop_assert_eq!(shown.variant(), uuidkit::Variant::Rfc9562);
            prop_assert_eq!(f.decode(shown).unwrap(), v7);
        }
    }

    /// Encode takes only v7s of the RFC variant, decode only v4s of it.
    #[test]
    fn every_other_uuid_is_refused(k in any::<[u8; 16]>(), x in any::<u128>()) {
        let u = Uuid::from_u128(x);
        let rfc = u.variant() == uuidkit::Variant::Rfc9562;
        for f in both(&FacadeKey::from_bytes(k)) {
            prop_assert_eq!(f.encode(u).is_ok(), rfc && u.version_nibble() == 7);
            prop_assert_eq!(f.decode(u).is_ok(), rfc && u.version_nibble() == 4);
            if let Err(e) = f.decode(u) {
                prop_assert_eq!(e.uuid(), u);
            }
        }
    }
}

/// `n` consecutive v7s from the default generator (Method 1: a counter
/// seeded each millisecond and incremented), 25 per millisecond.
fn consecutive_v7s(n: usize) -> Vec<Uuid> {
    let clock = ManualClock::new(1_700_000_000_000_000_000);
    let mut g = V7Generator::new(&clock, ChaCha12Rng::seed_from_u64(7));
    (0..n)
        .map(|_| {
            let u = g.generate().unwrap();
            clock.advance(40_000);
            u
        })
        .collect()
}

/// Spearman's rank correlation of the values with their positions, scaled
/// by √(n−1): under independence it is asymptotically standard normal.
fn spearman_z(values: &[u128]) -> f64 {
    let n = values.len();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&i| values[i]);
    let mut d2 = 0f64;
    for (rank, &i) in order.iter().enumerate() {
        let d = rank as f64 - i as f64;
        d2 += d * d;
    }
    let nf = n as f64;
    let rho = 1.0 - 6.0 * d2 / (nf * (nf * nf - 1.0));
    rho * (nf - 1.0).sqrt()
}

/// Two-sided 10⁻⁵ critical value of the standard normal.
const Z_CRIT: f64 = 4.417;

/// The 74 bits of `rand_a` and `rand_b` (where Method 1's counter is) as one
/// number.
fn random_field(x: u128) -> u128 {
    ((x >> 64) & 0xFFF) << 62 | (x & ((1 << 62) - 1))
}

/// The whole façade, and its random field where Method 1's counter is, in
/// the order the v7s were made: for the full mode neither correlates with
/// that order (|z| below the 10⁻⁵ critical value); for uuidv47 (the control,
/// which shows the random bits) the random field of each millisecond's 25
/// IDs does.
#[test]
fn full_mode_shows_no_order_of_consecutive_v7s() {
    let v7s = consecutive_v7s(20_000);
    let [v47, full] = both(&key());
    let shown: Vec<u128> = v7s
        .iter()
        .map(|&u| full.encode(u).unwrap().as_u128())
        .collect();
    let low = |x: &u128| random_field(*x);
    let z_all = spearman_z(&shown);
    let z_low = spearman_z(&shown.iter().map(low).collect::<Vec<_>>());
    eprintln!(
        "full mode, 20,000 consecutive v7s: z = {z_all:.3} (whole), {z_low:.3} (random field)"
    );
    assert!(z_all.abs() < Z_CRIT, "whole façade: z = {z_all}");
    assert!(z_low.abs() < Z_CRIT, "random field: z = {z_low}");

    // The control: within one millisecond (25 IDs, ranked among themselves
    // and averaged over 800 milliseconds) the uuidv47 façade's low bits are
    // in the order the IDs were made.
    let (mut z_ms, mut z_ms47) = (0f64, 0f64);
    for ms in v7s.chunks(25) {
        assert!(ms.iter().all(|u| u.unix_ts_ms() == ms[0].unix_ts_ms()));
        let low47: Vec<u128> = ms
            .iter()
            .map(|&u| low(&v47.encode(u).unwrap().as_u128()))
            .collect();
        let lowfull: Vec<u128> = ms
            .iter()
            .map(|&u| low(&full.encode(u).unwrap().as_u128()))
            .collect();
        z_ms47 += spearman_z(&low47);
        z_ms += spearman_z(&lowfull);
    }
    // The sum of 800 independent (nearly) standard normals, over √800.
    let z_ms = z_ms / (800f64).sqrt();
    let z_ms47 = z_ms47 / (800f64).sqrt();
    eprintln!("within milliseconds: z = {z_ms:.3} (full), {z_ms47:.3} (uuidv47)");
    assert!(z_ms47 > Z_CRIT, "uuidv47 shows the counter: z = {z_ms47}");
    assert!(
        z_ms.abs() < Z_CRIT,
        "full mode within milliseconds: z = {z_ms}"
    );
}

/// Each of the 122 bits that are not version or variant is 1 in about half
/// of 20,000 façades of consecutive v7s: the chi-square statistic (1 degree
/// of freedom) of each stays under 19.89, the critical value at 10⁻³/122 (a
/// 10⁻³ family-wise level, Bonferroni); version and variant are always 4
/// and RFC 9562.
#[test]
fn full_mode_bits_are_uniform() {
    let v7s = consecutive_v7s(20_000);
    let full = Facade::new(&key(), FacadeMode::Full);
    let mut ones = [0u32; 128];
    for &u in &v7s {
        let x = full.encode(u).unwrap();
        assert_eq!(x.version_nibble(), 4);
        assert_eq!(x.variant(), uuidkit::Variant::Rfc9562);
        for (bit, count) in ones.iter_mut().enumerate() {
            *count += ((x.as_u128() >> bit) & 1) as u32;
        }
    }
    let n = v7s.len() as f64;
    let mut worst = (0f64, 0);
    for (bit, &c) in ones.iter().enumerate() {
        if (62..64).contains(&bit) || (76..80).contains(&bit) {
            continue;
        }
        let chi2 = (2.0 * f64::from(c) - n).powi(2) / n;
        if chi2 > worst.0 {
            worst = (chi2, bit);
        }
    }
    eprintln!(
        "full mode: largest per-bit chi-square {:.2} (bit {})",
        worst.0, worst.1
    );
    assert!(
        worst.0 < 19.89,
        "bit {} has chi-square {}",
        worst.1,
        worst.0
    );
    // The control: the v7s themselves fail (their time bits are constant).
    let top = v7s.iter().filter(|u| u.as_u128() >> 127 == 1).count();
    assert!(top == 0 || top == v7s.len());
}
