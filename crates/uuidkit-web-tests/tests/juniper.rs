//! `juniper`: a schema whose IDs are `uuidkit::Uuid` prints the same SDL as
//! with `uuid::Uuid` (juniper's own `uuid` feature), answers with the same
//! strings, and each reads the other's output as input, as a literal and as
//! a variable.

use juniper::http::GraphQLRequest;
use juniper::{EmptyMutation, EmptySubscription, InputValue, RootNode, graphql_object};

/// The query root `$root` with IDs of type `$id`, and `$schema()` making its
/// schema: written once, so that the two schemas differ in the type alone.
macro_rules! query {
    ($root:ident, $schema:ident, $id:ty) => {
        struct $root;

        #[graphql_object(name = "Query")]
        impl $root {
            /// Echoes an ID, and a list of them.
            fn echo(id: $id, more: Option<Vec<$id>>) -> Vec<$id> {
                std::iter::once(id)
                    .chain(more.unwrap_or_default())
                    .collect()
            }
        }

        fn $schema() -> Schema<$root> {
            RootNode::new($root, EmptyMutation::new(), EmptySubscription::new())
        }
    };
}

type Schema<Q> = RootNode<Q, EmptyMutation, EmptySubscription>;

query!(Theirs, theirs, uuid::Uuid);
query!(Ours, ours, uuidkit::Uuid);

/// The JSON of the response to `query` with the variable `id` (if given),
/// errors included, as an HTTP integration would send it.
fn run<Q>(schema: &Schema<Q>, query: &str, id: Option<&str>) -> serde_json::Value
where
    Q: juniper::GraphQLType<Context = (), TypeInfo = ()>,
{
    let variables = id.map(|id| {
        InputValue::object(std::iter::once(("id", InputValue::scalar(id.to_owned()))).collect())
    });
    let request = GraphQLRequest::new(query.to_owned(), None, variables);
    serde_json::to_value(request.execute_sync(schema, &())).unwrap()
}

#[test]
fn the_sdl_is_the_same() {
    let sdl = theirs().as_sdl();
    assert!(
        sdl.contains(
            r#"scalar UUID @specifiedBy(url: "https://graphql-scalars.dev/docs/scalars/uuid")"#
        ),
        "{sdl}"
    );
    assert!(
        sdl.contains("[Universally Unique Identifier][0] (UUID)."),
        "{sdl}"
    );
    assert_eq!(ours().as_sdl(), sdl);
}

#[test]
fn answers_are_the_same_and_each_reads_the_others() {
    for (theirs_id, ours_id) in crate::support::pairs() {
        // Upper case and braces in, to see both parsers read them alike.
        let query = format!(
            r#"{{ echo(id: "{}", more: ["{{{}}}"]) }}"#,
            theirs_id.to_string().to_uppercase(),
            ours_id
        );
        let a = run(&theirs(), &query, None);
        let b = run(&ours(), &query, None);
        assert!(a["errors"].is_null(), "{a}");
        assert_eq!(a, b);
        let written = a["data"]["echo"][0].as_str().unwrap().to_owned();
        assert_eq!(written, ours_id.to_string());
        // What one wrote, the other reads, as a literal and as a variable.
        let back = format!(r#"{{ echo(id: "{written}") }}"#);
        assert_eq!(
            run(&ours(), &back, None)["data"]["echo"][0],
            a["data"]["echo"][0]
        );
        assert_eq!(run(&theirs(), &back, None), run(&ours(), &back, None));
        let by_variable = "query Q($id: UUID!) { echo(id: $id) }";
        let c = run(&theirs(), by_variable, Some(&written));
        assert!(c["errors"].is_null(), "{c}");
        assert_eq!(c["data"]["echo"][0], a["data"]["echo"][0]);
        assert_eq!(run(&ours(), by_variable, Some(&written)), c);
    }
}

#[test]
fn bad_input_is_refused_by_both() {
    for bad in [
        r#""not-a-uuid""#,
        r#""f81d4fae-7dec-11d0-a765-00a0c91e6bf""#,
        "42",
        "true",
    ] {
        let query = format!("{{ echo(id: {bad}) }}");
        let a = run(&theirs(), &query, None);
        let b = run(&ours(), &query, None);
        assert!(a["errors"].is_array(), "{a}");
        assert!(b["errors"].is_array(), "{b}");
        assert!(b["data"].is_null(), "{b}");
    }
    // Through a variable, where the scalar's own parser decides.
    let by_variable = "query Q($id: UUID!) { echo(id: $id) }";
    for bad in ["not-a-uuid", "f81d4fae-7dec-11d0-a765-00a0c91e6bf", ""] {
        let a = run(&theirs(), by_variable, Some(bad));
        let b = run(&ours(), by_variable, Some(bad));
        assert!(a["errors"].is_array(), "{a}");
        assert!(b["errors"].is_array(), "{b}");
        assert!(b["data"].is_null(), "{b}");
    }
}
