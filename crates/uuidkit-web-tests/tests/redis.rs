//! `redis` 1.x against a real `redis-server`: a `uuidkit::Uuid` argument
//! stores the bytes a `uuid::Uuid` stores (redis's own `uuid` feature), and
//! each reads back what the other stored.

use redis::{Commands, FromRedisValue, ToRedisArgs, Value};
use test_support::db::Redis;

#[test]
fn arguments_are_the_same_bytes() {
    for (theirs, ours) in crate::support::pairs() {
        assert_eq!(ours.to_redis_args(), theirs.to_redis_args());
        assert_eq!(ours.to_redis_args(), vec![ours.as_bytes().to_vec()]);
    }
}

/// Needs only a bound: `GET`'s key is a `ToSingleRedisArg`.
fn single<T: redis::ToSingleRedisArg>(_: &T) {}

#[test]
fn a_real_server_stores_the_same_bytes_and_each_reads_the_other() {
    let Some(server) = Redis::for_test("redis_round_trip") else {
        return;
    };
    let client = redis::Client::open(server.url()).unwrap();
    let mut con = client.get_connection().unwrap();
    for (n, (theirs, ours)) in crate::support::pairs().enumerate() {
        single(&ours);
        // The UUID as key and as value, written once by each type.
        let _: () = con.set(theirs, format!("by uuid {n}")).unwrap();
        let _: () = con.set(format!("kit {n}"), ours).unwrap();
        let _: () = con.set(format!("uuid {n}"), theirs).unwrap();
        // What the server holds, read without any client library.
        let stored = server
            .command(&[b"GET".as_slice(), format!("kit {n}").as_bytes()])
            .unwrap();
        let mut expected = b"$16\r\n".to_vec();
        expected.extend_from_slice(theirs.as_bytes());
        expected.extend_from_slice(b"\r\n");
        assert_eq!(stored, expected);
        // The key written by `uuid::Uuid` is found by `uuidkit::Uuid`.
        let value: String = con.get(ours).unwrap();
        assert_eq!(value, format!("by uuid {n}"));
        // Each value read as the other type.
        let read_theirs: uuid::Uuid = con.get(format!("kit {n}")).unwrap();
        let read_ours: uuidkit::Uuid = con.get(format!("uuid {n}")).unwrap();
        assert_eq!(read_theirs, theirs);
        assert_eq!(read_ours, ours);
    }
}

#[test]
fn text_is_read_and_other_replies_are_refused() {
    let id = uuidkit::Uuid::from_u128(0xf81d4fae_7dec_11d0_a765_00a0c91e6bf6);
    let text = Value::BulkString(b"F81D4FAE-7DEC-11D0-A765-00A0C91E6BF6".to_vec());
    assert_eq!(uuidkit::Uuid::from_redis_value(text).unwrap(), id);
    for bad in [
        Value::Int(1),
        Value::Nil,
        Value::BulkString(vec![0; 15]),
        Value::BulkString(b"f81d4fae-7dec-11d0-a765-00a0c91e6bfz".to_vec()),
    ] {
        let err = uuidkit::Uuid::from_redis_value(bad.clone()).unwrap_err();
        assert!(uuid::Uuid::from_redis_value(bad).is_err());
        assert!(!err.to_string().is_empty());
    }
}
