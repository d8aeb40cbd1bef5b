//! One module per mode.

pub mod check;
pub mod convert;
pub mod doc;
pub mod inspect;
pub mod new;
pub mod range;

use std::io;

use crate::output::Output;

/// Buffered stdout.
pub fn stdout() -> Output<io::StdoutLock<'static>> {
    Output::new(io::stdout().lock())
}
