//! The port and destination each message type belongs to (docs/uiap-design.md D42): cheap, and
//! looks at no more than the type octet.

use std::net::Ipv6Addr;

use super::SourceDrop;
use crate::socket::{Received, Role};

/// Checks that a message arrived where its type belongs (docs/uiap-design.md D42): a
/// Claim-Attempt or a Loss-Notice only as multicast to `group` on the claim port, a Claim-Deny
/// only on the reply port (unicast). `message` is the datagram without a PSK trailer; anything too short to carry a
/// type is left to the parser.
///
/// # Errors
///
/// [`SourceDrop::AttemptNotMulticast`], [`SourceDrop::AttemptOnReplyPort`] or
/// [`SourceDrop::DenyOnClaimPort`].
pub(crate) fn check_port(r: &Received, group: Ipv6Addr, message: &[u8]) -> Result<(), SourceDrop> {
    let Some(type_flags) = message.get(1) else {
        return Ok(());
    };
    // Attempts and Loss-Notices are floods (docs/uiap-design.md D80): to the group, on the
    // claim port.
    let flood = matches!(type_flags >> 4, 0 | 2);
    match (r.role, flood) {
        (Role::Claim, true) if r.destination != Some(group) => Err(SourceDrop::AttemptNotMulticast),
        (Role::Claim, false) => Err(SourceDrop::DenyOnClaimPort),
        (Role::Reply, true) => Err(SourceDrop::AttemptOnReplyPort),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn received(role: Role, destination: &str) -> Received {
        Received {
            role,
            source: "[fe80::1%2]:61001".parse().unwrap(),
            interface: Some(2),
            destination: Some(destination.parse().unwrap()),
            hop_limit: Some(255),
            len: 40,
            truncated: false,
        }
    }

    #[test]
    fn each_type_has_its_port_and_destination() {
        let group: Ipv6Addr = "ff12::8000:7569".parse().unwrap();
        let attempt = [1u8, 0x02, 0, 32];
        let deny = [1u8, 0x12, 0, 32];
        let notice = [1u8, 0x20, 0, 32];
        let cases = [
            (Role::Claim, "ff12::8000:7569", &attempt, Ok(())),
            (
                Role::Claim,
                "fe80::2",
                &attempt,
                Err(SourceDrop::AttemptNotMulticast),
            ),
            (
                Role::Claim,
                "ff02::1",
                &attempt,
                Err(SourceDrop::AttemptNotMulticast),
            ),
            (
                Role::Claim,
                "ff12::8000:7569",
                &deny,
                Err(SourceDrop::DenyOnClaimPort),
            ),
            (Role::Reply, "fe80::2", &deny, Ok(())),
            (Role::Claim, "ff12::8000:7569", &notice, Ok(())),
            (
                Role::Claim,
                "fe80::2",
                &notice,
                Err(SourceDrop::AttemptNotMulticast),
            ),
            (
                Role::Reply,
                "fe80::2",
                &notice,
                Err(SourceDrop::AttemptOnReplyPort),
            ),
            (
                Role::Reply,
                "fe80::2",
                &attempt,
                Err(SourceDrop::AttemptOnReplyPort),
            ),
        ];
        for (role, dest, message, expected) in cases {
            assert_eq!(
                check_port(&received(role, dest), group, message),
                expected,
                "{role:?} {dest}"
            );
        }
        // Too short to have a type: the parser counts it.
        assert_eq!(
            check_port(&received(Role::Reply, "fe80::2"), group, &[1]),
            Ok(())
        );
    }
}
