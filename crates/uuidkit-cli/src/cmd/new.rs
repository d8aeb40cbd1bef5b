//! `uuidkit new KIND`: generation.
//!
//! UUIDs are produced in batches (one library `fill` per batch where the library
//! has one), formatted straight into the output buffer and written in ~1 MiB
//! chunks. Above one million UUIDs, with stderr on a terminal and stdout not, a
//! progress bar is drawn on stderr.
//!
//! With `--node-from` or `--site-node` the run holds a node lease from before the first UUID to
//! the end, and writes through [`lease::Guarded`], which writes nothing once the lease is lost.

use std::io::{IsTerminal, Write};

use uuidkit::{Hyphenated, Uuid};

use crate::error::{Error, Outcome};
use crate::flags::{Format, NewPlan};
use crate::output::{MAX_BULK, Output};

mod backend;
mod lease;
mod rng;
pub mod snowflake;
mod source;

pub use source::Source;

/// UUIDs per batch: small enough to stay in L1/L2 with its text, large enough to
/// amortise the per-batch costs (one clock read for v7).
const BATCH: usize = 4096;

/// Runs `new`.
///
/// One thread: a two-thread pipeline (generate | format+write) measured slower
/// (benchmarks/cli.md), so the code stays simple.
pub fn run(plan: &NewPlan) -> Result<Outcome, Error> {
    match &plan.lease {
        None => generate(plan, Source::new(plan, None)?, super::stdout()),
        Some(lease) => lease::run(plan, lease),
    }
}

fn generate<W: Write>(
    plan: &NewPlan,
    mut source: Source,
    out: Output<W>,
) -> Result<Outcome, Error> {
    let progress = wants_progress(
        plan.count,
        std::io::stderr().is_terminal(),
        std::io::stdout().is_terminal(),
    )
    .then(|| progress_bar(plan.count));
    let mut out = out.with_prefix(&plan.prefix);
    let mut batch = vec![Uuid::NIL; BATCH];
    let mut left = plan.count;
    while left > 0 {
        let k = left.min(BATCH as u64) as usize;
        let batch = &mut batch[..k];
        if let Err(e) = source.fill(batch) {
            // What was generated before the failure is valid and already issued: print it.
            out.flush()?;
            return Err(e);
        }
        source.warn_if_unsafe(plan.state.as_deref());
        write_batch(&mut out, batch, plan.format, plan.upper)?;
        left -= k as u64;
        if let Some(p) = &progress {
            p.inc(k as u64);
        }
    }
    out.flush()?;
    if let Some(p) = progress {
        p.finish_and_clear();
    }
    Ok(Outcome::Success)
}

/// Formats a batch into the output, one UUID per line.
#[inline]
pub fn write_batch<W: std::io::Write>(
    out: &mut Output<W>,
    batch: &[Uuid],
    format: Format,
    upper: bool,
) -> std::io::Result<()> {
    if format == Format::Canonical {
        // The hot path: fixed-width lines, formatted straight into the buffer by
        // the library's bulk encoder (many UUIDs per call, SIMD).
        const LINE: usize = Hyphenated::LINE_LENGTH;
        for chunk in batch.chunks(MAX_BULK / LINE) {
            out.bulk(chunk.len() * LINE, |buf| {
                if upper {
                    Hyphenated::encode_lines_upper(chunk, buf);
                } else {
                    Hyphenated::encode_lines_lower(chunk, buf);
                }
            })?;
        }
    } else {
        for u in batch {
            out.uuid(u, format, upper)?;
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

    #[test]
    fn bulk_canonical_lines_match_the_per_uuid_forms() {
        // Longer than a bulk block, and not a multiple of the formatter's 16-UUID period.
        let n = MAX_BULK / Hyphenated::LINE_LENGTH + 21;
        let mut batch = vec![Uuid::NIL; n];
        Uuid::fill_v7(&mut batch);
        batch[3] = Uuid::MAX;
        for upper in [false, true] {
            let mut out = Output::new(Vec::new());
            write_batch(&mut out, &batch, Format::Canonical, upper).unwrap();
            out.flush().unwrap();
            let text = String::from_utf8(out_inner(out)).unwrap();
            let want: String = batch
                .iter()
                .map(|u| {
                    if upper {
                        format!("{u:X}\n")
                    } else {
                        format!("{u}\n")
                    }
                })
                .collect();
            assert_eq!(text, want, "upper {upper}");
        }
    }

    fn out_inner(out: Output<Vec<u8>>) -> Vec<u8> {
        out.into_inner()
    }
}
