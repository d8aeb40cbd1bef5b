//! `uuidkit._uuidkit`: the native part of the `uuidkit` Python package.
//!
//! The package (`python/uuidkit/__init__.py`) re-exports everything here next
//! to the standard module's constants. Each file is one part of the surface:
//! `stdlib.rs` the standard module's generators (`fast.rs` the cache of the
//! hot `uuid4`), `extra.rs` what it lacks,
//! `generator.rs` the §6.2 method choice, `state.rs` the §6.3 state file,
//! `snowflake.rs` 64-bit snowflake IDs,
//! `parse.rs` text in, `encoding.rs` the short encodings and TypeID,
//! `facade.rs` the keyed v7 ↔ v4 façade;
//! `convert.rs` is the one bridge to `uuid.UUID` that every part uses, and
//! `args.rs` checks arguments one way. All raw CPython code (the fast-call
//! entry points, the instance allocator, the `int` builder, lists filled in
//! place) is in `ffi/`, whose module doc lists every layout assumption.

mod args;
mod convert;
mod encoding;
mod extra;
mod facade;
mod fast;
mod ffi;
mod generator;
mod parse;
mod snowflake;
mod state;
mod stdlib;
mod time;

use pyo3::prelude::*;

/// The native part of `uuidkit`: import `uuidkit`, which re-exports it.
#[pymodule]
mod _uuidkit {
    #[pymodule_export]
    use crate::stdlib::{_test_only_restore, uuid1, uuid3, uuid5, uuid6, uuid8};

    #[pymodule_export]
    use crate::extra::{
        from_bytes, timestamp, unix_ms, uuid4_batch, uuid7_at, uuid7_batch, uuid7_batch_bytes,
        uuid8_name, v7_max, v7_min,
    };

    #[pymodule_export]
    use crate::parse::{ParseError, parse, parse_strict};

    #[pymodule_export]
    use crate::facade::{facade_decode, facade_encode};

    #[pymodule_export]
    use crate::encoding::{
        DecodeError, from_base32, from_base32hex, from_base58, from_base64url, from_typeid,
        from_ulid, to_base32, to_base32hex, to_base58, to_base64url, to_typeid, to_ulid,
    };

    #[pymodule_export]
    use crate::generator::V7Generator;

    #[pymodule_export]
    use crate::state::State;

    #[pymodule_export]
    use crate::snowflake::Snowflake;

    use pyo3::prelude::*;

    #[pymodule_init]
    fn init(m: &Bound<'_, PyModule>) -> PyResult<()> {
        // Fail at import, with the reason, if `uuid.UUID` is not as expected.
        crate::convert::UuidType::get(m.py())?;
        crate::ffi::fastcall::add(m)
    }
}
