//! Integration tests of the `uuidkit` binary: one module per command, as users run it.

#[macro_use]
mod util;

mod check;
mod compat;
mod convert;
mod docs;
mod encodings;
mod generate;
mod inspect;
mod pipe;
mod progress;
mod range;
mod state;
mod times;
