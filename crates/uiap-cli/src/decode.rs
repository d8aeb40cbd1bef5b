//! `uiap decode HEX…`: print one UIAP message as a JSON object, or the precise error (exit 1).

use std::fmt;
use std::io::Write;
use std::process::ExitCode;

use serde_json::{Value, json};
use uiap::space::{Justification, Uid, UidSpace};
use uiap::wire::{MessageType, Repr};

/// Arguments of `uiap decode`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Example:\n  uiap decode '0100002000000e10 0211223344556677 00000001 deadbeef \
                        0001000200030000 00 01 02 00 c0a8'"
)]
pub(crate) struct Args {
    /// The message octets in hex (any case); whitespace and several arguments are allowed and
    /// ignored between digit pairs.
    #[arg(required = true, value_name = "HEX")]
    hex: Vec<String>,
    /// Pretty-print the JSON over several lines.
    #[arg(long)]
    pretty: bool,
}

/// Runs `uiap decode`.
pub(crate) fn run(args: &Args) -> ExitCode {
    let input = args.hex.join(" ");
    let result = parse_hex(&input)
        .map_err(|e| e.to_string())
        .and_then(|bytes| {
            Repr::parse(&bytes)
                .map(|repr| to_json(&repr, bytes.len()))
                .map_err(|e| e.to_string())
        });
    match result {
        Ok(value) => {
            let text = if args.pretty {
                serde_json::to_string_pretty(&value)
            } else {
                serde_json::to_string(&value)
            };
            // Serialising a Value cannot fail; a closed stdout (broken pipe) is not an error.
            let text = text.unwrap_or_default();
            let _ = writeln!(std::io::stdout().lock(), "{text}");
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

/// Why the HEX argument is not a sequence of octets.
#[derive(Debug, PartialEq, Eq)]
enum HexError {
    /// A character that is neither a hex digit nor whitespace, at a character offset.
    Char { found: char, at: usize },
    /// An odd number of hex digits.
    Odd { digits: usize },
}

impl fmt::Display for HexError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HexError::Char { found, at } => {
                write!(
                    f,
                    "invalid hex: expected hex digit, found `{}` at {at}",
                    found.escape_debug()
                )
            }
            HexError::Odd { digits } => {
                write!(
                    f,
                    "invalid hex: expected an even number of hex digits, found {digits}"
                )
            }
        }
    }
}

/// Parses hex digits, ignoring ASCII whitespace anywhere.
fn parse_hex(input: &str) -> Result<Vec<u8>, HexError> {
    let mut nibbles = Vec::with_capacity(input.len());
    for (at, c) in input.chars().enumerate() {
        if c.is_ascii_whitespace() {
            continue;
        }
        match c.to_digit(16) {
            Some(d) => nibbles.push(d as u8),
            None => return Err(HexError::Char { found: c, at }),
        }
    }
    if nibbles.len() % 2 != 0 {
        return Err(HexError::Odd {
            digits: nibbles.len(),
        });
    }
    Ok(nibbles
        .chunks_exact(2)
        .map(|p| (p[0] << 4) | p[1])
        .collect())
}

/// A UID as `{"hex": "c0a8", "bits": 16}`.
fn uid_json(uid: &Uid) -> Value {
    let hex: String = uid.as_bytes().iter().map(|b| format!("{b:02x}")).collect();
    json!({ "hex": hex, "bits": uid.bit_len() })
}

/// The whole message as one JSON object. A Loss-Notice names no claim: its fields are given
/// their meaning (`lost` datagrams within `window_ms`) in place of a claim's.
fn to_json(repr: &Repr, length: usize) -> Value {
    if repr.msg_type == MessageType::LossNotice {
        return json!({
            "length": length,
            "version": uiap::wire::VERSION,
            "type": repr.msg_type.as_str(),
            "hop_limit": repr.hop_limit,
            "origin": repr.origin.to_string(),
            "sequence": repr.sequence,
            "message_id": repr.message_id().to_string(),
            "lost": repr.claim_ref,
            "window_ms": repr.lifetime,
        });
    }
    let space = match &repr.space {
        UidSpace::Unique(v) => json!({ "format": "unique", "uid": uid_json(v) }),
        UidSpace::Prefix(p) => json!({ "format": "prefix", "uid": uid_json(p) }),
        UidSpace::Range { low, high } => {
            json!({ "format": "range", "low": uid_json(low), "high": uid_json(high) })
        }
    };
    let justification = match repr.domain.justification() {
        Justification::Left => "left",
        Justification::Right => "right",
    };
    json!({
        "length": length,
        "version": uiap::wire::VERSION,
        "type": repr.msg_type.as_str(),
        "proxy": repr.proxy,
        "reclaim": repr.reclaim,
        "hop_limit": repr.hop_limit,
        "lifetime": repr.lifetime,
        "origin": repr.origin.to_string(),
        "sequence": repr.sequence,
        "message_id": repr.message_id().to_string(),
        "claim_ref": repr.claim_ref,
        "domain": repr.domain.to_string(),
        "justification": justification,
        "space": space,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_ignores_whitespace_and_case() {
        assert_eq!(parse_hex("0A b\tC c0\n"), Ok(vec![0x0a, 0xbc, 0xc0]));
    }

    #[test]
    fn hex_errors_name_the_character_and_position() {
        assert_eq!(
            parse_hex("01 0g"),
            Err(HexError::Char { found: 'g', at: 4 })
        );
        assert_eq!(parse_hex("010"), Err(HexError::Odd { digits: 3 }));
        assert_eq!(
            HexError::Char { found: 'g', at: 4 }.to_string(),
            "invalid hex: expected hex digit, found `g` at 4"
        );
    }
}
