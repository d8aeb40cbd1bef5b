//! Integrations with other crates, each behind its Cargo feature. The core
//! type never mentions them.

#[cfg(feature = "arbitrary")]
mod arbitrary_support;
#[cfg(feature = "borsh")]
mod borsh_support;
#[cfg(feature = "bytemuck")]
mod bytemuck_support;
#[cfg(feature = "diesel")]
mod diesel_support;
#[cfg(all(target_arch = "wasm32", target_os = "unknown", feature = "js"))]
pub(crate) mod js;
#[cfg(feature = "postgres")]
mod postgres_support;
#[cfg(feature = "rusqlite")]
mod rusqlite_support;
#[cfg(feature = "schemars")]
mod schemars_support;
#[cfg(feature = "serde")]
pub mod serde_adapters;
#[cfg(feature = "serde")]
mod serde_support;
#[cfg(feature = "sqlx-mysql")]
mod sqlx_mysql;
#[cfg(feature = "sqlx-postgres")]
mod sqlx_postgres;
#[cfg(feature = "sqlx-sqlite")]
mod sqlx_sqlite;
#[cfg(feature = "uuid-interop")]
mod uuid_interop;
#[cfg(feature = "zerocopy")]
mod zerocopy_support;

// The runnable examples of docs/databases.md, run as doctests.
#[cfg(all(doctest, feature = "_db-tests"))]
#[doc = include_str!("../../../docs/databases.md")]
struct DatabasesDoc;
