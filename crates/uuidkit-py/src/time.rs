//! Times in and out: aware `datetime`s or integer Unix milliseconds, never a
//! bare number whose unit the reader has to guess.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyInt};

/// `datetime.datetime(1970, 1, 1, tzinfo=timezone.utc)` and
/// `datetime.timedelta`, looked up once.
struct Datetime {
    epoch: Py<PyAny>,
    timedelta: Py<PyAny>,
    one_ms: Py<PyAny>,
}

static DATETIME: PyOnceLock<Datetime> = PyOnceLock::new();

fn datetime(py: Python<'_>) -> PyResult<&Datetime> {
    DATETIME.get_or_try_init(py, || {
        let m = py.import("datetime")?;
        let utc = m.getattr("timezone")?.getattr("utc")?;
        let kwargs = PyDict::new(py);
        kwargs.set_item("tzinfo", utc)?;
        let epoch = m.getattr("datetime")?.call((1970, 1, 1), Some(&kwargs))?;
        let timedelta = m.getattr("timedelta")?;
        let kwargs = PyDict::new(py);
        kwargs.set_item("milliseconds", 1)?;
        let one_ms = timedelta.call((), Some(&kwargs))?;
        Ok(Datetime {
            epoch: epoch.unbind(),
            timedelta: timedelta.unbind(),
            one_ms: one_ms.unbind(),
        })
    })
}

/// Unix milliseconds of an aware `datetime` (floored), checked against the
/// 48-bit v7 field.
pub fn datetime_to_unix_ms(dt: &Bound<'_, PyAny>) -> PyResult<u64> {
    let py = dt.py();
    let d = datetime(py)?;
    if dt.getattr("utcoffset").is_err() {
        return Err(PyTypeError::new_err(format!(
            "expected a datetime.datetime, found {}",
            dt.get_type().name()?
        )));
    }
    if dt.call_method0("utcoffset")?.is_none() {
        return Err(PyValueError::new_err(
            "naive datetime: give it a tzinfo (for instance datetime.timezone.utc), \
             so the instant is unambiguous",
        ));
    }
    let delta = dt.sub(d.epoch.bind(py))?;
    let ms: i128 = delta.floor_div(d.one_ms.bind(py))?.extract()?;
    check_unix_ms(ms)
}

/// `ms` if it fits the 48-bit v7 timestamp, else a `ValueError` saying so.
pub fn check_unix_ms(ms: i128) -> PyResult<u64> {
    if (0..=i128::from(uuidkit::layout::MAX_UNIX_TS_MS)).contains(&ms) {
        Ok(ms as u64)
    } else {
        Err(unix_ms_out_of_range(&ms.to_string()))
    }
}

fn unix_ms_out_of_range(found: &str) -> PyErr {
    PyValueError::new_err(format!(
        "unix_ms out of range: expected 0..={} (1970 to the year 10889), found {found}",
        uuidkit::layout::MAX_UNIX_TS_MS
    ))
}

/// The `unix_ms=` argument: an `int` (any size: one beyond the range is a
/// `ValueError`, never an `OverflowError`) within the 48-bit v7 timestamp.
fn unix_ms_arg(obj: &Bound<'_, PyAny>) -> PyResult<u64> {
    if !obj.is_instance_of::<PyInt>() {
        return Err(PyTypeError::new_err(format!(
            "unix_ms: expected an int, found {}",
            crate::args::type_name(obj)
        )));
    }
    match obj.extract::<i128>() {
        Ok(ms) => check_unix_ms(ms),
        Err(_) => Err(unix_ms_out_of_range(
            &obj.str().map_or_else(|_| "?".into(), |s| s.to_string()),
        )),
    }
}

/// The milliseconds of a time given either as a `datetime` (positional) or as
/// `unix_ms=` (keyword): exactly one of the two.
pub fn when_to_unix_ms(
    when: Option<&Bound<'_, PyAny>>,
    unix_ms: Option<&Bound<'_, PyAny>>,
) -> PyResult<u64> {
    match (when, unix_ms) {
        (Some(dt), None) => datetime_to_unix_ms(dt),
        (None, Some(ms)) => unix_ms_arg(ms),
        (Some(_), Some(_)) => Err(PyTypeError::new_err(
            "give the time once: a datetime or unix_ms=, not both",
        )),
        (None, None) => Err(PyTypeError::new_err(
            "missing the time: give a datetime or unix_ms=",
        )),
    }
}

/// An aware UTC `datetime` for `unix_nanos` (truncated to microseconds,
/// `datetime`'s resolution).
///
/// A time after `datetime`'s last (the year 9999: v1 and v6 reach 5236, v7
/// 10889) is a `ValueError` that names its year.
pub fn unix_nanos_to_datetime(py: Python<'_>, unix_nanos: i128) -> PyResult<Bound<'_, PyAny>> {
    /// 10000-01-01T00:00:00Z in Unix microseconds.
    const END_MICROS: i128 = 253_402_300_800_000_000;
    let d = datetime(py)?;
    let micros = unix_nanos.div_euclid(1000);
    if micros >= END_MICROS {
        return Err(PyValueError::new_err(format!(
            "time out of datetime's range: expected one before the year 10000, found one in \
             the year {}",
            year_of(micros.div_euclid(86_400_000_000))
        )));
    }
    let kwargs = PyDict::new(py);
    kwargs.set_item("microseconds", micros)?;
    let delta = d.timedelta.bind(py).call((), Some(&kwargs))?;
    d.epoch.bind(py).add(delta)
}

/// The proleptic Gregorian year of a day counted from 1970-01-01.
fn year_of(days: i128) -> i128 {
    // Howard Hinnant's `civil_from_days`: eras of 400 years from 0000-03-01.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let month_from_march = (5 * doy + 2) / 153;
    yoe + era * 400 + i128::from(month_from_march >= 10)
}
