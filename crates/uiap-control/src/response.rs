//! What the daemon answers: one [`Response`] per line, read and written through a flat wire
//! object whose fields each variant fills.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::{AuthFailures, ClaimEvent, ClaimView, ClockAhead, ProxyView, StatusView};

/// One response line.
///
/// Every request gets exactly one final answer ([`Response::is_final`]); before it, a `claim`
/// may get one [`Response::Waiting`], and a `watch` is answered with [`Response::Watching`]
/// and then one [`Response::Event`] per event.
///
/// ```
/// use uiap_control::Response;
///
/// let r = Response::Released { id: 4 };
/// assert_eq!(serde_json::to_string(&r)?, r#"{"ok":true,"result":"released","id":4}"#);
/// let back: Response = serde_json::from_str(r#"{"ok":true,"claims":[]}"#)?;
/// assert_eq!(back, Response::Claims(vec![]));
/// Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "Wire", try_from = "Wire")]
pub enum Response {
    /// The final answer to `claim`.
    Claim(ClaimAnswer),
    /// A claim that cannot start at once (rate limited after conflicts: docs/uiap-design.md
    /// D34) says so before its final answer.
    Waiting {
        /// The claim as it is.
        claim: ClaimView,
        /// When it starts ("rate limited, starts in 42 s").
        reason: String,
    },
    /// The answer to `release`.
    Released {
        /// The released claim's ID.
        id: u64,
    },
    /// The answer to `list`.
    Claims(Vec<ClaimView>),
    /// The answer to `status`.
    Status(Box<StatusView>),
    /// The answer to `proxies`.
    Proxies {
        /// The claims of other devices this daemon defends.
        proxies: Vec<ProxyView>,
        /// With `flush`: how many were forgotten.
        flushed: Option<usize>,
    },
    /// The answer to `watch`: the watched claims as they are; events follow.
    Watching(Vec<ClaimView>),
    /// An event of a watched claim.
    Event(ClaimEvent),
    /// The request failed.
    Error(ErrorBody),
}

/// How a claim ended its first round.
///
/// ```
/// use uiap_control::{ClaimAnswer, Response};
///
/// let r: Response = serde_json::from_str(r#"{"ok":true,"result":"failed","reason":"the daemon is shutting down"}"#)?;
/// assert_eq!(r, Response::Claim(ClaimAnswer::Failed { claim: None, reason: "the daemon is shutting down".into() }));
/// Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClaimAnswer {
    /// The claim succeeded and is defended.
    Claimed {
        /// The claim.
        claim: ClaimView,
        /// A note on the success: "a site of one: no participating interface" when nobody
        /// could have denied it (docs/uiap-design.md D23).
        note: Option<String>,
        /// With a key: datagrams that failed authentication while the claim was made. Their
        /// senders were heard but could not deny it (docs/uiap-design.md D62).
        auth_failures: Option<AuthFailures>,
        /// With a key: how far ahead of this host's the clocks of the neighbours heard are
        /// (docs/uiap-design.md D72).
        clock: Option<ClockAhead>,
    },
    /// Another device, or a claim of this device, holds an overlapping space. A local conflict
    /// is denied at once, with `id` 0.
    Denied {
        /// The claim as it was asked for.
        claim: ClaimView,
        /// Who refused it, as a sentence (docs/uiap-design.md D26).
        reason: String,
    },
    /// The claim could not be carried out: every participating interface left while claiming
    /// (docs/uiap-design.md D31), it was released while claiming, or the daemon is shutting down.
    Failed {
        /// The claim, when it had been made.
        claim: Option<ClaimView>,
        /// Why.
        reason: String,
    },
}

/// The body of a failed response.
///
/// ```
/// use uiap_control::{ErrorBody, ErrorKind};
///
/// let e = ErrorBody { kind: ErrorKind::Request, message: "bad".into() };
/// assert_eq!(serde_json::to_string(&e)?, r#"{"kind":"request","message":"bad"}"#);
/// Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorBody {
    /// What kind of failure.
    pub kind: ErrorKind,
    /// What went wrong.
    pub message: String,
}

/// The kind of a failed response.
///
/// ```
/// use uiap_control::ErrorKind;
///
/// assert_eq!(serde_json::to_string(&ErrorKind::Io)?, r#""io""#);
/// assert_eq!(ErrorKind::Request.to_string(), "request");
/// Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// The request is malformed or refused (a bad line, an unknown claim, a permission).
    Request,
    /// The daemon cannot serve it now: too many connections, out of descriptors, shutting down.
    Io,
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ErrorKind::Request => "request",
            ErrorKind::Io => "io",
        })
    }
}

impl Response {
    /// A failure response.
    ///
    /// ```
    /// use uiap_control::{ErrorKind, Response};
    ///
    /// let r = Response::error(ErrorKind::Request, "no claim 9");
    /// assert_eq!(serde_json::to_string(&r)?, r#"{"ok":false,"error":{"kind":"request","message":"no claim 9"}}"#);
    /// Ok::<(), serde_json::Error>(())
    /// ```
    pub fn error(kind: ErrorKind, message: impl Into<String>) -> Response {
        Response::Error(ErrorBody {
            kind,
            message: message.into(),
        })
    }

    /// Whether this is a request's last answer: `false` for a claim's [`Response::Waiting`],
    /// the [`Response::Watching`] that opens an event stream, and the events themselves.
    ///
    /// ```
    /// use uiap_control::Response;
    ///
    /// assert!(Response::Released { id: 1 }.is_final());
    /// assert!(!Response::Watching(vec![]).is_final());
    /// ```
    pub fn is_final(&self) -> bool {
        !matches!(
            self,
            Response::Waiting { .. } | Response::Watching(_) | Response::Event(_)
        )
    }

    /// What this answer is, for an error that expected another.
    #[cfg(unix)]
    pub(crate) fn what(&self) -> &'static str {
        match self {
            Response::Claim(_) => "a claim's answer",
            Response::Waiting { .. } => "a `waiting` answer",
            Response::Released { .. } => "a `released` answer",
            Response::Claims(_) => "a claim list",
            Response::Status(_) => "a status",
            Response::Proxies { .. } => "a proxy list",
            Response::Watching(_) => "a `watching` answer",
            Response::Event(_) => "an event",
            Response::Error(_) => "an error",
        }
    }
}

/// The word in `result`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Outcome {
    Claimed,
    Denied,
    Failed,
    Waiting,
    Released,
    Watching,
}

/// A response line as it is on the wire: every field that any answer uses, the others omitted.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct Wire {
    ok: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    result: Option<Outcome>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    id: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    claim: Option<ClaimView>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    claims: Option<Vec<ClaimView>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    status: Option<Box<StatusView>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    proxies: Option<Vec<ProxyView>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    flushed: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    error: Option<ErrorBody>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    event: Option<ClaimEvent>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    auth_failures: Option<AuthFailures>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    clock: Option<ClockAhead>,
}

impl From<Response> for Wire {
    fn from(r: Response) -> Wire {
        let ok = Wire {
            ok: true,
            ..Wire::default()
        };
        let with = |result: Outcome, claim: Option<ClaimView>, reason: Option<String>| Wire {
            result: Some(result),
            claim,
            reason,
            ..ok.clone()
        };
        match r {
            Response::Claim(ClaimAnswer::Claimed {
                claim,
                note,
                auth_failures,
                clock,
            }) => Wire {
                auth_failures,
                clock,
                ..with(Outcome::Claimed, Some(claim), note)
            },
            Response::Claim(ClaimAnswer::Denied { claim, reason }) => {
                with(Outcome::Denied, Some(claim), Some(reason))
            }
            Response::Claim(ClaimAnswer::Failed { claim, reason }) => {
                with(Outcome::Failed, claim, Some(reason))
            }
            Response::Waiting { claim, reason } => {
                with(Outcome::Waiting, Some(claim), Some(reason))
            }
            Response::Released { id } => Wire {
                id: Some(id),
                ..with(Outcome::Released, None, None)
            },
            Response::Watching(claims) => Wire {
                claims: Some(claims),
                ..with(Outcome::Watching, None, None)
            },
            Response::Claims(claims) => Wire {
                claims: Some(claims),
                ..ok
            },
            Response::Status(status) => Wire {
                status: Some(status),
                ..ok
            },
            Response::Proxies { proxies, flushed } => Wire {
                proxies: Some(proxies),
                flushed,
                ..ok
            },
            Response::Event(event) => Wire {
                event: Some(event),
                ..ok
            },
            Response::Error(body) => Wire {
                error: Some(body),
                ..Wire::default()
            },
        }
    }
}

/// The field an answer must have.
fn needs<T>(value: Option<T>, field: &str, answer: &str) -> Result<T, String> {
    value.ok_or_else(|| format!("expected `{field}` in {answer}, found none"))
}

impl TryFrom<Wire> for Response {
    type Error = String;

    fn try_from(w: Wire) -> Result<Response, String> {
        if !w.ok {
            return Ok(Response::Error(needs(w.error, "error", "a failed answer")?));
        }
        if let Some(event) = w.event {
            return Ok(Response::Event(event));
        }
        let answer = match w.result {
            Some(Outcome::Claimed) => Response::Claim(ClaimAnswer::Claimed {
                claim: needs(w.claim, "claim", "a `claimed` answer")?,
                note: w.reason,
                auth_failures: w.auth_failures,
                clock: w.clock,
            }),
            Some(Outcome::Denied) => Response::Claim(ClaimAnswer::Denied {
                claim: needs(w.claim, "claim", "a `denied` answer")?,
                reason: needs(w.reason, "reason", "a `denied` answer")?,
            }),
            Some(Outcome::Failed) => Response::Claim(ClaimAnswer::Failed {
                claim: w.claim,
                reason: needs(w.reason, "reason", "a `failed` answer")?,
            }),
            Some(Outcome::Waiting) => Response::Waiting {
                claim: needs(w.claim, "claim", "a `waiting` answer")?,
                reason: needs(w.reason, "reason", "a `waiting` answer")?,
            },
            Some(Outcome::Released) => Response::Released {
                id: needs(w.id, "id", "a `released` answer")?,
            },
            Some(Outcome::Watching) => {
                Response::Watching(needs(w.claims, "claims", "a `watching` answer")?)
            }
            None => match (w.claims, w.status, w.proxies) {
                (Some(claims), None, None) => Response::Claims(claims),
                (None, Some(status), None) => Response::Status(status),
                (None, None, Some(proxies)) => Response::Proxies {
                    proxies,
                    flushed: w.flushed,
                },
                _ => {
                    return Err(
                        "expected one of `result`, `claims`, `status`, `proxies` or \
                                `event` in a successful answer"
                            .into(),
                    );
                }
            },
        };
        Ok(answer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ClaimState, EventKind, SpaceText};

    fn view(state: ClaimState) -> ClaimView {
        ClaimView {
            id: 1,
            domain: "fff:0:1:0".into(),
            space: SpaceText::Uid("01".into()),
            lifetime: 60,
            proxy: false,
            renew: false,
            state,
            expires_in: None,
        }
    }

    const CLAIM: &str = r#"{"id":1,"domain":"fff:0:1:0","space":{"uid":"01"},"lifetime":60,"proxy":false,"renew":false,"state":"held"}"#;

    #[test]
    fn every_answer_has_its_line() {
        let held = view(ClaimState::Held);
        let claimed = Response::Claim(ClaimAnswer::Claimed {
            claim: held.clone(),
            note: Some("a site of one: no participating interface".into()),
            auth_failures: None,
            clock: None,
        });
        let event = Response::Event(ClaimEvent {
            id: 1,
            kind: EventKind::Renewed,
            reason: None,
            claim: held.clone(),
        });
        let cases = [
            (
                claimed,
                format!(
                    r#"{{"ok":true,"result":"claimed","reason":"a site of one: no participating interface","claim":{CLAIM}}}"#
                ),
            ),
            (
                Response::Waiting {
                    claim: held.clone(),
                    reason: "rate limited, starts in 42 s".into(),
                },
                format!(
                    r#"{{"ok":true,"result":"waiting","reason":"rate limited, starts in 42 s","claim":{CLAIM}}}"#
                ),
            ),
            (
                Response::Watching(vec![held.clone()]),
                format!(r#"{{"ok":true,"result":"watching","claims":[{CLAIM}]}}"#),
            ),
            (
                Response::Claims(vec![held]),
                format!(r#"{{"ok":true,"claims":[{CLAIM}]}}"#),
            ),
            (
                Response::Proxies {
                    proxies: vec![],
                    flushed: Some(2),
                },
                r#"{"ok":true,"proxies":[],"flushed":2}"#.into(),
            ),
            (
                event,
                format!(r#"{{"ok":true,"event":{{"id":1,"kind":"renewed","claim":{CLAIM}}}}}"#),
            ),
            (
                Response::error(ErrorKind::Io, "the daemon is shutting down"),
                r#"{"ok":false,"error":{"kind":"io","message":"the daemon is shutting down"}}"#
                    .into(),
            ),
        ];
        for (response, line) in cases {
            assert_eq!(serde_json::to_string(&response).unwrap(), line);
            let back: Response = serde_json::from_str(&line).unwrap();
            assert_eq!(back, response, "{line}");
        }
    }

    #[test]
    fn auth_failures_ride_on_a_claimed_answer_and_older_lines_still_read() {
        let claimed = Response::Claim(ClaimAnswer::Claimed {
            claim: view(ClaimState::Held),
            note: None,
            auth_failures: Some(AuthFailures {
                datagrams: 6,
                neighbours: 2,
                seconds: 302,
            }),
            clock: Some(crate::ClockAhead {
                ahead_ms: 20_051,
                listened_ms: 9_000,
                neighbour: Some("fe80::2%2".into()),
            }),
        });
        let line = serde_json::to_string(&claimed).unwrap();
        assert_eq!(
            line,
            format!(
                r#"{{"ok":true,"result":"claimed","claim":{CLAIM},"auth_failures":{{"datagrams":6,"neighbours":2,"seconds":302}},"clock":{{"ahead_ms":20051,"listened_ms":9000,"neighbour":"fe80::2%2"}}}}"#
            )
        );
        assert_eq!(serde_json::from_str::<Response>(&line).unwrap(), claimed);
        // A daemon that does not know the field: none.
        let old = format!(r#"{{"ok":true,"result":"claimed","claim":{CLAIM}}}"#);
        let Response::Claim(ClaimAnswer::Claimed {
            auth_failures,
            clock,
            ..
        }) = serde_json::from_str::<Response>(&old).unwrap()
        else {
            panic!("{old}");
        };
        assert_eq!((auth_failures, clock), (None, None));
    }

    #[test]
    fn a_denial_carries_its_claim_and_reason() {
        let denied = Response::Claim(ClaimAnswer::Denied {
            claim: ClaimView {
                id: 0,
                ..view(ClaimState::Denied)
            },
            reason: "local conflict with claim 1".into(),
        });
        let line = serde_json::to_string(&denied).unwrap();
        assert!(
            line.starts_with(
                r#"{"ok":true,"result":"denied","reason":"local conflict with claim 1","claim":{"id":0,"#
            ),
            "{line}"
        );
        assert_eq!(serde_json::from_str::<Response>(&line).unwrap(), denied);
    }

    #[test]
    fn an_answer_missing_what_it_needs_is_refused_by_name() {
        for (line, missing) in [
            (
                r#"{"ok":true,"result":"claimed"}"#,
                "expected `claim` in a `claimed` answer",
            ),
            (
                r#"{"ok":true,"result":"denied","claim":{"id":0,"domain":"fff:0:1:0","space":{"uid":"01"},"lifetime":1,"proxy":false,"state":"denied"}}"#,
                "expected `reason` in a `denied` answer",
            ),
            (
                r#"{"ok":true,"result":"released"}"#,
                "expected `id` in a `released` answer",
            ),
            (r#"{"ok":false}"#, "expected `error` in a failed answer"),
            (r#"{"ok":true}"#, "expected one of `result`"),
            (r#"{"ok":true,"result":"maybe"}"#, "unknown variant `maybe`"),
            (
                r#"{"ok":true,"claims":[{"id":1,"domain":"d","space":{"uid":"01"},"lifetime":1,"proxy":false,"state":"sleeping"}]}"#,
                "unknown variant `sleeping`",
            ),
        ] {
            let e = serde_json::from_str::<Response>(line)
                .unwrap_err()
                .to_string();
            assert!(e.contains(missing), "{line}: {e}");
        }
    }
}
