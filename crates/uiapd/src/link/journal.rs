//! The PSK replay protection kept across restarts (docs/uiap-design.md D71): every tag the
//! sealer remembers is appended to a file in the state directory, so that a datagram accepted
//! (or sent) before a restart is still a replay after it.
//!
//! Two files take turns, each for [`TURN_MS`]: a tag matters for at most twice the freshness
//! window after it is written (a sender's clock may be a window ahead), so when a file's turn
//! comes round again everything in it has expired and it is emptied. Appends are plain writes
//! (no `fsync`): they survive the daemon's crash, and a host's reboot outlasts the window.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use super::psk::WINDOW_MS;

/// How long each file takes the appends.
const TURN_MS: u64 = 2 * WINDOW_MS;
/// Octets of one entry: until when the tag matters (milliseconds, big-endian), and the tag.
const ENTRY: usize = 8 + 32;
/// Entries read back at most.
const MAX_LOADED: usize = 1 << 17;

/// A remembered tag: until when it matters (milliseconds since the epoch), and the tag.
pub(crate) type Entry = (u64, [u8; 32]);

/// The appending side of the two files.
#[derive(Debug)]
pub(crate) struct Journal {
    dir: PathBuf,
    file: File,
    turn: u8,
    /// When the current file's turn began.
    since_ms: u64,
}

fn path(dir: &Path, turn: u8) -> PathBuf {
    dir.join(format!("psk-seen.{turn}"))
}

fn open_file(dir: &Path, turn: u8, truncate: bool) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    OpenOptions::new()
        .create(true)
        .append(!truncate)
        .write(true)
        .truncate(truncate)
        .mode(0o600)
        .open(path(dir, turn))
}

impl Journal {
    /// Opens the journal in `dir` at `now_ms`: the tags that still matter (until when, tag), and
    /// the journal that appends to the file whose turn it is.
    pub(crate) fn open(dir: &Path, now_ms: u64) -> io::Result<(Journal, Vec<Entry>)> {
        let mut loaded = Vec::new();
        for turn in 0..2 {
            let mut bytes = Vec::new();
            match File::open(path(dir, turn)) {
                Ok(mut f) => {
                    f.read_to_end(&mut bytes)?;
                }
                Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                Err(e) => return Err(e),
            }
            for entry in bytes.chunks_exact(ENTRY) {
                let (until, tag) = entry.split_at(8);
                let until = u64::from_be_bytes(until.try_into().unwrap_or([0; 8]));
                if until >= now_ms && loaded.len() < MAX_LOADED {
                    loaded.push((until, tag.try_into().unwrap_or([0; 32])));
                }
            }
        }
        // A tag written back at an earlier start may be in both files.
        loaded.sort_unstable();
        loaded.dedup();
        // The first file starts a turn, with what still matters written back into it: the other
        // file is emptied only a turn from now, when what it holds has expired.
        let mut journal = Journal {
            dir: dir.to_path_buf(),
            file: open_file(dir, 0, true)?,
            turn: 0,
            since_ms: now_ms,
        };
        let mut bytes = Vec::with_capacity(loaded.len() * ENTRY);
        for (until, tag) in &loaded {
            bytes.extend_from_slice(&until.to_be_bytes());
            bytes.extend_from_slice(tag);
        }
        journal.file.write_all(&bytes)?;
        Ok((journal, loaded))
    }

    /// Appends `tag`, remembered until `until_ms`, at `now_ms`.
    pub(crate) fn append(&mut self, now_ms: u64, until_ms: u64, tag: &[u8; 32]) -> io::Result<()> {
        if now_ms.saturating_sub(self.since_ms) >= TURN_MS || now_ms < self.since_ms {
            let turn = 1 - self.turn;
            self.file = open_file(&self.dir, turn, true)?;
            self.turn = turn;
            self.since_ms = now_ms;
        }
        let mut entry = [0u8; ENTRY];
        entry[..8].copy_from_slice(&until_ms.to_be_bytes());
        entry[8..].copy_from_slice(tag);
        self.file.write_all(&entry)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_outlive_a_restart_until_they_expire() {
        let dir = tempfile::tempdir().unwrap();
        let (mut j, loaded) = Journal::open(dir.path(), 1_000).unwrap();
        assert!(loaded.is_empty());
        j.append(1_000, 31_000, &[1; 32]).unwrap();
        j.append(2_000, 62_000, &[2; 32]).unwrap();
        drop(j);
        let (_, loaded) = Journal::open(dir.path(), 40_000).unwrap();
        assert_eq!(loaded, [(62_000, [2; 32])]);
    }

    #[test]
    fn the_files_take_turns_and_an_emptied_one_held_only_expired_tags() {
        let dir = tempfile::tempdir().unwrap();
        let far = u64::MAX;
        let (mut j, _) = Journal::open(dir.path(), 0).unwrap();
        j.append(0, far, &[1; 32]).unwrap();
        j.append(TURN_MS, far, &[2; 32]).unwrap();
        // Back to the first file, a turn after it was left: emptied.
        j.append(2 * TURN_MS, far, &[3; 32]).unwrap();
        drop(j);
        let (_, loaded) = Journal::open(dir.path(), 2 * TURN_MS).unwrap();
        let mut tags: Vec<u8> = loaded.iter().map(|(_, t)| t[0]).collect();
        tags.sort_unstable();
        assert_eq!(tags, [2, 3]);
        // Opened again at once: what was loaded was written back, nothing is lost.
        let (_, again) = Journal::open(dir.path(), 2 * TURN_MS).unwrap();
        assert_eq!(again.len(), 2);
    }
}
