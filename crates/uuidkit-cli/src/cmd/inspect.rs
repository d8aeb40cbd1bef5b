//! `uuidkit inspect`: variant, version and the fields of each version.
//!
//! Human output is one block per UUID (blank line between blocks); `--json` is one
//! object per line with at least `uuid`, `variant`, `version`, `time`, `clock_seq`
//! and `node`. Invalid inputs are reported on stderr with their line number and the
//! run continues; the exit status is then 1.

use std::io::Write;

use serde_json::{Map, Value, json};
use uuidkit::{Uuid, Variant};

use crate::api;
use crate::error::{Error, Outcome};
use crate::flags::{Format, InspectArgs};
use crate::input;
use crate::time;

/// Runs `inspect`.
pub fn run(args: &InspectArgs) -> Result<Outcome, Error> {
    let mut out = super::stdout();
    let mut invalid = false;
    let mut first = true;
    input::for_each(&args.uuids, &mut out, |out, item| {
        match api::parse(item.bytes, false) {
            Ok(u) => {
                let d = describe(&u);
                if args.json {
                    out.line(d.to_json().to_string().as_bytes())?;
                } else {
                    if !first {
                        out.line(b"")?;
                    }
                    for line in d.to_text().lines() {
                        out.line(line.as_bytes())?;
                    }
                }
                first = false;
            }
            Err(e) => {
                invalid = true;
                out.flush()?;
                let _ = writeln!(
                    std::io::stderr(),
                    "uuidkit: {}: {} (input '{}')",
                    item.label(),
                    e,
                    item.text().escape_debug()
                );
            }
        }
        Ok(())
    })?;
    out.flush()?;
    Ok(if invalid {
        Outcome::SomeInvalid
    } else {
        Outcome::Success
    })
}

/// Everything `inspect` says about one UUID.
#[derive(Debug, Clone, PartialEq)]
pub struct Description {
    /// The UUID.
    pub uuid: Uuid,
    /// `(key, human text, json value)` rows in display order, after the fixed ones.
    rows: Vec<(&'static str, String, Value)>,
    variant: Variant,
    version: Option<u8>,
    time: Option<String>,
    clock_seq: Option<u16>,
    node: Option<String>,
}

fn variant_key(v: Variant) -> &'static str {
    match v {
        Variant::Ncs => "ncs",
        Variant::Rfc9562 => "rfc9562",
        Variant::Microsoft => "microsoft",
        _ => "future",
    }
}

fn variant_text(v: Variant) -> &'static str {
    match v {
        Variant::Ncs => "NCS (0xxx): reserved, NCS backward compatibility",
        Variant::Rfc9562 => "RFC 9562 (10xx)",
        Variant::Microsoft => "Microsoft (110x): reserved, Microsoft GUID backward compatibility",
        _ => "future (111x): reserved for future definition",
    }
}

fn version_text(n: u8) -> &'static str {
    match n {
        0 => "unused (not a valid RFC 9562 version)",
        1 => "Gregorian time-based",
        2 => "DCE Security: reserved, its layout is out of scope of RFC 9562",
        3 => "name-based, MD5",
        4 => "random",
        5 => "name-based, SHA-1",
        6 => "reordered Gregorian time-based",
        7 => "Unix Epoch time-based",
        8 => "custom",
        _ => "reserved (not defined by RFC 9562)",
    }
}

fn mac(n: [u8; 6]) -> String {
    format!(
        "{:02x}:{:02x}:{:02x}:{:02x}:{:02x}:{:02x}",
        n[0], n[1], n[2], n[3], n[4], n[5]
    )
}

/// Describes `u`.
pub fn describe(u: &Uuid) -> Description {
    let variant = u.variant();
    let mut d = Description {
        uuid: *u,
        rows: Vec::new(),
        variant,
        version: None,
        time: None,
        clock_seq: None,
        node: None,
    };
    if u.is_nil() {
        d.row(
            "name",
            "the Nil UUID (RFC 9562 §5.9): all 128 bits zero",
            json!("nil"),
        );
        return d;
    }
    if u.is_max() {
        d.row(
            "name",
            "the Max UUID (RFC 9562 §5.10): all 128 bits one",
            json!("max"),
        );
        return d;
    }
    if variant != Variant::Rfc9562 {
        return d;
    }
    let n = u.version_nibble();
    d.version = Some(n);
    match n {
        1 | 6 => {
            let Some(g) = api::gregorian(u) else {
                return d;
            };
            d.time = Some(time::format_rfc3339(time::from_ts60(g.ts60), 7));
            d.clock_seq = Some(g.clock_seq);
            d.node = Some(mac(g.node));
            d.row(
                "timestamp",
                &format!(
                    "{} (0x{:015x}) 100-ns intervals since 1582-10-15",
                    g.ts60, g.ts60
                ),
                json!(g.ts60),
            );
            let (kind, text) = if g.node[0] & 1 == 1 {
                (
                    "random",
                    "random (multicast bit set): does not identify a host",
                )
            } else {
                (
                    "ieee_mac",
                    "IEEE MAC address (multicast bit clear): identifies the host (RFC 9562 §8)",
                )
            };
            d.row("node_kind", text, json!(kind));
            let (key, other) = if n == 1 {
                ("as_v6", api::to_v6(u))
            } else {
                ("as_v1", api::to_v1(u))
            };
            if let Some(other) = other {
                let text = api::to_text(&other, Format::Canonical, false);
                d.row(key, &text, json!(text));
            }
        }
        7 => {
            let Some((ms, rand_a, rand_b)) = api::v7_fields(u) else {
                return d;
            };
            d.time = Some(time::format_rfc3339(time::from_unix_ms(ms), 3));
            d.row("unix_ts_ms", &format!("{ms} (0x{ms:012x})"), json!(ms));
            d.row("rand_a", &format!("0x{rand_a:03x}"), json!(rand_a));
            d.row("rand_b", &format!("0x{rand_b:016x}"), json!(rand_b));
            // Method 3 (§6.2): rand_a = floor(fraction of the millisecond × 4096).
            let ns = time::from_unix_ms(ms) + i128::from(rand_a) * 1_000_000 / 4096;
            let at = time::format_rfc3339(ns, 6);
            d.row(
                "submillis_time",
                &format!(
                    "{at} if rand_a holds method-3 sub-millisecond precision \
                     (a heuristic: a single UUID cannot tell it from random bits or a counter)"
                ),
                json!(at),
            );
        }
        3 | 5 => {
            let hash = if n == 3 { "md5" } else { "sha1" };
            d.row(
                "hash",
                &format!(
                    "{}: the namespace and name cannot be recovered from the UUID",
                    if n == 3 { "MD5" } else { "SHA-1" }
                ),
                json!(hash),
            );
        }
        4 => {
            d.row(
                "random",
                "122 random bits; nothing else to decode",
                json!(true),
            );
        }
        8 => {
            let v = u.as_u128();
            let a = (v >> 80) as u64;
            let b = ((v >> 64) & 0xfff) as u16;
            let c = (v & ((1 << 62) - 1)) as u64;
            d.row("custom_a", &format!("0x{a:012x}"), json!(a));
            d.row("custom_b", &format!("0x{b:03x}"), json!(b));
            d.row("custom_c", &format!("0x{c:016x}"), json!(c));
            // App. B.1's example layout: 60 bits of 10-ns units since 1970 in custom_a‖custom_b.
            let b1 = time::format_rfc3339(i128::from((a << 12) | u64::from(b)) * 10, 8);
            d.row(
                "b1_time",
                &format!(
                    "{b1} if this is the time-based layout of RFC 9562 App. B.1 \
                     (a heuristic: v8 layouts are application-defined)"
                ),
                json!(b1),
            );
            d.row(
                "layout",
                "application-defined (§5.8): if name-based (App. B.2, e.g. SHA-256) the hashed \
                 namespace and name cannot be recovered; if time-based, only its creator knows the layout",
                json!("custom"),
            );
        }
        _ => {}
    }
    d
}

impl Description {
    fn row(&mut self, key: &'static str, text: &str, value: Value) {
        self.rows.push((key, text.to_string(), value));
    }

    /// The human-readable block.
    pub fn to_text(&self) -> String {
        let mut rows: Vec<(&str, String)> =
            vec![("variant", variant_text(self.variant).to_string())];
        rows.push((
            "version",
            match self.version {
                Some(n) => format!("{n} ({})", version_text(n)),
                None => "none (only the RFC 9562 variant has versions)".into(),
            },
        ));
        if let Some(t) = &self.time {
            rows.push(("time", t.clone()));
        }
        if let Some(cs) = self.clock_seq {
            rows.push(("clock_seq", format!("{cs} (0x{cs:04x})")));
        }
        if let Some(n) = &self.node {
            rows.push(("node", n.clone()));
        }
        for (k, text, _) in &self.rows {
            rows.push((k, text.clone()));
        }
        let mut s = api::to_text(&self.uuid, Format::Canonical, false);
        s.push('\n');
        for (k, v) in rows {
            s.push_str(&format!("  {:<16}{v}\n", format!("{k}:")));
        }
        s
    }

    /// The JSON object.
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert(
            "uuid".into(),
            json!(api::to_text(&self.uuid, Format::Canonical, false)),
        );
        m.insert("variant".into(), json!(variant_key(self.variant)));
        m.insert("version".into(), json!(self.version));
        m.insert("time".into(), json!(self.time));
        m.insert("clock_seq".into(), json!(self.clock_seq));
        m.insert("node".into(), json!(self.node));
        for (k, _, v) in &self.rows {
            m.insert((*k).into(), v.clone());
        }
        Value::Object(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a6_v7_time() {
        let d = describe(&Uuid::from_u128(0x017F22E2_79B0_7CC3_98C4_DC0C0C07398F));
        let j = d.to_json();
        assert_eq!(j["time"], "2022-02-22T19:22:22.000Z");
        assert_eq!(j["version"], 7);
        assert_eq!(j["variant"], "rfc9562");
        assert_eq!(j["rand_a"], 0xcc3);
        assert_eq!(j["clock_seq"], Value::Null);
        // 0xcc3 / 4096 ms = 3267 / 4096 ms = 0.797607… ms (truncated to µs).
        assert_eq!(j["submillis_time"], "2022-02-22T19:22:22.000797Z");
    }

    #[test]
    fn a1_v1_fields() {
        let j = describe(&Uuid::from_u128(0xC232AB00_9414_11EC_B3C8_9F6BDECED846)).to_json();
        assert_eq!(j["time"], "2022-02-22T19:22:22.0000000Z");
        assert_eq!(j["clock_seq"], 0x33c8);
        assert_eq!(j["node"], "9f:6b:de:ce:d8:46");
        assert_eq!(j["node_kind"], "random");
        assert_eq!(j["as_v6"], "1ec9414c-232a-6b00-b3c8-9f6bdeced846");
    }

    #[test]
    fn b1_v8_time_reading() {
        let j = describe(&Uuid::from_u128(0x2489E9AD_2EE2_8E00_8EC9_32D5F69181C0)).to_json();
        assert_eq!(j["b1_time"], "2022-02-22T19:22:22.00000000Z");
        assert_eq!(j["custom_c"], 0x0EC932D5F69181C0u64);
        assert_eq!(j["time"], Value::Null);
    }

    #[test]
    fn nil_max_and_other_variants() {
        let j = describe(&Uuid::NIL).to_json();
        assert_eq!(
            (j["variant"].as_str(), j["name"].as_str()),
            (Some("ncs"), Some("nil"))
        );
        assert_eq!(j["version"], Value::Null);
        let j = describe(&Uuid::MAX).to_json();
        assert_eq!(
            (j["variant"].as_str(), j["name"].as_str()),
            (Some("future"), Some("max"))
        );
        let j = describe(&Uuid::from_u128(0x00000000_0000_4000_c000_000000000000)).to_json();
        assert_eq!(j["variant"], "microsoft");
        assert_eq!(j["version"], Value::Null);
    }
}
