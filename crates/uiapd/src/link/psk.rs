//! The optional pre-shared-key trailer (docs/uiap-design.md D21, D41): the sender's time and an
//! HMAC-SHA-256 over the UIAP message and that time, appended as 8 + 32 octets. Every hop verifies
//! and strips it before the device sees the message, and appends a fresh one to everything it
//! sends (a forwarder changes the hop-limit octet).
//!
//! Replays are refused: a trailer whose time is more than [`WINDOW_MS`] away from the receiver's
//! clock is stale, and within the window every tag is remembered, so the same sealed datagram is
//! accepted once — across restarts too, when the tags are journaled in the state directory
//! (docs/uiap-design.md D71).

use std::collections::{HashSet, VecDeque};

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

/// Octets of the sender's time (milliseconds since the Unix epoch, big-endian).
const TIME_LEN: usize = 8;
/// Octets of the tag.
const TAG_LEN: usize = 32;
/// Octets in the trailer.
pub(crate) const TRAILER_LEN: usize = TIME_LEN + TAG_LEN;
/// How far the sender's time may be from ours, either way, in milliseconds.
pub(crate) const WINDOW_MS: u64 = 30_000;
/// Tags remembered at most; beyond this the oldest are forgotten early.
const SEEN_CAPACITY: usize = 1 << 16;

type HmacSha256 = Hmac<Sha256>;

fn tag(key: &[u8], message: &[u8], time: &[u8]) -> HmacSha256 {
    // HMAC accepts keys of any length.
    let mut m = <HmacSha256 as KeyInit>::new_from_slice(key)
        .unwrap_or_else(|_| unreachable!("hmac takes any key length"));
    m.update(message);
    m.update(time);
    m
}

/// Why a sealed datagram was refused.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Refused {
    /// Shorter than the trailer.
    Missing,
    /// The tag does not verify.
    Mismatch,
    /// The tag verifies but the sender's time is outside the window: its clock minus ours, in
    /// milliseconds.
    Stale { offset_ms: i64 },
    /// This very datagram was accepted (or sent by us) before.
    Replay,
}

impl From<Refused> for super::SourceDrop {
    fn from(refused: Refused) -> super::SourceDrop {
        match refused {
            Refused::Missing => super::SourceDrop::PskMissing,
            Refused::Mismatch => super::SourceDrop::PskMismatch,
            Refused::Stale { .. } => super::SourceDrop::PskStale,
            Refused::Replay => super::SourceDrop::PskReplay,
        }
    }
}

/// The tags of the sealed datagrams seen within the window, ours included.
#[derive(Debug, Default)]
pub(crate) struct Sealer {
    seen: HashSet<[u8; TAG_LEN]>,
    /// (time the tag stops mattering, tag), in the order they were seen.
    order: VecDeque<(u64, [u8; TAG_LEN])>,
    /// Where the tags are kept across restarts, if anywhere.
    journal: Option<super::journal::Journal>,
    /// Whether a failed append was logged.
    journal_failed: bool,
}

impl Sealer {
    /// A sealer whose tags are journaled in `dir` (docs/uiap-design.md D71), starting with the
    /// tags journaled there that still matter at `now_ms`.
    ///
    /// # Errors
    ///
    /// The journal cannot be read or written.
    pub(crate) fn journaled(dir: &std::path::Path, now_ms: u64) -> std::io::Result<Sealer> {
        let (journal, loaded) = super::journal::Journal::open(dir, now_ms)?;
        let mut sealer = Sealer::default();
        for (until, tag) in loaded {
            if sealer.seen.insert(tag) {
                sealer.order.push_back((until, tag));
            }
        }
        sealer.journal = Some(journal);
        Ok(sealer)
    }

    fn remember(&mut self, now_ms: u64, sent_ms: u64, tag: [u8; TAG_LEN]) {
        while self
            .order
            .front()
            .is_some_and(|&(until, _)| until < now_ms || self.order.len() >= SEEN_CAPACITY)
        {
            if let Some((_, old)) = self.order.pop_front() {
                self.seen.remove(&old);
            }
        }
        if self.seen.insert(tag) {
            let until = sent_ms.saturating_add(WINDOW_MS);
            self.order.push_back((until, tag));
            if let Some(journal) = &mut self.journal
                && let Err(e) = journal.append(now_ms, until, &tag)
                && !self.journal_failed
            {
                self.journal_failed = true;
                tracing::warn!(error = %e, "cannot journal PSK tags: a datagram sent or accepted \
                    now could be replayed after a restart");
            }
        }
    }

    /// `message || time || HMAC(key, message || time)`, with `now_ms` as the time; the tag is
    /// remembered, so the datagram coming back is a replay.
    pub(crate) fn seal(&mut self, key: &[u8], message: &[u8], now_ms: u64) -> Vec<u8> {
        let time = now_ms.to_be_bytes();
        let t: [u8; TAG_LEN] = tag(key, message, &time).finalize().into_bytes().into();
        self.remember(now_ms, now_ms, t);
        let mut out = Vec::with_capacity(message.len() + TRAILER_LEN);
        out.extend_from_slice(message);
        out.extend_from_slice(&time);
        out.extend_from_slice(&t);
        out
    }

    /// Verifies the trailer (in constant time), its time against `now_ms` and that it is new;
    /// returns the message without it.
    pub(crate) fn open<'a>(
        &mut self,
        key: &[u8],
        datagram: &'a [u8],
        now_ms: u64,
    ) -> Result<&'a [u8], Refused> {
        let Some(split) = datagram.len().checked_sub(TRAILER_LEN) else {
            return Err(Refused::Missing);
        };
        let (message, trailer) = datagram.split_at(split);
        let (time, t) = trailer.split_at(TIME_LEN);
        tag(key, message, time)
            .verify_slice(t)
            .map_err(|_| Refused::Mismatch)?;
        let mut sent = [0u8; TIME_LEN];
        sent.copy_from_slice(time);
        let sent_ms = u64::from_be_bytes(sent);
        if sent_ms.abs_diff(now_ms) > WINDOW_MS {
            let offset = i128::from(sent_ms) - i128::from(now_ms);
            return Err(Refused::Stale {
                offset_ms: i64::try_from(offset).unwrap_or(i64::MAX),
            });
        }
        let mut seen = [0u8; TAG_LEN];
        seen.copy_from_slice(t);
        if self.seen.contains(&seen) {
            return Err(Refused::Replay);
        }
        self.remember(now_ms, sent_ms, seen);
        Ok(message)
    }
}

/// The sender's time in a sealed datagram's trailer, if it is long enough to have one.
pub(crate) fn sent_ms(datagram: &[u8]) -> Option<u64> {
    let at = datagram.len().checked_sub(TRAILER_LEN)?;
    let time = datagram.get(at..at + TIME_LEN)?;
    Some(u64::from_be_bytes(time.try_into().ok()?))
}

/// Milliseconds since the Unix epoch on this host's clock (0 if it is set before 1970).
pub(crate) fn wall_clock_ms() -> u64 {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
    #[cfg(debug_assertions)]
    let now = test_clock_step(now);
    now
}

/// In debug builds only: the milliseconds held by the file `UIAPD_TEST_CLOCK_STEP_FILE` names
/// are added to the clock the trailer uses, so that a test can step one daemon's clock while
/// the others on the host keep theirs (docs/uiap-design.md D71). A release build has no such
/// hook.
#[cfg(debug_assertions)]
fn test_clock_step(now: u64) -> u64 {
    let Some(path) = std::env::var_os("UIAPD_TEST_CLOCK_STEP_FILE") else {
        return now;
    };
    let step = std::fs::read_to_string(path)
        .ok()
        .and_then(|s| s.trim().parse::<i64>().ok())
        .unwrap_or(0);
    now.saturating_add_signed(step)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc4231_case_2() {
        // RFC 4231 test case 2: key "Jefe", data "what do ya want for nothing?" — here split
        // into the message and the 8 octets the trailer's time takes.
        let data = b"what do ya want for nothing?";
        let t: [u8; 32] = tag(b"Jefe", &data[..20], &data[20..])
            .finalize()
            .into_bytes()
            .into();
        let hex: String = t.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(
            hex,
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }

    #[test]
    fn tampering_and_short_input_are_refused() {
        let now = 1_700_000_000_000;
        let sealed = Sealer::default().seal(b"k", &[1, 2, 3], now);
        assert_eq!(sealed.len(), 3 + TRAILER_LEN);
        let mut rx = Sealer::default();
        assert_eq!(
            rx.open(b"k", &sealed[..TRAILER_LEN - 1], now),
            Err(Refused::Missing)
        );
        assert_eq!(rx.open(b"other", &sealed, now), Err(Refused::Mismatch));
        for at in [0, 3, 4, sealed.len() - 1] {
            let mut bad = sealed.clone();
            bad[at] ^= 1;
            assert_eq!(rx.open(b"k", &bad, now), Err(Refused::Mismatch), "{at}");
        }
        assert_eq!(rx.open(b"k", &sealed, now), Ok(&[1u8, 2, 3][..]));
        assert_eq!(sent_ms(&sealed), Some(now));
        assert_eq!(sent_ms(&sealed[..TRAILER_LEN - 1]), None);
    }

    #[test]
    fn a_replay_is_refused_and_the_window_is_30_s_either_way() {
        let now = 1_700_000_000_000;
        let mut tx = Sealer::default();
        let mut rx = Sealer::default();
        let sealed = tx.seal(b"k", b"attempt", now);
        assert_eq!(rx.open(b"k", &sealed, now + 5), Ok(&b"attempt"[..]));
        assert_eq!(rx.open(b"k", &sealed, now + 10), Err(Refused::Replay));
        // Our own datagram coming back is a replay too.
        assert_eq!(tx.open(b"k", &sealed, now + 10), Err(Refused::Replay));
        // The same message sealed again (a new time) is new.
        let again = tx.seal(b"k", b"attempt", now + 1);
        assert_eq!(rx.open(b"k", &again, now + 10), Ok(&b"attempt"[..]));
        // Outside the window: stale, whether early or late, and long after it: still refused.
        for (sent, at) in [
            (now, now + WINDOW_MS),
            (now + WINDOW_MS, now),
            (now, now - WINDOW_MS),
        ] {
            let s = Sealer::default().seal(b"k", b"x", sent);
            assert!(Sealer::default().open(b"k", &s, at).is_ok(), "{sent} {at}");
        }
        // A stale datagram says how far the sender's clock is from ours.
        let late = -(WINDOW_MS as i64) - 1;
        for (sent, at, offset_ms) in [
            (now, now + WINDOW_MS + 1, late),
            (now + WINDOW_MS + 1, now, -late),
        ] {
            let s = Sealer::default().seal(b"k", b"x", sent);
            assert_eq!(
                Sealer::default().open(b"k", &s, at),
                Err(Refused::Stale { offset_ms })
            );
        }
        assert_eq!(
            rx.open(b"k", &sealed, now + WINDOW_MS + 1),
            Err(Refused::Stale { offset_ms: late })
        );
        // Tags are forgotten once their time has left the window, so memory stays bounded.
        rx.open(
            b"k",
            &tx.seal(b"k", b"late", now + 3 * WINDOW_MS),
            now + 3 * WINDOW_MS,
        )
        .unwrap();
        assert_eq!(rx.seen.len(), 1);
    }

    #[test]
    fn a_journaled_sealer_refuses_a_replay_after_a_restart() {
        let dir = tempfile::tempdir().unwrap();
        let now = 1_700_000_000_000;
        let mut other = Sealer::default();
        let theirs = other.seal(b"k", b"attempt", now);
        let mut before = Sealer::journaled(dir.path(), now).unwrap();
        let ours = before.seal(b"k", b"own attempt", now);
        assert!(before.open(b"k", &theirs, now + 1).is_ok());
        drop(before);
        let mut after = Sealer::journaled(dir.path(), now + 2_000).unwrap();
        assert_eq!(after.open(b"k", &theirs, now + 2_000), Err(Refused::Replay));
        assert_eq!(after.open(b"k", &ours, now + 2_000), Err(Refused::Replay));
        let fresh = other.seal(b"k", b"attempt", now + 2_000);
        assert!(after.open(b"k", &fresh, now + 2_001).is_ok());
    }
}
