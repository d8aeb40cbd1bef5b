//! The kernel's IPv6 neighbour table, read over rtnetlink: the link-local addresses it can send
//! a unicast datagram to at once, without resolving them first (docs/uiap-design.md D79).
//!
//! A datagram to an address the kernel has not resolved waits in the kernel for neighbour
//! discovery (up to three solicitations a second apart) and holds its share of the socket's send
//! buffer all that time. Addresses no host answers for (the sources of a forged flood) never
//! resolve; [`crate::unicast`] decides how many of them may be waited for at once, and this
//! module tells it which addresses are resolved.

use std::collections::HashSet;
use std::io;
use std::net::Ipv6Addr;
use std::time::Duration;

use netlink_packet_core::{NLM_F_DUMP, NLM_F_REQUEST, NetlinkMessage, NetlinkPayload};
use netlink_packet_route::neighbour::{
    NeighbourAddress, NeighbourAttribute, NeighbourMessage, NeighbourState,
};
use netlink_packet_route::{AddressFamily, RouteNetlinkMessage};
use netlink_sys::{Socket, SocketAddr, protocols::NETLINK_ROUTE};

/// How old a reading may be before it is read again: short beside neighbour discovery's first
/// answer on a real link, so that Denies held for a neighbour while it resolves (docs/uiap-design.md
/// D79) go out soon after it does.
pub(crate) const FRESH_FOR: Duration = Duration::from_millis(20);

/// Whether the kernel sends to a neighbour in `state` without waiting: it has a link-layer
/// address for it (reachable, stale, delay, probe), or needs none (permanent, no ARP).
fn usable(state: NeighbourState) -> bool {
    matches!(
        state,
        NeighbourState::Reachable
            | NeighbourState::Stale
            | NeighbourState::Delay
            | NeighbourState::Probe
            | NeighbourState::Permanent
            | NeighbourState::Noarp
    )
}

/// The resolved IPv6 neighbours of every interface, as last read.
#[derive(Debug, Default)]
pub(crate) struct Neighbours {
    socket: Option<SocketBox>,
    resolved: HashSet<(u32, Ipv6Addr)>,
    read_at: Option<Duration>,
    /// The last reading failed.
    unreadable: bool,
}

/// `netlink_sys::Socket` does not implement `Debug`.
struct SocketBox(Socket);

impl std::fmt::Debug for SocketBox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("rtnetlink socket")
    }
}

impl Neighbours {
    /// Whether the kernel has a usable entry for `addr` on interface `index`, as last read.
    /// While the table cannot be read every neighbour counts as resolved: Denies then go to the
    /// kernel unchecked, as they would without the gate, rather than wait for a resolution
    /// nobody can see.
    pub(crate) fn resolved(&self, index: u32, addr: Ipv6Addr) -> bool {
        self.unreadable || self.resolved.contains(&(index, addr))
    }

    /// Reads the table again if the last reading is older than [`FRESH_FOR`] at `now`.
    ///
    /// # Errors
    ///
    /// An I/O error of the netlink socket, or a reply that does not parse; the last reading is
    /// kept.
    pub(crate) fn refresh(&mut self, now: Duration) -> io::Result<()> {
        if self
            .read_at
            .is_some_and(|at| now.saturating_sub(at) < FRESH_FOR)
        {
            return Ok(());
        }
        self.read_at = Some(now);
        let read = match self.socket.take() {
            Some(s) => Ok(s),
            None => open().map(SocketBox),
        }
        .and_then(|socket| {
            let resolved = dump(&socket.0)?;
            // Kept only after a whole reply: one half read would be taken for the next one's
            // start.
            self.socket = Some(socket);
            Ok(resolved)
        });
        self.unreadable = read.is_err();
        self.resolved = read?;
        Ok(())
    }
}

fn open() -> io::Result<Socket> {
    let mut socket = Socket::new(NETLINK_ROUTE)?;
    socket.bind_auto()?;
    socket.connect(&SocketAddr::new(0, 0))?;
    Ok(socket)
}

/// One dump of the IPv6 neighbour table: the usable entries.
fn dump(socket: &Socket) -> io::Result<HashSet<(u32, Ipv6Addr)>> {
    let mut message = NeighbourMessage::default();
    message.header.family = AddressFamily::Inet6;
    let mut request = NetlinkMessage::from(RouteNetlinkMessage::GetNeighbour(message));
    request.header.flags = NLM_F_REQUEST | NLM_F_DUMP;
    request.finalize();
    let mut out = vec![0; request.buffer_len()];
    request.serialize(&mut out);
    socket.send(&out, 0)?;

    let bad = |what: String| io::Error::new(io::ErrorKind::InvalidData, what);
    let mut resolved = HashSet::new();
    let mut buf = Vec::with_capacity(1 << 16);
    loop {
        buf.clear();
        socket.recv(&mut buf, 0)?;
        let mut offset = 0;
        while offset < buf.len() {
            let message = NetlinkMessage::<RouteNetlinkMessage>::deserialize(&buf[offset..])
                .map_err(|e| bad(format!("rtnetlink neighbour dump: {e}")))?;
            let len = message.header.length as usize;
            if len == 0 {
                return Err(bad("rtnetlink neighbour dump: a message of length 0".into()));
            }
            offset += len;
            match message.payload {
                NetlinkPayload::Done(_) => return Ok(resolved),
                NetlinkPayload::Error(e) => {
                    return Err(bad(format!("rtnetlink neighbour dump: {e}")));
                }
                NetlinkPayload::InnerMessage(RouteNetlinkMessage::NewNeighbour(n))
                    if usable(n.header.state) =>
                {
                    let addr = n.attributes.iter().find_map(|a| match a {
                        NeighbourAttribute::Destination(NeighbourAddress::Inet6(a)) => Some(*a),
                        _ => None,
                    });
                    if let Some(addr) = addr {
                        resolved.insert((n.header.ifindex, addr));
                    }
                }
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The loopback interface's own addresses are permanent entries in no table, but a dump
    /// must still parse and end; a reading younger than `FRESH_FOR` is not repeated.
    #[test]
    fn a_dump_parses_and_readings_are_kept_for_a_while() {
        let mut n = Neighbours::default();
        n.refresh(Duration::from_secs(1)).expect("a neighbour dump");
        assert_eq!(n.read_at, Some(Duration::from_secs(1)));
        n.refresh(Duration::from_secs(1) + FRESH_FOR / 2).unwrap();
        assert_eq!(n.read_at, Some(Duration::from_secs(1)));
        n.refresh(Duration::from_secs(1) + FRESH_FOR).unwrap();
        assert_eq!(n.read_at, Some(Duration::from_secs(1) + FRESH_FOR));
    }

    /// A table that cannot be read holds up no Deny: every neighbour counts as resolved, as
    /// before the gate, until a reading succeeds.
    #[test]
    fn while_the_table_cannot_be_read_every_neighbour_counts_as_resolved() {
        let addr = Ipv6Addr::new(0xfe80, 0, 0, 0, 0, 0, 0, 1);
        let mut n = Neighbours {
            unreadable: true,
            ..Neighbours::default()
        };
        assert!(n.resolved(2, addr));
        n.refresh(Duration::from_secs(1)).expect("a neighbour dump");
        assert!(!n.resolved(2, addr));
    }

    #[test]
    fn only_states_with_a_link_layer_address_or_none_needed_are_usable() {
        assert!(usable(NeighbourState::Reachable));
        assert!(usable(NeighbourState::Stale));
        assert!(usable(NeighbourState::Permanent));
        assert!(!usable(NeighbourState::Incomplete));
        assert!(!usable(NeighbourState::Failed));
        assert!(!usable(NeighbourState::None));
    }
}
