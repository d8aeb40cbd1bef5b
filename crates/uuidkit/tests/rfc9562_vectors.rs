//! Every RFC 9562 test vector reachable without a clock, Figures 1–4, and a
//! test per field row of the §5 layouts that would catch a bit-position mistake.
//! Expected values are the RFC's final strings; where the RFC's prose and its
//! vectors disagree these tests follow the math.

use uuidkit::layout::Fields;
use uuidkit::{NameHash, Uuid, Variant, Version, namespace};

const NAME: &[u8] = b"www.example.com";
const NODE: [u8; 6] = [0x9F, 0x6B, 0xDE, 0xCE, 0xD8, 0x46];
/// Appendix A's timestamp: 2022-02-22T19:22:22Z as 100-ns since 1582-10-15.
const TS60: u64 = 0x1EC9414C232AB00;
const UNIX_NS: i128 = 1_645_557_742_000_000_000;

fn p(s: &str) -> Uuid {
    Uuid::parse_strict(s).unwrap()
}

// ---- Figures 1-4 -------------------------------------------------------------

#[test]
fn figures_1_to_4_one_uuid_in_four_notations() {
    let u = p("f81d4fae-7dec-11d0-a765-00a0c91e6bf6");
    // Figure 3: as an integer.
    assert_eq!(u.as_u128(), 329800735698586629295641978511506172918);
    assert_eq!(Uuid::from_u128(329800735698586629295641978511506172918), u);
    // Figure 2: as 128 bits, MSB first.
    let bits: String = u.as_bytes().iter().map(|b| format!("{b:08b}")).collect();
    assert!(bits.starts_with("11111000000111010100111110101110"));
    assert!(bits.ends_with("0110101111110110"));
    assert_eq!(bits.len(), 128);
    // Figure 4: the URN.
    assert_eq!(
        u.urn().to_string(),
        "urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6"
    );
    assert_eq!(
        Uuid::parse("urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6").unwrap(),
        u
    );
    // Network byte order, not the little-endian GUID order.
    assert_eq!(
        u.as_bytes(),
        &[
            0xf8, 0x1d, 0x4f, 0xae, 0x7d, 0xec, 0x11, 0xd0, 0xa7, 0x65, 0x00, 0xa0, 0xc9, 0x1e,
            0x6b, 0xf6
        ]
    );
    assert_eq!(
        u.to_bytes_le()[..8],
        [0xae, 0x4f, 0x1d, 0xf8, 0xec, 0x7d, 0xd0, 0x11]
    );
    assert_eq!(Uuid::from_bytes_le(u.to_bytes_le()), u);
}

// ---- Appendix A and B --------------------------------------------------------

#[test]
fn a1_v1_fields_decode() {
    let u = p("C232AB00-9414-11EC-B3C8-9F6BDECED846");
    assert_eq!(u.version(), Some(Version::Mac));
    assert_eq!(u.variant(), Variant::Rfc9562);
    let f = u.fields();
    assert_eq!(
        (f.time_low, f.time_mid, f.time_hi_and_version),
        (0xC232AB00, 0x9414, 0x11EC)
    );
    assert_eq!(f.clock_seq, 0xB3C8);
    assert_eq!(u.gregorian_timestamp(), Some(TS60));
    assert_eq!(u.clock_seq(), Some(0x33C8));
    assert_eq!(u.node(), Some(NODE));
    assert_eq!(u.unix_nanos(), Some(UNIX_NS));
    assert_eq!(Uuid::new_v1_from_parts(TS60, 0x33C8, NODE), u);
}

#[test]
fn a2_v3_md5() {
    let u = Uuid::new_v3(&namespace::DNS, NAME);
    assert_eq!(u, p("5df41881-3aed-3515-88a7-2f4a814cf09e"));
    assert_eq!(u.version(), Some(Version::Md5));
    assert_eq!(u.variant(), Variant::Rfc9562);
}

#[test]
fn a3_v4_from_random_bytes() {
    let random = 0x919108F752D133205BACF847DB4148A8_u128.to_be_bytes();
    let u = Uuid::from_random_bytes(random);
    assert_eq!(u, p("919108f7-52d1-4320-9bac-f847db4148a8"));
    assert_eq!(u.version(), Some(Version::Random));
}

#[test]
fn a4_v5_sha1() {
    let u = Uuid::new_v5(&namespace::DNS, NAME);
    assert_eq!(u, p("2ed6657d-e927-568b-95e1-2665a8aea6a2"));
    assert_eq!(u.version(), Some(Version::Sha1));
}

#[test]
fn a1_to_a5_and_back_v1_v6_conversion() {
    let a1 = p("C232AB00-9414-11EC-B3C8-9F6BDECED846");
    let a5 = p("1EC9414C-232A-6B00-B3C8-9F6BDECED846");
    assert_eq!(a1.to_v6(), Some(a5));
    assert_eq!(a5.to_v1(), Some(a1));
    assert_eq!(a5.gregorian_timestamp(), Some(TS60));
    assert_eq!(a5.clock_seq(), Some(0x33C8));
    assert_eq!(a5.node(), Some(NODE));
    assert_eq!(a5.unix_nanos(), Some(UNIX_NS));
    // Only time-based versions convert.
    assert_eq!(Uuid::new_v5(&namespace::DNS, NAME).to_v6(), None);
    assert_eq!(Uuid::NIL.to_v1(), None);
}

#[test]
fn a6_v7_fields_decode() {
    let u = p("017F22E2-79B0-7CC3-98C4-DC0C0C07398F");
    assert_eq!(u.version(), Some(Version::SortRand));
    assert_eq!(u.unix_ts_ms(), Some(0x017F22E279B0));
    assert_eq!(u.unix_ts_ms(), Some(1645557742000));
    assert_eq!(u.rand_a(), Some(0xCC3));
    assert_eq!(u.rand_b(), Some(0x18C4DC0C0C07398F));
    assert_eq!(u.unix_nanos(), Some(UNIX_NS));
    assert_eq!(
        Uuid::new_v7_from_parts(0x017F22E279B0, 0xCC3, 0x18C4DC0C0C07398F),
        u
    );
    assert_eq!(
        u.system_time(),
        Some(std::time::UNIX_EPOCH + std::time::Duration::from_millis(1645557742000))
    );
}

#[test]
fn b1_v8_time_based_fields() {
    let u = p("2489E9AD-2EE2-8E00-8EC9-32D5F69181C0");
    assert_eq!(u.version(), Some(Version::Custom));
    assert_eq!(u.variant(), Variant::Rfc9562);
    assert_eq!(
        Uuid::new_v8_from_parts(0x2489E9AD2EE2, 0xE00, 0x0EC932D5F69181C0),
        u
    );
    // custom_a / custom_b / custom_c as bits 0-47, 52-63, 66-127.
    let x = u.as_u128();
    assert_eq!(x >> 80, 0x2489E9AD2EE2);
    assert_eq!((x >> 64) & 0xfff, 0xE00);
    assert_eq!(x & ((1 << 62) - 1), 0x0EC932D5F69181C0);
    // v8 has no timestamp that uuidkit could interpret.
    assert_eq!(u.unix_nanos(), None);
}

#[test]
fn b2_v8_name_sha256() {
    let u = Uuid::new_v8_name(NameHash::Sha256, &namespace::DNS, NAME);
    assert_eq!(u, p("5c146b14-3c52-8afd-938a-375d0df1fbf6"));
    // Defect D5: the RFC's custom_c row says "0b00, 0x38a375d0df1fbf6"; the
    // bits (octet 8 = 0x93 = 10 01 0011) make it 0b01.
    assert_eq!(u.as_u128() & ((1 << 62) - 1), 0x138a375d0df1fbf6);
    assert_eq!(u.version(), Some(Version::Custom));
}

#[test]
fn v8_name_other_hashes_match_their_definitions() {
    // Leftmost 128 bits of each hash of DNS ‖ "www.example.com", ver/var set.
    // Digests from Python's hashlib (sha512, sha3_256, sha3_512, shake_128(16), shake_256(16)).
    let cases = [
        (NameHash::Sha512, "94ee4ddb-9f36-8018-9ccf-86a4441691e0"),
        (NameHash::Sha3_256, "fc506eca-a1f4-8315-87c8-c71449dfd324"),
        (NameHash::Sha3_512, "83120d41-2935-8110-964c-6bd77c735fbc"),
        (NameHash::Shake128, "54e7e64f-0dba-8913-8b69-cd3dbf220c7a"),
        (NameHash::Shake256, "10e1aa77-4f8c-8a0f-be35-354cc01a76ac"),
    ];
    for (hash, expected) in cases {
        let u = Uuid::new_v8_name(hash, &namespace::DNS, NAME);
        assert_eq!(u.to_string(), expected, "{hash:?}");
        assert_eq!(u.version(), Some(Version::Custom));
    }
}

#[test]
fn namespace_ids_are_byte_exact_and_813_is_absent() {
    assert_eq!(namespace::DNS, p("6ba7b810-9dad-11d1-80b4-00c04fd430c8"));
    assert_eq!(namespace::URL, p("6ba7b811-9dad-11d1-80b4-00c04fd430c8"));
    assert_eq!(namespace::OID, p("6ba7b812-9dad-11d1-80b4-00c04fd430c8"));
    assert_eq!(namespace::X500, p("6ba7b814-9dad-11d1-80b4-00c04fd430c8"));
    // The DNS namespace ID is itself a v1 UUID (1998-02-04, node 00c04fd430c8).
    assert_eq!(namespace::DNS.version(), Some(Version::Mac));
    assert_eq!(
        namespace::DNS.node(),
        Some([0x00, 0xc0, 0x4f, 0xd4, 0x30, 0xc8])
    );
}

#[test]
fn name_based_is_deterministic_and_separates_names_and_namespaces() {
    let a = Uuid::new_v5(&namespace::DNS, NAME);
    assert_eq!(a, Uuid::new_v5(&namespace::DNS, NAME));
    assert_ne!(a, Uuid::new_v5(&namespace::URL, NAME));
    assert_ne!(a, Uuid::new_v5(&namespace::DNS, b"www.example.com."));
    // Names are raw bytes: NUL and non-UTF-8 are fine and not normalised.
    assert_ne!(
        Uuid::new_v5(&namespace::OID, b"\x00\xff"),
        Uuid::new_v5(&namespace::OID, b"\x00\xfe")
    );
    // RFC 4122 Appendix B's name; its published e902893a-… is wrong (it skips
    // the byte-order conversions); Python's uuid.uuid3 agrees with this value.
    assert_eq!(
        Uuid::new_v3(&namespace::DNS, b"www.widgets.com").to_string(),
        "3d813cbb-47fb-32ba-91df-831e1593ac29"
    );
}

// ---- §4.1 variant, §4.2 version, §5.9/5.10 Nil and Max -------------------------

#[test]
fn variant_of_every_value_of_octet_8() {
    for b in 0..=255u8 {
        let mut bytes = [0u8; 16];
        bytes[8] = b;
        let expected = match b >> 4 {
            0..=7 => Variant::Ncs, // Table 1 prints "1-7" (D2); Nil has 0
            8..=0xb => Variant::Rfc9562,
            0xc | 0xd => Variant::Microsoft,
            _ => Variant::Future,
        };
        assert_eq!(
            Uuid::from_bytes(bytes).variant(),
            expected,
            "octet 8 = {b:#04x}"
        );
    }
    assert_eq!(Uuid::NIL.variant(), Variant::Ncs);
    assert_eq!(Uuid::MAX.variant(), Variant::Future);
    assert_eq!(
        p("00000000-0000-4000-C000-000000000000").variant(),
        Variant::Microsoft
    );
}

#[test]
fn version_only_for_the_rfc_variant_and_defined_values() {
    for v in 0..16u8 {
        let mut bytes = [0u8; 16];
        bytes[6] = v << 4;
        bytes[8] = 0x80;
        let u = Uuid::from_bytes(bytes);
        assert_eq!(u.version_nibble(), v);
        assert_eq!(
            u.version().map(Version::number),
            if (1..=8).contains(&v) { Some(v) } else { None }
        );
        bytes[8] = 0x40; // NCS: no version
        assert_eq!(Uuid::from_bytes(bytes).version(), None);
    }
    for c in ['8', '9', 'A', 'B'] {
        let u = p(&format!("00000000-0000-4000-{c}000-000000000000"));
        assert_eq!(
            (u.version(), u.variant()),
            (Some(Version::Random), Variant::Rfc9562)
        );
    }
    assert_eq!(Uuid::NIL.version(), None);
    assert_eq!(Uuid::MAX.version(), None);
}

#[test]
fn nil_and_max() {
    assert_eq!(
        Uuid::NIL.to_string(),
        "00000000-0000-0000-0000-000000000000"
    );
    assert_eq!(
        Uuid::MAX.to_string(),
        "ffffffff-ffff-ffff-ffff-ffffffffffff"
    );
    assert_eq!(p("FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF"), Uuid::MAX);
    assert_eq!(Uuid::default(), Uuid::NIL);
    assert!(Uuid::NIL.is_nil() && Uuid::MAX.is_max());
    assert!(Uuid::NIL < Uuid::from_u128(1) && Uuid::from_u128(u128::MAX - 1) < Uuid::MAX);
}

// ---- §5 field layouts: one test per row ---------------------------------------

/// Sets one field to all ones through the constructor and checks the exact
/// bits, then decodes it back: a shift or width mistake in either breaks it.
#[test]
fn v1_rows_time_low_time_mid_time_high_clock_seq_node() {
    let base = 0x0000_0000_0000_1000_8000_0000_0000_0000_u128;
    let v1 = |ts: u64, cs: u16, node: [u8; 6]| Uuid::new_v1_from_parts(ts, cs, node);
    // time_low: octets 0-3 = ts60[31:0]
    assert_eq!(
        v1(0xFFFF_FFFF, 0, [0; 6]).as_u128(),
        base | 0xFFFF_FFFF << 96
    );
    // time_mid: octets 4-5 = ts60[47:32]
    assert_eq!(v1(0xFFFF << 32, 0, [0; 6]).as_u128(), base | 0xFFFF << 80);
    // time_high: bits 52-63 = ts60[59:48], the MOST significant bits (D1)
    assert_eq!(v1(0xFFF << 48, 0, [0; 6]).as_u128(), base | 0xFFF << 64);
    assert_eq!(v1(1 << 59, 0, [0; 6]).as_u128(), base | 0x800 << 64);
    // clock_seq: bits 66-79
    assert_eq!(v1(0, 0x3FFF, [0; 6]).as_u128(), base | 0x3FFF << 48);
    // node: bits 80-127
    assert_eq!(v1(0, 0, [0xFF; 6]).as_u128(), base | 0xFFFF_FFFF_FFFF);
    for ts in [0xFFFF_FFFF, 0xFFFF << 32, 0xFFF << 48, 1 << 59, TS60] {
        assert_eq!(v1(ts, 0, [0; 6]).gregorian_timestamp(), Some(ts));
    }
}

#[test]
fn v6_rows_time_high_time_mid_time_low_clock_seq_node() {
    let base = 0x0000_0000_0000_6000_8000_0000_0000_0000_u128;
    let v6 = |ts: u64| Uuid::new_v6_from_parts(ts, 0, [0; 6]);
    // time_high: octets 0-3 = ts60[59:28]
    assert_eq!(v6(0xFFFF_FFFF << 28).as_u128(), base | 0xFFFF_FFFF << 96);
    // time_mid: octets 4-5 = ts60[27:12]
    assert_eq!(v6(0xFFFF << 12).as_u128(), base | 0xFFFF << 80);
    // time_low: bits 52-63 = ts60[11:0] (labelled "time_high" in A.5: D4)
    assert_eq!(v6(0xFFF).as_u128(), base | 0xFFF << 64);
    assert_eq!(
        Uuid::new_v6_from_parts(0, 0x3FFF, [0; 6]).as_u128(),
        base | 0x3FFF << 48
    );
    assert_eq!(
        Uuid::new_v6_from_parts(0, 0, [0xFF; 6]).as_u128(),
        base | 0xFFFF_FFFF_FFFF
    );
    for ts in [0xFFFF_FFFF << 28, 0xFFFF << 12, 0xFFF, TS60] {
        assert_eq!(v6(ts).gregorian_timestamp(), Some(ts));
    }
    // Byte order is time order.
    assert!(v6(TS60) < v6(TS60 + 1) && v6(0xFFF) < v6(0x1000));
}

#[test]
fn v7_rows_unix_ts_ms_rand_a_rand_b() {
    let base = 0x0000_0000_0000_7000_8000_0000_0000_0000_u128;
    let ms = Uuid::new_v7_from_parts((1 << 48) - 1, 0, 0);
    assert_eq!(ms.as_u128(), base | ((1 << 48) - 1) << 80);
    assert_eq!(ms.to_string(), "ffffffff-ffff-7000-8000-000000000000");
    assert_eq!(ms.unix_ts_ms(), Some((1 << 48) - 1));
    let a = Uuid::new_v7_from_parts(0, 0xFFF, 0);
    assert_eq!(a.as_u128(), base | 0xFFF << 64);
    assert_eq!(a.rand_a(), Some(0xFFF));
    let b = Uuid::new_v7_from_parts(0, 0, (1 << 62) - 1);
    assert_eq!(b.as_u128(), base | ((1 << 62) - 1));
    assert_eq!(b.rand_b(), Some((1 << 62) - 1));
    assert_eq!(
        (a.unix_ts_ms(), a.rand_b(), b.rand_a()),
        (Some(0), Some(0), Some(0))
    );
}

#[test]
fn v3_v5_v8_rows_version_and_variant_overwrite_only_their_bits() {
    // md5/sha1 high = bits 0-47, mid = 52-63, low = 66-127: everything but the
    // six fixed bits comes from the hash.
    let md5 = 0x5df418813aed051548a72f4a814cf09e_u128;
    let v3 = Uuid::new_v3(&namespace::DNS, NAME).as_u128();
    let fixed = 0xF << 76 | 0b11 << 62;
    assert_eq!(v3 & !fixed, md5 & !fixed);
    let sha1 = 0x2ed6657de927468b55e12665a8aea6a2_u128;
    let v5 = Uuid::new_v5(&namespace::DNS, NAME).as_u128();
    assert_eq!(v5 & !fixed, sha1 & !fixed);
    assert_eq!(Uuid::new_v8([0; 16]).as_u128(), 0x8 << 76 | 0b10 << 62);
    assert_eq!(
        Uuid::new_v8([0xff; 16]).as_u128(),
        !(0x7 << 76 | 0b01 << 62)
    );
}

#[test]
fn from_fields_round_trips_every_field_position() {
    let f = Fields {
        time_low: 0x01020304,
        time_mid: 0x0506,
        time_hi_and_version: 0x0708,
        clock_seq: 0x090a,
        node: [11, 12, 13, 14, 15, 16],
    };
    let u = f.to_uuid();
    assert_eq!(
        u.as_bytes(),
        &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]
    );
    assert_eq!(u.fields(), f);
    // The `uuid` crate's four-field split of the same bytes.
    let d4 = [9, 10, 11, 12, 13, 14, 15, 16];
    assert_eq!(Uuid::from_fields(0x01020304, 0x0506, 0x0708, &d4), u);
    assert_eq!(u.as_fields(), (0x01020304, 0x0506, 0x0708, &d4));
}

#[test]
fn timestamps_at_the_ends_of_their_ranges() {
    // ts60 = 0 is 1582-10-15T00:00:00Z.
    let first = Uuid::new_v1_from_parts(0, 0, [0; 6]);
    assert_eq!(first.unix_nanos(), Some(-122192928000000000 * 100));
    assert_eq!(
        first.system_time(),
        std::time::UNIX_EPOCH.checked_sub(std::time::Duration::from_secs(12219292800))
    );
    // The last 60-bit value ends in 5236 (D3: the RFC says 5623).
    let last = Uuid::new_v6_from_parts((1 << 60) - 1, 0, [0; 6]);
    let secs = last.unix_nanos().unwrap() / 1_000_000_000;
    assert_eq!(secs, 103072857660); // 5236-03-31T21:21:00Z
}
