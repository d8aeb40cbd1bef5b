//! `redis` (1.x): a [`Uuid`] as a command argument and as a reply, as
//! redis's own `uuid` feature handles `uuid::Uuid`: the argument is the 16
//! octets (a binary-safe bulk string, sorting as the UUIDs do), and so is the
//! reply read back. A reply may also hold a UUID as text, in any form
//! [`Uuid::parse`] reads (what a program that stored `id.to_string()` finds):
//! redis's `uuid::Uuid` refuses those, a `uuidkit::Uuid` reads them.

use std::format;

use redis::{FromRedisValue, ParsingError, RedisWrite, ToRedisArgs, ToSingleRedisArg, Value};

use crate::Uuid;

/// One argument: the 16 octets.
///
/// ```
/// use redis::ToRedisArgs;
/// let id = uuidkit::Uuid::from_u128(0xf81d4fae_7dec_11d0_a765_00a0c91e6bf6);
/// assert_eq!(id.to_redis_args(), vec![id.as_bytes().to_vec()]);
/// ```
impl ToRedisArgs for Uuid {
    fn write_redis_args<W: ?Sized + RedisWrite>(&self, out: &mut W) {
        out.write_arg(self.as_bytes());
    }
}

/// Always exactly one argument, so commands that take one key or value
/// (`GET`, `SET`, `HGET`, …) accept a [`Uuid`].
impl ToSingleRedisArg for Uuid {}

/// A bulk string of the 16 octets, or of a UUID's text.
///
/// ```
/// use redis::{FromRedisValue, Value};
/// use uuidkit::Uuid;
/// let id = Uuid::from_u128(0xf81d4fae_7dec_11d0_a765_00a0c91e6bf6);
/// let raw = Value::BulkString(id.as_bytes().to_vec());
/// assert_eq!(Uuid::from_redis_value(raw)?, id);
/// let text = Value::BulkString(b"f81d4fae-7dec-11d0-a765-00a0c91e6bf6".to_vec());
/// assert_eq!(Uuid::from_redis_value(text)?, id);
/// let err = Uuid::from_redis_value(Value::Int(7)).unwrap_err();
/// assert!(err.to_string().contains("not uuid compatible"), "{err}");
/// # Ok::<(), redis::ParsingError>(())
/// ```
impl FromRedisValue for Uuid {
    fn from_redis_value_ref(v: &Value) -> Result<Self, ParsingError> {
        match v {
            Value::BulkString(bytes) => match <[u8; 16]>::try_from(bytes.as_slice()) {
                Ok(octets) => Ok(Uuid::from_bytes(octets)),
                Err(_) => Uuid::parse(bytes).map_err(|e| {
                    format!("a bulk string of {} bytes is not a UUID: {e}", bytes.len()).into()
                }),
            },
            _ => Err(format!("Response type not uuid compatible. (response was {v:?})").into()),
        }
    }

    fn from_redis_value(v: Value) -> Result<Self, ParsingError> {
        Self::from_redis_value_ref(&v)
    }
}
