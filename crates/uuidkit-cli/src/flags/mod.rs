//! Command-line definitions: one clap derive tree, from which the help text, the
//! man page and the shell completions are all generated.
//!
//! The structs here mirror the command line as closely as possible ("low
//! args"); `hiargs.rs` validates combinations and turns them into plans the
//! commands execute.

mod facade;
mod format;
mod hiargs;
mod lease;
mod snowflake;
mod values;

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

pub use facade::{Direction as FacadeDirection, FacadePlan};
#[cfg(test)]
use format::CONVERT_TARGETS;
pub use format::{ConvertTarget, ConvertTo, Format, TYPEID};
pub use hiargs::{
    CheckPlan, ConvertPlan, InputPlan, InspectPlan, Mode, NewPlan, NodeChoice, RangePlan,
};
#[cfg(test)]
pub use lease::Times;
#[cfg(any(test, feature = "etcd-tls", feature = "postgres-tls"))]
pub use lease::TlsFiles;
pub use lease::{LeaseFrom, LeasePlan, NodeFrom};
pub use snowflake::{InspectSnowflakePlan, LayoutArg, SnowflakePlan, WorkerFrom};
pub use values::{
    ByteSize, ClockSeq, Count, DomainArg, HexBytes, NamespaceArg, NodeArg, NodeBits, Prefix,
    SqlColumn, TimeArg,
};

const AFTER_HELP: &str = "\
Exit status: 0 success, 1 invalid input (or an I/O failure), 2 usage error.

Examples:
  uuidkit                                   one random (v4) UUID, like uuidgen
  uuidkit new v7 -n 1000                    1000 time-ordered UUIDs, sorted
  uuidkit new v5 --namespace dns --name www.example.com
  uuidkit -s -n @dns -N www.example.com     the same, uuidgen style
  uuidkit inspect 017f22e2-79b0-7cc3-98c4-dc0c0c07398f
  uuidkit check < ids.txt                   validate one UUID per line
  uuidkit check --unique --sorted < ids.txt duplicates and order, in bounded memory
  uuidkit inspect -o uuid,type,time < ids.txt  a table, as util-linux uuidparse
  uuidkit convert --to v6 < v1-ids.txt
  uuidkit range 2024-01-01T00:00:00Z 2024-01-31T23:59:59.999Z";

/// Generate, inspect, check, convert and bound UUIDs (RFC 9562).
///
/// With no arguments, prints one random (version 4) UUID, like `uuidgen`.
/// The top-level options `-r -t -6 -7 -m -s -n -N -x -C -u` follow
/// `uuidgen` and `python -m uuid`; they are shorthands for `uuidkit new`.
#[derive(Debug, Parser)]
#[command(
    name = "uuidkit",
    version,
    args_conflicts_with_subcommands = true,
    after_help = AFTER_HELP,
    max_term_width = 100,
    // No styling: usage errors echo what the user typed with escape
    // sequences made visible, which needs text free of clap's own.
    styles = clap::builder::Styles::plain()
)]
pub struct Cli {
    /// The command to run (default: one v4 UUID).
    #[command(subcommand)]
    pub command: Option<Command>,

    /// uuidgen / python -m uuid compatible options.
    #[command(flatten)]
    pub compat: Compat,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Generate UUIDs of one kind.
    #[command(visible_alias = "gen", visible_alias = "generate")]
    New(Box<NewArgs>),
    /// Describe UUIDs: variant, version and the fields of each version.
    #[command(visible_alias = "parse", visible_alias = "show")]
    Inspect(InspectArgs),
    /// Validate UUIDs; exit 1 and report each invalid one with its position.
    #[command(visible_alias = "validate")]
    Check(CheckArgs),
    /// Convert between v1 and v6, v7 and its keyed façade, and text forms (streams stdin to
    /// stdout).
    Convert(ConvertArgs),
    /// The smallest and largest v7 UUIDs whose timestamps fall in [START, END].
    Range(RangeArgs),
    /// Print a shell completion script.
    Completions(CompletionsArgs),
    /// Print the man page (roff), of uuidkit or of one subcommand.
    Man(ManArgs),
}

/// Which kind of UUID to generate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Kind {
    /// Gregorian time and node (RFC 9562 §5.1).
    #[value(alias = "1", alias = "uuid1", alias = "time")]
    V1,
    /// Name-based, MD5 (§5.3).
    #[value(alias = "3", alias = "uuid3", alias = "md5")]
    V3,
    /// Random (§5.4).
    #[value(alias = "4", alias = "uuid4", alias = "random")]
    V4,
    /// Name-based, SHA-1 (§5.5).
    #[value(alias = "5", alias = "uuid5", alias = "sha1")]
    V5,
    /// Reordered Gregorian time, sortable (§5.6).
    #[value(alias = "6", alias = "uuid6")]
    V6,
    /// Unix time in milliseconds, sortable: the one for database keys (§5.7).
    #[value(alias = "7", alias = "uuid7")]
    V7,
    /// Custom: name-based with a modern hash (App. B.2) or time-based (App. B.1).
    #[value(alias = "8", alias = "uuid8")]
    V8,
    /// The Nil UUID, all zeros (§5.9).
    #[value(alias = "uuid0", alias = "zero")]
    Nil,
    /// The Max UUID, all ones (§5.10).
    #[value(alias = "omni")]
    Max,
    /// Not a UUID: a 64-bit time-ordered ID (Twitter, Discord, Instagram, Sonyflake, TSID
    /// layouts: --layout), printed as a decimal integer; its worker from --node N or a lease.
    #[value(alias = "sf", alias = "snowflake-id")]
    Snowflake,
}

/// Hash for name-based v8 UUIDs (RFC 9562 App. B.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum HashArg {
    /// SHA-256 (the App. B.2 example).
    #[value(alias = "sha-256")]
    Sha256,
    /// SHA-512.
    #[value(alias = "sha-512")]
    Sha512,
    /// SHA3-256.
    #[value(name = "sha3-256", alias = "sha3_256")]
    Sha3_256,
    /// SHA3-512.
    #[value(name = "sha3-512", alias = "sha3_512")]
    Sha3_512,
    /// SHAKE128 (128-bit output).
    Shake128,
    /// SHAKE256 (128-bit output).
    Shake256,
}

impl From<HashArg> for uuidkit::NameHash {
    fn from(h: HashArg) -> uuidkit::NameHash {
        match h {
            HashArg::Sha256 => uuidkit::NameHash::Sha256,
            HashArg::Sha512 => uuidkit::NameHash::Sha512,
            HashArg::Sha3_256 => uuidkit::NameHash::Sha3_256,
            HashArg::Sha3_512 => uuidkit::NameHash::Sha3_512,
            HashArg::Shake128 => uuidkit::NameHash::Shake128,
            HashArg::Shake256 => uuidkit::NameHash::Shake256,
        }
    }
}

/// How v7 UUIDs generated in the same millisecond are kept in order (RFC 9562 §6.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MethodArg {
    /// Method 1: a fixed-length counter after the timestamp, seeded randomly.
    #[value(alias = "method1", alias = "1")]
    Counter,
    /// Method 2: monotonic random, each UUID a random increment above the last.
    #[value(alias = "method2", alias = "2", alias = "monotonic-random")]
    Random,
    /// Method 3: sub-millisecond precision in rand_a (12 bits), then a counter.
    #[value(
        alias = "method3",
        alias = "3",
        alias = "sub-ms",
        alias = "submillisecond"
    )]
    Submillis,
}

/// `uuidkit new`.
#[derive(Debug, Args)]
#[command(after_help = "\
Name-based (v3, v5, v8 with --name/--name-hex/--name-file): --namespace and a name are required.
Time-based (v1, v6, v7, v8 without a name): --at fixes the time; v1/v6 also take --clock-seq
and --node; v7 takes --method. For v1, v6 and v7, --state FILE shares generator state with other
processes.

Leased node (v1, v6, v8): --node-from SOURCE leases a node ID no other holder of the registry has
(etcd, PostgreSQL, or through the local uiapd: --site-node), holds it while the command runs and
releases it at the end. UUIDs of generators with distinct node IDs never collide. v8 then uses
the RFC 9562 §6.4 distributed layout (ms | node | counter | random) with a --node-bits wide node.
If the node is lost mid-run (the lease expired or was taken, the registry stayed silent past the
lease's deadline, the daemon stopped), generation stops at once: nothing is written after the
loss, and the exit status is 1 with the reason.

Examples:
  uuidkit new v7 -n 5
  uuidkit new v5 --namespace dns --name www.example.com
  uuidkit new v8 --hash sha256 --namespace dns --name www.example.com
  uuidkit new v1 --at 2022-02-22T19:22:22Z --clock-seq 0x33c8 --node 9f:6b:de:ce:d8:46
  uuidkit new v8 --site-node --node-bits 12 -n 1000000
  uuidkit new v6 --node-from etcd://10.0.0.1:2379,10.0.0.2:2379/uuidkit/v6 -n 1000
  IDS_DB=postgresql://gen@db/ids uuidkit new v1 --node-from postgres-env:IDS_DB")]
pub struct NewArgs {
    /// Kind of UUID.
    #[arg(value_enum, ignore_case = true)]
    pub kind: Kind,

    /// How many UUIDs to print (one per line).
    #[arg(
        short = 'n',
        long = "count",
        short_alias = 'C',
        value_name = "N",
        default_value = "1",
        allow_negative_numbers = true
    )]
    pub count: Count,

    /// Text form.
    #[arg(short = 'f', long, value_enum, ignore_case = true, default_value_t)]
    pub format: Format,

    /// Uppercase hex digits (a URN keeps its lowercase `urn:uuid:` prefix).
    #[arg(short = 'U', long, visible_alias = "uppercase")]
    pub upper: bool,

    /// The TypeID prefix of `-f typeid` (a-z and _, at most 63).
    #[arg(long, value_name = "P")]
    pub prefix: Option<Prefix>,

    /// Namespace for name-based UUIDs: dns, url, oid, x500 (also @dns … as in uuidgen), or any UUID.
    #[arg(long, visible_alias = "ns", value_name = "NS")]
    pub namespace: Option<NamespaceArg>,

    /// Name for name-based UUIDs, hashed as its bytes; the next argument whatever it is (-foo too).
    #[arg(
        long,
        value_name = "TEXT",
        allow_hyphen_values = true,
        conflicts_with_all = ["name_hex", "name_file"]
    )]
    pub name: Option<OsString>,

    /// Name for name-based UUIDs: the bytes of FILE as they are (`-`: standard input).
    #[arg(long, value_name = "FILE", conflicts_with = "name_hex")]
    pub name_file: Option<PathBuf>,

    /// Name for name-based UUIDs, given as hex digits (binary names).
    #[arg(long, value_name = "HEX")]
    pub name_hex: Option<HexBytes>,

    /// Hash for name-based v8 (default sha256).
    #[arg(long, value_enum, ignore_case = true, value_name = "HASH")]
    pub hash: Option<HashArg>,

    /// Generate at this time instead of now: RFC 3339 (2022-02-22T19:22:22Z) or @UNIX_MS,
    /// within the kind's range: v1/v6 1582 to 5236, v7 1970 to 10889, v8 1970 to 2335.
    #[arg(long, value_name = "TIME")]
    pub at: Option<TimeArg>,

    /// v1/v6 clock sequence, 0 to 0x3fff (decimal or 0x-hex); default random.
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub clock_seq: Option<ClockSeq>,

    /// v1/v6 node: a MAC address (9f:6b:de:ce:d8:46) or `random` (the default; multicast bit set).
    #[arg(long, value_name = "MAC|random")]
    pub node: Option<NodeArg>,

    /// v7 ordering within a millisecond (RFC 9562 §6.2).
    #[arg(long, value_enum, ignore_case = true, value_name = "METHOD")]
    pub method: Option<MethodArg>,

    /// v1/v6/v7: share generator state with other processes through FILE (RFC 9562 §6.3): a
    /// regular file or none yet (a symlink is followed), in a directory that exists. Beside it
    /// go FILE.lock, the lock (created, and left in place), and FILE.tmp while FILE is rewritten.
    #[arg(long, value_name = "FILE")]
    pub state: Option<PathBuf>,

    /// With --state: fail (exit 1) when the state file cannot be locked or written, instead of
    /// going on with state in this process (fresh random clock sequence and node).
    #[arg(long, requires = "state")]
    pub strict: bool,

    /// With --state: the state file is new, so an empty FILE is first use. Without it, --strict
    /// (and a snowflake run, always strict) refuses an empty FILE and leaves it as it is: a file
    /// emptied by mistake looks just like a new one, and what was issued before is unknown. Give
    /// it on the first run only.
    #[arg(long, requires = "state")]
    pub new_state: bool,

    /// With --state: how long to wait for another process's lock on FILE, 0 to 60000 ms
    /// [default: 2000].
    #[arg(long, value_name = "MS", requires = "state",
          value_parser = clap::value_parser!(u64).range(0..=60_000))]
    pub lock_timeout: Option<u64>,

    /// v1/v6/v8: lease the node from SOURCE for the run: a node ID no other holder of the
    /// registry has, held while the command runs, released at its end. SOURCE is
    /// etcd://[USER@]HOST:PORT[,HOST:PORT…]/PREFIX (a key PREFIX/NODE attached to an etcd lease;
    /// with USER@, authenticated as that etcd user, its password read from
    /// UUIDKIT_ETCD_PASSWORD),
    /// postgres://… or postgresql://… (a row of the table uuidkit_node_leases; the URL as libpq
    /// takes it), postgres-env:VAR (the connection string in the environment variable VAR, URL
    /// or key=value form: keeps a password out of the process list), or uiap[:CONTROL] (the site
    /// lease through uiapd, as --site-node), or zookeeper://HOST:PORT[,HOST:PORT…]/PREFIX (an
    /// ephemeral node PREFIX/NODE of a ZooKeeper session whose timeout is --lease-ttl). etcd,
    /// PostgreSQL and ZooKeeper need a uuidkit built with the Cargo feature `etcd`, `postgres`
    /// or `zookeeper`.
    #[arg(long, value_name = "SOURCE", conflicts_with = "site_node")]
    pub node_from: Option<NodeFrom>,

    /// v1/v6/v8: take the node from a site lease: a random node ID claimed through the local
    /// uiapd, unique among the devices of the site, held while the command runs (the same as
    /// --node-from uiap).
    #[arg(long)]
    pub site_node: bool,

    /// uiapd's control socket, for the site lease [default: /run/uiapd/control.sock].
    #[arg(long, value_name = "PATH")]
    pub uiap_control: Option<PathBuf>,

    /// The UIAP domain node IDs are claimed in, for the site lease (left-justified)
    /// [default: ffe:9562:6:400].
    #[arg(long, value_name = "DID")]
    pub node_domain: Option<DomainArg>,

    /// The site lease: how far ahead of this host's any device's clock may be that uiapd cannot
    /// have heard (with --psk-file), or any device at all (without a key, where the lease needs
    /// it); every new node waits it out: 500ms, 2s [default: with a key, its 30 s window;
    /// without one, the lease refuses].
    #[arg(long, value_name = "TIME")]
    pub max_clock_offset: Option<lease::LeaseTime>,

    /// v8 with a leased node: the node ID's width, 1 to 48 bits [default: 16].
    #[arg(long, value_name = "K", allow_negative_numbers = true)]
    pub node_bits: Option<NodeBits>,

    /// An etcd or PostgreSQL lease's time to live: 10s, 1500ms (etcd: whole seconds)
    /// [default: 10s]. A holder that cannot renew stops within it; a killed one frees its node
    /// after it.
    #[arg(long, value_name = "TIME")]
    pub lease_ttl: Option<lease::LeaseTime>,

    /// A PostgreSQL lease's table: NAME or SCHEMA.NAME, created if missing; one table per node
    /// width [default: uuidkit_node_leases].
    #[arg(long, value_name = "NAME")]
    pub lease_table: Option<String>,

    /// An etcd or PostgreSQL lease over TLS: the CA certificate (PEM) the registry's
    /// certificate is checked with, along with the host it is reached at (for PostgreSQL,
    /// libpq's sslmode=verify-full). Needs a uuidkit built with the Cargo feature `etcd-tls` or
    /// `postgres-tls`.
    #[arg(long, visible_alias = "etcd-ca", value_name = "FILE")]
    pub tls_ca: Option<PathBuf>,

    /// A lease over TLS: the client certificate (PEM) shown to a registry that checks its
    /// clients (etcd's --client-cert-auth, PostgreSQL's clientcert or cert authentication);
    /// with --tls-key.
    #[arg(long, visible_alias = "etcd-cert", value_name = "FILE", requires_all = ["tls_ca", "tls_key"])]
    pub tls_cert: Option<PathBuf>,

    /// The key (PEM) of --tls-cert.
    #[arg(
        long,
        visible_alias = "etcd-key",
        value_name = "FILE",
        requires = "tls_cert"
    )]
    pub tls_key: Option<PathBuf>,

    /// How long before the TTL's end a holder that could not renew stops, for clock-rate error
    /// [default: a twentieth of the TTL, at least 100ms].
    #[arg(long, value_name = "TIME")]
    pub lease_margin: Option<lease::LeaseTime>,

    /// snowflake: the 64-bit layout: twitter, discord, instagram, sonyflake, tsid, or a custom
    /// split tT.wW.sS.eEPOCH_MS.uUNIT (t41.w10.s12.e1288834974657.u1ms; `s` before `w` puts
    /// the sequence first; a trailing .r starts each tick's sequence at random).
    #[arg(long, value_name = "LAYOUT")]
    pub layout: Option<LayoutArg>,
}

/// `uuidkit inspect`.
#[derive(Debug, Args)]
pub struct InspectArgs {
    /// One JSON object per line instead of a description. Integer fields that can exceed
    /// 2^53 (timestamp, rand_b, custom_c) are decimal strings, so that readers using
    /// doubles (JavaScript, jq) get them exactly; the others are numbers.
    #[arg(long)]
    pub json: bool,

    /// A table, a row per UUID, as util-linux uuidparse: the --output columns (default
    /// UUID,VARIANT,TYPE,TIME) under a heading line; with --json, an object of those columns
    /// per line.
    #[arg(long, conflicts_with = "layout")]
    pub table: bool,

    /// The table's columns, comma-separated, any case: UUID, VARIANT, TYPE, TIME, VERSION
    /// (implies --table).
    #[arg(
        short = 'o',
        long,
        value_enum,
        ignore_case = true,
        value_delimiter = ',',
        value_name = "COLUMNS",
        conflicts_with = "layout"
    )]
    pub output: Vec<Column>,

    /// No heading line in the table.
    #[arg(
        short = 'n',
        long,
        visible_alias = "noheadings",
        conflicts_with = "layout"
    )]
    pub no_headings: bool,

    /// Read the inputs in this form (default: a hex form, or a TypeID).
    #[arg(long, value_enum, ignore_case = true, value_name = "FORMAT")]
    pub from: Option<Format>,

    /// UUIDs to inspect (any text form); without them, one per line from stdin.
    #[arg(value_name = "UUID")]
    pub uuids: Vec<OsString>,

    /// Read the inputs as 64-bit IDs of this layout (decimal integers), as `new snowflake`
    /// makes them: twitter, discord, instagram, sonyflake, tsid or tT.wW.sS.eEPOCH_MS.uUNIT.
    #[arg(long, value_name = "LAYOUT", conflicts_with = "from")]
    pub layout: Option<LayoutArg>,
}

/// A column of `inspect --table`, named as util-linux uuidparse names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Column {
    /// The UUID, canonical form.
    Uuid,
    /// NCS, DCE (RFC 9562's), Microsoft or other.
    Variant,
    /// nil, max, time-based, DCE, name-based, random, sha1-based, time-v6, time-v7, custom,
    /// unknown.
    Type,
    /// The time of a v1, v6 or v7 UUID (RFC 3339, UTC).
    Time,
    /// The version number of an RFC 9562 UUID.
    Version,
}

/// `uuidkit check`.
#[derive(Debug, Args)]
#[command(after_help = "\
--unique, --sorted and --version report the first UUID each finds at fault, with its line number
(and that of the UUID it conflicts with), and end with a summary of counts; any fault is exit 1.

Memory: --sorted checks each UUID against the one before it, duplicates included, so it needs no
more memory for ten billion lines than for ten. --unique alone keeps every UUID it has seen (24
bytes each, in a table at most three-quarters full) up to --memory-limit; past that it stops with
a message: sort the input first, which any size allows in bounded memory:
  LC_ALL=C sort ids.txt | uuidkit check --unique --sorted
(the byte order of lower-case hex text is the order of the UUIDs' values).

Examples:
  uuidkit check --unique --sorted=strict < export.txt
  uuidkit check --unique --version 7 --file ids-1.txt --file ids-2.txt
  uuidkit check --unique --from bin < ids.bin")]
pub struct CheckArgs {
    /// Accept only the RFC 9562 §4 form (36 characters with hyphens), any case.
    #[arg(long, conflicts_with = "from")]
    pub strict: bool,

    /// Read the inputs in this form (default: a hex form, or a TypeID).
    #[arg(long, value_enum, ignore_case = true, value_name = "FORMAT")]
    pub from: Option<Format>,

    /// Print nothing; only the exit status tells.
    #[arg(short, long)]
    pub quiet: bool,

    /// Report the first UUID seen before, and count those.
    #[arg(long)]
    pub unique: bool,

    /// Report the first UUID below the one before it, in the order of their 128-bit values
    /// (as PostgreSQL's uuid type and `LC_ALL=C sort` of lower-case hex sort them), and count
    /// those; =strict also refuses one equal to the one before it.
    #[arg(
        long,
        value_enum,
        value_name = "strict",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "ascending"
    )]
    pub sorted: Option<Sorted>,

    /// Report the first UUID that is not an RFC 9562 UUID of this version (1 to 8), and count
    /// those.
    #[arg(long = "version", value_name = "N", value_parser = clap::value_parser!(u8).range(1..=8))]
    pub version: Option<u8>,

    /// Read this file (- for stdin) instead of stdin; repeat for more, read in order. Line
    /// numbers count from 1 in each.
    #[arg(long, value_name = "FILE", conflicts_with = "uuids")]
    pub file: Vec<PathBuf>,

    /// --unique without --sorted: the most memory the UUIDs seen may take (K, M or G suffix).
    #[arg(long, value_name = "SIZE", default_value = "1G")]
    pub memory_limit: ByteSize,

    /// UUIDs to check; without them, one per line from stdin.
    #[arg(value_name = "UUID")]
    pub uuids: Vec<OsString>,
}

/// `check --sorted`: how each UUID must compare with the one before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Sorted {
    /// Not below it (equal is allowed).
    Ascending,
    /// Above it.
    Strict,
}

/// `uuidkit convert`.
#[derive(Debug, Args)]
pub struct ConvertArgs {
    /// Convert v1 to v6 or v6 to v1 (other versions are an error), a v7 to its façade
    /// (facade), or write this text form (as -f); default: keep the UUID, canonical form.
    #[arg(long, value_enum, ignore_case = true, value_name = "VERSION|FORMAT")]
    pub to: Option<ConvertTarget>,

    /// Text form of the output (default: canonical, or the form --to names).
    #[arg(short = 'f', long, value_enum, ignore_case = true)]
    pub format: Option<Format>,

    /// Uppercase hex digits.
    #[arg(short = 'U', long, visible_alias = "uppercase")]
    pub upper: bool,

    /// The TypeID prefix of `-f typeid` (a-z and _, at most 63).
    #[arg(long, value_name = "P")]
    pub prefix: Option<Prefix>,

    /// Read the inputs in this form (default: a hex form, or a TypeID), or read façades and
    /// decode them (facade).
    #[arg(long, value_enum, ignore_case = true, value_name = "FORMAT|facade")]
    pub from: Option<facade::ConvertFrom>,

    #[command(flatten)]
    pub facade: facade::FacadeArgs,

    /// UUIDs to convert; without them, one per line from stdin.
    #[arg(value_name = "UUID")]
    pub uuids: Vec<OsString>,
}

/// `uuidkit range`.
#[derive(Debug, Args)]
#[command(after_help = "\
Prints two lines: the smallest v7 UUID with a timestamp of at least START, and the largest with
a timestamp of at most END (both inclusive, at millisecond resolution), so that
  START_UUID <= id AND id <= END_UUID
selects exactly the v7 UUIDs generated in [START, END]. With --sql, one line instead: that
condition, ready to paste (uuidkit range --sql=created 2024-01-01 2024-01-31T23:59:59.999Z).

The bounds are v7 bounds in every -f form. A ULID (-f base32) has 80 random bits where v7 has
its version and variant, so ULIDs of the first and last milliseconds fall outside the bounds
about half the time: for ULIDs, compare the first 10 characters (the 48-bit time) instead.")]
pub struct RangeArgs {
    /// Start time, inclusive: RFC 3339, a date (midnight UTC), or @UNIX_MS.
    #[arg(value_name = "START", allow_hyphen_values = true)]
    pub start: TimeArg,

    /// End time, inclusive: RFC 3339, a date (midnight UTC), or @UNIX_MS.
    #[arg(value_name = "END", allow_hyphen_values = true)]
    pub end: TimeArg,

    /// Text form.
    #[arg(short = 'f', long, value_enum, ignore_case = true, default_value_t)]
    pub format: Format,

    /// Uppercase hex digits.
    #[arg(short = 'U', long, visible_alias = "uppercase")]
    pub upper: bool,

    /// Print one ready-to-paste SQL condition instead:
    /// WHERE COLUMN >= 'START_UUID' AND COLUMN <= 'END_UUID' (COLUMN: id unless given as
    /// --sql=COLUMN: plain names of letters, digits and _, joined by '.', never quoted, so the
    /// condition means the same in PostgreSQL, MySQL/MariaDB and SQLite). The bounds are
    /// hyphenated: for a uuid column (PostgreSQL, MariaDB) or text stored in that form.
    #[arg(
        long,
        value_name = "COLUMN",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "id",
        conflicts_with = "format"
    )]
    pub sql: Option<SqlColumn>,

    /// The TypeID prefix of `-f typeid` (a-z and _, at most 63).
    #[arg(long, value_name = "P")]
    pub prefix: Option<Prefix>,
}

/// `uuidkit completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum, ignore_case = true)]
    pub shell: clap_complete::Shell,
}

/// `uuidkit man`.
#[derive(Debug, Args)]
pub struct ManArgs {
    /// A subcommand, for its own page (uuidkit-new(1) …).
    #[arg(value_name = "SUBCOMMAND")]
    pub command: Option<String>,
}

/// A UUID kind as `python -m uuid -u` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PyKind {
    /// v1.
    Uuid1,
    /// v3.
    Uuid3,
    /// v4.
    Uuid4,
    /// v5.
    Uuid5,
    /// v6.
    Uuid6,
    /// v7.
    Uuid7,
    /// v8.
    Uuid8,
}

/// Top-level options kept for `uuidgen` (util-linux) and `python -m uuid` users.
#[derive(Debug, Args, Default)]
pub struct Compat {
    /// Which kind (at most one of -r -t -6 -7 -m -s -u).
    #[command(flatten)]
    pub kind: CompatKind,

    /// Namespace for -m/-s/-u uuid3|uuid5|uuid8: @dns, @url, @oid, @x500 or a UUID.
    #[arg(short = 'n', long = "namespace", value_name = "NS")]
    pub namespace: Option<NamespaceArg>,

    /// Name for -m/-s/-u uuid3|uuid5|uuid8; the next argument whatever it is (-foo too).
    #[arg(
        short = 'N',
        long = "name",
        value_name = "NAME",
        allow_hyphen_values = true
    )]
    pub name: Option<OsString>,

    /// Interpret the name (-N) as hex digits, as `uuidgen -x`.
    #[arg(short = 'x', long = "hex")]
    pub hex: bool,

    /// How many UUIDs, as `uuidgen -C`.
    #[arg(
        short = 'C',
        long = "count",
        value_name = "N",
        allow_negative_numbers = true
    )]
    pub count: Option<Count>,
}

/// Parses the process arguments (clap errors are returned, not printed).
pub fn parse_from<I, T>(args: I) -> Result<Cli, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    Cli::try_parse_from(hyphen_values(args.into_iter().map(Into::into).collect()))
}

/// The length of a base64url text, the one form whose alphabet has `-`.
const BASE64URL_LEN: usize = 22;

/// `args` with the base64url texts that begin with `-` read as values.
///
/// One base64url text in 64 begins with `-`, and clap would read it as a
/// flag. With `--from base64url`, `inspect`, `check` and `convert` take every
/// argument of 22 base64url characters as a value, wherever it stands: the
/// values are moved after a `--`, in their order, and the flags (with the
/// values of those that take one) before it.
fn hyphen_values(args: Vec<OsString>) -> Vec<OsString> {
    let Some(sub) = args.get(1).and_then(|a| a.to_str()) else {
        return args;
    };
    let command = command();
    let Some(sub) = command
        .find_subcommand(sub)
        .filter(|c| c.get_arguments().any(|a| a.get_id() == "from"))
    else {
        return args;
    };
    let end = args.iter().position(|a| a == "--").unwrap_or(args.len());
    let base64url = args[2..end]
        .windows(2)
        .any(|w| w[0] == "--from" && w[1] == "base64url")
        || args[2..end].iter().any(|a| a == "--from=base64url");
    if !base64url {
        return args;
    }
    // The flags that take a value in the next argument.
    let takes_value = |a: &OsString| {
        sub.get_arguments().any(|arg| {
            arg.get_action().takes_values()
                && (arg
                    .get_long()
                    .is_some_and(|l| a.to_str() == Some(&format!("--{l}")))
                    || arg
                        .get_short()
                        .is_some_and(|c| a.to_str() == Some(&format!("-{c}"))))
        })
    };
    let is_text = |a: &OsString| {
        let b = a.as_encoded_bytes();
        b.len() == BASE64URL_LEN
            && b.iter()
                .all(|c| c.is_ascii_alphanumeric() || b"-_".contains(c))
    };
    let (mut flags, mut values) = (args[..2].to_vec(), Vec::new());
    let mut i = 2;
    while i < end {
        let a = &args[i];
        if is_text(a) || !a.as_encoded_bytes().starts_with(b"-") || a == "-" {
            values.push(a.clone());
        } else {
            flags.push(a.clone());
            if takes_value(a) && i + 1 < end {
                i += 1;
                flags.push(args[i].clone());
            }
        }
        i += 1;
    }
    flags.push("--".into());
    flags.extend(values);
    flags.extend(args.into_iter().skip(end + 1));
    flags
}

/// The clap command, for completions and the man page.
pub fn command() -> clap::Command {
    <Cli as clap::CommandFactory>::command()
}

/// The clap command as it runs, with what clap adds when it builds it (the
/// `help` subcommand): the man pages list its subcommands, and each listed
/// one has a page.
pub fn built_command() -> clap::Command {
    let mut cmd = command();
    cmd.build();
    cmd
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clap_definition_is_consistent() {
        command().debug_assert();
    }

    #[test]
    fn digits_work_as_short_flags() {
        let cli = parse_from(["uuidkit", "-7", "-C", "3"]).unwrap();
        assert!(cli.compat.kind.time_v7);
        assert_eq!(cli.compat.count.map(|c| c.0), Some(3));
        let cli = parse_from(["uuidkit", "-6"]).unwrap();
        assert!(cli.compat.kind.time_v6);
    }

    #[test]
    fn count_forms() {
        for args in [
            &["uuidkit", "new", "v4", "-n", "5"][..],
            &["uuidkit", "new", "v4", "-n5"],
            &["uuidkit", "new", "v4", "--count=5"],
            &["uuidkit", "new", "v4", "-C", "5"],
        ] {
            let cli = parse_from(args.iter().copied()).unwrap();
            let Some(Command::New(n)) = cli.command else {
                panic!("{args:?}")
            };
            assert_eq!(n.count.0, 5, "{args:?}");
        }
    }

    #[test]
    fn kind_aliases() {
        for (alias, kind) in [
            ("4", Kind::V4),
            ("uuid7", Kind::V7),
            ("random", Kind::V4),
            ("V7", Kind::V7),
            ("UUID1", Kind::V1),
            ("Max", Kind::Max),
        ] {
            let cli = parse_from(["uuidkit", "new", alias]).unwrap();
            let Some(Command::New(n)) = cli.command else {
                panic!()
            };
            assert_eq!(n.kind, kind);
        }
    }

    #[test]
    fn convert_to_takes_every_version_and_every_form() {
        let versions = ConvertTo::value_variants().len();
        assert_eq!(
            CONVERT_TARGETS.len(),
            versions + Format::value_variants().len()
        );
        for f in Format::value_variants() {
            assert!(CONVERT_TARGETS.contains(&ConvertTarget::Form(*f)), "{f:?}");
        }
        for (arg, want) in [
            ("v6", ConvertTarget::Version(ConvertTo::V6)),
            ("1", ConvertTarget::Version(ConvertTo::V1)),
            (
                "base58",
                ConvertTarget::Form(Format::Encoded(uuidkit::encoding::Encoding::Base58)),
            ),
            (
                "crockford",
                ConvertTarget::Form(Format::Encoded(uuidkit::encoding::Encoding::Base32)),
            ),
        ] {
            let cli = parse_from(["uuidkit", "convert", "--to", arg]).unwrap();
            let Some(Command::Convert(c)) = cli.command else {
                panic!("{arg}")
            };
            assert_eq!(c.to, Some(want), "{arg}");
        }
    }

    #[test]
    fn form_names_are_the_command_lines() {
        for f in Format::value_variants() {
            assert_eq!(f.to_possible_value().unwrap().get_name(), f.name());
        }
    }

    #[test]
    fn compat_kinds_are_exclusive() {
        let err = parse_from(["uuidkit", "-r", "-t"]).unwrap_err();
        assert_eq!(err.kind(), clap::error::ErrorKind::ArgumentConflict);
    }
}

/// The kind options of [`Compat`]: at most one.
#[derive(Debug, Args, Default)]
#[group(id = "compat_kind", multiple = false)]
pub struct CompatKind {
    /// Random-based UUID (v4), as `uuidgen -r`.
    #[arg(short = 'r', long = "random")]
    pub random: bool,

    /// Time-based UUID (v1), as `uuidgen -t`.
    #[arg(short = 't', long = "time")]
    pub time: bool,

    /// Reordered time-based UUID (v6), as `uuidgen -6`.
    #[arg(short = '6', long = "time-v6")]
    pub time_v6: bool,

    /// Unix time-based UUID (v7), as `uuidgen -7`.
    #[arg(short = '7', long = "time-v7")]
    pub time_v7: bool,

    /// Name-based MD5 UUID (v3), as `uuidgen -m`; needs -n and -N.
    #[arg(short = 'm', long = "md5")]
    pub md5: bool,

    /// Name-based SHA-1 UUID (v5), as `uuidgen -s`; needs -n and -N.
    #[arg(short = 's', long = "sha1")]
    pub sha1: bool,

    /// Kind as `python -m uuid -u`: uuid1, uuid3, uuid4, uuid5, uuid6, uuid7, uuid8.
    #[arg(
        short = 'u',
        long = "uuid",
        value_enum,
        ignore_case = true,
        value_name = "KIND"
    )]
    pub uuid: Option<PyKind>,
}
