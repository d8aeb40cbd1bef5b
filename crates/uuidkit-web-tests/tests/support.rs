//! The values every module puts through both types.

/// UUIDs whose bytes tell a byte-order mistake from the right answer: no
/// two halves, words or bytes are alike, plus the Nil and Max UUIDs.
pub const SAMPLES: [u128; 4] = [
    0x0011_2233_4455_6677_8899_aabb_ccdd_eeff,
    0xf81d_4fae_7dec_11d0_a765_00a0_c91e_6bf6,
    0,
    u128::MAX,
];

/// Each sample as both types, of the same 16 bytes.
pub fn pairs() -> impl Iterator<Item = (uuid::Uuid, uuidkit::Uuid)> {
    SAMPLES
        .into_iter()
        .map(|v| (uuid::Uuid::from_u128(v), uuidkit::Uuid::from_u128(v)))
}
