//! The key kinds measured, and the keys each one gives for a run.

use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;
use uuidkit::clock::ManualClock;
use uuidkit::generator::V7Method;
use uuidkit::{Generator, Uuid, V6Generator, V7Generator};

/// The simulated time of the first row: 2025-06-15T16:00:00Z, in Unix
/// nanoseconds. Any date inside the v6 and v7 ranges gives the same order.
pub const START_UNIX_NS: u64 = 1_750_003_200_000_000_000;

/// One kind of primary key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum Kind {
    /// `bigserial` / `BIGINT AUTO_INCREMENT`: the baseline every ratio is to.
    Bigserial,
    /// Version 4, random.
    V4,
    /// Version 7, RFC 9562 §6.2 Method 1: a 42-bit counter.
    V7Counter,
    /// Version 7, §6.2 Method 2: monotonic random (32-bit random increments).
    V7MonotonicRandom,
    /// Version 7, §6.2 Method 3: 12 sub-millisecond bits.
    V7SubMillis,
    /// Version 6, reordered Gregorian time (one retained clock sequence and node).
    V6,
    /// Version 7 from the `uuid` crate (its 42-bit counter context).
    UuidCrateV7,
}

impl Kind {
    /// Every kind, baseline first.
    ///
    /// ```
    /// assert_eq!(db_bench::Kind::ALL[0], db_bench::Kind::Bigserial);
    /// assert_eq!(db_bench::Kind::ALL.len(), 7);
    /// ```
    pub const ALL: [Kind; 7] = [
        Kind::Bigserial,
        Kind::V4,
        Kind::V7Counter,
        Kind::V7MonotonicRandom,
        Kind::V7SubMillis,
        Kind::V6,
        Kind::UuidCrateV7,
    ];

    /// The name in tables and plots.
    ///
    /// ```
    /// assert_eq!(db_bench::Kind::V7SubMillis.label(), "v7 sub-ms (§6.2 m3)");
    /// ```
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Kind::Bigserial => "bigserial",
            Kind::V4 => "v4",
            Kind::V7Counter => "v7 counter (§6.2 m1)",
            Kind::V7MonotonicRandom => "v7 mono. random (§6.2 m2)",
            Kind::V7SubMillis => "v7 sub-ms (§6.2 m3)",
            Kind::V6 => "v6",
            Kind::UuidCrateV7 => "v7, uuid crate",
        }
    }

    /// Whether the key sorts in insertion (time) order, so that a time range
    /// is a key range.
    ///
    /// ```
    /// assert!(!db_bench::Kind::V4.time_ordered());
    /// assert!(db_bench::Kind::V6.time_ordered());
    /// ```
    #[must_use]
    pub fn time_ordered(self) -> bool {
        self != Kind::V4
    }

    /// The keys of `rows` rows, in insertion order, one row every `step_ns`
    /// of simulated time from [`START_UNIX_NS`]; `None` for the baseline,
    /// whose keys the server assigns (1, 2, …). Seeded: the same arguments
    /// give the same keys, except for [`Kind::UuidCrateV7`], whose random
    /// bits come from the `uuid` crate's own generator.
    ///
    /// # Errors
    /// A generator error (a simulated time out of the kind's range).
    ///
    /// ```
    /// use db_bench::Kind;
    /// let keys = Kind::V7Counter.keys(1000, 100_000, 7)?.unwrap();
    /// assert!(keys.windows(2).all(|w| w[0] < w[1]));
    /// assert_eq!(keys, Kind::V7Counter.keys(1000, 100_000, 7)?.unwrap());
    /// assert!(Kind::Bigserial.keys(1000, 100_000, 7)?.is_none());
    /// # Ok::<(), uuidkit::GenError>(())
    /// ```
    pub fn keys(
        self,
        rows: usize,
        step_ns: u64,
        seed: u64,
    ) -> Result<Option<Vec<Uuid>>, uuidkit::GenError> {
        let rng = ChaCha8Rng::seed_from_u64(seed);
        let clock = ManualClock::new(START_UNIX_NS);
        let v7 = |method| {
            V7Generator::builder()
                .method(method)
                .build(&clock, rng.clone())
        };
        let mut next: Box<dyn FnMut() -> Result<Uuid, uuidkit::GenError> + '_> = match self {
            Kind::Bigserial => return Ok(None),
            Kind::V4 => {
                let mut rng = rng.clone();
                Box::new(move || Ok(Uuid::new_v4_from_rng(&mut rng)))
            }
            Kind::V7Counter => generate(v7(V7Method::Counter { bits: 42 })?),
            Kind::V7MonotonicRandom => {
                generate(v7(V7Method::MonotonicRandom { increment_bits: 32 })?)
            }
            Kind::V7SubMillis => generate(v7(V7Method::SubMillis { bits: 12 })?),
            Kind::V6 => generate(V6Generator::builder().retain().build(&clock, rng.clone())?),
            Kind::UuidCrateV7 => {
                let context = uuid::ContextV7::new();
                let clock = &clock;
                Box::new(move || {
                    let ns = clock.now();
                    let (secs, nanos) = (ns / 1_000_000_000, (ns % 1_000_000_000) as u32);
                    let ts = uuid::Timestamp::from_unix(&context, secs, nanos);
                    Ok(Uuid::from(uuid::Uuid::new_v7(ts)))
                })
            }
        };
        let mut keys = Vec::with_capacity(rows);
        for _ in 0..rows {
            keys.push(next()?);
            clock.advance(step_ns);
        }
        Ok(Some(keys))
    }
}

/// A generator as a closure (each call one UUID at the clock's time).
fn generate<'a, G: Generator + 'a>(
    mut g: G,
) -> Box<dyn FnMut() -> Result<Uuid, uuidkit::GenError> + 'a> {
    Box::new(move || g.generate())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_gives_distinct_keys_of_its_version_in_the_promised_order() {
        for kind in Kind::ALL {
            let Some(keys) = kind.keys(5000, 100_000, 3).unwrap() else {
                assert_eq!(kind, Kind::Bigserial);
                continue;
            };
            let version = match kind {
                Kind::V4 => 4,
                Kind::V6 => 6,
                _ => 7,
            };
            assert!(
                keys.iter().all(|k| k.version_nibble() == version),
                "{kind:?}"
            );
            let mut sorted = keys.clone();
            sorted.sort();
            sorted.dedup();
            assert_eq!(sorted.len(), keys.len(), "{kind:?}: duplicates");
            assert_eq!(sorted == keys, kind.time_ordered(), "{kind:?}");
        }
    }

    #[test]
    fn time_ordered_keys_carry_the_simulated_time() {
        // Row 1234 at 100 µs a row is 123.4 ms after the start.
        let at = START_UNIX_NS / 1_000_000 + 123;
        for kind in [
            Kind::V7Counter,
            Kind::V7MonotonicRandom,
            Kind::V7SubMillis,
            Kind::UuidCrateV7,
        ] {
            let keys = kind.keys(1235, 100_000, 3).unwrap().unwrap();
            assert_eq!(keys[1234].as_u128() >> 80, u128::from(at), "{kind:?}");
        }
    }
}
