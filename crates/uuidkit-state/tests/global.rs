//! The process-wide generators: `uuidkit_state::stored_*`, with the store
//! chosen by `configure` or by `UUIDKIT_STATE` (in child processes of this
//! test binary, so that the variable is set before anything reads it), and
//! `Uuid::now_v7`, which stays in memory whatever the variable says.

use std::collections::HashSet;
use std::fs;
use std::path::Path;
use std::process::Command;

use uuidkit::Uuid;
use uuidkit_state::{self as state, FileStore, StateConfig};

const N: usize = 50_000;

/// Runs the test `name` of this binary again in `children` child processes
/// with `UUIDKIT_STATE=state` and `UUIDKIT_TEST_GLOBAL_OUT` naming each
/// child's output file in `dir`; asserts they succeed.
fn run_children(name: &str, children: usize, state: &Path, dir: &Path) {
    let spawned: Vec<_> = (0..children)
        .map(|i| {
            Command::new(std::env::current_exe().unwrap())
                .args(["--exact", name, "--nocapture", "--test-threads=1"])
                .env("UUIDKIT_STATE", state)
                .env("UUIDKIT_TEST_GLOBAL_OUT", dir.join(format!("out{i}")))
                .spawn()
                .unwrap()
        })
        .collect();
    for mut c in spawned {
        assert!(c.wait().unwrap().success(), "a child of {name} failed");
    }
}

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "uuidkit-state-global-{name}-{}",
        std::process::id()
    ));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// `Uuid::now_v7` and `Uuid::fill_v7` are in memory only: with
/// `UUIDKIT_STATE` naming a file in an empty directory, they create nothing
/// there (neither the state file nor the lock file a store would lock), while
/// the explicit `state::stored_v7` does use that path.
#[test]
fn uuid_now_v7_with_uuidkit_state_set_creates_no_file_and_takes_no_lock() {
    let name = "global::uuid_now_v7_with_uuidkit_state_set_creates_no_file_and_takes_no_lock";
    if std::env::var_os("UUIDKIT_TEST_GLOBAL_OUT").is_some() {
        // Child: UUIDKIT_STATE points into an empty directory.
        let path = FileStore::default_path().unwrap();
        let dir = path.parent().unwrap();
        let mut prev = Uuid::now_v7();
        let mut batch = [Uuid::NIL; 100];
        for _ in 0..1_000 {
            let u = Uuid::now_v7();
            Uuid::fill_v7(&mut batch);
            assert!(prev < u && u < batch[0], "still monotonic");
            prev = batch[99];
        }
        let left: Vec<_> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        assert!(
            left.is_empty(),
            "Uuid::now_v7 touched the state directory: {left:?}"
        );
        // The variable was seen: the explicit API uses that path.
        let (u, _) = state::stored_v7().unwrap();
        state::release();
        let stored = FileStore::new(&path).load().unwrap().v7.unwrap();
        assert_eq!(
            stored.hwm_ms,
            u.unix_ts_ms().unwrap() + 1,
            "state::stored_v7 wrote {}",
            path.display()
        );
        return;
    }
    let dir = scratch("memory");
    let path = dir.join("state");
    run_children(name, 1, &path, &dir);
    assert!(FileStore::new(&path).load().unwrap().v7.is_some());
    fs::remove_dir_all(&dir).unwrap();
}

/// `UUIDKIT_STATE` chooses the default store of the explicit process-wide API:
/// two processes calling `state::stored_v7` without `configure` share the file.
#[test]
fn state_now_v7_shares_the_uuidkit_state_file_across_processes() {
    let name = "global::state_now_v7_shares_the_uuidkit_state_file_across_processes";
    if let Ok(out) = std::env::var("UUIDKIT_TEST_GLOBAL_OUT") {
        // Child: not configured, so the store is the file UUIDKIT_STATE names.
        let mut bytes = Vec::with_capacity(N * 16);
        for _ in 0..N {
            bytes.extend_from_slice(state::stored_v7().unwrap().0.as_bytes());
        }
        state::release();
        fs::write(out, bytes).unwrap();
        return;
    }
    let dir = scratch("env");
    let path = dir.join("state");
    run_children(name, 2, &path, &dir);
    let mut ms_sets = Vec::new();
    let mut all = HashSet::new();
    for i in 0..2 {
        let bytes = fs::read(dir.join(format!("out{i}"))).unwrap();
        let uuids: Vec<Uuid> = bytes
            .chunks_exact(16)
            .map(|c| Uuid::from_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(uuids.len(), N);
        assert!(
            uuids.windows(2).all(|w| w[0] < w[1]),
            "process-wide order kept"
        );
        ms_sets.push(
            uuids
                .iter()
                .map(|u| u.unix_ts_ms().unwrap())
                .collect::<HashSet<u64>>(),
        );
        all.extend(uuids);
    }
    assert_eq!(all.len(), 2 * N);
    assert!(
        ms_sets[0].is_disjoint(&ms_sets[1]),
        "the two processes drew from disjoint blocks"
    );
    let hwm = FileStore::new(&path).load().unwrap().v7.unwrap().hwm_ms;
    assert!(all.iter().all(|u| u.unix_ts_ms().unwrap() < hwm));
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn configured_process_wide_generators_report_status_and_release() {
    let _global = crate::support::global();
    let dir = std::env::temp_dir().join(format!("uuidkit-state-global-cfg-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir(&dir).unwrap(); // a path given explicitly: its directory must exist
    let path = dir.join("state");
    state::configure(StateConfig::new(&path));
    let (a, s1) = state::stored_v1().unwrap();
    let (b, s6) = state::stored_v6().unwrap();
    let (c, s7) = state::stored_v7().unwrap();
    assert_eq!(a.version().map(|v| v.number()), Some(1));
    assert_eq!(b.version().map(|v| v.number()), Some(6));
    assert_eq!(c.version().map(|v| v.number()), Some(7));
    // First use: no file before, so unsafe; but persisted. Then the file is
    // good: a version without a record has never been issued under it.
    assert_eq!(
        s1.read_error().map(|e| e.kind()),
        Some(state::StateErrorKind::Missing),
        "{s1}"
    );
    assert!(s1.is_persisted());
    assert!(s6.is_safe() && s7.is_safe(), "{s6} / {s7}");
    // Uuid::now_v7 is not the stored generator, configured or not: it leaves
    // the file alone.
    let before = FileStore::new(&path).load().unwrap();
    let mut batch = [Uuid::NIL; 1000];
    Uuid::fill_v7(&mut batch);
    assert!(batch.iter().all(|u| *u != c));
    assert_eq!(FileStore::new(&path).load().unwrap(), before);
    let (d, s) = state::stored_v7().unwrap();
    assert!(s.is_safe(), "{s}");
    state::release();
    let rec = FileStore::new(&path).load().unwrap();
    assert_eq!(
        rec.v7.unwrap().hwm_ms,
        d.unix_ts_ms().unwrap() + 1,
        "released to one past the last"
    );
    assert_eq!(rec.v1.unwrap().hwm, a.gregorian_timestamp().unwrap() + 1);
    assert_eq!(
        rec.v6.unwrap().node,
        b.node().unwrap(),
        "v6 retains the stored node"
    );
    // After a release, the next call reserves anew: the file is good now.
    let (e, s) = state::stored_v7().unwrap();
    assert!(e > d && s.is_safe(), "{s}");
    state::release();
    fs::remove_dir_all(&dir).unwrap();
}
