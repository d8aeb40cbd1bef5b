//! The protobuf API: prost messages carrying IDs as a service on the `uuid`
//! crate writes them, the 16 bytes in a `bytes` field ([`Uuid::as_bytes`],
//! read back with [`Uuid::from_slice`]) or the text in a `string` field
//! ([`Uuid`]'s `Display`, read back with [`Uuid::parse_str`]). They travel as
//! Twirp does it: `POST /twirp/shop.Shop/<method>` with the request message
//! as the body (`application/protobuf`) and the response message as the
//! answer. The messages are `shop.proto`'s:
//!
//! ```proto
//! syntax = "proto3";
//! package shop;
//! message Order {
//!   bytes id = 1;
//!   bytes customer_id = 2;
//!   string description = 3;
//!   int64 total_cents = 4;
//!   repeated bytes related = 5;
//!   optional bytes replaces = 6;
//! }
//! message GetOrderRequest { string id = 1; }
//! message ListOrdersRequest { string customer_id = 1; }
//! message CustomerOrders { string customer_id = 1; repeated Order orders = 2; }
//! service Shop {
//!   rpc GetOrder(GetOrderRequest) returns (Order);
//!   rpc ListOrders(ListOrdersRequest) returns (CustomerOrders);
//! }
//! ```
//!
//! written here as prost-build writes them, so that no `protoc` run is
//! needed to build the service.

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use prost::Message;
use uuid::Uuid;

use crate::entity::order;
use crate::{Error, Shop, parse_id};

/// The messages of `shop.proto` (see the [module docs](self)).
pub mod pb {
    /// An order.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Order {
        /// The order's ID, 16 bytes.
        #[prost(bytes = "vec", tag = "1")]
        pub id: Vec<u8>,
        /// The customer's ID, 16 bytes.
        #[prost(bytes = "vec", tag = "2")]
        pub customer_id: Vec<u8>,
        /// What was ordered.
        #[prost(string, tag = "3")]
        pub description: String,
        /// The price in cents.
        #[prost(int64, tag = "4")]
        pub total_cents: i64,
        /// Orders placed together with this one, 16 bytes each.
        #[prost(bytes = "vec", repeated, tag = "5")]
        pub related: Vec<Vec<u8>>,
        /// The order this one replaces, 16 bytes.
        #[prost(bytes = "vec", optional, tag = "6")]
        pub replaces: Option<Vec<u8>>,
    }

    /// `GetOrder`'s request.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct GetOrderRequest {
        /// The order's ID as text.
        #[prost(string, tag = "1")]
        pub id: String,
    }

    /// `ListOrders`' request.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct ListOrdersRequest {
        /// The customer's ID as text.
        #[prost(string, tag = "1")]
        pub customer_id: String,
    }

    /// `ListOrders`' answer.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct CustomerOrders {
        /// The customer's ID as text (hyphenated, lower case).
        #[prost(string, tag = "1")]
        pub customer_id: String,
        /// The customer's orders, oldest first.
        #[prost(message, repeated, tag = "2")]
        pub orders: Vec<Order>,
    }
}

/// The media type of the bodies.
pub const PROTOBUF: &str = "application/protobuf";

impl From<&order::Model> for pb::Order {
    fn from(o: &order::Model) -> Self {
        Self {
            id: o.id.as_bytes().to_vec(),
            customer_id: o.customer_id.as_bytes().to_vec(),
            description: o.description.clone(),
            total_cents: o.total_cents,
            related: o.related.iter().map(|r| r.as_bytes().to_vec()).collect(),
            replaces: o.replaces.map(|r| r.as_bytes().to_vec()),
        }
    }
}

/// A 16-byte ID field of a message; `field` names it in the error.
fn id_field(field: &str, bytes: &[u8]) -> Result<Uuid, Error> {
    Uuid::from_slice(bytes).map_err(|e| Error::BadRequest(format!("{field}: {e}")))
}

impl TryFrom<pb::Order> for order::Model {
    type Error = Error;

    fn try_from(o: pb::Order) -> Result<Self, Error> {
        Ok(Self {
            id: id_field("id", &o.id)?,
            customer_id: id_field("customer_id", &o.customer_id)?,
            description: o.description,
            total_cents: o.total_cents,
            replaces: o.replaces.map(|r| id_field("replaces", &r)).transpose()?,
            related: o
                .related
                .iter()
                .map(|r| id_field("related", r))
                .collect::<Result<_, _>>()?,
        })
    }
}

/// A protobuf answer.
fn protobuf(message: &impl Message) -> Response {
    ([(header::CONTENT_TYPE, PROTOBUF)], message.encode_to_vec()).into_response()
}

/// A request body that is not the expected message.
fn undecodable(e: &prost::DecodeError) -> Error {
    Error::BadRequest(format!("not a protobuf request: {e}"))
}

/// `POST /twirp/shop.Shop/GetOrder`.
pub(crate) async fn get_order(State(shop): State<Shop>, body: Bytes) -> Result<Response, Error> {
    let request = pb::GetOrderRequest::decode(body).map_err(|e| undecodable(&e))?;
    let o = shop.order(parse_id(&request.id)?).await?;
    Ok(protobuf(&pb::Order::from(&o)))
}

/// `POST /twirp/shop.Shop/ListOrders`.
pub(crate) async fn list_orders(State(shop): State<Shop>, body: Bytes) -> Result<Response, Error> {
    let request = pb::ListOrdersRequest::decode(body).map_err(|e| undecodable(&e))?;
    let id = parse_id(&request.customer_id)?;
    let orders = shop.orders_of(id).await?;
    Ok(protobuf(&pb::CustomerOrders {
        customer_id: id.to_string(),
        orders: orders.iter().map(pb::Order::from).collect(),
    }))
}

/// The status a failed call answers with (besides its text).
#[must_use]
pub fn status_of(e: &Error) -> StatusCode {
    match e {
        Error::NotFound(_) => StatusCode::NOT_FOUND,
        Error::BadRequest(_) => StatusCode::BAD_REQUEST,
        Error::Db(_) | Error::Cache(_) => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

/// Fixed orders the service could send, each message encoded on the wire:
/// what a client of either build receives for the same rows.
///
/// ```
/// let samples = web_proof::rpc::wire_samples();
/// let (name, bytes) = &samples[0];
/// assert_eq!(*name, "Order");
/// // Field 1 (`id`), length-delimited, 16 bytes: the ID's bytes follow.
/// assert_eq!(&bytes[..2], &[0x0a, 16]);
/// ```
#[must_use]
pub fn wire_samples() -> Vec<(&'static str, Vec<u8>)> {
    let customer = Uuid::parse_str("0190b6f2-5e6c-7c3e-8000-4a1b2c3d4e5f").expect("a valid ID");
    let first = order::Model {
        id: Uuid::from_u128(0x0190_b6f2_5e6d_7000_8000_0000_0000_0001),
        customer_id: customer,
        description: "tea".into(),
        total_cents: 450,
        replaces: None,
        related: Vec::new(),
    };
    let second = order::Model {
        id: Uuid::from_bytes([
            0x01, 0x90, 0xb6, 0xf2, 0x5e, 0x6e, 0x70, 0x00, 0x80, 0, 0, 0, 0, 0, 0, 2,
        ]),
        customer_id: customer,
        description: "cups".into(),
        total_cents: 1200,
        replaces: Some(first.id),
        related: vec![first.id, Uuid::nil(), Uuid::max()],
    };
    let list = pb::CustomerOrders {
        customer_id: customer.to_string(),
        orders: vec![pb::Order::from(&first), pb::Order::from(&second)],
    };
    vec![
        ("Order", pb::Order::from(&first).encode_to_vec()),
        ("Order", pb::Order::from(&second).encode_to_vec()),
        ("CustomerOrders", list.encode_to_vec()),
        (
            "GetOrderRequest",
            pb::GetOrderRequest {
                id: second.id.hyphenated().to_string(),
            }
            .encode_to_vec(),
        ),
    ]
}
