//! UDP/IPv6 sockets, one per role.
//!
//! * The **claim socket** is bound to `[::]:CLAIM_PORT` and joined to the group on every
//!   participating interface. Claim-Attempts are sent from it to `[group%ifindex]:CLAIM_PORT`.
//! * The **reply socket** is bound to `[::]:REPLY_PORT`. Denies are sent from it, unicast to
//!   `[fe80::…%ifindex]:REPLY_PORT` (the previous hop), and arrive on it.
//!
//! Both sockets send with hop limit 255 (unicast and multicast), do not loop multicast back, and
//! receive `IPV6_PKTINFO` (the arrival interface) and `IPV6_HOPLIMIT` with every datagram, so that
//! the link's source checks (docs/uiap-design.md D21) can accept only link-local sources one hop
//! away on a known interface.

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
pub(crate) const LINK_HOP_LIMIT: u8 = 255;
/// Receive buffer size: larger than any valid message plus the PSK trailer, so anything that
/// fills it is oversized.
pub(crate) const RECV_BUFFER: usize = 2048;
/// The kernel receive buffer asked for on each socket (`SO_RCVBUFFORCE`, else `SO_RCVBUF`,
/// which `net.core.rmem_max` caps): room for a few tenths of a second of a flood, so that the
/// datagrams of honest neighbours queued behind it are not dropped (docs/uiap-design.md D45).
pub(crate) const SOCKET_RECEIVE_BUFFER: usize = 4 << 20;

/// Which socket a datagram arrived on or leaves from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    /// The claim port (Attempts).
    Claim = 0,
    /// The reply port (Denies).
    Reply = 1,
}

impl Role {
    /// `claim` or `reply`.
    pub(crate) fn as_str(&self) -> &'static str {
        match self {
            Role::Claim => "claim",
            Role::Reply => "reply",
        }
    }
}

/// One received datagram with what the kernel told about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Received {
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
    /// use uiapd::Sockets;
    ///
    /// let sockets = Sockets::bind("ff12::8000:7569".parse().unwrap(), 61001, 61002)?;
    /// # Ok(()) }
    /// ```
    pub fn bind(group: Ipv6Addr, claim_port: u16, reply_port: u16) -> Result<Sockets, DaemonError> {
        let mk = |port: u16, reuse: bool| -> Result<(UdpSocket, usize, u16), DaemonError> {
            let s = open(port, reuse).map_err(|e| {
                let what = if e.kind() == io::ErrorKind::AddrInUse {
                    format!("cannot bind udp [::]:{port}: another uiapd is already running (or another program holds the port)")
                } else {
                    format!("cannot bind udp [::]:{port}")
                };
                DaemonError::io(what, None, e)
            })?;
            let granted = s.recv_buffer_size().unwrap_or(0);
            // The port bound: the one asked for, or the kernel's pick for 0.
            let bound = s
                .local_addr()
                .ok()
                .and_then(|a| a.as_socket())
                .map_or(port, |a| a.port());
            let s = UdpSocket::from_std(s.into())
                .map_err(|e| DaemonError::io("cannot register socket", None, e))?;
            Ok((s, granted, bound))
        };
        let (claim, claim_buffer, claim_port) = mk(claim_port, true)?;
        let (reply, reply_buffer, reply_port) = mk(reply_port, false)?;
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
    pub(crate) fn receive_buffers(&self) -> (usize, usize) {
        self.granted
    }

    /// How many datagrams the kernel has dropped on the socket of `role` because its receive
    /// buffer was full (`SO_RXQ_OVFL`, as of the last datagram received on it).
    pub(crate) fn overflowed(&self, role: Role) -> u32 {
        self.overflowed[role as usize].load(Ordering::Relaxed)
    }

    /// How many datagrams the kernel has dropped on the socket of `role` so far, asked now
    /// (`SO_MEMINFO`'s drop count, the counter `SO_RXQ_OVFL` reports); the count last reported
    /// with a datagram if the kernel does not answer.
    pub(crate) fn drops_now(&self, role: Role) -> u32 {
        let sock = match role {
            Role::Claim => &self.claim,
            Role::Reply => &self.reply,
        };
        // SK_MEMINFO_VARS and SK_MEMINFO_DROPS of linux/sock_diag.h.
        const VARS: usize = 9;
        const DROPS: usize = 8;
        let mut info = [0u32; VARS];
        let mut len = std::mem::size_of_val(&info) as libc::socklen_t;
        // SAFETY: `info` is writable for `len` bytes, and the kernel writes at most `len`.
        let r = unsafe {
            libc::getsockopt(
                sock.as_raw_fd(),
                libc::SOL_SOCKET,
                libc::SO_MEMINFO,
                info.as_mut_ptr().cast(),
                &mut len,
            )
        };
        if r == 0 && len as usize > DROPS * std::mem::size_of::<u32>() {
            info[DROPS]
        } else {
            self.overflowed(role)
        }
    }

    /// Joins the group on interface `index` (idempotent).
    ///
    /// # Errors
    ///
    /// [`DaemonErrorKind::Io`](crate::DaemonErrorKind::Io) if the kernel refuses (no such interface, not multicast).
    pub(crate) fn join(&mut self, index: u32) -> Result<(), DaemonError> {
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
    pub(crate) fn leave(&mut self, index: u32) {
        if self.joined.remove(&index) {
            let _ = self.claim.leave_multicast_v6(&self.group, index);
        }
    }

    /// The interfaces the group is joined on.
    #[cfg(test)]
    fn joined(&self) -> &BTreeSet<u32> {
        &self.joined
    }

    /// Receives one datagram from the socket of `role` into `buf`.
    ///
    /// # Errors
    ///
    /// An I/O error from `recvmsg`.
    pub(crate) async fn recv(&self, role: Role, buf: &mut [u8]) -> io::Result<Received> {
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
    pub(crate) async fn send_multicast(&self, index: u32, payload: &[u8]) -> io::Result<()> {
        let to = SocketAddrV6::new(self.group, self.claim_port, 0, index);
        self.claim.send_to(payload, to).await.map(drop)
    }

    /// Sends `payload` (a Deny) from the reply port to `addr%index`, port REPLY_PORT.
    ///
    /// # Errors
    ///
    /// An I/O error from `sendto`.
    pub(crate) async fn send_unicast(
        &self,
        index: u32,
        addr: Ipv6Addr,
        payload: &[u8],
    ) -> io::Result<()> {
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

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
    }

    /// The loopback interface's index.
    const LO: u32 = 1;

    #[test]
    fn a_datagram_comes_back_with_what_the_kernel_told() {
        runtime().block_on(async {
            let group = crate::config::DEFAULT_GROUP;
            let sockets = Sockets::bind(group, 0, 0).unwrap();
            let (claim, reply) = sockets.receive_buffers();
            assert!(claim > 0 && reply > 0, "{claim} {reply}");
            // To our own reply port over loopback: the ancillary data is read back.
            sockets
                .send_unicast(LO, Ipv6Addr::LOCALHOST, &[1, 0x10, 0, 32])
                .await
                .unwrap();
            let mut buf = [0u8; RECV_BUFFER];
            let r = sockets.recv(Role::Reply, &mut buf).await.unwrap();
            assert_eq!((r.role, r.len, r.truncated), (Role::Reply, 4, false));
            assert_eq!(&buf[..4], &[1, 0x10, 0, 32]);
            assert_eq!(r.hop_limit, Some(LINK_HOP_LIMIT));
            assert_eq!(r.interface, Some(LO));
            assert_eq!(r.destination, Some(Ipv6Addr::LOCALHOST));
            assert_eq!(*r.source.ip(), Ipv6Addr::LOCALHOST);
            assert_eq!(sockets.overflowed(Role::Reply), 0);
        });
    }

    #[test]
    fn joining_an_interface_that_does_not_exist_fails_and_leaves_nothing_joined() {
        runtime().block_on(async {
            let mut sockets = Sockets::bind(crate::config::DEFAULT_GROUP, 0, 0).unwrap();
            let e = sockets.join(999_999).unwrap_err();
            assert!(
                e.to_string()
                    .contains("cannot join ff12::8000:7569 on interface 999999"),
                "{e}"
            );
            assert!(sockets.joined().is_empty());
            sockets.leave(999_999);
            assert!(sockets.joined().is_empty());
        });
    }

    #[test]
    fn each_role_has_its_name() {
        assert_eq!(Role::Claim.as_str(), "claim");
        assert_eq!(Role::Reply.as_str(), "reply");
        assert_eq!((Role::Claim as usize, Role::Reply as usize), (0, 1));
    }
}
