//! The extension's tests, one module per area, in one test binary: each module
//! starts the throwaway server it needs (`Server::for_test`).

mod bounds;
mod catalog;
mod compat;
mod deb;
mod facade;
mod generate;
mod migrate;
mod monotonic;
mod pure;
mod regress;
mod snowflake;
mod text;
mod ulid;
mod upgrade;
mod vectors;
