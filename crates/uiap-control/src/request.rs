//! What a client asks: one [`Request`] per line.

use serde::{Deserialize, Serialize};

use crate::SpaceText;

/// The default claim lifetime, in seconds.
pub const DEFAULT_LIFETIME: u32 = 3600;

/// The lifetime that never ends (`u32::MAX` seconds).
pub const INFINITE_LIFETIME: u32 = u32::MAX;

/// The longest request line the daemon reads, in bytes, newline excluded. The largest valid
/// request (a range of two 510-digit UIDs) is about 1 KiB: the limit leaves room for whitespace
/// and future fields while bounding what one connection can make the daemon buffer
/// (docs/uiap-design.md D25).
pub const MAX_REQUEST_LINE: usize = 16 * 1024;

fn default_lifetime() -> u32 {
    DEFAULT_LIFETIME
}

/// One request line.
///
/// ```
/// use uiap_control::{ClaimRequest, Request, SpaceText};
///
/// let r: Request = serde_json::from_str(r#"{"op":"claim","domain":"fff:0:1:0","space":{"uid":"c0a8"}}"#)?;
/// assert_eq!(r, Request::Claim(ClaimRequest::new("fff:0:1:0", SpaceText::Uid("c0a8".into()))));
/// assert_eq!(serde_json::to_string(&Request::List)?, r#"{"op":"list"}"#);
/// Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(
    tag = "op",
    rename_all = "snake_case",
    deny_unknown_fields,
    from = "Checked"
)]
pub enum Request {
    /// Claim a UID space.
    Claim(ClaimRequest),
    /// Release a claim.
    Release {
        /// The claim's `id`.
        id: u64,
    },
    /// List the claims.
    List,
    /// Report the daemon's status.
    Status,
    /// List the claims this device defends by proxy; with `flush`, forget them all (root only).
    Proxies {
        /// Forget every proxied claim after listing them.
        #[serde(default)]
        flush: bool,
    },
    /// Turn the connection into a stream of claim events (docs/uiap-design.md D33).
    Watch {
        /// Only this claim's events; every claim's without it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<u64>,
        /// Release claim `id` when this connection closes (docs/uiap-design.md D54): a claim
        /// that lives exactly as long as its client, even one killed without a word.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        release_on_close: bool,
    },
}

/// A request line as read: the same as [`Request`], with `list` and `status` as objects so that
/// a key they do not take is refused like any other unknown key, not ignored.
#[derive(Deserialize)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
enum Checked {
    Claim(ClaimRequest),
    Release {
        id: u64,
    },
    List {},
    Status {},
    Proxies {
        #[serde(default)]
        flush: bool,
    },
    Watch {
        #[serde(default)]
        id: Option<u64>,
        #[serde(default)]
        release_on_close: bool,
    },
}

impl From<Checked> for Request {
    fn from(c: Checked) -> Request {
        match c {
            Checked::Claim(r) => Request::Claim(r),
            Checked::Release { id } => Request::Release { id },
            Checked::List {} => Request::List,
            Checked::Status {} => Request::Status,
            Checked::Proxies { flush } => Request::Proxies { flush },
            Checked::Watch {
                id,
                release_on_close,
            } => Request::Watch {
                id,
                release_on_close,
            },
        }
    }
}

/// What a `claim` request asks for. The daemon checks the domain and the space and answers a
/// malformed one with an error naming what is wrong.
///
/// ```
/// use uiap_control::{ClaimRequest, Request, SpaceText};
///
/// let claim = ClaimRequest { lifetime: 60, renew: true, ..ClaimRequest::new("fff:0:1:0", SpaceText::Uid("01".into())) };
/// assert_eq!(serde_json::to_string(&Request::Claim(claim))?,
///     r#"{"op":"claim","domain":"fff:0:1:0","space":{"uid":"01"},"lifetime":60,"proxy":false,"renew":true}"#);
/// Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClaimRequest {
    /// The Domain ID in text form (§6.1).
    pub domain: String,
    /// The space.
    pub space: SpaceText,
    /// Seconds, 1 or more; [`INFINITE_LIFETIME`] never ends.
    #[serde(default = "default_lifetime")]
    pub lifetime: u32,
    /// Claim on behalf of another device (the X flag).
    #[serde(default)]
    pub proxy: bool,
    /// Renew the claim before its lifetime ends, for as long as the daemon runs; without it
    /// the claim is defended for `lifetime` and then expires (docs/uiap-design.md D32).
    #[serde(default)]
    pub renew: bool,
}

impl ClaimRequest {
    /// A claim of `space` in `domain` with the defaults: [`DEFAULT_LIFETIME`], not by proxy,
    /// not renewed.
    ///
    /// ```
    /// use uiap_control::{ClaimRequest, SpaceText, DEFAULT_LIFETIME};
    ///
    /// let c = ClaimRequest::new("fff:0:1:0", SpaceText::Prefix("c0/4".into()));
    /// assert_eq!((c.lifetime, c.proxy, c.renew), (DEFAULT_LIFETIME, false, false));
    /// ```
    pub fn new(domain: impl Into<String>, space: SpaceText) -> ClaimRequest {
        ClaimRequest {
            domain: domain.into(),
            space,
            lifetime: DEFAULT_LIFETIME,
            proxy: false,
            renew: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> Result<Request, String> {
        serde_json::from_str(line).map_err(|e| e.to_string())
    }

    #[test]
    fn every_request_reads_back_as_written() {
        let claim = ClaimRequest {
            lifetime: INFINITE_LIFETIME,
            proxy: true,
            renew: true,
            ..ClaimRequest::new("fff:0:1:0", SpaceText::Range("10-1f".into()))
        };
        for (request, line) in [
            (
                Request::Claim(claim),
                r#"{"op":"claim","domain":"fff:0:1:0","space":{"range":"10-1f"},"lifetime":4294967295,"proxy":true,"renew":true}"#,
            ),
            (Request::Release { id: 7 }, r#"{"op":"release","id":7}"#),
            (Request::Status, r#"{"op":"status"}"#),
            (
                Request::Proxies { flush: true },
                r#"{"op":"proxies","flush":true}"#,
            ),
            (
                Request::Watch {
                    id: None,
                    release_on_close: false,
                },
                r#"{"op":"watch"}"#,
            ),
            (
                Request::Watch {
                    id: Some(3),
                    release_on_close: true,
                },
                r#"{"op":"watch","id":3,"release_on_close":true}"#,
            ),
        ] {
            assert_eq!(serde_json::to_string(&request).unwrap(), line);
            assert_eq!(parse(line), Ok(request));
        }
    }

    #[test]
    fn unknown_operations_and_fields_are_refused() {
        let e = parse(r#"{"op":"frobnicate"}"#).unwrap_err();
        assert!(e.contains("frobnicate"), "{e}");
        let e = parse(r#"{"op":"claim","domain":"fff:0:1:0","space":{"uid":"01"},"color":1}"#)
            .unwrap_err();
        assert!(e.contains("color"), "{e}");
        let e = parse(r#"{"op":"release","id":1,"force":true}"#).unwrap_err();
        assert!(e.contains("force"), "{e}");
        let e = parse(r#"{"op":"claim","space":{"uid":"01"}}"#).unwrap_err();
        assert!(e.contains("domain"), "{e}");
    }

    #[test]
    fn every_request_refuses_a_key_it_does_not_know() {
        for line in [
            r#"{"op":"claim","domain":"fff:0:1:0","space":{"uid":"01"},"lifetme":60}"#,
            r#"{"op":"list","verbose":true}"#,
            r#"{"op":"status","x":1}"#,
            r#"{"op":"release","id":1,"force":true}"#,
            r#"{"op":"watch","id":1,"release_on_clos":true}"#,
            r#"{"op":"proxies","flsh":true}"#,
        ] {
            let e = serde_json::from_str::<Request>(line).expect_err(line);
            assert!(e.to_string().contains("unknown field"), "{line}: {e}");
        }
    }
}
