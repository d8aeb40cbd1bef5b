//! The integration tests of `uuidkit-state`, one binary with a module per
//! area. Tests that re-run this binary in child processes name themselves
//! with their module path (`global::…`); the two that configure the
//! process-wide generators take [`support::GLOBAL`] first.

mod support;

mod faults;
mod fork;
mod generators;
mod global;
mod multiprocess;
mod node;
mod paths;
mod recovery;
mod snowflake;
