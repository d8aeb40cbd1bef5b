//! Turns of test files within one test binary: the tests of one file run together (as many at
//! once as the harness runs), those of other files wait until none of its tests hold a turn.
//!
//! A crate's integration tests are one binary, a module per file. Files whose tests start
//! servers, floods or fleets of processes were binaries of their own once, run one after the
//! other: their timing margins assume no other file's load beside them. Such a test takes its
//! file's turn first and keeps it to its end.
//!
//! ```
//! let _turn = test_support::turn::Turn::of_caller();
//! // … the test proper, its servers dropped before the turn …
//! ```

use std::sync::{Condvar, Mutex, PoisonError};

/// Which file holds the turn, and how many of its turns are held.
static TURN: Mutex<(Option<&'static str>, usize)> = Mutex::new((None, 0));
static TURN_ENDED: Condvar = Condvar::new();

/// A file's turn, held until dropped. Tests of one file never wait for each other, so a test
/// may hold several; tests wait only for tests of other files, never while holding a turn of
/// their own, so no two wait for each other.
#[derive(Debug)]
#[must_use = "the turn ends when dropped"]
pub struct Turn {
    file: &'static str,
}

impl Turn {
    /// Waits until no test of another file than `file` holds a turn, and takes `file`'s.
    pub fn take(file: &'static str) -> Turn {
        let mut turn = TURN.lock().unwrap_or_else(PoisonError::into_inner);
        while turn.0.is_some_and(|f| f != file) {
            turn = TURN_ENDED
                .wait(turn)
                .unwrap_or_else(PoisonError::into_inner);
        }
        *turn = (Some(file), turn.1 + 1);
        Turn { file }
    }

    /// The turn of the source file that calls this (through `#[track_caller]` functions, the
    /// file of the first caller that is not one).
    #[track_caller]
    pub fn of_caller() -> Turn {
        Turn::take(std::panic::Location::caller().file())
    }
}

impl Drop for Turn {
    fn drop(&mut self) {
        let mut turn = TURN.lock().unwrap_or_else(PoisonError::into_inner);
        debug_assert_eq!(turn.0, Some(self.file));
        turn.1 -= 1;
        if turn.1 == 0 {
            turn.0 = None;
            TURN_ENDED.notify_all();
        }
    }
}
