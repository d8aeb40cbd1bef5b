//! UDP/IPv6 sockets, one per role, and the source checks of docs/uiap-design.md D21.
//!
//! * The **claim socket** is bound to `[::]:CLAIM_PORT` and joined to the group on every
//!   participating interface. Claim-Attempts are sent from it to `[group%ifindex]:CLAIM_PORT`.
//! * The **reply socket** is bound to `[::]:REPLY_PORT`. Denies are sent from it, unicast to
//!   `[fe80::…%ifindex]:REPLY_PORT` (the previous hop), and arrive on it.
//!
//! Both sockets send with hop limit 255 (unicast and multicast), do not loop multicast back, and
//! receive `IPV6_PKTINFO` (the arrival interface) and `IPV6_HOPLIMIT` with every datagram, so that
//! [`check_source`] can accept only link-local sources one hop away on a known interface.

use std::collections::BTreeSet;
use std::io::{self, IoSliceMut};
use std::net::{Ipv6Addr, SocketAddr, SocketAddrV6};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicU32, Ordering};

use nix::sys::socket::{ControlMessageOwned, MsgFlags, SockaddrIn6, recvmsg};
use socket2::{Domain, Protocol, Socket, Type};
use tokio::io::Interest;
use tokio::net::UdpSocket;

use crate::DaemonError;

/// The hop limit every datagram is sent with and must arrive with (docs/uiap-design.md D21).
pub const LINK_HOP_LIMIT: u8 = 255;
/// Receive buffer size: larger than any valid message plus the PSK trailer, so anything that
/// fills it is oversized.
pub const RECV_BUFFER: usize = 2048;
/// The kernel receive buffer asked for on each socket (`SO_RCVBUFFORCE`, else `SO_RCVBUF`,
/// which `net.core.rmem_max` caps): room for a few tenths of a second of a flood, so that the
/// datagrams of honest neighbours queued behind it are not dropped (docs/uiap-design.md D45).
pub const SOCKET_RECEIVE_BUFFER: usize = 4 << 20;

/// Which socket a datagram arrived on or leaves from.
///
/// ```
/// use uiapd::socket::Role;
///
/// assert_eq!(Role::Claim.as_str(), "claim");
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Role {
    /// The claim port (Attempts).
    Claim = 0,
    /// The reply port (Denies).
    Reply = 1,
}

impl Role {
    /// `claim` or `reply`.
    ///
    /// ```
    /// use uiapd::socket::Role;
    ///
    /// assert_eq!(Role::Reply.as_str(), "reply");
    /// ```
    pub fn as_str(&self) -> &'static str {
        match self {
            Role::Claim => "claim",
            Role::Reply => "reply",
        }
    }
}

/// One received datagram with what the kernel told about it.
///
/// ```
/// use uiapd::socket::{Received, Role};
///
/// let r = Received { role: Role::Claim, source: "[fe80::1%2]:61001".parse()?, interface: Some(2),
///                    destination: Some("ff12::8000:7569".parse()?), hop_limit: Some(255), len: 36,
///                    truncated: false };
/// assert_eq!(r.source.port(), 61001);
/// Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Received {
    /// The socket it arrived on.
    pub role: Role,
    /// The source address and port (scope ID set by the kernel for link-local sources).
    pub source: SocketAddrV6,
    /// The arrival interface (`IPV6_PKTINFO`).
    pub interface: Option<u32>,
    /// The destination address it was sent to (`IPV6_PKTINFO`): the group, or one of ours.
    pub destination: Option<Ipv6Addr>,
    /// The hop limit it arrived with (`IPV6_HOPLIMIT`).
    pub hop_limit: Option<u8>,
    /// How many octets are in the buffer.
    pub len: usize,
    /// Whether the datagram was larger than the buffer.
    pub truncated: bool,
}

/// Why a datagram was dropped before it reached the protocol core. The names are drop-counter
/// keys in `status`.
///
/// ```
/// use uiapd::socket::SourceDrop;
///
/// assert_eq!(SourceDrop::HopLimit.as_str(), "hop_limit_not_255");
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SourceDrop {
    /// A zero-length datagram.
    Empty,
    /// Longer than the longest valid message (plus the PSK trailer, if configured).
    Oversized,
    /// Source port 0.
    SourcePortZero,
    /// The source is not link-local (fe80::/10).
    OffLinkSource,
    /// The hop limit was not 255 (the sender is not on the link, or did not follow #21).
    HopLimit,
    /// No `IPV6_PKTINFO`/`IPV6_HOPLIMIT`, or an interface that does not participate.
    UnknownInterface,
    /// A PSK is configured and the trailer is missing.
    PskMissing,
    /// A PSK is configured and the trailer does not verify.
    PskMismatch,
    /// Receiving failed (`recvmsg` returned an error).
    RecvError,
    /// The neighbour sent more than its rate limit allows (docs/uiap-design.md D45).
    RateLimited,
    /// A Claim-Attempt sent to the claim port other than to the group (docs/uiap-design.md D42).
    AttemptNotMulticast,
    /// A Claim-Attempt on the reply port (docs/uiap-design.md D42).
    AttemptOnReplyPort,
    /// A Claim-Deny on the claim port (docs/uiap-design.md D42).
    DenyOnClaimPort,
    /// A PSK is configured and the trailer's time is outside the window (docs/uiap-design.md D41).
    PskStale,
    /// A PSK is configured and this sealed datagram was seen before (docs/uiap-design.md D41).
    PskReplay,
}

impl SourceDrop {
    /// The counter key.
    ///
    /// ```
    /// use uiapd::socket::SourceDrop;
    ///
    /// assert_eq!(SourceDrop::SourcePortZero.as_str(), "source_port_zero");
    /// ```
    pub fn as_str(&self) -> &'static str {
        match self {
            SourceDrop::Empty => "empty",
            SourceDrop::Oversized => "oversized",
            SourceDrop::SourcePortZero => "source_port_zero",
            SourceDrop::OffLinkSource => "off_link_source",
            SourceDrop::HopLimit => "hop_limit_not_255",
            SourceDrop::UnknownInterface => "unknown_interface",
            SourceDrop::PskMissing => "psk_missing",
            SourceDrop::PskMismatch => "psk_mismatch",
            SourceDrop::RecvError => "recv_error",
            SourceDrop::RateLimited => "rate_limited",
            SourceDrop::AttemptNotMulticast => "attempt_not_multicast",
            SourceDrop::AttemptOnReplyPort => "attempt_on_reply_port",
            SourceDrop::DenyOnClaimPort => "deny_on_claim_port",
            SourceDrop::PskStale => "psk_stale",
            SourceDrop::PskReplay => "psk_replay",
        }
    }
}

/// Applies the checks of docs/uiap-design.md D21 to a received datagram: non-empty, not larger than
/// `max_len`, source port ≠ 0, source in fe80::/10, hop limit 255, arrival interface in `known`.
/// Returns the interface index and the source address on success.
///
/// # Errors
///
/// The first failed check, as a [`SourceDrop`].
///
/// ```
/// use std::collections::BTreeSet;
/// use uiapd::socket::{check_source, Received, Role, SourceDrop};
///
/// let known = BTreeSet::from([2]);
/// let mut r = Received { role: Role::Claim, source: "[fe80::1%2]:61001".parse()?, interface: Some(2),
///                        destination: None, hop_limit: Some(255), len: 36, truncated: false };
/// assert_eq!(check_source(&r, 600, &known), Ok((2, "fe80::1".parse()?)));
/// r.hop_limit = Some(64);
/// assert_eq!(check_source(&r, 600, &known), Err(SourceDrop::HopLimit));
/// Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn check_source(
    r: &Received,
    max_len: usize,
    known: &BTreeSet<u32>,
) -> Result<(u32, Ipv6Addr), SourceDrop> {
    if r.len == 0 {
        return Err(SourceDrop::Empty);
    }
    if r.truncated || r.len > max_len {
        return Err(SourceDrop::Oversized);
    }
    if r.source.port() == 0 {
        return Err(SourceDrop::SourcePortZero);
    }
    if r.source.ip().segments()[0] & 0xffc0 != 0xfe80 {
        return Err(SourceDrop::OffLinkSource);
    }
    let (Some(index), Some(hops)) = (r.interface, r.hop_limit) else {
        return Err(SourceDrop::UnknownInterface);
    };
    if hops != LINK_HOP_LIMIT {
        return Err(SourceDrop::HopLimit);
    }
    if !known.contains(&index) {
        return Err(SourceDrop::UnknownInterface);
    }
    Ok((index, *r.source.ip()))
}

/// The daemon's two sockets and the interfaces the claim socket has joined the group on.
#[derive(Debug)]
pub struct Sockets {
    claim: UdpSocket,
    reply: UdpSocket,
    group: Ipv6Addr,
    claim_port: u16,
    reply_port: u16,
    joined: BTreeSet<u32>,
    /// The receive buffers the kernel granted (claim, reply), in bytes.
    granted: (usize, usize),
    /// The kernel's count of datagrams dropped on each socket for want of buffer space (claim,
    /// reply), as last reported with a datagram.
    overflowed: [AtomicU32; 2],
}

/// `reuse`: whether another socket may bind the port too. Only the claim port (multicast) is
/// shared; the reply port is not, so that a second daemon cannot take the unicast Denies of the
/// first (docs/uiap-design.md D27).
fn open(port: u16, reuse: bool) -> io::Result<Socket> {
    let s = Socket::new(Domain::IPV6, Type::DGRAM, Some(Protocol::UDP))?;
    s.set_only_v6(true)?;
    s.set_reuse_address(reuse)?;
    s.set_unicast_hops_v6(u32::from(LINK_HOP_LIMIT))?;
    s.set_multicast_hops_v6(u32::from(LINK_HOP_LIMIT))?;
    s.set_multicast_loop_v6(false)?;
    nix::sys::socket::setsockopt(&s, nix::sys::socket::sockopt::Ipv6RecvPacketInfo, &true)?;
    nix::sys::socket::setsockopt(&s, nix::sys::socket::sockopt::Ipv6RecvHopLimit, &true)?;
    // How many datagrams the kernel dropped for want of buffer space, with every datagram.
    nix::sys::socket::setsockopt(&s, nix::sys::socket::sockopt::RxqOvfl, &1)?;
    // Without CAP_NET_ADMIN the forced size is refused; the plain one is capped by rmem_max.
    if nix::sys::socket::setsockopt(
        &s,
        nix::sys::socket::sockopt::RcvBufForce,
        &SOCKET_RECEIVE_BUFFER,
    )
    .is_err()
    {
        s.set_recv_buffer_size(SOCKET_RECEIVE_BUFFER)?;
    }
    s.set_nonblocking(true)?;
    s.bind(&SocketAddr::from((Ipv6Addr::UNSPECIFIED, port)).into())?;
    Ok(s)
}

impl Sockets {
    /// Binds the claim and reply sockets (`[::]:claim_port`, `[::]:reply_port`). Call from inside
    /// a tokio runtime.
    ///
    /// # Errors
    ///
    /// [`DaemonErrorKind::Io`](crate::DaemonErrorKind::Io) if a socket cannot be created, configured or bound (for example
    /// the port is in use).
    ///
    /// ```no_run
    /// # async fn demo() -> Result<(), uiapd::DaemonError> {
    /// use uiapd::socket::Sockets;
    ///
    /// let mut sockets = Sockets::bind("ff12::8000:7569".parse().unwrap(), 61001, 61002)?;
    /// sockets.join(2)?;
    /// # Ok(()) }
    /// ```
    pub fn bind(group: Ipv6Addr, claim_port: u16, reply_port: u16) -> Result<Sockets, DaemonError> {
        let mk = |port: u16, reuse: bool| -> Result<(UdpSocket, usize), DaemonError> {
            let s = open(port, reuse).map_err(|e| {
                let what = if e.kind() == io::ErrorKind::AddrInUse {
                    format!("cannot bind udp [::]:{port}: another uiapd is already running (or another program holds the port)")
                } else {
                    format!("cannot bind udp [::]:{port}")
                };
                DaemonError::io(what, None, e)
            })?;
            let granted = s.recv_buffer_size().unwrap_or(0);
            let s = UdpSocket::from_std(s.into())
                .map_err(|e| DaemonError::io("cannot register socket", None, e))?;
            Ok((s, granted))
        };
        let (claim, claim_buffer) = mk(claim_port, true)?;
        let (reply, reply_buffer) = mk(reply_port, false)?;
        Ok(Sockets {
            claim,
            reply,
            group,
            claim_port,
            reply_port,
            joined: BTreeSet::new(),
            granted: (claim_buffer, reply_buffer),
            overflowed: [AtomicU32::new(0), AtomicU32::new(0)],
        })
    }

    /// The receive buffer sizes the kernel granted (claim socket, reply socket), in bytes as
    /// `SO_RCVBUF` reports them (Linux counts its bookkeeping too, so twice what was asked).
    ///
    /// ```no_run
    /// # fn demo(s: &uiapd::socket::Sockets) {
    /// let (claim, reply) = s.receive_buffers();
    /// assert!(claim > 0 && reply > 0);
    /// # }
    /// ```
    pub fn receive_buffers(&self) -> (usize, usize) {
        self.granted
    }

    /// How many datagrams the kernel has dropped on the socket of `role` because its receive
    /// buffer was full (`SO_RXQ_OVFL`, as of the last datagram received on it).
    ///
    /// ```no_run
    /// # fn demo(s: &uiapd::socket::Sockets) {
    /// use uiapd::socket::Role;
    /// println!("{} dropped by the kernel", s.overflowed(Role::Claim));
    /// # }
    /// ```
    pub fn overflowed(&self, role: Role) -> u32 {
        self.overflowed[role as usize].load(Ordering::Relaxed)
    }

    /// Joins the group on interface `index` (idempotent).
    ///
    /// # Errors
    ///
    /// [`DaemonErrorKind::Io`](crate::DaemonErrorKind::Io) if the kernel refuses (no such interface, not multicast).
    ///
    /// ```no_run
    /// # fn demo(s: &mut uiapd::socket::Sockets) -> Result<(), uiapd::DaemonError> {
    /// s.join(3)?;
    /// assert!(s.joined().contains(&3));
    /// # Ok(()) }
    /// ```
    pub fn join(&mut self, index: u32) -> Result<(), DaemonError> {
        if self.joined.contains(&index) {
            return Ok(());
        }
        self.claim
            .join_multicast_v6(&self.group, index)
            .map_err(|e| {
                DaemonError::io(
                    format!("cannot join {} on interface {index}", self.group),
                    None,
                    e,
                )
            })?;
        self.joined.insert(index);
        Ok(())
    }

    /// Leaves the group on interface `index` (the interface may already be gone: errors are
    /// ignored).
    ///
    /// ```no_run
    /// # fn demo(s: &mut uiapd::socket::Sockets) {
    /// s.leave(3);
    /// assert!(!s.joined().contains(&3));
    /// # }
    /// ```
    pub fn leave(&mut self, index: u32) {
        if self.joined.remove(&index) {
            let _ = self.claim.leave_multicast_v6(&self.group, index);
        }
    }

    /// The interfaces the group is joined on.
    ///
    /// ```no_run
    /// # fn demo(s: &uiapd::socket::Sockets) {
    /// println!("{:?}", s.joined());
    /// # }
    /// ```
    pub fn joined(&self) -> &BTreeSet<u32> {
        &self.joined
    }

    /// Receives one datagram from the socket of `role` into `buf`.
    ///
    /// # Errors
    ///
    /// An I/O error from `recvmsg`.
    ///
    /// ```no_run
    /// # async fn demo(s: &uiapd::socket::Sockets) -> std::io::Result<()> {
    /// use uiapd::socket::Role;
    ///
    /// let mut buf = [0; 2048];
    /// let r = s.recv(Role::Claim, &mut buf).await?;
    /// println!("{} octets from {}", r.len, r.source);
    /// # Ok(()) }
    /// ```
    pub async fn recv(&self, role: Role, buf: &mut [u8]) -> io::Result<Received> {
        let sock = match role {
            Role::Claim => &self.claim,
            Role::Reply => &self.reply,
        };
        let (r, overflow) = sock
            .async_io(Interest::READABLE, || recv_one(sock.as_raw_fd(), role, buf))
            .await?;
        if let Some(n) = overflow {
            self.overflowed[role as usize].store(n, Ordering::Relaxed);
        }
        Ok(r)
    }

    /// Sends `payload` as a Claim-Attempt to the group on interface `index`.
    ///
    /// # Errors
    ///
    /// An I/O error from `sendto`.
    ///
    /// ```no_run
    /// # async fn demo(s: &uiapd::socket::Sockets) -> std::io::Result<()> {
    /// s.send_multicast(2, &[1, 0, 0, 32]).await?;
    /// # Ok(()) }
    /// ```
    pub async fn send_multicast(&self, index: u32, payload: &[u8]) -> io::Result<()> {
        let to = SocketAddrV6::new(self.group, self.claim_port, 0, index);
        self.claim.send_to(payload, to).await.map(drop)
    }

    /// Sends `payload` (a Deny) from the reply port to `addr%index`, port REPLY_PORT.
    ///
    /// # Errors
    ///
    /// An I/O error from `sendto`.
    ///
    /// ```no_run
    /// # async fn demo(s: &uiapd::socket::Sockets) -> std::io::Result<()> {
    /// s.send_unicast(2, "fe80::1".parse().unwrap(), &[1, 0x10, 0, 32]).await?;
    /// # Ok(()) }
    /// ```
    pub async fn send_unicast(&self, index: u32, addr: Ipv6Addr, payload: &[u8]) -> io::Result<()> {
        let to = SocketAddrV6::new(addr, self.reply_port, 0, index);
        self.reply.send_to(payload, to).await.map(drop)
    }
}

/// One datagram, and the socket's overflow count if the kernel attached it.
fn recv_one(fd: i32, role: Role, buf: &mut [u8]) -> io::Result<(Received, Option<u32>)> {
    let mut cmsg = nix::cmsg_space!(libc::in6_pktinfo, libc::c_int, u32);
    let mut iov = [IoSliceMut::new(buf)];
    let msg = recvmsg::<SockaddrIn6>(fd, &mut iov, Some(&mut cmsg), MsgFlags::empty())
        .map_err(io::Error::from)?;
    let mut interface = None;
    let mut destination = None;
    let mut hop_limit = None;
    let mut overflow = None;
    if let Ok(cmsgs) = msg.cmsgs() {
        for c in cmsgs {
            match c {
                ControlMessageOwned::Ipv6PacketInfo(info) => {
                    interface = Some(info.ipi6_ifindex);
                    destination = Some(Ipv6Addr::from(info.ipi6_addr.s6_addr));
                }
                ControlMessageOwned::Ipv6HopLimit(h) => hop_limit = u8::try_from(h).ok(),
                ControlMessageOwned::RxqOvfl(n) => overflow = Some(n),
                _ => {}
            }
        }
    }
    let source = msg
        .address
        .map(|a| SocketAddrV6::new(a.ip(), a.port(), a.flowinfo(), a.scope_id()))
        .ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                "datagram without a source address",
            )
        })?;
    let received = Received {
        role,
        source,
        interface,
        destination,
        hop_limit,
        len: msg.bytes,
        truncated: msg.flags.contains(MsgFlags::MSG_TRUNC),
    };
    Ok((received, overflow))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn received(
        source: &str,
        interface: Option<u32>,
        hop_limit: Option<u8>,
        len: usize,
    ) -> Received {
        Received {
            role: Role::Claim,
            source: source.parse().unwrap(),
            interface,
            destination: None,
            hop_limit,
            len,
            truncated: false,
        }
    }

    #[test]
    fn every_source_check_has_its_reason() {
        let known = BTreeSet::from([2]);
        let ok = received("[fe80::1%2]:61001", Some(2), Some(255), 40);
        assert_eq!(
            check_source(&ok, 546, &known),
            Ok((2, "fe80::1".parse().unwrap()))
        );
        let cases = [
            (
                received("[fe80::1%2]:61001", Some(2), Some(255), 0),
                SourceDrop::Empty,
            ),
            (
                received("[fe80::1%2]:61001", Some(2), Some(255), 547),
                SourceDrop::Oversized,
            ),
            (
                Received {
                    truncated: true,
                    ..ok.clone()
                },
                SourceDrop::Oversized,
            ),
            (
                received("[fe80::1%2]:0", Some(2), Some(255), 40),
                SourceDrop::SourcePortZero,
            ),
            (
                received("[2001:db8::1]:61001", Some(2), Some(255), 40),
                SourceDrop::OffLinkSource,
            ),
            (
                received("[fec0::1]:61001", Some(2), Some(255), 40),
                SourceDrop::OffLinkSource,
            ),
            (
                received("[fe80::1%2]:61001", Some(2), Some(254), 40),
                SourceDrop::HopLimit,
            ),
            (
                received("[fe80::1%2]:61001", Some(2), None, 40),
                SourceDrop::UnknownInterface,
            ),
            (
                received("[fe80::1%3]:61001", Some(3), Some(255), 40),
                SourceDrop::UnknownInterface,
            ),
        ];
        for (r, reason) in cases {
            assert_eq!(check_source(&r, 546, &known), Err(reason), "{r:?}");
        }
        // fe80::/10 includes febf::.
        let edge = received("[febf::1%2]:61001", Some(2), Some(255), 40);
        assert!(check_source(&edge, 546, &known).is_ok());
    }
}
