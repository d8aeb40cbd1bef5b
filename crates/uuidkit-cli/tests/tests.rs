//! Integration tests of the `uuidkit` binary: one module per command, as users run it.

#[macro_use]
mod util;

mod check;
mod compat;
mod convert;
mod docs;
mod encodings;
mod facade;
mod forms;
mod generate;
mod inspect;
#[cfg(any(feature = "etcd", feature = "postgres", feature = "zookeeper"))]
// The ZooKeeper test alone uses the blocked runs only.
#[cfg_attr(not(any(feature = "etcd", feature = "postgres")), allow(dead_code))]
mod leased;
mod node_from;
#[cfg(feature = "etcd")]
mod node_from_etcd;
#[cfg(feature = "postgres")]
mod node_from_pg;
#[cfg(feature = "zookeeper")]
mod node_from_zk;
mod pipe;
mod progress;
mod range;
mod snowflake;
mod state;
mod times;
