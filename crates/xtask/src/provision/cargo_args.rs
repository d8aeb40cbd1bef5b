//! The feature selection of `cargo test --workspace`: every feature of every
//! workspace crate, as `--all-features` gives, less what cannot build here.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::Build;

/// The workspace as `cargo metadata --no-deps` describes it: each crate's
/// features (and what each enables), and which of its targets need which
/// features.
#[derive(Debug, Default)]
pub struct Workspace {
    /// Crate → feature → the values it enables.
    features: BTreeMap<String, BTreeMap<String, Vec<String>>>,
    /// `(crate, target kind, target name, required features)`.
    targets: Vec<(String, String, String, Vec<String>)>,
}

impl Workspace {
    /// Reads the JSON of `cargo metadata --no-deps --format-version 1`.
    ///
    /// # Errors
    /// The text is not that JSON.
    pub fn from_metadata(json: &str) -> Result<Workspace, String> {
        let v: Value = serde_json::from_str(json).map_err(|e| format!("cargo metadata: {e}"))?;
        let packages = v["packages"]
            .as_array()
            .ok_or("cargo metadata: expected a `packages` array")?;
        let strings = |v: &Value| -> Vec<String> {
            v.as_array()
                .into_iter()
                .flatten()
                .filter_map(|s| s.as_str().map(str::to_string))
                .collect()
        };
        let mut ws = Workspace::default();
        for p in packages {
            let name = p["name"].as_str().unwrap_or_default().to_string();
            let features = p["features"]
                .as_object()
                .into_iter()
                .flatten()
                .map(|(f, enables)| (f.clone(), strings(enables)))
                .collect();
            for t in p["targets"].as_array().into_iter().flatten() {
                let required = strings(&t["required-features"]);
                if !required.is_empty() {
                    let kind = strings(&t["kind"]).join(",");
                    let target = t["name"].as_str().unwrap_or_default().to_string();
                    ws.targets.push((name.clone(), kind, target, required));
                }
            }
            ws.features.insert(name, features);
        }
        Ok(ws)
    }

    /// Whether `feature` (`crate/feature`) is one of the workspace's.
    #[cfg(test)]
    pub fn has_feature(&self, feature: &str) -> bool {
        feature
            .split_once('/')
            .is_some_and(|(k, f)| self.features.get(k).is_some_and(|fs| fs.contains_key(f)))
    }

    /// Whether `krate` is one of the workspace's crates.
    #[cfg(test)]
    pub fn has_crate(&self, krate: &str) -> bool {
        self.features.contains_key(krate)
    }

    /// Whether feature `feature` of `krate` turns on, directly or through
    /// other features, any feature in `off` (`crate/feature`) or any
    /// feature of a crate in `excluded`.
    fn reaches(
        &self,
        krate: &str,
        feature: &str,
        off: &BTreeSet<String>,
        excluded: &[&str],
    ) -> bool {
        let mut seen = BTreeSet::new();
        let mut todo = vec![(krate.to_string(), feature.to_string())];
        while let Some((k, f)) = todo.pop() {
            if off.contains(&format!("{k}/{f}")) || excluded.contains(&k.as_str()) {
                return true;
            }
            if !seen.insert((k.clone(), f.clone())) {
                continue;
            }
            for value in self
                .features
                .get(&k)
                .and_then(|fs| fs.get(&f))
                .into_iter()
                .flatten()
            {
                match value.split_once('/') {
                    // `dep/feature` (or `dep?/feature`) of a workspace crate.
                    Some((dep, g)) => {
                        let dep = dep.trim_end_matches('?');
                        if self.features.contains_key(dep) {
                            todo.push((dep.to_string(), g.to_string()));
                        }
                    }
                    None if !value.starts_with("dep:") => todo.push((k.clone(), value.clone())),
                    None => {}
                }
            }
        }
        false
    }

    /// The test and bench targets that will not be built, one line each.
    pub fn not_built(&self, left_out: &[(Build, Vec<&str>)]) -> Vec<String> {
        let mut lines = Vec::new();
        for (build, lacks) in left_out {
            let lacks = lacks.join(", ");
            match build {
                Build::Feature(f) => {
                    let (krate, feature) = f.split_once('/').unwrap_or(("", f));
                    for (k, kind, target, required) in &self.targets {
                        if k == krate && required.iter().any(|r| r == feature) {
                            lines.push(format!(
                                "{k} {kind} {target}: not built (feature {f} needs {lacks})"
                            ));
                        }
                    }
                }
                Build::Crate(k) => {
                    lines.push(format!("every test of {k}: not built (it needs {lacks})"));
                }
            }
        }
        lines
    }
}

/// The feature arguments of `cargo test --workspace`: `--all-features`
/// when nothing is left out (the set CI's clippy builds, so both share one
/// build), otherwise each feature of each crate that does not reach a
/// left-out one, and `--exclude` for each left-out crate.
pub fn cargo_args(ws: &Workspace, left_out: &[(Build, Vec<&str>)]) -> Vec<String> {
    if left_out.is_empty() {
        return vec!["--all-features".to_string()];
    }
    let off: BTreeSet<String> = left_out
        .iter()
        .filter_map(|(b, _)| match b {
            Build::Feature(f) => Some((*f).to_string()),
            Build::Crate(_) => None,
        })
        .collect();
    let excluded: Vec<&str> = left_out
        .iter()
        .filter_map(|(b, _)| match b {
            Build::Crate(k) => Some(*k),
            Build::Feature(_) => None,
        })
        .collect();
    let mut on = Vec::new();
    for (krate, features) in &ws.features {
        if excluded.contains(&krate.as_str()) {
            continue;
        }
        for feature in features.keys() {
            if !ws.reaches(krate, feature, &off, &excluded) {
                on.push(format!("{krate}/{feature}"));
            }
        }
    }
    let mut args = vec!["--features".to_string(), on.join(",")];
    for k in excluded {
        args.extend(["--exclude".to_string(), k.to_string()]);
    }
    args
}
