//! Validated arguments: which flags apply to which kind, and the uuidgen/python
//! shorthands mapped onto `new`. Every rejection is a usage error (exit 2) that
//! names the flag and says where it applies.

use std::path::PathBuf;

use uuidkit::Uuid;

use super::{
    CheckArgs, Cli, Command, Compat, ConvertArgs, Format, HashArg, InspectArgs, Kind, MethodArg,
    NewArgs, NodeArg, NodeBits, PyKind, RangeArgs,
};
use crate::error::Error;
use crate::time::Nanos;

/// One mode of operation, ready to run.
#[derive(Debug)]
pub enum Mode {
    /// Generate UUIDs.
    New(NewPlan),
    /// Describe UUIDs.
    Inspect(InspectArgs),
    /// Validate UUIDs.
    Check(CheckArgs),
    /// Convert UUIDs.
    Convert(ConvertArgs),
    /// v7 bounds for a time range.
    Range(RangeArgs),
    /// A completion script.
    Completions(clap_complete::Shell),
    /// The man page of uuidkit or of a subcommand.
    Man(Option<String>),
}

/// Which node v1/v6 use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeChoice {
    /// The generator's default (random with the multicast bit, RFC 9562 §6.10).
    Default,
    /// Explicitly random.
    Random,
    /// A caller-given MAC.
    Mac([u8; 6]),
}

/// Where a `--site-node` run claims its node (docs/uiap-design.md D49, D50).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SitePlan {
    /// uiapd's control socket.
    pub control: PathBuf,
    /// The node-ID domain.
    pub domain: uiap::space::DomainId,
    /// The node's width: 48 for v1/v6, `--node-bits` for v8.
    pub bits: u8,
}

/// A validated `new`.
#[derive(Debug, Clone)]
pub struct NewPlan {
    /// Kind of UUID.
    pub kind: Kind,
    /// How many.
    pub count: u64,
    /// Text form.
    pub format: Format,
    /// Uppercase hex.
    pub upper: bool,
    /// The TypeID prefix (`-f typeid`; empty if none).
    pub prefix: String,
    /// Namespace and name, for name-based kinds (v3, v5, name-based v8).
    pub name: Option<(Uuid, Vec<u8>)>,
    /// Hash for name-based v8.
    pub hash: HashArg,
    /// Fixed generation time.
    pub at: Option<Nanos>,
    /// v1/v6 clock sequence.
    pub clock_seq: Option<u16>,
    /// v1/v6 node.
    pub node: NodeChoice,
    /// v7 method.
    pub method: Option<MethodArg>,
    /// Shared state file.
    pub state: Option<PathBuf>,
    /// `--strict`: state unavailable is an error.
    pub strict: bool,
    /// `--lock-timeout` in milliseconds.
    pub lock_timeout_ms: Option<u64>,
    /// A site lease for the node (`--site-node`).
    pub site: Option<SitePlan>,
}

impl Mode {
    /// Validates the parsed command line.
    pub fn from_cli(cli: Cli) -> Result<Mode, Error> {
        Ok(match cli.command {
            Some(Command::New(args)) => Mode::New(NewPlan::from_new(args)?),
            Some(Command::Inspect(a)) => Mode::Inspect(a),
            Some(Command::Check(a)) => Mode::Check(a),
            Some(Command::Convert(a)) => Mode::Convert(a),
            Some(Command::Range(a)) => Mode::Range(a),
            Some(Command::Completions(a)) => Mode::Completions(a.shell),
            Some(Command::Man(a)) => Mode::Man(a.command),
            None => Mode::New(NewPlan::from_compat(cli.compat)?),
        })
    }
}

fn usage(msg: impl Into<String>) -> Error {
    Error::Usage(msg.into())
}

impl NewPlan {
    fn from_new(a: NewArgs) -> Result<NewPlan, Error> {
        let name = match (&a.name, &a.name_hex, &a.name_file) {
            (Some(n), _, _) => Some(n.as_encoded_bytes().to_vec()),
            (None, Some(h), _) => Some(h.0.clone()),
            (None, None, Some(path)) => Some(read_name_file(path)?),
            (None, None, None) => None,
        };
        let k = a.kind;
        let name_based = matches!(k, Kind::V3 | Kind::V5)
            || (k == Kind::V8 && (name.is_some() || a.namespace.is_some() || a.hash.is_some()));
        let time_based =
            matches!(k, Kind::V1 | Kind::V6 | Kind::V7) || (k == Kind::V8 && !name_based);
        let kname = kind_name(k);

        let reject = |flag: &str, present: bool, applies: &str| -> Result<(), Error> {
            if present {
                Err(usage(format!(
                    "{flag} does not apply to {kname}: it applies to {applies}"
                )))
            } else {
                Ok(())
            }
        };
        if !name_based {
            let why = "v3, v5 and v8 (name-based)";
            reject("--namespace", a.namespace.is_some(), why)?;
            reject("--name", a.name.is_some(), why)?;
            reject("--name-hex", a.name_hex.is_some(), why)?;
            reject("--name-file", a.name_file.is_some(), why)?;
        }
        reject(
            "--hash",
            a.hash.is_some() && k != Kind::V8,
            "v8 (name-based)",
        )?;
        if !time_based {
            reject("--at", a.at.is_some(), "v1, v6, v7 and v8 (time-based)")?;
            reject("--state", a.state.is_some(), "v1, v6 and v7")?;
        }
        let gregorian = matches!(k, Kind::V1 | Kind::V6);
        reject(
            "--clock-seq",
            a.clock_seq.is_some() && !gregorian,
            "v1 and v6",
        )?;
        reject("--node", a.node.is_some() && !gregorian, "v1 and v6")?;
        reject("--method", a.method.is_some() && k != Kind::V7, "v7")?;
        reject(
            "--state",
            a.state.is_some() && k == Kind::V8,
            "v1, v6 and v7",
        )?;
        if a.state.is_some() && a.at.is_some() {
            return Err(usage(
                "--at and --state cannot be combined: a fixed time does not advance shared state",
            ));
        }
        let site = site_plan(&a, gregorian, time_based)?;

        let name = if name_based {
            let Some(ns) = a.namespace else {
                return Err(usage(format!(
                    "{kname} is name-based: it needs --namespace (dns, url, oid, x500 or a UUID)"
                )));
            };
            let Some(name) = name else {
                return Err(usage(format!(
                    "{kname} is name-based: it needs --name TEXT, --name-hex HEX or --name-file FILE"
                )));
            };
            Some((ns.0, name))
        } else {
            None
        };
        if let Some(t) = a.at {
            check_time_range(k, t.0)?;
        }
        Ok(NewPlan {
            kind: k,
            count: a.count.0,
            format: a.format,
            upper: a.upper,
            prefix: crate::text::prefix_for(a.format, a.prefix.as_ref())?,
            name,
            hash: a.hash.unwrap_or(HashArg::Sha256),
            at: a.at.map(|t| t.0),
            clock_seq: a.clock_seq.map(|c| c.0),
            node: match a.node {
                None => NodeChoice::Default,
                Some(NodeArg::Random) => NodeChoice::Random,
                Some(NodeArg::Mac(m)) => NodeChoice::Mac(m.0),
            },
            method: a.method,
            state: a.state,
            strict: a.strict,
            lock_timeout_ms: a.lock_timeout,
            site,
        })
    }

    /// `uuidkit [-r|-t|-6|-7|-m|-s|-u KIND] [-n NS -N NAME [-x]] [-C N]`.
    fn from_compat(c: Compat) -> Result<NewPlan, Error> {
        let k = &c.kind;
        let kind = if k.random {
            Kind::V4
        } else if k.time {
            Kind::V1
        } else if k.time_v6 {
            Kind::V6
        } else if k.time_v7 {
            Kind::V7
        } else if k.md5 {
            Kind::V3
        } else if k.sha1 {
            Kind::V5
        } else {
            match k.uuid {
                Some(PyKind::Uuid1) => Kind::V1,
                Some(PyKind::Uuid3) => Kind::V3,
                Some(PyKind::Uuid4) | None => Kind::V4,
                Some(PyKind::Uuid5) => Kind::V5,
                Some(PyKind::Uuid6) => Kind::V6,
                Some(PyKind::Uuid7) => Kind::V7,
                Some(PyKind::Uuid8) => Kind::V8,
            }
        };
        let name_based = matches!(kind, Kind::V3 | Kind::V5)
            || (kind == Kind::V8 && (c.namespace.is_some() || c.name.is_some()));
        if !name_based && (c.namespace.is_some() || c.name.is_some() || c.hex) {
            return Err(usage(
                "-n/--namespace, -N/--name and -x/--hex need a name-based kind: \
                 -m (v3), -s (v5) or -u uuid3|uuid5|uuid8",
            ));
        }
        let name = match (&c.name, c.hex) {
            (Some(n), true) => {
                let n = n.to_string_lossy();
                Some(
                    n.parse::<super::HexBytes>()
                        .map_err(|e| usage(format!("invalid value '{n}' for -N with -x: {e}")))?
                        .0,
                )
            }
            (Some(n), false) => Some(n.as_encoded_bytes().to_vec()),
            (None, _) => None,
        };
        let name = if name_based {
            match (c.namespace, name) {
                (Some(ns), Some(name)) => Some((ns.0, name)),
                _ => {
                    return Err(usage(format!(
                        "{} is name-based: it needs -n NAMESPACE and -N NAME",
                        kind_name(kind)
                    )));
                }
            }
        } else {
            None
        };
        Ok(NewPlan {
            kind,
            count: c.count.map_or(1, |n| n.0),
            format: Format::Canonical,
            upper: false,
            prefix: String::new(),
            name,
            hash: HashArg::Sha256,
            at: None,
            clock_seq: None,
            node: NodeChoice::Default,
            method: None,
            state: None,
            strict: false,
            lock_timeout_ms: None,
            site: None,
        })
    }
}

/// `--site-node` and its settings: v1 and v6 (a 48-bit node) and time-based v8 (a
/// `--node-bits` node in the §6.4 distributed layout); not with a fixed time or a given node.
fn site_plan(a: &NewArgs, gregorian: bool, time_based: bool) -> Result<Option<SitePlan>, Error> {
    let kname = kind_name(a.kind);
    let v8 = a.kind == Kind::V8 && time_based;
    if !a.site_node {
        for (flag, given) in [
            ("--uiap-control", a.uiap_control.is_some()),
            ("--node-domain", a.node_domain.is_some()),
            ("--node-bits", a.node_bits.is_some()),
        ] {
            if given {
                return Err(usage(format!("{flag} applies only with --site-node")));
            }
        }
        return Ok(None);
    }
    if !gregorian && !v8 {
        return Err(usage(format!(
            "--site-node does not apply to {kname}: it applies to v1, v6 and v8 (time-based)"
        )));
    }
    if a.node_bits.is_some() && !v8 {
        return Err(usage(format!(
            "--node-bits does not apply to {kname}: it applies to v8 (a v1/v6 node is 48 bits)"
        )));
    }
    if a.node.is_some() {
        return Err(usage(
            "--node and --site-node cannot be combined: the site lease gives the node",
        ));
    }
    if a.at.is_some() {
        return Err(usage(
            "--at and --site-node cannot be combined: a site node is held for UUIDs made now",
        ));
    }
    Ok(Some(SitePlan {
        control: a
            .uiap_control
            .clone()
            .unwrap_or_else(|| uuidkit_lease::site::DEFAULT_CONTROL.into()),
        domain: a
            .node_domain
            .map_or(uuidkit_lease::site::DEFAULT_NODE_DOMAIN, |d| d.0),
        bits: if v8 {
            a.node_bits.unwrap_or(NodeBits::DEFAULT).0
        } else {
            48
        },
    }))
}

/// The bytes of `--name-file PATH` (`-`: all of standard input), as they are.
fn read_name_file(path: &std::path::Path) -> Result<Vec<u8>, Error> {
    let read = if path.as_os_str() == "-" {
        let mut v = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin().lock(), &mut v).map(|_| v)
    } else {
        std::fs::read(path)
    };
    read.map_err(|e| {
        Error::Failed(format!(
            "--name-file {}: cannot read it: {e}",
            path.display()
        ))
    })
}

fn check_time_range(kind: Kind, t: Nanos) -> Result<(), Error> {
    let r = match kind {
        Kind::V1 | Kind::V6 => crate::time::to_ts60(t).map(drop),
        Kind::V7 => crate::time::to_unix_ms(t, false).map(drop),
        Kind::V8 => crate::time::to_v8_10ns(t).map(drop),
        _ => Ok(()),
    };
    r.map_err(|e| usage(format!("invalid value for --at: {e}")))
}

/// `v4`, `nil`… as users type them.
pub fn kind_name(k: Kind) -> &'static str {
    match k {
        Kind::V1 => "v1",
        Kind::V3 => "v3",
        Kind::V4 => "v4",
        Kind::V5 => "v5",
        Kind::V6 => "v6",
        Kind::V7 => "v7",
        Kind::V8 => "v8",
        Kind::Nil => "nil",
        Kind::Max => "max",
    }
}

#[cfg(test)]
mod tests {
    use super::super::parse_from;
    use super::*;

    fn plan(args: &[&str]) -> Result<NewPlan, Error> {
        let mut v = vec!["uuidkit"];
        v.extend_from_slice(args);
        match Mode::from_cli(parse_from(v).unwrap())? {
            Mode::New(p) => Ok(p),
            m => panic!("not new: {m:?}"),
        }
    }

    #[test]
    fn no_arguments_is_one_v4() {
        let p = plan(&[]).unwrap();
        assert_eq!((p.kind, p.count), (Kind::V4, 1));
    }

    #[test]
    fn uuidgen_and_python_forms() {
        let p = plan(&["-s", "-n", "@dns", "-N", "www.example.com"]).unwrap();
        assert_eq!(p.kind, Kind::V5);
        assert_eq!(p.name.unwrap().1, b"www.example.com");
        let p = plan(&["-u", "uuid3", "-n", "@url", "-N", "x", "-C", "2"]).unwrap();
        assert_eq!((p.kind, p.count), (Kind::V3, 2));
        let p = plan(&["-m", "-n", "dns", "-N", "00ff", "-x"]).unwrap();
        assert_eq!(p.name.unwrap().1, vec![0, 0xff]);
        assert_eq!(plan(&["-t"]).unwrap().kind, Kind::V1);
        assert_eq!(plan(&["-u", "uuid7"]).unwrap().kind, Kind::V7);
    }

    #[test]
    fn misplaced_flags_are_usage_errors() {
        let e = plan(&["new", "v4", "--name", "x"]).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert!(e.to_string().contains("--name does not apply to v4"), "{e}");
        let e = plan(&["new", "v5", "--name", "x"]).unwrap_err();
        assert!(e.to_string().contains("needs --namespace"), "{e}");
        let e = plan(&["new", "v7", "--node", "random"]).unwrap_err();
        assert!(e.to_string().contains("applies to v1 and v6"), "{e}");
        let e = plan(&["-n", "@dns", "-N", "x"]).unwrap_err();
        assert!(e.to_string().contains("need a name-based kind"), "{e}");
        let e = plan(&["-s", "-n", "@dns"]).unwrap_err();
        assert!(
            e.to_string().contains("needs -n NAMESPACE and -N NAME"),
            "{e}"
        );
        let e = plan(&["new", "v7", "--at", "1969-12-31T23:59:59Z"]).unwrap_err();
        assert!(e.to_string().contains("out of range for v7"), "{e}");
    }

    #[test]
    fn site_node_applies_to_v1_v6_and_time_based_v8() {
        let p = plan(&["new", "v6", "--site-node"]).unwrap();
        let site = p.site.unwrap();
        assert_eq!(site.bits, 48);
        assert_eq!(site.domain, uuidkit_lease::site::DEFAULT_NODE_DOMAIN);
        assert_eq!(site.control, PathBuf::from("/run/uiapd/control.sock"));
        let p = plan(&[
            "new",
            "v8",
            "--site-node",
            "--node-bits",
            "12",
            "--uiap-control",
            "/tmp/c.sock",
            "--node-domain",
            "ffe:1:2:3",
        ])
        .unwrap();
        let site = p.site.unwrap();
        assert_eq!(
            (site.bits, site.control),
            (12, PathBuf::from("/tmp/c.sock"))
        );
        assert_eq!(site.domain.to_string(), "ffe:1:2:3");
        assert_eq!(
            plan(&["new", "v8", "--site-node"])
                .unwrap()
                .site
                .unwrap()
                .bits,
            16
        );
        assert!(plan(&["new", "v1"]).unwrap().site.is_none());
        let cases: [(&[&str], &str); 7] = [
            (
                &["new", "v7", "--site-node"],
                "--site-node does not apply to v7",
            ),
            (
                &["new", "v4", "--site-node"],
                "--site-node does not apply to v4",
            ),
            (
                &["new", "v6", "--site-node", "--node-bits", "8"],
                "--node-bits does not apply to v6",
            ),
            (
                &["new", "v8", "--node-bits", "8"],
                "--node-bits applies only with --site-node",
            ),
            (
                &["new", "v1", "--uiap-control", "/x"],
                "--uiap-control applies only with --site-node",
            ),
            (
                &["new", "v1", "--site-node", "--node", "random"],
                "--node and --site-node cannot",
            ),
            (
                &["new", "v1", "--site-node", "--at", "@0"],
                "--at and --site-node cannot",
            ),
        ];
        for (args, want) in cases {
            let e = plan(args).unwrap_err();
            assert_eq!(e.exit_code(), 2, "{args:?}");
            assert!(e.to_string().contains(want), "{args:?}: {e}");
        }
        let e = plan(&[
            "new",
            "v8",
            "--namespace",
            "dns",
            "--name",
            "a",
            "--site-node",
        ])
        .unwrap_err();
        assert!(
            e.to_string().contains("--site-node does not apply to v8"),
            "{e}"
        );
    }

    #[test]
    fn v8_is_name_based_when_named() {
        let p = plan(&["new", "v8", "--namespace", "dns", "--name", "a"]).unwrap();
        assert!(p.name.is_some());
        let p = plan(&["new", "v8"]).unwrap();
        assert!(p.name.is_none());
        let e = plan(&["new", "v8", "--hash", "sha512"]).unwrap_err();
        assert!(e.to_string().contains("needs --namespace"), "{e}");
    }
}
