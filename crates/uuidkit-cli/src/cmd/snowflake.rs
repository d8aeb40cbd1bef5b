//! `uuidkit inspect --layout L`: the parts of 64-bit IDs (decimal integers) of a layout — time,
//! tick, worker, sequence — as text blocks or (`--json`) one object per line. An input that is
//! not an ID of the layout is reported on stderr with its line, and the exit status is then 1.

use serde_json::json;
use uuidkit::snowflake::{FieldOrder, Layout};

use crate::error::{Error, Outcome};
use crate::flags::InspectSnowflakePlan;
use crate::input;
use crate::time;

/// Runs `inspect --layout`.
pub fn inspect(plan: &InspectSnowflakePlan) -> Result<Outcome, Error> {
    let mut out = super::stdout();
    let mut invalid = false;
    let mut first = true;
    let run = input::for_each(&plan.ids, &mut out, |out, item| {
        let described = item
            .text()
            .map_err(|e| e.to_string())
            .and_then(|t| read(t, plan.layout));
        match described {
            Ok(id) => {
                let d = Described::new(id, plan.layout);
                if plan.json {
                    out.line(d.json().as_bytes())?;
                } else {
                    if !first {
                        out.line(b"")?;
                    }
                    for line in d.text().lines() {
                        out.line(line.as_bytes())?;
                    }
                }
                first = false;
            }
            Err(why) => {
                invalid = true;
                out.report(&input::rejection(&item, &why))?;
            }
        }
        Ok(())
    })
    .and_then(|()| out.flush().map_err(Error::from));
    match run {
        Err(e) if !e.is_broken_pipe() => Err(e),
        _ if invalid => Ok(Outcome::SomeInvalid),
        _ => Ok(Outcome::Success),
    }
}

/// An input as an ID of `layout`: a decimal integer (digits only) within its range.
fn read(text: &[u8], layout: Layout) -> Result<u64, String> {
    let s = std::str::from_utf8(text).map_err(|_| "expected a decimal integer".to_string())?;
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        let at = s.bytes().position(|b| !b.is_ascii_digit()).unwrap_or(0);
        return Err(format!(
            "expected a decimal integer (a {layout} ID), found '{}' at position {at}",
            s.chars().nth(at).map_or(String::new(), String::from)
        ));
    }
    let id = s.parse::<u64>().map_err(|_| {
        format!(
            "expected a 64-bit integer (at most {}), found {s}",
            u64::MAX
        )
    })?;
    if layout.total_bits() == 63 && id >> 63 != 0 {
        return Err(format!(
            "expected an ID below 2^63 = 9223372036854775808 (the {layout} layout leaves the top \
             bit clear), found {id}"
        ));
    }
    Ok(id)
}

/// One ID's parts.
struct Described {
    id: u64,
    layout: Layout,
    tick: u64,
    worker: u64,
    sequence: u64,
}

impl Described {
    fn new(id: u64, layout: Layout) -> Described {
        // `read` checked the range, so the ID decomposes.
        let p = layout.decompose(id).unwrap_or_default();
        Described {
            id,
            layout,
            tick: p.tick,
            worker: p.worker,
            sequence: p.sequence,
        }
    }

    fn time(&self) -> String {
        let ns = self.layout.unix_ns_of(self.tick);
        let digits = match self.layout.tick_ns() {
            t if t.is_multiple_of(1_000_000_000) => 0,
            t if t.is_multiple_of(1_000_000) => 3,
            t if t.is_multiple_of(1_000) => 6,
            _ => 9,
        };
        time::format_rfc3339(i128::from(ns), digits)
    }

    /// The worker's parts where the preset names them (Twitter: datacenter and worker;
    /// Discord: worker and process, 5 bits each).
    fn worker_parts(&self) -> Option<(&'static str, &'static str)> {
        match self.layout.preset_name() {
            Some("twitter") => Some(("datacenter", "worker")),
            Some("discord") => Some(("worker", "process")),
            _ => None,
        }
    }

    fn text(&self) -> String {
        let l = self.layout;
        let mut d = String::new();
        d.push_str(&format!("id:        {}\n", self.id));
        d.push_str(&format!(
            "layout:    {l} ({} time, {} worker, {} sequence bits{})\n",
            l.time_bits(),
            l.worker_bits(),
            l.sequence_bits(),
            if l.order() == FieldOrder::SequenceFirst {
                "; the sequence before the worker"
            } else {
                ""
            }
        ));
        d.push_str(&format!("time:      {}\n", self.time()));
        d.push_str(&format!("tick:      {}\n", self.tick));
        match self.worker_parts() {
            Some((hi, lo)) => d.push_str(&format!(
                "worker:    {} ({hi} {}, {lo} {})\n",
                self.worker,
                self.worker >> 5,
                self.worker & 31
            )),
            None => d.push_str(&format!("worker:    {}\n", self.worker)),
        }
        d.push_str(&format!("sequence:  {}\n", self.sequence));
        d
    }

    /// One JSON object: `id` is a decimal string (it can exceed 2^53), the other integers
    /// numbers (a tick of up to 63 bits would exceed 2^53 too: it is a string as well).
    fn json(&self) -> String {
        let mut v = json!({
            "id": self.id.to_string(),
            "layout": self.layout.to_string(),
            "time": self.time(),
            "unix_ms": self.layout.unix_ms_of(self.tick),
            "tick": self.tick.to_string(),
            "worker": self.worker,
            "sequence": self.sequence,
        });
        if let (Some((hi, lo)), Some(map)) = (self.worker_parts(), v.as_object_mut()) {
            map.insert(format!("{hi}_id"), json!(self.worker >> 5));
            map.insert(format!("{lo}_id"), json!(self.worker & 31));
        }
        v.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_twitter_id_is_described_exactly() {
        let d = Described::new(1_724_551_110_456_397_824, Layout::TWITTER);
        assert_eq!(
            d.text(),
            "id:        1724551110456397824\n\
             layout:    twitter (41 time, 10 worker, 12 sequence bits)\n\
             time:      2023-11-14T22:13:20.000Z\n\
             tick:      411165025343\n\
             worker:    37 (datacenter 1, worker 5)\n\
             sequence:  0\n"
        );
    }

    #[test]
    fn inputs_that_are_not_ids_are_refused_with_the_reason() {
        assert_eq!(
            read(b"12x4", Layout::TWITTER).unwrap_err(),
            "expected a decimal integer (a twitter ID), found 'x' at position 2"
        );
        assert!(
            read(b"18446744073709551616", Layout::DISCORD)
                .unwrap_err()
                .contains("64-bit")
        );
        assert!(
            read(b"9223372036854775808", Layout::TWITTER)
                .unwrap_err()
                .contains("2^63")
        );
        assert_eq!(read(b"9223372036854775808", Layout::DISCORD), Ok(1 << 63));
    }
}
