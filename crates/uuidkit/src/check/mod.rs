//! The vector paths of `arch` checked against the portable code they stand
//! in for: the exhaustive sweeps the unit tests run ([`sweep`]), and the
//! differential checks on arbitrary input that the fuzz targets run
//! ([`differential`], exported as `uuidkit::__differential` in builds with
//! `--cfg fuzzing`).
//!
//! This module sits above everything it checks (the public API, the
//! portable code, `arch`'s dispatch and its kernels); nothing but tests and
//! fuzz targets uses it.

pub mod differential;
#[cfg(test)]
pub(crate) mod sweep;
