//! The standard `uuid` module's generators, with its signatures (CPython 3.14's
//! for `uuid6`, `uuid7` and `uuid8`) and semantics, over uuidkit's.

use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::PyInt;
use rand_core::Rng;
use uuidkit::clock::CoarseClock;
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
static V1: ForkSafeMutex<Option<V1Generator<CoarseClock, ThreadRng>>> = ForkSafeMutex::new(None);
static V6: ForkSafeMutex<Option<V6Generator<CoarseClock, ThreadRng>>> = ForkSafeMutex::new(None);

/// The process-wide v6 generator, as CPython 3.14's `uuid6` behaves: when
/// the clock reads earlier than its last timestamp, however far back, it
/// holds above that timestamp (no tolerance, so never an error), as
/// `Uuid::now_v7` does for v7.
fn v6_holding() -> V6Generator<CoarseClock, ThreadRng> {
    match V6Generator::builder()
        .clock_back(ClockBackPolicy::Error, u64::MAX)
        .build(CoarseClock::new(), ThreadRng)
    {
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
/// field as given). Unlike the standard module, the default node is a random
/// 48-bit number with the multicast bit set (RFC 9562 §6.10), chosen once per
/// process: no hardware address is disclosed. Pass `node=uuid.getnode()` for
/// the standard module's choice.
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
        .get_or_insert_with(V1Generator::system)
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
/// every UUID (multicast bit set in the node); timestamps increase from call
/// to call, also when the system clock steps back (however far: the last
/// timestamp is then counted on, never an error).
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
    let u = V6
        .lock()
        .get_or_insert_with(v6_holding)
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
