//! The protobuf definition behind the `prost` feature: the message
//! `uuidkit.Uuid` (`bytes value = 1`, the 16 octets) that [`Uuid`](crate::Uuid)
//! implements `prost::Message` for, as a file to hand to prost-build.
//!
//! A build script writes [`UUID_PROTO`] under an include directory at
//! [`UUID_PROTO_PATH`] and maps [`UUID_MESSAGE`] to `::uuidkit::Uuid`, so that
//! a `.proto` of the program that says `import "uuidkit/uuid.proto";` and
//! `uuidkit.Uuid id = 1;` gets `Option<uuidkit::Uuid>` in the generated code
//! (the build script needs `uuidkit` with `prost` as a build-dependency too):
//!
//! ```
//! // build.rs
//! let include = std::env::temp_dir().join("uuidkit-proto-example"); // OUT_DIR in a build script
//! let file = include.join(uuidkit::proto::UUID_PROTO_PATH);
//! std::fs::create_dir_all(file.parent().unwrap())?;
//! std::fs::write(&file, uuidkit::proto::UUID_PROTO)?;
//! // prost_build::Config::new()
//! //     .extern_path(uuidkit::proto::UUID_MESSAGE, "::uuidkit::Uuid")
//! //     .compile_protos(&["proto/orders.proto"], &[std::path::Path::new("proto"), &include])?;
//! assert!(std::fs::read_to_string(&file)?.contains("message Uuid {"));
//! # std::fs::remove_dir_all(&include)?;
//! # Ok::<(), std::io::Error>(())
//! ```

/// The text of `proto/uuidkit/uuid.proto`, as shipped in the crate.
///
/// ```
/// let proto = uuidkit::proto::UUID_PROTO;
/// assert!(proto.contains("package uuidkit;"));
/// assert!(proto.contains("bytes value = 1;"));
/// ```
pub const UUID_PROTO: &str = include_str!("../../proto/uuidkit/uuid.proto");

/// Where [`UUID_PROTO`] goes under an include directory: the path a
/// program's `.proto` files import.
///
/// ```
/// assert_eq!(uuidkit::proto::UUID_PROTO_PATH, "uuidkit/uuid.proto");
/// ```
pub const UUID_PROTO_PATH: &str = "uuidkit/uuid.proto";

/// The message's fully qualified protobuf name, the first argument of
/// prost-build's `Config::extern_path`.
///
/// ```
/// use prost::Name;
/// assert_eq!(uuidkit::proto::UUID_MESSAGE, format!(".{}", uuidkit::Uuid::full_name()));
/// ```
pub const UUID_MESSAGE: &str = ".uuidkit.Uuid";
