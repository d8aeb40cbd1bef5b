//! `new snowflake` and `inspect --layout`: 64-bit IDs, validated into their own plans (the UUID
//! flags do not apply to them, and the UUID plans know nothing of layouts).

use std::ffi::OsString;
use std::path::PathBuf;
use std::str::FromStr;

use uuidkit::snowflake::Layout;

use super::{Format, InspectArgs, LeasePlan, NewArgs, NodeArg};
use crate::error::Error;

/// A `--layout` value: a preset name or a descriptor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LayoutArg(pub Layout);

impl FromStr for LayoutArg {
    type Err = String;
    fn from_str(s: &str) -> Result<LayoutArg, String> {
        s.parse::<Layout>().map(LayoutArg).map_err(|e| {
            if e.to_string().contains("a preset name") {
                format!(
                    "expected twitter, discord, instagram, sonyflake, tsid or a custom split \
                     tT.wW.sS.eEPOCH_MS.uUNIT (t41.w10.s12.e1288834974657.u1ms), found '{s}'"
                )
            } else {
                // A well-formed split that is not a layout: say why, in the library's words.
                format!(
                    "{}, in '{s}'",
                    e.to_string().replace("invalid generator config: ", "")
                )
            }
        })
    }
}

/// Where a snowflake run's worker comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WorkerFrom {
    /// `--node N`.
    Fixed(u64),
    /// `--node random`: drawn once, as wide as the layout's worker field.
    Random,
    /// `--node-from` or `--site-node`: a lease of the layout's width, held for the run.
    Lease(LeasePlan),
}

/// A validated `new snowflake`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnowflakePlan {
    /// The layout.
    pub layout: Layout,
    /// How many IDs.
    pub count: u64,
    /// The worker.
    pub worker: WorkerFrom,
    /// The state file, if any.
    pub state: Option<PathBuf>,
    /// `--new-state`: an empty state file is first use.
    pub new_state: bool,
    /// `--lock-timeout` in milliseconds.
    pub lock_timeout_ms: Option<u64>,
}

/// A validated `inspect --layout`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InspectSnowflakePlan {
    /// The layout the IDs are read in.
    pub layout: Layout,
    /// `--json`.
    pub json: bool,
    /// The IDs given as arguments (none: stdin).
    pub ids: Vec<OsString>,
}

fn usage(msg: impl Into<String>) -> Error {
    Error::Usage(msg.into())
}

impl SnowflakePlan {
    /// Validates `new snowflake`: the flags of the UUID kinds do not apply.
    pub fn from_new(a: &NewArgs) -> Result<SnowflakePlan, Error> {
        let Some(LayoutArg(layout)) = a.layout else {
            return Err(usage(
                "snowflake needs --layout: twitter, discord, instagram, sonyflake, tsid or \
                 tT.wW.sS.eEPOCH_MS.uUNIT",
            ));
        };
        for (flag, given) in [
            ("-f/--format", a.format != Format::Canonical),
            ("-U/--upper", a.upper),
            ("--prefix", a.prefix.is_some()),
            ("--namespace", a.namespace.is_some()),
            ("--name", a.name.is_some()),
            ("--name-file", a.name_file.is_some()),
            ("--name-hex", a.name_hex.is_some()),
            ("--hash", a.hash.is_some()),
            ("--at", a.at.is_some()),
            ("--clock-seq", a.clock_seq.is_some()),
            ("--method", a.method.is_some()),
            ("--strict", a.strict),
        ] {
            if given {
                let why = if flag == "--strict" {
                    " (a snowflake run is always strict: an ID has no random bits to fall back on)"
                } else {
                    ""
                };
                return Err(usage(format!("{flag} does not apply to snowflake{why}")));
            }
        }
        if a.node_bits.is_some() {
            return Err(usage(format!(
                "--node-bits does not apply to snowflake: the layout's worker field is {} bits",
                layout.worker_bits()
            )));
        }
        let lease = super::lease::lease_plan(a, "snowflake", true, false)?;
        let worker = match (lease, a.node) {
            (Some(lease), _) => WorkerFrom::Lease(LeasePlan {
                bits: layout.worker_bits(),
                ..lease
            }),
            (None, Some(NodeArg::Number(n))) if n <= layout.max_worker() => WorkerFrom::Fixed(n),
            (None, Some(NodeArg::Number(n))) => {
                return Err(usage(format!(
                    "invalid value for --node: expected a worker ID of the {layout} layout, 0 to \
                     {} ({} bits), found {n}",
                    layout.max_worker(),
                    layout.worker_bits()
                )));
            }
            (None, Some(NodeArg::Mac(_))) => {
                return Err(usage(
                    "invalid value for --node: expected a worker ID (a number, or hex after 0x), \
                     found a MAC address",
                ));
            }
            (None, Some(NodeArg::Random)) => WorkerFrom::Random,
            (None, None) => {
                return Err(usage(
                    "snowflake needs a worker: --node N, or --node-from SOURCE (a lease that \
                     keeps it unique), or --node random",
                ));
            }
        };
        Ok(SnowflakePlan {
            layout,
            count: a.count.0,
            worker,
            state: a.state.clone(),
            new_state: a.new_state,
            lock_timeout_ms: a.lock_timeout,
        })
    }
}

impl InspectSnowflakePlan {
    /// `inspect --layout L [--json] [ID…]`.
    pub fn from_args(a: InspectArgs) -> Option<InspectSnowflakePlan> {
        let LayoutArg(layout) = a.layout?;
        Some(InspectSnowflakePlan {
            layout,
            json: a.json,
            ids: a.uuids,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Mode, parse_from};
    use super::*;

    fn plan(args: &[&str]) -> Result<SnowflakePlan, Error> {
        let mut v = vec!["uuidkit", "new", "snowflake"];
        v.extend_from_slice(args);
        match Mode::from_cli(parse_from(v).map_err(|e| usage(e.to_string()))?)? {
            Mode::Snowflake(p) => Ok(p),
            m => panic!("not snowflake: {m:?}"),
        }
    }

    #[test]
    fn a_plan_has_a_layout_and_a_worker() {
        let p = plan(&["--layout", "twitter", "--node", "37", "-n", "5"]).unwrap();
        assert_eq!(
            (p.layout, p.worker, p.count),
            (Layout::TWITTER, WorkerFrom::Fixed(37), 5)
        );
        let p = plan(&["--layout", "sonyflake", "--node", "0xBEEF"]).unwrap();
        assert_eq!(p.worker, WorkerFrom::Fixed(0xBEEF));
        let p = plan(&["--layout", "tsid", "--node", "random"]).unwrap();
        assert_eq!(p.worker, WorkerFrom::Random);
        let p = plan(&[
            "--layout",
            "discord",
            "--node-from",
            "etcd://127.0.0.1:2379/ids/sf",
        ])
        .unwrap();
        assert!(
            matches!(p.worker, WorkerFrom::Lease(LeasePlan { bits: 10, .. })),
            "{p:?}"
        );
    }

    #[test]
    fn what_does_not_apply_is_a_usage_error_naming_it() {
        let cases: &[(&[&str], &str)] = &[
            (&["--node", "1"], "snowflake needs --layout"),
            (&["--layout", "twitter"], "snowflake needs a worker"),
            (
                &["--layout", "twitter", "--node", "1024"],
                "0 to 1023 (10 bits), found 1024",
            ),
            (
                &["--layout", "twitter", "--node", "9f:6b:de:ce:d8:46"],
                "found a MAC address",
            ),
            (
                &["--layout", "twitter", "--node", "1", "-f", "simple"],
                "-f/--format does not apply",
            ),
            (
                &["--layout", "twitter", "--node", "1", "--at", "@5"],
                "--at does not apply",
            ),
            (
                &[
                    "--layout",
                    "twitter",
                    "--node-bits",
                    "12",
                    "--node-from",
                    "uiap",
                ],
                "10 bits",
            ),
            (
                &["--layout", "twitter", "--node", "1", "--node-from", "uiap"],
                "--node and --node-from cannot be combined",
            ),
        ];
        for (args, want) in cases {
            let e = plan(args).unwrap_err();
            assert_eq!(e.exit_code(), 2, "{args:?}");
            assert!(e.to_string().contains(want), "{args:?}: {e}");
        }
    }

    #[test]
    fn a_bad_layout_says_what_a_layout_is() {
        let e = "flickr".parse::<LayoutArg>().unwrap_err();
        assert!(e.starts_with("expected twitter, discord"), "{e}");
        let e = "t41.w10.s14.e0.u1ms".parse::<LayoutArg>().unwrap_err();
        assert_eq!(
            e,
            "expected time + worker + sequence bits adding up to 63 or 64, found 65, in \
             't41.w10.s14.e0.u1ms'"
        );
    }
}
