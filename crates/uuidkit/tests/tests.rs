//! The integration tests of `uuidkit`, one binary with a module per area
//! (the database drivers' are apart: they need the drivers' clients). Tests
//! that fork keep to what a forked child of a threaded process may do: they
//! allocate before the fork and only generate in the child.

mod gen_support;
mod rfc_examples;

mod api_root;
mod encodings;
#[cfg(feature = "facade")]
mod facade;
#[cfg(unix)]
mod faults;
#[cfg(unix)]
mod gen_fork;
mod gen_node;
mod gen_realclock;
mod gen_v1v6;
mod gen_v7;
mod gen_vectors;
mod props;
mod rfc9562_vectors;
#[cfg(unix)]
mod shared_v7;
mod snowflake;
#[cfg(unix)]
mod snowflake_ticker;
mod text;
mod uuid_differences;
