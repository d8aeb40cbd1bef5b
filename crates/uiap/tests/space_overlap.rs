//! Overlap and order (§3.2.4, docs/uiap-design.md D6–D8) against a brute-force model on bit
//! strings.
//!
//! The model: a UID is a `Vec<bool>`. J = 0 orders bit strings lexicographically with a proper
//! prefix smaller (exactly `Vec<bool>`'s `Ord`); J = 1 orders by bit length, then value. A space
//! is the set of universe members it contains, computed element by element; two spaces overlap
//! iff those sets intersect. The universe is every bit string of length 0..=10 (2047 strings).
//!
//! Checking every pair of spaces over that universe is 4·10^12 pairs for ranges, so the pairs are
//! split by kind (every pair at each size below is checked, in both argument orders):
//!
//! | pair kinds                               | endpoint lengths | pairs per J |
//! |------------------------------------------|------------------|-------------|
//! | unique × unique, unique × prefix, prefix × prefix | 0..=10  | 3 × 2047² (J = 0) |
//! | range × unique, range × prefix           | range 0..=6, other 0..=10 | 8128 × 2047 each |
//! | every kind × every kind                  | 0..=6            | ≈ 8382² / 2 |
//!
//! Membership is always computed over the full 10-bit universe, so a space whose endpoints are
//! short still has all its longer members in the model.

use std::cmp::Ordering;

use uiap::space::{DomainId, Justification, Uid, UidSpace, conflicts};

const MAX_BITS: usize = 10;

/// Every bit string of length 0..=max_bits, shortest first.
fn universe(max_bits: usize) -> Vec<Vec<bool>> {
    let mut all = Vec::new();
    for len in 0..=max_bits {
        for v in 0u32..(1 << len) {
            all.push((0..len).rev().map(|i| (v >> i) & 1 == 1).collect());
        }
    }
    all
}

/// The model order.
fn model_cmp(a: &[bool], b: &[bool], j: Justification) -> Ordering {
    match j {
        Justification::Left => a.cmp(b),
        Justification::Right => a.len().cmp(&b.len()).then_with(|| a.cmp(b)),
    }
}

/// The bit string as a canonical `Uid` of justification `j`.
fn to_uid(bits: &[bool], j: Justification) -> Uid {
    let len = bits.len().div_ceil(8);
    let mut bytes = vec![0u8; len];
    // Left: bit i is bit i from the start. Right: the bits end at the last bit of the last octet.
    let offset = match j {
        Justification::Left => 0,
        Justification::Right => 8 * len - bits.len(),
    };
    for (i, &bit) in bits.iter().enumerate() {
        if bit {
            let k = offset + i;
            bytes[k / 8] |= 0x80 >> (k % 8);
        }
    }
    Uid::with_justification(&bytes, bits.len() as u16, j).unwrap()
}

#[derive(Clone, Debug)]
enum Model {
    Unique(usize),
    Prefix(usize),
    Range(usize, usize),
}

/// One space: the implementation's value and the model's member set over the universe.
struct Case {
    model: Model,
    space: UidSpace,
    members: Vec<u64>,
}

struct World {
    j: Justification,
    strings: Vec<Vec<bool>>,
    uids: Vec<Uid>,
}

impl World {
    fn new(j: Justification) -> World {
        let strings = universe(MAX_BITS);
        let uids = strings.iter().map(|s| to_uid(s, j)).collect();
        World { j, strings, uids }
    }

    /// Indices of the strings of length <= max_bits (they come first).
    fn upto(&self, max_bits: usize) -> std::ops::Range<usize> {
        0..(1usize << (max_bits + 1)) - 1
    }

    fn contains(&self, model: &Model, x: &[bool]) -> bool {
        let s = &self.strings;
        match *model {
            Model::Unique(v) => s[v] == x,
            Model::Prefix(p) => x.starts_with(&s[p]),
            Model::Range(lo, hi) => {
                model_cmp(&s[lo], x, self.j) != Ordering::Greater
                    && model_cmp(x, &s[hi], self.j) != Ordering::Greater
            }
        }
    }

    fn case(&self, model: Model) -> Case {
        let mut members = vec![0u64; self.strings.len().div_ceil(64)];
        for (i, x) in self.strings.iter().enumerate() {
            if self.contains(&model, x) {
                members[i / 64] |= 1 << (i % 64);
            }
        }
        let u = |i: usize| self.uids[i].clone();
        let space = match model {
            Model::Unique(v) => UidSpace::Unique(u(v)),
            Model::Prefix(p) => UidSpace::Prefix(u(p)),
            Model::Range(lo, hi) => UidSpace::Range {
                low: u(lo),
                high: u(hi),
            },
        };
        Case {
            model,
            space,
            members,
        }
    }

    fn uniques(&self, max_bits: usize) -> Vec<Case> {
        self.upto(max_bits)
            .map(|v| self.case(Model::Unique(v)))
            .collect()
    }

    fn prefixes(&self, max_bits: usize) -> Vec<Case> {
        self.upto(max_bits)
            .map(|p| self.case(Model::Prefix(p)))
            .collect()
    }

    /// Every range lo <= hi (model order) with both ends of at most max_bits bits.
    fn ranges(&self, max_bits: usize) -> Vec<Case> {
        let mut out = Vec::new();
        for lo in self.upto(max_bits) {
            for hi in self.upto(max_bits) {
                if model_cmp(&self.strings[lo], &self.strings[hi], self.j) != Ordering::Greater {
                    out.push(self.case(Model::Range(lo, hi)));
                }
            }
        }
        out
    }

    /// Checks overlaps() in both orders against the model for every pair from `a` × `b`;
    /// returns (pairs checked, pairs overlapping).
    fn check_pairs(&self, a: &[Case], b: &[Case]) -> (u64, u64) {
        let (mut pairs, mut hits) = (0, 0);
        for x in a {
            for y in b {
                let expected = x.members.iter().zip(&y.members).any(|(p, q)| p & q != 0);
                let got = x.space.overlaps(&y.space, self.j);
                let got_rev = y.space.overlaps(&x.space, self.j);
                if got != expected || got_rev != expected {
                    panic!(
                        "{:?}: {:?} vs {:?}: model says {expected}, overlaps says {got} / reversed {got_rev}",
                        self.j, x.model, y.model
                    );
                }
                pairs += 1;
                hits += u64::from(expected);
            }
        }
        (pairs, hits)
    }
}

#[test]
fn uid_order_matches_the_model_on_every_pair_up_to_10_bits() {
    for j in [Justification::Left, Justification::Right] {
        let w = World::new(j);
        for (a, ua) in w.strings.iter().zip(&w.uids) {
            for (b, ub) in w.strings.iter().zip(&w.uids) {
                assert_eq!(
                    ua.compare(ub, j),
                    model_cmp(a, b, j),
                    "{j:?} {a:?} vs {b:?}"
                );
            }
            assert_eq!(ua.bit_len() as usize, a.len());
        }
    }
}

#[test]
fn left_unique_and_prefix_pairs_up_to_10_bits() {
    let w = World::new(Justification::Left);
    let (u, p) = (w.uniques(10), w.prefixes(10));
    let (n1, h1) = w.check_pairs(&u, &u);
    let (n2, h2) = w.check_pairs(&u, &p);
    let (n3, h3) = w.check_pairs(&p, &p);
    assert_eq!((n1, n2, n3), (2047 * 2047, 2047 * 2047, 2047 * 2047));
    // Sanity of the model itself: unique pairs overlap only on the diagonal; u and p overlap iff
    // p is a prefix of u: sum over u of (len(u) + 1) = sum_{l=0}^{10} 2^l (l + 1).
    assert_eq!(h1, 2047);
    assert_eq!(h2, (0..=10u64).map(|l| (1 << l) * (l + 1)).sum::<u64>());
    assert!(h3 > h2);
}

#[test]
fn right_unique_pairs_up_to_10_bits() {
    let w = World::new(Justification::Right);
    let u = w.uniques(10);
    assert_eq!(w.check_pairs(&u, &u), (2047 * 2047, 2047));
}

#[test]
fn left_ranges_against_uniques_and_prefixes_up_to_10_bits() {
    let w = World::new(Justification::Left);
    let r = w.ranges(6);
    assert_eq!(r.len(), 127 * 128 / 2);
    let (n1, _) = w.check_pairs(&r, &w.uniques(10));
    let (n2, _) = w.check_pairs(&r, &w.prefixes(10));
    assert_eq!((n1, n2), (8128 * 2047, 8128 * 2047));
}

#[test]
fn right_ranges_against_uniques_up_to_10_bits() {
    let w = World::new(Justification::Right);
    let r = w.ranges(6);
    assert_eq!(r.len(), 127 * 128 / 2);
    assert_eq!(w.check_pairs(&r, &w.uniques(10)).0, 8128 * 2047);
}

#[test]
fn left_every_pair_of_spaces_up_to_6_bits() {
    let w = World::new(Justification::Left);
    let mut all = w.uniques(6);
    all.extend(w.prefixes(6));
    all.extend(w.ranges(6));
    // Each unordered pair once (check_pairs tests both argument orders).
    let mut total = 0;
    for i in 0..all.len() {
        total += w.check_pairs(&all[i..=i], &all[i..]).0;
    }
    let n = all.len() as u64;
    assert_eq!(total, n * (n + 1) / 2);
}

#[test]
fn right_every_pair_of_spaces_up_to_6_bits() {
    let w = World::new(Justification::Right);
    let mut all = w.uniques(6);
    all.extend(w.ranges(6));
    let mut total = 0;
    for i in 0..all.len() {
        total += w.check_pairs(&all[i..=i], &all[i..]).0;
    }
    let n = all.len() as u64;
    assert_eq!(total, n * (n + 1) / 2);
}

#[test]
fn right_justified_prefixes_are_invalid_and_treated_as_conflicting() {
    // docs/uiap-design.md D4: no prefixes when J = 1. validate() rejects them; overlaps() errs on
    // the side of a conflict should one slip through.
    let w = World::new(Justification::Right);
    for p in w.prefixes(4) {
        assert!(p.space.validate(Justification::Right).is_err());
        for u in w.uniques(4) {
            assert!(p.space.overlaps(&u.space, Justification::Right));
            assert!(u.space.overlaps(&p.space, Justification::Right));
        }
    }
}

#[test]
fn every_model_space_validates() {
    for j in [Justification::Left, Justification::Right] {
        let w = World::new(j);
        for case in w.uniques(10).iter().chain(&w.ranges(4)) {
            assert_eq!(case.space.validate(j), Ok(()), "{j:?} {:?}", case.model);
        }
    }
}

#[test]
fn reversed_ranges_are_empty() {
    for j in [Justification::Left, Justification::Right] {
        let w = World::new(j);
        let all = w.uniques(4);
        for lo in w.upto(4) {
            for hi in w.upto(4) {
                if model_cmp(&w.strings[lo], &w.strings[hi], j) == Ordering::Greater {
                    let r = UidSpace::Range {
                        low: w.uids[lo].clone(),
                        high: w.uids[hi].clone(),
                    };
                    assert!(r.validate(j).is_err());
                    assert!(
                        all.iter()
                            .all(|u| !r.overlaps(&u.space, j) && !u.space.overlaps(&r, j))
                    );
                }
            }
        }
    }
}

#[test]
fn conflicts_needs_byte_identical_domains() {
    let a = UidSpace::Unique(Uid::from_octets(&[42]).unwrap());
    let range = UidSpace::Range {
        low: Uid::from_octets(&[13]).unwrap(),
        high: Uid::from_octets(&[42]).unwrap(),
    };
    let base = DomainId::from_bytes([0, 1, 0, 2, 0, 3, 0, 0]);
    assert!(conflicts(&base, &a, &base, &range));
    // Any single differing bit in any of the 8 octets, the reserved flag bits included, means
    // different domains, which are never compared (§3.2.4).
    for octet in 0..8 {
        for bit in 0..8 {
            let mut other = *base.as_bytes();
            other[octet] ^= 1 << bit;
            let other = DomainId::from_bytes(other);
            assert!(
                !conflicts(&base, &a, &other, &range),
                "octet {octet} bit {bit}"
            );
            assert!(
                !conflicts(&other, &range, &base, &a),
                "octet {octet} bit {bit}"
            );
        }
    }
}

/// The literal "every pair of spaces up to 10 bits" is about 4·10^12 range pairs, so on top of the
/// exhaustive tables above, this samples pairs of *every* kind (range × range included) with both
/// endpoints anywhere in the 10-bit universe, deterministically (fixed seed), against the same
/// brute-force member sets. Member sets are built from the model order's ranks, which is exactly
/// the definition of a range (`lo <= x <= hi`), so no interval property of the implementation is assumed.
#[test]
fn sampled_pairs_of_every_kind_up_to_10_bits() {
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move |n: usize| {
        // splitmix64
        seed = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = seed;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) % n as u64) as usize
    };
    for j in [Justification::Left, Justification::Right] {
        let w = World::new(j);
        let n = w.strings.len();
        let mut by_rank: Vec<usize> = (0..n).collect();
        by_rank.sort_by(|&a, &b| model_cmp(&w.strings[a], &w.strings[b], j));
        let mut rank = vec![0; n];
        for (r, &i) in by_rank.iter().enumerate() {
            rank[i] = r;
        }
        let words = n.div_ceil(64);
        let members = |model: &Model| {
            let mut set = vec![0u64; words];
            let mut put = |i: usize| set[i / 64] |= 1 << (i % 64);
            match *model {
                Model::Unique(v) => put(v),
                Model::Prefix(p) => (0..n)
                    .filter(|&i| w.strings[i].starts_with(&w.strings[p]))
                    .for_each(put),
                Model::Range(lo, hi) => by_rank[rank[lo]..=rank[hi]].iter().for_each(|&i| put(i)),
            }
            set
        };
        let kinds = if j == Justification::Left { 3 } else { 2 };
        let mut random_space = || {
            let (a, b) = (next(n), next(n));
            match next(kinds) {
                0 => Model::Unique(a),
                // Order the ends by the model, not by index.
                1 if rank[a] <= rank[b] => Model::Range(a, b),
                1 => Model::Range(b, a),
                _ => Model::Prefix(a),
            }
        };
        let space = |model: &Model| {
            let u = |i: usize| w.uids[i].clone();
            match *model {
                Model::Unique(v) => UidSpace::Unique(u(v)),
                Model::Prefix(p) => UidSpace::Prefix(u(p)),
                Model::Range(lo, hi) => UidSpace::Range {
                    low: u(lo),
                    high: u(hi),
                },
            }
        };
        let (mut hits, mut range_pairs) = (0u32, 0u32);
        for _ in 0..100_000 {
            let (a, b) = (random_space(), random_space());
            let expected = members(&a)
                .iter()
                .zip(&members(&b))
                .any(|(p, q)| p & q != 0);
            let (sa, sb) = (space(&a), space(&b));
            assert_eq!(sa.overlaps(&sb, j), expected, "{j:?} {a:?} vs {b:?}");
            assert_eq!(sb.overlaps(&sa, j), expected, "{j:?} {b:?} vs {a:?}");
            hits += u32::from(expected);
            range_pairs += u32::from(matches!((&a, &b), (Model::Range(..), Model::Range(..))));
        }
        // The sample is not degenerate: both outcomes occur often, range × range pairs included.
        assert!(
            hits > 5_000 && hits < 95_000,
            "{j:?}: {hits} overlapping of 100000"
        );
        assert!(
            range_pairs > 10_000,
            "{j:?}: only {range_pairs} range pairs"
        );
    }
}
