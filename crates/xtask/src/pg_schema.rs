//! The extension's SQL script, written from its built library as `cargo
//! pgrx package` writes it: pgrx's macros embed a description of every SQL
//! entity in a section of the library (`.pgrxsc`), and pgrx's own
//! `pgrx-sql-entity-graph` turns those, with the control file, into the
//! script. Using that crate, at the version the extension pins, keeps the
//! script exactly pgrx's without installing `cargo-pgrx`.

use std::path::Path;

use object::{Object, ObjectSection};
use pgrx_sql_entity_graph::section::{decode_entities, is_schema_section_name};
use pgrx_sql_entity_graph::{ControlFile, PgrxSql, SqlGraphEntity};

/// The pgrx version whose schema section this reads: the extension must pin
/// exactly this one (`pgrx = "=…"` in its Cargo.toml).
pub const PGRX_VERSION: &str = "0.18.1";

/// The `cargo --config` that keeps the schema section in the linked
/// library (nothing references it, so `--gc-sections` would drop it), as
/// `cargo pgrx` builds it.
pub const KEEP_SECTION: &str = "target.'cfg(all(target_family = \"unix\", not(target_os = \"macos\")))'\
    .rustflags = [\"-C\", \"link-arg=-Wl,--no-gc-sections\"]";

/// The SQL script of the extension in `library` (an ELF shared object),
/// whose control file, with its variables substituted, is `control`;
/// `lib_name` is the crate's library name.
///
/// # Errors
/// The library cannot be read or parsed, has no schema section, or pgrx
/// cannot build the script from it.
pub fn sql(library: &Path, control: &str, lib_name: &str) -> Result<String, String> {
    let data =
        std::fs::read(library).map_err(|e| format!("cannot read {}: {e}", library.display()))?;
    let file = object::File::parse(&*data)
        .map_err(|e| format!("{}: not a shared object: {e}", library.display()))?;
    let section = file
        .sections()
        .find(|s| s.name().is_ok_and(is_schema_section_name))
        .ok_or_else(|| format!("{}: no pgrx schema section (.pgrxsc)", library.display()))?;
    let bytes = section
        .data()
        .map_err(|e| format!("{}: cannot read the schema section: {e}", library.display()))?;
    let control = ControlFile::from_str(control).map_err(|e| format!("uuidkit.control: {e}"))?;
    let mut entities = vec![SqlGraphEntity::ExtensionRoot(control)];
    entities.extend(decode_entities(bytes).map_err(|e| {
        format!(
            "{}: cannot decode the schema section: {e}",
            library.display()
        )
    })?);
    PgrxSql::build(entities.into_iter(), lib_name.to_string(), false)
        .and_then(|script| script.to_sql())
        .map_err(|e| format!("pgrx cannot build the SQL script: {e}"))
}
