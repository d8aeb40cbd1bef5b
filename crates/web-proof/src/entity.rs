//! The service's tables as sea-orm entities: customers, and their orders,
//! each keyed by a UUID, an order pointing at its customer by a UUID foreign
//! key, at the order it replaces (nullable) and at related orders (an
//! array).
//!
//! The same model types are the REST API's schemas (utoipa), the GraphQL
//! objects (async-graphql) and the JSON the cache holds (serde), as a
//! service keeps one type per table.

/// The `customer` table.
pub mod customer {
    use async_graphql::SimpleObject;
    use sea_orm::entity::prelude::*;
    use serde::{Deserialize, Serialize};
    use utoipa::ToSchema;
    // Named here, not taken from sea-orm's prelude: the prelude's `Uuid` is
    // always the `uuid` crate's, whichever crate is `uuid` in Cargo.toml.
    use uuid::Uuid;

    /// A customer.
    #[derive(
        Clone,
        Debug,
        PartialEq,
        Eq,
        DeriveEntityModel,
        Serialize,
        Deserialize,
        ToSchema,
        SimpleObject,
    )]
    #[sea_orm(table_name = "customer")]
    #[schema(as = Customer)]
    #[graphql(name = "Customer", complex)]
    pub struct Model {
        /// The customer's ID, a version 7 UUID made by the service.
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: Uuid,
        /// The customer's name.
        pub name: String,
    }

    /// Tables that point at this one.
    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {
        /// A customer's orders.
        #[sea_orm(has_many = "super::order::Entity")]
        Order,
    }

    impl Related<super::order::Entity> for Entity {
        fn to() -> RelationDef {
            Relation::Order.def()
        }
    }

    impl ActiveModelBehavior for ActiveModel {}
}

/// The `order` table.
pub mod order {
    use async_graphql::SimpleObject;
    use sea_orm::entity::prelude::*;
    use serde::{Deserialize, Serialize};
    use utoipa::ToSchema;
    use uuid::Uuid;

    /// An order of one customer.
    #[derive(
        Clone,
        Debug,
        PartialEq,
        Eq,
        DeriveEntityModel,
        Serialize,
        Deserialize,
        ToSchema,
        SimpleObject,
    )]
    #[sea_orm(table_name = "order")]
    #[schema(as = Order)]
    #[graphql(name = "Order")]
    pub struct Model {
        /// The order's ID, a version 7 UUID made by the service.
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: Uuid,
        /// The customer who placed it.
        pub customer_id: Uuid,
        /// What was ordered.
        pub description: String,
        /// The price in cents.
        pub total_cents: i64,
        /// The earlier order this one replaces, if any.
        pub replaces: Option<Uuid>,
        /// Orders placed together with this one.
        pub related: Vec<Uuid>,
    }

    /// Tables this one points at.
    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {
        /// The customer who placed the order.
        #[sea_orm(
            belongs_to = "super::customer::Entity",
            from = "Column::CustomerId",
            to = "super::customer::Column::Id"
        )]
        Customer,
    }

    impl Related<super::customer::Entity> for Entity {
        fn to() -> RelationDef {
            Relation::Customer.def()
        }
    }

    impl ActiveModelBehavior for ActiveModel {}
}

/// The tables, as the service creates them on an empty database: UUID keys,
/// the foreign key to `customer`, and a nullable self-reference.
pub const SCHEMA: &str = r#"
CREATE TABLE customer (
    id uuid PRIMARY KEY,
    name text NOT NULL
);
CREATE TABLE "order" (
    id uuid PRIMARY KEY,
    customer_id uuid NOT NULL REFERENCES customer (id),
    description text NOT NULL,
    total_cents bigint NOT NULL,
    replaces uuid REFERENCES "order" (id),
    related uuid[] NOT NULL
);
CREATE INDEX order_customer ON "order" (customer_id);
"#;
