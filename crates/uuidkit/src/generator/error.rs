//! The generators' error type.

use core::fmt;

use crate::inline_text::InlineText;
use crate::node::NodeLost;

/// Why a generator returned no UUID. Opaque: ask [`GenError::kind`].
///
/// ```
/// use uuidkit::{clock::ManualClock, generator::{GenErrorKind, RolloverPolicy, V7Method}};
/// use uuidkit::{rng::ThreadRng, Generator, V7Generator};
/// let clock = ManualClock::new(1_700_000_000_000_000_000);
/// let mut g = V7Generator::builder()
///     .method(V7Method::SubMillis { bits: 12 })
///     .rollover(RolloverPolicy::Error)
///     .build(&clock, ThreadRng)?;
/// g.generate()?;
/// let err = g.generate().unwrap_err(); // same 1/4096 ms tick, no counter bits
/// assert_eq!(err.kind(), GenErrorKind::CounterExhausted);
/// assert_eq!(err.to_string(), "counter exhausted: expected a clock tick after 1700000000000000000 ns, found the clock at 1700000000000000000 ns");
/// # Ok::<(), uuidkit::GenError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GenError {
    kind: GenErrorKind,
    detail: Detail,
}

/// What a [`GenError`] carries besides its kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Detail {
    /// What was expected (a config field, for `InvalidConfig`), and the
    /// values expected and found.
    Values {
        what: &'static str,
        expected: u64,
        found: u64,
    },
    /// Why the node is gone, for [`GenErrorKind::NodeLost`] (inline, so the
    /// error stays `Copy` and allocation-free).
    Lost(NodeLost),
    /// A store's own words, for [`GenErrorKind::Store`] (inline too).
    Message(InlineText),
}

/// The kind of a [`GenError`].
///
/// ```
/// assert_ne!(uuidkit::generator::GenErrorKind::ClockBehind, uuidkit::generator::GenErrorKind::CounterExhausted);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum GenErrorKind {
    /// The counter is used up for the current tick and the policy is
    /// [`RolloverPolicy::Error`](crate::generator::RolloverPolicy::Error).
    CounterExhausted,
    /// The clock is behind the last timestamp by more than the tolerance and the
    /// policy is [`ClockBackPolicy::Error`](crate::generator::ClockBackPolicy::Error).
    ClockBehind,
    /// The time does not fit the UUID's timestamp field (v7: 48-bit milliseconds,
    /// up to the year 10889; v1/v6: 60-bit ticks, up to 5236).
    TimestampOutOfRange,
    /// A configuration value is out of its documented range.
    InvalidConfig,
    /// A [`Reserve`](crate::generator::Reserve) implementation (stable storage) failed.
    Store,
    /// The generator's [`NodeSource`](crate::node::NodeSource) holds no node (not
    /// acquired yet, released, lost to a conflict, unreachable, not renewed):
    /// [`GenError::node_lost`] says why. Nothing was issued; a later call
    /// succeeds once the source holds a node again.
    NodeLost,
}

impl GenError {
    /// The kind of error.
    ///
    /// ```
    /// use uuidkit::{generator::GenErrorKind, GenError};
    /// assert_eq!(GenError::store(3).kind(), GenErrorKind::Store);
    /// ```
    #[must_use]
    pub const fn kind(&self) -> GenErrorKind {
        self.kind
    }

    /// An error of kind [`GenErrorKind::Store`] carrying a store-specific code,
    /// for [`Reserve`](crate::generator::Reserve) implementations.
    ///
    /// ```
    /// let e = uuidkit::GenError::store(13);
    /// assert_eq!(e.to_string(), "state store failed: expected success, found error code 13");
    /// ```
    #[cold]
    #[must_use]
    pub const fn store(code: u64) -> GenError {
        GenError::new(GenErrorKind::Store, 0, code)
    }

    /// An error of kind [`GenErrorKind::Store`] in the store's own words, for
    /// [`Reserve`](crate::generator::Reserve) implementations whose storage reports more
    /// than a number (an I/O error, a database's message). The message is
    /// kept inline, so the error stays `Copy` and needs no allocation (and
    /// no `std`): up to [`NodeLost::DETAIL_CAPACITY`] bytes, a longer one
    /// cut at a character boundary and ending in `…`.
    ///
    /// ```
    /// use uuidkit::{generator::GenErrorKind, GenError};
    /// let io = std::io::Error::new(std::io::ErrorKind::StorageFull, "no space left on /var/lib/ids");
    /// let e = GenError::store_message(&io.to_string());
    /// assert_eq!(e.kind(), GenErrorKind::Store);
    /// assert_eq!(e.store_message_text(), Some("no space left on /var/lib/ids"));
    /// assert_eq!(e.to_string(), "state store failed: no space left on /var/lib/ids");
    /// assert_eq!(GenError::store(13).store_message_text(), None);
    /// ```
    #[cold]
    #[must_use]
    pub fn store_message(message: &str) -> GenError {
        GenError {
            kind: GenErrorKind::Store,
            detail: Detail::Message(InlineText::new(message)),
        }
    }

    /// The store's message, for an error made by [`GenError::store_message`];
    /// `None` for every other error.
    ///
    /// ```
    /// let e = uuidkit::GenError::store_message("disk quota exceeded");
    /// assert_eq!(e.store_message_text(), Some("disk quota exceeded"));
    /// ```
    #[must_use]
    pub fn store_message_text(&self) -> Option<&str> {
        match &self.detail {
            Detail::Message(text) => Some(text.as_str()),
            _ => None,
        }
    }

    /// An error of kind [`GenErrorKind::TimestampOutOfRange`]: the timestamp
    /// `found` is past the last one, `max`, its field can hold (in the
    /// field's unit), for generators built on the library's ones.
    ///
    /// ```
    /// let e = uuidkit::GenError::timestamp_out_of_range(uuidkit::layout::MAX_UNIX_TS_MS, 1 << 48);
    /// assert_eq!(e.to_string(), "timestamp out of range: expected at most 281474976710655, found 281474976710656");
    /// ```
    #[cold]
    #[must_use]
    pub const fn timestamp_out_of_range(max: u64, found: u64) -> GenError {
        GenError::new(GenErrorKind::TimestampOutOfRange, max, found)
    }

    /// An error of kind [`GenErrorKind::NodeLost`]: the generator's node
    /// source holds no node, for the reason `lost`; for generators built on
    /// [`NodeSource`](crate::node::NodeSource)s.
    ///
    /// ```
    /// use uuidkit::{generator::GenErrorKind, node::{NodeLost, NodeLostKind}, GenError};
    /// let e = GenError::from_node_lost(NodeLost::new(NodeLostKind::Released));
    /// assert_eq!(e.kind(), GenErrorKind::NodeLost);
    /// assert_eq!(e.to_string(), "node lost: released");
    /// ```
    #[cold]
    #[must_use]
    pub const fn from_node_lost(lost: NodeLost) -> GenError {
        GenError {
            kind: GenErrorKind::NodeLost,
            detail: Detail::Lost(lost),
        }
    }

    /// Why the node was lost, for an error of kind [`GenErrorKind::NodeLost`];
    /// `None` for every other kind.
    ///
    /// ```
    /// use uuidkit::{node::{NodeLost, NodeLostKind}, GenError};
    /// let e = GenError::from_node_lost(NodeLost::new(NodeLostKind::Conflict).with_detail("held by device 7"));
    /// assert_eq!(e.node_lost().map(|l| l.detail()), Some("held by device 7"));
    /// assert!(GenError::store(1).node_lost().is_none());
    /// ```
    #[must_use]
    pub const fn node_lost(&self) -> Option<&NodeLost> {
        match &self.detail {
            Detail::Lost(lost) => Some(lost),
            Detail::Values { .. } | Detail::Message(_) => None,
        }
    }

    /// An error of kind [`GenErrorKind::Store`]: the store could not
    /// persist the reservation (`why`) and the caller asked for stored state
    /// or nothing (a strict reserver of the `uuidkit-state` crate), for
    /// [`Reserve`](crate::generator::Reserve) implementations.
    ///
    /// ```
    /// let e = uuidkit::GenError::store_unavailable("the lock was not taken in time");
    /// assert_eq!(e.to_string(), "state unavailable (strict): expected the reservation persisted, found the lock was not taken in time");
    /// ```
    #[cold]
    #[must_use]
    pub const fn store_unavailable(why: &'static str) -> GenError {
        GenError {
            kind: GenErrorKind::Store,
            detail: Detail::Values {
                what: why,
                expected: 0,
                found: 0,
            },
        }
    }

    /// An error of kind [`GenErrorKind::ClockBehind`]: the clock, at
    /// `found_ns` (Unix nanoseconds), is below `expected_ns`, the least time
    /// the generator or its store may still issue, for
    /// [`Reserve`](crate::generator::Reserve) implementations that hold a
    /// generator above what they have issued.
    ///
    /// ```
    /// let e = uuidkit::GenError::clock_behind(2_000_000, 1_000_000);
    /// assert_eq!(e.kind(), uuidkit::generator::GenErrorKind::ClockBehind);
    /// assert_eq!(e.to_string(), "clock behind: expected at least 2000000 ns (last timestamp minus tolerance), found 1000000 ns");
    /// ```
    #[cold]
    #[must_use]
    pub const fn clock_behind(expected_ns: u64, found_ns: u64) -> GenError {
        GenError::new(GenErrorKind::ClockBehind, expected_ns, found_ns)
    }

    /// An error of kind [`GenErrorKind::InvalidConfig`]: `what` (a setting
    /// and its allowed range, such as `"block in 1..=10000 ms"`) was
    /// expected, `found` was given; for the settings of code built on the
    /// generators.
    ///
    /// ```
    /// let e = uuidkit::GenError::invalid_config("block in 1..=10000 ms", 0);
    /// assert_eq!(e.to_string(), "invalid generator config: expected block in 1..=10000 ms, found 0");
    /// ```
    #[cold]
    #[must_use]
    pub const fn invalid_config(what: &'static str, found: u64) -> GenError {
        GenError::config(what, found)
    }

    #[cold]
    pub(crate) const fn new(kind: GenErrorKind, expected: u64, found: u64) -> GenError {
        GenError {
            kind,
            detail: Detail::Values {
                what: "",
                expected,
                found,
            },
        }
    }

    /// An error of kind [`GenErrorKind::TimestampOutOfRange`] that says which
    /// bound (`what`, "…at least" or "…at most") the time `found` is outside
    /// of, for a field whose range is not the UUID's (a 64-bit layout's).
    #[cold]
    pub(crate) const fn out_of_range(what: &'static str, bound: u64, found: u64) -> GenError {
        GenError {
            kind: GenErrorKind::TimestampOutOfRange,
            detail: Detail::Values {
                what,
                expected: bound,
                found,
            },
        }
    }

    /// A configuration error: `what` (a field name and its allowed range, e.g.
    /// "counter_bits in 12..=42") was expected, `found` was given.
    #[cold]
    pub(crate) const fn config(what: &'static str, found: u64) -> GenError {
        GenError {
            kind: GenErrorKind::InvalidConfig,
            detail: Detail::Values {
                what,
                expected: 0,
                found,
            },
        }
    }
}

impl fmt::Display for GenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (what, e, x) = match self.detail {
            Detail::Values {
                what,
                expected,
                found,
            } => (what, expected, found),
            Detail::Lost(lost) => return write!(f, "node lost: {lost}"),
            Detail::Message(text) => {
                return write!(f, "state store failed: {}", text.as_str());
            }
        };
        match self.kind {
            GenErrorKind::CounterExhausted => write!(
                f,
                "counter exhausted: expected a clock tick after {e} ns, found the clock at {x} ns"
            ),
            GenErrorKind::ClockBehind => write!(
                f,
                "clock behind: expected at least {e} ns (last timestamp minus tolerance), found {x} ns"
            ),
            GenErrorKind::TimestampOutOfRange if !what.is_empty() => {
                write!(f, "timestamp out of range: expected {what} {e}, found {x}")
            }
            GenErrorKind::TimestampOutOfRange => {
                write!(f, "timestamp out of range: expected at most {e}, found {x}")
            }
            GenErrorKind::InvalidConfig => {
                write!(f, "invalid generator config: expected {what}, found {x}")
            }
            GenErrorKind::Store if !what.is_empty() => write!(
                f,
                "state unavailable (strict): expected the reservation persisted, found {what}"
            ),
            GenErrorKind::Store => write!(
                f,
                "state store failed: expected success, found error code {x}"
            ),
            GenErrorKind::NodeLost => f.write_str("node lost"),
        }
    }
}

impl core::error::Error for GenError {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Uuid;
    use crate::node::NodeLostKind;
    use std::string::ToString;

    /// The loss travels inline, yet a `Result<Uuid, GenError>` stays within
    /// what clippy calls a large error (128 bytes), and the error is `Copy`.
    #[test]
    fn the_error_stays_small_and_copy() {
        assert!(core::mem::size_of::<GenError>() <= 104);
        assert!(core::mem::size_of::<Result<Uuid, GenError>>() <= 112);
        let e = GenError::from_node_lost(NodeLost::new(NodeLostKind::SourceGone).with_detail("x"));
        let copy = e;
        assert_eq!(copy, e);
        assert_eq!(
            e.to_string(),
            "node lost: source gone (the registry cannot be reached): x"
        );
        assert_eq!(GenError::store(2).node_lost(), None);
    }
}
