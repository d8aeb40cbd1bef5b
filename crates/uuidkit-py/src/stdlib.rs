//! The standard `uuid` module's generators, with its signatures (CPython 3.14's
//! for `uuid6`, `uuid7` and `uuid8`) and semantics, over uuidkit's.

use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::PyInt;
use rand_core::Rng;
use std::sync::atomic::{AtomicBool, Ordering};

use uuidkit::clock::{Clock, CoarseClock, SystemClock};
use uuidkit::generator::ClockBackPolicy;
use uuidkit::rng::ThreadRng;
use uuidkit::sync::ForkSafeMutex;
use uuidkit::{GenError, Generator, Uuid, V1Generator, V6Generator};

use crate::args::{int_in, type_name};
use crate::convert::{UuidType, name_bytes};

/// A generator error as Python sees it: the library's message.
pub fn gen_error(e: GenError) -> PyErr {
    PyRuntimeError::new_err(e.to_string())
}

/// The process-wide generators. Fork-safe: with the interpreter lock, no
/// other thread can hold one when Python forks (they are held attached, and
/// `os.fork` keeps the lock); a free-threaded build has no such lock, and a
/// fork from native code does not take it.
///
/// All on the full-precision clock: each UUID carries the 100-ns tick it was
/// made in, as the standard module's `time_ns() // 100` does, so two
/// processes share a timestamp only when they really run in the same tick.
static V1: ForkSafeMutex<Option<V1Generator<StdClock, ThreadRng>>> = ForkSafeMutex::new(None);
/// `uuid6()` and `uuid6(clock_seq=…)`: a fresh random node (and clock
/// sequence) per UUID.
static V6: ForkSafeMutex<Option<V6Generator<StdClock, ThreadRng>>> = ForkSafeMutex::new(None);
/// `uuid6(node=…)`: the caller's node replaces the node, so the clock
/// sequence is what keeps processes apart. It is drawn once per process (and
/// again in a forked child), as `uuid1`'s: two processes then collide only
/// if they drew the same one (2⁻¹⁴ per pair) and run in the same tick, where
/// one drawn per UUID would give every same-tick pair of UUIDs that chance.
static V6_RETAINED: ForkSafeMutex<Option<V6Generator<StdClock, ThreadRng>>> =
    ForkSafeMutex::new(None);

/// The process-wide generators' clock: the full-precision one; the coarse
/// one only after the hidden test hook [`_test_only_restore`].
#[derive(Clone, Copy, Debug)]
pub enum StdClock {
    /// `SystemClock`: the 100-ns tick of each call.
    Precise,
    /// `CoarseClock`: ticks counted up from one coarse reading.
    Coarse(CoarseClock),
}

/// Set by [`_test_only_restore`]`("coarse_clock")`.
static LEGACY_CLOCK: AtomicBool = AtomicBool::new(false);

impl StdClock {
    fn new() -> StdClock {
        if LEGACY_CLOCK.load(Ordering::Relaxed) {
            StdClock::Coarse(CoarseClock::new())
        } else {
            StdClock::Precise
        }
    }
}

impl Clock for StdClock {
    #[inline]
    fn now_ns(&self) -> u64 {
        match self {
            StdClock::Precise => SystemClock.now_ns(),
            StdClock::Coarse(c) => c.now_ns(),
        }
    }
    #[inline]
    fn resolution_ns(&self) -> u64 {
        match self {
            StdClock::Precise => SystemClock.resolution_ns(),
            StdClock::Coarse(c) => c.resolution_ns(),
        }
    }
}

/// For the uniqueness torture suite's negative controls only: switches one
/// of this module's protections off for the rest of the process and its
/// children, so that a test can show its checker finds the duplicates that
/// follow. `"pid_clock_seq"`: a forked child's v1/v6 clock sequence is
/// derived from process ids, not drawn. `"coarse_clock"`: the process-wide
/// v1/v6 generators count ticks up from the coarse clock, and `uuid6(node=…)`
/// draws its clock sequence per UUID. No program should call it.
#[pyfunction]
pub fn _test_only_restore(what: &str) -> PyResult<()> {
    match what {
        "pid_clock_seq" => uuidkit::__test_only::derive_clock_seq_from_pid(),
        "coarse_clock" => {
            LEGACY_CLOCK.store(true, Ordering::Relaxed);
            *V1.lock() = None;
            *V6.lock() = None;
            *V6_RETAINED.lock() = None;
        }
        _ => {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "expected \"pid_clock_seq\" or \"coarse_clock\", found {what:?}"
            )));
        }
    }
    Ok(())
}

/// A process-wide v6 generator, as CPython 3.14's `uuid6` behaves: when
/// the clock reads earlier than its last timestamp, however far back, it
/// holds above that timestamp (no tolerance, so never an error), as
/// `Uuid::now_v7` does for v7. `retain`: one clock sequence per process.
fn v6_holding(retain: bool) -> V6Generator<StdClock, ThreadRng> {
    let builder = V6Generator::builder().clock_back(ClockBackPolicy::Error, u64::MAX);
    let builder = if retain { builder.retain() } else { builder };
    match builder.build(StdClock::new(), ThreadRng) {
        Ok(g) => g,
        Err(_) => unreachable!("the default configuration with no clock-back limit is valid"),
    }
}

/// `value & mask` with Python's semantics (any int, negative ones too), as
/// the standard module truncates `clock_seq`, `node` and the `uuid8` fields;
/// `name` is the argument's, for the `TypeError` of a value that is not an
/// `int`.
fn masked(name: &str, value: &Bound<'_, PyAny>, mask: u64) -> PyResult<u64> {
    if !value.is_instance_of::<PyInt>() {
        return Err(PyTypeError::new_err(format!(
            "{name}: expected an int, found {}",
            type_name(value)
        )));
    }
    value.bitand(mask)?.extract()
}

/// A node given to `uuid1`: the standard module rejects one beyond 48 bits.
fn node_arg(node: &Bound<'_, PyAny>) -> PyResult<[u8; 6]> {
    let n = int_in("node", node, 0, (1 << 48) - 1)?;
    let b = n.to_be_bytes();
    Ok([b[2], b[3], b[4], b[5], b[6], b[7]])
}

/// A v1 UUID (RFC 9562 §5.1), as `uuid.uuid1(node=None, clock_seq=None)`.
///
/// Timestamps come from one process-wide generator, so they increase from
/// call to call (also when `node` or `clock_seq` is given, which replace that
/// field as given). Each is the 100-ns tick of the call, as the standard
/// module's. Unlike the standard module, the default node is a random 48-bit
/// number with the multicast bit set (RFC 9562 §6.10), chosen once per
/// process: no hardware address is disclosed. Pass `node=uuid.getnode()` for
/// the standard module's choice. The clock sequence is random once per
/// process, drawn again in a forked child.
///
/// A caller who gives both `node` and `clock_seq` fixes every field but the
/// timestamp: two processes doing so make the same UUID whenever they call
/// in the same 100-ns tick, here as with the standard module. Only a state
/// file (`State.uuid1`) makes such processes unique.
#[pyfunction]
#[pyo3(signature = (node=None, clock_seq=None))]
pub fn uuid1<'py>(
    py: Python<'py>,
    node: Option<&Bound<'py, PyAny>>,
    clock_seq: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let node = node.map(node_arg).transpose()?;
    let clock_seq = clock_seq
        .map(|c| masked("clock_seq", c, 0x3fff))
        .transpose()?;
    let u = V1
        .lock()
        .get_or_insert_with(|| V1Generator::new(StdClock::new(), ThreadRng))
        .generate()
        .map_err(gen_error)?;
    let u = replace_gregorian(u, node, clock_seq, Uuid::new_v1_from_parts);
    UuidType::get(py)?.object(py, u)
}

/// `u` with its node and/or clock sequence replaced.
fn replace_gregorian(
    u: Uuid,
    node: Option<[u8; 6]>,
    clock_seq: Option<u64>,
    make: fn(u64, u16, [u8; 6]) -> Uuid,
) -> Uuid {
    if node.is_none() && clock_seq.is_none() {
        return u;
    }
    // A v1/v6 generator makes v1/v6 UUIDs, which have all three fields.
    let (Some(ts), Some(cs), Some(n)) = (u.gregorian_timestamp(), u.clock_seq(), u.node()) else {
        return u;
    };
    make(ts, clock_seq.map_or(cs, |c| c as u16), node.unwrap_or(n))
}

/// A v6 UUID (RFC 9562 §5.6), as CPython 3.14's `uuid.uuid6(node=None,
/// clock_seq=None)`: both are truncated to 48 and 14 bits as there.
///
/// As there, the default node and clock sequence are fresh random values for
/// every UUID (multicast bit set in the node); timestamps are the 100-ns tick
/// of the call and increase from call to call, also when the system clock
/// steps back (however far: the last timestamp is then counted on, never an
/// error). With `node` given and no `clock_seq`, the clock sequence is random
/// once per process (drawn again in a forked child), as `uuid1`'s: two
/// processes can then collide only if they drew the same one. Given both,
/// only a state file makes processes unique (see `uuid1`).
#[pyfunction]
#[pyo3(signature = (node=None, clock_seq=None))]
pub fn uuid6<'py>(
    py: Python<'py>,
    node: Option<&Bound<'py, PyAny>>,
    clock_seq: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let node = node
        .map(|n| masked("node", n, (1 << 48) - 1))
        .transpose()?
        .map(|n| {
            let b = n.to_be_bytes();
            [b[2], b[3], b[4], b[5], b[6], b[7]]
        });
    let clock_seq = clock_seq
        .map(|c| masked("clock_seq", c, 0x3fff))
        .transpose()?;
    let per_process = !LEGACY_CLOCK.load(Ordering::Relaxed);
    let (process, retain) = if node.is_some() && clock_seq.is_none() && per_process {
        (&V6_RETAINED, true)
    } else {
        (&V6, false)
    };
    let u = process
        .lock()
        .get_or_insert_with(|| v6_holding(retain))
        .generate()
        .map_err(gen_error)?;
    let u = replace_gregorian(u, node, clock_seq, Uuid::new_v6_from_parts);
    UuidType::get(py)?.object(py, u)
}

/// A v3 UUID (RFC 9562 §5.3, MD5), as `uuid.uuid3(namespace, name)`.
#[pyfunction]
pub fn uuid3<'py>(
    py: Python<'py>,
    namespace: &Bound<'py, PyAny>,
    name: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let t = UuidType::get(py)?;
    let ns = t.value(namespace)?;
    t.object(py, Uuid::new_v3(&ns, &name_bytes(name)?))
}

/// A v5 UUID (RFC 9562 §5.5, SHA-1), as `uuid.uuid5(namespace, name)`.
#[pyfunction]
pub fn uuid5<'py>(
    py: Python<'py>,
    namespace: &Bound<'py, PyAny>,
    name: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let t = UuidType::get(py)?;
    let ns = t.value(namespace)?;
    t.object(py, Uuid::new_v5(&ns, &name_bytes(name)?))
}

/// A v8 UUID (RFC 9562 §5.8), as CPython 3.14's `uuid.uuid8(a=None, b=None,
/// c=None)`: `a` (48 bits), `b` (12 bits) and `c` (62 bits) are truncated to
/// their width; each one not given is random.
#[pyfunction]
#[pyo3(signature = (a=None, b=None, c=None))]
pub fn uuid8<'py>(
    py: Python<'py>,
    a: Option<&Bound<'py, PyAny>>,
    b: Option<&Bound<'py, PyAny>>,
    c: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let mut rng = ThreadRng;
    let mut field = |name: &str, v: Option<&Bound<'py, PyAny>>, bits: u32| match v {
        Some(v) => masked(name, v, (1u64 << bits) - 1),
        None => Ok(rng.next_u64() & ((1u64 << bits) - 1)),
    };
    let (a, b, c) = (field("a", a, 48)?, field("b", b, 12)?, field("c", c, 62)?);
    let u = Uuid::new_v8_from_parts(a, b as u16, c);
    UuidType::get(py)?.object(py, u)
}
