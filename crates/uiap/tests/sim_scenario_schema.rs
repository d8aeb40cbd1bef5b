//! The scenario format's JSON Schema (docs/uiap-scenario.schema.json) stays honest: every
//! scenario shipped in the repository validates against it, it names exactly the keys the
//! deserializer knows at every level, and on a corpus of documents it accepts what the
//! deserializer accepts and refuses what it refuses, except for the checks a schema cannot make
//! (listed in `beyond_the_schema`).

use serde_json::{Map, Value, json};
use uiap::sim::Scenario;

const SCHEMA: &str = include_str!("../../../docs/uiap-scenario.schema.json");

fn schema() -> Value {
    serde_json::from_str(SCHEMA).expect("the schema is JSON")
}

/// A validator for the part of JSON Schema (2020-12) the schema uses. An unknown keyword fails
/// the test: nothing in the schema is silently ignored.
struct Validator {
    root: Value,
}

const ANNOTATIONS: [&str; 5] = ["$schema", "$id", "title", "description", "$defs"];

impl Validator {
    fn valid(&self, schema: &Value, v: &Value) -> bool {
        let Value::Object(s) = schema else {
            panic!("a schema is an object: {schema}")
        };
        s.iter().all(|(k, arg)| self.keyword(s, k, arg, v))
    }

    fn resolve(&self, reference: &str) -> &Value {
        let name = reference
            .strip_prefix("#/$defs/")
            .unwrap_or_else(|| panic!("unsupported $ref {reference}"));
        &self.root["$defs"][name]
    }

    fn keyword(&self, s: &Map<String, Value>, k: &str, arg: &Value, v: &Value) -> bool {
        let num = |x: &Value| x.as_f64().expect("a number");
        match k {
            _ if ANNOTATIONS.contains(&k) => true,
            "$ref" => self.valid(self.resolve(arg.as_str().unwrap()), v),
            "type" => type_ok(arg.as_str().unwrap(), v),
            "enum" => arg.as_array().unwrap().contains(v),
            "minimum" => !v.is_number() || num(v) >= num(arg),
            "maximum" => !v.is_number() || num(v) <= num(arg),
            "pattern" => v.as_str().is_none_or(|t| {
                regex::Regex::new(arg.as_str().unwrap())
                    .expect("a pattern the regex crate reads")
                    .is_match(t)
            }),
            "required" => v.as_object().is_none_or(|o| {
                arg.as_array()
                    .unwrap()
                    .iter()
                    .all(|r| o.contains_key(r.as_str().unwrap()))
            }),
            "properties" => v.as_object().is_none_or(|o| {
                o.iter()
                    .all(|(name, x)| arg.get(name).is_none_or(|p| self.valid(p, x)))
            }),
            "additionalProperties" => {
                assert_eq!(arg, &json!(false), "only additionalProperties: false");
                let known = s.get("properties").and_then(Value::as_object);
                v.as_object().is_none_or(|o| {
                    o.keys()
                        .all(|name| known.is_some_and(|p| p.contains_key(name)))
                })
            }
            "items" => v
                .as_array()
                .is_none_or(|a| a.iter().all(|x| self.valid(arg, x))),
            "minItems" => v
                .as_array()
                .is_none_or(|a| a.len() as u64 >= arg.as_u64().unwrap()),
            "maxItems" => v
                .as_array()
                .is_none_or(|a| a.len() as u64 <= arg.as_u64().unwrap()),
            "oneOf" => {
                let n = arg
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|x| self.valid(x, v))
                    .count();
                n == 1
            }
            "anyOf" => arg.as_array().unwrap().iter().any(|x| self.valid(x, v)),
            "not" => !self.valid(arg, v),
            other => panic!("the test's validator does not know the keyword {other}"),
        }
    }
}

fn type_ok(t: &str, v: &Value) -> bool {
    match t {
        "object" => v.is_object(),
        "array" => v.is_array(),
        "string" => v.is_string(),
        "number" => v.is_number(),
        "integer" => v.is_u64() || v.is_i64(),
        "boolean" => v.is_boolean(),
        other => panic!("unsupported type {other}"),
    }
}

fn schema_accepts(doc: &Value) -> bool {
    let root = schema();
    Validator { root: root.clone() }.valid(&root, doc)
}

fn serde_accepts(doc: &Value) -> bool {
    serde_json::from_value::<Scenario>(doc.clone()).is_ok()
}

#[test]
fn every_shipped_scenario_validates() {
    let examples = concat!(env!("CARGO_MANIFEST_DIR"), "/examples");
    let mut checked = 0;
    for entry in std::fs::read_dir(examples).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "json") {
            let doc: Value =
                serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            assert!(schema_accepts(&doc), "{} fails the schema", path.display());
            let s: Scenario = serde_json::from_value(doc).unwrap();
            s.validate()
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            checked += 1;
        }
    }
    assert!(checked >= 2, "found {checked} scenarios");
}

/// The fields serde lists when it refuses an unknown key in `doc` (`zz`).
fn serde_fields(doc: &str) -> Vec<String> {
    let err = serde_json::from_str::<Scenario>(doc)
        .unwrap_err()
        .to_string();
    let list = err
        .split_once("expected")
        .unwrap_or_else(|| panic!("{err}"))
        .1;
    let mut fields: Vec<String> = list
        .split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect();
    fields.sort();
    fields
}

fn schema_fields(def: Option<&str>) -> Vec<String> {
    let root = schema();
    let node = match def {
        Some(d) => root["$defs"][d].clone(),
        None => root,
    };
    let mut fields: Vec<String> = node["properties"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    fields.sort();
    fields
}

#[test]
fn the_schema_names_the_keys_serde_knows() {
    for (def, probe) in [
        (None, r#"{"zz": 1}"#),
        (Some("config"), r#"{"config": {"zz": 1}}"#),
        (Some("segment"), r#"{"segments": [{"name": "l", "zz": 1}]}"#),
        (Some("device"), r#"{"devices": [{"name": "a", "zz": 1}]}"#),
        (Some("action"), r#"{"actions": [{"zz": 1}]}"#),
        (
            Some("claim"),
            r#"{"actions": [{"claim": {"device": "a", "domain": "fff:0:1:0", "unique": "01", "zz": 1}}]}"#,
        ),
        (
            Some("link"),
            r#"{"actions": [{"link_up": {"device": "a", "segment": "l", "zz": 1}}]}"#,
        ),
    ] {
        assert_eq!(schema_fields(def), serde_fields(probe), "{def:?}");
    }
}

/// Documents whose verdict a schema can give: the schema and the deserializer agree on each.
#[test]
fn the_schema_and_serde_agree_on_a_corpus() {
    let claim = |c: Value| json!({"actions": [{"at_ms": 1, "claim": c}]});
    let corpus = [
        json!({}),
        json!({"seed": 3, "until_ms": 1.5, "config": {"hop_limit": 8, "proxy_defense": false}}),
        json!({"seed": -1}),
        json!({"seed": 1.5}),
        json!({"until_ms": -1}),
        json!({"until_ms": 2e12}),
        json!({"config": {"hop_limit": 256}}),
        json!({"config": {"claim_period_ms": "500"}}),
        json!({"segments": [{"name": "l", "loss": 0.3, "duplicate": 1, "reorder_ms": 0}]}),
        json!({"segments": [{"name": "l", "loss": 1.5}]}),
        json!({"segments": [{"loss": 0.5}]}),
        json!({"segments": [["l"]]}),
        json!({"devices": [{"name": "a", "segments": ["l"], "id": "00000000000000ff"}]}),
        json!({"devices": [{"name": "a", "id": "0000000000000000"}]}),
        json!({"devices": [{"name": "a", "id": "ff"}]}),
        json!({"devices": [{"name": 3}]}),
        claim(json!({"device": "a", "domain": "fff:0:1:0", "unique": "2a"})),
        claim(
            json!({"device": "a", "domain": "fff:0:1:0", "unique": "2a0/12", "lifetime": "infinite"}),
        ),
        claim(json!({"device": "a", "domain": "fff:0:1:0", "range": ["20", "2f"], "lifetime": 60})),
        claim(
            json!({"device": "a", "domain": "fff:0:1:0", "prefix": "c0/4", "proxy": true, "reclaim": true}),
        ),
        claim(json!({"device": "a", "domain": "fff:0:1:0", "unique": "abc"})),
        claim(json!({"device": "a", "domain": "fff:0:1:0", "unique": "2a", "prefix": "20/4"})),
        claim(json!({"device": "a", "domain": "fff:0:1:0"})),
        claim(json!({"device": "a", "domain": "fff:0:1:0", "range": ["20"]})),
        claim(json!({"device": "a", "domain": "fff:0:1:0", "unique": "2a", "lifetime": "forever"})),
        claim(
            json!({"device": "a", "domain": "fff:0:1:0", "unique": "2a", "lifetime": 4294967296_u64}),
        ),
        claim(json!({"domain": "fff:0:1:0", "unique": "2a"})),
        json!({"actions": [{"release": 0}, {"reclaim": 1}, {"leave": "a"}, {"join": "a"}]}),
        json!({"actions": [{"link_down": {"device": "a", "segment": "l"}}]}),
        json!({"actions": [{"link_down": {"device": "a"}}]}),
        json!({"actions": [{"leave": "a", "join": "a"}]}),
        json!({"actions": [{"at_ms": 5}]}),
        json!({"actions": [{"release": -1}]}),
    ];
    let mut verdicts = (0, 0);
    for doc in &corpus {
        let (schema, serde) = (schema_accepts(doc), serde_accepts(doc));
        assert_eq!(schema, serde, "schema {schema}, serde {serde}: {doc}");
        if serde {
            verdicts.0 += 1;
        } else {
            verdicts.1 += 1;
        }
    }
    assert!(verdicts.0 >= 8 && verdicts.1 >= 15, "{verdicts:?}");
}

/// What only `uiap sim` checks: the schema accepts these, the scenario is refused.
#[test]
fn beyond_the_schema() {
    for doc in [
        // A domain ID's text form and whether a UID fits its domain.
        json!({"actions": [{"claim": {"device": "a", "domain": "not a domain", "unique": "2a"}}]}),
        json!({"actions": [{"claim": {"device": "a", "domain": "fff:0:1:0", "unique": "2a/99"}}]}),
    ] {
        assert!(schema_accepts(&doc), "{doc}");
        assert!(!serde_accepts(&doc), "{doc}");
    }
    // Names that refer to nothing and duplicate names: refused by validation.
    for doc in [
        json!({"devices": [{"name": "a"}, {"name": "a"}]}),
        json!({"devices": [{"name": "a", "segments": ["wan"]}]}),
        json!({"actions": [{"release": 0}]}),
    ] {
        assert!(schema_accepts(&doc), "{doc}");
        let s: Scenario = serde_json::from_value(doc.clone()).unwrap();
        assert!(s.validate().is_err(), "{doc}");
    }
}
