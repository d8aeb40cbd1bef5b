//! How far the clocks of the neighbours a keyed daemon heard are ahead of its own, said with a
//! claim's answer (docs/uiap-design.md D72).

use std::fmt;

use serde::{Deserialize, Serialize};

/// With a key: no neighbour whose authenticated datagrams the daemon heard in the last
/// `listened_ms` has a clock more than `ahead_ms` ahead of this host's, transit and slew
/// allowed for. A site lease starts its tenure only once its clock is past the claim's answer
/// by that much, so that its first UUID's millisecond is above every one a previous holder
/// used (docs/distributed-generation.md, "Consecutive tenures across clocks").
///
/// ```
/// use uiap_control::ClockAhead;
///
/// let c = ClockAhead { ahead_ms: 1_052, listened_ms: 120_000, neighbour: Some("fe80::2%2".into()) };
/// assert_eq!(c.to_string(), "the clock of fe80::2%2 is up to 1.052 s ahead of this host's (neighbours heard over 120 s)");
/// let line = serde_json::to_string(&c)?;
/// assert_eq!(line, r#"{"ahead_ms":1052,"listened_ms":120000,"neighbour":"fe80::2%2"}"#);
/// assert_eq!(serde_json::from_str::<ClockAhead>(&line)?, c);
/// Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockAhead {
    /// How far ahead, in milliseconds (0: no neighbour heard ahead).
    pub ahead_ms: u64,
    /// How long the daemon has heard the interfaces that participate now, up to how long it
    /// keeps what it heard, in milliseconds.
    pub listened_ms: u64,
    /// The neighbour furthest ahead (address and interface index), if any is ahead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub neighbour: Option<String>,
}

impl fmt::Display for ClockAhead {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let heard = format!("neighbours heard over {} s", self.listened_ms / 1000);
        match &self.neighbour {
            Some(n) => write!(
                f,
                "the clock of {n} is up to {}.{:03} s ahead of this host's ({heard})",
                self.ahead_ms / 1000,
                self.ahead_ms % 1000
            ),
            None => write!(f, "no neighbour's clock is ahead of this host's ({heard})"),
        }
    }
}
