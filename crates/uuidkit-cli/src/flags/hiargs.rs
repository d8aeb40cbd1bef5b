//! Validated arguments: one plan per mode, the only place flags are checked
//! against each other and turned into what the commands run with (the
//! commands under `cmd/` check nothing the command line says). Which flags
//! apply to which kind, the uuidgen/python shorthands mapped onto `new`, the
//! forms of `convert`, the bounds of `range`. Every rejection is a usage
//! error (exit 2) that names the flag and says where it applies.

use std::ffi::OsString;
use std::path::PathBuf;

use uuidkit::Uuid;

use super::{
    Cli, Column, Command, Compat, ConvertArgs, ConvertTarget, ConvertTo, Format, HashArg,
    InspectArgs, Kind, MethodArg, NewArgs, NodeArg, Prefix, PyKind, RangeArgs, Sorted, SqlColumn,
    TYPEID,
};
use crate::error::Error;
use crate::time::{self, Nanos};

/// One mode of operation, ready to run.
#[derive(Debug)]
pub enum Mode {
    /// Generate UUIDs.
    New(NewPlan),
    /// Describe UUIDs.
    Inspect(InspectPlan),
    /// Validate UUIDs.
    Check(CheckPlan),
    /// Convert UUIDs.
    Convert(Box<ConvertPlan>),
    /// v7 bounds for a time range.
    Range(RangePlan),
    /// A completion script.
    Completions(clap_complete::Shell),
    /// The man page of uuidkit or of a subcommand (one that exists).
    Man(Option<String>),
    /// Generate 64-bit snowflake IDs.
    Snowflake(super::SnowflakePlan),
    /// Describe 64-bit snowflake IDs.
    InspectSnowflake(super::InspectSnowflakePlan),
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
    /// `--new-state`: an empty state file is first use, also under `--strict`.
    pub new_state: bool,
    /// `--lock-timeout` in milliseconds.
    pub lock_timeout_ms: Option<u64>,
    /// A lease for the node (`--node-from`, `--site-node`).
    pub lease: Option<super::LeasePlan>,
    /// A v8 whose 122 custom bits are all random (`-u uuid8` without a name,
    /// as CPython's `uuid.uuid8()`), not the time-based layout.
    pub random_v8: bool,
}

impl Mode {
    /// Validates the parsed command line.
    pub fn from_cli(cli: Cli) -> Result<Mode, Error> {
        Ok(match cli.command {
            Some(Command::New(args)) if args.kind == Kind::Snowflake => {
                Mode::Snowflake(super::SnowflakePlan::from_new(&args)?)
            }
            Some(Command::New(args)) => Mode::New(NewPlan::from_new(*args)?),
            Some(Command::Inspect(a)) if a.layout.is_some() => Mode::InspectSnowflake(
                super::InspectSnowflakePlan::from_args(a).ok_or_else(|| usage("--layout"))?,
            ),
            Some(Command::Inspect(a)) => Mode::Inspect(InspectPlan::from_args(a)?),
            Some(Command::Check(a)) => Mode::Check(CheckPlan {
                quiet: a.quiet,
                unique: a.unique,
                sorted: a.sorted,
                version: a.version,
                memory_limit: a.memory_limit.0,
                input: InputPlan::new(a.uuids, a.file, a.from, a.strict)?,
            }),
            Some(Command::Convert(a)) => Mode::Convert(Box::new(ConvertPlan::from_args(a)?)),
            Some(Command::Range(a)) => Mode::Range(RangePlan::from_args(a)?),
            Some(Command::Completions(a)) => Mode::Completions(a.shell),
            Some(Command::Man(a)) => Mode::Man(man_page(a.command)?),
            None => Mode::New(NewPlan::from_compat(cli.compat)?),
        })
    }
}

fn usage(msg: impl Into<String>) -> Error {
    Error::Usage(msg.into())
}

/// What `inspect`, `check` and `convert` read: the arguments, or else
/// stdin (or `check --file` files) one per line, in the form `--from` names
/// (or a hex form or a prefixed TypeID), RFC 9562's hyphenated form only
/// with `--strict`; with `--from bin`, 16-byte records.
#[derive(Debug, Clone)]
pub struct InputPlan {
    /// The inputs given as arguments.
    pub uuids: Vec<OsString>,
    /// The files to read instead of stdin (`-` is stdin).
    pub files: Vec<PathBuf>,
    /// The input form, if named.
    pub from: Option<Format>,
    /// `check --strict`.
    pub strict: bool,
}

impl InputPlan {
    fn new(
        uuids: Vec<OsString>,
        files: Vec<PathBuf>,
        from: Option<Format>,
        strict: bool,
    ) -> Result<InputPlan, Error> {
        if from == Some(Format::Bin) && !uuids.is_empty() {
            return Err(usage(
                "--from bin reads 16-byte records from standard input (or --file): \
                 expected no UUID arguments",
            ));
        }
        Ok(InputPlan {
            uuids,
            files,
            from,
            strict,
        })
    }

    /// Whether the inputs are 16-byte records, not lines.
    pub fn records(&self) -> bool {
        self.from == Some(Format::Bin)
    }
}

/// A validated `inspect`.
#[derive(Debug, Clone)]
pub struct InspectPlan {
    /// One JSON object per line.
    pub json: bool,
    /// `--table`: its columns, and whether it has a heading line.
    pub table: Option<(Vec<Column>, bool)>,
    /// What to read.
    pub input: InputPlan,
}

impl InspectPlan {
    fn from_args(a: InspectArgs) -> Result<InspectPlan, Error> {
        let table = a.table || !a.output.is_empty();
        if a.no_headings && !table {
            return Err(usage(
                "-n/--no-headings applies to the table: expected --table or -o COLUMNS",
            ));
        }
        let columns = if a.output.is_empty() {
            vec![Column::Uuid, Column::Variant, Column::Type, Column::Time]
        } else {
            a.output
        };
        Ok(InspectPlan {
            json: a.json,
            table: table.then_some((columns, !a.no_headings && !a.json)),
            input: InputPlan::new(a.uuids, Vec::new(), a.from, false)?,
        })
    }
}

/// A validated `check`.
#[derive(Debug, Clone)]
pub struct CheckPlan {
    /// Report nothing.
    pub quiet: bool,
    /// `--unique`.
    pub unique: bool,
    /// `--sorted`.
    pub sorted: Option<Sorted>,
    /// `--version N`.
    pub version: Option<u8>,
    /// The most bytes `--unique` without `--sorted` may keep.
    pub memory_limit: u64,
    /// What to read.
    pub input: InputPlan,
}

/// A validated `convert`.
#[derive(Debug, Clone)]
pub struct ConvertPlan {
    /// The version to convert to, if any.
    pub to: Option<ConvertTo>,
    /// The façade to encode to or decode from, if any.
    pub facade: Option<super::FacadePlan>,
    /// The output form.
    pub format: Format,
    /// Uppercase hex.
    pub upper: bool,
    /// The TypeID prefix as given (`-f typeid`); `None` if not given, so
    /// that an input TypeID's prefix is not dropped unsaid.
    pub prefix: Option<String>,
    /// What to read.
    pub input: InputPlan,
}

impl ConvertPlan {
    fn from_args(a: ConvertArgs) -> Result<ConvertPlan, Error> {
        let (to, format) = convert_target(a.to, a.format)?;
        let encode = to == Some(ConvertTo::Facade);
        let decode = a.from == Some(super::facade::ConvertFrom::Facade);
        let facade = super::facade::plan(encode, decode, &a.facade)?;
        let to = to.filter(|_| !encode);
        check_upper(format, a.upper)?;
        let prefix = a
            .prefix
            .as_ref()
            .map(|p| typeid_prefix(format, Some(p)))
            .transpose()?;
        Ok(ConvertPlan {
            to,
            facade,
            format,
            upper: a.upper,
            prefix,
            input: InputPlan::new(a.uuids, Vec::new(), a.from.and_then(|f| f.form()), false)?,
        })
    }
}

/// The prefix to write: `--prefix` only goes with `-f typeid`.
fn typeid_prefix(format: Format, prefix: Option<&Prefix>) -> Result<String, Error> {
    match (format, prefix) {
        (_, None) => Ok(String::new()),
        (TYPEID, Some(p)) => Ok(p.0.clone()),
        (_, Some(_)) => Err(usage("--prefix applies to -f typeid only")),
    }
}

/// `uuidkit man [SUBCOMMAND]`: the subcommand must exist.
fn man_page(sub: Option<String>) -> Result<Option<String>, Error> {
    let Some(name) = sub else { return Ok(None) };
    let cmd = super::built_command();
    match cmd.find_subcommand(&name) {
        Some(s) => Ok(Some(s.get_name().to_string())),
        None => {
            let names: Vec<&str> = cmd.get_subcommands().map(|s| s.get_name()).collect();
            Err(usage(format!(
                "no subcommand '{name}': expected one of {}",
                names.join(", ")
            )))
        }
    }
}

/// The version to convert to (if any) and the output form, from `--to` and
/// `-f`; a usage error if they name two different forms.
fn convert_target(
    to: Option<ConvertTarget>,
    format: Option<Format>,
) -> Result<(Option<ConvertTo>, Format), Error> {
    match (to, format) {
        (Some(ConvertTarget::Version(v)), f) => Ok((Some(v), f.unwrap_or_default())),
        (Some(ConvertTarget::Form(t)), Some(f)) if t != f => Err(usage(format!(
            "--to {} and -f {} name two output forms: expected one",
            t.name(),
            f.name()
        ))),
        (Some(ConvertTarget::Form(f)), _) | (None, Some(f)) => Ok((None, f)),
        (None, None) => Ok((None, Format::default())),
    }
}

/// A validated `range`: its two bounds, and how to write them.
#[derive(Debug, Clone)]
pub struct RangePlan {
    /// The smallest v7 UUID whose timestamp is at least START.
    pub lo: Uuid,
    /// The largest v7 UUID whose timestamp is at most END.
    pub hi: Uuid,
    /// The output form.
    pub format: Format,
    /// Uppercase hex.
    pub upper: bool,
    /// The TypeID prefix (`-f typeid`; empty if none).
    pub prefix: String,
    /// The column of `--sql`.
    pub sql: Option<SqlColumn>,
}

impl RangePlan {
    fn from_args(a: RangeArgs) -> Result<RangePlan, Error> {
        if a.sql.is_none() {
            check_upper(a.format, a.upper)?;
        }
        let (lo, hi) = v7_bounds(a.start.0, a.end.0)?;
        Ok(RangePlan {
            lo,
            hi,
            format: a.format,
            upper: a.upper,
            prefix: typeid_prefix(a.format, a.prefix.as_ref())?,
            sql: a.sql,
        })
    }
}

/// The smallest and largest v7 UUIDs with timestamps in `[start, end]`: v7
/// timestamps are whole milliseconds, so START rounds up and END down.
fn v7_bounds(start: Nanos, end: Nanos) -> Result<(Uuid, Uuid), Error> {
    if start > end {
        return Err(usage(format!(
            "START {} is after END {}: expected START <= END",
            time::format_rfc3339(start, 9),
            time::format_rfc3339(end, 9)
        )));
    }
    let lo = time::to_unix_ms(start, true).map_err(|e| usage(format!("invalid START: {e}")))?;
    let hi = time::to_unix_ms(end, false).map_err(|e| usage(format!("invalid END: {e}")))?;
    if lo > hi {
        return Err(usage(format!(
            "no whole millisecond lies in [{}, {}]: v7 timestamps are milliseconds",
            time::format_rfc3339(start, 9),
            time::format_rfc3339(end, 9)
        )));
    }
    Ok((Uuid::v7_min(lo), Uuid::v7_max(hi)))
}

/// `-U` goes only with the forms whose digits have a case: the others are
/// written one way (base32 and base32hex in upper case, a TypeID in lower
/// case) or are case-sensitive (base58, base64url).
fn check_upper(format: Format, upper: bool) -> Result<(), Error> {
    match format {
        f if f.is_hex() || !upper => Ok(()),
        f => Err(usage(format!(
            "-U does not apply to -f {}: it applies to the hex forms (canonical, simple, \
             braced, urn), whose digits may be written in either case",
            f.name()
        ))),
    }
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
        // v8 is two kinds, and the flags that apply depend on which.
        let kdesc = match (k, name_based) {
            (Kind::V8, true) => "name-based v8",
            (Kind::V8, false) => "time-based v8",
            _ => kname,
        };

        check_applicable(&a, kdesc, name_based, time_based)?;
        let gregorian = matches!(k, Kind::V1 | Kind::V6);
        let lease = super::lease::lease_plan(&a, kdesc, gregorian, time_based)?;

        let name = if name_based {
            Some(named(kname, a.namespace, name)?)
        } else {
            None
        };
        if let Some(t) = a.at {
            check_time_range(k, t.0, a.count.0)?;
        }
        check_upper(a.format, a.upper)?;
        Ok(NewPlan {
            kind: k,
            count: a.count.0,
            format: a.format,
            upper: a.upper,
            prefix: typeid_prefix(a.format, a.prefix.as_ref())?,
            name,
            hash: a.hash.unwrap_or(HashArg::Sha256),
            at: a.at.map(|t| t.0),
            clock_seq: a.clock_seq.map(|c| c.0),
            node: match a.node {
                None => NodeChoice::Default,
                Some(NodeArg::Random) => NodeChoice::Random,
                Some(NodeArg::Mac(m)) => NodeChoice::Mac(m.0),
                Some(NodeArg::Number(n)) => {
                    return Err(usage(format!(
                        "invalid value for --node: expected `random` or a MAC address \
                         (9f:6b:de:ce:d8:46), found the number {n} (a worker ID is for \
                         `new snowflake`)"
                    )));
                }
            },
            method: a.method,
            state: a.state,
            strict: a.strict,
            new_state: a.new_state,
            lock_timeout_ms: a.lock_timeout,
            lease,
            random_v8: false,
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
            new_state: false,
            lock_timeout_ms: None,
            lease: None,
            random_v8: kind == Kind::V8 && !name_based,
        })
    }
}

/// Refuses every flag of `uuidkit new` that does not apply to the kind asked for, naming the
/// kinds it applies to.
fn check_applicable(
    a: &NewArgs,
    kdesc: &str,
    name_based: bool,
    time_based: bool,
) -> Result<(), Error> {
    let k = a.kind;
    let reject = |flag: &str, present: bool, applies: &str| -> Result<(), Error> {
        if present {
            Err(usage(format!(
                "{flag} does not apply to {kdesc}: it applies to {applies}"
            )))
        } else {
            Ok(())
        }
    };
    if !name_based {
        let why = "v3, v5 and name-based v8";
        reject("--namespace", a.namespace.is_some(), why)?;
        reject("--name", a.name.is_some(), why)?;
        reject("--name-hex", a.name_hex.is_some(), why)?;
        reject("--name-file", a.name_file.is_some(), why)?;
    }
    reject("--hash", a.hash.is_some() && k != Kind::V8, "name-based v8")?;
    if !time_based {
        reject("--at", a.at.is_some(), "v1, v6, v7 and time-based v8")?;
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
    Ok(())
}

/// The namespace and name a name-based kind needs, or the error naming what is missing.
fn named(
    kname: &str,
    namespace: Option<super::NamespaceArg>,
    name: Option<Vec<u8>>,
) -> Result<(Uuid, Vec<u8>), Error> {
    let Some(ns) = namespace else {
        return Err(usage(format!(
            "{kname} is name-based: it needs --namespace (dns, url, oid, x500 or a UUID)"
        )));
    };
    let Some(name) = name else {
        return Err(usage(format!(
            "{kname} is name-based: it needs --name TEXT, --name-hex HEX or --name-file FILE"
        )));
    };
    Ok((ns.0, name))
}

/// The bytes of `--name-file PATH` (`-`: all of standard input), as they are.
fn read_name_file(path: &std::path::Path) -> Result<Vec<u8>, Error> {
    let read = if path.as_os_str() == "-" {
        let mut v = Vec::new();
        crate::stdio::stdin_is_open()
            .and_then(|()| std::io::Read::read_to_end(&mut std::io::stdin().lock(), &mut v))
            .map(|_| v)
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

/// `--at` within the kind's range; for v1 and v6, whose successive UUIDs
/// take successive ticks, with room for all `count` of them.
fn check_time_range(kind: Kind, t: Nanos, count: u64) -> Result<(), Error> {
    let r = match kind {
        Kind::V1 | Kind::V6 => time::to_ts60(t).map(Some),
        Kind::V7 => time::to_unix_ms(t, false).map(|_| None),
        Kind::V8 => time::to_v8_10ns(t).map(|_| None),
        _ => Ok(None),
    };
    let ts60 = r.map_err(|e| usage(format!("invalid value for --at: {e}")))?;
    let Some(ts60) = ts60 else { return Ok(()) };
    let room = uuidkit::layout::MAX_GREGORIAN_TIMESTAMP - ts60 + 1;
    if count > room {
        return Err(usage(format!(
            "--at {} with {count} UUIDs runs past the end of the 60-bit v1/v6 timestamp \
             ({}): expected at most {room}",
            time::format_rfc3339(t, 7),
            time::format_rfc3339(time::from_ts60(uuidkit::layout::MAX_GREGORIAN_TIMESTAMP), 7),
        )));
    }
    Ok(())
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
        Kind::Snowflake => "snowflake",
    }
}

#[cfg(test)]
mod tests {
    use super::super::lease::LeaseFrom;
    use super::super::parse_from;
    use super::*;
    use uuidkit::encoding::Encoding;

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
        let site = |p: NewPlan| match p.lease.unwrap() {
            super::super::LeasePlan {
                bits,
                from: LeaseFrom::Site {
                    control, domain, ..
                },
            } => (bits, control, domain),
            other => panic!("not a site lease: {other:?}"),
        };
        let (bits, control, domain) = site(plan(&["new", "v6", "--site-node"]).unwrap());
        assert_eq!(bits, 48);
        assert_eq!(domain, uuidkit_lease::site::DEFAULT_NODE_DOMAIN);
        assert_eq!(control, PathBuf::from("/run/uiapd/control.sock"));
        // --node-from uiap is the same lease.
        assert_eq!(
            plan(&["new", "v6", "--node-from", "uiap"]).unwrap().lease,
            plan(&["new", "v6", "--site-node"]).unwrap().lease
        );
        let (_, control, _) = site(plan(&["new", "v1", "--node-from", "uiap:/c"]).unwrap());
        assert_eq!(control, PathBuf::from("/c"));
        let p = plan(&[
            "new",
            "v8",
            "--site-node",
            "--node-bits",
            "12",
            "--uiap-control",
            "/tmp/c.sock",
            "--node-domain",
            "ffe:1:2:300",
        ])
        .unwrap();
        let (bits, control, domain) = site(p);
        assert_eq!((bits, control), (12, PathBuf::from("/tmp/c.sock")));
        assert_eq!(domain.to_string(), "ffe:1:2:300");
        assert_eq!(site(plan(&["new", "v8", "--site-node"]).unwrap()).0, 16);
        assert!(plan(&["new", "v1"]).unwrap().lease.is_none());
        let offset = |args: &[&str]| match plan(args).unwrap().lease.unwrap().from {
            LeaseFrom::Site {
                max_clock_offset, ..
            } => max_clock_offset,
            other => panic!("not a site lease: {other:?}"),
        };
        assert_eq!(offset(&["new", "v6", "--site-node"]), None);
        assert_eq!(
            offset(&["new", "v6", "--site-node", "--max-clock-offset", "1500ms"]),
            Some(std::time::Duration::from_millis(1500))
        );
        let cases: [(&[&str], &str); 8] = [
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
                "--node-bits applies only with --node-from or --site-node",
            ),
            (
                &["new", "v6", "--max-clock-offset", "1s"],
                "--max-clock-offset applies only with --node-from or --site-node",
            ),
            (
                &["new", "v1", "--uiap-control", "/x"],
                "--uiap-control applies only with --node-from or --site-node",
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
        assert_eq!(
            e.to_string(),
            "--site-node does not apply to name-based v8: it applies to v1, v6 and time-based v8"
        );
    }

    #[test]
    fn node_from_etcd_and_postgres_take_the_lease_times() {
        let p = plan(&[
            "new",
            "v8",
            "--node-from",
            "etcd://h:1/n",
            "--node-bits",
            "20",
        ]);
        let lease = p.unwrap().lease.unwrap();
        assert_eq!(lease.bits, 20);
        let LeaseFrom::Etcd {
            endpoints,
            prefix,
            times,
            ..
        } = lease.from
        else {
            panic!("{:?}", lease.from)
        };
        assert_eq!(
            (endpoints, prefix.as_str()),
            (vec!["h:1".to_string()], "/n")
        );
        assert_eq!(times.ttl, std::time::Duration::from_secs(10));
        assert_eq!(times.margin, std::time::Duration::from_millis(500));
        let p = plan(&[
            "new",
            "v1",
            "--node-from",
            "postgres://u@h/db",
            "--lease-ttl",
            "1500ms",
            "--lease-margin",
            "200ms",
            "--tls-ca",
            "ca.pem",
        ]);
        let lease = p.unwrap().lease.unwrap();
        assert_eq!(lease.bits, 48);
        let LeaseFrom::Postgres {
            connect,
            table,
            times,
            tls,
        } = lease.from
        else {
            panic!("{:?}", lease.from)
        };
        assert_eq!((connect.as_str(), table), ("postgres://u@h/db", None));
        assert_eq!(
            tls.map(|t| (t.ca, t.identity)),
            Some(("ca.pem".into(), None))
        );
        assert_eq!(times.ttl, std::time::Duration::from_millis(1500));
        assert_eq!(times.margin, std::time::Duration::from_millis(200));
    }

    #[test]
    fn node_from_settings_are_checked_against_the_source() {
        let cases: [(&[&str], &str); 8] = [
            (
                &["new", "v7", "--node-from", "etcd://h:1/n"],
                "--node-from does not apply to v7",
            ),
            (
                &[
                    "new",
                    "v1",
                    "--node-from",
                    "etcd://h:1/n",
                    "--lease-ttl",
                    "1500ms",
                ],
                "--lease-ttl 1.5s: etcd counts a lease's TTL in whole seconds",
            ),
            (
                &[
                    "new",
                    "v1",
                    "--node-from",
                    "etcd://h:1/n",
                    "--lease-ttl",
                    "0",
                ],
                "--lease-ttl: expected more than 0",
            ),
            (
                &[
                    "new",
                    "v1",
                    "--node-from",
                    "postgres://h",
                    "--lease-margin",
                    "10s",
                ],
                "--lease-margin 10s: expected less than the lease's TTL (10s)",
            ),
            (
                &["new", "v1", "--site-node", "--lease-ttl", "3s"],
                "--lease-ttl applies only to etcd and PostgreSQL leases",
            ),
            (
                &["new", "v1", "--site-node", "--tls-ca", "ca.pem"],
                "--tls-ca applies only to etcd and PostgreSQL leases",
            ),
            (
                &[
                    "new",
                    "v1",
                    "--node-from",
                    "etcd://h:1/n",
                    "--node-domain",
                    "ffe:1:2:300",
                ],
                "--node-domain applies only to the UIAP site lease",
            ),
            (
                &[
                    "new",
                    "v1",
                    "--node-from",
                    "postgres-env:UUIDKIT_NO_SUCH_VARIABLE",
                ],
                "--node-from postgres-env:UUIDKIT_NO_SUCH_VARIABLE: UUIDKIT_NO_SUCH_VARIABLE: \
                 environment variable not found",
            ),
        ];
        for (args, want) in cases {
            let e = plan(args).unwrap_err();
            assert_eq!(e.exit_code(), 2, "{args:?}");
            assert!(e.to_string().contains(want), "{args:?}: {e}");
        }
    }

    /// A message about v8 says which v8 it is, and where the flag applies.
    #[test]
    fn v8_messages_say_which_v8() {
        let e = plan(&[
            "new",
            "v8",
            "--name",
            "x",
            "--namespace",
            "dns",
            "--at",
            "@0",
        ])
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "--at does not apply to name-based v8: it applies to v1, v6, v7 and time-based v8"
        );
        let e = plan(&["new", "v8", "--clock-seq", "1"]).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("--clock-seq does not apply to time-based v8"),
            "{e}"
        );
    }

    #[test]
    fn to_names_a_version_or_the_output_form() {
        use ConvertTarget::{Form, Version};
        let v6 = Some(Version(ConvertTo::V6));
        assert_eq!(
            convert_target(None, None).unwrap(),
            (None, Format::Canonical)
        );
        assert_eq!(
            convert_target(v6, Some(Format::Encoded(Encoding::Base58))).unwrap(),
            (Some(ConvertTo::V6), Format::Encoded(Encoding::Base58))
        );
        let b32 = Some(Form(Format::Encoded(Encoding::Base32)));
        assert_eq!(
            convert_target(b32, None).unwrap(),
            (None, Format::Encoded(Encoding::Base32))
        );
        assert_eq!(
            convert_target(b32, Some(Format::Encoded(Encoding::Base32))).unwrap(),
            (None, Format::Encoded(Encoding::Base32))
        );
        let e = convert_target(b32, Some(Format::Simple)).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert_eq!(
            e.to_string(),
            "--to base32 and -f simple name two output forms: expected one"
        );
    }

    /// `-U` with a form that has one case is a usage error, in every mode
    /// that writes UUIDs.
    #[test]
    fn upper_goes_with_the_hex_forms_only() {
        for args in [
            &["new", "v4", "-U", "-f", "base58"][..],
            &["convert", "-U", "--to", "base64url"],
            &["convert", "-U", "-f", "typeid"],
            &["range", "-U", "-f", "base32", "@0", "@0"],
        ] {
            let mut v = vec!["uuidkit"];
            v.extend_from_slice(args);
            let e = Mode::from_cli(parse_from(v).unwrap()).unwrap_err();
            assert_eq!(e.exit_code(), 2, "{args:?}");
            assert!(
                e.to_string().starts_with("-U does not apply to -f "),
                "{args:?}: {e}"
            );
        }
        for args in [
            &["new", "v4", "-U", "-f", "urn"][..],
            &["convert", "-U", "--to", "v6", "-f", "braced"],
            &["range", "-U", "--sql", "@0", "@0"],
        ] {
            let mut v = vec!["uuidkit"];
            v.extend_from_slice(args);
            assert!(Mode::from_cli(parse_from(v).unwrap()).is_ok(), "{args:?}");
        }
    }

    #[test]
    fn bounds_of_a_millisecond() {
        let t = 1_645_557_742_000_000_000; // A.6's millisecond
        let (lo, hi) = v7_bounds(t, t).unwrap();
        assert_eq!(lo.as_u128(), 0x017F22E2_79B0_7000_8000_000000000000);
        assert_eq!(hi.as_u128(), 0x017F22E2_79B0_7FFF_BFFF_FFFFFFFFFFFF);
        let a6 = Uuid::from_u128(0x017F22E2_79B0_7CC3_98C4_DC0C0C07398F);
        assert!(lo <= a6 && a6 <= hi);
    }

    #[test]
    fn start_rounds_up_end_rounds_down() {
        let (lo, hi) = v7_bounds(1_500_000, 3_500_000).unwrap();
        assert_eq!(lo.unix_ts_ms(), Some(2));
        assert_eq!(hi.unix_ts_ms(), Some(3));
        assert_eq!(v7_bounds(1_100_000, 1_200_000).unwrap_err().exit_code(), 2);
        assert_eq!(v7_bounds(2, 1).unwrap_err().exit_code(), 2);
        assert!(v7_bounds(-1_000_000, 0).is_err());
    }

    #[test]
    fn man_pages_exist_for_the_subcommands_only() {
        assert_eq!(man_page(None).unwrap(), None);
        assert_eq!(
            man_page(Some("new".into())).unwrap().as_deref(),
            Some("new")
        );
        let e = man_page(Some("frob".into())).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert!(
            e.to_string()
                .starts_with("no subcommand 'frob': expected one of new, inspect"),
            "{e}"
        );
    }

    #[test]
    fn prefixes_go_with_typeid_only() {
        let p = Prefix("user".into());
        assert_eq!(typeid_prefix(TYPEID, Some(&p)).unwrap(), "user");
        assert_eq!(typeid_prefix(TYPEID, None).unwrap(), "");
        let e = typeid_prefix(Format::Encoded(Encoding::Base58), Some(&p)).unwrap_err();
        assert_eq!(
            (e.exit_code(), e.to_string().as_str()),
            (2, "--prefix applies to -f typeid only")
        );
    }

    /// A fixed-time v1/v6 run takes successive ticks: all of them must fit
    /// the 60-bit timestamp.
    #[test]
    fn a_fixed_time_run_must_fit_the_timestamp() {
        let last_but_one = time::format_rfc3339(
            time::from_ts60(uuidkit::layout::MAX_GREGORIAN_TIMESTAMP - 1),
            7,
        );
        assert!(plan(&["new", "v1", "--at", &last_but_one, "-n", "2"]).is_ok());
        let e = plan(&["new", "v6", "--at", &last_but_one, "-n", "3"]).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert!(e.to_string().ends_with("expected at most 2"), "{e}");
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
