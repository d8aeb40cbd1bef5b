//! Node IDs leased from a PostgreSQL table, for teams whose one shared system is their
//! database (managed ones included: no extension is needed).
//!
//! # The table
//!
//! Created if missing (the role then needs `CREATE` on the schema once), with a second table
//! named after it that keeps each node's high-water mark apart from its lease row; holding a
//! lease needs `SELECT`, `INSERT`, `UPDATE` and `DELETE` on both, and nothing else when both
//! were created ahead by their owner:
//!
//! ```sql
//! CREATE TABLE IF NOT EXISTS uuidkit_node_leases (
//!     node    bigint      PRIMARY KEY,  -- the node ID
//!     holder  text        NOT NULL,     -- a random token of the holding lease, then who holds it
//!     expires timestamptz NOT NULL,     -- the server's now() + TTL at the last grant or renewal
//!     hw      bigint      NOT NULL DEFAULT 0 -- the holder's high-water Unix millisecond
//! );
//! CREATE TABLE IF NOT EXISTS uuidkit_node_leases_hw (
//!     node    bigint      PRIMARY KEY,  -- the node ID
//!     hw      bigint      NOT NULL      -- the highest millisecond any tenure of it may use
//! );
//! ```
//!
//! The marks table is why a row deleted by hand while its holder lives does not give the node
//! to another at once: the mark stays, so the next holder waits until the deleted holder's
//! deadline has passed, and the deleted holder stops at its next renewal. (Deleting the mark
//! too is an owner's power over the registry, like deleting etcd's keys.)
//!
//! Concurrent creators take an advisory lock around the creation, so generators started
//! together against a missing table all start. A lease table made before the `hw` column or the
//! marks table existed gets them added (by their owner: the statements are in the error).
//!
//! One table holds nodes of one width: holders of different widths use different tables
//! ([`PgConfig::table`]).
//!
//! # The lease
//!
//! A claim is one statement: insert the node's row, or take over a row whose lease has expired
//! and whose high-water millisecond this host's clock has passed (`INSERT … ON CONFLICT (node)
//! DO UPDATE … WHERE expires <= now() AND hw < …`); the expiry is computed by the **server's**
//! clock. A renewal extends the row only while this lease still holds it and it has not expired
//! (`UPDATE … WHERE node = … AND holder = … AND expires > now()`); one that finds no such row
//! marks the node lost. Each claim and renewal also writes the high-water millisecond of the
//! deadline it is about to publish, to the row and to the node's mark in the same statement;
//! a claim also requires this host's clock to be past the mark. Each confirmed claim or renewal moves the [`LeaseSlot`]'s
//! deadline to its send instant plus the TTL, less a margin (docs/distributed-generation.md,
//! "The lease deadline"). Dropping the lease marks the node lost, then marks its row expired
//! with the millisecond it stopped at as the high-water.
//!
//! The lease's session sets `synchronous_commit = on`, so a claim or renewal is confirmed only
//! once it is durable on the server; a failover must not lose committed transactions either
//! (synchronous replication), or a confirmed claim may vanish and be granted again.
//!
//! # TLS
//!
//! [`PgConfig::tls`] (feature `postgres-tls`) encrypts the connection and checks the server's
//! certificate against a CA and the connection string's `host` (libpq's `verify-full`), showing
//! a client certificate to a server that asks for one. Without it the lease has no TLS:
//! reach the server over a Unix socket or a trusted network.
//!
//! ```no_run
//! use uuidkit::node::NodeSource;
//! use uuidkit_lease::postgres::{PgConfig, PgLease};
//!
//! let config = PgConfig::new("host=db.internal user=gen dbname=ids", 16);
//! let lease = PgLease::acquire(&config, &mut uuidkit::rng::ThreadRng)?;
//! assert_eq!(lease.source().current()?.bits(), 16);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::sync::Arc;
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::Duration;

use postgres::{Client, NoTls};
use rand_core::Rng;
use uuidkit::node::{NodeId, NodeLost, NodeLostKind, NodeSource};

use crate::{BootTime, LeaseError, LeaseErrorKind, LeaseSlot, check_bits};

/// How a [`PgLease`] claims its node ID.
///
/// ```
/// use std::time::Duration;
/// use uuidkit_lease::postgres::PgConfig;
///
/// let c = PgConfig::new("postgresql://gen@db/ids", 12);
/// assert_eq!(c.table, "uuidkit_node_leases");
/// assert_eq!(c.timing.ttl, Duration::from_secs(10));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PgConfig {
    /// The connection string, as libpq takes it (`key=value …` or a `postgresql://` URL).
    pub connect: String,
    /// The lease table (a plain identifier, optionally `schema.table`).
    pub table: String,
    /// The node ID's width, 1 to 48.
    pub bits: u8,
    /// The lease's lifetime and retry settings ([`Timing::default`](crate::Timing::default): a
    /// TTL of 10 s, 500 ms of margin, 16 attempts). The TTL is at least 1 ms; the answer limit
    /// bounds connecting.
    pub timing: crate::Timing,
    /// Who holds the node, for operators (`uuidkit pid PID`).
    pub holder: String,
    /// The longest a claim waits for this host's clock to pass a free node's high-water
    /// millisecond before it tries another node (the TTL).
    pub high_water_wait: Duration,
    /// Test-only switches ([`Testing`](crate::Testing)).
    #[doc(hidden)]
    pub testing: crate::Testing,
    /// TLS to the server (none: as the connection string's `sslmode` says, without TLS support,
    /// so `disable` or `prefer`). With TLS set the connection must be encrypted
    /// (`sslmode=require` whatever the string says) and the server's certificate must be signed
    /// by the CA and name the string's `host` — libpq's `verify-full`. Feature `postgres-tls`.
    #[cfg(feature = "postgres-tls")]
    pub tls: Option<crate::Tls>,
}

impl PgConfig {
    /// The defaults for node IDs `bits` wide, in the database `connect` names.
    ///
    /// ```
    /// use uuidkit_lease::postgres::PgConfig;
    ///
    /// assert_eq!(PgConfig::new("host=/run/postgresql dbname=ids", 48).bits, 48);
    /// ```
    pub fn new(connect: impl Into<String>, bits: u8) -> PgConfig {
        PgConfig {
            connect: connect.into(),
            table: "uuidkit_node_leases".into(),
            bits,
            timing: crate::Timing::default(),
            holder: format!("uuidkit pid {}", std::process::id()),
            high_water_wait: crate::Timing::default().ttl,
            testing: crate::Testing::default(),
            #[cfg(feature = "postgres-tls")]
            tls: None,
        }
    }
}

crate::registry::timed_config!(
    PgConfig,
    "postgres::PgConfig",
    "PgConfig::new(\"host=db\", 8)"
);

/// A node ID held as a row of the lease table, and the slot generators read it from (the
/// [module docs](self)).
#[derive(Debug)]
pub struct PgLease {
    slot: Arc<LeaseSlot>,
    node: NodeId,
    stop: Option<mpsc::Sender<()>>,
    keeper: Option<JoinHandle<()>>,
}

/// The statements of one lease table.
#[derive(Clone, Debug)]
struct Sql {
    create: String,
    add_hw: String,
    create_hw: String,
    ready: String,
    claim: String,
    free_hw: String,
    renew: String,
    release: String,
    taken: String,
}

impl Sql {
    fn new(table: &str) -> Sql {
        let marks = format!("{table}{HW_SUFFIX}");
        // Every statement that moves a row's high-water moves the node's mark with it, in the
        // same statement: the mark outlives the row (an operator's `DELETE` of a live holder's
        // row), so a new holder still starts above the last one's deadline.
        let mark = |rows: &str, value: &str, keep: &str| {
            format!(
                "INSERT INTO {marks} AS k (node, hw) SELECT node, {value}::bigint FROM {rows} \
                 ON CONFLICT (node) DO UPDATE SET hw = {keep} RETURNING node"
            )
        };
        Sql {
            create: format!(
                "CREATE TABLE IF NOT EXISTS {table} (node bigint PRIMARY KEY, \
                 holder text NOT NULL, expires timestamptz NOT NULL, \
                 hw bigint NOT NULL DEFAULT 0)"
            ),
            add_hw: format!(
                "ALTER TABLE {table} ADD COLUMN IF NOT EXISTS hw bigint NOT NULL DEFAULT 0"
            ),
            create_hw: format!(
                "CREATE TABLE IF NOT EXISTS {marks} (node bigint PRIMARY KEY, hw bigint NOT NULL)"
            ),
            // 1 when the lease table has its column hw, plus 2 when the marks table exists.
            ready: "SELECT (SELECT count(*) FROM pg_attribute WHERE attrelid = to_regclass($1) \
                    AND attname = 'hw' AND NOT attisdropped) \
                    + CASE WHEN to_regclass($2) IS NULL THEN 0 ELSE 2 END"
                .into(),
            // $4: the high-water of the deadline this claim will publish; $5: this host's
            // clock now, less the margin a new holder keeps above the last one's high-water.
            // The node's mark is read with the row: a deleted row leaves its mark behind.
            claim: format!(
                "WITH m AS (SELECT coalesce(max(hw), 0) AS hw FROM {marks} WHERE node = $1), \
                 c AS (INSERT INTO {table} AS t (node, holder, expires, hw) \
                 SELECT $1::bigint, $2::text, now() + $3::float8 * interval '1 millisecond', $4::bigint FROM m \
                 WHERE m.hw < $5 \
                 ON CONFLICT (node) DO UPDATE SET holder = EXCLUDED.holder, \
                 expires = EXCLUDED.expires, hw = EXCLUDED.hw \
                 WHERE t.expires <= now() AND t.hw < $5 RETURNING node), \
                 w AS ({}) SELECT node FROM c",
                mark("c", "$4", "greatest(k.hw, EXCLUDED.hw)")
            ),
            free_hw: format!(
                "SELECT greatest((SELECT max(hw) FROM {table} WHERE node = $1), \
                 (SELECT max(hw) FROM {marks} WHERE node = $1), 0) \
                 WHERE NOT EXISTS (SELECT 1 FROM {table} WHERE node = $1 AND expires > now())"
            ),
            renew: format!(
                "WITH r AS (UPDATE {table} SET expires = now() + $3 * interval '1 millisecond', \
                 hw = greatest(hw, $4) WHERE node = $1 AND holder = $2 AND expires > now() \
                 RETURNING node) {}",
                mark("r", "$4", "greatest(k.hw, EXCLUDED.hw)")
            ),
            release: format!(
                "WITH r AS (UPDATE {table} SET expires = now(), hw = $3 \
                 WHERE node = $1 AND holder = $2 RETURNING node) {}",
                mark("r", "$3", "EXCLUDED.hw")
            ),
            taken: format!("SELECT node FROM {table} WHERE expires > now() ORDER BY node"),
        }
    }
}

/// The marks table's name: the lease table's with this suffix.
const HW_SUFFIX: &str = "_hw";

impl PgLease {
    /// Connects, creates the table if missing, claims a free node (drawn with `rng`) and keeps
    /// it renewed from a thread of its own until the returned value is dropped.
    ///
    /// # Errors
    ///
    /// * [`LeaseErrorKind::Config`]: an invalid width, TTL, table name or connection string;
    /// * [`LeaseErrorKind::Unreachable`]: the database cannot be reached;
    /// * [`LeaseErrorKind::Denied`]: every node tried was taken ("… N of M nodes in TABLE are
    ///   taken");
    /// * [`LeaseErrorKind::Registry`]: a statement failed (rights, a table of another shape).
    ///
    /// ```no_run
    /// use uuidkit_lease::LeaseErrorKind;
    /// use uuidkit_lease::postgres::{PgConfig, PgLease};
    ///
    /// let config = PgConfig { table: "no such; table".into(), ..PgConfig::new("host=db", 8) };
    /// let err = PgLease::acquire(&config, &mut uuidkit::rng::ThreadRng).unwrap_err();
    /// assert_eq!(err.kind(), LeaseErrorKind::Config);
    /// ```
    pub fn acquire(config: &PgConfig, rng: &mut impl Rng) -> Result<PgLease, LeaseError> {
        check(config)?;
        let sql = Sql::new(&config.table);
        let mut client = connect(config)?;
        create(&mut client, &sql, &config.table)?;
        let holder = format!(
            "{:016x}{:016x} {}",
            rng.next_u64(),
            rng.next_u64(),
            config.holder
        );
        let slot = Arc::new(LeaseSlot::new(config.bits, BootTime, config.timing.margin)?);
        slot.offset_wall(config.testing.wall_offset_ms);
        let (value, sent) = claim(&mut client, &sql, config, &holder, &slot, rng)?;
        let node = slot.grant(value, sent, config.timing.ttl)?;
        let (stop, stopped) = mpsc::channel();
        let keeper = Keeper {
            slot: slot.clone(),
            client: Some(client),
            prepared: None,
            config: config.clone(),
            sql,
            holder,
            value,
        };
        let keeper = std::thread::Builder::new()
            .name(format!("pg-lease-{value:x}"))
            .spawn(move || keeper.run(&stopped))
            .ok();
        if keeper.is_none() {
            slot.lose(
                NodeLost::new(NodeLostKind::SourceGone)
                    .with_detail("cannot start the lease's renewal thread"),
            );
        }
        Ok(PgLease {
            slot,
            node,
            stop: Some(stop),
            keeper,
        })
    }

    /// The node ID held (as the slot first gave it out).
    ///
    /// ```no_run
    /// # use uuidkit_lease::postgres::{PgConfig, PgLease};
    /// let lease = PgLease::acquire(&PgConfig::new("host=db", 12), &mut uuidkit::rng::ThreadRng)?;
    /// assert!(lease.node().value() < 1 << 12);
    /// # Ok::<(), uuidkit_lease::LeaseError>(())
    /// ```
    pub fn node(&self) -> NodeId {
        self.node
    }

    /// The slot generators read the node from.
    ///
    /// ```no_run
    /// # use uuidkit_lease::postgres::{PgConfig, PgLease};
    /// let lease = PgLease::acquire(&PgConfig::new("host=db", 12), &mut uuidkit::rng::ThreadRng)?;
    /// assert!(lease.slot().deadline().is_some());
    /// # Ok::<(), uuidkit_lease::LeaseError>(())
    /// ```
    pub fn slot(&self) -> &Arc<LeaseSlot> {
        &self.slot
    }

    /// The slot as a [`NodeSource`] for a generator.
    ///
    /// ```no_run
    /// # use uuidkit_lease::postgres::{PgConfig, PgLease};
    /// let lease = PgLease::acquire(&PgConfig::new("host=db", 12), &mut uuidkit::rng::ThreadRng)?;
    /// assert_eq!(lease.source().bits(), 12);
    /// # Ok::<(), uuidkit_lease::LeaseError>(())
    /// ```
    pub fn source(&self) -> Arc<dyn NodeSource> {
        self.slot.clone()
    }
}

impl crate::Registry for PgConfig {
    fn acquire(
        &self,
        mut rng: &mut dyn Rng,
        _waiting: &mut dyn FnMut(&str),
    ) -> Result<Box<dyn crate::Lease>, LeaseError> {
        Ok(Box::new(PgLease::acquire(self, &mut rng)?))
    }
}

impl crate::Lease for PgLease {
    fn slot(&self) -> &Arc<LeaseSlot> {
        &self.slot
    }

    fn node(&self) -> NodeId {
        self.node
    }

    fn name(&self) -> &'static str {
        "PostgreSQL node"
    }

    /// The renewal thread deletes the row as it ends; what it met is not reported.
    fn release(self: Box<Self>) -> Result<(), LeaseError> {
        drop(self);
        Ok(())
    }
}

impl Drop for PgLease {
    /// Marks the node lost, then has the renewal thread delete the row and end.
    fn drop(&mut self) {
        self.slot.retire(
            NodeLost::new(NodeLostKind::Released).with_detail("the PostgreSQL lease was released"),
        );
        drop(self.stop.take());
        if let Some(keeper) = self.keeper.take() {
            let _ = keeper.join();
        }
    }
}

fn check(config: &PgConfig) -> Result<(), LeaseError> {
    let bad = |what: String| Err(LeaseError::new(LeaseErrorKind::Config, what));
    check_bits(config.bits)?;
    let ident = |s: &str| {
        !s.is_empty()
            && s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    let parts: Vec<&str> = config.table.split('.').collect();
    if parts.len() > 2 || !parts.iter().all(|p| ident(p)) {
        return bad(format!(
            "lease table: expected an identifier or schema.identifier (letters, digits, _), \
             found {:?}",
            config.table
        ));
    }
    if config.timing.ttl < Duration::from_millis(1) || config.timing.margin >= config.timing.ttl {
        return bad(format!(
            "lease TTL: expected at least 1 ms and more than the margin ({:?}), found {:?}",
            config.timing.margin, config.timing.ttl
        ));
    }
    config.timing.check()
}

fn connect(config: &PgConfig) -> Result<Client, LeaseError> {
    let mut pg: postgres::Config = config.connect.parse().map_err(|e| {
        LeaseError::new(
            LeaseErrorKind::Config,
            format!("PostgreSQL connection string: {e}"),
        )
    })?;
    pg.connect_timeout(config.timing.answer_limit);
    let unreachable = |e: postgres::Error| {
        LeaseError::new(
            LeaseErrorKind::Unreachable,
            format!("cannot reach PostgreSQL: {}", reason(&e)),
        )
    };
    #[cfg(feature = "postgres-tls")]
    if let Some(tls) = &config.tls {
        pg.ssl_mode(postgres::config::SslMode::Require);
        let client = pg.connect(connector(tls)?).map_err(unreachable)?;
        return durable(client, config);
    }
    durable(pg.connect(NoTls).map_err(unreachable)?, config)
}

/// The lease's session confirms a commit only once it is durable: a claim or renewal the server
/// confirmed and then lost in a crash would let another holder take a node still in use. Any
/// role may set it, whatever the server's default.
fn durable(mut client: Client, config: &PgConfig) -> Result<Client, LeaseError> {
    if !config.testing.no_sync_commit {
        client
            .batch_execute("SET synchronous_commit = on")
            .map_err(|e| registry("cannot set synchronous_commit", &e))?;
    }
    Ok(client)
}

/// The TLS connector of [`PgConfig::tls`]: the server's certificate checked against the CA and
/// the connection string's host, the client's certificate shown if given.
#[cfg(feature = "postgres-tls")]
fn connector(tls: &crate::Tls) -> Result<tokio_postgres_rustls::MakeRustlsConnect, LeaseError> {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let bad = |what: &str, why: &dyn std::fmt::Display| {
        LeaseError::new(
            LeaseErrorKind::Config,
            format!("PostgreSQL TLS: {what}: {why}"),
        )
    };
    if let Some(domain) = &tls.domain {
        let why = "name the certificate's host with the connection string's host (and the address with hostaddr)";
        return Err(bad(&format!("a domain ({domain}) is for etcd"), &why));
    }
    let mut roots = rustls::RootCertStore::empty();
    for cert in CertificateDer::pem_slice_iter(&tls.ca) {
        let cert = cert.map_err(|e| bad("the CA certificate", &e))?;
        roots.add(cert).map_err(|e| bad("the CA certificate", &e))?;
    }
    if roots.is_empty() {
        return Err(bad("the CA certificate", &"no PEM certificate found"));
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| bad("protocol versions", &e))?
        .with_root_certificates(roots);
    let client = match &tls.identity {
        None => builder.with_no_client_auth(),
        Some((cert, key)) => {
            let chain = CertificateDer::pem_slice_iter(cert)
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| bad("the client certificate", &e))?;
            let key = PrivateKeyDer::from_pem_slice(key).map_err(|e| bad("the client key", &e))?;
            builder
                .with_client_auth_cert(chain, key)
                .map_err(|e| bad("the client certificate and key", &e))?
        }
    };
    Ok(tokio_postgres_rustls::MakeRustlsConnect::new(client))
}

/// Creates the lease table and its marks table if they do not exist, or adds the lease table's
/// `hw` column if it lacks one. `CREATE TABLE IF NOT EXISTS` alone would need the `CREATE`
/// right on the schema even when the table exists, so tables created ahead by an owner are
/// looked up first: a role with rights on the tables alone can then hold leases. Two sessions
/// creating one table at once collide in the catalog even with `IF NOT EXISTS`, so creators
/// serialise on an advisory lock of the table's name, held to the end of the creating
/// transaction.
fn create(client: &mut Client, sql: &Sql, table: &str) -> Result<(), LeaseError> {
    let marks = format!("{table}{HW_SUFFIX}");
    let ready = |client: &mut Client| -> Result<i64, LeaseError> {
        let found = client
            .query_one(&sql.ready, &[&table, &marks])
            .map_err(|e| registry(&format!("cannot look up {table}"), &e))?;
        Ok(found.get::<_, i64>(0))
    };
    let found = ready(client)?;
    if found == 3 {
        return Ok(());
    }
    // Only what is missing: `ALTER TABLE` needs ownership even when the column exists.
    let mut steps = vec![sql.create.as_str()];
    if found & 1 == 0 {
        steps.push(&sql.add_hw);
    }
    if found & 2 == 0 {
        steps.push(&sql.create_hw);
    }
    let locked = format!(
        "BEGIN; SELECT pg_advisory_xact_lock({LOCK_CLASS}, hashtext('{table}')); {}; COMMIT",
        steps.join("; ")
    );
    let made = client.batch_execute(&locked);
    if made.is_err() {
        let _ = client.batch_execute("ROLLBACK");
    }
    made.map_err(|e| {
        registry(
            &format!(
                "cannot create {table} and {marks} (as their owner: {}; {}; {}; and grant \
                 SELECT, INSERT, UPDATE, DELETE on both to the holders' role)",
                sql.create, sql.add_hw, sql.create_hw
            ),
            &e,
        )
    })?;
    match ready(client)? {
        3 => Ok(()),
        _ => Err(LeaseError::new(
            LeaseErrorKind::Registry,
            format!(
                "PostgreSQL: {table} has no column hw, or {marks} is missing, after both were created"
            ),
        )),
    }
}

/// The first key of the advisory lock creators of a lease table take ("uuid" in ASCII); the
/// second is the hash of the table's name.
const LOCK_CLASS: i32 = 0x7575_6964;

/// A statement's failure, with the server's own words ([`reason`]).
fn registry(what: &str, e: &postgres::Error) -> LeaseError {
    LeaseError::new(
        LeaseErrorKind::Registry,
        format!("PostgreSQL: {what}: {}", reason(e)),
    )
}

/// Why the client failed: the server's own words where it answered ("permission denied for
/// schema public", "no pg_hba.conf entry …") — the client's `Display` says only "db error"
/// then — else the whole chain of causes ("error performing TLS handshake: invalid peer
/// certificate: UnknownIssuer").
fn reason(e: &postgres::Error) -> String {
    if let Some(db) = e.as_db_error() {
        return db.message().to_string();
    }
    let mut why = e.to_string();
    let mut cause = std::error::Error::source(e);
    while let Some(c) = cause {
        why = format!("{why}: {c}");
        cause = c.source();
    }
    why
}

fn millis(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Claims a free node: the value, and the send instant of the claim that won it. A free node
/// whose high-water millisecond this host's clock has not passed is waited for, up to
/// `config.high_water_wait`, or set aside for another.
fn claim(
    client: &mut Client,
    sql: &Sql,
    config: &PgConfig,
    holder: &str,
    slot: &LeaseSlot,
    rng: &mut impl Rng,
) -> Result<(u64, Duration), LeaseError> {
    let attempts = config.timing.attempts.max(1);
    let place = format!("in PostgreSQL table {}", config.table);
    let (mut taken, mut ahead) = (Vec::new(), Vec::new());
    let mut retry = None;
    for n in 0..attempts {
        if n > 0 && retry.is_none() {
            std::thread::sleep(config.timing.wait_before(n, rng));
            taken = taken_nodes(client, sql)?;
            crate::high_water::set_aside(
                &mut taken,
                &ahead,
                config.bits,
                &place,
                n,
                config.high_water_wait,
            )?;
        }
        let value = match retry.take() {
            Some(v) => v,
            None => crate::pick_node(config.bits, &taken, rng)?,
        };
        let sent = slot.now();
        let (mine, below): (u64, i64) = if config.testing.no_high_water {
            (0, i64::MAX)
        } else {
            let now = slot.wall_ms().saturating_sub(crate::high_water::ABOVE_MS);
            let now = i64::try_from(now).unwrap_or(i64::MAX);
            (slot.high_water_until(sent, config.timing.ttl), now)
        };
        let rows = client
            .query(
                &sql.claim,
                &[
                    &(value as i64),
                    &holder,
                    &millis(config.timing.ttl),
                    &i64::try_from(mine).unwrap_or(i64::MAX),
                    &below,
                ],
            )
            .map_err(|e| registry("cannot claim a node", &e))?;
        if !rows.is_empty() {
            return Ok((value, sent));
        }
        // Taken, or free with a high-water ahead of this clock: wait for a short one.
        let free = client
            .query(&sql.free_hw, &[&(value as i64)])
            .map_err(|e| registry("cannot read a node's high-water", &e))?;
        if let Some(row) = free.first() {
            let hw = u64::try_from(row.get::<_, i64>(0)).unwrap_or(0);
            let wait = crate::high_water::wait_for(hw, slot.wall_ms());
            if wait <= config.high_water_wait {
                std::thread::sleep(wait);
                retry = Some(value);
            } else {
                ahead.push((value, wait));
            }
        }
    }
    if let Some((node, by)) = ahead.first() {
        return Err(crate::high_water::ahead(
            &place,
            *node,
            *by,
            config.high_water_wait,
        ));
    }
    let taken = taken_nodes(client, sql)?;
    Err(crate::no_free_node(
        config.bits,
        &place,
        taken.len(),
        attempts,
    ))
}

fn taken_nodes(client: &mut Client, sql: &Sql) -> Result<Vec<u64>, LeaseError> {
    let rows = client
        .query(&sql.taken, &[])
        .map_err(|e| registry("cannot list the nodes taken", &e))?;
    Ok(rows
        .iter()
        .filter_map(|r| u64::try_from(r.get::<_, i64>(0)).ok())
        .collect())
}

/// The renewal thread: renews every third of the TTL until the lease is dropped (then deletes
/// the row) or the row is no longer this lease's.
struct Keeper {
    slot: Arc<LeaseSlot>,
    client: Option<Client>,
    /// The renewal statement, prepared on `client`.
    prepared: Option<postgres::Statement>,
    config: PgConfig,
    sql: Sql,
    holder: String,
    value: u64,
}

impl Keeper {
    fn run(mut self, stopped: &mpsc::Receiver<()>) {
        let every = self.config.timing.ttl / 3;
        loop {
            match stopped.recv_timeout(every) {
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                _ => return self.release(),
            }
            if let Some(lost) = self.renew() {
                self.slot.lose(lost);
                return;
            }
        }
    }

    /// One renewal: `Some` when the row is no longer this lease's; a failed statement or a
    /// lost connection moves nothing (a new connection is made for the next one), and the
    /// deadline passes unless a later renewal is confirmed.
    fn renew(&mut self) -> Option<NodeLost> {
        if self.client.as_ref().is_none_or(Client::is_closed) {
            self.client = connect(&self.config).ok();
            self.prepared = None;
        }
        let client = self.client.as_mut()?;
        // Prepared once per connection: each renewal is then one round trip, not two.
        if self.prepared.is_none() {
            self.prepared = client.prepare(&self.sql.renew).ok();
        }
        let Some(statement) = self.prepared.as_ref() else {
            self.client = None;
            return None;
        };
        let sent = self.slot.now();
        // The high-water of the deadline this renewal publishes, written with it.
        let hw = if self.config.testing.no_high_water {
            0
        } else {
            self.slot.high_water_until(sent, self.config.timing.ttl)
        };
        let hw = i64::try_from(hw).unwrap_or(i64::MAX);
        let args: [&(dyn postgres::types::ToSql + Sync); 4] = [
            &(self.value as i64),
            &self.holder,
            &millis(self.config.timing.ttl),
            &hw,
        ];
        match client.execute(statement, &args) {
            Ok(1) => {
                self.slot.renew(sent, self.config.timing.ttl);
                None
            }
            Ok(_) => Some(
                NodeLost::new(NodeLostKind::RenewalFailed).with_detail(&format!(
                    "the lease row of node {:#x} expired or was taken",
                    self.value
                )),
            ),
            Err(_) => {
                self.client = None;
                None
            }
        }
    }

    /// Gives the row back, expired, with the millisecond this holder stopped at as its
    /// high-water (the node was retired before: no UUID is made with it any more).
    fn release(&mut self) {
        let hw = if self.config.testing.no_high_water {
            0
        } else {
            self.slot.high_water_now()
        };
        let hw = i64::try_from(hw).unwrap_or(i64::MAX);
        if let Some(client) = self.client.as_mut() {
            let _ = client.execute(
                &self.sql.release,
                &[&(self.value as i64), &self.holder, &hw],
            );
        }
    }
}
