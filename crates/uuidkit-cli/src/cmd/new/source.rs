//! Where generated UUIDs come from: one library [`Generator`] per plan,
//! configured through the library's builders.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use rand_core::TryRng;
use uuidkit::clock::{ManualClock, SystemClock};
use uuidkit::generator::{V1Builder, V6Builder, V7Method};
use uuidkit::rng::ThreadRng;
use uuidkit::{
    GenError, Generator, Uuid, V1Generator, V6Generator, V7Generator, V8Distributed,
    V8TimeGenerator,
};
use uuidkit_lease::LeaseSlot;
use uuidkit_state::{BlockPolicy, FileStore, GregorianLease, Reserver, Status};

use super::rng::GenRng;

use crate::error::Error;
use crate::flags::{Kind, MethodArg, NewPlan, NodeChoice};
use crate::time::{self, Nanos};

/// A configured generator that fills batches.
pub struct Source {
    generator: Box<dyn Generator>,
    /// The state file's reserver, for generators that use one.
    reserver: Option<Reserver>,
    kind: Kind,
    /// Warnings already printed (each is printed once per run).
    warned: std::cell::RefCell<Vec<String>>,
}

/// The same UUID every time: nil, max, name-based.
struct Repeat(Uuid);

impl Generator for Repeat {
    fn generate(&mut self) -> Result<Uuid, GenError> {
        Ok(self.0)
    }
    fn fill(&mut self, out: &mut [Uuid]) -> Result<(), GenError> {
        out.fill(self.0);
        Ok(())
    }
}

/// One of the library's process-wide generators, through its one-UUID and
/// batch functions: v4 from the thread's CSPRNG, or v7 from the process-wide
/// generator (`Uuid::fill_v7`, the default).
struct ProcessWide {
    one: fn() -> Uuid,
    batch: fn(&mut [Uuid]),
}

impl Generator for ProcessWide {
    fn generate(&mut self) -> Result<Uuid, GenError> {
        Ok((self.one)())
    }
    fn fill(&mut self, out: &mut [Uuid]) -> Result<(), GenError> {
        (self.batch)(out);
        Ok(())
    }
}

const RANDOM_V4: ProcessWide = ProcessWide {
    one: Uuid::new_v4,
    batch: Uuid::fill_v4,
};

const PROCESS_V7: ProcessWide = ProcessWide {
    one: Uuid::now_v7,
    batch: Uuid::fill_v7,
};

/// v8 with all 122 custom bits random (CPython's `uuid.uuid8()` with no
/// arguments): nothing of the time or the host in it.
struct RandomV8(GenRng);

impl Generator for RandomV8 {
    fn generate(&mut self) -> Result<Uuid, GenError> {
        let mut bytes = [0u8; 16];
        let Ok(()) = self.0.try_fill_bytes(&mut bytes);
        Ok(Uuid::new_v8(bytes))
    }
}

/// A node for `--node random`: 48 fresh random bits with the multicast bit
/// set (RFC 9562 §6.10), so it cannot be any host's MAC. Given to the
/// generator as an explicit node, it replaces a node kept in `--state`
/// (which then starts a new clock sequence for it).
fn random_node() -> [u8; 6] {
    let mut node = [0u8; 6];
    let Ok(()) = GenRng::for_generator().try_fill_bytes(&mut node);
    node[0] |= 0x01;
    node
}

/// v1/v6 at a fixed time: successive UUIDs take successive 100-ns ticks from
/// `ts60`. Laid out directly rather than through a generator on a
/// [`ManualClock`] because `--at` reaches back to 1582, before the Unix epoch
/// a [`uuidkit::clock::Clock`] starts at. [`Source::new`] checked that every tick of
/// the run fits the 60-bit field.
struct FixedGregorian {
    ts60: u64,
    clock_seq: u16,
    node: [u8; 6],
    v6: bool,
}

impl Generator for FixedGregorian {
    fn generate(&mut self) -> Result<Uuid, GenError> {
        let u = if self.v6 {
            Uuid::new_v6_from_parts(self.ts60, self.clock_seq, self.node)
        } else {
            Uuid::new_v1_from_parts(self.ts60, self.clock_seq, self.node)
        };
        self.ts60 += 1;
        Ok(u)
    }
}

/// The warning for a reservation that found the clock behind the stored mark
/// by `by` (milliseconds for v7, 100-ns ticks for v1/v6).
fn behind_message(kind: Kind, by: u64) -> String {
    if kind == Kind::V7 {
        format!(
            "the clock is behind the stored v7 mark by {}.{:03} s; continuing above the mark",
            by / 1_000,
            by % 1_000
        )
    } else {
        format!(
            "the clock is behind the stored {} mark by {}.{:07} s; new clock sequence",
            if kind == Kind::V6 { "v6" } else { "v1" },
            by / 10_000_000,
            by % 10_000_000
        )
    }
}

fn gen_error(e: GenError) -> Error {
    match e.node_lost() {
        Some(lost) => Error::Lost(*lost),
        None => Error::Failed(format!("generation failed: {e}")),
    }
}

fn method(method: Option<MethodArg>) -> V7Method {
    match method {
        None | Some(MethodArg::Counter) => V7Method::Counter { bits: 42 },
        Some(MethodArg::Random) => V7Method::MonotonicRandom { increment_bits: 32 },
        Some(MethodArg::Submillis) => V7Method::SubMillisCounter {
            frac_bits: 12,
            counter_bits: 30,
        },
    }
}

/// The name-based UUID of a v3, v5 or v8 plan with a name.
fn name_based(plan: &NewPlan) -> Option<Uuid> {
    let (ns, name) = plan.name.as_ref()?;
    match plan.kind {
        Kind::V3 => Some(Uuid::new_v3(ns, name)),
        Kind::V5 => Some(Uuid::new_v5(ns, name)),
        Kind::V8 => Some(Uuid::new_v8_name(plan.hash.into(), ns, name)),
        _ => None,
    }
}

/// `setting(builder, value)` if the value was given, else the builder as is.
fn given<B, T>(builder: B, value: Option<T>, setting: fn(B, T) -> B) -> B {
    match value {
        Some(v) => setting(builder, v),
        None => builder,
    }
}

fn v7(plan: &NewPlan, reserver: Option<&Reserver>) -> Result<Box<dyn Generator>, Error> {
    let builder = V7Generator::builder().method(method(plan.method));
    Ok(match (plan.at, reserver, plan.method) {
        (Some(at), _, _) => {
            // A fixed time: the clock stands still, the counter orders the batch.
            // hiargs checked that `at` is in the v7 range.
            // The clock stands at the offset within the millisecond; the
            // generator's time starts at the millisecond, so the whole 48-bit
            // range is reachable (past the end of a nanosecond clock in 2554).
            let ms = time::to_unix_ms(at, false).map_err(Error::Usage)?;
            let within_ms = (at - time::from_unix_ms(ms)) as u64;
            let clock = ManualClock::new(within_ms);
            Box::new(
                builder
                    .start_ms(ms)
                    .build(clock, ThreadRng)
                    .map_err(gen_error)?,
            )
        }
        (None, Some(r), _) => Box::new(
            builder
                .store(r.lease_v7())
                .build(SystemClock, ThreadRng)
                .map_err(gen_error)?,
        ),
        (None, None, Some(_)) => {
            Box::new(builder.build(SystemClock, ThreadRng).map_err(gen_error)?)
        }
        (None, None, None) => Box::new(PROCESS_V7),
    })
}

/// v1/v6 at a fixed time, with the given clock sequence and node or random ones.
fn fixed_gregorian(
    plan: &NewPlan,
    at: Nanos,
    mac: Option<[u8; 6]>,
) -> Result<FixedGregorian, Error> {
    // hiargs checked that `at` and the `count` ticks after it are in range.
    let ts60 = time::to_ts60(at).map_err(Error::Usage)?;
    // The library's defaults: a random clock sequence, a random multicast node.
    let defaults = v1_builder(plan, mac)
        .build(ManualClock::new(0), ThreadRng)
        .map_err(gen_error)?;
    Ok(FixedGregorian {
        ts60,
        clock_seq: defaults.clock_seq(),
        node: defaults.node(),
        v6: plan.kind == Kind::V6,
    })
}

fn gregorian(
    plan: &NewPlan,
    reserver: Option<&Reserver>,
    leased: Option<Arc<LeaseSlot>>,
) -> Result<Box<dyn Generator>, Error> {
    let mac = match plan.node {
        NodeChoice::Mac(m) => Some(m),
        NodeChoice::Random => Some(random_node()),
        NodeChoice::Default => None,
    };
    if let Some(at) = plan.at {
        return Ok(Box::new(fixed_gregorian(plan, at, mac)?));
    }
    // The leased node and the state file's lease, each when given: `None`
    // attaches nothing. The full-precision clock: each UUID carries the
    // 100-ns tick it was made in, so processes with one node share a
    // timestamp only when they really run in the same tick.
    let clock = SystemClock;
    if plan.kind == Kind::V6 {
        let builder = given(V6Generator::builder(), plan.clock_seq, V6Builder::clock_seq);
        let g = given(builder, mac, V6Builder::node)
            .node_source(leased)
            .store(reserver.map(|r| lease(r.lease_v6(), plan.clock_seq)))
            .build(clock, GenRng::for_generator())
            .map_err(gen_error)?;
        return Ok(Box::new(g));
    }
    let g = v1_builder(plan, mac)
        .node_source(leased)
        .store(reserver.map(|r| lease(r.lease_v1(), plan.clock_seq)))
        .build(clock, GenRng::for_generator())
        .map_err(gen_error)?;
    Ok(Box::new(g))
}

/// Time-based v8: the §6.4 distributed layout with the leased node, else the 10-ns time layout
/// (at a fixed time or now).
fn v8_time(plan: &NewPlan, leased: Option<Arc<LeaseSlot>>) -> Result<Box<dyn Generator>, Error> {
    if let Some(slot) = leased {
        return Ok(Box::new(
            V8Distributed::builder()
                .node_source(slot)
                .build(SystemClock, GenRng::for_generator())
                .map_err(gen_error)?,
        ));
    }
    Ok(match plan.at {
        Some(at) => {
            // hiargs checked that `at` is in the v8 range (to 2335).
            let units = time::to_v8_10ns(at).map_err(Error::Usage)?;
            let clock = ManualClock::new(units * 10 + (at.rem_euclid(10)) as u64);
            Box::new(V8TimeGenerator::new(clock, GenRng::for_generator()))
        }
        None => Box::new(V8TimeGenerator::new(SystemClock, GenRng::for_generator())),
    })
}

/// A v1/v6 lease that starts fresh state with `--clock-seq`, if given.
fn lease(lease: GregorianLease, clock_seq: Option<u16>) -> GregorianLease {
    given(lease, clock_seq, GregorianLease::with_clock_seq)
}

/// `--clock-seq` with `--state`: honoured on fresh state, or for another
/// node than the stored one (which takes a fresh clock sequence anyway), or
/// when equal to the stored one; otherwise a usage error, since a stored
/// clock sequence changes only when the clock goes back (RFC 9562 §6.3).
fn check_clock_seq(plan: &NewPlan, cs: u16, store: &FileStore, path: &Path) -> Result<(), Error> {
    let Ok(rec) = store.load() else {
        return Ok(());
    };
    let v6 = plan.kind == Kind::V6;
    let v = if v6 { "v6" } else { "v1" };
    // A given MAC is looked up among every node the file keeps a sequence
    // for (the current one and the earlier ones it remembers); without one,
    // the generator takes over the file's current node.
    let mark = match plan.node {
        NodeChoice::Mac(n) if v6 => rec.v6_mark(n),
        NodeChoice::Mac(n) => rec.v1_mark(n),
        // A fresh random node: a fresh clock sequence, whichever is asked for.
        NodeChoice::Random => None,
        _ if v6 => rec.v6,
        _ => rec.v1,
    };
    let Some(m) = mark else {
        return Ok(());
    };
    if m.clock_seq == cs & 0x3FFF {
        return Ok(());
    }
    Err(Error::Usage(format!(
        "--clock-seq {cs:#06x} conflicts with --state {}: it holds {v} clock sequence {:#06x} \
         for this node, which changes only when the clock goes back; omit --clock-seq, \
         or give --node another MAC or --state another file",
        path.display(),
        m.clock_seq
    )))
}

fn v1_builder(plan: &NewPlan, mac: Option<[u8; 6]>) -> V1Builder {
    let builder = given(V1Generator::builder(), plan.clock_seq, V1Builder::clock_seq);
    given(builder, mac, V1Builder::node)
}

impl Source {
    /// Configures the generator for `plan`; v1, v6 and v8 take their node from `leased` when
    /// given (`--node-from`, `--site-node`).
    pub fn new(plan: &NewPlan, leased: Option<Arc<LeaseSlot>>) -> Result<Source, Error> {
        let reserver = match plan.state.as_deref() {
            Some(p) => {
                // Refuse up front what the library would only work around:
                // a path that is not a regular file or not a state file (it is
                // left untouched), or a directory that does not exist (a typo
                // is not created).
                let store = FileStore::new(p).new_state(plan.new_state);
                store.check().map_err(|e| {
                    Error::Failed(format!("--state {}: {}", p.display(), e.detail()))
                })?;
                if let Some(cs) = plan.clock_seq {
                    check_clock_seq(plan, cs, &store, p)?;
                }
                let store = match plan.lock_timeout_ms {
                    Some(ms) => store.with_lock_timeout(Duration::from_millis(ms)),
                    None => store,
                };
                Some(Reserver::new(store, BlockPolicy::default()).strict(plan.strict))
            }
            None => None,
        };
        let generator: Box<dyn Generator> = match (plan.kind, name_based(plan)) {
            (_, Some(u)) => Box::new(Repeat(u)),
            (Kind::Nil, None) => Box::new(Repeat(Uuid::NIL)),
            (Kind::Max, None) => Box::new(Repeat(Uuid::MAX)),
            (Kind::V3 | Kind::V5, None) => unreachable!("hiargs requires a name for v3/v5"),
            (Kind::Snowflake, None) => unreachable!("hiargs plans snowflake runs on their own"),
            (Kind::V4, None) => Box::new(RANDOM_V4),
            (Kind::V7, None) => v7(plan, reserver.as_ref())?,
            (Kind::V1 | Kind::V6, None) => gregorian(plan, reserver.as_ref(), leased)?,
            (Kind::V8, None) if plan.random_v8 => Box::new(RandomV8(GenRng::for_generator())),
            (Kind::V8, None) => v8_time(plan, leased)?,
        };
        Ok(Source {
            generator,
            reserver,
            kind: plan.kind,
            warned: Default::default(),
        })
    }

    /// Fills `batch` with the next UUIDs.
    pub fn fill(&mut self, batch: &mut [Uuid]) -> Result<(), Error> {
        self.generator.fill(batch).map_err(|e| match self.status() {
            // `--strict`: say why the state file was unavailable, and where.
            Some(status) if e.kind() == uuidkit::generator::GenErrorKind::Store => {
                // The error names the class; the status's detail says where.
                Error::Failed(format!(
                    "generation failed: {e}: {}",
                    status
                        .reason()
                        .map_or_else(String::new, |r| r.detail().to_string())
                ))
            }
            _ => gen_error(e),
        })
    }

    /// The state file's status, for generators that use one.
    pub fn status(&self) -> Option<Status> {
        self.reserver.as_ref().and_then(Reserver::last_status)
    }

    /// Warns on stderr when the state file could not be used safely, or when
    /// the clock is behind its mark; each warning once per run, so it can be
    /// called after every batch.
    pub fn warn_if_unsafe(&self, path: Option<&Path>) {
        let Some(path) = path else { return };
        let mut lines = Vec::new();
        if let Some(by) = self.reserver.as_ref().and_then(Reserver::clock_behind) {
            lines.push(behind_message(self.kind, by));
        }
        if let Some(status) = self.status() {
            // A missing file is simply the first use; the mark ahead of the
            // clock has its own line; anything else is worth a word.
            let first_use = |e: &&uuidkit_state::StateError| {
                e.kind() == uuidkit_state::StateErrorKind::Missing && status.is_persisted()
            };
            let reason = status.write_error().or(status.read_error());
            if let Some(reason) = reason.filter(|e| !first_use(e)) {
                lines.push(reason.to_string());
            }
        }
        let mut warned = self.warned.borrow_mut();
        for line in lines {
            if !warned.contains(&line) {
                let _ = writeln!(
                    std::io::stderr(),
                    "uuidkit: warning: state file {}: {line}",
                    path.display()
                );
                warned.push(line);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flags::{Format, HashArg};

    fn plan(kind: Kind) -> NewPlan {
        NewPlan {
            kind,
            count: 3,
            format: Format::Canonical,
            upper: false,
            prefix: String::new(),
            name: Some((uuidkit::namespace::DNS, b"www.example.com".to_vec())),
            hash: HashArg::Sha256,
            at: None,
            clock_seq: None,
            node: NodeChoice::Default,
            method: None,
            state: None,
            strict: false,
            new_state: false,
            lock_timeout_ms: None,
            lease: None,
            random_v8: false,
        }
    }

    fn batch(plan: &NewPlan) -> [Uuid; 3] {
        let mut out = [Uuid::NIL; 3];
        Source::new(plan, None).unwrap().fill(&mut out).unwrap();
        out
    }

    #[test]
    fn name_based_vectors() {
        let vectors = [
            (Kind::V3, 0x5df41881_3aed_3515_88a7_2f4a814cf09e),
            (Kind::V5, 0x2ed6657d_e927_568b_95e1_2665a8aea6a2),
            (Kind::V8, 0x5c146b14_3c52_8afd_938a_375d0df1fbf6),
        ];
        for (kind, want) in vectors {
            assert_eq!(batch(&plan(kind)), [Uuid::from_u128(want); 3], "{kind:?}");
        }
        let hashes = [
            (HashArg::Sha256, uuidkit::NameHash::Sha256),
            (HashArg::Sha512, uuidkit::NameHash::Sha512),
            (HashArg::Sha3_256, uuidkit::NameHash::Sha3_256),
            (HashArg::Sha3_512, uuidkit::NameHash::Sha3_512),
            (HashArg::Shake128, uuidkit::NameHash::Shake128),
            (HashArg::Shake256, uuidkit::NameHash::Shake256),
        ];
        for (arg, hash) in hashes {
            let p = NewPlan {
                hash: arg,
                ..plan(Kind::V8)
            };
            let want = Uuid::new_v8_name(hash, &uuidkit::namespace::DNS, b"www.example.com");
            assert_eq!(batch(&p)[0], want, "{arg:?}");
        }
    }

    #[test]
    fn fixed_time_v1_and_v6_take_successive_ticks() {
        let at = time::parse("1600-01-01T00:00:00Z").unwrap();
        let p = NewPlan {
            at: Some(at),
            clock_seq: Some(0x33C8),
            node: NodeChoice::Mac([0x9F, 0x6B, 0xDE, 0xCE, 0xD8, 0x46]),
            name: None,
            ..plan(Kind::V1)
        };
        let v1 = batch(&p);
        let ts = time::to_ts60(at).unwrap();
        for (i, u) in v1.iter().enumerate() {
            assert_eq!(u.gregorian_timestamp(), Some(ts + i as u64));
            assert_eq!(
                (u.clock_seq(), u.node()),
                (Some(0x33C8), Some([0x9F, 0x6B, 0xDE, 0xCE, 0xD8, 0x46]))
            );
        }
        let v6 = batch(&NewPlan {
            kind: Kind::V6,
            ..p.clone()
        });
        assert_eq!(v6.map(|u| u.to_v1().unwrap()), v1);
    }
}
