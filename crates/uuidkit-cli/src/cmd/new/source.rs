//! Where generated UUIDs come from: one library generator per kind, configured
//! from the validated plan.

use std::io::Write;
use std::path::Path;

use uuidkit::state::{BlockPolicy, FileStore, Reserver, Status, StoredV1, StoredV6, StoredV7};
use uuidkit::{
    CoarseClock, GenError, ManualClock, RolloverPolicy, SystemClock, ThreadRng, Uuid, V1Generator,
    V6Generator, V7Config, V7Generator, V7Method, V8TimeGenerator,
};

use crate::api;
use crate::error::Error;
use crate::flags::{Kind, MethodArg, NewPlan, NodeChoice};
use crate::time::{self, Nanos};

/// A configured generator that fills batches.
pub enum Source {
    /// The same UUID every time (nil, max, name-based).
    Constant(Uuid),
    /// v4 from the thread's CSPRNG.
    V4,
    /// v7 from the process-wide generator (`Uuid::fill_v7`): the default.
    V7Global,
    /// v7 from a configured generator on the system clock (`--method`).
    V7(V7Generator<SystemClock, ThreadRng>),
    /// v7 at a fixed time: the clock stands still, the counter orders the batch.
    V7At(V7Generator<ManualClock, ThreadRng>),
    /// v7 with blocks reserved in a state file shared with other processes.
    V7Stored(StoredV7<SystemClock, ThreadRng>),
    /// v1 on the system clock.
    V1(V1Generator<CoarseClock, ThreadRng>),
    /// v6 on the system clock.
    V6(V6Generator<CoarseClock, ThreadRng>),
    /// v1 with a state file.
    V1Stored(StoredV1<CoarseClock, ThreadRng>),
    /// v6 with a state file.
    V6Stored(StoredV6<CoarseClock, ThreadRng>),
    /// v1/v6 at a fixed time: successive UUIDs take successive 100-ns ticks.
    GregorianAt {
        /// Next timestamp.
        ts60: u64,
        /// Clock sequence.
        clock_seq: u16,
        /// Node.
        node: [u8; 6],
        /// v6 layout instead of v1.
        v6: bool,
    },
    /// Time-based v8 (RFC 9562 App. B.1 layout), now or at a fixed time.
    V8Time(V8TimeGenerator<SystemClock, ThreadRng>, Option<u64>),
}

fn gen_error(e: GenError) -> Error {
    Error::Failed(format!("generation failed: {e}"))
}

fn reserver(path: &Path) -> Reserver {
    Reserver::new(FileStore::new(path), BlockPolicy::default())
}

fn v7_config(method: Option<MethodArg>) -> V7Config {
    let method = match method {
        None | Some(MethodArg::Counter) => V7Method::Counter { bits: 42 },
        Some(MethodArg::Random) => V7Method::MonotonicRandom { increment_bits: 32 },
        Some(MethodArg::Submillis) => V7Method::SubMillisCounter {
            frac_bits: 12,
            counter_bits: 30,
        },
    };
    V7Config::new().method(method)
}

/// `--at` as the generators take it (nanoseconds since 1970, unsigned).
fn unix_ns(at: Nanos) -> Result<u64, Error> {
    u64::try_from(at).map_err(|_| {
        Error::Usage(format!(
            "invalid value for --at: {} is before 1970, which this kind cannot represent",
            time::format_rfc3339(at, 9)
        ))
    })
}

impl Source {
    /// Configures the generator for `plan`.
    pub fn new(plan: &NewPlan) -> Result<Source, Error> {
        let state = plan.state.as_deref();
        Ok(match plan.kind {
            Kind::Nil => Source::Constant(Uuid::NIL),
            Kind::Max => Source::Constant(Uuid::MAX),
            Kind::V3 | Kind::V5 | Kind::V8 if plan.name.is_some() => {
                let Some((ns, name)) = &plan.name else {
                    unreachable!("checked by the guard")
                };
                let version = match plan.kind {
                    Kind::V3 => 3,
                    Kind::V5 => 5,
                    _ => 8,
                };
                Source::Constant(api::name_based(version, plan.hash, ns, name))
            }
            Kind::V3 | Kind::V5 => unreachable!("hiargs requires a name for v3/v5"),
            Kind::V4 => Source::V4,
            Kind::V7 => {
                let cfg = v7_config(plan.method);
                if let Some(at) = plan.at {
                    let clock = ManualClock::new(unix_ns(at)?);
                    Source::V7At(
                        V7Generator::with_config(clock, ThreadRng, cfg).map_err(gen_error)?,
                    )
                } else {
                    let g =
                        V7Generator::with_config(SystemClock, ThreadRng, cfg).map_err(gen_error)?;
                    match (state, plan.method) {
                        (Some(p), _) => Source::V7Stored(g.with_store(reserver(p))),
                        (None, Some(_)) => Source::V7(g),
                        (None, None) => Source::V7Global,
                    }
                }
            }
            Kind::V1 | Kind::V6 => {
                let v6 = plan.kind == Kind::V6;
                let mac = match plan.node {
                    NodeChoice::Mac(m) => Some(m),
                    NodeChoice::Default | NodeChoice::Random => None,
                };
                if let Some(at) = plan.at {
                    // A fixed time: lay out the UUIDs directly, so that any time from
                    // 1582 on works; clock sequence and node are random unless given.
                    let dflt = V1Generator::new(CoarseClock::new(), ThreadRng);
                    let ts60 = time::to_ts60(at).map_err(Error::Usage)?;
                    // Successive UUIDs take successive ticks: all of them must fit.
                    if plan.count > 0
                        && ts60
                            .checked_add(plan.count - 1)
                            .is_none_or(|t| t >= 1 << 60)
                    {
                        return Err(Error::Usage(format!(
                            "--at {} with {} UUIDs runs past the end of the 60-bit v1/v6 timestamp \
                             ({}): expected at most {}",
                            time::format_rfc3339(at, 7),
                            plan.count,
                            time::format_rfc3339(time::from_ts60((1 << 60) - 1), 7),
                            (1u64 << 60) - ts60
                        )));
                    }
                    return Ok(Source::GregorianAt {
                        ts60,
                        clock_seq: plan.clock_seq.unwrap_or_else(|| dflt.clock_seq()),
                        node: mac.unwrap_or_else(|| dflt.node()),
                        v6,
                    });
                }
                if v6 {
                    let mut g = V6Generator::new(CoarseClock::new(), ThreadRng);
                    if let Some(cs) = plan.clock_seq {
                        g = g.with_clock_seq(cs).retain();
                    }
                    if let Some(m) = mac {
                        g = g.with_node(m).retain();
                    }
                    match state {
                        Some(p) => Source::V6Stored(match mac {
                            Some(m) => g.with_store_and_node(reserver(p), m),
                            None => g.with_store(reserver(p)),
                        }),
                        None => Source::V6(g),
                    }
                } else {
                    let mut g = V1Generator::new(CoarseClock::new(), ThreadRng)
                        .with_rollover(RolloverPolicy::Wait);
                    if let Some(cs) = plan.clock_seq {
                        g = g.with_clock_seq(cs);
                    }
                    if let Some(m) = mac {
                        g = g.with_node(m);
                    }
                    match state {
                        Some(p) => Source::V1Stored(match mac {
                            Some(m) => g.with_store_and_node(reserver(p), m),
                            None => g.with_store(reserver(p)),
                        }),
                        None => Source::V1(g),
                    }
                }
            }
            Kind::V8 => {
                let at = plan.at.map(unix_ns).transpose()?;
                Source::V8Time(V8TimeGenerator::new(SystemClock, ThreadRng), at)
            }
        })
    }

    /// Fills `batch` with the next UUIDs.
    pub fn fill(&mut self, batch: &mut [Uuid]) -> Result<(), Error> {
        match self {
            Source::Constant(u) => batch.fill(*u),
            Source::V4 => Uuid::fill_v4(batch),
            Source::V7Global => Uuid::fill_v7(batch),
            Source::V7(g) => g.fill(batch).map_err(gen_error)?,
            Source::V7At(g) => g.fill(batch).map_err(gen_error)?,
            Source::V7Stored(g) => g.fill(batch).map_err(gen_error)?,
            Source::V1(g) => g.fill(batch).map_err(gen_error)?,
            Source::V6(g) => g.fill(batch).map_err(gen_error)?,
            Source::V1Stored(g) => g.fill(batch).map_err(gen_error)?,
            Source::V6Stored(g) => g.fill(batch).map_err(gen_error)?,
            Source::GregorianAt {
                ts60,
                clock_seq,
                node,
                v6,
            } => {
                // Source::new checked that every tick of the run fits in 60 bits.
                for slot in batch {
                    *slot = if *v6 {
                        Uuid::new_v6_from_parts(*ts60, *clock_seq, *node)
                    } else {
                        Uuid::new_v1_from_parts(*ts60, *clock_seq, *node)
                    };
                    *ts60 += 1;
                }
            }
            Source::V8Time(g, at) => {
                for slot in batch {
                    *slot = match at {
                        Some(t) => g.at(*t),
                        None => g.generate(),
                    }
                    .map_err(gen_error)?;
                }
            }
        }
        Ok(())
    }

    /// The state file's status, for generators that use one.
    pub fn status(&self) -> Option<Status> {
        match self {
            Source::V7Stored(g) => g.status(),
            Source::V1Stored(g) => g.status(),
            Source::V6Stored(g) => g.status(),
            _ => None,
        }
    }

    /// Warns on stderr when the state file could not be used safely (call once).
    pub fn warn_if_unsafe(&self, path: Option<&Path>) {
        if let (Some(status), Some(path)) = (self.status(), path) {
            // A missing file is simply the first use; anything else is worth a word.
            let first_use = |e: &&uuidkit::state::StateError| {
                e.kind() == uuidkit::state::StateErrorKind::Missing && status.is_persisted()
            };
            if let Some(reason) = status.reason().filter(|e| !first_use(e)) {
                let _ = writeln!(
                    std::io::stderr(),
                    "uuidkit: warning: state file {}: {reason}",
                    path.display()
                );
            }
        }
    }
}
