//! The service's tests, run by both builds (`web-proof-uuid` and
//! `web-proof-uuidkit`) against a throwaway PostgreSQL and redis server each.

use axum::body::Body;
use axum::http::{Request, StatusCode};
use prost::Message as _;
use serde_json::{Value, json};
use test_support::db::{Postgres, Redis};
use tower::ServiceExt as _;
use uuid::Uuid;

use crate::entity::order;
use crate::rpc::{PROTOBUF, pb};
use crate::{NewOrder, Shop};

/// The servers of one test and the service on them, with its tables made.
struct Env {
    shop: Shop,
    pg: Postgres,
    redis: Redis,
}

async fn env(test: &str) -> Option<Env> {
    let pg = Postgres::for_test(test)?;
    let redis = Redis::for_test(test)?;
    let shop = Shop::connect(&pg.url(), &redis.url()).await.unwrap();
    shop.create_schema().await.unwrap();
    Some(Env { shop, pg, redis })
}

/// Sends one request to the service's router; returns the status and the
/// body (JSON, or the text as a JSON string).
async fn call(
    app: &axum::Router,
    method: &str,
    uri: &str,
    body: Option<Value>,
) -> (StatusCode, Value) {
    let request = Request::builder()
        .method(method)
        .uri(uri)
        .header("content-type", "application/json")
        .body(body.map_or_else(Body::empty, |b| Body::from(b.to_string())))
        .unwrap();
    let response = app.clone().oneshot(request).await.unwrap();
    let status = response.status();
    let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
        .await
        .unwrap();
    let value = serde_json::from_slice(&bytes)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned()));
    (status, value)
}

/// Runs one GraphQL request through `POST /graphql`; returns the response.
async fn graphql(app: &axum::Router, query: &str) -> Value {
    let (status, response) = call(app, "POST", "/graphql", Some(json!({ "query": query }))).await;
    assert_eq!(status, StatusCode::OK, "{response}");
    response
}

fn id_of(v: &Value) -> Uuid {
    Uuid::parse_str(v["id"].as_str().unwrap()).unwrap()
}

#[tokio::test]
async fn rest_api_stores_uuid_keys_in_postgres_and_redis() {
    let Some(Env { shop, pg, redis }) =
        env("rest_api_stores_uuid_keys_in_postgres_and_redis").await
    else {
        return;
    };
    let app = crate::rest::router(shop);

    let (status, ada) = call(&app, "POST", "/customers", Some(json!({"name": "Ada"}))).await;
    assert_eq!(status, StatusCode::CREATED, "{ada}");
    let ada_id = id_of(&ada);
    assert_eq!(ada_id.get_version_num(), 7);
    let (status, got) = call(&app, "GET", &format!("/customers/{ada_id}"), None).await;
    assert_eq!((status, &got), (StatusCode::OK, &ada));

    let new = |related: Vec<Uuid>, replaces: Option<Uuid>| {
        json!({"customer_id": ada_id, "description": "tea", "total_cents": 450,
               "related": related, "replaces": replaces})
    };
    let (status, first) = call(&app, "POST", "/orders", Some(new(vec![], None))).await;
    assert_eq!(status, StatusCode::CREATED, "{first}");
    let first_id = id_of(&first);
    let (status, second) = call(
        &app,
        "POST",
        "/orders",
        Some(new(vec![first_id], Some(first_id))),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{second}");
    assert_eq!(second["related"], json!([first_id.to_string()]));
    assert_eq!(second["replaces"], json!(first_id.to_string()));
    assert_eq!(second["customer_id"], json!(ada_id.to_string()));

    let (status, listed) = call(&app, "GET", &format!("/customers/{ada_id}/orders"), None).await;
    assert_eq!(
        (status, listed),
        (StatusCode::OK, json!([first.clone(), second.clone()]))
    );
    let (status, got) = call(&app, "GET", &format!("/orders/{}", id_of(&second)), None).await;
    assert_eq!((status, got), (StatusCode::OK, second.clone()));

    // The columns are PostgreSQL's uuid and uuid[], holding these IDs.
    let row = pg
        .query(&format!(
            "SELECT pg_typeof(id), pg_typeof(customer_id), pg_typeof(replaces), pg_typeof(related), \
             replaces, related FROM \"order\" WHERE id = '{}'",
            id_of(&second)
        ))
        .unwrap();
    assert_eq!(
        row,
        format!("uuid|uuid|uuid|uuid[]|{first_id}|{{{first_id}}}")
    );

    // Bad input: a clear status, never a panic.
    let unknown = Uuid::now_v7();
    let (status, _) = call(&app, "GET", &format!("/customers/{unknown}"), None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = call(&app, "GET", "/orders/not-an-id", None).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let mut orphan = new(vec![], None);
    orphan["customer_id"] = json!(unknown);
    let (status, body) = call(&app, "POST", "/orders", Some(orphan)).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    let (status, body) = call(&app, "POST", "/orders", Some(new(vec![unknown], None))).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");

    // The cache holds the customer under the ID's 16 bytes (redis's own
    // `ToRedisArgs`), and the recent list reads back as IDs.
    let client = redis::Client::open(redis.url()).unwrap();
    let mut con = client.get_multiplexed_async_connection().await.unwrap();
    let keys: Vec<Vec<u8>> = redis::cmd("HKEYS")
        .arg(crate::cache::CUSTOMERS)
        .query_async(&mut con)
        .await
        .unwrap();
    assert_eq!(keys, vec![ada_id.as_bytes().to_vec()]);
    let (status, recent) = call(&app, "GET", "/customers/recent", None).await;
    assert_eq!((status, recent), (StatusCode::OK, json!([ada_id])));

    let (status, doc) = call(&app, "GET", "/openapi.json", None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        doc,
        serde_json::from_str::<Value>(&crate::rest::openapi_json()).unwrap()
    );
}

#[tokio::test]
async fn the_database_enforces_the_uuid_foreign_key() {
    let Some(servers) = env("the_database_enforces_the_uuid_foreign_key").await else {
        return;
    };
    let shop = servers.shop.clone();
    use sea_orm::{ActiveModelTrait, Set};
    let orphan = order::ActiveModel {
        id: Set(Uuid::now_v7()),
        customer_id: Set(Uuid::now_v7()),
        description: Set("tea".into()),
        total_cents: Set(1),
        replaces: Set(None),
        related: Set(Vec::new()),
    };
    let err = orphan.insert(shop.db()).await.unwrap_err();
    assert!(err.to_string().contains("foreign key"), "{err}");
}

#[tokio::test]
async fn graphql_api_reads_and_writes_uuid_scalars() {
    let Some(servers) = env("graphql_api_reads_and_writes_uuid_scalars").await else {
        return;
    };
    let shop = servers.shop.clone();
    let app = crate::rest::router(shop);

    let created = graphql(
        &app,
        r#"mutation { createCustomer(name: "Grace") { id name } }"#,
    )
    .await;
    let grace = id_of(&created["data"]["createCustomer"]);
    let query = format!(
        r#"mutation {{ createOrder(order: {{customerId: "{grace}", description: "cups",
           totalCents: 1200, related: []}}) {{ id customerId related replaces }} }}"#
    );
    let placed = graphql(&app, &query).await;
    let placed = &placed["data"]["createOrder"];
    assert_eq!(placed["customerId"], json!(grace.to_string()), "{placed}");
    assert_eq!(placed["replaces"], Value::Null);

    let query = format!(
        r#"{{ customer(id: "{}") {{ name orders {{ id }} }} recentCustomers }}"#,
        grace.braced()
    );
    let read = graphql(&app, &query).await;
    assert_eq!(read["data"]["customer"]["name"], "Grace", "{read}");
    assert_eq!(
        read["data"]["customer"]["orders"],
        json!([{"id": placed["id"]}])
    );
    assert_eq!(read["data"]["recentCustomers"], json!([grace.to_string()]));

    // An ID that does not parse is an error naming the scalar, not a panic.
    let bad = graphql(&app, r#"{ order(id: "12345") { id } }"#).await;
    assert_eq!(bad["data"], Value::Null, "{bad}");
    let message = bad["errors"][0]["message"].as_str().unwrap();
    assert!(
        message.starts_with("Failed to parse \"UUID\": "),
        "{message}"
    );
}

/// Makes one protobuf call; returns the status and the answer's bytes.
async fn rpc(
    app: &axum::Router,
    method: &str,
    request: &impl prost::Message,
) -> (StatusCode, Vec<u8>) {
    let request = Request::builder()
        .method("POST")
        .uri(format!("/twirp/shop.Shop/{method}"))
        .header("content-type", PROTOBUF)
        .body(Body::from(request.encode_to_vec()))
        .unwrap();
    let response = app.clone().oneshot(request).await.unwrap();
    let status = response.status();
    let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
        .await
        .unwrap();
    (status, bytes.to_vec())
}

#[tokio::test]
async fn protobuf_api_sends_ids_as_bytes_and_text() {
    let Some(servers) = env("protobuf_api_sends_ids_as_bytes_and_text").await else {
        return;
    };
    let shop = servers.shop.clone();
    let customer = shop.create_customer("Alan".into()).await.unwrap();
    let order = shop
        .create_order(NewOrder {
            customer_id: customer.id,
            description: "chalk".into(),
            total_cents: 99,
            replaces: None,
            related: vec![],
        })
        .await
        .unwrap();
    let app = crate::rest::router(shop);

    let get = |id: String| pb::GetOrderRequest { id };
    let (status, bytes) = rpc(&app, "GetOrder", &get(order.id.to_string())).await;
    assert_eq!(status, StatusCode::OK);
    let got = pb::Order::decode(bytes.as_slice()).unwrap();
    assert_eq!(got.id, order.id.as_bytes());
    assert_eq!(order::Model::try_from(got).unwrap(), order);

    let list = pb::ListOrdersRequest {
        customer_id: customer.id.simple().to_string(),
    };
    let (status, bytes) = rpc(&app, "ListOrders", &list).await;
    assert_eq!(status, StatusCode::OK);
    let listed = pb::CustomerOrders::decode(bytes.as_slice()).unwrap();
    assert_eq!(listed.customer_id, customer.id.hyphenated().to_string());
    assert_eq!(listed.orders, vec![pb::Order::from(&order)]);

    let (status, _) = rpc(&app, "GetOrder", &get("nope".into())).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (status, _) = rpc(&app, "GetOrder", &get(Uuid::now_v7().to_string())).await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    // A message whose ID field is not 16 bytes is refused, naming the field.
    let mut short = pb::Order::from(&order);
    short.customer_id.pop();
    let err = order::Model::try_from(short).unwrap_err();
    assert!(err.to_string().contains("customer_id"), "{err}");
}
