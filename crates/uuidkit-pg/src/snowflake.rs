//! 64-bit snowflake IDs as `int8`: `uuidkit.snowflake(layout text DEFAULT 'twitter')`, the
//! worker from the server setting `uuidkit.worker_id`.
//!
//! Every backend of the server makes IDs with the server's one worker, so the backends must never
//! use one tick with one sequence number between them. Each backend runs the library's generator
//! with a store ([`Blocks`]) that reserves blocks of ticks from a mark per layout in the cluster's
//! shared memory, under a lock taken once per block (not per ID): two backends never hold one
//! tick. That needs the library in `shared_preload_libraries`; without it the function refuses,
//! rather than let backends collide.
//!
//! A snowflake ID has no random bits: the setting must name a worker no other server (or
//! program) of the ID space uses; docs/snowflake.md says how to hand them out.

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};

use pgrx::prelude::*;
use pgrx::shmem::PGRXSharedMemory;
use pgrx::{
    GucContext, GucFlags, GucRegistry, GucSetting, PgLwLock, PgSqlErrorCode, pg_shmem_init,
};
use uuidkit::GenError;
use uuidkit::clock::SystemClock;
use uuidkit::generator::{Reservation, Reserve};
use uuidkit::node::StaticNode;
use uuidkit::rng::ThreadRng;
use uuidkit::snowflake::{Layout, SnowflakeGenerator, SnowflakeState};

use crate::error::bad_value;

/// The worker ID: -1 (the default) for none.
static WORKER_ID: GucSetting<i32> = GucSetting::<i32>::new(-1);

/// One mark per preset layout: every tick a backend of the cluster reserved is below it.
#[derive(Clone, Copy, Debug, Default)]
struct Marks([u64; 5]);

// SAFETY: plain integers, no pointers.
unsafe impl PGRXSharedMemory for Marks {}

static MARKS: PgLwLock<Marks> =
    // SAFETY: the name is this extension's own.
    unsafe { PgLwLock::new(c"uuidkit snowflake marks") };

static IN_SHARED_MEMORY: AtomicBool = AtomicBool::new(false);

/// Ticks per block: a backend takes the lock about once per this many ticks it uses.
const BLOCK_TICKS: u64 = 16;

/// Registers the setting, and the shared marks when the library is being preloaded.
pub(crate) fn init() {
    GucRegistry::define_int_guc(
        c"uuidkit.worker_id",
        c"The worker ID uuidkit.snowflake() puts in every ID (-1: none).",
        c"Unique among every server and program making IDs of the same layout; as wide as the \
          layout's worker field (twitter, discord, tsid: 0 to 1023; instagram: 0 to 8191; \
          sonyflake: 0 to 65535).",
        &WORKER_ID,
        -1,
        i32::MAX,
        GucContext::Sighup,
        GucFlags::default(),
    );
    // SAFETY: a flag PostgreSQL sets while it loads shared_preload_libraries.
    if unsafe { pg_sys::process_shared_preload_libraries_in_progress } {
        pg_shmem_init!(MARKS);
        IN_SHARED_MEMORY.store(true, Ordering::Relaxed);
    }
}

/// The store of one backend's generator of the preset `index`: blocks of ticks from the shared
/// mark.
#[derive(Debug)]
struct Blocks {
    index: usize,
    /// The block held: `start..end`.
    held: Option<(u64, u64)>,
}

impl Reserve<SnowflakeState> for Blocks {
    fn reserve(
        &mut self,
        state: &SnowflakeState,
        needed: u64,
    ) -> Result<Reservation<SnowflakeState>, GenError> {
        if let Some((start, end)) = self.held
            && start <= needed
            && needed < end
        {
            return Ok(Reservation::Until(end));
        }
        let (start, end) = {
            let mut marks = MARKS.exclusive();
            let start = needed.max(marks.0[self.index]);
            let end = start.saturating_add(BLOCK_TICKS);
            marks.0[self.index] = end;
            (start, end)
        };
        self.held = Some((start, end));
        if start == needed {
            return Ok(Reservation::Until(end));
        }
        Ok(Reservation::ResumeFrom(SnowflakeState {
            tick: start - 1,
            sequence: u64::MAX,
            worker: state.worker,
            valid: true,
        }))
    }
}

type Backend = SnowflakeGenerator<SystemClock, ThreadRng, Blocks, StaticNode>;

thread_local! {
    /// This backend's generator per preset, with the worker it was made with.
    static GENERATORS: RefCell<[Option<(i32, Backend)>; 5]> = RefCell::new(Default::default());
}

fn raise(code: PgSqlErrorCode, message: String) -> ! {
    pgrx::pg_sys::panic::ErrorReport::new(code, message, "uuidkit")
        .report(pgrx::pg_sys::elog::PgLogLevel::ERROR);
    unreachable!("an ERROR does not return")
}

/// A 64-bit time-ordered ID of the preset `layout` (`twitter`, `discord`, `instagram`,
/// `sonyflake`, `tsid`), with the worker of `uuidkit.worker_id`: strictly increasing within a
/// session, unique across the cluster's sessions. An ID past 2^63 − 1 (64-bit layouts, decades
/// from now) does not fit `int8` and is an error, as are an unset worker and a clock far behind.
#[pg_extern(volatile, parallel_restricted)]
fn snowflake(layout: default!(&str, "'twitter'")) -> i64 {
    let Some(index) = Layout::presets()
        .iter()
        .position(|p| p.0.eq_ignore_ascii_case(layout))
    else {
        bad_value(format!(
            "unknown layout {layout:?}: expected twitter, discord, instagram, sonyflake or tsid"
        ))
    };
    let preset = Layout::presets()[index].1;
    let worker = WORKER_ID.get();
    if worker < 0 {
        raise(
            PgSqlErrorCode::ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
            format!(
                "uuidkit.worker_id is not set: set it to this server's worker ID, unique among \
                 the servers making {} IDs (0 to {}), e.g. ALTER SYSTEM SET uuidkit.worker_id = 7; \
                 SELECT pg_reload_conf();",
                Layout::presets()[index].0,
                preset.max_worker()
            ),
        );
    }
    if !IN_SHARED_MEMORY.load(Ordering::Relaxed) {
        raise(
            PgSqlErrorCode::ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
            "uuidkit.snowflake() needs uuidkit in shared_preload_libraries: the server's \
             backends share its worker, so they share its ticks through shared memory"
                .into(),
        );
    }
    let id = GENERATORS.with(|g| {
        let mut all = g.borrow_mut();
        let slot = &mut all[index];
        if slot.as_ref().is_none_or(|(w, _)| *w != worker) {
            let node = StaticNode::new(worker as u64, preset.worker_bits())
                .and_then(|node| {
                    SnowflakeGenerator::builder(preset)
                        .node_source(node)
                        .store(Blocks { index, held: None })
                        .build(SystemClock, ThreadRng)
                })
                .unwrap_or_else(|e| {
                    bad_value(format!(
                        "uuidkit.worker_id = {worker}: expected 0 to {} for {}: {e}",
                        preset.max_worker(),
                        Layout::presets()[index].0
                    ))
                });
            *slot = Some((worker, node));
        }
        let (_, g) = slot.as_mut().expect("made above");
        g.generate()
    });
    let id = id.unwrap_or_else(|e| {
        raise(
            PgSqlErrorCode::ERRCODE_DATETIME_FIELD_OVERFLOW,
            format!("uuidkit.snowflake({layout}): {e}"),
        )
    });
    i64::try_from(id).unwrap_or_else(|_| {
        raise(
            PgSqlErrorCode::ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE,
            format!("uuidkit.snowflake({layout}): the ID {id} does not fit int8 (above 2^63 - 1)"),
        )
    })
}
