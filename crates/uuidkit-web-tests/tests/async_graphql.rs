//! `async-graphql`: a schema whose IDs are `uuidkit::Uuid` prints the same
//! SDL as with `uuid::Uuid` (async-graphql's own `uuid` feature), answers
//! with the same strings, and each reads the other's output as input.

use async_graphql::{EmptyMutation, EmptySubscription, Object, Schema};

struct Theirs;

#[Object(name = "Query")]
impl Theirs {
    /// Echoes an ID, and a list of them.
    async fn echo(&self, id: uuid::Uuid, more: Option<Vec<uuid::Uuid>>) -> Vec<uuid::Uuid> {
        std::iter::once(id)
            .chain(more.unwrap_or_default())
            .collect()
    }
}

struct Ours;

#[Object(name = "Query")]
impl Ours {
    /// Echoes an ID, and a list of them.
    async fn echo(
        &self,
        id: uuidkit::Uuid,
        more: Option<Vec<uuidkit::Uuid>>,
    ) -> Vec<uuidkit::Uuid> {
        std::iter::once(id)
            .chain(more.unwrap_or_default())
            .collect()
    }
}

fn theirs() -> Schema<Theirs, EmptyMutation, EmptySubscription> {
    Schema::new(Theirs, EmptyMutation, EmptySubscription)
}

fn ours() -> Schema<Ours, EmptyMutation, EmptySubscription> {
    Schema::new(Ours, EmptyMutation, EmptySubscription)
}

/// Runs a future with no I/O to completion (the resolvers never wait).
fn block_on<F: std::future::Future>(f: F) -> F::Output {
    let mut f = std::pin::pin!(f);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    loop {
        if let std::task::Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
    }
}

/// The JSON of the response to `query`, errors included.
fn run<Q: async_graphql::ObjectType + 'static>(
    schema: &Schema<Q, EmptyMutation, EmptySubscription>,
    query: &str,
) -> serde_json::Value {
    serde_json::to_value(block_on(schema.execute(query))).unwrap()
}

#[test]
fn the_sdl_is_the_same() {
    let sdl = theirs().sdl();
    assert!(sdl.contains("\"\"\"\nscalar UUID\n"), "{sdl}");
    assert!(sdl.contains("A UUID is a unique 128-bit number"), "{sdl}");
    assert_eq!(ours().sdl(), sdl);
    // With the `@specifiedBy` URL, which the default SDL leaves out.
    let options = || async_graphql::SDLExportOptions::new().include_specified_by();
    let sdl = theirs().sdl_with_options(options());
    assert!(
        sdl.contains(r#"scalar UUID @specifiedBy(url: "http://tools.ietf.org/html/rfc4122")"#),
        "{sdl}"
    );
    assert_eq!(ours().sdl_with_options(options()), sdl);
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
        let a = run(&theirs(), &query);
        let b = run(&ours(), &query);
        assert_eq!(a, b);
        let written = a["data"]["echo"][0].as_str().unwrap().to_owned();
        assert_eq!(written, ours_id.to_string());
        // What one wrote, the other reads.
        let back = format!(r#"{{ echo(id: "{written}") }}"#);
        assert_eq!(run(&ours(), &back)["data"]["echo"][0], a["data"]["echo"][0]);
        assert_eq!(run(&theirs(), &back), run(&ours(), &back));
    }
}

#[test]
fn bad_input_is_refused_by_both() {
    for bad in [r#""not-a-uuid""#, "42"] {
        let query = format!("{{ echo(id: {bad}) }}");
        let a = run(&theirs(), &query);
        let b = run(&ours(), &query);
        assert!(a["errors"].is_array(), "{a}");
        assert!(b["errors"].is_array(), "{b}");
        assert!(b["data"].is_null(), "{b}");
    }
}
