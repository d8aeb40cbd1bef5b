//! `juniper`: the `UUID` scalar exactly as juniper's own `uuid` feature
//! defines it for `uuid::Uuid`: the same name, description and
//! `@specifiedBy` URL, so a schema's SDL does not change when its IDs become
//! [`Uuid`]s. Output is the hyphenated lowercase string; input is a string
//! in any form [`Uuid::parse`] reads (`uuid`'s `parse_str`, which juniper
//! calls, reads the same four), and anything else is refused.

use std::string::String;

use juniper::{ScalarValue, graphql_scalar};

use crate::Uuid;

/// The scalar `UUID`, a string.
///
/// The description is juniper's, word for word (juniper takes it from the
/// doc comment of its own alias, links and all): the SDL prints it, so one
/// character of difference changes the schema. It is given as an argument
/// so that this comment, with its example, stays out of the schema.
///
/// ```
/// use juniper::{EmptyMutation, EmptySubscription, RootNode, Variables, graphql_object};
///
/// struct Query;
///
/// #[graphql_object]
/// impl Query {
///     fn echo(id: uuidkit::Uuid) -> uuidkit::Uuid {
///         id
///     }
/// }
///
/// let schema = RootNode::new(Query, EmptyMutation::<()>::new(), EmptySubscription::<()>::new());
/// let run = |query| juniper::execute_sync(query, None, &schema, &Variables::new(), &());
///
/// let (data, errors) = run(r#"{ echo(id: "{F81D4FAE-7DEC-11D0-A765-00A0C91E6BF6}") }"#)?;
/// assert!(errors.is_empty());
/// assert_eq!(data.to_string(), r#"{"echo": "f81d4fae-7dec-11d0-a765-00a0c91e6bf6"}"#);
/// assert!(run(r#"{ echo(id: "not-a-uuid") }"#).is_err());
///
/// let (data, _) = run(r#"{ __type(name: "UUID") { specifiedByURL } }"#)?;
/// assert_eq!(
///     data.to_string(),
///     r#"{"__type": {"specifiedByURL": "https://graphql-scalars.dev/docs/scalars/uuid"}}"#
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[graphql_scalar]
#[graphql(
    name = "UUID",
    description = "[Universally Unique Identifier][0] (UUID).

[`UUID` scalar][1] compliant.

See also [`uuid::Uuid`][2] for details.

[0]: https://en.wikipedia.org/wiki/Universally_unique_identifier
[1]: https://graphql-scalars.dev/docs/scalars/uuid
[2]: https://docs.rs/uuid/*/uuid/struct.Uuid.html",
    with = uuid_scalar,
    to_output_with = ScalarValue::from_displayable,
    parse_token(String),
    specified_by_url = "https://graphql-scalars.dev/docs/scalars/uuid",
)]
type Scalar = Uuid;

mod uuid_scalar {
    use std::boxed::Box;
    use std::format;

    use super::Scalar;

    /// A string in any form [`Uuid::parse`](crate::Uuid::parse) reads; the
    /// error reads as juniper's own does, but for the parser's reason.
    pub(super) fn from_input(s: &str) -> Result<Scalar, Box<str>> {
        Scalar::parse(s).map_err(|e| format!("Failed to parse `UUID`: {e}").into())
    }
}
