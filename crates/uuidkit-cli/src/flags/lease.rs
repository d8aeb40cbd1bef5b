//! Where a v1/v6/v8 run leases its node: `--node-from SOURCE` (etcd, PostgreSQL, ZooKeeper or the
//! UIAP site lease) and its older spelling `--site-node`, the lease's settings, and the plan they make.
//!
//! A `SOURCE` that does not parse is refused by clap (exit 2) with what was wrong in it; a source
//! whose backend this binary was built without is refused before the run starts (by the backend
//! table, `cmd/new/backend.rs`: exit 2), with the Cargo feature to build it with. Nothing here
//! connects to anything.

use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

use super::{Kind, NewArgs, NodeBits};
use crate::error::Error;

/// The sources `--node-from` knows, as the user writes them (for error messages).
const KNOWN: &str = "etcd://[USER@]HOST:PORT[,HOST:PORT…]/PREFIX, postgres://…, postgresql://…, \
                     postgres-env:VAR, zookeeper://HOST:PORT[,HOST:PORT…]/PREFIX or uiap[:CONTROL]";

/// Where an etcd user's password comes from: never the command line, which any user of the
/// machine can read in the process list.
pub const ETCD_PASSWORD_VAR: &str = "UUIDKIT_ETCD_PASSWORD";

/// A `--node-from` value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NodeFrom {
    /// `uiap` or `uiap:CONTROL`: the site lease through the local uiapd (`--site-node`).
    Uiap(Option<PathBuf>),
    /// `etcd://[USER@]HOST:PORT[,HOST:PORT…]/PREFIX`.
    Etcd {
        /// `HOST:PORT` each.
        endpoints: Vec<String>,
        /// The key prefix, with its leading `/`.
        prefix: String,
        /// The etcd user to authenticate as (its password from [`ETCD_PASSWORD_VAR`]).
        user: Option<String>,
    },
    /// `postgres://…` or `postgresql://…` (the URL itself), or `postgres-env:VAR`.
    Postgres(PgConnect),
    /// `zookeeper://HOST:PORT[,HOST:PORT…]/PREFIX`.
    ZooKeeper {
        /// `HOST:PORT` each.
        hosts: Vec<String>,
        /// The node path prefix, with its leading `/`.
        prefix: String,
    },
}

/// `--tls-ca`, and `--tls-cert` with `--tls-key`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsFiles {
    /// The CA certificate.
    pub ca: PathBuf,
    /// The client certificate and its key.
    pub identity: Option<(PathBuf, PathBuf)>,
}

/// A password: kept out of `Debug`.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(pub String);

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(…)")
    }
}

/// Where the PostgreSQL connection string comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PgConnect {
    /// Given on the command line (a `postgres://` or `postgresql://` URL).
    Given(String),
    /// Read from the named environment variable (a URL or libpq's `key=value …` form), so that
    /// a password never shows in the process list.
    Env(String),
}

impl FromStr for NodeFrom {
    type Err = String;
    fn from_str(s: &str) -> Result<NodeFrom, String> {
        if let Some(rest) = s.strip_prefix("etcd://") {
            return etcd(rest).map_err(|e| format!("etcd://: {e}"));
        }
        if let Some(rest) = s.strip_prefix("zookeeper://") {
            return hosts_and_prefix(rest)
                .map(|(hosts, prefix)| NodeFrom::ZooKeeper { hosts, prefix })
                .map_err(|e| format!("zookeeper://: {e}"));
        }
        if s.starts_with("postgres://") || s.starts_with("postgresql://") {
            return Ok(NodeFrom::Postgres(PgConnect::Given(s.into())));
        }
        if let Some(var) = s.strip_prefix("postgres-env:") {
            let name = var.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                && var.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            return if name {
                Ok(NodeFrom::Postgres(PgConnect::Env(var.into())))
            } else {
                Err(format!(
                    "postgres-env: expected an environment variable's name (letters, digits, _), \
                     found '{var}'"
                ))
            };
        }
        match s.split_once(':') {
            None if s == "uiap" => Ok(NodeFrom::Uiap(None)),
            Some(("uiap", "")) => Err("uiap: expected the control socket's path after ':'".into()),
            Some(("uiap", path)) => Ok(NodeFrom::Uiap(Some(path.into()))),
            _ => Err(format!("expected {KNOWN}, found '{s}'")),
        }
    }
}

/// The part of an etcd source after `etcd://`.
fn etcd(rest: &str) -> Result<NodeFrom, String> {
    // A user goes before the endpoints; an '@' in the key prefix is the prefix's.
    let authority = rest.split('/').next().unwrap_or_default();
    let (user, rest) = match authority
        .split_once('@')
        .map(|(u, _)| (u, &rest[u.len() + 1..]))
    {
        Some((user, _)) if user.contains(':') => {
            return Err(format!(
                "a password does not go on the command line (others can read it there): \
                 give USER@ alone and the password in {ETCD_PASSWORD_VAR}"
            ));
        }
        Some(("", _)) => return Err("empty user name before '@'".into()),
        Some((user, rest)) => (Some(user.to_string()), rest),
        None => (None, rest),
    };
    let (endpoints, prefix) = hosts_and_prefix(rest)?;
    Ok(NodeFrom::Etcd {
        endpoints,
        prefix,
        user,
    })
}

/// `HOST:PORT[,HOST:PORT…]/PREFIX`: the endpoints, and the prefix with its leading `/`.
fn hosts_and_prefix(rest: &str) -> Result<(Vec<String>, String), String> {
    let Some((hosts, key)) = rest.split_once('/') else {
        return Err(
            "expected HOST:PORT[,HOST:PORT…]/PREFIX, found no '/' before the prefix".into(),
        );
    };
    if hosts.is_empty() {
        return Err("no endpoint before '/'".into());
    }
    let endpoints = hosts
        .split(',')
        .enumerate()
        .map(|(i, e)| endpoint(e).map_err(|why| format!("endpoint {} '{e}': {why}", i + 1)))
        .collect::<Result<Vec<_>, _>>()?;
    if key.is_empty() {
        return Err("empty key prefix after the endpoints".into());
    }
    if key.ends_with('/') {
        return Err(format!(
            "the key prefix '/{key}' ends in '/' (a node's key is PREFIX/NODE)"
        ));
    }
    Ok((endpoints, format!("/{key}")))
}

/// One `HOST:PORT` (an IPv6 host in brackets).
fn endpoint(e: &str) -> Result<String, String> {
    if e.is_empty() {
        return Err("empty (two ',' in a row, or one at an end)".into());
    }
    let Some((host, port)) = e.rsplit_once(':') else {
        return Err("expected HOST:PORT, found no ':'".into());
    };
    if host.is_empty() || host == "[]" {
        return Err("expected HOST:PORT, found no host".into());
    }
    if host.contains(':') && !(host.starts_with('[') && host.ends_with(']')) {
        return Err("an IPv6 host goes in brackets: [ADDRESS]:PORT".into());
    }
    match port.parse::<u16>() {
        Ok(p) if p > 0 && port.bytes().all(|b| b.is_ascii_digit()) => Ok(e.into()),
        _ => Err(format!("expected a port of 1 to 65535, found '{port}'")),
    }
}

/// `--lease-ttl` and `--lease-margin`: whole seconds (`10`, `10s`) or milliseconds (`1500ms`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LeaseTime(pub Duration);

impl FromStr for LeaseTime {
    type Err = String;
    fn from_str(s: &str) -> Result<LeaseTime, String> {
        let (digits, unit) = match s.strip_suffix("ms") {
            Some(d) => (d, Duration::from_millis(1)),
            None => (s.strip_suffix('s').unwrap_or(s), Duration::from_secs(1)),
        };
        match digits.parse::<u32>() {
            Ok(n) if digits.bytes().all(|b| b.is_ascii_digit()) => Ok(LeaseTime(unit * n)),
            _ => Err(format!(
                "expected a duration in seconds or milliseconds (10s, 1500ms), found '{s}'"
            )),
        }
    }
}

/// A lease source's TTL when `--lease-ttl` is not given.
pub const DEFAULT_TTL: Duration = Duration::from_secs(10);

/// Where a run leases its node, and for how wide a node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeasePlan {
    /// The node's width: 48 for v1/v6, `--node-bits` for v8.
    pub bits: u8,
    /// The source.
    pub from: LeaseFrom,
}

/// A lease source with its settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LeaseFrom {
    /// The UIAP site lease (docs/uiap-design.md D49, D50).
    Site {
        /// uiapd's control socket.
        control: PathBuf,
        /// The node-ID domain.
        domain: uiap::space::DomainId,
        /// How far ahead another device's clock may be, as the operator vouches
        /// (docs/uiap-design.md D72).
        max_clock_offset: Option<Duration>,
    },
    /// An etcd lease.
    Etcd {
        /// `HOST:PORT` each.
        endpoints: Vec<String>,
        /// The key prefix.
        prefix: String,
        /// The TTL and the margin taken off each deadline.
        times: Times,
        /// The etcd user and its password (boxed: rare, and the plan is moved whole).
        user: Option<Box<(String, Secret)>>,
        /// TLS: the CA certificate, and the client certificate and key, as files.
        tls: Option<Box<TlsFiles>>,
    },
    /// A PostgreSQL lease row.
    Postgres {
        /// The connection string (a secret: never printed).
        connect: String,
        /// The lease table, if not the default.
        table: Option<String>,
        /// The TTL and the margin taken off each deadline.
        times: Times,
        /// TLS: the CA certificate, and the client certificate and key, as files.
        tls: Option<Box<TlsFiles>>,
    },
    /// A ZooKeeper lease: an ephemeral node of a session.
    ZooKeeper {
        /// `HOST:PORT` each.
        hosts: Vec<String>,
        /// The node path prefix.
        prefix: String,
        /// The session timeout asked for and the margin taken off each deadline.
        times: Times,
    },
}

/// A lease's TTL, and the margin its deadlines fall before the TTL's end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Times {
    /// The lease's time to live.
    pub ttl: Duration,
    /// The margin.
    pub margin: Duration,
}

impl LeaseFrom {
    /// `--tls-ca` and its company, for the sources that take them.
    pub fn tls(&self) -> Option<&TlsFiles> {
        match self {
            LeaseFrom::Site { .. } | LeaseFrom::ZooKeeper { .. } => None,
            LeaseFrom::Etcd { tls, .. } | LeaseFrom::Postgres { tls, .. } => tls.as_deref(),
        }
    }
}

/// `--tls-ca`, `--tls-cert` and `--tls-key`, if given.
fn tls_files(a: &NewArgs) -> Option<Box<TlsFiles>> {
    a.tls_ca.clone().map(|ca| {
        Box::new(TlsFiles {
            ca,
            identity: a.tls_cert.clone().zip(a.tls_key.clone()),
        })
    })
}

fn usage(msg: impl Into<String>) -> Error {
    Error::Usage(msg.into())
}

/// The lease of a `new` run, if it asks for one: v1 and v6 (a 48-bit node) and time-based v8
/// (a `--node-bits` node in the §6.4 distributed layout); not with a fixed time or a given node.
/// `kname` names the kind as the user asked for it.
pub fn lease_plan(
    a: &NewArgs,
    kname: &str,
    gregorian: bool,
    time_based: bool,
) -> Result<Option<LeasePlan>, Error> {
    let v8 = a.kind == Kind::V8 && time_based;
    let from = match (&a.node_from, a.site_node) {
        (Some(from), _) => from.clone(),
        (None, true) => NodeFrom::Uiap(None),
        (None, false) => {
            for (flag, given) in [
                ("--uiap-control", a.uiap_control.is_some()),
                ("--node-domain", a.node_domain.is_some()),
                ("--max-clock-offset", a.max_clock_offset.is_some()),
                ("--node-bits", a.node_bits.is_some()),
                ("--lease-ttl", a.lease_ttl.is_some()),
                ("--lease-margin", a.lease_margin.is_some()),
                ("--lease-table", a.lease_table.is_some()),
                ("--tls-ca", a.tls_ca.is_some()),
            ] {
                if given {
                    return Err(usage(format!(
                        "{flag} applies only with --node-from or --site-node"
                    )));
                }
            }
            return Ok(None);
        }
    };
    let flag = if a.site_node {
        "--site-node"
    } else {
        "--node-from"
    };
    if !gregorian && !v8 {
        return Err(usage(format!(
            "{flag} does not apply to {kname}: it applies to v1, v6 and time-based v8"
        )));
    }
    if a.node_bits.is_some() && !v8 {
        return Err(usage(format!(
            "--node-bits does not apply to {kname}: it applies to v8 (a v1/v6 node is 48 bits)"
        )));
    }
    if a.node.is_some() {
        return Err(usage(format!(
            "--node and {flag} cannot be combined: the lease gives the node"
        )));
    }
    if a.at.is_some() {
        return Err(usage(format!(
            "--at and {flag} cannot be combined: a leased node is held for UUIDs made now"
        )));
    }
    Ok(Some(LeasePlan {
        bits: if v8 {
            a.node_bits.unwrap_or(NodeBits::DEFAULT).0
        } else {
            48
        },
        from: source(a, from)?,
    }))
}

/// The source's settings, each flag checked against the source it applies to.
fn source(a: &NewArgs, from: NodeFrom) -> Result<LeaseFrom, Error> {
    let given = |flags: &[(&'static str, bool)]| flags.iter().find(|f| f.1).map(|f| f.0);
    let site_flags = given(&[
        ("--uiap-control", a.uiap_control.is_some()),
        ("--node-domain", a.node_domain.is_some()),
        ("--max-clock-offset", a.max_clock_offset.is_some()),
    ]);
    let lease_flags = given(&[
        ("--lease-ttl", a.lease_ttl.is_some()),
        ("--lease-margin", a.lease_margin.is_some()),
    ]);
    let misplaced = match from {
        NodeFrom::Uiap(_) => lease_flags.map(|f| {
            (
                f,
                "etcd and PostgreSQL leases (the site lease's lifetime is uiapd's)",
            )
        }),
        _ => site_flags.map(|f| (f, "the UIAP site lease (--node-from uiap or --site-node)")),
    };
    let misplaced = misplaced
        .or_else(|| {
            (a.lease_table.is_some() && !matches!(from, NodeFrom::Postgres(_)))
                .then_some(("--lease-table", "PostgreSQL leases"))
        })
        .or_else(|| {
            (a.tls_ca.is_some() && matches!(from, NodeFrom::Uiap(_) | NodeFrom::ZooKeeper { .. }))
                .then_some(("--tls-ca", "etcd and PostgreSQL leases"))
        });
    if let Some((flag, applies)) = misplaced {
        return Err(usage(format!("{flag} applies only to {applies}")));
    }
    Ok(match from {
        NodeFrom::Uiap(control) => LeaseFrom::Site {
            control: control
                .or_else(|| a.uiap_control.clone())
                .unwrap_or_else(|| uuidkit_lease::site::DEFAULT_CONTROL.into()),
            domain: a
                .node_domain
                .map_or(uuidkit_lease::site::DEFAULT_NODE_DOMAIN, |d| d.0),
            max_clock_offset: a.max_clock_offset.map(|t| t.0),
        },
        NodeFrom::Etcd {
            endpoints,
            prefix,
            user,
        } => {
            let times = times(a)?;
            if times.ttl.subsec_nanos() != 0 {
                return Err(usage(format!(
                    "--lease-ttl {:?}: etcd counts a lease's TTL in whole seconds",
                    times.ttl
                )));
            }
            let user = match user {
                None => None,
                Some(name) => {
                    let password = std::env::var(ETCD_PASSWORD_VAR).map_err(|e| {
                        usage(format!(
                            "--node-from etcd://{name}@…: the password of etcd user '{name}' is \
                             read from {ETCD_PASSWORD_VAR}: {e}"
                        ))
                    })?;
                    Some(Box::new((name, Secret(password))))
                }
            };
            LeaseFrom::Etcd {
                endpoints,
                prefix,
                times,
                user,
                tls: tls_files(a),
            }
        }
        NodeFrom::Postgres(connect) => LeaseFrom::Postgres {
            connect: match connect {
                PgConnect::Given(url) => url,
                PgConnect::Env(var) => std::env::var(&var)
                    .map_err(|e| usage(format!("--node-from postgres-env:{var}: {var}: {e}")))?,
            },
            table: a.lease_table.clone(),
            times: times(a)?,
            tls: tls_files(a),
        },
        NodeFrom::ZooKeeper { hosts, prefix } => LeaseFrom::ZooKeeper {
            hosts,
            prefix,
            times: times(a)?,
        },
    })
}

/// `--lease-ttl` and `--lease-margin`, with their defaults: 10 s, and a twentieth of the TTL
/// (at least 100 ms).
fn times(a: &NewArgs) -> Result<Times, Error> {
    let ttl = a.lease_ttl.map_or(DEFAULT_TTL, |t| t.0);
    let margin = a
        .lease_margin
        .map_or_else(|| uuidkit_lease::default_margin(ttl), |m| m.0);
    if ttl.is_zero() {
        return Err(usage("--lease-ttl: expected more than 0, found 0"));
    }
    if margin >= ttl {
        return Err(usage(format!(
            "--lease-margin {margin:?}: expected less than the lease's TTL ({ttl:?})"
        )));
    }
    Ok(Times { ttl, margin })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<NodeFrom, String> {
        s.parse()
    }

    #[test]
    fn a_zookeeper_source_parses_into_its_hosts_and_prefix() {
        assert_eq!(
            parse("zookeeper://10.0.0.1:2181,[::1]:2181/uuidkit/v8").unwrap(),
            NodeFrom::ZooKeeper {
                hosts: vec!["10.0.0.1:2181".into(), "[::1]:2181".into()],
                prefix: "/uuidkit/v8".into(),
            }
        );
        for (bad, why) in [
            (
                "zookeeper://h:1",
                "zookeeper://: expected HOST:PORT[,HOST:PORT…]/PREFIX",
            ),
            ("zookeeper://h:1/", "zookeeper://: empty key prefix"),
            (
                "zookeeper://h:1/a/",
                "zookeeper://: the key prefix '/a/' ends in '/'",
            ),
            (
                "zookeeper://h/p",
                "zookeeper://: endpoint 1 'h': expected HOST:PORT",
            ),
        ] {
            let e = parse(bad).unwrap_err();
            assert!(e.starts_with(why), "{bad}: {e}");
        }
        assert!(
            parse("zk://h:1/p")
                .unwrap_err()
                .contains("zookeeper://HOST:PORT")
        );
    }

    #[test]
    fn sources_parse_into_their_parts() {
        assert_eq!(
            parse("etcd://10.0.0.1:2379,[::1]:2379,db:1/uuidkit/v1").unwrap(),
            NodeFrom::Etcd {
                endpoints: vec!["10.0.0.1:2379".into(), "[::1]:2379".into(), "db:1".into()],
                prefix: "/uuidkit/v1".into(),
                user: None,
            }
        );
        assert_eq!(
            "etcd://gen@h:1/ids@site".parse::<NodeFrom>().unwrap(),
            NodeFrom::Etcd {
                endpoints: vec!["h:1".into()],
                prefix: "/ids@site".into(),
                user: Some("gen".into()),
            }
        );
        assert_eq!(
            "etcd://h:1/ids@site".parse::<NodeFrom>().unwrap(),
            NodeFrom::Etcd {
                endpoints: vec!["h:1".into()],
                prefix: "/ids@site".into(),
                user: None,
            }
        );
        let url = "postgresql://gen@db/ids?sslmode=disable";
        assert_eq!(
            parse(url).unwrap(),
            NodeFrom::Postgres(PgConnect::Given(url.into()))
        );
        assert_eq!(
            parse("postgres-env:IDS_DB").unwrap(),
            NodeFrom::Postgres(PgConnect::Env("IDS_DB".into()))
        );
        assert_eq!(parse("uiap").unwrap(), NodeFrom::Uiap(None));
        assert_eq!(
            parse("uiap:/run/x.sock").unwrap(),
            NodeFrom::Uiap(Some("/run/x.sock".into()))
        );
    }

    #[test]
    fn a_bad_source_says_which_part_is_wrong() {
        for (s, want) in [
            (
                "etcd://",
                "etcd://: expected HOST:PORT[,HOST:PORT…]/PREFIX, found no '/'",
            ),
            ("etcd:///p", "etcd://: no endpoint before '/'"),
            (
                "etcd://h:1/",
                "etcd://: empty key prefix after the endpoints",
            ),
            ("etcd://h:1/a/", "etcd://: the key prefix '/a/' ends in '/'"),
            (
                "etcd://gen:pw@h:1/p",
                "etcd://: a password does not go on the command line (others can read it \
                 there): give USER@ alone and the password in UUIDKIT_ETCD_PASSWORD",
            ),
            ("etcd://@h:1/p", "etcd://: empty user name before '@'"),
            (
                "etcd://h/p",
                "etcd://: endpoint 1 'h': expected HOST:PORT, found no ':'",
            ),
            (
                "etcd://h:1,,h:2/p",
                "etcd://: endpoint 2 '': empty (two ',' in a row",
            ),
            (
                "etcd://:5/p",
                "endpoint 1 ':5': expected HOST:PORT, found no host",
            ),
            (
                "etcd://h:99999/p",
                "expected a port of 1 to 65535, found '99999'",
            ),
            ("etcd://h:0/p", "expected a port of 1 to 65535, found '0'"),
            ("etcd://h:+1/p", "expected a port of 1 to 65535, found '+1'"),
            ("etcd://::1:5/p", "an IPv6 host goes in brackets"),
            (
                "postgres-env:",
                "postgres-env: expected an environment variable's name",
            ),
            ("postgres-env:A-B", "found 'A-B'"),
            (
                "uiap:",
                "uiap: expected the control socket's path after ':'",
            ),
            (
                "zk://h:1/p",
                "expected etcd://[USER@]HOST:PORT[,HOST:PORT…]/PREFIX, postgres://…",
            ),
            ("", "or uiap[:CONTROL], found ''"),
        ] {
            let e = parse(s).unwrap_err();
            assert!(e.contains(want), "{s:?}: {e}");
        }
    }

    #[test]
    fn lease_times_are_seconds_or_milliseconds() {
        let t = |s: &str| s.parse::<LeaseTime>().map(|t| t.0);
        assert_eq!(t("10"), Ok(Duration::from_secs(10)));
        assert_eq!(t("3s"), Ok(Duration::from_secs(3)));
        assert_eq!(t("1500ms"), Ok(Duration::from_millis(1500)));
        for bad in ["", "s", "1.5s", "-1", "10m", "+3s"] {
            assert!(
                t(bad).unwrap_err().contains(&format!("found '{bad}'")),
                "{bad}"
            );
        }
    }
}
