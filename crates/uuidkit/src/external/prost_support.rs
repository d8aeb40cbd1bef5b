//! `prost`: a [`Uuid`] is the protobuf message `uuidkit.Uuid` of
//! `proto/uuidkit/uuid.proto` ([`proto::UUID_PROTO`](crate::proto::UUID_PROTO)),
//! one `bytes` field holding the 16 octets:
//!
//! ```proto
//! message Uuid { bytes value = 1; }
//! ```
//!
//! prost-build's `extern_path` maps that message to [`Uuid`], so generated
//! code holds `Option<uuidkit::Uuid>` (a singular field), `Vec<uuidkit::Uuid>`
//! (`repeated`) or map values, with no conversion at each boundary. The wire
//! bytes are those of the message prost generates for the same `.proto`
//! filled with `as_bytes().to_vec()`: a key byte, a length byte (16) and the
//! octets, 18 bytes in all. docs/integrations.md (I5) says why bytes, not the text.

extern crate alloc;

use alloc::format;

use prost::bytes::{Buf, BufMut};
use prost::encoding::wire_type::{WireType, check_wire_type};
use prost::encoding::{DecodeContext, decode_varint, skip_field};
use prost::{DecodeError, Message, Name};

use crate::Uuid;

/// Field 1 as a length-delimited field (`1 << 3 | 2`), then its length, 16.
const PREFIX: [u8; 2] = [0x0a, 0x10];

/// A decoding error that names the message and its field, as prost's own
/// generated code does.
fn error(description: alloc::string::String) -> DecodeError {
    // prost offers no other way to build an error outside its own code: the
    // constructor is hidden and deprecated, and still what its users call.
    #[allow(deprecated)]
    let mut error = DecodeError::new(description);
    error.push(Uuid::NAME, "value");
    error
}

/// `message Uuid { bytes value = 1; }`: writes the 16 octets as field 1,
/// reads them back. A `value` of 16 bytes is that UUID; an empty or absent
/// one is the Nil UUID (a proto3 reader's unset field, and what a peer's
/// empty message means); any other length is an error, never a truncated or
/// padded UUID. Unknown fields are skipped, as protobuf readers do.
///
/// ```
/// use prost::Message;
/// use uuidkit::Uuid;
///
/// let id = Uuid::parse("f81d4fae-7dec-11d0-a765-00a0c91e6bf6")?;
/// let wire = id.encode_to_vec();
/// assert_eq!(wire[..2], [0x0a, 16]); // field 1, 16 bytes
/// assert_eq!(&wire[2..], id.as_bytes());
/// assert_eq!(Uuid::decode(&wire[..])?, id);
///
/// // An empty message (no `value`) is the Nil UUID; 15 bytes are refused.
/// assert_eq!(Uuid::decode(&[0u8; 0][..])?, Uuid::NIL);
/// let mut short = vec![0x0au8, 15];
/// short.extend_from_slice(&[0; 15]);
/// let err = Uuid::decode(&short[..]);
/// assert!(err.unwrap_err().to_string().contains("invalid length 15 bytes: expected 16"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// In a message prost-build generated with
/// `extern_path(".uuidkit.Uuid", "::uuidkit::Uuid")`, a field
/// `uuidkit.Uuid id = 1;` is written as this derive writes it:
///
/// ```
/// #[derive(Clone, PartialEq, prost::Message)]
/// struct Order {
///     #[prost(message, optional, tag = "1")]
///     id: Option<uuidkit::Uuid>,
///     #[prost(message, repeated, tag = "2")]
///     items: Vec<uuidkit::Uuid>,
/// }
/// use prost::Message;
/// let order = Order { id: Some(uuidkit::Uuid::MAX), items: vec![uuidkit::Uuid::NIL] };
/// let wire = order.encode_to_vec();
/// assert_eq!(wire.len(), 2 * (2 + 18));
/// assert_eq!(Order::decode(&wire[..])?, order);
/// # Ok::<(), prost::DecodeError>(())
/// ```
impl Message for Uuid {
    fn encode_raw(&self, buf: &mut impl BufMut) {
        buf.put_slice(&PREFIX);
        buf.put_slice(self.as_bytes());
    }

    fn merge_field(
        &mut self,
        tag: u32,
        wire_type: WireType,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), DecodeError> {
        if tag != 1 {
            return skip_field(wire_type, tag, buf, ctx);
        }
        check_wire_type(WireType::LengthDelimited, wire_type)?;
        let len = decode_varint(buf)?;
        if len > buf.remaining() as u64 {
            return Err(error(format!(
                "buffer underflow: {len} bytes announced, {} left",
                buf.remaining()
            )));
        }
        match len {
            0 => *self = Uuid::NIL,
            16 => {
                let mut bytes = [0; 16];
                buf.copy_to_slice(&mut bytes);
                *self = Uuid::from_bytes(bytes);
            }
            _ => {
                return Err(error(format!("invalid length {len} bytes: expected 16")));
            }
        }
        Ok(())
    }

    fn encoded_len(&self) -> usize {
        PREFIX.len() + 16
    }

    fn clear(&mut self) {
        *self = Uuid::NIL;
    }
}

/// The message's name in `uuid.proto`, for `prost_types::Any` and type URLs.
///
/// ```
/// use prost::Name;
/// assert_eq!(uuidkit::Uuid::full_name(), "uuidkit.Uuid");
/// assert_eq!(uuidkit::Uuid::type_url(), "/uuidkit.Uuid");
/// ```
impl Name for Uuid {
    const NAME: &'static str = "Uuid";
    const PACKAGE: &'static str = "uuidkit";
}

#[cfg(test)]
mod tests {
    use std::string::ToString;

    use prost::Message;

    use crate::Uuid;

    #[test]
    fn the_last_value_wins_and_unknown_fields_are_skipped() {
        let a = Uuid::from_u128(1);
        let b = Uuid::from_u128(2);
        let mut wire = a.encode_to_vec();
        // field 2 (varint 7), then field 1 again, then field 3 (fixed32).
        wire.extend_from_slice(&[0x10, 7]);
        wire.extend_from_slice(&b.encode_to_vec());
        wire.extend_from_slice(&[0x1d, 1, 2, 3, 4]);
        assert_eq!(Uuid::decode(&wire[..]).unwrap(), b);
    }

    #[test]
    fn bad_input_is_a_specific_error() {
        // field 1 as a varint: the wrong wire type.
        let err = Uuid::decode(&[0x08, 1][..]).unwrap_err().to_string();
        assert!(err.contains("wire type"), "{err}");
        // 16 bytes announced, 3 present.
        let err = Uuid::decode(&[0x0a, 16, 1, 2, 3][..])
            .unwrap_err()
            .to_string();
        assert!(err.contains("buffer underflow"), "{err}");
        assert!(err.contains("Uuid.value"), "{err}");
        // 17 bytes.
        let mut wire = std::vec![0x0a, 17];
        wire.extend_from_slice(&[0xab; 17]);
        let err = Uuid::decode(&wire[..]).unwrap_err().to_string();
        assert!(err.contains("invalid length 17 bytes"), "{err}");
    }

    #[test]
    fn an_explicit_empty_value_and_clear_are_the_nil_uuid() {
        let mut u = Uuid::decode(&[0x0a, 0][..]).unwrap();
        assert_eq!(u, Uuid::NIL);
        u = Uuid::MAX;
        u.clear();
        assert_eq!(u, Uuid::NIL);
        assert_eq!(Uuid::MAX.encoded_len(), Uuid::MAX.encode_to_vec().len());
    }
}
