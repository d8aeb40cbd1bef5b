//! uuidkit's web-stack integrations against the real crates, one module per
//! integration, in one test binary. Each module's tests put the same 16
//! bytes through the crate once as `uuid::Uuid` and once as
//! `uuidkit::Uuid` and compare what comes out, then read each output back
//! as the other type. `default_tree` checks that none of them is in the
//! default build.

mod support;

mod async_graphql;
mod bson;
mod clickhouse;
mod default_tree;
mod juniper;
mod postcard_schema;
mod prost;
mod redis;
mod rkyv;
mod schemars;
mod scylla;
mod sea_orm;
mod speedy;
mod utoipa;
