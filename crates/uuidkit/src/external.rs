//! Integrations with other crates, each behind its Cargo feature. The core
//! type never mentions them.

#[cfg(feature = "arbitrary")]
mod arbitrary_support;
#[cfg(feature = "async-graphql")]
mod async_graphql_support;
#[cfg(feature = "borsh")]
mod borsh_support;
#[cfg(feature = "bytemuck")]
mod bytemuck_support;
#[cfg(feature = "diesel")]
mod diesel_support;
#[cfg(all(target_arch = "wasm32", target_os = "unknown", feature = "js"))]
pub(crate) mod js;
#[cfg(feature = "juniper")]
mod juniper_support;
#[cfg(feature = "postcard-schema")]
mod postcard_schema_support;
#[cfg(feature = "postgres")]
mod postgres_support;
#[cfg(feature = "prost")]
mod prost_support;
#[cfg(feature = "prost")]
pub mod proto;
#[cfg(feature = "redis")]
mod redis_support;
#[cfg(feature = "rkyv")]
mod rkyv_support;
#[cfg(feature = "rusqlite")]
mod rusqlite_support;
#[cfg(feature = "schemars-0_8")]
mod schemars_0_8;
#[cfg(any(feature = "schemars", feature = "schemars-0_9"))]
mod schemars_support;
#[cfg(feature = "scylla")]
mod scylla_support;
#[cfg(feature = "sea-orm")]
mod sea_orm_support;
#[cfg(feature = "serde")]
pub mod serde_adapters;
#[cfg(feature = "serde")]
mod serde_support;
#[cfg(feature = "speedy")]
mod speedy_support;
#[cfg(any(
    feature = "sqlx-0_9-postgres",
    feature = "sqlx-0_9-sqlite",
    feature = "sqlx-0_9-mysql"
))]
mod sqlx_0_9;
// The same impls on sqlx 0.8. Their examples name the crate `sqlx`, which
// is 0.9: rustdoc collects them from `sqlx_0_9` only.
#[cfg(all(
    not(doctest),
    any(
        feature = "sqlx-0_8-postgres",
        feature = "sqlx-0_8-sqlite",
        feature = "sqlx-0_8-mysql"
    )
))]
mod sqlx_0_8;
#[cfg(any(feature = "utoipa", feature = "utoipa-5"))]
mod utoipa_support;
#[cfg(feature = "uuid-interop")]
mod uuid_interop;
#[cfg(feature = "zerocopy")]
mod zerocopy_support;
