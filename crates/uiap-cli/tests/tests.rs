//! Integration tests of the `uiap` command's offline tools, a module per command, in one test
//! binary.

mod decode_cli;
mod sim_cli;
