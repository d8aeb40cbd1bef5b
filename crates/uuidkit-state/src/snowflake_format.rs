//! The state file's snowflake lines: `snowflake LAYOUT WORKER HWM`, one per
//! mark, most recently reserved first, with `*` as the worker of a layout's
//! floor; LAYOUT is the layout's descriptor (`t41.w10.s12.e1288834974657.u1ms`),
//! whatever its preset name, so that equal layouts share their marks. A
//! comment after each line gives the preset name and the mark's date.

use std::fmt::Write as _;
use std::string::String;

use super::format::fmt_ms;
use crate::snowflake::SnowflakeMark;
use uuidkit::snowflake::Layout;

/// What a snowflake line's value must be.
pub(super) const EXPECTED: &str =
    "`LAYOUT WORKER HWM` (a layout descriptor, a worker or `*`, a tick)";

pub(super) fn emit(marks: &[Option<SnowflakeMark>], s: &mut String) {
    for m in marks.iter().flatten() {
        s.push_str("snowflake ");
        let _ = m.layout.write_descriptor(s);
        match m.worker {
            Some(w) => {
                let _ = writeln!(s, " {w} {}", m.hwm);
            }
            None => {
                let _ = writeln!(s, " * {}", m.hwm);
            }
        }
        let name = m.layout.preset_name().unwrap_or("custom layout");
        let who = m.worker.map_or_else(
            || String::from("every other worker"),
            |w| std::format!("worker {w}"),
        );
        let _ = writeln!(
            s,
            "# snowflake {name}, {who}: hwm = {}",
            fmt_ms(m.layout.unix_ms_of(m.hwm))
        );
    }
}

/// A line's value, or `None` when it is not one.
pub(super) fn parse(value: &str) -> Option<SnowflakeMark> {
    let mut parts = value.split(' ');
    let (Some(layout), Some(worker), Some(hwm), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return None;
    };
    let layout = layout.parse::<Layout>().ok().filter(|l| {
        let mut d = String::new();
        l.write_descriptor(&mut d).is_ok() && d == layout
    })?;
    let number = |s: &str| {
        (!s.is_empty()
            && s.bytes().all(|b| b.is_ascii_digit())
            && (s == "0" || !s.starts_with('0')))
        .then(|| s.parse::<u64>().ok())
        .flatten()
    };
    let worker = match worker {
        "*" => None,
        w => Some(number(w).filter(|&w| w <= layout.max_worker())?),
    };
    let hwm = number(hwm).filter(|&h| h <= layout.max_tick().saturating_add(1))?;
    Some(SnowflakeMark {
        layout,
        worker,
        hwm,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{SNOWFLAKE_MARKS, StateRecord};

    #[test]
    fn snowflake_lines_round_trip_and_are_pinned() {
        let mut rec = StateRecord::default();
        assert!(rec.put_snowflake(Layout::TWITTER, 37, 1_000));
        assert!(rec.put_snowflake(Layout::SONYFLAKE, 0xBEEF, 5));
        let text = rec.emit();
        assert!(
            text.contains(
                "\nsnowflake t39.s8.w16.e1409529600000.u10ms 48879 5\n\
                 # snowflake sonyflake, worker 48879: hwm = 2014-09-01T00:00:00.050Z\n\
                 snowflake t41.w10.s12.e1288834974657.u1ms 37 1000\n\
                 # snowflake twitter, worker 37: hwm = 2010-11-04T01:42:55.657Z\n"
            ),
            "{text}"
        );
        assert_eq!(StateRecord::parse(text.as_bytes()).unwrap(), rec);
    }

    #[test]
    fn lines_that_lie_are_refused() {
        for bad in [
            "twitter 1 1",
            "t41.w10.s12.e1288834974657.u1ms 1024 1",
            "t41.w10.s12.e1288834974657.u1ms 01 1",
            "t41.w10.s12.e1288834974657.u1ms 1 2199023255553",
            "t41.w10.s12.e1288834974657.u1ms 1",
            "t41.w10.s12.e1288834974657.u1ms 1 1 1",
            "t41.w10.s12.e1288834974657.u1000us 1 1",
        ] {
            assert_eq!(parse(bad), None, "{bad}");
        }
        assert_eq!(
            parse("t41.w10.s12.e1288834974657.u1ms * 7"),
            Some(SnowflakeMark {
                layout: Layout::TWITTER,
                worker: None,
                hwm: 7
            })
        );
    }

    /// A full list: the oldest worker's mark falls into its layout's floor,
    /// which never goes down, so every worker stays bounded.
    #[test]
    fn a_mark_that_falls_out_joins_its_layout_s_floor() {
        let mut rec = StateRecord::default();
        for w in 0..40u64 {
            assert!(rec.put_snowflake(Layout::TWITTER, w, 1_000 + w));
        }
        let floor = rec
            .snowflake
            .iter()
            .flatten()
            .find(|m| m.worker.is_none())
            .unwrap();
        assert_eq!(floor.hwm, 1_000 + 40 - SNOWFLAKE_MARKS as u64);
        for w in 0..40u64 {
            assert!(
                rec.snowflake_mark(Layout::TWITTER, w).unwrap() >= 1_000 + w,
                "worker {w}"
            );
        }
        assert_eq!(rec.snowflake[0].unwrap().worker, Some(39));
        let text = rec.emit();
        assert_eq!(StateRecord::parse(text.as_bytes()).unwrap(), rec);
    }
}
