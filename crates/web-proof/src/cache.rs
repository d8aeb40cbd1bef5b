//! The redis cache: customers by ID, and the list of customers seen most
//! recently. IDs go to redis through redis's own traits (`ToRedisArgs`,
//! `ToSingleRedisArg`, `FromRedisValue`), which write and read a UUID as its
//! 16 bytes.

use redis::AsyncCommands;
use redis::aio::MultiplexedConnection;
use uuid::Uuid;

use crate::Error;
use crate::entity::customer;

/// The hash holding each cached customer's JSON, keyed by its ID.
pub const CUSTOMERS: &str = "customers";

/// The list of recently seen customer IDs, newest first.
pub const RECENT: &str = "recent";

/// How many IDs [`RECENT`] keeps.
pub const RECENT_LEN: isize = 10;

/// A connection to the cache, cheap to clone (one multiplexed connection).
#[derive(Clone)]
pub struct Cache {
    con: MultiplexedConnection,
}

impl Cache {
    /// Connects to the redis server at `url`.
    ///
    /// # Errors
    /// The URL is invalid or the server cannot be reached.
    pub async fn connect(url: &str) -> Result<Self, Error> {
        let client = redis::Client::open(url)?;
        let con = client.get_multiplexed_async_connection().await?;
        Ok(Self { con })
    }

    /// The cached customer `id`, if any.
    ///
    /// # Errors
    /// The server failed, or the entry is not a customer's JSON.
    pub async fn customer(&self, id: Uuid) -> Result<Option<customer::Model>, Error> {
        let json: Option<String> = self.con.clone().hget(CUSTOMERS, id).await?;
        json.map(|j| {
            serde_json::from_str(&j)
                .map_err(|e| Error::BadRequest(format!("cached customer {id}: {e}")))
        })
        .transpose()
    }

    /// Caches `c` under its ID.
    ///
    /// # Errors
    /// The server failed.
    pub async fn put_customer(&self, c: &customer::Model) -> Result<(), Error> {
        let json = serde_json::to_string(c).map_err(|e| Error::BadRequest(e.to_string()))?;
        let _: usize = self.con.clone().hset(CUSTOMERS, c.id, json).await?;
        Ok(())
    }

    /// Notes `id` as the customer seen last (kept once, at the front).
    ///
    /// # Errors
    /// The server failed.
    pub async fn seen(&self, id: Uuid) -> Result<(), Error> {
        let mut con = self.con.clone();
        let _: usize = con.lrem(RECENT, 0, id).await?;
        let _: usize = con.lpush(RECENT, id).await?;
        let () = con.ltrim(RECENT, 0, RECENT_LEN - 1).await?;
        Ok(())
    }

    /// The customers seen most recently, newest first.
    ///
    /// # Errors
    /// The server failed, or an entry is not a 16-byte ID.
    pub async fn recent(&self) -> Result<Vec<Uuid>, Error> {
        Ok(self.con.clone().lrange(RECENT, 0, -1).await?)
    }
}
