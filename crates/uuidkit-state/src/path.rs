//! Where a [`FileStore`](super::FileStore) may write: the state file and its
//! lock file are regular files or do not exist yet.
//!
//! A state path is followed through symbolic links to its target, so that
//! processes sharing state through a link keep sharing it: the file is
//! replaced next to the target, and the lock sits next to the target too.
//! Anything else at either path (a device, a FIFO, a socket, a directory) is
//! refused and left exactly as it is: writing would replace it (a device
//! node replaced by a regular file) and reading could block (a FIFO).

use std::fs::{self, Metadata};
use std::io;
use std::path::{Path, PathBuf};

use super::error::{StateError, StateErrorKind};

/// How many symbolic links a path may go through (as Linux's `MAXSYMLINKS`).
const MAX_LINKS: usize = 40;

/// What a non-regular file is, for messages.
fn what(meta: &Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_dir() {
        return "a directory";
    }
    if t.is_symlink() {
        return "a symbolic link";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    "not a regular file"
}

#[cold]
fn refused(given: &Path, target: &Path, meta: &Metadata) -> StateError {
    let shown = if given == target {
        std::format!("{}", given.display())
    } else {
        std::format!("{} (-> {})", given.display(), target.display())
    };
    StateError::new(
        StateErrorKind::NotRegular,
        None,
        std::format!(
            "expected a regular file or nothing at {shown}, found {}; left untouched",
            what(meta)
        ),
    )
}

/// `path` followed through symbolic links: the file to read and replace.
///
/// # Errors
/// [`StateErrorKind::NotRegular`] if something other than a regular file is
/// there. Other problems (a component that is not a directory, a permission)
/// are left for the read, lock or write that meets them.
pub(super) fn resolve(path: &Path) -> Result<PathBuf, StateError> {
    let mut p = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let Ok(link) = fs::read_link(&p) else {
                    return Ok(p);
                };
                p = match p.parent() {
                    Some(dir) if link.is_relative() => dir.join(link),
                    _ => link,
                };
            }
            Ok(m) if m.is_file() => return Ok(p),
            Ok(m) => return Err(refused(path, &p, &m)),
            Err(_) => return Ok(p),
        }
    }
    Err(StateError::io(
        StateErrorKind::NotRegular,
        &std::format!("cannot follow {}", path.display()),
        &io::Error::other("too many levels of symbolic links"),
    ))
}

/// Checks that the directory `target` goes in exists (a missing one is
/// created only when `create` is set: the default location).
///
/// # Errors
/// [`StateErrorKind::NoDirectory`] when it is missing and `create` is unset,
/// or cannot be created.
pub(super) fn parent_dir(target: &Path, create: bool) -> Result<(), StateError> {
    let Some(dir) = target.parent().filter(|d| !d.as_os_str().is_empty()) else {
        return Ok(());
    };
    match fs::metadata(dir) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            if create {
                fs::create_dir_all(dir).map_err(|e| {
                    StateError::io(
                        StateErrorKind::NoDirectory,
                        &std::format!("cannot create {}", dir.display()),
                        &e,
                    )
                })
            } else {
                Err(StateError::new(
                    StateErrorKind::NoDirectory,
                    None,
                    std::format!(
                        "expected the directory {} to exist, found nothing there",
                        dir.display()
                    ),
                ))
            }
        }
        _ => Ok(()),
    }
}

/// Makes room for a temporary file at `tmp`: a regular file left there by a
/// writer that died is removed; nothing there is fine; anything else (a
/// symbolic link, a FIFO, a directory, a device) is refused and left as it is.
///
/// # Errors
/// [`StateErrorKind::NotRegular`] naming `tmp` and what is there, or
/// [`StateErrorKind::Unwritable`] if a leftover cannot be removed.
pub(super) fn clear_leftover(tmp: &Path) -> Result<(), StateError> {
    match fs::symlink_metadata(tmp) {
        Ok(m) if m.is_file() => fs::remove_file(tmp).map_err(|e| {
            StateError::io(
                StateErrorKind::Unwritable,
                &std::format!("cannot remove the leftover {}", tmp.display()),
                &e,
            )
        }),
        Ok(m) => Err(refused(tmp, tmp, &m)),
        Err(_) => Ok(()),
    }
}
