//! The interop tests of uuidkit's web-stack integrations, in `tests/`: one
//! module per integration, each against the real crate with its own `uuid`
//! feature turned on. For each, the value uuidkit writes must equal the
//! value the crate writes for a `uuid::Uuid` of the same 16 bytes (bytes,
//! JSON, SDL, schema), and each must read what the other wrote.
//!
//! ```text
//! cargo test -p uuidkit-web-tests
//! ```
//!
//! This library is empty: the crate exists so that the integrations' own
//! crates are dev-dependencies here and never of `uuidkit`'s tests.
