//! A layout's text: a preset's name, or the descriptor `tT.wW.sS.eEPOCH.uUNIT` that a state
//! file keys marks by and the command line takes.

use core::fmt;
use core::str::FromStr;

use super::{FieldOrder, Layout, SequenceStart};
use crate::GenError;

const NS_PER_MS: u64 = 1_000_000;

/// A preset's name, or the descriptor `tT.wW.sS.eEPOCH.uUNIT` (worker and
/// sequence in their order; `.r` at the end for a random sequence start);
/// [`FromStr`] reads both back.
impl fmt::Display for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(name) = self.preset_name() {
            return f.write_str(name);
        }
        self.write_descriptor(f)
    }
}

impl Layout {
    /// Writes the descriptor `tT.wW.sS.eEPOCH.uUNIT`, even for a preset
    /// (whose `Display` is its name): what a state file keys marks by, so
    /// that a preset and the same custom split share their marks.
    ///
    /// ```
    /// use uuidkit::snowflake::Layout;
    /// let mut d = String::new();
    /// Layout::TWITTER.write_descriptor(&mut d)?;
    /// assert_eq!(d, "t41.w10.s12.e1288834974657.u1ms");
    /// assert_eq!(d.parse::<Layout>().ok(), Some(Layout::TWITTER));
    /// # Ok::<(), std::fmt::Error>(())
    /// ```
    pub fn write_descriptor(&self, f: &mut dyn fmt::Write) -> fmt::Result {
        let (t, w, s) = (self.time_bits(), self.worker_bits(), self.sequence_bits());
        match self.order() {
            FieldOrder::WorkerFirst => write!(f, "t{t}.w{w}.s{s}")?,
            FieldOrder::SequenceFirst => write!(f, "t{t}.s{s}.w{w}")?,
        }
        write!(f, ".e{}.u", self.epoch_ms())?;
        let ns = self.tick_ns();
        match () {
            () if ns.is_multiple_of(1_000_000_000) => write!(f, "{}s", ns / 1_000_000_000)?,
            () if ns.is_multiple_of(NS_PER_MS) => write!(f, "{}ms", ns / NS_PER_MS)?,
            () if ns.is_multiple_of(1_000) => write!(f, "{}us", ns / 1_000)?,
            () => write!(f, "{ns}ns")?,
        }
        if self.sequence_start() == SequenceStart::Random {
            f.write_str(".r")?;
        }
        Ok(())
    }

    /// Reads a descriptor (not a preset name).
    fn parse_descriptor(s: &str) -> Result<Layout, GenError> {
        let bad = || GenError::config("a layout: a preset name or tT.wW.sS.eEPOCH.uUNIT", 0);
        let mut tokens = [""; 6];
        let mut n = 0;
        for token in s.split('.') {
            *tokens.get_mut(n).ok_or_else(bad)? = token;
            n += 1;
        }
        let field = |i: usize, prefix: char| tokens[i].strip_prefix(prefix).ok_or_else(bad);
        let num = |v: &str| -> Result<u64, GenError> {
            if v.is_empty() || v.len() > 20 || !v.bytes().all(|b| b.is_ascii_digit()) {
                return Err(bad());
            }
            v.parse().map_err(|_| bad())
        };
        let small = |v: &str| -> Result<u8, GenError> { u8::try_from(num(v)?).map_err(|_| bad()) };
        if n < 5 {
            return Err(bad());
        }
        let time = small(field(0, 't')?)?;
        let (order, worker, sequence) = if tokens[1].starts_with('w') {
            let w = small(field(1, 'w')?)?;
            (FieldOrder::WorkerFirst, w, small(field(2, 's')?)?)
        } else {
            let s = small(field(1, 's')?)?;
            (FieldOrder::SequenceFirst, small(field(2, 'w')?)?, s)
        };
        let epoch = num(field(3, 'e')?)?;
        let unit = field(4, 'u')?;
        let digits = unit.bytes().take_while(u8::is_ascii_digit).count();
        let scale = match &unit[digits..] {
            "ns" => 1,
            "us" => 1_000,
            "ms" => NS_PER_MS,
            "s" => 1_000_000_000,
            _ => return Err(bad()),
        };
        let tick = num(&unit[..digits])?.checked_mul(scale).ok_or_else(bad)?;
        let start = match (n, tokens[5]) {
            (5, _) => SequenceStart::Zero,
            (6, "r") => SequenceStart::Random,
            _ => return Err(bad()),
        };
        Ok(Layout::new(time, worker, sequence, epoch, tick)?
            .with_order(order)
            .with_sequence_start(start))
    }
}

/// A preset's name (any case), or a descriptor as [`Display`](fmt::Display)
/// writes it.
///
/// ```
/// use uuidkit::snowflake::Layout;
/// assert_eq!("Discord".parse::<Layout>()?, Layout::DISCORD);
/// assert_eq!("t39.s8.w16.e1409529600000.u10ms".parse::<Layout>()?, Layout::SONYFLAKE);
/// assert_eq!("t42.w10.s12.e1577836800000.u1ms.r".parse::<Layout>()?, Layout::TSID);
/// assert_eq!("flickr".parse::<Layout>().unwrap_err().to_string(),
///     "invalid generator config: expected a layout: a preset name or tT.wW.sS.eEPOCH.uUNIT, found 0");
/// # Ok::<(), uuidkit::GenError>(())
/// ```
impl FromStr for Layout {
    type Err = GenError;
    fn from_str(s: &str) -> Result<Layout, GenError> {
        if let Some(p) = Layout::presets()
            .iter()
            .find(|p| p.0.eq_ignore_ascii_case(s))
        {
            return Ok(p.1);
        }
        Layout::parse_descriptor(s)
    }
}
