//! A program written against the `uuid` crate, as its users write them. It is
//! compiled twice from this one file: by `migration-proof-uuid` against
//! `uuid` itself, and by `migration-proof-uuidkit` against uuidkit renamed to
//! `uuid` in its Cargo.toml, which is the only line that differs. `run`
//! returns everything the program observes, so the two builds can be
//! compared.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};
use uuid::fmt::{Braced, Hyphenated, Simple, Urn};
use uuid::{NonNilUuid, Uuid};

/// A record as an application stores it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Order {
    pub id: Uuid,
    pub customer: Uuid,
    pub parent: Option<Uuid>,
    pub external: Hyphenated,
    pub tags: Vec<Uuid>,
}

/// Runs the program and returns what it printed.
pub fn run() -> String {
    let mut out = String::new();
    generated(&mut out);
    names(&mut out);
    parsing(&mut out);
    encoding(&mut out);
    timestamps(&mut out);
    serde_round_trips(&mut out);
    sqlx_rows(&mut out);
    out
}

/// Random and time-ordered UUIDs: only what does not depend on chance.
fn generated(out: &mut String) {
    let v4 = Uuid::new_v4();
    let _ = writeln!(out, "v4 version {}", v4.get_version_num());
    let _ = writeln!(out, "v4 nil {} max {}", v4.is_nil(), v4.is_max());
    let ids: Vec<Uuid> = (0..1000).map(|_| Uuid::now_v7()).collect();
    let distinct: BTreeSet<Uuid> = ids.iter().copied().collect();
    let _ = writeln!(
        out,
        "v7 distinct {} sorted {}",
        distinct.len(),
        ids.windows(2).all(|w| w[0] < w[1])
    );
    let _ = writeln!(out, "v7 version {}", ids[0].get_version_num());
    let now = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap();
    let (secs, _) = ids[0]
        .get_timestamp()
        .expect("v7 has a timestamp")
        .to_unix();
    let _ = writeln!(out, "v7 recent {}", now.as_secs().abs_diff(secs) < 60);
    let non_nil = NonNilUuid::new(v4).expect("v4 is not nil");
    let _ = writeln!(
        out,
        "non-nil {} {:?}",
        non_nil.get() == v4,
        NonNilUuid::new(Uuid::nil())
    );
}

/// Name-based UUIDs in the standard namespaces.
fn names(out: &mut String) {
    for (ns, name) in [
        (Uuid::NAMESPACE_DNS, "www.example.com"),
        (Uuid::NAMESPACE_URL, "https://example.com/a"),
        (Uuid::NAMESPACE_OID, "1.3.6.1"),
        (Uuid::NAMESPACE_X500, "cn=Test"),
    ] {
        let v5 = Uuid::new_v5(&ns, name.as_bytes());
        let v3 = Uuid::new_v3(&ns, name.as_bytes());
        let _ = writeln!(out, "{ns} {name}: v5 {v5} v3 {v3}");
    }
}

/// Text in: every form, and the failures.
fn parsing(out: &mut String) {
    for text in [
        "67e55044-10b1-426f-9247-bb680e5fe0c8",
        "67E5504410B1426F9247BB680E5FE0C8",
        "{67e55044-10b1-426f-9247-bb680e5fe0c8}",
        "urn:uuid:67e55044-10b1-426f-9247-bb680e5fe0c8",
        "67e55044-10b1-426f-9247-bb680e5fe0cX",
        "67e55044",
        "",
    ] {
        match Uuid::parse_str(text) {
            Ok(u) => {
                let _ = writeln!(out, "parsed {text:?} -> {u} v{}", u.get_version_num());
            }
            Err(_) => {
                let _ = writeln!(out, "rejected {text:?}");
            }
        }
    }
    let u: Uuid = "a1a2a3a4-b1b2-c1c2-d1d2-d3d4d5d6d7d8".parse().unwrap();
    let (hi, lo) = u.as_u64_pair();
    let _ = writeln!(
        out,
        "pair {hi:016x} {lo:016x} back {}",
        Uuid::from_u64_pair(hi, lo) == u
    );
    let (d1, d2, d3, d4) = u.as_fields();
    let _ = writeln!(
        out,
        "fields {d1:08x} {d2:04x} {d3:04x} {d4:?} back {}",
        Uuid::from_fields(d1, d2, d3, d4) == u
    );
    let _ = writeln!(out, "u128 {:032x} bytes {:?}", u.as_u128(), u.as_bytes());
    let _ = writeln!(
        out,
        "slice {:?} {}",
        Uuid::from_slice(&u.as_bytes()[..]).ok(),
        Uuid::from_slice(&[1, 2]).is_err()
    );
    let _ = writeln!(out, "nil {} max {}", Uuid::nil(), Uuid::max());
    let _ = writeln!(
        out,
        "nil<max {} default {}",
        Uuid::nil() < Uuid::max(),
        Uuid::default().is_nil()
    );
    let _ = writeln!(
        out,
        "node {:?}",
        Uuid::parse_str("C232AB00-9414-11EC-B3C8-9F6BDECED846")
            .unwrap()
            .get_node_id()
    );
    let h: Hyphenated = "67e55044-10b1-426f-9247-bb680e5fe0c8".parse().unwrap();
    let s: Simple = "67e5504410b1426f9247bb680e5fe0c8".parse().unwrap();
    let _ = writeln!(
        out,
        "adapters {} {}",
        h.into_uuid() == s.into_uuid(),
        h.as_uuid()
    );
}

/// Text out, into the caller's buffer and as strings.
fn encoding(out: &mut String) {
    let u = Uuid::parse_str("67e55044-10b1-426f-9247-bb680e5fe0c8").unwrap();
    let mut buf = Uuid::encode_buffer();
    let _ = writeln!(out, "{}", u.hyphenated().encode_lower(&mut buf));
    let _ = writeln!(out, "{}", u.hyphenated().encode_upper(&mut buf));
    let _ = writeln!(out, "{}", u.simple().encode_lower(&mut buf));
    let _ = writeln!(out, "{}", u.urn().encode_upper(&mut buf));
    let _ = writeln!(out, "{}", u.braced().encode_lower(&mut buf));
    let mut small = [0u8; Simple::LENGTH];
    let _ = writeln!(out, "{}", Simple::from_uuid(u).encode_upper(&mut small));
    let _ = writeln!(out, "{} {} {}", u.simple(), u.urn(), u.braced());
    let _ = writeln!(out, "{u:x} {u:X} {u:?} {}", u.hyphenated());
    let lens = (
        Hyphenated::LENGTH,
        Simple::LENGTH,
        Urn::LENGTH,
        Braced::LENGTH,
    );
    let _ = writeln!(out, "lengths {lens:?}");
    let text: String = u.into();
    let _ = writeln!(out, "string {text} {}", text == u.to_string());
}

/// Timestamps of time-based UUIDs (RFC 9562 test vectors).
fn timestamps(out: &mut String) {
    for text in [
        "C232AB00-9414-11EC-B3C8-9F6BDECED846", // v1
        "1EC9414C-232A-6B00-B3C8-9F6BDECED846", // v6
        "017F22E2-79B0-7CC3-98C4-DC0C0C07398F", // v7
        "919108f7-52d1-4320-9bac-f847db4148a8", // v4: none
    ] {
        let u = Uuid::parse_str(text).unwrap();
        match u.get_timestamp() {
            Some(ts) => {
                let (secs, nanos) = ts.to_unix();
                let (ticks, counter) = ts.to_gregorian();
                let at = SystemTime::UNIX_EPOCH + Duration::new(secs, nanos);
                let _ = writeln!(
                    out,
                    "{u}: unix {secs}.{nanos:09} ticks {ticks} counter {counter} {}",
                    at == SystemTime::from(ts)
                );
            }
            None => {
                let _ = writeln!(out, "{u}: no timestamp");
            }
        }
    }
}

/// The same record through JSON and through postcard, both ways.
fn serde_round_trips(out: &mut String) {
    let order = Order {
        id: Uuid::parse_str("017F22E2-79B0-7CC3-98C4-DC0C0C07398F").unwrap(),
        customer: Uuid::new_v5(&Uuid::NAMESPACE_URL, b"https://example.com/customers/7"),
        parent: None,
        external: Uuid::max().hyphenated(),
        tags: vec![Uuid::nil(), Uuid::NAMESPACE_DNS],
    };
    let json = serde_json::to_string(&order).unwrap();
    let _ = writeln!(out, "json {json}");
    let back: Order = serde_json::from_str(&json).unwrap();
    let _ = writeln!(out, "json back {}", back == order);
    let bytes = postcard::to_allocvec(&order).unwrap();
    let _ = writeln!(out, "postcard {} {bytes:02x?}", bytes.len());
    let back: Order = postcard::from_bytes(&bytes).unwrap();
    let _ = writeln!(out, "postcard back {}", back == order);
    let bare: Uuid = serde_json::from_str("\"{67e55044-10b1-426f-9247-bb680e5fe0c8}\"").unwrap();
    let _ = writeln!(out, "braced json {bare}");
}

/// Rows through sqlx (SQLite in memory): bound as parameters, read back by
/// column, and stored as the database sees them.
fn sqlx_rows(out: &mut String) {
    use sqlx::Row;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        let pool = sqlx::SqlitePool::connect("sqlite::memory:")
            .await
            .expect("SQLite in memory");
        sqlx::query("CREATE TABLE orders (id BLOB PRIMARY KEY, customer BLOB NOT NULL)")
            .execute(&pool)
            .await
            .expect("create");
        let id = Uuid::parse_str("0191e2c5-7b3a-7c4e-9d2f-3a4b5c6d7e8f").expect("a UUID");
        for customer in [Uuid::nil(), Uuid::max()] {
            let row_id = Uuid::from_u128(id.as_u128() ^ customer.as_u128());
            sqlx::query("INSERT INTO orders (id, customer) VALUES (?, ?)")
                .bind(row_id)
                .bind(customer)
                .execute(&pool)
                .await
                .expect("insert");
        }
        let rows =
            sqlx::query("SELECT id, customer, hex(id), length(customer) FROM orders ORDER BY id")
                .fetch_all(&pool)
                .await
                .expect("select");
        for row in rows {
            let (id, customer): (Uuid, Uuid) = (row.get("id"), row.get("customer"));
            let hex: String = row.get(2);
            let len: i64 = row.get(3);
            let _ = writeln!(out, "sqlx row {id} {customer} {hex} {len}");
        }
        let one: Option<Uuid> = sqlx::query_scalar("SELECT id FROM orders WHERE customer = ?")
            .bind(Uuid::max())
            .fetch_optional(&pool)
            .await
            .expect("select one");
        let _ = writeln!(out, "sqlx scalar {one:?}");
    });
}
