//! One blocking connection to the daemon: a request out, response lines in.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::{ClaimEvent, ClaimView, ControlError, ControlErrorKind, Request, Response};

/// A blocking connection to the daemon.
#[derive(Debug)]
pub(crate) struct Conn {
    path: PathBuf,
    reader: BufReader<UnixStream>,
    /// The start of a line a timed-out read left behind: the next read
    /// continues it, so a timeout never drops part of an answer.
    pending: Vec<u8>,
}

/// The end of a wait of `wait` from now (`None`: no end); a wait is at least 1 ms.
pub(crate) fn deadline_after(wait: Option<Duration>) -> Option<Instant> {
    wait.map(|w| Instant::now() + w.max(Duration::from_millis(1)))
}

impl Conn {
    pub(crate) fn open(path: &Path) -> Result<Conn, ControlError> {
        let stream = UnixStream::connect(path).map_err(|e| {
            ControlError::io(
                ControlErrorKind::NoDaemon,
                "cannot connect to uiapd",
                path,
                e,
            )
        })?;
        Ok(Conn::on(path, stream))
    }

    fn on(path: &Path, stream: UnixStream) -> Conn {
        Conn {
            path: path.to_path_buf(),
            reader: BufReader::new(stream),
            pending: Vec::new(),
        }
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    pub(crate) fn send(&mut self, request: &Request) -> Result<(), ControlError> {
        // A request of strings, numbers and booleans always encodes.
        let mut line = serde_json::to_string(request).unwrap_or_default();
        line.push('\n');
        let sent = self.reader.get_mut().write_all(line.as_bytes());
        sent.map_err(|e| {
            // A daemon that refuses a connection answers at once and closes it: its refusal
            // says more than the broken pipe it leaves.
            let soon = Some(Instant::now() + Duration::from_millis(500));
            match self.read(soon) {
                Ok(Some(Response::Error(body))) => ControlError::refused(&body),
                _ => ControlError::io(ControlErrorKind::Io, "cannot send request", &self.path, e),
            }
        })
    }

    /// Reads one response line; `Ok(None)` when `deadline` passes first.
    pub(crate) fn read(
        &mut self,
        deadline: Option<Instant>,
    ) -> Result<Option<Response>, ControlError> {
        let left = match deadline {
            Some(d) => match d.checked_duration_since(Instant::now()) {
                Some(left) if !left.is_zero() => Some(left),
                _ => return Ok(None),
            },
            None => None,
        };
        let io = |what: &str, e| ControlError::io(ControlErrorKind::Io, what, &self.path, e);
        self.reader
            .get_ref()
            .set_read_timeout(left)
            .map_err(|e| io("cannot set a timeout", e))?;
        match self.reader.read_until(b'\n', &mut self.pending) {
            Ok(_) => {}
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                return Ok(None);
            }
            Err(e) => return Err(io("cannot read response", e)),
        }
        let line = std::mem::take(&mut self.pending);
        if line.last() != Some(&b'\n') {
            return Err(ControlError::new(
                ControlErrorKind::Protocol,
                if line.is_empty() {
                    "expected a response line, found end of stream"
                } else {
                    "expected the rest of a response line, found end of stream"
                },
            ));
        }
        let answer = String::from_utf8_lossy(&line);
        serde_json::from_str(&answer).map(Some).map_err(|e| {
            ControlError::new(
                ControlErrorKind::Protocol,
                format!("expected a response object, {e}: `{}`", answer.trim_end()),
            )
        })
    }

    /// Reads answers until the final one, handing provisional ones to `progress`.
    pub(crate) fn final_answer(
        &mut self,
        limit: Option<Duration>,
        progress: &mut dyn FnMut(&Response),
    ) -> Result<Response, ControlError> {
        let deadline = limit.filter(|l| !l.is_zero()).map(|l| Instant::now() + l);
        loop {
            match self.read(deadline)? {
                Some(r) if r.is_final() => return Ok(r),
                Some(r) => progress(&r),
                None => {
                    let l = limit.unwrap_or_default();
                    return Err(ControlError::new(
                        ControlErrorKind::Timeout,
                        format!(
                            "no answer within {} s from {}",
                            l.as_secs_f64(),
                            self.path.display()
                        ),
                    ));
                }
            }
        }
    }

    /// Sends a `watch` request and reads its `watching` answer: the watched claims as they are.
    /// Waits until `deadline` at most.
    pub(crate) fn start_watch(
        &mut self,
        id: Option<u64>,
        release_on_close: bool,
        deadline: Option<Instant>,
    ) -> Result<Vec<ClaimView>, ControlError> {
        self.send(&Request::Watch {
            id,
            release_on_close,
        })?;
        match self.read(deadline)? {
            None if deadline.is_some() => Err(ControlError::new(
                ControlErrorKind::Timeout,
                format!("no `watching` answer in time from {}", self.path.display()),
            )),
            Some(Response::Watching(claims)) => Ok(claims),
            Some(Response::Error(e)) => Err(ControlError::refused(&e)),
            other => Err(unexpected("a `watching` answer", other.as_ref())),
        }
    }

    /// The next event line before `deadline` (`None`: wait as long as it takes).
    pub(crate) fn next_event(
        &mut self,
        deadline: Option<Instant>,
    ) -> Result<Option<ClaimEvent>, ControlError> {
        loop {
            match self.read(deadline)? {
                None => return Ok(None),
                Some(Response::Event(event)) => return Ok(Some(event)),
                // Anything else on a watching connection carries no event.
                Some(_) => {}
            }
        }
    }
}

/// The error for an answer that is not the one the request calls for.
pub(crate) fn unexpected(expected: &str, found: Option<&Response>) -> ControlError {
    ControlError::new(
        ControlErrorKind::Protocol,
        format!(
            "expected {expected}, found {}",
            found.map_or("nothing", Response::what)
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_split_across_a_timeout_is_read_whole() {
        let (client, mut daemon) = UnixStream::pair().unwrap();
        let mut c = Conn::on(Path::new("test-socket"), client);
        daemon.write_all(br#"{"ok":true,"res"#).unwrap();
        let soon = Some(Instant::now() + Duration::from_millis(50));
        assert!(c.read(soon).unwrap().is_none(), "no whole line yet");
        daemon.write_all(b"ult\":\"released\",\"id\":7}\n").unwrap();
        let r = c.read(None).unwrap().expect("the whole line");
        assert_eq!(r, Response::Released { id: 7 });
    }

    #[test]
    fn the_end_of_stream_inside_a_line_is_an_error() {
        let (client, mut daemon) = UnixStream::pair().unwrap();
        let mut c = Conn::on(Path::new("test-socket"), client);
        daemon.write_all(br#"{"ok":tr"#).unwrap();
        drop(daemon);
        let e = c.read(None).unwrap_err();
        assert!(e.to_string().contains("the rest of a response line"), "{e}");
        let e = c.read(None).unwrap_err();
        assert!(e.to_string().contains("found end of stream"), "{e}");
        assert_eq!(e.kind(), ControlErrorKind::Protocol);
    }

    #[test]
    fn a_line_that_is_no_answer_is_a_protocol_error_quoting_it() {
        let (client, mut daemon) = UnixStream::pair().unwrap();
        let mut c = Conn::on(Path::new("test-socket"), client);
        daemon.write_all(b"{\"ok\":true}\n").unwrap();
        let e = c.read(None).unwrap_err();
        assert_eq!(e.kind(), ControlErrorKind::Protocol);
        assert!(e.message().ends_with("`{\"ok\":true}`"), "{e}");
    }

    #[test]
    fn no_final_answer_in_time_is_a_timeout_naming_the_limit() {
        let (client, mut daemon) = UnixStream::pair().unwrap();
        let mut c = Conn::on(Path::new("test-socket"), client);
        let waiting = br#"{"ok":true,"result":"waiting","reason":"rate limited, starts in 9 s","claim":{"id":1,"domain":"fff:0:1:0","space":{"uid":"01"},"lifetime":60,"proxy":false,"state":"claiming"}}"#;
        daemon.write_all(waiting).unwrap();
        daemon.write_all(b"\n").unwrap();
        let mut heard = Vec::new();
        let e = c
            .final_answer(Some(Duration::from_millis(100)), &mut |r| {
                heard.push(r.clone())
            })
            .unwrap_err();
        assert_eq!(e.kind(), ControlErrorKind::Timeout);
        assert_eq!(
            e.to_string(),
            "timeout: no answer within 0.1 s from test-socket"
        );
        assert!(
            matches!(heard.as_slice(), [Response::Waiting { reason, .. }] if reason.ends_with("9 s"))
        );
    }
}
