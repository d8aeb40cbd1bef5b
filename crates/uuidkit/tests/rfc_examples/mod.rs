//! The example UUIDs of RFC 9562, shared by the test files that need every
//! one of them (`mod rfc_examples;`). Each is checked against its
//! derivation in `rfc9562_vectors.rs`.

/// Every example UUID of RFC 9562 (§4, Appendix A.1–A.6, B.1, B.2), Nil and Max.
pub const VECTORS: [(&str, u128); 11] = [
    ("§4", 0xf81d4fae_7dec_11d0_a765_00a0c91e6bf6),
    ("A.1 v1", 0xC232AB00_9414_11EC_B3C8_9F6BDECED846),
    ("A.2 v3", 0x5df41881_3aed_3515_88a7_2f4a814cf09e),
    ("A.3 v4", 0x919108f7_52d1_4320_9bac_f847db4148a8),
    ("A.4 v5", 0x2ed6657d_e927_568b_95e1_2665a8aea6a2),
    ("A.5 v6", 0x1EC9414C_232A_6B00_B3C8_9F6BDECED846),
    ("A.6 v7", 0x017F22E2_79B0_7CC3_98C4_DC0C0C07398F),
    ("B.1 v8", 0x2489E9AD_2EE2_8E00_8EC9_32D5F69181C0),
    ("B.2 v8", 0x5c146b14_3c52_8afd_938a_375d0df1fbf6),
    ("Nil", 0),
    ("Max", u128::MAX),
];
