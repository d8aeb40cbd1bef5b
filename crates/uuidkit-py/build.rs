//! Exposes PyO3's `Py_3_*` / `Py_LIMITED_API` cfgs to this crate, for the
//! version-specific fast paths in `src/convert.rs`.
fn main() {
    pyo3_build_config::use_pyo3_cfgs();
}
