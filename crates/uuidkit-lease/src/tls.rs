//! TLS to a registry: the certificates an etcd lease (feature `etcd-tls`) or a PostgreSQL
//! lease (feature `postgres-tls`) connects with. Both use rustls with ring; the registry's
//! certificate is always checked, against the CA given here and the host the lease connects to.

use std::path::Path;

use crate::{LeaseError, LeaseErrorKind};

/// TLS to a registry ([`EtcdConfig::tls`](crate::etcd::EtcdConfig), feature `etcd-tls`;
/// [`PgConfig::tls`](crate::postgres::PgConfig), feature `postgres-tls`): the CA certificate
/// the registry's certificate is checked with and, for a registry that checks its clients
/// (etcd's `--client-cert-auth`, PostgreSQL's `hostssl … cert`), the client's certificate and
/// key, all PEM. Its `Debug` leaves the key out.
///
/// ```
/// use uuidkit_lease::Tls;
///
/// let tls = Tls::new(b"-----BEGIN CERTIFICATE-----\n...".to_vec())
///     .with_identity(b"cert".to_vec(), b"secret key".to_vec())
///     .with_domain("etcd.internal");
/// assert!(!format!("{tls:?}").contains("secret key"));
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Tls {
    pub(crate) ca: Vec<u8>,
    pub(crate) identity: Option<(Vec<u8>, Vec<u8>)>,
    pub(crate) domain: Option<String>,
}

impl Tls {
    /// A registry checked against the CA certificate `ca_pem`.
    ///
    /// ```
    /// # use uuidkit_lease::Tls;
    /// let _ = Tls::new(std::fs::read("ca.crt").unwrap_or_default());
    /// ```
    pub fn new(ca_pem: Vec<u8>) -> Tls {
        Tls {
            ca: ca_pem,
            identity: None,
            domain: None,
        }
    }

    /// The client's certificate and key (PEM), for a registry that checks its clients.
    ///
    /// ```
    /// # use uuidkit_lease::Tls;
    /// let tls = Tls::new(vec![]).with_identity(b"c".to_vec(), b"k".to_vec());
    /// assert!(format!("{tls:?}").contains("identity: true"));
    /// ```
    #[must_use]
    pub fn with_identity(mut self, cert_pem: Vec<u8>, key_pem: Vec<u8>) -> Tls {
        self.identity = Some((cert_pem, key_pem));
        self
    }

    /// The name etcd members' certificates must carry, when it is not the endpoints' host.
    /// PostgreSQL has its own way to say it: the connection string's `host` names the
    /// certificate and `hostaddr` the address, as for libpq; a PostgreSQL lease with a domain
    /// set here is refused.
    ///
    /// ```
    /// # use uuidkit_lease::Tls;
    /// let tls = Tls::new(vec![]).with_domain("etcd.internal");
    /// assert!(format!("{tls:?}").contains("etcd.internal"));
    /// ```
    #[must_use]
    pub fn with_domain(mut self, name: impl Into<String>) -> Tls {
        self.domain = Some(name.into());
        self
    }

    /// The CA certificate, and the client's certificate and key if given, read from PEM files.
    ///
    /// # Errors
    ///
    /// [`LeaseErrorKind::Config`] naming the file that cannot be read, and why.
    ///
    /// ```
    /// use std::path::Path;
    /// use uuidkit_lease::Tls;
    ///
    /// let err = Tls::from_files(Path::new("/nonexistent/ca.crt"), None).unwrap_err();
    /// assert!(err.to_string().starts_with("TLS: cannot read /nonexistent/ca.crt: "));
    /// ```
    pub fn from_files(ca: &Path, identity: Option<(&Path, &Path)>) -> Result<Tls, LeaseError> {
        let read = |p: &Path| {
            std::fs::read(p).map_err(|e| {
                LeaseError::new(
                    LeaseErrorKind::Config,
                    format!("TLS: cannot read {}: {e}", p.display()),
                )
            })
        };
        let mut tls = Tls::new(read(ca)?);
        if let Some((cert, key)) = identity {
            tls = tls.with_identity(read(cert)?, read(key)?);
        }
        Ok(tls)
    }
}

impl std::fmt::Debug for Tls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tls")
            .field("ca", &format_args!("{} bytes", self.ca.len()))
            .field("identity", &self.identity.is_some())
            .field("domain", &self.domain)
            .finish()
    }
}
