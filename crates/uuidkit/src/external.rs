//! Integrations with other crates, each behind its Cargo feature. The core
//! type never mentions them.

#[cfg(feature = "serde")]
pub mod serde_adapters;
#[cfg(feature = "serde")]
mod serde_support;
#[cfg(feature = "uuid-interop")]
mod uuid_interop;
