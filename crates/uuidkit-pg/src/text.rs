//! Short text forms of a UUID and TypeID, through the library's encoders
//! and decoders. A decoder's error is the library's message (the bad
//! character, its position and the expected alphabet, or the length) as
//! SQLSTATE `22P02`, like PostgreSQL's own `'…'::uuid`.

use pgrx::prelude::*;

use crate::error::{bad_text, bad_value, invalid_text};
use crate::lib::{TypeId, Uuid};
use crate::{from_pg, to_pg};

/// Base58 (Bitcoin's alphabet), 22 characters, left-padded with `1`.
#[pg_extern(immutable, strict, parallel_safe)]
fn to_base58(id: pgrx::Uuid) -> String {
    from_pg(id).base58().to_string()
}

/// Reads base58.
#[pg_extern(immutable, strict, parallel_safe)]
fn from_base58(text: &str) -> pgrx::Uuid {
    to_pg(Uuid::parse_base58(text).unwrap_or_else(|e| bad_text(e)))
}

/// Crockford's base32, 26 characters, upper case: the ULID text.
#[pg_extern(immutable, strict, parallel_safe)]
fn to_base32(id: pgrx::Uuid) -> String {
    from_pg(id).base32().to_string()
}

/// Reads Crockford's base32, in either case.
#[pg_extern(immutable, strict, parallel_safe)]
fn from_base32(text: &str) -> pgrx::Uuid {
    to_pg(Uuid::parse_base32(text).unwrap_or_else(|e| bad_text(e)))
}

/// The ULID text of a UUID (its base32 form).
#[pg_extern(immutable, strict, parallel_safe)]
fn to_ulid(id: pgrx::Uuid) -> String {
    from_pg(id).to_ulid().to_string()
}

/// Reads a ULID as a UUID (its 128 bits as they are).
#[pg_extern(immutable, strict, parallel_safe)]
fn from_ulid(text: &str) -> pgrx::Uuid {
    to_pg(Uuid::from_ulid(text).unwrap_or_else(|e| bad_text(e)))
}

/// RFC 4648 base32hex, 26 characters, upper case, no padding.
#[pg_extern(immutable, strict, parallel_safe)]
fn to_base32hex(id: pgrx::Uuid) -> String {
    from_pg(id).base32hex().to_string()
}

/// Reads base32hex, in either case.
#[pg_extern(immutable, strict, parallel_safe)]
fn from_base32hex(text: &str) -> pgrx::Uuid {
    to_pg(Uuid::parse_base32hex(text).unwrap_or_else(|e| bad_text(e)))
}

/// RFC 4648 base64url, 22 characters, no padding.
#[pg_extern(immutable, strict, parallel_safe)]
fn to_base64url(id: pgrx::Uuid) -> String {
    from_pg(id).base64url().to_string()
}

/// Reads base64url.
#[pg_extern(immutable, strict, parallel_safe)]
fn from_base64url(text: &str) -> pgrx::Uuid {
    to_pg(Uuid::parse_base64url(text).unwrap_or_else(|e| bad_text(e)))
}

/// The TypeID of `id` with `prefix` (`a-z` and `_`, at most 63, not starting
/// or ending with `_`; empty for none): `user_01h455vb4pex5vsknk084sn02q`.
#[pg_extern(immutable, strict, parallel_safe)]
fn to_typeid(prefix: &str, id: pgrx::Uuid) -> String {
    match TypeId::new(prefix, from_pg(id)) {
        Ok(t) => t.to_string(),
        Err(e) => bad_value(e.to_string()),
    }
}

/// The UUID of a TypeID, whatever its prefix.
#[pg_extern(immutable, strict, parallel_safe)]
fn from_typeid(text: &str) -> pgrx::Uuid {
    to_pg(TypeId::parse(text).unwrap_or_else(|e| bad_text(e)).uuid())
}

/// The UUID of a TypeID that must have the prefix `prefix`.
#[pg_extern(name = "from_typeid", immutable, strict, parallel_safe)]
fn from_typeid_with(text: &str, prefix: &str) -> pgrx::Uuid {
    let t = TypeId::parse(text).unwrap_or_else(|e| bad_text(e));
    if t.prefix() != prefix {
        invalid_text(format!(
            "expected a TypeID with the prefix {prefix:?}, found the prefix {:?}",
            t.prefix()
        ));
    }
    to_pg(t.uuid())
}

/// The prefix of a TypeID (empty if it has none).
#[pg_extern(immutable, strict, parallel_safe)]
fn typeid_prefix(text: &str) -> String {
    TypeId::parse(text)
        .unwrap_or_else(|e| bad_text(e))
        .prefix()
        .to_string()
}
