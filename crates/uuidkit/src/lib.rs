//! uuidkit: RFC 9562 UUIDs, all of it.
//!
//! A [`Uuid`] is 16 bytes in network byte order. uuidkit reads and writes
//! every common text form of it, decodes its fields and timestamps, builds the
//! name-based versions, and (with the generators) makes new ones.
//!
//! ```
//! use uuidkit::{namespace, uuid, Uuid, Version};
//!
//! // Text in, text out: parsing takes the four common forms, any case.
//! let u = Uuid::parse("{F81D4FAE-7DEC-11D0-A765-00A0C91E6BF6}")?;
//! assert_eq!(u.to_string(), "f81d4fae-7dec-11d0-a765-00a0c91e6bf6");
//! assert_eq!(u.urn().to_string(), "urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6");
//!
//! // A literal checked at compile time.
//! const ID: Uuid = uuid!("f81d4fae-7dec-11d0-a765-00a0c91e6bf6");
//! assert_eq!(u, ID);
//!
//! // Fields as data: this one is version 1, made 1997-02-03T17:43:12.2168750Z.
//! assert_eq!(u.version(), Some(Version::Mac));
//! assert_eq!(u.unix_nanos(), Some(854_991_792_216_875_000));
//!
//! // The same name in the same namespace always gives the same UUID.
//! let v5 = Uuid::new_v5(&namespace::DNS, b"www.example.com");
//! assert_eq!(v5.to_string(), "2ed6657d-e927-568b-95e1-2665a8aea6a2");
//! # Ok::<(), uuidkit::ParseError>(())
//! ```
//!
//! # Which one should I use?
//!
//! | you want | use | why |
//! |---|---|---|
//! | database keys, log IDs, anything sorted or indexed | **v7** | time-ordered (ms), so B-tree inserts stay local; RFC 9562 §5.7, §6.2 |
//! | an identifier nobody can guess or predict | **v4** | 122 random bits from a CSPRNG; §5.4, §8 |
//! | the same ID for the same name, everywhere, forever | **v5** ([`Uuid::new_v5`]), or v8 with a modern hash ([`Uuid::new_v8_name`]) | deterministic; §5.5, Appendix B.2 (v3 = MD5 only for compatibility) |
//! | to read or convert old time-based IDs | v1 ↔ v6 ([`Uuid::to_v6`], [`Uuid::to_v1`]) | v6 is v1 reordered to sort by time; new systems should prefer v7 (§5.6) |
//! | your own layout (custom epoch, node IDs…) | v8 ([`Uuid::new_v8`], [`Uuid::new_v8_from_parts`]) | the RFC's space for experiments; uniqueness is yours to ensure (§5.8) |
//!
//! UUIDs are identifiers, not secrets or capabilities (§8): even v4 should not
//! be the only thing guarding a resource.
//!
//! # Text forms
//!
//! [`Uuid::parse`] (and `FromStr`) accepts the hyphenated form of RFC 9562 §4,
//! the simple 32-digit form, the `{braced}` form and the `urn:uuid:` form, in
//! any case; [`Uuid::parse_strict`] accepts only RFC 9562's ABNF. Both take a
//! `&str` or a `&[u8]`. `Display` writes the canonical lowercase hyphenated
//! form, `{:X}` the uppercase one, and the [`Hyphenated`], [`Simple`],
//! [`Braced`] and [`Urn`] adapters write each form, or encode it into your
//! buffer with no allocation.
//!
//! Shorter forms are in [`encoding`]: [`Base32`] (Crockford, the ULID text;
//! [`Uuid::from_ulid`]), [`Base32Hex`], [`Base58`], [`Base64Url`] and
//! [`TypeId`] (`user_01h455vb4pex5vsknk084sn02q`), each with a decoder whose
//! [`DecodeError`] names the bad character, its position and the expected
//! alphabet.
//!
//! ```
//! use uuidkit::{encoding::TypeId, Uuid};
//! let u = Uuid::from_u128(0x01890a5d_ac96_774b_bcce_b302099a8057);
//! assert_eq!(u.base58().to_string(), "1BzmjTFLHWXwiSK4y3H5iW");
//! assert_eq!(TypeId::new("user", u)?.to_string(), "user_01h455vb4pex5vsknk084sn02q");
//! assert_eq!(Uuid::parse_base64url("AYkKXayWd0u8zrMCCZqAVw")?, u);
//! # Ok::<(), uuidkit::encoding::DecodeError>(())
//! ```
//!
//! ## Untrusted input
//!
//! The parsers and decoders never panic, whatever bytes they are given, and
//! coverage-guided fuzz targets (`fuzz/fuzz_targets/parse.rs`, and
//! `encodings.rs` for the short encodings and TypeID) check that, along with
//! parse∘format being the identity. Errors say what is wrong and where:
//!
//! ```
//! let err = uuidkit::Uuid::parse("f81d4fae-gdec-11d0-a765-00a0c91e6bf6").unwrap_err();
//! assert_eq!(err.to_string(), "invalid character 'g' at position 9: expected a hex digit");
//! ```
//!
//! # Fields and time
//!
//! [`Uuid::variant`] and [`Uuid::version`] follow §4.1 and §4.2 (the Nil UUID
//! is of the NCS variant, the Max UUID of the future one; `version()` is
//! `None` outside the RFC 9562 variant and for the unused 0 and reserved 9–15).
//! [`Uuid::fields`] gives the RFC 4122 field split; v1/v6 timestamps, clock
//! sequence and node, and v7 milliseconds and random fields, are plain
//! accessors ([`Uuid::gregorian_timestamp`], [`Uuid::unix_ts_ms`], …), with
//! [`Uuid::unix_nanos`] and, with `std`, [`Uuid::system_time`](struct.Uuid.html#method.system_time). Nothing in the
//! core type reads a clock.
//!
//! # Generators
//!
//! [`Uuid::now_v7`](struct.Uuid.html#method.now_v7) and [`Uuid::new_v4`](struct.Uuid.html#method.new_v4) are the process-wide, lock-free
//! defaults, in memory only: `now_v7` is monotonic across threads (if one
//! call happens-before another, the second UUID is greater), both draw from
//! [`ThreadRng`](struct.ThreadRng.html), an OS-seeded ChaCha12 per thread that is reseeded after
//! `fork()`. [`SharedV7`](struct.SharedV7.html) is the same v7 generator on a state word you
//! place, for instance in memory shared between processes, which orders the
//! UUIDs of all of them.
//!
//! For control, every generator has one shape: the [`Generator`] trait
//! (`generate`, `fill`; object-safe), a validated builder for its settings,
//! its [`Clock`] and RNG as values, and its seams attached on the builder
//! only: `store` taking a [`Reserve`] store (RFC 9562 §6.3) and, for v1, v6
//! and [`V8Distributed`], `node_source` taking a [`NodeSource`]:
//!
//! | generator | builder settings |
//! |---|---|
//! | [`V7Generator`] | the three §6.2 methods ([`V7Method`]), guard bits, rollover and clock-back policies |
//! | [`V1Generator`], [`V6Generator`] | node (random with the multicast bit unless given, or from a [`NodeSource`]), clock sequence, rollover; v6: fresh or retained |
//! | [`V8TimeGenerator`] | Appendix B.1 time layout; clock-back policy |
//! | [`V8Distributed`] | §6.4: node ID and width (or a [`NodeSource`]), counter width, guard bits, policies |
//!
//! v1, v6 and [`V8Distributed`] can take their node from a [`NodeSource`],
//! asked before every UUID (RFC 9562 §6.4, distributed generation): a
//! [`StaticNode`], a [`RandomNode`], or a `NodeSlot` that a registry client
//! writes from its own thread. A generator whose source has lost its node
//! stops with [`GenErrorKind::NodeLost`] and issues nothing.
//!
//! A [`ManualClock`] makes them deterministic in tests, and the
//! `uuidkit-state` crate binds them, through the [`Reserve`] seam, to a
//! state file shared between processes (RFC 9562 §6.3).
//!
//! ```
//! use uuidkit::{clock::ManualClock, generator::{RolloverPolicy, V7Method}, rng::ThreadRng};
//! use uuidkit::{Generator, Uuid, V7Generator};
//! let (a, b) = (Uuid::now_v7(), Uuid::now_v7());
//! assert!(a < b);
//!
//! let clock = ManualClock::new(1_645_557_742_000_000_000); // 2022-02-22T19:22:22Z
//! let mut g = V7Generator::builder()
//!     .method(V7Method::Counter { bits: 12 })
//!     .rollover(RolloverPolicy::Error)
//!     .build(&clock, ThreadRng)?;
//! let u = g.generate()?;
//! assert!(Uuid::v7_min(1_645_557_742_000) <= u && u <= Uuid::v7_max(1_645_557_742_000));
//! # Ok::<(), uuidkit::GenError>(())
//! ```
//!
//! # Where things are
//!
//! The crate root holds what most programs name; everything else lives in a
//! module named for its concept, so the root stays a list you can hold in
//! your head (`docs/api-layout.md` in the repository has the rule):
//!
//! - the root: [`Uuid`] and [`NonNilUuid`], [`Version`] and [`Variant`],
//!   [`NameHash`] (for [`Uuid::new_v8_name`]), the text forms [`Hyphenated`],
//!   [`Simple`], [`Braced`] and [`Urn`], [`ParseError`], the generators a
//!   program makes ([`V7Generator`], [`V1Generator`], [`V6Generator`],
//!   [`V8TimeGenerator`], [`V8Distributed`] and, with `std`, `SharedV7`),
//!   their [`Generator`] trait and their [`GenError`], the [`uuid!`] macro,
//!   and [`rand_core`];
//! - [`namespace`]: the namespace IDs of RFC 9562 §6.6, for v3 and v5;
//! - [`encoding`]: the shorter text forms ([`Base32`], [`Base58`],
//!   [`TypeId`], …) and their [`DecodeError`];
//! - [`error`]: the details of the UUID types' errors (`ParseErrorKind`,
//!   `Expected`, `Form`), `LengthError` and `NonNilError`;
//! - [`layout`]: [`Fields`] (from [`Uuid::fields`]) and the ranges of the
//!   timestamp and clock-sequence fields (`MAX_UNIX_TS_MS`, …);
//! - [`generator`]: every generator with its builder and settings
//!   ([`V7Method`], [`RolloverPolicy`], `ClockBackPolicy`), `GenErrorKind`,
//!   and the [`Reserve`] seam for stable storage with the state it reserves
//!   (`Reservation`, `NoReserve`, `V1State`, `V7State`);
//! - [`clock`]: the [`Clock`] trait, [`SystemClock`], `CoarseClock` and
//!   [`ManualClock`];
//! - `rng` (with `std`): [`ThreadRng`] and its reseed interval;
//! - [`node`]: where a generator gets its node ID: the [`NodeSource`] seam,
//!   [`StaticNode`], [`RandomNode`], `NodeSlot`, and `NodeLost` with its kind;
//! - [`snowflake`]: 64-bit time-ordered IDs (Twitter, Discord, Instagram,
//!   Sonyflake, TSID layouts, or your own) on the same clock, worker-source
//!   and state seams;
//! - `facade` (feature `facade`): a keyed v4-looking façade for v7 keys,
//!   its key format and its two modes;
//! - `sync` (with `std`): `ForkSafeMutex`, a lock a forked child can take,
//!   and the fork generation, by which code built on the generators tells
//!   that it runs in a forked child;
//! - `serde` (feature `serde`): `#[serde(with = …)]` modules fixing one text
//!   form for a field.
//! - `proto` (feature `prost`): the `.proto` file of the protobuf message
//!   a [`Uuid`] is, for prost-build.
//!
//! The generators' RNG parameters are bounded by `rand_core::Rng`, and
//! `rand_core` has not reached 1.0: it is re-exported as
//! [`uuidkit::rand_core`](rand_core), so that an RNG of your own implements
//! the version this crate was built with, whatever version your other
//! dependencies use.
//!
//! # Performance
//!
//! Parsing decodes all 32 hex digits in one vector register with the best
//! decoder the CPU has, chosen once at run time (AVX2, else SSE2 on x86_64;
//! a table elsewhere), and returns the UUID in two registers; only a failed
//! parse goes back over the input to say what is wrong and where.
//! Formatting into a caller's buffer writes the hyphenated form with AVX2
//! when the CPU has it (two 256-bit shuffles and two stores, as inline
//! assembly behind a run-time check), else SSE2 (three stores); `Display`
//! uses the SSE2 encoder, reading the UUID as two 8-byte halves so that it
//! does not wait on the two register stores that often just wrote it. Many
//! UUIDs are formatted as text lines at once with AVX2
//! ([`Hyphenated::encode_lines_lower`]). v3 and v5 build their one hash
//! block in registers; v3 uses an MD5 block function ordered for latency
//! and skips the steps that read only the namespace for the RFC namespaces;
//! v5 uses the `sha1` crate's block function, which uses SHA-NI where the
//! CPU has it. The thread-local RNG computes ChaCha12 8 blocks at a time
//! with AVX2, and `Uuid::fill_v7` lays out four UUIDs per step. All of the CPU-specific code is in one
//! module, each path tested against the portable code and fuzzed against it
//! (`fuzz/fuzz_targets/simd_*.rs`). See BENCHMARKS.md for figures against
//! the `uuid` and `uuid-simd` crates.
//!
//! # Crate features
//!
//! - `std` (default): `SystemTime` conversion, and the generators' clock and
//!   thread-local RNG. Without it the type, text forms, fields and name-based
//!   UUIDs all work, with no allocation (`#![no_std]`).
//! - `serde`: `Serialize`/`Deserialize`, as the canonical string in
//!   human-readable formats and 16 bytes in binary ones; deserializing accepts
//!   every form [`Uuid::parse`] accepts. The `uuidkit::serde` modules fix one form
//!   for a field (`#[serde(with = "uuidkit::serde::compact")]`, `simple`,
//!   `braced`, `urn`, `hyphenated`, each with an `option` submodule);
//!   [`NonNilUuid`] serializes as its UUID and refuses the Nil UUID.
//! - `uuid-interop`: `From` conversions both ways with `uuid::Uuid`.
//! - `arbitrary`: `Arbitrary` for [`Uuid`] and [`NonNilUuid`] (needs `std`).
//! - `bytemuck`: `Pod`, `Zeroable` and `TransparentWrapper<[u8; 16]>` for
//!   [`Uuid`]; `Option<NonNilUuid>` is `Pod` too.
//! - `zerocopy`: `FromBytes`, `IntoBytes`, `Immutable`, `KnownLayout` and
//!   `Unaligned` for [`Uuid`]; `TryFromBytes` (zeros refused), `IntoBytes`,
//!   `Immutable` and `KnownLayout` for [`NonNilUuid`].
//! - `borsh`: the 16 octets, with no length prefix.
//! - `schemars`: JSON Schema `{"type": "string", "format": "uuid"}`.
//! - `facade`: `facade`, a keyed v4-looking façade for v7 keys, so that
//!   the API shows neither their time nor their order: the uuidv47 mode
//!   (time masked, interoperable) and a full mode (all 122 bits permuted).
//!   Brings `siphasher` and `aes`.
//! - `prost`: `prost::Message` for the protobuf message `uuidkit.Uuid`
//!   (`bytes value = 1`, the 16 octets), whose `.proto` is
//!   `proto::UUID_PROTO`, so that prost-build's `extern_path` puts [`Uuid`]
//!   in generated code.
//! - `sea-orm`: every trait sea-orm 2's `with-uuid` gives `uuid::Uuid`
//!   (entity fields, primary keys, `uuid[]`); turns on `uuid-interop`.
//! - `scylla`: CQL `uuid`, and `timeuuid` for a version 1 UUID, through the
//!   `scylla` driver's serialization traits.
//! - `rkyv`, `postcard-schema`, `speedy`: archived as itself (16 octets), a
//!   byte-array schema, and the bare 16 octets, as each crate's own `uuid`
//!   support does.
//! - `juniper`: the GraphQL scalar `UUID` exactly as juniper's own `uuid`
//!   feature defines it (name, description, `@specifiedBy`), so the SDL of a
//!   schema does not change.
//!
//! - `js`: for `wasm32-unknown-unknown` under a JavaScript host (browsers,
//!   Node.js): turns on `std`, takes randomness from `crypto.getRandomValues`
//!   (through `getrandom`'s `wasm_js` backend) and time from `Date.now()`, so
//!   [`Uuid::new_v4`](struct.Uuid.html#method.new_v4), [`Uuid::now_v7`](struct.Uuid.html#method.now_v7) and [`SystemClock`](struct.SystemClock.html) work there
//!   (`SystemClock` then has 1 ms resolution). Without `js`, build that
//!   target with `default-features = false`.
//!
//! Generator state in a file shared between processes (RFC 9562 §6.3) is
//! not a feature but a crate of its own, `uuidkit-state` (its file, locks
//! and sleeps are things a JavaScript host lacks, and the core talks to
//! nothing outside the process).
//!
//! All but `arbitrary` work without `std`; `schemars` needs `alloc`.
//!
//! Database drivers (each needs `std`; `docs/databases.md` in the repository
//! has the column types and why the 16 octets are written as they are):
//!
//! - `postgres`: `ToSql`/`FromSql` of `postgres-types` for PostgreSQL's
//!   `uuid`, in the binary format.
//! - `sqlx-postgres`, `sqlx-sqlite`, `sqlx-mysql`: sqlx's `Type`, `Encode`
//!   and `Decode`. Writes are binary (PostgreSQL `uuid`, a 16-byte SQLite
//!   `BLOB`, MySQL `BINARY(16)`); the SQLite and MySQL decoders also read
//!   text (`TEXT`, `CHAR(36)`) in any form [`Uuid::parse`] accepts. Bind
//!   [`Hyphenated`] to write text. These are sqlx 0.9, the current release
//!   line (also named `sqlx-0_9-postgres`, `sqlx-0_9-sqlite`,
//!   `sqlx-0_9-mysql`); `sqlx-0_8-postgres`, `sqlx-0_8-sqlite` and
//!   `sqlx-0_8-mysql` are the same on sqlx 0.8. The unversioned names follow
//!   sqlx's current release line from one uuidkit release to the next; the
//!   versioned ones stay.
//! - `rusqlite`: `ToSql`/`FromSql`, a 16-byte `BLOB` (and `TEXT` on reading),
//!   for any rusqlite from 0.32 to 0.43: the one the program links (two
//!   releases cannot both link SQLite).
//! - `diesel`: `ToSql`/`FromSql` for PostgreSQL's `Uuid` SQL type and for
//!   `Binary` (SQLite, MySQL), and `AsExpression`/`FromSqlRow` (diesel 2.3).
//!
//! Rust 1.89 builds every feature but sqlx 0.9's, which need Rust 1.94 (as
//! sqlx 0.9 does); on an older Rust, use `sqlx-0_8-*`.
//!
//! [`NonNilUuid`] is always there: a UUID that is not the Nil UUID, so that
//! `Option<NonNilUuid>` is 16 bytes.
//!
//! [`Base32`]: encoding::Base32
//! [`Base32Hex`]: encoding::Base32Hex
//! [`Base58`]: encoding::Base58
//! [`Base64Url`]: encoding::Base64Url
//! [`TypeId`]: encoding::TypeId
//! [`DecodeError`]: encoding::DecodeError
//! [`Fields`]: layout::Fields
//! [`Clock`]: clock::Clock
//! [`ManualClock`]: clock::ManualClock
//! [`SystemClock`]: clock/struct.SystemClock.html
//! [`ThreadRng`]: rng/struct.ThreadRng.html
//! [`V7Method`]: generator::V7Method
//! [`RolloverPolicy`]: generator::RolloverPolicy
//! [`Reserve`]: generator::Reserve
//! [`GenErrorKind::NodeLost`]: generator::GenErrorKind::NodeLost
//! [`NodeSource`]: node::NodeSource
//! [`StaticNode`]: node::StaticNode
//! [`RandomNode`]: node::RandomNode
#![no_std]
#![deny(missing_docs, missing_debug_implementations)]
#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(any(feature = "std", test))]
extern crate std;

/// A link reference definition, `[label]: path`, for an item built only
/// with `std`: without it, the link leads to the crate's features.
#[cfg(feature = "std")]
macro_rules! std_link {
    ($label:literal, $path:literal) => {
        concat!("\n[`", $label, "`]: ", $path)
    };
}
#[cfg(not(feature = "std"))]
macro_rules! std_link {
    ($label:literal, $path:literal) => {
        concat!("\n[`", $label, "`]: crate#crate-features")
    };
}

mod arch;
#[cfg(feature = "std")]
mod chacha;
#[cfg(any(test, all(fuzzing, feature = "std")))]
mod check;
pub mod encoding;
pub mod error;
mod external;
#[cfg(feature = "facade")]
#[cfg_attr(docsrs, doc(cfg(feature = "facade")))]
pub mod facade;
mod fields;
pub mod fmt;
mod guid;
mod hex;
mod inline_text;
pub mod layout;
mod macros;
mod name;
mod non_nil;
mod parse;
mod uuid;
mod uuid_names;

pub mod clock;
mod distributed;
#[cfg(feature = "std")]
mod fork;
pub mod generator;
mod gregorian_generator;
pub mod node;
#[cfg(feature = "std")]
pub mod rng;
#[cfg(feature = "std")]
mod shared_v7;
pub mod snowflake;
mod v1;
mod v4;
mod v6;
mod v7;
mod v8;

// The differential checks of the vector paths, for the fuzz targets only.
#[cfg(all(fuzzing, feature = "std"))]
#[doc(hidden)]
pub use crate::check::differential as __differential;

/// Hooks for the project's own tests and benchmarks, and for nothing else:
/// hidden, with no semver promise.
#[cfg(feature = "std")]
#[doc(hidden)]
pub mod __test_only {
    /// Turns fork detection off in this process and every child it forks
    /// from now on, so that forked children continue their parents'
    /// generators unchanged and duplicate their UUIDs. Only the torture
    /// suite's negative control calls it, to show that its checker finds
    /// those duplicates.
    pub fn disable_fork_detection() {
        crate::fork::disable_for_tests();
    }

    /// Makes v1/v6 generators in this process and its children derive a
    /// forked child's clock sequence from the difference of the process ids
    /// (the parent's plus it, +1 if that is 0) instead of drawing it from
    /// the CSPRNG. Only the torture suite's negative controls call it, to
    /// show that workers whose process ids are equal modulo 2¹⁴ then repeat
    /// each other's UUIDs and that the checker sees it.
    pub fn derive_clock_seq_from_pid() {
        crate::fork::derive_clock_seq_from_pid_for_tests();
    }

    /// Stops (`true`) or resumes the ticker thread's publishing, as a
    /// starved or stopped thread would: the tests show that a generator on a
    /// `TickerClock` then reads the real clock itself rather than wait.
    #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
    pub fn halt_ticker(halted: bool) {
        crate::clock::ticker::halt_for_tests(halted);
    }
}

pub use crate::error::ParseError;
#[cfg(feature = "prost")]
pub use crate::external::proto;
#[cfg(feature = "serde")]
pub use crate::external::serde_adapters as serde;
pub use crate::fmt::{Braced, Hyphenated, Simple, Urn};
#[cfg(feature = "std")]
pub use crate::generator::SharedV7;
pub use crate::generator::{
    GenError, Generator, V1Generator, V6Generator, V7Generator, V8Distributed, V8TimeGenerator,
};
pub use crate::name::namespace;
pub use crate::non_nil::NonNilUuid;
pub use crate::uuid::{Uuid, Variant, Version};
pub use crate::uuid_names::Timestamp;
pub use crate::v8::NameHash;

/// The `rand_core` crate whose `Rng` trait the generators' and
/// `new_v4_from_rng`'s RNG parameters are bound by, so that an RNG of your
/// own implements the very version this crate was built with.
pub use rand_core;

/// Fork safety for code built on the generators: locks that a forked child
/// can use ([`ForkSafeMutex`](sync::ForkSafeMutex) is reset in the child,
/// so a lock held by another thread of the parent at `fork()` is not
/// inherited locked), and the fork generation
/// ([`fork_generation`](sync::fork_generation),
/// [`forked_since`](sync::forked_since)) by which anything that must not be
/// carried from a parent into its child (a reserved block of timestamps, a
/// file lock) tells that it is now in a child.
#[cfg(feature = "std")]
pub mod sync {
    pub use crate::fork::{ForkSafeGuard, ForkSafeMutex, fork_generation, forked_since};
}
