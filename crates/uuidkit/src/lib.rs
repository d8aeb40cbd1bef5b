//! uuidkit: RFC 9562 UUIDs, all of it.
//!
//! (Crate docs are written by the core-type work; see README.md.)
#![no_std]
#![deny(missing_docs, missing_debug_implementations)]
#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(any(feature = "std", test))]
extern crate std;

mod layout;
mod uuid;

pub use crate::uuid::{Uuid, Variant, Version};
