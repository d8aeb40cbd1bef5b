//! Generates the prost interop test's messages from `proto/orders.proto`
//! twice, as a program would with prost-build: `ours` maps the message
//! `uuidkit.Uuid` to `uuidkit::Uuid` (the recipe of uuidkit's `proto`
//! module), `theirs` generates it as a message of its own, a `bytes` field
//! that a program on the `uuid` crate fills from `uuid::Uuid::as_bytes`.

use std::path::PathBuf;

/// Where uuidkit's `uuid.proto` is imported from, and the message's name:
/// `uuidkit::proto::UUID_PROTO_PATH` and `UUID_MESSAGE`, which the test
/// compares with these (a build script of a program would name the
/// constants themselves, with uuidkit as a build-dependency).
const UUID_PROTO_PATH: &str = "uuidkit/uuid.proto";
const UUID_MESSAGE: &str = ".uuidkit.Uuid";

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap());
    let out = PathBuf::from(std::env::var_os("OUT_DIR").unwrap());
    let uuidkit_protos = manifest.join("../uuidkit/proto");
    let includes = [manifest.join("proto"), uuidkit_protos.clone()];
    let orders = manifest.join("proto/orders.proto");
    for (dir, mapped) in [("ours", true), ("theirs", false)] {
        let dir = out.join(dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mut config = prost_build::Config::new();
        // Maps in key order, so that both encodings are comparable bytes.
        config.btree_map(["."]).out_dir(&dir);
        if mapped {
            config.extern_path(UUID_MESSAGE, "::uuidkit::Uuid");
        }
        config.compile_protos(&[&orders], &includes).unwrap();
    }
    println!("cargo:rustc-env=UUID_PROTO_PATH={UUID_PROTO_PATH}");
    println!("cargo:rustc-env=UUID_MESSAGE={UUID_MESSAGE}");
    println!("cargo:rerun-if-changed=proto");
    println!(
        "cargo:rerun-if-changed={}",
        uuidkit_protos.join(UUID_PROTO_PATH).display()
    );
}
