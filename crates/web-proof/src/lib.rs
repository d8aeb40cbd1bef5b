//! A small web service written against the `uuid` crate, as its users write
//! them: an axum REST API with a utoipa-generated OpenAPI document, a
//! GraphQL endpoint (async-graphql), protobuf calls (prost messages carrying
//! IDs), sea-orm entities keyed by UUIDs on PostgreSQL, and a redis cache
//! keyed by ID.
//!
//! The source is compiled twice: by `web-proof-uuid` against `uuid` itself
//! and by `web-proof-uuidkit` against uuidkit renamed to `uuid`, and the only
//! line that differs between their manifests is the one naming `uuid`. Both
//! builds run the tests in `tests.rs` against a real PostgreSQL and a real
//! redis server, and `web-proof-uuidkit`'s test `same_output` checks that
//! the OpenAPI document, the GraphQL schema and the protobuf bytes the two
//! builds write are byte-identical.
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use web_proof::Shop;
//! let shop = Shop::connect("postgresql://localhost/shop", "redis://127.0.0.1/").await?;
//! shop.create_schema().await?;
//! let ada = shop.create_customer("Ada".into()).await?;
//! assert_eq!(shop.customer(ada.id).await?.name, "Ada");
//! # Ok(()) }
//! ```

pub mod cache;
pub mod entity;
pub mod graphql;
pub mod rest;
pub mod rpc;
#[cfg(test)]
mod tests;

use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, Database, DatabaseConnection, DbErr,
    EntityTrait, QueryFilter, QueryOrder, Set,
};
use serde::Deserialize;
use utoipa::ToSchema;
use uuid::Uuid;

use entity::{customer, order};

/// What a request can fail with.
#[derive(Debug)]
pub enum Error {
    /// No row has this ID; the text names what was looked for.
    NotFound(String),
    /// The request is malformed (an ID that does not parse, a field out of range).
    BadRequest(String),
    /// The database failed.
    Db(DbErr),
    /// The cache failed.
    Cache(redis::RedisError),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NotFound(what) => write!(f, "not found: {what}"),
            Self::BadRequest(why) => write!(f, "bad request: {why}"),
            Self::Db(e) => write!(f, "database: {e}"),
            Self::Cache(e) => write!(f, "cache: {e}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<DbErr> for Error {
    fn from(e: DbErr) -> Self {
        Self::Db(e)
    }
}

impl From<redis::RedisError> for Error {
    fn from(e: redis::RedisError) -> Self {
        Self::Cache(e)
    }
}

/// A new order, as the REST and GraphQL APIs take it.
#[derive(Clone, Debug, Deserialize, ToSchema, async_graphql::InputObject)]
pub struct NewOrder {
    /// The customer placing it.
    pub customer_id: Uuid,
    /// What is ordered.
    pub description: String,
    /// The price in cents (not negative).
    pub total_cents: i64,
    /// The earlier order this one replaces.
    #[serde(default)]
    pub replaces: Option<Uuid>,
    /// Orders placed together with this one.
    #[serde(default)]
    pub related: Vec<Uuid>,
}

/// The service: its database and its cache, shared by the three APIs.
#[derive(Clone)]
pub struct Shop {
    db: DatabaseConnection,
    cache: cache::Cache,
}

impl Shop {
    /// Connects to PostgreSQL at `database_url` and to redis at `redis_url`
    /// (`redis://host:port/` or `redis+unix:///path/to/socket`).
    ///
    /// # Errors
    /// Either server cannot be reached.
    pub async fn connect(database_url: &str, redis_url: &str) -> Result<Self, Error> {
        let db = Database::connect(database_url).await?;
        let cache = cache::Cache::connect(redis_url).await?;
        Ok(Self { db, cache })
    }

    /// The database connection, for queries of the caller's own.
    #[must_use]
    pub fn db(&self) -> &DatabaseConnection {
        &self.db
    }

    /// The cache.
    #[must_use]
    pub fn cache(&self) -> &cache::Cache {
        &self.cache
    }

    /// Creates the tables ([`entity::SCHEMA`]) in an empty database.
    ///
    /// # Errors
    /// The database refused it (for example, the tables exist).
    pub async fn create_schema(&self) -> Result<(), Error> {
        self.db.execute_unprepared(entity::SCHEMA).await?;
        Ok(())
    }

    /// Adds a customer under a new version 7 UUID.
    ///
    /// # Errors
    /// The name is empty, or the database failed.
    pub async fn create_customer(&self, name: String) -> Result<customer::Model, Error> {
        if name.trim().is_empty() {
            return Err(Error::BadRequest(
                "a customer's name must not be empty".into(),
            ));
        }
        let id = Uuid::now_v7();
        customer::Entity::insert(customer::ActiveModel {
            id: Set(id),
            name: Set(name),
        })
        .exec(&self.db)
        .await?;
        self.customer(id).await
    }

    /// The customer `id`: from the cache, else from the database (and then
    /// cached). It is also noted as recently seen.
    ///
    /// # Errors
    /// [`Error::NotFound`] if there is none; a failure of either server.
    pub async fn customer(&self, id: Uuid) -> Result<customer::Model, Error> {
        let found = match self.cache.customer(id).await? {
            Some(c) => c,
            None => {
                let c = customer::Entity::find_by_id(id)
                    .one(&self.db)
                    .await?
                    .ok_or_else(|| Error::NotFound(format!("customer {id}")))?;
                self.cache.put_customer(&c).await?;
                c
            }
        };
        self.cache.seen(id).await?;
        Ok(found)
    }

    /// The customers seen most recently, newest first.
    ///
    /// # Errors
    /// The cache failed.
    pub async fn recent_customers(&self) -> Result<Vec<Uuid>, Error> {
        self.cache.recent().await
    }

    /// Places an order under a new version 7 UUID.
    ///
    /// # Errors
    /// [`Error::NotFound`] if the customer, the replaced order or a related
    /// order does not exist; [`Error::BadRequest`] for a negative price.
    pub async fn create_order(&self, new: NewOrder) -> Result<order::Model, Error> {
        if new.total_cents < 0 {
            return Err(Error::BadRequest("total_cents must not be negative".into()));
        }
        self.customer(new.customer_id).await?;
        for other in new.replaces.iter().chain(&new.related) {
            self.order(*other).await?;
        }
        let id = Uuid::now_v7();
        // `insert` returns the primary key sea-orm read back (`TryFromU64`
        // for the key type is what it needs for that).
        let model = order::ActiveModel {
            id: Set(id),
            customer_id: Set(new.customer_id),
            description: Set(new.description),
            total_cents: Set(new.total_cents),
            replaces: Set(new.replaces),
            related: Set(new.related),
        }
        .insert(&self.db)
        .await?;
        Ok(model)
    }

    /// The order `id`.
    ///
    /// # Errors
    /// [`Error::NotFound`] if there is none; the database failed.
    pub async fn order(&self, id: Uuid) -> Result<order::Model, Error> {
        order::Entity::find_by_id(id)
            .one(&self.db)
            .await?
            .ok_or_else(|| Error::NotFound(format!("order {id}")))
    }

    /// The orders of customer `id`, oldest first (version 7 IDs sort by time).
    ///
    /// # Errors
    /// [`Error::NotFound`] if there is no such customer; the database failed.
    pub async fn orders_of(&self, id: Uuid) -> Result<Vec<order::Model>, Error> {
        self.customer(id).await?;
        Ok(order::Entity::find()
            .filter(order::Column::CustomerId.eq(id))
            .order_by_asc(order::Column::Id)
            .all(&self.db)
            .await?)
    }
}

/// Parses an ID a client sent as text (a gRPC field, a GraphQL argument
/// given as a string).
///
/// # Errors
/// [`Error::BadRequest`] naming the text.
///
/// ```
/// let id = web_proof::parse_id("0190b6f2-5e6c-7c3e-8000-4a1b2c3d4e5f").unwrap();
/// assert_eq!(id.get_version_num(), 7);
/// assert!(web_proof::parse_id("not an id").is_err());
/// ```
pub fn parse_id(text: &str) -> Result<Uuid, Error> {
    Uuid::parse_str(text).map_err(|e| Error::BadRequest(format!("invalid ID {text:?}: {e}")))
}
