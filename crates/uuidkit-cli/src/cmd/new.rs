//! `uuidkit new KIND`: generation.
//!
//! UUIDs are produced in batches (one library `fill` per batch where the library
//! has one), formatted straight into the output buffer and written in ~1 MiB
//! chunks. Above one million UUIDs, with stderr on a terminal and stdout not, a
//! progress bar is drawn on stderr.

use std::io::IsTerminal;

use uuidkit::Uuid;

use crate::api;
use crate::error::{Error, Outcome};
use crate::flags::{Format, NewPlan};
use crate::output::{MAX_BULK, Output};

mod source;

pub use source::Source;

/// UUIDs per batch: small enough to stay in L1/L2 with its text, large enough to
/// amortise the per-batch costs (one clock read for v7).
const BATCH: usize = 4096;

/// Runs `new`.
///
/// Large runs are a two-stage pipeline: this thread generates batches (so the
/// generator and its state never leave it) and a second thread formats and writes
/// them, in order. Small runs, and machines with one CPU, use one thread.
pub fn run(plan: &NewPlan) -> Result<Outcome, Error> {
    let mut source = Source::new(plan)?;
    let progress = wants_progress(
        plan.count,
        std::io::stderr().is_terminal(),
        std::io::stdout().is_terminal(),
    )
    .then(|| progress_bar(plan.count));
    let parallel = std::thread::available_parallelism().is_ok_and(|n| n.get() > 1);
    let result = if parallel && plan.count >= PIPELINE_MIN {
        run_pipelined(plan, &mut source, progress.as_ref())
    } else {
        run_serial(plan, &mut source, progress.as_ref())
    };
    if let Some(p) = progress {
        p.finish_and_clear();
    }
    result.map(|()| Outcome::Success)
}

/// Below this many UUIDs a second thread costs more than it saves.
const PIPELINE_MIN: u64 = 4 * PIPE_BATCH as u64;

/// UUIDs per hand-over between the threads: large, so that thread wake-ups are rare.
const PIPE_BATCH: usize = 32 * 1024;

/// Generates the next batch of `k` UUIDs into `batch`; warns about the state
/// file after the first one.
fn next_batch(
    plan: &NewPlan,
    source: &mut Source,
    batch: &mut [Uuid],
    first: bool,
) -> Result<(), Error> {
    source.fill(batch)?;
    if first {
        source.warn_if_unsafe(plan.state.as_deref());
    }
    Ok(())
}

fn run_serial(
    plan: &NewPlan,
    source: &mut Source,
    progress: Option<&indicatif::ProgressBar>,
) -> Result<(), Error> {
    let mut out = super::stdout();
    let mut batch = vec![Uuid::NIL; BATCH];
    let mut left = plan.count;
    while left > 0 {
        let k = left.min(BATCH as u64) as usize;
        let batch = &mut batch[..k];
        if let Err(e) = next_batch(plan, source, batch, left == plan.count) {
            // What was generated before the failure is valid and already issued: print it.
            out.flush()?;
            return Err(e);
        }
        write_batch(&mut out, batch, plan.format, plan.upper)?;
        left -= k as u64;
        if let Some(p) = progress {
            p.inc(k as u64);
        }
    }
    out.flush()?;
    Ok(())
}

fn run_pipelined(
    plan: &NewPlan,
    source: &mut Source,
    progress: Option<&indicatif::ProgressBar>,
) -> Result<(), Error> {
    use std::sync::mpsc::sync_channel;
    // Full batches go to the writer; emptied ones come back to be refilled.
    let (full_tx, full_rx) = sync_channel::<Vec<Uuid>>(4);
    let (empty_tx, empty_rx) = sync_channel::<Vec<Uuid>>(8);
    let (format, upper) = (plan.format, plan.upper);
    std::thread::scope(|scope| {
        let writer = scope.spawn(move || -> std::io::Result<()> {
            let mut out = super::stdout();
            for batch in full_rx {
                write_batch(&mut out, &batch, format, upper)?;
                if let Some(p) = progress {
                    p.inc(batch.len() as u64);
                }
                // The generator may have stopped taking buffers back: that is fine.
                let _ = empty_tx.try_send(batch);
            }
            out.flush()
        });
        let mut left = plan.count;
        let mut failure = None;
        while left > 0 {
            let k = left.min(PIPE_BATCH as u64) as usize;
            let mut batch = empty_rx.try_recv().unwrap_or_default();
            batch.clear();
            batch.resize(k, Uuid::NIL);
            if let Err(e) = next_batch(plan, source, &mut batch, left == plan.count) {
                failure = Some(e);
                break;
            }
            if full_tx.send(batch).is_err() {
                break; // the writer stopped (its error is reported below)
            }
            left -= k as u64;
        }
        drop(full_tx);
        let written = match writer.join() {
            Ok(r) => r,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        // A write error (a closed pipe above all) wins: the generator stopped because of it.
        written?;
        failure.map_or(Ok(()), Err)
    })
}

/// Formats a batch into the output, one UUID per line.
#[inline]
pub fn write_batch<W: std::io::Write>(
    out: &mut Output<W>,
    batch: &[Uuid],
    format: Format,
    upper: bool,
) -> std::io::Result<()> {
    if format == Format::Canonical && !upper {
        // The hot path: fixed-width lines, formatted straight into the buffer.
        for chunk in batch.chunks(MAX_BULK / 37) {
            out.bulk(chunk.len() * 37, |buf| {
                for (u, line) in chunk.iter().zip(buf.chunks_exact_mut(37)) {
                    api::encode_canonical_lower(u, line);
                    line[36] = b'\n';
                }
            })?;
        }
    } else {
        for u in batch {
            out.with_line(api::MAX_TEXT, |b| api::encode(u, format, upper, b))?;
        }
    }
    Ok(())
}

/// A progress bar only helps a person watching a long run whose output goes elsewhere.
pub fn wants_progress(count: u64, stderr_tty: bool, stdout_tty: bool) -> bool {
    count > 1_000_000 && stderr_tty && !stdout_tty
}

fn progress_bar(count: u64) -> indicatif::ProgressBar {
    let p = indicatif::ProgressBar::with_draw_target(
        Some(count),
        indicatif::ProgressDrawTarget::stderr_with_hz(10),
    );
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "{bar:40} {human_pos}/{human_len} UUIDs, {per_sec}, eta {eta}",
    ) {
        p.set_style(style);
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_only_for_long_runs_watched_on_a_terminal() {
        assert!(wants_progress(1_000_001, true, false));
        assert!(!wants_progress(1_000_000, true, false));
        assert!(!wants_progress(10_000_000, false, false));
        assert!(!wants_progress(10_000_000, true, true));
    }

    #[test]
    fn batch_lines_are_exact() {
        let mut out = Output::new(Vec::new());
        let a = Uuid::from_u128(0x017F22E2_79B0_7CC3_98C4_DC0C0C07398F);
        write_batch(&mut out, &[a, Uuid::MAX], Format::Canonical, false).unwrap();
        write_batch(&mut out, &[a], Format::Urn, true).unwrap();
        out.flush().unwrap();
        let text = String::from_utf8(out_inner(out)).unwrap();
        assert_eq!(
            text,
            "017f22e2-79b0-7cc3-98c4-dc0c0c07398f\nffffffff-ffff-ffff-ffff-ffffffffffff\n\
             urn:uuid:017F22E2-79B0-7CC3-98C4-DC0C0C07398F\n"
        );
    }

    fn out_inner(out: Output<Vec<u8>>) -> Vec<u8> {
        out.into_inner()
    }
}
