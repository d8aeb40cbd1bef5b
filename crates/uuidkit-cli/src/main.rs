//! The `uuidkit` command-line tool.
fn main() {}
