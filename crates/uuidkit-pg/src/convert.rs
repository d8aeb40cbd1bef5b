//! v1 ↔ v6 (RFC 9562 §5.6): the same timestamp, clock sequence and node,
//! laid out in time order (v6) or in the original field order (v1).

use pgrx::prelude::*;

use crate::error::bad_value;
use crate::lib::{Uuid, Variant};
use crate::{from_pg, to_pg};

/// What `id` is, for an error: its version, or why it has none.
fn describe(id: Uuid) -> String {
    if let Some(v) = id.version() {
        return format!("version {}", v.number());
    }
    let variant = match id.variant() {
        Variant::Rfc9562 => "RFC 9562",
        Variant::Ncs => "NCS",
        Variant::Microsoft => "Microsoft",
        _ => "future",
    };
    format!(
        "no version (the {variant} variant, version field {})",
        id.version_nibble()
    )
}

/// `to(id)`, or an error saying that `id` is not one of `versions`.
fn convert(id: pgrx::Uuid, to: fn(&Uuid) -> Option<Uuid>, versions: &str) -> pgrx::Uuid {
    let u = from_pg(id);
    match to(&u) {
        Some(converted) => to_pg(converted),
        None => bad_value(format!(
            "expected a version {versions} UUID, found {} ({u})",
            describe(u)
        )),
    }
}

/// The v6 form of a v1 UUID (a v6 UUID is returned as it is).
#[pg_extern(immutable, strict, parallel_safe)]
fn v1_to_v6(id: pgrx::Uuid) -> pgrx::Uuid {
    convert(id, Uuid::to_v6, "1 or 6")
}

/// The v1 form of a v6 UUID (a v1 UUID is returned as it is).
#[pg_extern(immutable, strict, parallel_safe)]
fn v6_to_v1(id: pgrx::Uuid) -> pgrx::Uuid {
    convert(id, Uuid::to_v1, "6 or 1")
}
