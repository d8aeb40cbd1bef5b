//! The tests of `uuidkit`'s database driver features, a crate of their own so
//! that the clients they connect with are no feature of `uuidkit` (diesel's
//! PostgreSQL and MySQL connections link the C libraries libpq and
//! libmariadb). The tests are one binary, `tests/tests.rs`; this library is
//! empty but for the examples of docs/databases.md, run as its doctests.

// The examples of docs/databases.md, with every driver and client at hand.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/databases.md")]
struct DatabasesDoc;
