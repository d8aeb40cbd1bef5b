//! The control socket's server: binding, accepting within limits, and one task per connection
//! that turns lines into [`Incoming`] requests and writes their answers back. The protocol — its
//! requests, responses and their line format — is the `uiap-control` crate's.

use std::collections::HashMap;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::UnixListener;
use tokio::sync::mpsc;
use tracing::{debug, warn};

use uiap_control::{ErrorKind, MAX_REQUEST_LINE, Request, Response};

use crate::{DaemonError, DaemonErrorKind};

mod limits;

pub(crate) use limits::limits;

/// A request received by the server, with the channel its answers go back on.
///
/// The daemon sends zero or more provisional answers and then one final answer
/// ([`Response::is_final`]); for a `watch` request, events until it drops the sender. A closed
/// channel (`reply.is_closed()`) means the client went away.
#[derive(Debug)]
pub(crate) struct Incoming {
    /// The request.
    pub request: Request,
    /// Where its answers go.
    pub reply: mpsc::Sender<Response>,
    /// The requesting process's user ID (`SO_PEERCRED`), if the kernel gave it
    /// (docs/uiap-design.md D28).
    pub uid: Option<u32>,
}

/// How many answers may wait for a slow client: a claim has at most two, a watcher that falls
/// this far behind is disconnected (docs/uiap-design.md D33).
const REPLY_QUEUE: usize = 64;

/// Binds the control socket at `path` with mode 0660, replacing a stale socket file (one nobody
/// answers on). The parent directory is created if missing.
///
/// # Errors
///
/// [`DaemonErrorKind::Io`] if the directory, the socket or its permissions cannot be set up, or
/// if another daemon answers on `path`.
///
pub(crate) fn bind(path: &Path) -> Result<UnixListener, DaemonError> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| DaemonError::io("cannot create control directory", Some(dir), e))?;
    }
    if UnixStream::connect(path).is_ok() {
        // Someone answers on it: never remove a live control socket (docs/uiap-design.md D27).
        return Err(DaemonError::new(
            DaemonErrorKind::Io,
            format!(
                "another uiapd is already running (or another program): something answers on \
                 the control socket {}",
                path.display()
            ),
        ));
    }
    // Only a stale socket is removed: anything else at the path is someone's file.
    if let Ok(meta) = std::fs::symlink_metadata(path) {
        use std::os::unix::fs::FileTypeExt;
        if !meta.file_type().is_socket() {
            return Err(DaemonError::new(
                DaemonErrorKind::Io,
                format!(
                    "expected a socket or nothing at {}, found something else; left untouched",
                    path.display()
                ),
            ));
        }
    }
    match std::fs::remove_file(path) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => {
            return Err(DaemonError::io(
                "cannot remove stale control socket",
                Some(path),
                e,
            ));
        }
    }
    let listener = UnixListener::bind(path)
        .map_err(|e| DaemonError::io("cannot bind control socket", Some(path), e))?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o660))
        .map_err(|e| DaemonError::io("cannot set control socket mode", Some(path), e))?;
    Ok(listener)
}

/// What one control socket may cost the daemon (docs/uiap-design.md D36).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Limits {
    /// Connections open at once; one more is answered with an error and closed.
    pub(crate) max_connections: usize,
    /// Connections one user other than root may have open at once (docs/uiap-design.md D65).
    pub(crate) per_user: usize,
    /// Connections of one user other than root that hold one of its claims for as long as they
    /// live (a site lease's watch) and so no longer count in `per_user`: as many as the user may
    /// hold claims (docs/uiap-design.md D77).
    pub(crate) per_user_tied: usize,
    /// A connection with no request in progress that sends no complete line for this long is
    /// closed (a claim being answered or a watch is not idle).
    pub(crate) idle: Duration,
}

/// The open connections, in all and per user: those counted in the user's cap, and those tied
/// to one of its claims.
#[derive(Default)]
struct Open {
    all: usize,
    by_user: HashMap<u32, usize>,
    tied_by_user: HashMap<u32, usize>,
}

/// One less in `counts` for `uid`.
fn uncount(counts: &mut HashMap<u32, usize>, uid: u32) {
    if let Some(n) = counts.get_mut(&uid) {
        *n -= 1;
        if *n == 0 {
            counts.remove(&uid);
        }
    }
}

/// An open connection of a user, counted while it lives.
struct Slot {
    open: Arc<Mutex<Open>>,
    uid: u32,
    /// It holds one of its user's claims, and counts among the tied ones.
    tied: bool,
}

impl Slot {
    /// The connection now holds one of its user's claims for as long as it lives (a watch that
    /// releases the claim when it closes): it stops counting in the user's cap, if the user has
    /// fewer than `limit` such connections; root's are not counted either way
    /// (docs/uiap-design.md D77).
    fn tie(&mut self, limit: usize) {
        if self.tied || self.uid == 0 {
            return;
        }
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        let tied = open.tied_by_user.get(&self.uid).copied().unwrap_or(0);
        if tied >= limit {
            return;
        }
        uncount(&mut open.by_user, self.uid);
        *open.tied_by_user.entry(self.uid).or_insert(0) += 1;
        self.tied = true;
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        open.all = open.all.saturating_sub(1);
        if self.tied {
            uncount(&mut open.tied_by_user, self.uid);
        } else {
            uncount(&mut open.by_user, self.uid);
        }
    }
}

/// Connections of the shared cap only root may take: users other than root together cannot
/// lock root out (docs/uiap-design.md D65).
fn root_reserve(max_connections: usize) -> usize {
    if max_connections < 2 {
        0
    } else {
        (max_connections / 16).max(1)
    }
}

/// A slot for a connection of `uid` (`u32::MAX` when the kernel did not say), or why it is
/// refused: the shared cap less root's reserve for users other than root, and each such user's
/// own cap (docs/uiap-design.md D36, D65).
fn take_slot(open: &Arc<Mutex<Open>>, limits: &Limits, uid: u32) -> Result<Slot, String> {
    let mut o = open.lock().unwrap_or_else(PoisonError::into_inner);
    let mine = o.by_user.get(&uid).copied().unwrap_or(0);
    let shared = if uid == 0 {
        limits.max_connections
    } else {
        limits.max_connections - root_reserve(limits.max_connections)
    };
    if o.all >= shared {
        return Err(format!(
            "too many control connections ({} open); try again later",
            o.all
        ));
    }
    if uid != 0 && mine >= limits.per_user {
        return Err(format!(
            "uid {uid} has {mine} control connections open, the most a user other than root may \
             (users max-connections {}); close one and try again",
            limits.per_user
        ));
    }
    o.all += 1;
    *o.by_user.entry(uid).or_insert(0) += 1;
    Ok(Slot {
        open: Arc::clone(open),
        uid,
        tied: false,
    })
}

/// Answers a connection the daemon will not serve with one error line, without waiting for the
/// client, and closes it.
fn refuse(stream: &tokio::net::UnixStream, why: &str) {
    let mut line = serde_json::to_string(&Response::error(ErrorKind::Io, why)).unwrap_or_default();
    line.push('\n');
    let _ = stream.try_write(line.as_bytes());
}

/// The longest pause between two failed accepts.
const MAX_ACCEPT_BACKOFF: Duration = Duration::from_secs(1);

/// Accepts connections forever within `limits`, parsing each line into a request for
/// `requests`. A malformed line gets an error response and the connection stays open.
///
/// When accepting fails (out of file descriptors: the pending connection stays queued and the
/// next accept would fail at once), the loop pauses, doubling from 10 ms to 1 s, instead of
/// spinning; one descriptor kept in reserve is given up to accept and refuse the pending
/// connection, so that clients get an answer rather than hang (docs/uiap-design.md D36).
pub(crate) async fn serve(
    listener: UnixListener,
    requests: mpsc::Sender<Incoming>,
    limits: Limits,
) {
    let open = Arc::new(Mutex::new(Open::default()));
    let mut spare = std::fs::File::open("/dev/null").ok();
    let mut backoff = Duration::ZERO;
    loop {
        match listener.accept().await {
            Ok((stream, _)) => {
                backoff = Duration::ZERO;
                let uid = stream.peer_cred().map_or(u32::MAX, |c| c.uid());
                match take_slot(&open, &limits, uid) {
                    Ok(slot) => {
                        tokio::spawn(connection(stream, requests.clone(), slot, limits));
                    }
                    Err(why) => {
                        debug!(uid, reason = %why, "control connection refused");
                        refuse(&stream, &why);
                    }
                }
            }
            Err(e) => {
                if matches!(e.raw_os_error(), Some(libc::EMFILE | libc::ENFILE))
                    && let Some(reserve) = spare.take()
                {
                    drop(reserve);
                    let pending =
                        tokio::time::timeout(Duration::from_millis(10), listener.accept());
                    if let Ok(Ok((stream, _))) = pending.await {
                        refuse(&stream, "uiapd is out of file descriptors; try again later");
                    }
                    spare = std::fs::File::open("/dev/null").ok();
                }
                backoff = (backoff * 2).clamp(Duration::from_millis(10), MAX_ACCEPT_BACKOFF);
                warn!(error = %e, pause_ms = backoff.as_millis() as u64, "cannot accept a control connection");
                tokio::time::sleep(backoff).await;
            }
        }
    }
}

/// One line read by [`read_line`].
enum Line {
    /// A complete line (newline removed), or the last bytes before end of stream.
    Bytes(Vec<u8>),
    /// More than [`MAX_REQUEST_LINE`] bytes without a newline.
    TooLong,
    /// End of stream.
    End,
}

/// Reads one line of at most [`MAX_REQUEST_LINE`] bytes, never buffering more.
async fn read_line<R: AsyncBufRead + Unpin>(reader: &mut R) -> std::io::Result<Line> {
    let mut line = Vec::new();
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(if line.is_empty() {
                Line::End
            } else {
                Line::Bytes(line)
            });
        }
        let (take, done) = match available.iter().position(|&b| b == b'\n') {
            Some(at) => (at, true),
            None => (available.len(), false),
        };
        if line.len() + take > MAX_REQUEST_LINE {
            return Ok(Line::TooLong);
        }
        line.extend_from_slice(&available[..take]);
        reader.consume(take + usize::from(done));
        if done {
            return Ok(Line::Bytes(line));
        }
    }
}

/// Parses one request line: the error names the first byte that is not UTF-8, or what JSON
/// expected.
fn parse_line(line: &[u8]) -> Result<Option<Request>, String> {
    let text = std::str::from_utf8(line).map_err(|e| {
        let at = e.valid_up_to();
        format!("expected UTF-8 text, found byte {:#04x} at {at}", line[at])
    })?;
    if text.trim().is_empty() {
        return Ok(None);
    }
    serde_json::from_str::<Request>(text)
        .map(Some)
        .map_err(|e| format!("expected a request object, {e}"))
}

type Reader = tokio::io::BufReader<tokio::net::unix::OwnedReadHalf>;
type Writer = tokio::net::unix::OwnedWriteHalf;

/// Serves one connection: a request per line, its answers in order.
async fn connection(
    stream: tokio::net::UnixStream,
    requests: mpsc::Sender<Incoming>,
    mut slot: Slot,
    limits: Limits,
) {
    let uid = (slot.uid != u32::MAX).then_some(slot.uid);
    let idle = limits.idle;
    let (read, mut write) = stream.into_split();
    let mut reader = tokio::io::BufReader::new(read);
    loop {
        let line = match tokio::time::timeout(idle, read_line(&mut reader)).await {
            Err(_) => {
                let why = format!("no request for {} s; closing", idle.as_secs_f64());
                let _ = send(&mut write, &Response::error(ErrorKind::Request, why)).await;
                return;
            }
            Ok(Ok(Line::Bytes(line))) => line,
            Ok(Ok(Line::End) | Err(_)) => return,
            Ok(Ok(Line::TooLong)) => {
                let refusal = Response::error(
                    ErrorKind::Request,
                    format!(
                        "expected a request line of at most {MAX_REQUEST_LINE} bytes, found more"
                    ),
                );
                // The rest of the line is not read: the connection closes after the answer.
                let _ = send(&mut write, &refusal).await;
                return;
            }
        };
        let request = match parse_line(&line) {
            Ok(None) => continue,
            Ok(Some(request)) => request,
            Err(message) => {
                let response = Response::error(ErrorKind::Request, message);
                if send(&mut write, &response).await.is_err() {
                    return;
                }
                continue;
            }
        };
        let watching = matches!(request, Request::Watch { .. });
        // A watch that releases its claim when the connection closes ties the connection to
        // the claim, once the daemon confirms it (docs/uiap-design.md D77).
        let tying = matches!(
            request,
            Request::Watch {
                id: Some(_),
                release_on_close: true
            }
        );
        let (tx, mut rx) = mpsc::channel(REPLY_QUEUE);
        let incoming = Incoming {
            request,
            reply: tx,
            uid,
        };
        if requests.send(incoming).await.is_err() {
            return;
        }
        let tie = tying.then_some(limits.per_user_tied);
        if !answer(&mut reader, &mut write, &mut rx, watching, (&mut slot, tie)).await {
            return;
        }
    }
}

/// Writes a request's answers until its final one (`true`: the connection goes on). Meanwhile
/// the connection is watched for end of stream, which drops `rx` and so cancels a claim still
/// in progress (docs/uiap-design.md D30); a watching connection's input is read and ignored.
/// With `tie`, the connection's slot is tied within that limit when the watch is confirmed.
async fn answer(
    reader: &mut Reader,
    write: &mut Writer,
    rx: &mut mpsc::Receiver<Response>,
    watching: bool,
    (slot, mut tie): (&mut Slot, Option<usize>),
) -> bool {
    // Pipelined requests wait in the buffer: end of stream cannot be seen behind them.
    let mut look = watching || reader.buffer().is_empty();
    loop {
        tokio::select! {
            r = rx.recv() => match r {
                Some(response) => {
                    if send(write, &response).await.is_err() {
                        return false;
                    }
                    if matches!(response, Response::Watching(_))
                        && let Some(limit) = tie.take()
                    {
                        slot.tie(limit);
                    }
                    if response.is_final() && !watching {
                        return true;
                    }
                }
                None => {
                    if !watching {
                        let down = Response::error(ErrorKind::Io, "the daemon is shutting down");
                        let _ = send(write, &down).await;
                    }
                    return false;
                }
            },
            more = reader.fill_buf(), if look => {
                let n = more.map_or(0, |bytes| bytes.len());
                if n == 0 {
                    return false;
                }
                if watching {
                    reader.consume(n);
                } else {
                    look = false;
                }
            }
        }
    }
}

async fn send<W: AsyncWrite + Unpin>(write: &mut W, response: &Response) -> std::io::Result<()> {
    let mut text = serde_json::to_string(response).unwrap_or_default();
    text.push('\n');
    write.write_all(text.as_bytes()).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_stale_socket_at_the_control_path_is_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("control.sock");
        std::fs::write(&path, "someone's data\n").unwrap();
        let err = bind(&path).unwrap_err().to_string();
        assert!(err.contains("expected a socket or nothing"), "{err}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "someone's data\n");
        std::fs::remove_file(&path).unwrap();
        // A stale socket (nobody answers) is replaced.
        drop(std::os::unix::net::UnixListener::bind(&path).unwrap());
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async { bind(&path).unwrap() });
    }

    fn read(input: &[u8]) -> Vec<Line> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        runtime.block_on(async {
            let mut reader = tokio::io::BufReader::with_capacity(7, input);
            let mut lines = Vec::new();
            loop {
                let line = read_line(&mut reader).await.unwrap();
                let last = !matches!(line, Line::Bytes(_));
                lines.push(line);
                if last {
                    return lines;
                }
            }
        })
    }

    #[test]
    fn lines_are_read_whole_across_buffers_and_a_long_one_is_refused() {
        let got = read(b"{\"op\":\"list\"}\n\nlast");
        assert!(
            matches!(got.as_slice(), [Line::Bytes(a), Line::Bytes(b), Line::Bytes(c), Line::End]
                if a == br#"{"op":"list"}"# && b.is_empty() && c == b"last"),
            "{} lines",
            got.len()
        );
        let long = vec![b'x'; MAX_REQUEST_LINE + 1];
        assert!(matches!(read(&long).as_slice(), [Line::TooLong]));
        let mut exact = vec![b'x'; MAX_REQUEST_LINE];
        exact.push(b'\n');
        assert!(
            matches!(read(&exact).as_slice(), [Line::Bytes(l), Line::End] if l.len() == MAX_REQUEST_LINE)
        );
    }

    #[test]
    fn users_other_than_root_have_a_cap_each_and_cannot_take_roots_reserve() {
        let limits = Limits {
            max_connections: 32,
            per_user: 20,
            per_user_tied: 2,
            idle: Duration::from_secs(1),
        };
        let open = Arc::new(Mutex::new(Open::default()));
        let mut slots: Vec<Slot> = (0..20)
            .map(|_| take_slot(&open, &limits, 1000).unwrap())
            .collect();
        let why = take_slot(&open, &limits, 1000).err().unwrap();
        assert!(
            why.starts_with("uid 1000 has 20 control connections open"),
            "{why}"
        );
        // Another user fills the shared cap but root's reserve (2 of 32).
        slots.extend((0..10).map(|_| take_slot(&open, &limits, 1001).unwrap()));
        let why = take_slot(&open, &limits, 1001).err().unwrap();
        assert_eq!(
            why,
            "too many control connections (30 open); try again later"
        );
        slots.push(take_slot(&open, &limits, 0).unwrap());
        slots.push(take_slot(&open, &limits, 0).unwrap());
        assert!(
            take_slot(&open, &limits, 0).is_err(),
            "the shared cap binds root too"
        );
        // A closed connection gives its slot back.
        slots.truncate(1);
        assert!(take_slot(&open, &limits, 1000).is_ok());
        assert_eq!(root_reserve(1), 0);
        assert_eq!(root_reserve(256), 16);
    }

    #[test]
    fn connections_tied_to_their_users_claims_leave_the_users_cap_up_to_its_claims() {
        let limits = Limits {
            max_connections: 32,
            per_user: 3,
            per_user_tied: 2,
            idle: Duration::from_secs(1),
        };
        let open = Arc::new(Mutex::new(Open::default()));
        let mut slots: Vec<Slot> = (0..3)
            .map(|_| take_slot(&open, &limits, 1000).unwrap())
            .collect();
        assert!(take_slot(&open, &limits, 1000).is_err());
        // Two become watches that hold the user's claims: two more may open.
        for slot in &mut slots[..2] {
            slot.tie(limits.per_user_tied);
            slot.tie(limits.per_user_tied);
        }
        slots.push(take_slot(&open, &limits, 1000).unwrap());
        slots.push(take_slot(&open, &limits, 1000).unwrap());
        // A third watch is beyond the user's claims: it stays in the cap.
        slots[2].tie(limits.per_user_tied);
        assert!(!slots[2].tied);
        let why = take_slot(&open, &limits, 1000).err().unwrap();
        assert!(
            why.starts_with("uid 1000 has 3 control connections open"),
            "{why}"
        );
        // The shared cap counts them all.
        assert_eq!(open.lock().unwrap().all, 5);
        // A tied connection closed gives back its tie, not a place in the cap.
        slots.remove(0);
        assert!(take_slot(&open, &limits, 1000).is_err());
        slots[2].tie(limits.per_user_tied);
        assert!(slots[2].tied);
        slots.push(take_slot(&open, &limits, 1000).unwrap());
        drop(slots);
        let o = open.lock().unwrap();
        assert_eq!((o.all, o.by_user.len(), o.tied_by_user.len()), (0, 0, 0));
    }

    #[test]
    fn a_bad_line_is_named_and_a_blank_one_is_no_request() {
        assert_eq!(parse_line(b"  "), Ok(None));
        assert_eq!(parse_line(br#"{"op":"list"}"#), Ok(Some(Request::List)));
        assert_eq!(
            parse_line(b"{\"op\":\"st\xffatus\"}"),
            Err("expected UTF-8 text, found byte 0xff at 9".into())
        );
        let e = parse_line(b"not json").unwrap_err();
        assert!(e.starts_with("expected a request object, "), "{e}");
    }
}
