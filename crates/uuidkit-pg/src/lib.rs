//! uuidkit inside PostgreSQL: the `uuidkit` extension.
//!
//! `CREATE EXTENSION uuidkit;` creates the schema `uuidkit` with:
//!
//! | function | returns | what |
//! |---|---|---|
//! | `v7()` | `uuid` | a v7 key, cluster-wide monotonic with `shared_preload_libraries` ([`generate`]) |
//! | `v7_scope()` | `text` | `'cluster'` or `'backend'`: which order `v7()` keeps |
//! | `v4()` | `uuid` | 122 random bits |
//! | `v7(timestamptz)` | `uuid` | a v7 at a given time |
//! | `v7(interval)` | `uuid` | a v7 for now shifted by an interval ([`compat`]) |
//! | `v6()` | `uuid` | a v6 (time-ordered v1 layout) |
//! | `v5(uuid, text)`, `v3(uuid, text)`, `v8_sha256(uuid, text)` | `uuid` | name-based |
//! | `namespace(text)` | `uuid` | the RFC 9562 namespaces `dns`, `url`, `oid`, `x500` |
//! | `extract_timestamp(uuid)` | `timestamptz` | the time of a v1, v6 or v7 ([`time`]) |
//! | `extract_timestamp(uuid, boolean)` | `timestamptz` | the same, or with PostgreSQL 18's sub-millisecond fraction ([`compat`]) |
//! | `extract_version(uuid)` | `int2` | the version field of an RFC 9562 UUID |
//! | `to_bytea(uuid)`, `from_bytea(bytea)` | | the 16 bytes |
//! | `v7_lower(timestamptz)`, `v7_upper(timestamptz)` | `uuid` | inclusive v7 bounds of a time window |
//! | `v1_to_v6(uuid)`, `v6_to_v1(uuid)` | `uuid` | conversion ([`convert`]) |
//! | `facade_encode(uuid, bytea, text DEFAULT 'full')`, `facade_decode(…)` | `uuid` | a v7's keyed v4 façade and back ([`facade`]) |
//! | `to_base58`, `to_base32`, `to_ulid`, `to_base32hex`, `to_base64url` | `text` | short encodings ([`text`]) |
//! | `from_base58`, `from_base32`, `from_ulid`, `from_base32hex`, `from_base64url` | `uuid` | and back |
//! | `to_typeid(text, uuid)`, `from_typeid(text)`, `from_typeid(text, text)`, `typeid_prefix(text)` | | TypeID |
//! | type `ulid`, `gen_ulid()`, `ulid_timestamp(ulid)`, `ulid_lower(timestamptz)`, `ulid_upper(timestamptz)` | | a 16-byte column type with ULID text, ordered as `uuid` ([`ulid`]) |
//! | `snowflake(text DEFAULT 'twitter')` | `int8` | a 64-bit ID of a preset layout, the worker from `uuidkit.worker_id` ([`snowflake`]) |
//!
//! All UUID logic is the `uuidkit` library's; this crate only converts
//! between PostgreSQL's types and the library's, and turns the library's
//! errors into SQL errors ([`error`]). docs/postgres-extension.md in the
//! repository is the user's guide.
#![deny(missing_docs)]

use pgrx::prelude::*;

pub mod compat;
pub mod convert;
pub mod error;
pub mod facade;
pub mod generate;
pub mod snowflake;
pub mod text;
pub mod time;
pub mod ulid;

::pgrx::pg_module_magic!(name, version);

/// The uuidkit library's names this extension uses, all in one place.
pub(crate) mod lib {
    pub(crate) use uuidkit::clock::{ManualClock, SystemClock};
    pub(crate) use uuidkit::encoding::{DecodeError, TypeId};
    pub(crate) use uuidkit::facade::{Facade, FacadeKey, FacadeMode};
    pub(crate) use uuidkit::layout::MAX_UNIX_TS_MS;
    pub(crate) use uuidkit::rng::ThreadRng;
    pub(crate) use uuidkit::{
        GenError, Generator, NameHash, SharedV7, Uuid, V6Generator, V7Generator, Variant, namespace,
    };
}

/// PostgreSQL's `uuid` value as the library's [`lib::Uuid`].
pub(crate) fn from_pg(id: pgrx::Uuid) -> lib::Uuid {
    lib::Uuid::from_bytes(*id.as_bytes())
}

/// The library's [`lib::Uuid`] as PostgreSQL's `uuid` value.
pub(crate) fn to_pg(id: lib::Uuid) -> pgrx::Uuid {
    pgrx::Uuid::from_bytes(id.into_bytes())
}

/// Called once when the library is loaded: in the postmaster when it is in
/// `shared_preload_libraries` (then `v7()` takes its state from shared
/// memory), else in each backend on first use.
#[pg_guard]
pub extern "C-unwind" fn _PG_init() {
    generate::init();
    snowflake::init();
}
