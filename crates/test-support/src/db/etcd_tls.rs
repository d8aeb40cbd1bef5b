//! Certificates for a server held to TLS ([`EtcdCluster::start_tls`], [`Postgres::start_tls`]), made with the
//! `openssl` command: a CA of its own, a server certificate for 127.0.0.1, and a client
//! certificate the members accept. P-256 keys, valid for two days.
//!
//! [`EtcdCluster::start_tls`]: super::EtcdCluster::start_tls
//! [`Postgres::start_tls`]: super::Postgres::start_tls

use std::path::{Path, PathBuf};
use std::process::Command;

use super::process::run;

/// The PEM files of a cluster held to TLS (see the [module docs](self)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsFiles {
    /// The CA certificate that signed the members' and the client's.
    pub ca: PathBuf,
    /// A client certificate the members accept.
    pub client_cert: PathBuf,
    /// Its key.
    pub client_key: PathBuf,
}

impl TlsFiles {
    pub(crate) fn in_dir(dir: &Path) -> TlsFiles {
        TlsFiles {
            ca: dir.join("ca.crt"),
            client_cert: dir.join("client.crt"),
            client_key: dir.join("client.key"),
        }
    }
}

/// Makes `ca.crt`/`ca.key`, `server.crt`/`server.key` (for IP 127.0.0.1) and
/// `client.crt`/`client.key` in `dir`.
pub(crate) fn make(dir: &Path) -> Result<(), String> {
    let openssl = |args: &[&str]| {
        run(
            "openssl",
            Command::new("openssl").current_dir(dir).args(args),
        )
        .map(drop)
    };
    let key = [
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:P-256",
        "-nodes",
    ];
    openssl(
        &[
            &["req", "-x509"],
            &key[..],
            &["-keyout", "ca.key", "-out", "ca.crt"],
        ]
        .concat()
        .iter()
        .chain(&["-days", "2", "-subj", "/CN=uuidkit test CA"])
        .copied()
        .collect::<Vec<_>>(),
    )?;
    for (name, usage) in [
        (
            "server",
            "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth\n",
        ),
        ("client", "extendedKeyUsage=clientAuth\n"),
    ] {
        let ext = format!("{name}.ext");
        std::fs::write(dir.join(&ext), usage).map_err(|e| format!("{ext}: {e}"))?;
        let (csr, crt, k) = (
            format!("{name}.csr"),
            format!("{name}.crt"),
            format!("{name}.key"),
        );
        let subject = format!("/CN=uuidkit test {name}");
        let mut req = vec!["req"];
        req.extend_from_slice(&key);
        req.extend_from_slice(&["-keyout", &k, "-out", &csr, "-subj", &subject]);
        openssl(&req)?;
        openssl(&[
            "x509",
            "-req",
            "-in",
            &csr,
            "-CA",
            "ca.crt",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-out",
            &crt,
            "-days",
            "2",
            "-extfile",
            &ext,
        ])?;
    }
    Ok(())
}
