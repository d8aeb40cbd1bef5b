//! uuidkit's driver impls in a project on rusqlite 0.43 and sqlx 0.9: they
//! apply to the project's own copy of each driver (one copy, so a value of
//! the project's types binds a `Uuid`), and rusqlite's round trip through a
//! SQLite file keeps the 16 octets and `Ord`'s order.

#[cfg(test)]
mod tests {
    use uuidkit::Uuid;

    /// The lockfile names one release of each driver, the current one.
    fn locked_versions(name: &str) -> Vec<String> {
        let lock = include_str!("../Cargo.lock");
        let mut out = Vec::new();
        let mut lines = lock.lines();
        while let Some(line) = lines.next() {
            if line == format!("name = \"{name}\"") {
                let version = lines.next().expect("a version line");
                out.push(
                    version
                        .trim_start_matches("version = ")
                        .trim_matches('"')
                        .to_owned(),
                );
            }
        }
        out
    }

    #[test]
    fn one_release_of_each_driver_the_current_one() {
        let rusqlite = locked_versions("rusqlite");
        assert_eq!(rusqlite.len(), 1, "rusqlite {rusqlite:?}");
        assert!(rusqlite[0].starts_with("0.43."), "rusqlite {rusqlite:?}");
        let sqlx = locked_versions("sqlx");
        assert_eq!(sqlx.len(), 1, "sqlx {sqlx:?}");
        assert!(sqlx[0].starts_with("0.9."), "sqlx {sqlx:?}");
        assert_eq!(locked_versions("libsqlite3-sys").len(), 1);
    }

    #[test]
    fn rusqlite_0_43_round_trips_blobs_in_ord_order_through_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let mut db = rusqlite::Connection::open(dir.path().join("ids.db")).unwrap();
        db.execute_batch("CREATE TABLE t (id BLOB NOT NULL)")
            .unwrap();
        let mut vals: Vec<Uuid> = (0..1000u128)
            .map(|i| Uuid::from_u128(i.wrapping_mul(0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c835)))
            .chain([Uuid::NIL, Uuid::MAX])
            .collect();
        let tx = db.transaction().unwrap();
        for u in &vals {
            tx.execute("INSERT INTO t VALUES (?1)", [u]).unwrap();
        }
        tx.commit().unwrap();
        let mut st = db.prepare("SELECT id FROM t ORDER BY id").unwrap();
        let back: Vec<Uuid> = st
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        vals.sort_unstable();
        assert_eq!(back, vals);

        let len: i64 = db
            .query_row("SELECT length(?1)", [Uuid::MAX], |r| r.get(0))
            .unwrap();
        assert_eq!(len, 16);
        let text: Uuid = db
            .query_row("SELECT ?1", [Uuid::MAX.hyphenated()], |r| r.get(0))
            .unwrap();
        assert_eq!(text, Uuid::MAX);
        let err = db
            .query_row("SELECT x'0102'", [], |r| r.get::<_, Uuid>(0))
            .unwrap_err();
        assert!(
            err.to_string().contains("16 byte value out of 2 byte blob"),
            "{err}"
        );
    }

    #[test]
    fn sqlx_0_9_binds_and_encodes_a_uuid() {
        use sqlx::postgres::{PgArgumentBuffer, Postgres};
        use sqlx::{Encode, Type};
        let u = Uuid::parse("f81d4fae-7dec-11d0-a765-00a0c91e6bf6").unwrap();
        // Compiles only if the impls are on this project's sqlx.
        let _query = sqlx::query::<Postgres>("SELECT $1").bind(u).bind(vec![u]);
        let mut buf = PgArgumentBuffer::default();
        let _ = <Uuid as Encode<Postgres>>::encode_by_ref(&u, &mut buf).unwrap();
        assert_eq!(&buf[..], u.as_bytes());
        // PostgreSQL's `uuid`, and not `bytea`, the other 16 bytes.
        let info = <Uuid as Type<Postgres>>::type_info();
        assert!(<Uuid as Type<Postgres>>::compatible(&info));
        assert!(!<Uuid as Type<Postgres>>::compatible(&<Vec<u8> as Type<
            Postgres,
        >>::type_info(
        )));
    }
}
