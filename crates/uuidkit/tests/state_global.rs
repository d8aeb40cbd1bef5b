//! The process-wide generators: `uuidkit::state::now_*`, and `Uuid::now_v7`
//! routed through stable storage once configured (here by `UUIDKIT_STATE`, in
//! child processes of this test binary).

use std::collections::HashSet;
use std::fs;
use std::process::Command;

use uuidkit::Uuid;
use uuidkit::state::{self, FileStore, StateConfig};

const N: usize = 50_000;

#[test]
fn uuid_now_v7_goes_through_the_state_file_when_uuidkit_state_is_set() {
    if let Ok(out) = std::env::var("UUIDKIT_TEST_GLOBAL_OUT") {
        // Child: UUIDKIT_STATE is set, so the plain API uses the file.
        assert!(state::configured());
        let mut bytes = Vec::with_capacity(N * 16);
        let mut batch = [Uuid::NIL; 10];
        for _ in 0..N / 20 {
            for _ in 0..10 {
                bytes.extend_from_slice(Uuid::now_v7().as_bytes());
            }
            Uuid::fill_v7(&mut batch);
            batch
                .iter()
                .for_each(|u| bytes.extend_from_slice(u.as_bytes()));
        }
        state::release();
        fs::write(out, bytes).unwrap();
        return;
    }
    let dir = std::env::temp_dir().join(format!("uuidkit-state-global-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    let path = dir.join("state");
    let children: Vec<_> = (0..2)
        .map(|i| {
            Command::new(std::env::current_exe().unwrap())
                .args([
                    "--exact",
                    "uuid_now_v7_goes_through_the_state_file_when_uuidkit_state_is_set",
                ])
                .args(["--nocapture", "--test-threads=1"])
                .env("UUIDKIT_STATE", &path)
                .env("UUIDKIT_TEST_GLOBAL_OUT", dir.join(format!("out{i}")))
                .spawn()
                .unwrap()
        })
        .collect();
    let mut ms_sets = Vec::new();
    let mut all = HashSet::new();
    for (i, mut c) in children.into_iter().enumerate() {
        assert!(c.wait().unwrap().success());
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
    let dir = std::env::temp_dir().join(format!("uuidkit-state-global-cfg-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    let path = dir.join("state");
    state::configure(StateConfig::new(&path));
    assert!(state::configured());
    let (a, s1) = state::now_v1().unwrap();
    let (b, s6) = state::now_v6().unwrap();
    let (c, s7) = state::now_v7().unwrap();
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
    assert!(
        Uuid::now_v7() > c,
        "Uuid::now_v7 shares the stored generator once configured"
    );
    let (d, s) = state::now_v7().unwrap();
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
    let (e, s) = state::now_v7().unwrap();
    assert!(e > d && s.is_safe(), "{s}");
    state::release();
    fs::remove_dir_all(&dir).unwrap();
}
