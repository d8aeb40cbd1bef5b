//! Which interfaces participate (docs/uiap-design.md D23), found by rescanning.
//!
//! The daemon rescans once a second ([`Config::rescan_ms`](crate::Config::rescan_ms)) instead
//! of listening to netlink. A rescan reads `/proc/net/if_inet6` (every IPv6 address with its
//! interface index and `IFA_F_*` flags, so a tentative or DAD-failed address is visible) and, per
//! interface, `/sys/class/net/NAME/flags` (`IFF_UP`, `IFF_MULTICAST`, `IFF_LOOPBACK`) and
//! `/sys/class/net/NAME/operstate` (carrier). All of these are per network namespace. A change
//! (interface up or down, a link-local address leaving tentative) is picked up within one
//! period, well inside the 2.5 s claim window.
//!
//! An interface participates when it is up with operstate `up` (or `unknown`), multicast-capable,
//! not loopback, has a link-local address that is neither tentative, optimistic nor DAD-failed,
//! and is named by `--iface` (or no `--iface` was given).

use std::io;
use std::net::Ipv6Addr;

const IFA_F_OPTIMISTIC: u32 = 0x04;
const IFA_F_DADFAILED: u32 = 0x08;
const IFA_F_TENTATIVE: u32 = 0x40;
const IFF_UP: u32 = 0x1;
const IFF_LOOPBACK: u32 = 0x8;
const IFF_MULTICAST: u32 = 0x1000;

/// A participating interface.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Interface {
    /// The kernel's interface index (the scope ID of its link-local addresses).
    pub(crate) index: u32,
    /// The interface name.
    pub(crate) name: String,
    /// A usable (non-tentative) link-local address.
    pub(crate) link_local: Ipv6Addr,
}

impl std::fmt::Display for Interface {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} ({}, {}%{})",
            self.name, self.index, self.link_local, self.index
        )
    }
}

/// One line of `/proc/net/if_inet6`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct AddrLine {
    /// The address.
    pub(crate) addr: Ipv6Addr,
    /// The interface index.
    pub(crate) index: u32,
    /// The `IFA_F_*` flags.
    pub(crate) flags: u32,
    /// The interface name.
    pub(crate) name: String,
}

/// Parses the text of `/proc/net/if_inet6`; malformed lines are skipped.
pub(crate) fn parse_if_inet6(text: &str) -> Vec<AddrLine> {
    text.lines()
        .filter_map(|line| {
            let mut f = line.split_whitespace();
            let hex = f.next()?;
            let index = u32::from_str_radix(f.next()?, 16).ok()?;
            let _prefix = f.next()?;
            let _scope = f.next()?;
            let flags = u32::from_str_radix(f.next()?, 16).ok()?;
            let name = f.next()?.to_string();
            if hex.len() != 32 {
                return None;
            }
            let bits = u128::from_str_radix(hex, 16).ok()?;
            Some(AddrLine {
                addr: Ipv6Addr::from(bits),
                index,
                flags,
                name,
            })
        })
        .collect()
}

/// Whether an address line is a usable link-local address.
fn usable_link_local(line: &AddrLine) -> bool {
    line.addr.segments()[0] & 0xffc0 == 0xfe80
        && line.flags & (IFA_F_TENTATIVE | IFA_F_DADFAILED) == 0
        && line.flags & IFA_F_OPTIMISTIC == 0
}

/// Scans the current network namespace for participating interfaces, sorted by index.
///
/// `only` restricts the result to these names (empty: no restriction).
///
/// # Errors
///
/// An I/O error if `/proc/net/if_inet6` cannot be read (no IPv6 in this kernel).
pub(crate) fn scan(only: &[String]) -> io::Result<Vec<Interface>> {
    let text = std::fs::read_to_string("/proc/net/if_inet6")?;
    let mut out: Vec<Interface> = Vec::new();
    for line in parse_if_inet6(&text) {
        if !usable_link_local(&line) || out.iter().any(|i| i.index == line.index) {
            continue;
        }
        if !only.is_empty() && !only.contains(&line.name) {
            continue;
        }
        let Ok(flags) = std::fs::read_to_string(format!("/sys/class/net/{}/flags", line.name))
        else {
            continue;
        };
        let Ok(flags) = u32::from_str_radix(flags.trim().trim_start_matches("0x"), 16) else {
            continue;
        };
        let wanted = IFF_UP | IFF_MULTICAST;
        if flags & wanted != wanted || flags & IFF_LOOPBACK != 0 {
            continue;
        }
        // The sysfs flags are the administrative ones; the carrier is in operstate.
        let oper = std::fs::read_to_string(format!("/sys/class/net/{}/operstate", line.name))
            .unwrap_or_default();
        if !matches!(oper.trim(), "up" | "unknown") {
            continue;
        }
        out.push(Interface {
            index: line.index,
            name: line.name,
            link_local: line.addr,
        });
    }
    out.sort_by_key(|i| i.index);
    Ok(out)
}

/// The modified EUI-64 of a MAC address, as in the interface identifier of an IPv6 address
/// (RFC 4291 appendix A): a 48-bit MAC gets `ff:fe` in its middle, and the universal/local bit
/// is inverted; a 64-bit EUI only has the bit inverted. `None` for another length or an
/// all-zero address (no MAC: loopback, tunnels).
pub(crate) fn modified_eui64(mac: &[u8]) -> Option<u64> {
    if mac.iter().all(|&b| b == 0) {
        return None;
    }
    let mut eui = match *mac {
        [a, b, c, d, e, f] => [a, b, c, 0xff, 0xfe, d, e, f],
        [a, b, c, d, e, f, g, h] => [a, b, c, d, e, f, g, h],
        _ => return None,
    };
    eui[0] ^= 0x02;
    Some(u64::from_be_bytes(eui))
}

/// The device ID taken from interface `name`'s MAC address: its modified EUI-64
/// (docs/uiap-design.md D37).
///
/// # Errors
///
/// [`DaemonErrorKind::Config`](crate::DaemonErrorKind::Config) naming the interface if it does
/// not exist, or has no usable MAC address.
pub(crate) fn eui64_device_id(name: &str) -> Result<u64, crate::DaemonError> {
    let err = |m: String| crate::DaemonError::new(crate::DaemonErrorKind::Config, m);
    if name.is_empty() || name.contains('/') || name.starts_with('.') {
        return Err(err(format!(
            "device-id-iface: expected an interface name, found `{name}`"
        )));
    }
    let path = format!("/sys/class/net/{name}/address");
    let text = std::fs::read_to_string(&path).map_err(|e| {
        err(format!(
            "device-id-iface: expected an existing interface, found none named `{name}` ({path}: {e})"
        ))
    })?;
    let mac: Option<Vec<u8>> = text
        .trim()
        .split(':')
        .map(|h| u8::from_str_radix(h, 16).ok())
        .collect();
    mac.as_deref().and_then(modified_eui64).ok_or_else(|| {
        err(format!(
            "device-id-iface: expected an interface with a 48- or 64-bit MAC address, found `{}` on `{name}`",
            text.trim()
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tentative_and_global_addresses_are_not_usable() {
        let text = "\
fe800000000000000000000000000001 04 40 20 40     eth0
fe800000000000000000000000000002 05 40 20 80     eth1
20010db8000000000000000000000001 06 40 00 80     eth2
fe800000000000000000000000000003 07 40 20 08     eth3
";
        let lines = parse_if_inet6(text);
        assert_eq!(lines.len(), 4);
        let usable: Vec<_> = lines
            .iter()
            .filter(|l| usable_link_local(l))
            .map(|l| l.index)
            .collect();
        assert_eq!(usable, [5]);
    }

    #[test]
    fn a_line_of_if_inet6_reads_whole_and_garbage_is_skipped() {
        let lines = parse_if_inet6("fe800000000000000000000000000001 04 40 20 c0     eth0\n");
        assert_eq!(lines.len(), 1);
        assert_eq!(lines[0].addr.to_string(), "fe80::1");
        assert_eq!(
            (lines[0].index, lines[0].flags, lines[0].name.as_str()),
            (4, 0xc0, "eth0")
        );
        assert!(parse_if_inet6("garbage\n").is_empty());
        assert!(
            parse_if_inet6("fe80 04 40 20 c0 eth0\n").is_empty(),
            "a short address"
        );
    }

    #[test]
    fn an_interface_shows_its_name_index_and_scoped_address() {
        let i = Interface {
            index: 3,
            name: "veth0".into(),
            link_local: "fe80::1".parse().unwrap(),
        };
        assert_eq!(i.to_string(), "veth0 (3, fe80::1%3)");
    }

    #[test]
    fn loopback_never_participates() {
        assert!(scan(&["lo".to_string()]).unwrap().is_empty());
    }

    #[test]
    fn a_mac_gives_its_modified_eui64() {
        // RFC 2464 §4: 34-56-78-9A-BC-DE gives the interface identifier 3656:78FF:FE9A:BCDE.
        assert_eq!(
            modified_eui64(&[0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde]),
            Some(0x3656_78ff_fe9a_bcde)
        );
        assert_eq!(
            modified_eui64(&[0x02, 0, 0, 0, 0, 0, 0, 1]),
            Some(1),
            "a 64-bit EUI only has the bit inverted"
        );
        assert_eq!(modified_eui64(&[0; 6]), None);
        assert_eq!(modified_eui64(&[1, 2, 3]), None);
    }

    #[test]
    fn a_device_id_comes_only_from_an_interface_with_a_mac() {
        for (name, message) in [
            ("", "expected an interface name, found ``"),
            ("../x", "expected an interface name, found `../x`"),
            (
                "uiap-none0",
                "expected an existing interface, found none named `uiap-none0`",
            ),
            (
                "lo",
                "expected an interface with a 48- or 64-bit MAC address, found `00:00:00:00:00:00` on `lo`",
            ),
        ] {
            let e = eui64_device_id(name).unwrap_err();
            assert_eq!(e.kind(), crate::DaemonErrorKind::Config);
            assert!(e.to_string().contains(message), "{e}");
        }
    }
}
