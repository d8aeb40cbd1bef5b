//! The REST API (axum) and its OpenAPI document (utoipa), with the GraphQL
//! endpoint and the protobuf calls mounted beside it.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::Deserialize;
use utoipa::{OpenApi, ToSchema};
use uuid::Uuid;

use crate::entity::{customer, order};
use crate::{Error, NewOrder, Shop};

/// A new customer, as `POST /customers` takes it.
#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct NewCustomer {
    /// The customer's name (not empty).
    pub name: String,
}

impl IntoResponse for Error {
    fn into_response(self) -> Response {
        (crate::rpc::status_of(&self), self.to_string()).into_response()
    }
}

/// The OpenAPI document of the REST API.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "shop",
        version = "1.0.0",
        description = "Customers and their orders."
    ),
    paths(
        create_customer,
        get_customer,
        recent_customers,
        create_order,
        get_order,
        customer_orders
    ),
    components(schemas(NewCustomer, NewOrder, customer::Model, order::Model))
)]
pub struct ApiDoc;

/// The OpenAPI document as pretty-printed JSON, as `GET /openapi.json`
/// serves it.
///
/// ```
/// let doc: serde_json::Value = serde_json::from_str(&web_proof::rest::openapi_json()).unwrap();
/// let id = &doc["components"]["schemas"]["Customer"]["properties"]["id"];
/// assert_eq!(id["format"], "uuid");
/// ```
#[must_use]
pub fn openapi_json() -> String {
    ApiDoc::openapi()
        .to_pretty_json()
        .expect("an OpenAPI document serializes to JSON")
}

/// The service's HTTP routes: the REST API, `GET /openapi.json`,
/// `POST /graphql` and the protobuf calls ([`crate::rpc`]).
pub fn router(shop: Shop) -> axum::Router {
    let schema = crate::graphql::schema(shop.clone());
    axum::Router::new()
        .route("/customers", post(create_customer))
        .route("/customers/recent", get(recent_customers))
        .route("/customers/{id}", get(get_customer))
        .route("/customers/{id}/orders", get(customer_orders))
        .route("/orders", post(create_order))
        .route("/orders/{id}", get(get_order))
        .route("/twirp/shop.Shop/GetOrder", post(crate::rpc::get_order))
        .route("/twirp/shop.Shop/ListOrders", post(crate::rpc::list_orders))
        .route("/openapi.json", get(|| async { openapi_json() }))
        .with_state(shop)
        .route(
            "/graphql",
            post(
                move |Json(request): Json<async_graphql::Request>| async move {
                    Json(schema.execute(request).await)
                },
            ),
        )
}

/// Adds a customer.
#[utoipa::path(
    post, path = "/customers", request_body = NewCustomer,
    responses((status = 201, description = "The new customer", body = customer::Model),
              (status = 400, description = "An empty name"))
)]
async fn create_customer(
    State(shop): State<Shop>,
    Json(new): Json<NewCustomer>,
) -> Result<(StatusCode, Json<customer::Model>), Error> {
    let c = shop.create_customer(new.name).await?;
    Ok((StatusCode::CREATED, Json(c)))
}

/// A customer by ID.
#[utoipa::path(
    get, path = "/customers/{id}",
    params(("id" = Uuid, Path, description = "The customer's ID")),
    responses((status = 200, description = "The customer", body = customer::Model),
              (status = 404, description = "No such customer"))
)]
async fn get_customer(
    State(shop): State<Shop>,
    Path(id): Path<Uuid>,
) -> Result<Json<customer::Model>, Error> {
    Ok(Json(shop.customer(id).await?))
}

/// The IDs of the customers seen most recently, newest first.
#[utoipa::path(
    get, path = "/customers/recent",
    responses((status = 200, description = "Customer IDs", body = Vec<Uuid>))
)]
async fn recent_customers(State(shop): State<Shop>) -> Result<Json<Vec<Uuid>>, Error> {
    Ok(Json(shop.recent_customers().await?))
}

/// Places an order.
#[utoipa::path(
    post, path = "/orders", request_body = NewOrder,
    responses((status = 201, description = "The new order", body = order::Model),
              (status = 404, description = "No such customer or order"))
)]
async fn create_order(
    State(shop): State<Shop>,
    Json(new): Json<NewOrder>,
) -> Result<(StatusCode, Json<order::Model>), Error> {
    let o = shop.create_order(new).await?;
    Ok((StatusCode::CREATED, Json(o)))
}

/// An order by ID.
#[utoipa::path(
    get, path = "/orders/{id}",
    params(("id" = Uuid, Path, description = "The order's ID")),
    responses((status = 200, description = "The order", body = order::Model),
              (status = 404, description = "No such order"))
)]
async fn get_order(
    State(shop): State<Shop>,
    Path(id): Path<Uuid>,
) -> Result<Json<order::Model>, Error> {
    Ok(Json(shop.order(id).await?))
}

/// A customer's orders, oldest first.
#[utoipa::path(
    get, path = "/customers/{id}/orders",
    params(("id" = Uuid, Path, description = "The customer's ID")),
    responses((status = 200, description = "The orders", body = Vec<order::Model>),
              (status = 404, description = "No such customer"))
)]
async fn customer_orders(
    State(shop): State<Shop>,
    Path(id): Path<Uuid>,
) -> Result<Json<Vec<order::Model>>, Error> {
    Ok(Json(shop.orders_of(id).await?))
}
