//! The lease backends `--node-from` and `--site-node` know: one table, one row per registry.
//!
//! A row says how messages name the source, which Cargo feature builds it (and TLS to it),
//! which flag its messages start with, and how a plan becomes the registry's settings (a
//! [`Registry`]). Everything else — acquiring, the warnings, the writer that stops at a loss,
//! the loss's text, the release — goes through [`uuidkit_lease::Lease`], the same for every row.
//! A new registry is a module of `uuidkit-lease`, its `--node-from` form in `flags/lease.rs`, and
//! its row here (ARCHITECTURE.md, "Adding a registry").

#[cfg(unix)]
use uuidkit_lease::{LeaseError, LeaseErrorKind, Registry};

use crate::error::Error;
#[cfg(unix)]
use crate::flags::LeaseFrom;
use crate::flags::LeasePlan;

/// A plan made into its registry's settings, or what the registry refused in it.
#[cfg(unix)]
pub type Made = Result<Box<dyn Registry>, LeaseError>;

/// One lease backend.
#[derive(Clone, Copy)]
pub struct Backend {
    /// How a refusal names the source ("etcd://…").
    pub scheme: &'static str,
    /// Whether a plan is this backend's.
    pub of: fn(&LeasePlan) -> bool,
    /// The Cargo feature that builds it (`None`: always built), and whether this binary has it.
    pub feature: Option<(&'static str, bool)>,
    /// The Cargo feature TLS to it needs, and whether this binary has it.
    pub tls_feature: Option<(&'static str, bool)>,
    /// How a refusal names the source over TLS ("etcd://… with --tls-ca").
    pub tls_scheme: &'static str,
    /// The flag its messages start with ("--node-from etcd"). Read where a lease can be held
    /// (Unix); elsewhere every lease is refused before.
    #[cfg_attr(not(unix), allow(dead_code))]
    pub flag: &'static str,
    /// Whether settings the registry refuses are a usage error (exit 2: nothing was claimed)
    /// rather than a failure.
    #[cfg_attr(not(unix), allow(dead_code))]
    pub config_is_usage: bool,
    /// The registry's settings for a plan of this backend; `None` in a binary built without
    /// it.
    #[cfg(unix)]
    pub registry: fn(&LeasePlan) -> Option<Made>,
}

impl std::fmt::Debug for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.scheme)
    }
}

/// Every backend, each with its registry when this binary is built with it.
pub const BACKENDS: &[Backend] = &[
    Backend {
        scheme: "uiap",
        of: |p| matches!(p.from, crate::flags::LeaseFrom::Site { .. }),
        feature: None,
        tls_feature: None,
        tls_scheme: "",
        flag: "--site-node",
        config_is_usage: false,
        #[cfg(unix)]
        registry: site,
    },
    Backend {
        scheme: "etcd://…",
        of: |p| matches!(p.from, crate::flags::LeaseFrom::Etcd { .. }),
        feature: Some(("etcd", cfg!(feature = "etcd"))),
        tls_feature: Some(("etcd-tls", cfg!(feature = "etcd-tls"))),
        tls_scheme: "etcd://… with --tls-ca",
        flag: "--node-from etcd",
        config_is_usage: true,
        #[cfg(unix)]
        registry: etcd,
    },
    Backend {
        scheme: "postgres",
        of: |p| matches!(p.from, crate::flags::LeaseFrom::Postgres { .. }),
        feature: Some(("postgres", cfg!(feature = "postgres"))),
        tls_feature: Some(("postgres-tls", cfg!(feature = "postgres-tls"))),
        tls_scheme: "postgres… with --tls-ca",
        flag: "--node-from postgres",
        config_is_usage: true,
        #[cfg(unix)]
        registry: postgres,
    },
    Backend {
        scheme: "zookeeper://…",
        of: |p| matches!(p.from, crate::flags::LeaseFrom::ZooKeeper { .. }),
        feature: Some(("zookeeper", cfg!(feature = "zookeeper"))),
        tls_feature: None,
        tls_scheme: "",
        flag: "--node-from zookeeper",
        config_is_usage: true,
        #[cfg(unix)]
        registry: zookeeper,
    },
];

/// The backend of `plan`.
pub fn backend(plan: &LeasePlan) -> &'static Backend {
    BACKENDS
        .iter()
        .find(|b| (b.of)(plan))
        .expect("every lease source has a row in BACKENDS")
}

/// Refuses a plan whose backend this binary lacks (a usage error: nothing has run).
pub fn check_built(plan: &LeasePlan) -> Result<(), Error> {
    check(plan, backend(plan))
}

/// Refuses `plan` if `backend` (its row, possibly of another build) lacks what it needs.
fn check(plan: &LeasePlan, backend: &Backend) -> Result<(), Error> {
    if let Some((feature, false)) = backend.feature {
        return Err(not_built(backend.scheme, feature));
    }
    match backend.tls_feature {
        Some((feature, false)) if plan.from.tls().is_some() => {
            Err(not_built(backend.tls_scheme, feature))
        }
        _ => Ok(()),
    }
}

/// The error for a source whose backend this binary was built without.
fn not_built(scheme: &str, feature: &str) -> Error {
    Error::Usage(format!(
        "--node-from {scheme}: this uuidkit was built without the {feature} lease; build it with \
         the Cargo feature `{feature}` (cargo install uuidkit-cli --features {feature})"
    ))
}

/// A registry error of `backend`: settings it refused are a usage error where the row says so,
/// anything else a failure; either names the row's flag.
#[cfg(unix)]
pub fn refused(backend: &Backend, e: &LeaseError) -> Error {
    let text = format!("{}: {e}", backend.flag);
    match e.kind() {
        LeaseErrorKind::Config if backend.config_is_usage => Error::Usage(text),
        _ => Error::Failed(text),
    }
}

/// The site lease through the local uiapd.
#[cfg(unix)]
fn site(plan: &LeasePlan) -> Option<Made> {
    let LeaseFrom::Site {
        control,
        domain,
        max_clock_offset,
    } = &plan.from
    else {
        return None;
    };
    Some(Ok(Box::new(uuidkit_lease::site::LeaseConfig {
        domain: *domain,
        max_clock_offset: *max_clock_offset,
        ..uuidkit_lease::site::LeaseConfig::new(control.clone(), plan.bits)
    })))
}

/// An etcd lease.
#[cfg(unix)]
fn etcd(plan: &LeasePlan) -> Option<Made> {
    #[cfg(feature = "etcd")]
    if let LeaseFrom::Etcd {
        endpoints,
        prefix,
        times,
        user,
        tls,
    } = &plan.from
    {
        use uuidkit_lease::etcd::{EtcdConfig, EtcdUser};
        let timing = uuidkit_lease::Timing {
            margin: times.margin,
            ..uuidkit_lease::Timing::for_ttl(times.ttl)
        };
        #[cfg(feature = "etcd-tls")]
        let tls = match tls_config(tls.as_deref()) {
            Ok(tls) => tls,
            Err(e) => return Some(Err(e)),
        };
        #[cfg(not(feature = "etcd-tls"))]
        let _ = tls;
        let config = EtcdConfig {
            user: user.as_ref().map(|u| EtcdUser::new(&u.0, &u.1.0)),
            #[cfg(feature = "etcd-tls")]
            tls,
            ..EtcdConfig::new(endpoints.clone(), prefix, plan.bits).with_timing(timing)
        };
        return Some(Ok(Box::new(config)));
    }
    let _ = plan;
    None
}

/// A PostgreSQL lease row.
#[cfg(unix)]
fn postgres(plan: &LeasePlan) -> Option<Made> {
    #[cfg(feature = "postgres")]
    if let LeaseFrom::Postgres {
        connect,
        table,
        times,
        tls,
    } = &plan.from
    {
        use uuidkit_lease::postgres::PgConfig;
        let timing = uuidkit_lease::Timing {
            margin: times.margin,
            ..uuidkit_lease::Timing::for_ttl(times.ttl)
        };
        #[cfg(feature = "postgres-tls")]
        let tls = match tls_config(tls.as_deref()) {
            Ok(tls) => tls,
            Err(e) => return Some(Err(e)),
        };
        #[cfg(not(feature = "postgres-tls"))]
        let _ = tls;
        let defaults = PgConfig::new(connect.clone(), plan.bits).with_timing(timing);
        let config = PgConfig {
            table: table.clone().unwrap_or(defaults.table.clone()),
            #[cfg(feature = "postgres-tls")]
            tls,
            ..defaults
        };
        return Some(Ok(Box::new(config)));
    }
    let _ = plan;
    None
}

/// A ZooKeeper lease: an ephemeral node of a session whose timeout is the TTL.
#[cfg(unix)]
fn zookeeper(plan: &LeasePlan) -> Option<Made> {
    #[cfg(feature = "zookeeper")]
    if let LeaseFrom::ZooKeeper {
        hosts,
        prefix,
        times,
    } = &plan.from
    {
        use uuidkit_lease::zookeeper::ZkConfig;
        let timing = uuidkit_lease::Timing {
            margin: times.margin,
            ..uuidkit_lease::Timing::for_ttl(times.ttl)
        };
        let config = ZkConfig::new(hosts.clone(), prefix, plan.bits).with_timing(timing);
        return Some(Ok(Box::new(config)));
    }
    let _ = plan;
    None
}

/// The certificates `--tls-ca`, `--tls-cert` and `--tls-key` name, read.
#[cfg(any(feature = "etcd-tls", feature = "postgres-tls"))]
fn tls_config(
    files: Option<&crate::flags::TlsFiles>,
) -> Result<Option<uuidkit_lease::Tls>, LeaseError> {
    files
        .map(|t| {
            let identity = t.identity.as_ref().map(|(c, k)| (c.as_path(), k.as_path()));
            uuidkit_lease::Tls::from_files(&t.ca, identity)
        })
        .transpose()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flags::{LeaseFrom, Times, TlsFiles};
    use std::time::Duration;

    /// `plan`'s row as a build with or without its features would have it.
    fn row(plan: &LeasePlan, built: bool, tls_built: bool) -> Backend {
        let b = *backend(plan);
        Backend {
            feature: b.feature.map(|(f, _)| (f, built)),
            tls_feature: b.tls_feature.map(|(f, _)| (f, tls_built)),
            ..b
        }
    }

    #[test]
    fn a_backend_not_built_in_names_the_feature_to_build_with() {
        let times = Times {
            ttl: Duration::from_secs(10),
            margin: Duration::ZERO,
        };
        let tls = || {
            Some(Box::new(TlsFiles {
                ca: "ca.crt".into(),
                identity: None,
            }))
        };
        let plan = |from| LeasePlan { bits: 8, from };
        let etcd = |tls| {
            plan(LeaseFrom::Etcd {
                endpoints: vec!["h:1".into()],
                prefix: "/p".into(),
                times,
                user: None,
                tls,
            })
        };
        let pg = |tls| {
            plan(LeaseFrom::Postgres {
                connect: "postgres://h/db".into(),
                table: None,
                times,
                tls,
            })
        };
        let e = check(&etcd(None), &row(&etcd(None), false, false)).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert_eq!(
            e.to_string(),
            "--node-from etcd://…: this uuidkit was built without the etcd lease; build it with \
             the Cargo feature `etcd` (cargo install uuidkit-cli --features etcd)"
        );
        let e = check(&pg(None), &row(&pg(None), false, false)).unwrap_err();
        assert!(e.to_string().contains("--features postgres"), "{e}");
        for p in [etcd(None), pg(None), etcd(tls()), pg(tls())] {
            assert!(check(&p, &row(&p, true, true)).is_ok(), "{p:?}");
        }
        let e = check(&etcd(tls()), &row(&etcd(None), true, false)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "--node-from etcd://… with --tls-ca: this uuidkit was built without the etcd-tls lease; \
             build it with the Cargo feature `etcd-tls` (cargo install uuidkit-cli --features \
             etcd-tls)"
        );
        let e = check(&pg(tls()), &row(&pg(None), true, false)).unwrap_err();
        assert!(e.to_string().contains("--features postgres-tls"), "{e}");
        let zk = plan(LeaseFrom::ZooKeeper {
            hosts: vec!["h:1".into()],
            prefix: "/p".into(),
            times,
        });
        let e = check(&zk, &row(&zk, false, false)).unwrap_err();
        assert!(e.to_string().contains("--features zookeeper"), "{e}");
        assert!(check(&zk, &row(&zk, true, false)).is_ok());
        // The site lease needs no feature of its own.
        let site = plan(LeaseFrom::Site {
            control: "/c".into(),
            domain: uuidkit_lease::site::DEFAULT_NODE_DOMAIN,
            max_clock_offset: None,
        });
        assert!(check(&site, &row(&site, false, false)).is_ok());
        // Every row is found by its own plans only.
        for p in [etcd(None), pg(None), zk, site] {
            assert_eq!(BACKENDS.iter().filter(|b| (b.of)(&p)).count(), 1, "{p:?}");
        }
    }
}
