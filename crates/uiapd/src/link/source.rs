//! The source checks of docs/uiap-design.md D21, and why a datagram was dropped before the
//! protocol core saw it.

use std::collections::BTreeSet;
use std::net::Ipv6Addr;

use crate::socket::{LINK_HOP_LIMIT, Received};

/// Why a datagram was dropped before it reached the protocol core. The names are drop-counter
/// keys in `status`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum SourceDrop {
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
    /// A PSK is configured, the source has not authenticated lately, and the budget of
    /// datagrams failing authentication is spent: dropped unverified (docs/uiap-design.md D58).
    AuthBudget,
}

impl SourceDrop {
    /// The counter key.
    pub(crate) fn as_str(&self) -> &'static str {
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
            SourceDrop::AuthBudget => "auth_budget",
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
pub(crate) fn check_source(
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::socket::Role;

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

    #[test]
    fn every_drop_has_its_counter_key() {
        let keys = [
            (SourceDrop::Empty, "empty"),
            (SourceDrop::Oversized, "oversized"),
            (SourceDrop::SourcePortZero, "source_port_zero"),
            (SourceDrop::OffLinkSource, "off_link_source"),
            (SourceDrop::HopLimit, "hop_limit_not_255"),
            (SourceDrop::UnknownInterface, "unknown_interface"),
            (SourceDrop::PskMissing, "psk_missing"),
            (SourceDrop::PskMismatch, "psk_mismatch"),
            (SourceDrop::RecvError, "recv_error"),
            (SourceDrop::RateLimited, "rate_limited"),
            (SourceDrop::AttemptNotMulticast, "attempt_not_multicast"),
            (SourceDrop::AttemptOnReplyPort, "attempt_on_reply_port"),
            (SourceDrop::DenyOnClaimPort, "deny_on_claim_port"),
            (SourceDrop::PskStale, "psk_stale"),
            (SourceDrop::PskReplay, "psk_replay"),
        ];
        for (drop, key) in keys {
            assert_eq!(drop.as_str(), key);
        }
    }
}
