//! Fuzz the wire parser: `Repr::parse` and every `Packet` getter never panic, and
//! parse → emit → parse returns the same `Repr`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use uiap::wire::{Packet, Repr};

fuzz_target!(|data: &[u8]| {
    if let Ok(packet) = Packet::new_checked(data) {
        let _ = (
            packet.version(),
            packet.msg_type_raw(),
            packet.proxy(),
            packet.reclaim(),
        );
        let _ = (
            packet.hop_limit(),
            packet.lifetime(),
            packet.origin_raw(),
            packet.sequence(),
        );
        let _ = (
            packet.claim_ref(),
            packet.domain(),
            packet.ba(),
            packet.ba2(),
            packet.format_raw(),
        );
        let _ = (
            packet.uid1(),
            packet.uid2(),
            packet.message_id(),
            packet.total_len(),
        );
    }
    if let Ok(repr) = Repr::parse(data) {
        let bytes = repr.to_vec();
        assert_eq!(bytes.len(), data.len(), "emit changes the length");
        let again = Repr::parse(&bytes).expect("re-parse of emitted message failed");
        assert_eq!(again, repr, "parse -> emit -> parse differs");
        assert_eq!(again.to_vec(), bytes, "emit is not stable");
    }
});
