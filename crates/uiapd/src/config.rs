//! Daemon configuration: flags, and an optional TOML file with the same names.
//!
//! Flags win over the file; the file wins over the defaults. The file uses the long flag names as
//! keys:
//!
//! ```toml
//! iface = ["eth0", "eth1"]          # default: every multicast-capable interface with a link-local address
//! control = "/run/uiapd/control.sock"
//! state = "/var/lib/uiapd"
//! group = "ff12::8000:7569"
//! claim-port = 61001
//! reply-port = 61002
//! psk-file = "/etc/uiapd/psk"       # optional: HMAC-SHA-256 trailer on every datagram
//! log-level = "info"
//! rescan-ms = 1000                  # how often interfaces are rescanned (100 to 60000)
//! max-connections = 256             # control connections at once (1 to 100000)
//! control-idle-s = 60               # a control connection without a request is closed (1 to 86400)
//! device-id-iface = "eth0"          # optional: device ID from this interface's MAC (EUI-64)
//!
//! [protocol]                        # the protocol's timers and tables: see `uiapd::tuning`
//! renew-at-percent = 75
//! ```

use std::net::Ipv6Addr;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::quota::{UserArgs, UserLimits};
use crate::tuning::Tuning;
use crate::{DaemonError, DaemonErrorKind};

/// The default multicast group (docs/uiap-design.md D19).
pub const DEFAULT_GROUP: Ipv6Addr = Ipv6Addr::new(0xff12, 0, 0, 0, 0, 0, 0x8000, 0x7569);
/// The default claim port (docs/uiap-design.md D20).
pub const DEFAULT_CLAIM_PORT: u16 = 61001;
/// The default reply port (docs/uiap-design.md D20).
pub const DEFAULT_REPLY_PORT: u16 = 61002;
/// The default control socket: where clients of the control protocol look first.
pub const DEFAULT_CONTROL: &str = uiap_control::DEFAULT_CONTROL;
/// The default state directory.
pub const DEFAULT_STATE: &str = "/var/lib/uiapd";

/// Everything `uiapd` needs to know before it starts.
///
/// ```
/// use uiapd::Config;
///
/// let config = Config::default();
/// assert_eq!(config.claim_port, 61001);
/// assert_eq!(config.group.to_string(), "ff12::8000:7569");
/// assert!(config.ifaces.is_empty()); // all suitable interfaces
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// Participating interfaces by name; empty means every multicast-capable interface with a
    /// link-local address (loopback excluded).
    pub ifaces: Vec<String>,
    /// The control socket (created with mode 0660).
    pub control: PathBuf,
    /// The state directory (device ID and claims).
    pub state: PathBuf,
    /// The multicast group Claim-Attempts are sent to.
    pub group: Ipv6Addr,
    /// The UDP port Claim-Attempts are sent to.
    pub claim_port: u16,
    /// The UDP port Denies are sent to and from.
    pub reply_port: u16,
    /// The pre-shared key, if any (the file's bytes, trailing newline removed).
    pub psk: Option<Vec<u8>>,
    /// A `tracing` filter such as `info` or `uiap=debug`.
    pub log_level: String,
    /// How often interfaces are rescanned, in milliseconds.
    pub rescan_ms: u64,
    /// Control connections open at once (lowered to keep descriptors in reserve:
    /// docs/uiap-design.md D36).
    pub max_connections: usize,
    /// Seconds a control connection may stay without a request before it is closed.
    pub control_idle_s: u64,
    /// What each user other than root may take: connections, claims, lifetimes, widths
    /// (docs/uiap-design.md D65).
    pub users: UserLimits,
    /// Take the device ID from this interface's MAC address (modified EUI-64) instead of the
    /// persisted random one (docs/uiap-design.md D37).
    pub device_id_iface: Option<String>,
    /// The protocol's timers, table sizes, proxy defense and renewal settings
    /// (docs/uiap-design.md D35). Its `auto_renew` is ignored: renewal is chosen per claim.
    pub device: uiap::config::Config,
    /// The site leases' liveness window (`lease-liveness-ms`; zero: no lease relies on this
    /// daemon's claim windows), told to leases in `status` (docs/uiap-design.md D73).
    pub lease_liveness: std::time::Duration,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            ifaces: Vec::new(),
            control: PathBuf::from(DEFAULT_CONTROL),
            state: PathBuf::from(DEFAULT_STATE),
            group: DEFAULT_GROUP,
            claim_port: DEFAULT_CLAIM_PORT,
            reply_port: DEFAULT_REPLY_PORT,
            psk: None,
            log_level: "info".into(),
            rescan_ms: 1000,
            max_connections: 256,
            control_idle_s: 60,
            users: UserLimits::default(),
            device_id_iface: None,
            device: uiap::config::Config::default(),
            lease_liveness: crate::tuning::DEFAULT_LEASE_LIVENESS,
        }
    }
}

/// The command line of `uiapd`.
///
/// ```
/// use clap::Parser;
/// use uiapd::config::Args;
///
/// let args = Args::try_parse_from(["uiapd", "--iface", "eth0", "--iface", "eth1", "--claim-port", "7"])?;
/// let config = args.into_config()?;
/// assert_eq!(config.ifaces, ["eth0", "eth1"]);
/// assert_eq!(config.claim_port, 7);
/// Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(clap::Parser, Clone, Debug, Default)]
#[command(
    name = "uiapd",
    version,
    about = "UIAP daemon: claims and defends identifiers on the local links",
    long_about = None
)]
pub struct Args {
    /// A TOML file with the same keys as the long flags.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// A participating interface (repeatable; default: all multicast-capable interfaces with a
    /// link-local address).
    #[arg(long = "iface", value_name = "NAME")]
    pub iface: Vec<String>,
    /// The control socket path (default /run/uiapd/control.sock).
    #[arg(long, value_name = "PATH")]
    pub control: Option<PathBuf>,
    /// The state directory (default /var/lib/uiapd).
    #[arg(long, value_name = "DIR")]
    pub state: Option<PathBuf>,
    /// The multicast group (default ff12::8000:7569).
    #[arg(long, value_name = "ADDR")]
    pub group: Option<Ipv6Addr>,
    /// The claim port (default 61001).
    #[arg(long, value_name = "PORT")]
    pub claim_port: Option<u16>,
    /// The reply port (default 61002).
    #[arg(long, value_name = "PORT")]
    pub reply_port: Option<u16>,
    /// A file holding a pre-shared key: every datagram then carries an HMAC-SHA-256 trailer.
    #[arg(long, value_name = "FILE")]
    pub psk_file: Option<PathBuf>,
    /// The log filter (`error`, `warn`, `info`, `debug`, `trace`, or a `tracing` directive).
    #[arg(long, value_name = "LEVEL")]
    pub log_level: Option<String>,
    /// Defend no other device's claims by proxy (X+R Attempts are still forwarded); the same as
    /// `--proxy-defense false`.
    #[arg(long)]
    pub no_proxy_defense: bool,
    /// Milliseconds between interface rescans (100 to 60000; default 1000).
    #[arg(long, value_name = "MS")]
    pub rescan_ms: Option<u64>,
    /// Control connections open at once (1 to 100000; default 256; lowered to keep file
    /// descriptors in reserve).
    #[arg(long, value_name = "N")]
    pub max_connections: Option<usize>,
    /// Seconds a control connection may stay without a request (1 to 86400; default 60).
    #[arg(long, value_name = "S")]
    pub control_idle_s: Option<u64>,
    /// Use the modified EUI-64 of this interface's MAC address as the device ID (default: a
    /// random ID, persisted in the state directory).
    #[arg(long, value_name = "NAME")]
    pub device_id_iface: Option<String>,
    /// The protocol's settings (the `[protocol]` table of the file).
    #[command(flatten)]
    pub protocol: Tuning,
    /// What each user other than root may take (the `[users]` table of the file).
    #[command(flatten)]
    pub users: UserArgs,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct File {
    iface: Option<Vec<String>>,
    control: Option<PathBuf>,
    state: Option<PathBuf>,
    group: Option<Ipv6Addr>,
    claim_port: Option<u16>,
    reply_port: Option<u16>,
    psk_file: Option<PathBuf>,
    log_level: Option<String>,
    rescan_ms: Option<u64>,
    max_connections: Option<usize>,
    control_idle_s: Option<u64>,
    device_id_iface: Option<String>,
    protocol: Option<Tuning>,
    users: Option<UserArgs>,
}

impl Config {
    /// Parses a configuration file's text (keys as the long flags).
    ///
    /// # Errors
    ///
    /// [`DaemonErrorKind::Config`] for TOML errors, unknown keys and values of the wrong type;
    /// [`DaemonErrorKind::Io`] if `psk-file` cannot be read.
    ///
    /// ```
    /// use uiapd::Config;
    ///
    /// let config = Config::from_toml_str("iface = [\"veth0\"]\nreply-port = 7000")?;
    /// assert_eq!(config.ifaces, ["veth0"]);
    /// assert_eq!(config.reply_port, 7000);
    /// Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_toml_str(text: &str) -> Result<Config, DaemonError> {
        let file = parse_file(text)?;
        let mut config = Config::default();
        let (tuning, users) = config.apply_file(file)?;
        tuning.apply(&mut config.device)?;
        config.lease_liveness = tuning.lease_liveness();
        users.apply(&mut config.users)?;
        config.validate()?;
        Ok(config)
    }

    /// Applies the file's top-level keys; returns its `[protocol]` and `[users]` tables for the
    /// caller to merge with flags before applying.
    fn apply_file(&mut self, file: File) -> Result<(Tuning, UserArgs), DaemonError> {
        if let Some(v) = file.iface {
            self.ifaces = v;
        }
        if let Some(v) = file.control {
            self.control = v;
        }
        if let Some(v) = file.state {
            self.state = v;
        }
        if let Some(v) = file.group {
            self.group = v;
        }
        if let Some(v) = file.claim_port {
            self.claim_port = v;
        }
        if let Some(v) = file.reply_port {
            self.reply_port = v;
        }
        if let Some(v) = file.psk_file {
            self.psk = Some(read_psk(&v)?);
        }
        if let Some(v) = file.log_level {
            self.log_level = v;
        }
        self.set_limits(file.rescan_ms, file.max_connections, file.control_idle_s);
        if file.device_id_iface.is_some() {
            self.device_id_iface = file.device_id_iface;
        }
        Ok((
            file.protocol.unwrap_or_default(),
            file.users.unwrap_or_default(),
        ))
    }

    fn set_limits(&mut self, rescan: Option<u64>, max: Option<usize>, idle: Option<u64>) {
        if let Some(v) = rescan {
            self.rescan_ms = v;
        }
        if let Some(v) = max {
            self.max_connections = v;
        }
        if let Some(v) = idle {
            self.control_idle_s = v;
        }
    }

    /// Checks the values that cannot be checked by type alone.
    ///
    /// # Errors
    ///
    /// [`DaemonErrorKind::Config`] if the group is not a link-scope multicast address, a port
    /// is 0, the two ports are equal, or the key is empty.
    ///
    /// ```
    /// use uiapd::Config;
    ///
    /// let mut config = Config::default();
    /// assert!(config.validate().is_ok());
    /// config.reply_port = config.claim_port;
    /// assert!(config.validate().unwrap_err().to_string().contains("differ"));
    /// ```
    pub fn validate(&self) -> Result<(), DaemonError> {
        let err = |m: String| Err(DaemonError::new(DaemonErrorKind::Config, m));
        let seg0 = self.group.segments()[0];
        if seg0 & 0xff00 != 0xff00 || seg0 & 0x000f != 0x2 {
            return err(format!(
                "group: expected a link-scope multicast address ff?2::/16, found {}",
                self.group
            ));
        }
        if self.claim_port == 0 || self.reply_port == 0 {
            return err("ports: expected non-zero claim and reply ports, found 0".into());
        }
        if self.claim_port == self.reply_port {
            return err(format!(
                "ports: expected claim and reply ports to differ, found {} for both",
                self.claim_port
            ));
        }
        if self.psk.as_ref().is_some_and(|k| k.is_empty()) {
            return err("psk-file: expected a non-empty key, found an empty file".into());
        }
        for (key, value, lo, hi) in [
            ("rescan-ms", self.rescan_ms, 100, 60_000),
            ("max-connections", self.max_connections as u64, 1, 100_000),
            ("control-idle-s", self.control_idle_s, 1, 86_400),
        ] {
            if !(lo..=hi).contains(&value) {
                return err(format!("{key}: expected {lo} to {hi}, found {value}"));
            }
        }
        Ok(())
    }
}

impl Args {
    /// Merges the flags over the file (if `--config` was given) over the defaults, and validates.
    ///
    /// # Errors
    ///
    /// As [`Config::from_toml_str`] and [`Config::validate`]; [`DaemonErrorKind::Io`] if a file
    /// cannot be read.
    ///
    /// ```
    /// use clap::Parser;
    /// use uiapd::config::Args;
    ///
    /// let err = Args::try_parse_from(["uiapd", "--group", "ff05::1"])?.into_config().unwrap_err();
    /// assert!(err.to_string().contains("link-scope"));
    /// Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn into_config(self) -> Result<Config, DaemonError> {
        let mut config = Config::default();
        let (file_tuning, file_users) = match &self.config {
            Some(path) => {
                let text = std::fs::read_to_string(path)
                    .map_err(|e| DaemonError::io("cannot read config file", Some(path), e))?;
                let mut file = parse_file(&text).map_err(|e| e.with_path(path))?;
                if self.psk_file.is_some() {
                    // The flag wins: the file's key is not read at all.
                    file.psk_file = None;
                }
                config.apply_file(file).map_err(|e| e.with_path(path))?
            }
            None => (Tuning::default(), UserArgs::default()),
        };
        let tuning = file_tuning.overlaid(&self.protocol);
        tuning.apply(&mut config.device)?;
        config.lease_liveness = tuning.lease_liveness();
        file_users.overlaid(&self.users).apply(&mut config.users)?;
        config.set_limits(self.rescan_ms, self.max_connections, self.control_idle_s);
        if self.device_id_iface.is_some() {
            config.device_id_iface = self.device_id_iface;
        }
        if let Some(name) = &config.device_id_iface {
            // Checked now so that a wrong name is a configuration error, not a failed start.
            crate::iface::eui64_device_id(name)?;
        }
        if !self.iface.is_empty() {
            config.ifaces = self.iface;
        }
        if let Some(v) = self.control {
            config.control = v;
        }
        if let Some(v) = self.state {
            config.state = v;
        }
        if let Some(v) = self.group {
            config.group = v;
        }
        if let Some(v) = self.claim_port {
            config.claim_port = v;
        }
        if let Some(v) = self.reply_port {
            config.reply_port = v;
        }
        if let Some(v) = &self.psk_file {
            config.psk = Some(read_psk(v)?);
        }
        if let Some(v) = self.log_level {
            config.log_level = v;
        }
        if self.no_proxy_defense {
            config.device.proxy_defense = false;
        }
        config.validate()?;
        Ok(config)
    }
}

/// Parses the file's TOML: a syntax error, an unknown key or a value of the wrong type is
/// named on one line.
fn parse_file(text: &str) -> Result<File, DaemonError> {
    toml::from_str(text).map_err(|e| {
        DaemonError::new(
            DaemonErrorKind::Config,
            e.to_string().trim_end().replace('\n', " "),
        )
    })
}

fn read_psk(path: &Path) -> Result<Vec<u8>, DaemonError> {
    let mut key =
        std::fs::read(path).map_err(|e| DaemonError::io("cannot read psk file", Some(path), e))?;
    while key.last().is_some_and(|b| *b == b'\n' || *b == b'\r') {
        key.pop();
    }
    Ok(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_help_names_the_default_paths() {
        use clap::CommandFactory;
        let help = Args::command().render_help().to_string();
        assert!(
            help.contains(&format!("(default {DEFAULT_CONTROL})")),
            "{help}"
        );
        assert!(
            help.contains(&format!("(default {DEFAULT_STATE})")),
            "{help}"
        );
    }

    #[test]
    fn a_psk_file_flag_wins_and_the_files_key_is_not_read() {
        use clap::Parser;
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("uiapd.toml");
        std::fs::write(&config, "psk-file = \"/nonexistent/uiapd.key\"\n").unwrap();
        let key = dir.path().join("good.key");
        std::fs::write(&key, "k\n").unwrap();
        let args = Args::try_parse_from([
            "uiapd",
            "--config",
            config.to_str().unwrap(),
            "--psk-file",
            key.to_str().unwrap(),
        ])
        .unwrap();
        assert_eq!(args.into_config().unwrap().psk, Some(b"k".to_vec()));
    }
    use clap::Parser;

    #[test]
    fn flags_override_file() {
        let dir = std::env::temp_dir().join(format!("uiapd-config-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("uiapd.toml");
        std::fs::write(
            &file,
            "iface = [\"a\"]\nclaim-port = 5000\nlog-level = \"debug\"\n",
        )
        .unwrap();
        let args = Args::try_parse_from([
            "uiapd",
            "--config",
            file.to_str().unwrap(),
            "--claim-port",
            "6000",
        ])
        .unwrap();
        let config = args.into_config().unwrap();
        assert_eq!(config.ifaces, ["a"]);
        assert_eq!(config.claim_port, 6000);
        assert_eq!(config.log_level, "debug");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn proxy_defense_is_on_unless_switched_off() {
        assert!(Config::default().device.proxy_defense);
        let off = Config::from_toml_str("[protocol]\nproxy-defense = false").unwrap();
        assert!(!off.device.proxy_defense);
        let flag = Args::try_parse_from(["uiapd", "--no-proxy-defense"])
            .unwrap()
            .into_config()
            .unwrap();
        assert!(!flag.device.proxy_defense);
        let err = Config::from_toml_str("[protocol]\nproxy-defense = 1").unwrap_err();
        assert_eq!(err.kind(), DaemonErrorKind::Config);
    }

    #[test]
    fn protocol_settings_come_from_the_file_and_flags_with_ranges() {
        let config =
            Config::from_toml_str("[protocol]\nhop-limit = 8\nproxy-defense = false\n").unwrap();
        assert_eq!(config.device.hop_limit, 8);
        assert!(!config.device.proxy_defense);
        let config =
            Config::from_toml_str("[protocol]\nforward-rate = 0\nproxy-min-prefix-bits = 16\n")
                .unwrap();
        assert_eq!(config.device.forward_rate, 0);
        assert_eq!(config.device.proxy_min_prefix_bits, 16);
        let err = Config::from_toml_str("[protocol]\nproxy-min-prefix-bits = 0\n").unwrap_err();
        assert_eq!(
            err.message(),
            "proxy-min-prefix-bits: expected 1 to 128, found 0"
        );
        let err = Config::from_toml_str("[protocol]\nrenew-at-percent = 95\n").unwrap_err();
        assert_eq!(
            err.message(),
            "renew-at-percent: expected 10 to 90, found 95"
        );
        let err = Config::from_toml_str("[protocol]\nhop-limits = 8\n").unwrap_err();
        assert!(
            err.message().contains("unknown field `hop-limits`"),
            "{err}"
        );
        let err = Config::from_toml_str("max-connections = 0").unwrap_err();
        assert_eq!(
            err.message(),
            "max-connections: expected 1 to 100000, found 0"
        );

        let dir = std::env::temp_dir().join(format!("uiapd-tuning-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("uiapd.toml");
        std::fs::write(&file, "[protocol]\nclaim-period-ms = 600\nmax-claims = 9\n").unwrap();
        let path = file.to_str().unwrap();
        let args = Args::try_parse_from(["uiapd", "--config", path, "--max-claims", "7"]).unwrap();
        let config = args.into_config().unwrap();
        assert_eq!(
            config.device.claim_period,
            std::time::Duration::from_millis(600)
        );
        assert_eq!(config.device.max_claims, 7, "the flag wins");
        let args = Args::try_parse_from(["uiapd", "--start-jitter-ms", "20000"]).unwrap();
        let err = args.into_config().unwrap_err();
        assert_eq!(
            err.message(),
            "start-jitter-ms: expected 0 to 10000, found 20000"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn user_limits_come_from_the_users_table_and_flags_over_it() {
        let dir = std::env::temp_dir().join(format!("uiapd-users-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("uiapd.toml");
        std::fs::write(&file, "[users]\nmax-claims = 4\nmin-prefix-bits = 16\n").unwrap();
        let args = Args::try_parse_from([
            "uiapd".as_ref(),
            "--config".as_ref(),
            file.as_os_str(),
            "--user-max-claims".as_ref(),
            "5".as_ref(),
        ])
        .unwrap();
        let users = args.into_config().unwrap().users;
        assert_eq!((users.max_claims, users.min_prefix_bits), (5, 16));
        assert_eq!(users.max_lifetime_s, 86_400, "the default");
        let err = Config::from_toml_str("[users]\nmax-lifetime-s = 0").unwrap_err();
        assert_eq!(
            err.message(),
            "users: max-lifetime-s: expected 1 to 4294967294, found 0"
        );
        let err = Config::from_toml_str("[users]\nmax-claim = 1").unwrap_err();
        assert!(err.message().contains("max-claim"), "{err}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn unknown_key_is_named() {
        let err = Config::from_toml_str("iface = [\"a\"]\nport = 1").unwrap_err();
        assert_eq!(err.kind(), DaemonErrorKind::Config);
        assert!(err.message().contains("unknown field `port`"), "{err}");
    }

    #[test]
    fn group_must_be_link_scope() {
        let mut config = Config {
            group: "ff02::1".parse().unwrap(),
            ..Config::default()
        };
        assert!(config.validate().is_ok());
        config.group = "fe80::1".parse().unwrap();
        assert_eq!(
            config.validate().unwrap_err().kind(),
            DaemonErrorKind::Config
        );
    }
}
