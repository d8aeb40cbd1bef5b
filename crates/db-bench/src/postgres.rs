//! PostgreSQL: `uuid` / `bigserial` keys, `COPY` batches, `pgstatindex`
//! and the WAL position.

use std::fmt::Write;

use sqlx::{Connection, PgConnection, Row};
use uuidkit::Uuid;

use crate::{Backend, Counters, IndexStats, Key, Kind, Scan, err};

/// The settings the report quotes.
const SETTINGS: &[&str] = &[
    "server_version",
    "shared_buffers",
    "wal_level",
    "full_page_writes",
    "fsync",
    "synchronous_commit",
    "max_wal_size",
    "checkpoint_timeout",
];

/// A connection to the server under test.
#[derive(Debug)]
pub struct Postgres {
    conn: PgConnection,
}

impl Postgres {
    /// Connects to `url` and loads `pgstattuple`.
    ///
    /// # Errors
    /// The connection failed, or the extension is not installed.
    pub async fn connect(url: &str) -> Result<Postgres, String> {
        let mut conn = PgConnection::connect(url)
            .await
            .map_err(|e| format!("PostgreSQL at {url}: {e}"))?;
        sqlx::raw_sql("CREATE EXTENSION IF NOT EXISTS pgstattuple")
            .execute(&mut conn)
            .await
            .map_err(|e| {
                format!("PostgreSQL: cannot load pgstattuple (PostgreSQL's contrib modules): {e}")
            })?;
        Ok(Postgres { conn })
    }

    async fn exec(&mut self, sql: &str) -> Result<(), String> {
        crate::exec(&mut self.conn, sql).await
    }
}

impl Backend for Postgres {
    fn name(&self) -> &'static str {
        "PostgreSQL"
    }

    async fn settings(&mut self) -> Result<Vec<String>, String> {
        let rows = sqlx::query(
            "SELECT name, current_setting(name) FROM pg_settings WHERE name = ANY($1) ORDER BY name",
        )
        .bind(SETTINGS)
        .fetch_all(&mut self.conn)
        .await
        .map_err(err)?;
        Ok(rows
            .iter()
            .map(|r| format!("{} = {}", r.get::<String, _>(0), r.get::<String, _>(1)))
            .collect())
    }

    async fn create(&mut self, kind: Kind) -> Result<(), String> {
        let id = if kind == Kind::Bigserial {
            "bigserial"
        } else {
            "uuid"
        };
        self.exec("DROP TABLE IF EXISTS bench").await?;
        self.exec(&format!(
            "CREATE TABLE bench (id {id} PRIMARY KEY, n bigint NOT NULL)"
        ))
        .await?;
        // Every kind starts from a checkpoint, so each pays its own full-page
        // images in the WAL.
        self.exec("CHECKPOINT").await
    }

    async fn counters(&mut self) -> Result<Counters, String> {
        let lsn: i64 =
            sqlx::query_scalar("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint")
                .fetch_one(&mut self.conn)
                .await
                .map_err(err)?;
        Ok(Counters {
            wal_bytes: u64::try_from(lsn).ok(),
            page_splits: None,
        })
    }

    async fn insert(
        &mut self,
        keys: Option<&[Uuid]>,
        first: usize,
        count: usize,
    ) -> Result<(), String> {
        let mut text = String::with_capacity(count * 48);
        let statement = match keys {
            Some(keys) => {
                for (i, key) in keys.iter().enumerate() {
                    let _ = writeln!(text, "{key}\t{}", first + i);
                }
                "COPY bench (id, n) FROM STDIN"
            }
            None => {
                for n in first..first + count {
                    let _ = writeln!(text, "{n}");
                }
                "COPY bench (n) FROM STDIN"
            }
        };
        let mut copy = self.conn.copy_in_raw(statement).await.map_err(err)?;
        copy.send(text.into_bytes()).await.map_err(err)?;
        copy.finish().await.map(drop).map_err(err)
    }

    async fn index_stats(&mut self) -> Result<IndexStats, String> {
        let (bytes, leaves, density): (i64, i64, f64) = sqlx::query_as(
            "SELECT pg_relation_size('bench_pkey'), leaf_pages, avg_leaf_density \
             FROM pgstatindex('bench_pkey')",
        )
        .fetch_one(&mut self.conn)
        .await
        .map_err(err)?;
        // Lookups and scans then see settled visibility, as an index-only
        // scan of an older table would.
        self.exec("VACUUM ANALYZE bench").await?;
        Ok(IndexStats {
            bytes: u64::try_from(bytes).unwrap_or(0),
            leaf_pages: u64::try_from(leaves).unwrap_or(0),
            leaf_density: Some(density),
        })
    }

    async fn lookup(&mut self, key: Key) -> Result<i64, String> {
        let query = match key {
            Key::Serial(id) => sqlx::query_scalar("SELECT n FROM bench WHERE id = $1").bind(id),
            Key::Uuid(u) => {
                sqlx::query_scalar("SELECT n FROM bench WHERE id = $1::uuid").bind(u.to_string())
            }
        };
        query.fetch_one(&mut self.conn).await.map_err(err)
    }

    async fn scan(&mut self, range: Scan) -> Result<Vec<i64>, String> {
        let query = match range {
            Scan::Serial(lo, hi) => {
                sqlx::query_scalar("SELECT n FROM bench WHERE id >= $1 AND id <= $2")
                    .bind(lo)
                    .bind(hi)
            }
            Scan::Uuid(lo, hi) => {
                sqlx::query_scalar("SELECT n FROM bench WHERE id >= $1::uuid AND id <= $2::uuid")
                    .bind(lo.to_string())
                    .bind(hi.to_string())
            }
            Scan::N(lo, hi) => sqlx::query_scalar("SELECT n FROM bench WHERE n >= $1 AND n <= $2")
                .bind(lo)
                .bind(hi),
        };
        query.fetch_all(&mut self.conn).await.map_err(err)
    }
}
