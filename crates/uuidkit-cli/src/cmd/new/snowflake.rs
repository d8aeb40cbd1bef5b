//! `uuidkit new snowflake`: 64-bit IDs of a layout, as decimal integers, one per line. The worker
//! is fixed (`--node N`, `--node random`) or leased for the run (`--node-from`, `--site-node`:
//! the lease's clock-and-source pair, and the writer that writes nothing once it is lost);
//! `--state` keeps the last tick per layout and worker in the state file.

use std::io::Write;
use std::path::Path;
use std::time::Duration;

use uuidkit::GenError;
use uuidkit::clock::{Clock, SystemClock};
use uuidkit::node::{NodeSource, RandomNode, StaticNode};
use uuidkit::snowflake::{Layout, SnowflakeGenerator};
use uuidkit_state::{BlockPolicy, FileStore, Reserver, SnowflakeLease};

use super::rng::GenRng;
use crate::error::{Error, Outcome};
use crate::flags::{SnowflakePlan, WorkerFrom};
use crate::output::Output;

/// IDs per batch.
const BATCH: usize = 4096;

/// Runs `new snowflake`.
pub fn run(plan: &SnowflakePlan) -> Result<Outcome, Error> {
    let store = store(plan)?;
    match &plan.worker {
        WorkerFrom::Fixed(w) => {
            let node = StaticNode::new(*w, plan.layout.worker_bits()).map_err(config)?;
            generate(plan, SystemClock, node, store, super::super::stdout())
        }
        WorkerFrom::Random => {
            let node = RandomNode::new(plan.layout.worker_bits(), &mut GenRng::for_generator())
                .map_err(config)?;
            generate(plan, SystemClock, node, store, super::super::stdout())
        }
        WorkerFrom::Lease(lease) => leased(plan, lease, store),
    }
}

#[cfg(unix)]
fn leased(
    plan: &SnowflakePlan,
    lease: &crate::flags::LeasePlan,
    store: Option<SnowflakeLease>,
) -> Result<Outcome, Error> {
    super::backend::check_built(lease)?;
    let held = super::lease::acquire(lease)?;
    // One clock reading per ID: the deadline is checked against the reading the ID's time
    // comes from.
    let (clock, source) = held.slot().pair();
    let out = Output::new(super::lease::Guarded::new(
        crate::error::stdout(),
        held.slot().clone(),
    ));
    generate(plan, clock, source, store, out)
        .map_err(|e| super::lease::explain(e, held.name(), held.loss()))
}

#[cfg(not(unix))]
fn leased(
    _plan: &SnowflakePlan,
    lease: &crate::flags::LeasePlan,
    _store: Option<SnowflakeLease>,
) -> Result<Outcome, Error> {
    super::backend::check_built(lease)?;
    Err(Error::Failed(
        "--node-from/--site-node: a leased worker needs a Unix system".into(),
    ))
}

/// The state file's lease, checked before anything is generated.
fn store(plan: &SnowflakePlan) -> Result<Option<SnowflakeLease>, Error> {
    let Some(path) = &plan.state else {
        return Ok(None);
    };
    let file = FileStore::new(path).new_state(plan.new_state);
    file.check()
        .map_err(|e| Error::Failed(format!("--state {}: {}", path.display(), e.detail())))?;
    let file = match plan.lock_timeout_ms {
        Some(ms) => file.with_lock_timeout(Duration::from_millis(ms)),
        None => file,
    };
    let reserver = Reserver::new(file, BlockPolicy::default()).strict(true);
    Ok(Some(reserver.lease_snowflake(plan.layout)))
}

fn config(e: GenError) -> Error {
    Error::Usage(format!("--node: {e}"))
}

fn generate<C: Clock, N: NodeSource, W: Write>(
    plan: &SnowflakePlan,
    clock: C,
    node: N,
    store: Option<SnowflakeLease>,
    mut out: Output<W>,
) -> Result<Outcome, Error> {
    let mut g = SnowflakeGenerator::builder(plan.layout)
        .node_source(node)
        .store(store)
        .build(clock, GenRng::for_generator())
        .map_err(config)?;
    let mut batch = vec![0u64; BATCH];
    let mut left = plan.count;
    while left > 0 {
        let k = left.min(BATCH as u64) as usize;
        let filled = g.fill(&mut batch[..k]);
        warn_ahead(&g, plan.state.as_deref(), plan.layout);
        if let Err(e) = filled {
            // What was made before the failure is issued: print it.
            out.flush()?;
            return Err(lost_or_failed(e, plan.layout));
        }
        let mut line = itoa_buf();
        for id in &batch[..k] {
            out.line(decimal(*id, &mut line))?;
        }
        left -= k as u64;
    }
    out.flush()?;
    Ok(Outcome::Success)
}

/// A stored mark ahead of the clock is worth a warning (the IDs are stamped ahead of it).
fn warn_ahead<C, R, N>(
    g: &SnowflakeGenerator<C, R, Option<SnowflakeLease>, N>,
    path: Option<&Path>,
    layout: Layout,
) {
    let Some(path) = path else { return };
    let Some(status) = g.store().as_ref().and_then(SnowflakeLease::status) else {
        return;
    };
    if let Some(e) = status.ahead_error() {
        thread_local!(static WARNED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) });
        if !WARNED.with(|w| w.replace(true)) {
            let _ = writeln!(
                std::io::stderr(),
                "uuidkit: warning: --state {} ({layout}): {}",
                path.display(),
                e.detail()
            );
        }
    }
}

fn lost_or_failed(e: GenError, layout: Layout) -> Error {
    match e.node_lost() {
        Some(lost) => Error::Lost(*lost),
        None => Error::Failed(format!("snowflake ({layout}): {e}")),
    }
}

fn itoa_buf() -> [u8; 20] {
    [0; 20]
}

/// `id` in decimal, in the tail of `buf`.
fn decimal(mut id: u64, buf: &mut [u8; 20]) -> &[u8] {
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (id % 10) as u8;
        id /= 10;
        if id == 0 {
            return &buf[i..];
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn decimals_are_exact() {
        let mut b = super::itoa_buf();
        for v in [0u64, 7, 10, 1_724_551_110_456_397_824, u64::MAX] {
            assert_eq!(super::decimal(v, &mut b), v.to_string().as_bytes());
        }
    }
}
