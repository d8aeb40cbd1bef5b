//! Exposes PyO3's `Py_3_*` / `Py_LIMITED_API` cfgs to this crate, and sets
//! `int_digits` where `src/ffi/long.rs` may build an `int` digit by digit: the
//! version-specific ABI of CPython 3.11 to 3.13 with the interpreter lock,
//! whose `int` layout it knows.
use pyo3_build_config::{GilUsed, PythonAbiKind, PythonImplementation};

fn main() {
    pyo3_build_config::use_pyo3_cfgs();
    println!("cargo::rustc-check-cfg=cfg(int_digits)");
    let config = pyo3_build_config::get();
    let version = config.version();
    let known = config.implementation() == PythonImplementation::CPython
        && config.target_abi().kind() == PythonAbiKind::VersionSpecific(GilUsed::GilEnabled)
        && version.major == 3
        && (11..=13).contains(&version.minor);
    if known {
        println!("cargo::rustc-cfg=int_digits");
    }
}
