//! `async-graphql`: the `UUID` scalar exactly as async-graphql's own `uuid`
//! feature defines it for `uuid::Uuid`: the same name, description and
//! `@specifiedBy` URL, so a schema's SDL does not change when its IDs become
//! [`Uuid`]s. Output is the hyphenated lowercase string; input is a string
//! in any form [`Uuid::parse`] reads (`uuid`'s parser reads the same four).

use std::string::ToString;

use async_graphql::{InputValueError, InputValueResult, Scalar, ScalarType, Value};

use crate::Uuid;

/// async-graphql's description of its `UUID` scalar, word for word: the SDL
/// prints it, so one character of difference changes the schema.
const DESCRIPTION: &str = "A UUID is a unique 128-bit number, stored as 16 octets. UUIDs are parsed as
Strings within GraphQL. UUIDs are used to assign unique identifiers to
entities without requiring a central allocating authority.

# References

* [Wikipedia: Universally Unique Identifier](http://en.wikipedia.org/wiki/Universally_unique_identifier)
* [RFC4122: A Universally Unique Identifier (UUID) URN Namespace](http://tools.ietf.org/html/rfc4122)";

impl async_graphql::Description for Uuid {
    fn description() -> &'static str {
        DESCRIPTION
    }
}

/// The scalar `UUID`, a string.
///
/// ```
/// use async_graphql::{EmptyMutation, EmptySubscription, Object, Schema};
///
/// struct Query;
///
/// #[Object]
/// impl Query {
///     async fn echo(&self, id: uuidkit::Uuid) -> uuidkit::Uuid {
///         id
///     }
/// }
///
/// let schema = Schema::new(Query, EmptyMutation, EmptySubscription);
/// let sdl = schema.sdl_with_options(async_graphql::SDLExportOptions::new().include_specified_by());
/// assert!(sdl.contains(r#"scalar UUID @specifiedBy(url: "http://tools.ietf.org/html/rfc4122")"#));
/// let query = r#"{ echo(id: "{F81D4FAE-7DEC-11D0-A765-00A0C91E6BF6}") }"#;
/// let response = block_on(schema.execute(query));
/// assert_eq!(response.data.to_string(), r#"{echo: "f81d4fae-7dec-11d0-a765-00a0c91e6bf6"}"#);
/// # fn block_on<F: std::future::Future>(f: F) -> F::Output {
/// #     let mut f = std::pin::pin!(f);
/// #     let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
/// #     loop {
/// #         if let std::task::Poll::Ready(v) = f.as_mut().poll(&mut cx) {
/// #             return v;
/// #         }
/// #     }
/// # }
/// ```
#[Scalar(
    name = "UUID",
    specified_by_url = "http://tools.ietf.org/html/rfc4122",
    use_type_description
)]
impl ScalarType for Uuid {
    fn parse(value: Value) -> InputValueResult<Self> {
        match value {
            Value::String(s) => Ok(Uuid::parse(&s)?),
            _ => Err(InputValueError::expected_type(value)),
        }
    }

    fn to_value(&self) -> Value {
        Value::String(self.to_string())
    }
}
