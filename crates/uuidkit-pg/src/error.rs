//! SQL errors: the library's messages, each raised with the SQLSTATE that
//! says what kind of mistake it was. Each function raises the error (it does
//! not return), so a wrapper reads `f(x).unwrap_or_else(|e| bad_text(e))`.

use pgrx::PgSqlErrorCode;
use pgrx::pg_sys::elog::PgLogLevel;
use pgrx::pg_sys::panic::ErrorReport;

use crate::lib::DecodeError;

/// The function name PostgreSQL's error location shows.
const CONTEXT: &str = "uuidkit";

#[cold]
#[track_caller]
fn raise(code: PgSqlErrorCode, message: String) -> ! {
    ErrorReport::new(code, message, CONTEXT).report(PgLogLevel::ERROR);
    unreachable!("an ERROR does not return")
}

/// Text that is not a valid encoding of a UUID: `22P02`
/// (`invalid_text_representation`), as PostgreSQL's own `'…'::uuid` reports,
/// with the library's message (what was expected, what was found, where).
#[cold]
#[track_caller]
pub fn bad_text(e: DecodeError) -> ! {
    invalid_text(e.to_string())
}

/// As [`bad_text`], with a message of the extension's own (a TypeID with
/// another prefix than the one asked for).
#[cold]
#[track_caller]
pub fn invalid_text(message: String) -> ! {
    raise(PgSqlErrorCode::ERRCODE_INVALID_TEXT_REPRESENTATION, message)
}

/// An argument the function cannot take (a UUID of the wrong version, an
/// unknown namespace name, a malformed TypeID prefix): `22023`
/// (`invalid_parameter_value`).
#[cold]
#[track_caller]
pub fn bad_value(message: String) -> ! {
    raise(PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE, message)
}

/// A time outside what the UUID layout can hold (before 1970 or after 10889
/// for v7, or infinite): `22008` (`datetime_field_overflow`).
#[cold]
#[track_caller]
pub fn time_out_of_range(message: String) -> ! {
    raise(PgSqlErrorCode::ERRCODE_DATETIME_FIELD_OVERFLOW, message)
}
