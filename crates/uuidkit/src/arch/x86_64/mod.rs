//! x86_64: SSE2 is part of the target, so its paths need no detection; every
//! other feature set is detected at run time by [`cpu`] and used through its
//! token.

pub(crate) mod cpu;
pub(crate) mod decode;
pub(crate) mod encode;
pub(crate) mod lines;

#[cfg(feature = "std")]
pub(crate) mod chacha;
#[cfg(feature = "std")]
pub(crate) mod v7;
