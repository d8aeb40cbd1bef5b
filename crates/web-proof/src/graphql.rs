//! The GraphQL API (async-graphql): customers and orders, read and created
//! by their `UUID` IDs.

use async_graphql::{ComplexObject, Context, EmptySubscription, Object, Result, Schema};
use uuid::Uuid;

use crate::entity::{customer, order};
use crate::{NewOrder, Shop};

/// The schema's type.
pub type ShopSchema = Schema<Query, Mutation, EmptySubscription>;

/// The schema, with `shop` as the data resolvers act on.
#[must_use]
pub fn schema(shop: Shop) -> ShopSchema {
    Schema::build(Query, Mutation, EmptySubscription)
        .data(shop)
        .finish()
}

/// The schema in GraphQL's schema definition language, as a client's code
/// generator reads it.
///
/// ```
/// let sdl = web_proof::graphql::sdl();
/// assert!(sdl.contains("scalar UUID"), "{sdl}");
/// assert!(sdl.contains("customer(id: UUID!): Customer!"), "{sdl}");
/// ```
#[must_use]
pub fn sdl() -> String {
    Schema::build(Query, Mutation, EmptySubscription)
        .finish()
        .sdl()
}

/// What can be read.
pub struct Query;

#[Object]
impl Query {
    /// A customer by ID.
    async fn customer(&self, ctx: &Context<'_>, id: Uuid) -> Result<customer::Model> {
        Ok(ctx.data::<Shop>()?.customer(id).await?)
    }

    /// An order by ID.
    async fn order(&self, ctx: &Context<'_>, id: Uuid) -> Result<order::Model> {
        Ok(ctx.data::<Shop>()?.order(id).await?)
    }

    /// The IDs of the customers seen most recently, newest first.
    async fn recent_customers(&self, ctx: &Context<'_>) -> Result<Vec<Uuid>> {
        Ok(ctx.data::<Shop>()?.recent_customers().await?)
    }
}

/// What can be changed.
pub struct Mutation;

#[Object]
impl Mutation {
    /// Adds a customer.
    async fn create_customer(&self, ctx: &Context<'_>, name: String) -> Result<customer::Model> {
        Ok(ctx.data::<Shop>()?.create_customer(name).await?)
    }

    /// Places an order.
    async fn create_order(&self, ctx: &Context<'_>, order: NewOrder) -> Result<order::Model> {
        Ok(ctx.data::<Shop>()?.create_order(order).await?)
    }
}

#[ComplexObject]
impl customer::Model {
    /// The customer's orders, oldest first.
    async fn orders(&self, ctx: &Context<'_>) -> Result<Vec<order::Model>> {
        Ok(ctx.data::<Shop>()?.orders_of(self.id).await?)
    }
}
