//! The keyed v7 ↔ v4 façade (docs/facade-design.md): store v7 keys, show
//! their façades. The key is a 16-byte `bytea` (`'\x' || 32 hex digits`),
//! the same 16 bytes as every other surface's key; the mode is `'full'`
//! (all 122 bits permuted) or `'uuidv47'` (the time masked, byte-identical
//! to uuidv47's `uuid47_to_uuid_with_key` on the same `bytea`).

use pgrx::prelude::*;

use crate::error::bad_value;
use crate::lib::{Facade, FacadeKey, FacadeMode};
use crate::{from_pg, to_pg};

/// The façade for `key` and `mode`, or an error naming what is wrong.
fn facade(key: &[u8], mode: &str) -> Facade {
    let Ok(bytes) = <[u8; 16]>::try_from(key) else {
        bad_value(format!(
            "a façade key has 16 bytes ('\\x' and 32 hex digits), got {}",
            key.len()
        ))
    };
    let mode: FacadeMode = mode.parse().unwrap_or_else(|e| bad_value(format!("{e}")));
    Facade::new(&FacadeKey::from_bytes(bytes), mode)
}

/// The façade of a v7 UUID, a v4 UUID; an error for any other UUID.
#[pg_extern(immutable, strict, parallel_safe)]
fn facade_encode(id: pgrx::Uuid, key: &[u8], mode: default!(&str, "'full'")) -> pgrx::Uuid {
    let f = facade(key, mode);
    to_pg(
        f.encode(from_pg(id))
            .unwrap_or_else(|e| bad_value(e.to_string())),
    )
}

/// The v7 UUID a façade came from, with its key and mode; an error for a
/// UUID that is not a v4 (any v4 decodes: there is no tag to check).
#[pg_extern(immutable, strict, parallel_safe)]
fn facade_decode(id: pgrx::Uuid, key: &[u8], mode: default!(&str, "'full'")) -> pgrx::Uuid {
    let f = facade(key, mode);
    to_pg(
        f.decode(from_pg(id))
            .unwrap_or_else(|e| bad_value(e.to_string())),
    )
}
