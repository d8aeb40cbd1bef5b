//! The [`uuid!`](crate::uuid!) macro: a UUID literal checked at compile time.

/// A [`Uuid`](crate::Uuid) from a string literal, parsed at compile time.
///
/// Accepts the forms [`Uuid::parse`](crate::Uuid::parse) accepts. It works in
/// `const` and `static` items, costs nothing at run time, and a malformed
/// literal is a compile error, never a run-time panic.
///
/// ```
/// use uuidkit::{uuid, Uuid};
/// const ID: Uuid = uuid!("f81d4fae-7dec-11d0-a765-00a0c91e6bf6");
/// assert_eq!(ID.as_u128(), 329800735698586629295641978511506172918);
/// assert_eq!(uuid!("{F81D4FAE-7DEC-11D0-A765-00A0C91E6BF6}"), ID);
/// ```
///
/// A typo does not compile:
///
/// ```compile_fail
/// const ID: uuidkit::Uuid = uuidkit::uuid!("f81d4fae-7dec-11d0-a765-00a0c91e6bfg");
/// ```
///
/// ```compile_fail
/// let id = uuidkit::uuid!("f81d4fae-7dec-11d0-a765");
/// ```
#[macro_export]
macro_rules! uuid {
    ($text:expr $(,)?) => {{
        const UUID: $crate::Uuid = match $crate::Uuid::parse_const($text) {
            ::core::result::Result::Ok(u) => u,
            ::core::result::Result::Err(msg) => ::core::panic!("{}", msg),
        };
        UUID
    }};
}
