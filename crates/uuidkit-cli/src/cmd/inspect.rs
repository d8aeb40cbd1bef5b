//! `uuidkit inspect`: variant, version and the fields of each version.
//!
//! Human output is one block per UUID (blank line between blocks); `--json` is one
//! object per line with at least `uuid`, `variant`, `version`, `time`, `clock_seq`
//! and `node`. An integer field whose range exceeds 2^53 (`timestamp`, 60 bits;
//! `rand_b` and `custom_c`, 62 bits) is a string of decimal digits, whatever its
//! value, so that a reader that holds numbers as doubles (JavaScript, jq) gets
//! it exactly; every other integer is a JSON number. Invalid inputs are reported on stderr with their line number and the
//! run continues; the exit status is then 1.

use serde_json::{Map, Value, json};
use uuidkit::{Uuid, Variant};

use crate::error::{Error, Outcome};
use crate::flags::InspectPlan;
use crate::time;

use super::Reports;

/// Runs `inspect`: a description per UUID, a blank line between two.
pub fn run(plan: &InspectPlan) -> Result<Outcome, Error> {
    if let Some((columns, headings)) = &plan.table {
        return super::table::run(plan, columns, *headings);
    }
    let mut first = true;
    super::each_uuid(
        &mut super::stdout(),
        &plan.input,
        Reports::Lines,
        |out, _, u| {
            let d = describe(&u);
            if plan.json {
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
            Ok(Ok(()))
        },
    )
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

/// Describes `u`: the fixed fields, then what its version says.
pub fn describe(u: &Uuid) -> Description {
    let mut d = Description {
        uuid: *u,
        rows: Vec::new(),
        variant: u.variant(),
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
    } else if u.is_max() {
        d.row(
            "name",
            "the Max UUID (RFC 9562 §5.10): all 128 bits one",
            json!("max"),
        );
    } else if d.variant == Variant::Rfc9562 {
        let n = u.version_nibble();
        d.version = Some(n);
        match n {
            1 | 6 => d.gregorian(u),
            3 | 5 => d.name_based(n),
            4 => d.row(
                "random",
                "122 random bits; nothing else to decode",
                json!(true),
            ),
            7 => d.unix_epoch(u),
            8 => d.custom(u),
            _ => {}
        }
    }
    d
}

/// A field whose range exceeds 2^53, as JSON: decimal digits in a string (see
/// the module docs), for every value of the field.
fn wide(v: u64) -> Value {
    Value::String(v.to_string())
}

/// The time of a v1, v6 or v7 UUID with `digits` fractional digits.
fn time_of(u: &Uuid, digits: u32) -> Option<String> {
    u.unix_nanos().map(|t| time::format_rfc3339(t, digits))
}

impl Description {
    /// Versions 1 and 6 (RFC 9562 §5.1, §5.6): timestamp, clock sequence,
    /// node, and the same UUID in the other version.
    fn gregorian(&mut self, u: &Uuid) {
        let (Some(ts60), Some(clock_seq), Some(node)) =
            (u.gregorian_timestamp(), u.clock_seq(), u.node())
        else {
            return;
        };
        self.time = time_of(u, 7);
        self.clock_seq = Some(clock_seq);
        self.node = Some(mac(node));
        self.row(
            "timestamp",
            &format!("{ts60} (0x{ts60:015x}) 100-ns intervals since 1582-10-15"),
            wide(ts60),
        );
        let (kind, text) = if node[0] & 1 == 1 {
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
        self.row("node_kind", text, json!(kind));
        let (key, other) = if u.version_nibble() == 1 {
            ("as_v6", u.to_v6())
        } else {
            ("as_v1", u.to_v1())
        };
        if let Some(other) = other {
            let text = other.to_string();
            self.row(key, &text, json!(text));
        }
    }

    /// Version 7 (RFC 9562 §5.7): milliseconds, `rand_a`, `rand_b`, and the
    /// sub-millisecond reading of Method 3.
    fn unix_epoch(&mut self, u: &Uuid) {
        let (Some(ms), Some(rand_a), Some(rand_b)) = (u.unix_ts_ms(), u.rand_a(), u.rand_b())
        else {
            return;
        };
        self.time = time_of(u, 3);
        self.row("unix_ts_ms", &format!("{ms} (0x{ms:012x})"), json!(ms));
        self.row("rand_a", &format!("0x{rand_a:03x}"), json!(rand_a));
        self.row("rand_b", &format!("0x{rand_b:016x}"), wide(rand_b));
        // Method 3 (§6.2): rand_a = floor(fraction of the millisecond × 4096).
        let ns = time::from_unix_ms(ms) + i128::from(rand_a) * 1_000_000 / 4096;
        let at = time::format_rfc3339(ns, 6);
        self.row(
            "submillis_time",
            &format!(
                "{at} if rand_a holds method-3 sub-millisecond precision \
                 (a heuristic: a single UUID cannot tell it from random bits or a counter)"
            ),
            json!(at),
        );
    }

    /// Versions 3 and 5 (RFC 9562 §5.3, §5.5): only the hash is known.
    fn name_based(&mut self, n: u8) {
        let (key, name) = if n == 3 {
            ("md5", "MD5")
        } else {
            ("sha1", "SHA-1")
        };
        self.row(
            "hash",
            &format!("{name}: the namespace and name cannot be recovered from the UUID"),
            json!(key),
        );
    }

    /// Version 8 (RFC 9562 §5.8): the three custom fields, and the reading of
    /// Appendix B.1's time-based layout.
    fn custom(&mut self, u: &Uuid) {
        let (Some(a), Some(b), Some(c), Some(t10)) =
            (u.custom_a(), u.custom_b(), u.custom_c(), u.v8_time_10ns())
        else {
            return;
        };
        self.row("custom_a", &format!("0x{a:012x}"), json!(a));
        self.row("custom_b", &format!("0x{b:03x}"), json!(b));
        self.row("custom_c", &format!("0x{c:016x}"), wide(c));
        let b1 = time::format_rfc3339(i128::from(t10) * 10, 8);
        self.row(
            "b1_time",
            &format!(
                "{b1} if this is the time-based layout of RFC 9562 App. B.1 \
                 (a heuristic: v8 layouts are application-defined)"
            ),
            json!(b1),
        );
        self.row(
            "layout",
            "application-defined (§5.8): if name-based (App. B.2, e.g. SHA-256) the hashed \
             namespace and name cannot be recovered; if time-based, only its creator knows the layout",
            json!("custom"),
        );
    }
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
        let mut s = self.uuid.to_string();
        s.push('\n');
        for (k, v) in rows {
            s.push_str(&format!("  {:<16}{v}\n", format!("{k}:")));
        }
        s
    }

    /// The JSON object.
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("uuid".into(), json!(self.uuid.to_string()));
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
    fn a1_a5_and_a6_fields_and_conversion() {
        let a1 = describe(&Uuid::from_u128(0xC232AB00_9414_11EC_B3C8_9F6BDECED846)).to_json();
        let a5 = describe(&Uuid::from_u128(0x1EC9414C_232A_6B00_B3C8_9F6BDECED846)).to_json();
        for key in ["time", "clock_seq", "node", "timestamp", "node_kind"] {
            assert_eq!(a1[key], a5[key], "{key}: the same fields in both layouts");
        }
        assert_eq!(a1["timestamp"], "138648505420000000");
        assert_eq!(a5["as_v1"], "c232ab00-9414-11ec-b3c8-9f6bdeced846");
        let a6 = describe(&Uuid::from_u128(0x017F22E2_79B0_7CC3_98C4_DC0C0C07398F)).to_json();
        assert_eq!(
            (&a6["unix_ts_ms"], &a6["rand_b"]),
            (&json!(0x017F22E279B0u64), &json!("1784793296645077391"))
        );
        assert_eq!(a6["node"], Value::Null);
    }

    #[test]
    fn name_based_and_random_say_what_cannot_be_decoded() {
        let v3 = describe(&Uuid::from_u128(0x5df41881_3aed_3515_88a7_2f4a814cf09e)).to_json();
        let v5 = describe(&Uuid::from_u128(0x2ed6657d_e927_568b_95e1_2665a8aea6a2)).to_json();
        let v4 = describe(&Uuid::from_u128(0x919108f7_52d1_4320_9bac_f847db4148a8)).to_json();
        assert_eq!((&v3["hash"], &v5["hash"]), (&json!("md5"), &json!("sha1")));
        assert_eq!(v4["random"], true);
        assert_eq!(v4["time"], Value::Null);
    }

    #[test]
    fn b1_v8_time_reading() {
        let j = describe(&Uuid::from_u128(0x2489E9AD_2EE2_8E00_8EC9_32D5F69181C0)).to_json();
        assert_eq!(j["b1_time"], "2022-02-22T19:22:22.00000000Z");
        assert_eq!(j["custom_c"], 0x0EC932D5F69181C0u64.to_string());
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
