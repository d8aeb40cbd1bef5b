//! 64-bit time-ordered IDs: the Snowflake family (Twitter, Discord,
//! Instagram, Sonyflake, TSID, or a split of your own), for `bigint` keys and
//! other places a 128-bit UUID does not fit.
//!
//! An ID is one `u64`: a time field (ticks since the layout's epoch), then a
//! worker ID and a sequence number (in either order). A [`Layout`] says how
//! wide each field is; a [`SnowflakeGenerator`] makes IDs of one layout, with
//! the same seams as the UUID generators: an injected [`Clock`](crate::clock::Clock)
//! and RNG, the worker from a [`NodeSource`](crate::node::NodeSource) (a fixed
//! one, or a lease that makes it unique across a fleet), and a
//! [`Reserve`](crate::generator::Reserve) store (the §6.3 state file) that
//! keeps the last tick per layout and worker across restarts.
//!
//! The two classic failures of the family are the library's problem here,
//! not the caller's:
//! - **Two workers with one ID.** Take the worker from a lease (`uuidkit-lease`:
//!   etcd, PostgreSQL, a UIAP site): a paused process stops at its lease's
//!   deadline, before the registry can hand its worker to anyone else.
//! - **The clock going back.** Held within a tolerance (10 s by default), an
//!   error beyond it, never a repeat; with a state file, a restart with the
//!   clock behind continues above the last tick it stored.
//!
//! ```
//! use uuidkit::{clock::ManualClock, rng::ThreadRng};
//! use uuidkit::snowflake::{Layout, Parts, SnowflakeGenerator};
//!
//! let clock = ManualClock::new(1_700_000_000_000_000_000); // 2023-11-14T22:13:20Z
//! let mut g = SnowflakeGenerator::builder(Layout::TWITTER).worker(37).build(&clock, ThreadRng)?;
//! let id = g.generate()?;
//! assert_eq!(id, 1724551110456397824);
//! let Parts { tick, worker, sequence } = Layout::TWITTER.decompose(id)?;
//! assert_eq!((Layout::TWITTER.unix_ms_of(tick), worker, sequence), (1_700_000_000_000, 37, 0));
//! assert_eq!(g.generate()?, id + 1); // the same millisecond: the sequence counts on
//! # Ok::<(), uuidkit::GenError>(())
//! ```
//!
//! `docs/snowflake.md` in the repository has the layouts, what is guaranteed
//! and how the worker gets to be unique; `docs/generator-design.md` G7 the
//! decisions behind it.

mod builder;
mod descriptor;
mod generator;
mod layout;

pub use builder::SnowflakeBuilder;
pub use generator::{SnowflakeGenerator, SnowflakeState};
pub use layout::{FieldOrder, Layout, Parts, SequenceStart};
