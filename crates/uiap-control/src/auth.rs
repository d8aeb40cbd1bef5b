//! Datagrams that failed authentication (a daemon with a pre-shared key): how many came before a
//! claim's answer, and from whom (docs/uiap-design.md D62).

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

/// How many datagrams failed authentication in the last `seconds` before a claim's answer (its
/// window and the minutes before it), and under how many source addresses. A device with no key
/// or another key is heard so, and its Claim-Denies cannot count: it may hold what the claim was
/// granted. But a source address is not authenticated, so any host on the link can send such
/// datagrams under any neighbour's address: the text names addresses, never a neighbour as
/// their sender (docs/uiap-design.md D74).
///
/// ```
/// use uiap_control::AuthFailures;
///
/// let two = AuthFailures { datagrams: 9, neighbours: 2, seconds: 60 };
/// assert!(two.to_string().starts_with("9 datagrams under 2 source addresses failed"));
/// let a = AuthFailures { datagrams: 6, neighbours: 1, seconds: 302 };
/// assert_eq!(a.to_string(),
///     "6 datagrams under 1 source address failed authentication in the last 302 s \
///      (source addresses are not authenticated: anyone on the link may have sent them)");
/// assert_eq!(serde_json::to_string(&a)?, r#"{"datagrams":6,"neighbours":1,"seconds":302}"#);
/// Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuthFailures {
    /// Datagrams that failed authentication.
    pub datagrams: u64,
    /// Distinct source addresses (interface and link-local address) they came under.
    pub neighbours: u64,
    /// The seconds counted, up to the answer.
    pub seconds: u64,
}

impl fmt::Display for AuthFailures {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let plural = |n: u64, one: &str, more: &str| {
            if n == 1 {
                format!("{n} {one}")
            } else {
                format!("{n} {more}")
            }
        };
        write!(
            f,
            "{} under {} failed authentication in the last {} s (source addresses are not \
             authenticated: anyone on the link may have sent them)",
            plural(self.datagrams, "datagram", "datagrams"),
            plural(self.neighbours, "source address", "source addresses"),
            self.seconds
        )
    }
}

/// A source address under which datagrams failed authentication, in `status`: a neighbour
/// without the key or with another one, or anyone sending under its address
/// (docs/uiap-design.md D74).
///
/// ```
/// use uiap_control::AuthFailureView;
///
/// let v: AuthFailureView = serde_json::from_str(
///     r#"{"interface":"veth0","address":"fe80::2","reasons":{"psk_mismatch":4},"last_seen_s":3}"#)?;
/// assert_eq!(v.total(), 4);
/// assert_eq!(v.to_string(), "under fe80::2%veth0 (a source address anyone on the link can use): \
///     4 (psk_mismatch 4), last 3 s ago");
/// Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuthFailureView {
    /// The interface it was heard on (its name, or its index when it no longer participates).
    pub interface: String,
    /// Its link-local address.
    pub address: String,
    /// Failures by reason: `psk_missing` (no trailer: no key), `psk_mismatch` (another key),
    /// `psk_stale` (the right key, a clock more than 30 s off).
    pub reasons: BTreeMap<String, u64>,
    /// Seconds since the last failure.
    pub last_seen_s: u64,
}

impl AuthFailureView {
    /// Failures of every reason.
    ///
    /// ```
    /// use uiap_control::AuthFailureView;
    ///
    /// let v = AuthFailureView { interface: "e0".into(), address: "fe80::9".into(),
    ///     reasons: [("psk_missing".to_string(), 2), ("psk_stale".to_string(), 1)].into(), last_seen_s: 0 };
    /// assert_eq!(v.total(), 3);
    /// ```
    pub fn total(&self) -> u64 {
        self.reasons.values().sum()
    }
}

impl fmt::Display for AuthFailureView {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let reasons: Vec<String> = self
            .reasons
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect();
        write!(
            f,
            "under {}%{} (a source address anyone on the link can use): {} ({}), last {} s ago",
            self.address,
            self.interface,
            self.total(),
            reasons.join(", "),
            self.last_seen_s
        )
    }
}
