//! Node IDs leased from a PostgreSQL table, for teams whose one shared system is their
//! database (managed ones included: no extension is needed).
//!
//! # The table
//!
//! Created if missing (the role then needs `CREATE` on the schema once); holding a lease needs
//! `SELECT`, `INSERT`, `UPDATE` and `DELETE` on the table, and nothing else when the table was
//! created ahead by its owner:
//!
//! ```sql
//! CREATE TABLE IF NOT EXISTS uuidkit_node_leases (
//!     node    bigint      PRIMARY KEY,  -- the node ID
//!     holder  text        NOT NULL,     -- a random token of the holding lease, then who holds it
//!     expires timestamptz NOT NULL      -- the server's now() + TTL at the last grant or renewal
//! )
//! ```
//!
//! One table holds nodes of one width: holders of different widths use different tables
//! ([`PgConfig::table`]).
//!
//! # The lease
//!
//! A claim is one statement: insert the node's row, or take over a row whose lease has expired
//! (`INSERT … ON CONFLICT (node) DO UPDATE … WHERE expires <= now()`); the expiry is computed
//! by the **server's** clock. A renewal extends the row only while this lease still holds it and
//! it has not expired (`UPDATE … WHERE node = … AND holder = … AND expires > now()`); one that
//! finds no such row marks the node lost. Each confirmed claim or renewal moves the
//! [`LeaseSlot`]'s deadline to its send instant plus the TTL, less a margin
//! (docs/distributed-generation.md, "The lease deadline"). Dropping the lease marks the node
//! lost and deletes its row.
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

use crate::node::{backoff, full, pick, space};
use crate::{BootTime, LeaseError, LeaseErrorKind, LeaseSlot, check_bits};

/// How a [`PgLease`] claims its node ID.
///
/// ```
/// use std::time::Duration;
/// use uuidkit_lease::postgres::PgConfig;
///
/// let c = PgConfig::new("postgresql://gen@db/ids", 12);
/// assert_eq!(c.table, "uuidkit_node_leases");
/// assert_eq!(c.ttl, Duration::from_secs(10));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PgConfig {
    /// The connection string, as libpq takes it (`key=value …` or a `postgresql://` URL).
    pub connect: String,
    /// The lease table (a plain identifier, optionally `schema.table`).
    pub table: String,
    /// The node ID's width, 1 to 48.
    pub bits: u8,
    /// The lease's time to live (10 s; at least 1 ms).
    pub ttl: Duration,
    /// Taken off each deadline ([`default_margin`](crate::default_margin) of the TTL).
    pub margin: Duration,
    /// Nodes tried before giving up (16).
    pub attempts: u32,
    /// The first wait after a taken node, doubled up to `max_backoff` (50 ms).
    pub backoff: Duration,
    /// The longest wait between two attempts (2 s).
    pub max_backoff: Duration,
    /// How long connecting may take (a third of the TTL).
    pub answer_limit: Duration,
    /// Who holds the node, for operators (`uuidkit pid PID`).
    pub holder: String,
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
        let ttl = Duration::from_secs(10);
        PgConfig {
            connect: connect.into(),
            table: "uuidkit_node_leases".into(),
            bits,
            ttl,
            margin: crate::default_margin(ttl),
            attempts: 16,
            backoff: Duration::from_millis(50),
            max_backoff: Duration::from_secs(2),
            answer_limit: ttl / 3,
            holder: format!("uuidkit pid {}", std::process::id()),
            #[cfg(feature = "postgres-tls")]
            tls: None,
        }
    }
}

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
    claim: String,
    renew: String,
    release: String,
    taken: String,
}

impl Sql {
    fn new(table: &str) -> Sql {
        Sql {
            create: format!(
                "CREATE TABLE IF NOT EXISTS {table} (node bigint PRIMARY KEY, \
                 holder text NOT NULL, expires timestamptz NOT NULL)"
            ),
            claim: format!(
                "INSERT INTO {table} AS t (node, holder, expires) \
                 VALUES ($1, $2, now() + $3 * interval '1 millisecond') \
                 ON CONFLICT (node) DO UPDATE SET holder = EXCLUDED.holder, \
                 expires = EXCLUDED.expires WHERE t.expires <= now() RETURNING node"
            ),
            renew: format!(
                "UPDATE {table} SET expires = now() + $3 * interval '1 millisecond' \
                 WHERE node = $1 AND holder = $2 AND expires > now()"
            ),
            release: format!("DELETE FROM {table} WHERE node = $1 AND holder = $2"),
            taken: format!("SELECT node FROM {table} WHERE expires > now() ORDER BY node"),
        }
    }
}

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
        let slot = Arc::new(LeaseSlot::new(config.bits, BootTime, config.margin)?);
        let (value, sent) = claim(&mut client, &sql, config, &holder, &slot, rng)?;
        let node = slot.grant(value, sent, config.ttl)?;
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
    if config.ttl < Duration::from_millis(1) || config.margin >= config.ttl {
        return bad(format!(
            "lease TTL: expected at least 1 ms and more than the margin ({:?}), found {:?}",
            config.margin, config.ttl
        ));
    }
    Ok(())
}

fn connect(config: &PgConfig) -> Result<Client, LeaseError> {
    let mut pg: postgres::Config = config.connect.parse().map_err(|e| {
        LeaseError::new(
            LeaseErrorKind::Config,
            format!("PostgreSQL connection string: {e}"),
        )
    })?;
    pg.connect_timeout(config.answer_limit);
    let unreachable = |e: postgres::Error| {
        LeaseError::new(
            LeaseErrorKind::Unreachable,
            format!("cannot reach PostgreSQL: {}", reason(&e)),
        )
    };
    #[cfg(feature = "postgres-tls")]
    if let Some(tls) = &config.tls {
        pg.ssl_mode(postgres::config::SslMode::Require);
        return pg.connect(connector(tls)?).map_err(unreachable);
    }
    pg.connect(NoTls).map_err(unreachable)
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

/// Creates the lease table if it does not exist. `CREATE TABLE IF NOT EXISTS` alone would
/// need the `CREATE` right on the schema even when the table exists, so a table created ahead
/// by an owner is looked up first: a role with rights on the table alone can then hold leases.
fn create(client: &mut Client, sql: &Sql, table: &str) -> Result<(), LeaseError> {
    let found = client
        .query_one("SELECT to_regclass($1) IS NOT NULL", &[&table])
        .map_err(|e| registry(&format!("cannot look up {table}"), &e))?;
    if found.get::<_, bool>(0) {
        return Ok(());
    }
    client
        .batch_execute(&sql.create)
        .map_err(|e| registry(&format!("cannot create {table}"), &e))
}

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

/// Claims a free node: the value, and the send instant of the claim that won it.
fn claim(
    client: &mut Client,
    sql: &Sql,
    config: &PgConfig,
    holder: &str,
    slot: &LeaseSlot,
    rng: &mut impl Rng,
) -> Result<(u64, Duration), LeaseError> {
    let attempts = config.attempts.max(1);
    let mut taken = Vec::new();
    for n in 0..attempts {
        if n > 0 {
            std::thread::sleep(backoff(config.backoff, config.max_backoff, n, rng));
            taken = taken_nodes(client, sql)?;
            if space(config.bits).is_some_and(|size| taken.len() as u64 >= size) {
                return Err(full(
                    config.bits,
                    &format!("in PostgreSQL table {}", config.table),
                    taken.len(),
                    n,
                ));
            }
        }
        let value = pick(config.bits, &taken, rng)?;
        let sent = slot.now();
        let rows = client
            .query(&sql.claim, &[&(value as i64), &holder, &millis(config.ttl)])
            .map_err(|e| registry("cannot claim a node", &e))?;
        if !rows.is_empty() {
            return Ok((value, sent));
        }
    }
    let taken = taken_nodes(client, sql)?;
    Err(full(
        config.bits,
        &format!("in PostgreSQL table {}", config.table),
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
        let every = self.config.ttl / 3;
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
        let args: [&(dyn postgres::types::ToSql + Sync); 3] =
            [&(self.value as i64), &self.holder, &millis(self.config.ttl)];
        match client.execute(statement, &args) {
            Ok(1) => {
                self.slot.renew(sent, self.config.ttl);
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

    fn release(&mut self) {
        if let Some(client) = self.client.as_mut() {
            let _ = client.execute(&self.sql.release, &[&(self.value as i64), &self.holder]);
        }
    }
}
