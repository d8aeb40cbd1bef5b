//! The state-file parser (`StateRecord::parse`) on arbitrary bytes: never a
//! panic, and an error names a line of the input (or the one after its end,
//! for a missing last line). The same bytes also make a record: emitting it
//! and parsing that is the identity, emitting is canonical, and any single
//! changed byte of an emitted file is rejected.
//!
//! cd crates/uuidkit && RUSTC_BOOTSTRAP=1 cargo fuzz run state_record -- -max_total_time=30
#![no_main]

use libfuzzer_sys::fuzz_target;
use uuidkit::layout::{MAX_GREGORIAN_TIMESTAMP, MAX_UNIX_TS_MS};
use uuidkit_state::format::{EARLIER_NODES, GregorianMark, StateRecord, V7Mark};

/// Little-endian words from `data`, zero past its end.
fn word(data: &[u8], at: usize) -> u64 {
    let mut b = [0u8; 8];
    for (i, slot) in b.iter_mut().enumerate() {
        *slot = data.get(at + i).copied().unwrap_or(0);
    }
    u64::from_le_bytes(b)
}

fn mark(data: &[u8], at: usize) -> Option<GregorianMark> {
    let w = word(data, at);
    (w & 1 == 1).then(|| {
        let n = word(data, at + 8).to_be_bytes();
        GregorianMark {
            hwm: word(data, at + 16) & MAX_GREGORIAN_TIMESTAMP,
            clock_seq: (w >> 1) as u16 & 0x3FFF,
            node: [n[0], n[1], n[2], n[3], n[4], n[5]],
        }
    })
}

/// Up to `EARLIER_NODES` earlier marks from `data` at `at`, newest first,
/// each node once and none the current one (as the format requires).
fn earlier(
    data: &[u8],
    at: usize,
    current: Option<GregorianMark>,
) -> [Option<GregorianMark>; EARLIER_NODES] {
    let mut out = [None; EARLIER_NODES];
    let mut n = 0;
    for i in 0..EARLIER_NODES {
        let Some(m) = mark(data, at + 24 * i) else {
            break;
        };
        let taken = current.iter().chain(out[..n].iter().flatten());
        if taken.into_iter().all(|t| t.node != m.node) {
            out[n] = Some(m);
            n += 1;
        }
    }
    out
}

/// A valid record from the fuzzer's bytes.
fn record(data: &[u8]) -> StateRecord {
    let v7 = word(data, 48);
    let (v1, v6) = (mark(data, 0), mark(data, 24));
    StateRecord {
        v1,
        v6,
        v7: (v7 & 1 == 1).then_some(V7Mark {
            hwm_ms: (v7 >> 1) & MAX_UNIX_TS_MS,
        }),
        v1_earlier: earlier(data, 56, v1),
        v6_earlier: earlier(data, 56 + 24 * EARLIER_NODES, v6),
        ..StateRecord::default()
    }
}

fuzz_target!(|data: &[u8]| {
    match StateRecord::parse(data) {
        Ok(rec) => {
            let text = rec.emit();
            assert_eq!(StateRecord::parse(text.as_bytes()), Ok(rec));
        }
        Err(e) => {
            let lines = data.split_inclusive(|&b| b == b'\n').count();
            if let Some(line) = e.line() {
                assert!(
                    (1..=lines + 1).contains(&line),
                    "line {line} of {lines}: {e}"
                );
            }
            assert!(!e.to_string().is_empty());
        }
    }

    let rec = record(data);
    let text = rec.emit();
    assert_eq!(StateRecord::parse(text.as_bytes()), Ok(rec), "{text}");
    assert_eq!(
        StateRecord::parse(text.as_bytes()).map(|r| r.emit()),
        Ok(text.clone())
    );
    if let Some(&flip) = data.last() {
        let mut bytes = text.into_bytes();
        let at = word(data, 56) as usize % bytes.len();
        let xor = if flip == 0 { 0x20 } else { flip };
        bytes[at] ^= xor;
        assert!(
            StateRecord::parse(&bytes).is_err(),
            "byte {at} ^ {xor:#04x} was not noticed"
        );
    }
});
