//! MariaDB / InnoDB: `BINARY(16)` / `BIGINT AUTO_INCREMENT` clustered keys,
//! multi-row `INSERT` batches, InnoDB's page-split counter and index
//! statistics.

use std::fmt::Write;

use sqlx::{Connection, MySqlConnection, Row};
use uuidkit::Uuid;

use crate::{Backend, Counters, IndexStats, Key, Kind, Scan, err};

/// A connection to the server under test.
#[derive(Debug)]
pub struct MariaDb {
    conn: MySqlConnection,
}

impl MariaDb {
    /// Connects to `url` and turns on InnoDB's page-split counter.
    ///
    /// # Errors
    /// The connection failed, or the user may not set global variables.
    pub async fn connect(url: &str) -> Result<MariaDb, String> {
        let conn = MySqlConnection::connect(url)
            .await
            .map_err(|e| format!("MariaDB at {url}: {e}"))?;
        let mut db = MariaDb { conn };
        db.exec("SET GLOBAL innodb_monitor_enable = 'index_page_splits'")
            .await?;
        Ok(db)
    }

    async fn exec(&mut self, sql: &str) -> Result<(), String> {
        crate::exec(&mut self.conn, sql).await
    }
}

impl Backend for MariaDb {
    fn name(&self) -> &'static str {
        "MariaDB"
    }

    async fn settings(&mut self) -> Result<Vec<String>, String> {
        let row = sqlx::query(
            "SELECT @@version, @@innodb_buffer_pool_size, @@innodb_page_size, \
             @@innodb_flush_log_at_trx_commit, @@innodb_log_file_size, @@innodb_doublewrite",
        )
        .fetch_one(&mut self.conn)
        .await
        .map_err(err)?;
        let names = [
            "version",
            "innodb_buffer_pool_size",
            "innodb_page_size",
            "innodb_flush_log_at_trx_commit",
            "innodb_log_file_size",
            "innodb_doublewrite",
        ];
        let mut out = Vec::new();
        for (i, name) in names.iter().enumerate() {
            let value = row
                .try_get::<String, _>(i)
                .or_else(|_| row.try_get::<u64, _>(i).map(|v| v.to_string()))
                .or_else(|_| row.try_get::<i64, _>(i).map(|v| v.to_string()))
                .map_err(err)?;
            out.push(format!("{name} = {value}"));
        }
        Ok(out)
    }

    async fn create(&mut self, kind: Kind) -> Result<(), String> {
        let id = if kind == Kind::Bigserial {
            "BIGINT NOT NULL AUTO_INCREMENT"
        } else {
            "BINARY(16) NOT NULL"
        };
        self.exec("DROP TABLE IF EXISTS bench").await?;
        self.exec(&format!(
            "CREATE TABLE bench (id {id} PRIMARY KEY, n BIGINT NOT NULL) ENGINE=InnoDB"
        ))
        .await
    }

    async fn counters(&mut self) -> Result<Counters, String> {
        let splits: i64 = sqlx::query_scalar(
            "SELECT CAST(`COUNT` AS SIGNED) FROM information_schema.INNODB_METRICS WHERE NAME = 'index_page_splits'",
        )
        .fetch_one(&mut self.conn)
        .await
        .map_err(err)?;
        Ok(Counters {
            wal_bytes: None,
            page_splits: u64::try_from(splits).ok(),
        })
    }

    async fn insert(
        &mut self,
        keys: Option<&[Uuid]>,
        first: usize,
        count: usize,
    ) -> Result<(), String> {
        let mut sql = String::with_capacity(count * 45 + 40);
        match keys {
            Some(keys) => {
                sql.push_str("INSERT INTO bench (id, n) VALUES ");
                for (i, key) in keys.iter().enumerate() {
                    let sep = if i == 0 { "" } else { "," };
                    let _ = write!(sql, "{sep}(0x{},{})", key.simple(), first + i);
                }
            }
            None => {
                sql.push_str("INSERT INTO bench (n) VALUES ");
                for n in first..first + count {
                    let sep = if n == first { "" } else { "," };
                    let _ = write!(sql, "{sep}({n})");
                }
            }
        }
        self.exec(&sql).await
    }

    async fn index_stats(&mut self) -> Result<IndexStats, String> {
        // Persistent statistics, brought up to date: `size` is the clustered
        // index's allocated pages (they hold the rows), `n_leaf_pages` its
        // leaves in use.
        self.exec("ANALYZE TABLE bench").await?;
        let mut stat = async |name: &str| -> Result<u64, String> {
            let v: i64 = sqlx::query_scalar(
                "SELECT CAST(stat_value AS SIGNED) FROM mysql.innodb_index_stats \
                 WHERE database_name = DATABASE() AND table_name = 'bench' \
                 AND index_name = 'PRIMARY' AND stat_name = ?",
            )
            .bind(name)
            .fetch_one(&mut self.conn)
            .await
            .map_err(|e| format!("innodb_index_stats {name}: {e}"))?;
            Ok(u64::try_from(v).unwrap_or(0))
        };
        let pages = stat("size").await?;
        let leaf_pages = stat("n_leaf_pages").await?;
        let page_size: i64 = sqlx::query_scalar("SELECT CAST(@@innodb_page_size AS SIGNED)")
            .fetch_one(&mut self.conn)
            .await
            .map_err(err)?;
        Ok(IndexStats {
            bytes: pages * u64::try_from(page_size).unwrap_or(0),
            leaf_pages,
            leaf_density: None,
        })
    }

    async fn lookup(&mut self, key: Key) -> Result<i64, String> {
        let query = match key {
            Key::Serial(id) => sqlx::query_scalar("SELECT n FROM bench WHERE id = ?").bind(id),
            Key::Uuid(u) => {
                sqlx::query_scalar("SELECT n FROM bench WHERE id = ?").bind(u.as_bytes().to_vec())
            }
        };
        query.fetch_one(&mut self.conn).await.map_err(err)
    }

    async fn scan(&mut self, range: Scan) -> Result<Vec<i64>, String> {
        let sql = "SELECT n FROM bench WHERE id >= ? AND id <= ?";
        let query = match range {
            Scan::Serial(lo, hi) => sqlx::query_scalar(sql).bind(lo).bind(hi),
            Scan::Uuid(lo, hi) => sqlx::query_scalar(sql)
                .bind(lo.as_bytes().to_vec())
                .bind(hi.as_bytes().to_vec()),
            Scan::N(lo, hi) => sqlx::query_scalar("SELECT n FROM bench WHERE n >= ? AND n <= ?")
                .bind(lo)
                .bind(hi),
        };
        query.fetch_all(&mut self.conn).await.map_err(err)
    }
}
