//! docs/migrating-keys.md, run: every SQL block of the guide, in its order, on a table of
//! 1,000,000 orders referenced by 1,000,000 items, with old and new clients writing during the
//! backfill, the swaps and the rollback. No row lost, no reference broken, the backfilled keys
//! in `(created_at, id)` order; the size and insert speed of the v4 and v7 primary keys printed
//! for the benchmark page.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use postgres::Client;
use uuidkit_pg_tests::{Scope, Server, scalar};

/// Rows of the example table before the migration.
const ORDERS: i64 = 1_000_000;
/// Rows a bulk insert gave one `created_at` (a tie group larger than any batch boundary
/// effect would hide).
const BULK: i64 = 5_000;
/// Rows inserted to time the primary key's insert speed.
const TIMED: i64 = 200_000;
/// How often each client writes: often enough that every step runs among writes, seldom enough
/// to leave the migration the machine.
const PACE: Duration = Duration::from_millis(2);

/// The guide's SQL blocks by name: a fence ```` ```sql migrate:NAME ```` each.
fn guide() -> BTreeMap<String, String> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/migrating-keys.md");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut blocks = BTreeMap::new();
    let mut open: Option<(String, String)> = None;
    for line in text.lines() {
        match open.take() {
            Some((name, body)) if line.trim_end() == "```" => {
                assert!(blocks.insert(name.clone(), body).is_none(), "{name} twice");
            }
            Some((name, mut body)) => {
                body.push_str(line);
                body.push('\n');
                open = Some((name, body));
            }
            None => {
                if let Some(name) = line.strip_prefix("```sql migrate:") {
                    open = Some((name.trim().to_string(), String::new()));
                }
            }
        }
    }
    assert!(open.is_none(), "an unclosed block in {path}");
    blocks
}

/// Runs the guide's block `name` as one simple query, as `psql -c` would.
fn step(c: &mut Client, blocks: &BTreeMap<String, String>, name: &str) {
    let sql = blocks
        .get(name)
        .unwrap_or_else(|| panic!("the guide has no block migrate:{name}"));
    c.batch_execute(sql)
        .unwrap_or_else(|e| panic!("migrate:{name}: {e}"));
}

fn count(c: &mut Client, sql: &str) -> i64 {
    scalar(c, sql)
}

/// Clients writing while the migration runs: `old` ones know only the v4 columns, `new` ones
/// write only the v7 ones (from the point the guide allows it), one order and item every
/// [`PACE`] each. Returns the rows they wrote.
fn writers<T>(server: &Server, new: bool, work: impl FnOnce() -> T) -> (T, i64) {
    let stop = AtomicBool::new(false);
    std::thread::scope(|s| {
        let old_client = s.spawn(|| {
            let mut c = server.client();
            let mut n = 0;
            while !stop.load(Ordering::Relaxed) {
                let id: String = c
                    .query_one(
                        "INSERT INTO orders (total_cents) VALUES (-1) RETURNING id::text",
                        &[],
                    )
                    .unwrap_or_else(|e| panic!("an old client's order: {e}"))
                    .get(0);
                c.execute(
                    "INSERT INTO order_items (order_id, sku) VALUES ($1::text::uuid, 'old')",
                    &[&id],
                )
                .unwrap_or_else(|e| panic!("an old client's item: {e}"));
                n += 1;
                std::thread::sleep(PACE);
            }
            n
        });
        let new_client = s.spawn(|| {
            let mut n = 0;
            if !new {
                return n;
            }
            let mut c = server.client();
            while !stop.load(Ordering::Relaxed) {
                let id: String = c
                    .query_one(
                        "INSERT INTO orders (id_v7, total_cents) VALUES (uuidkit.v7(), -2) \
                         RETURNING id_v7::text",
                        &[],
                    )
                    .unwrap_or_else(|e| panic!("a new client's order: {e}"))
                    .get(0);
                c.execute(
                    "INSERT INTO order_items (order_id_v7, sku) VALUES ($1::text::uuid, 'new')",
                    &[&id],
                )
                .unwrap_or_else(|e| panic!("a new client's item: {e}"));
                n += 1;
                std::thread::sleep(PACE);
            }
            n
        });
        let out = work();
        stop.store(true, Ordering::Relaxed);
        let written = old_client.join().unwrap() + new_client.join().unwrap();
        (out, written)
    })
}

/// Every item references an existing order, through both keys while both exist, and the two
/// keys name the same order.
fn references_hold(c: &mut Client, both: bool) {
    let by_v7 = if both { "order_id_v7" } else { "order_id" };
    let key_v7 = if both { "id_v7" } else { "id" };
    let orphans = count(
        c,
        &format!(
            "SELECT count(*) FROM order_items i LEFT JOIN orders o ON o.{key_v7} = i.{by_v7} \
             WHERE o.{key_v7} IS NULL"
        ),
    );
    assert_eq!(orphans, 0, "items whose order is gone");
    if both {
        let disagree = count(
            c,
            "SELECT count(*) FROM order_items i JOIN orders o ON o.id = i.order_id \
             WHERE o.id_v7 IS DISTINCT FROM i.order_id_v7",
        );
        assert_eq!(disagree, 0, "items whose two keys name different orders");
    }
    let unchecked = count(
        c,
        "SELECT count(*) FROM pg_constraint WHERE conrelid = 'order_items'::regclass \
         AND contype = 'f' AND NOT convalidated",
    );
    assert_eq!(unchecked, 0, "a foreign key left unvalidated");
}

/// The primary key's size per row, and the time to insert [`TIMED`] rows with default keys.
fn primary_key_cost(c: &mut Client) -> (f64, f64) {
    let size = count(c, "SELECT pg_relation_size('orders_pkey')") as f64
        / count(c, "SELECT count(*) FROM orders") as f64;
    let start = Instant::now();
    c.batch_execute(&format!(
        "INSERT INTO orders (total_cents) SELECT 3 FROM generate_series(1, {TIMED})"
    ))
    .unwrap();
    (size, start.elapsed().as_secs_f64())
}

/// The backfilled keys (every row but the clients', which write negative totals): the
/// millisecond of `created_at`, in `(created_at, id)` order, no tie, all v7.
fn backfill_is_ordered(c: &mut Client) {
    let backfilled = "total_cents >= 0";
    let wrong_ms = count(
        c,
        &format!(
            "SELECT count(*) FROM orders WHERE {backfilled} \
             AND uuidkit.extract_timestamp(id_v7) <> date_trunc('milliseconds', created_at)"
        ),
    );
    assert_eq!(wrong_ms, 0, "backfilled keys of another millisecond");
    let disorder = count(
        c,
        &format!(
            "SELECT count(*) FROM (SELECT id_v7, lag(id_v7) OVER (ORDER BY created_at, id) AS prev \
             FROM orders WHERE {backfilled}) k WHERE prev >= id_v7"
        ),
    );
    assert_eq!(
        disorder, 0,
        "backfilled keys out of (created_at, id) order, or tied"
    );
    let versions = count(
        c,
        "SELECT count(*) FROM orders WHERE get_byte(uuid_send(id_v7), 6) >> 4 <> 7",
    );
    assert_eq!(versions, 0);
}

#[test]
fn the_guide_moves_a_million_rows_to_v7_keys_and_back_without_losing_one() {
    let name = "the_guide_moves_a_million_rows_to_v7_keys_and_back_without_losing_one";
    let Some(server) = Server::for_test(name, Scope::Cluster) else {
        return;
    };
    let blocks = guide();
    let mut c = server.client();
    step(&mut c, &blocks, "schema");
    // Orders in random key order, as v4 keys come: created_at with sub-millisecond times, ties
    // of three, and one bulk insert of BULK rows sharing one now().
    c.batch_execute(&format!(
        "INSERT INTO orders (created_at, total_cents) \
         SELECT timestamptz '2024-01-01 00:00:00+00' \
                + make_interval(secs => CASE WHEN i <= {BULK} THEN 0 ELSE (i / 3) * 0.000731 END), i \
         FROM generate_series(1, {ORDERS}) i; \
         INSERT INTO order_items (order_id, sku) SELECT id, 'load' FROM orders; \
         ANALYZE orders, order_items"
    ))
    .unwrap();
    let (v4_size, v4_secs) = primary_key_cost(&mut c);
    let mut rows = count(&mut c, "SELECT count(*) FROM orders");
    let items = count(&mut c, "SELECT count(*) FROM order_items");
    assert_eq!((rows, items), (ORDERS + TIMED, ORDERS));
    let mut items = items;

    step(&mut c, &blocks, "expand");
    let (_, written) = writers(&server, false, || {
        let mut c = server.client();
        for s in [
            "backfill",
            "backfill-index",
            "backfill-orders",
            "backfill-items",
            "index-v7",
            "index-v4",
            "index-items",
            "not-null",
            "not-null-validate",
        ] {
            step(&mut c, &blocks, s);
        }
    });
    rows += written;
    items += written;
    backfill_is_ordered(&mut c);

    let (_, written) = writers(&server, true, || {
        let mut c = server.client();
        step(&mut c, &blocks, "swap");
        step(&mut c, &blocks, "validate");
    });
    rows += written;
    items += written;
    assert_eq!(count(&mut c, "SELECT count(*) FROM orders"), rows);
    assert_eq!(count(&mut c, "SELECT count(*) FROM order_items"), items);
    references_hold(&mut c, true);
    let key = "SELECT a.attname::text FROM pg_index x JOIN pg_attribute a \
               ON a.attrelid = x.indrelid AND a.attnum = x.indkey[0] \
               WHERE x.indrelid = 'orders'::regclass AND x.indisprimary";
    assert_eq!(scalar::<String>(&mut c, key), "id_v7");

    // Back to the v4 key, then forward again, with clients writing throughout.
    let (_, written) = writers(&server, true, || {
        let mut c = server.client();
        for s in ["rollback-index", "rollback", "rollback-validate"] {
            step(&mut c, &blocks, s);
        }
        assert_eq!(scalar::<String>(&mut c, key), "id");
        references_hold(&mut c, true);
        for s in ["index-v7", "index-v4", "swap", "validate"] {
            step(&mut c, &blocks, s);
        }
    });
    rows += written;
    items += written;
    assert_eq!(scalar::<String>(&mut c, key), "id_v7");

    step(&mut c, &blocks, "contract");
    assert_eq!(scalar::<String>(&mut c, key), "id");
    assert_eq!(count(&mut c, "SELECT count(*) FROM orders"), rows);
    assert_eq!(count(&mut c, "SELECT count(*) FROM order_items"), items);
    references_hold(&mut c, false);
    c.batch_execute("VACUUM ANALYZE orders").unwrap();
    let (v7_size, v7_secs) = primary_key_cost(&mut c);
    let not_v7 = count(
        &mut c,
        "SELECT count(*) FROM orders WHERE get_byte(uuid_send(id), 6) >> 4 <> 7",
    );
    assert_eq!(not_v7, 0, "keys that are not v7 after the contract step");
    println!(
        "MIGRATE rows {rows} items {items}; primary key before: v4 {v4_size:.1} bytes per row, \
         {TIMED} inserts {v4_secs:.2} s; after: v7 {v7_size:.1} bytes per row, {TIMED} inserts \
         {v7_secs:.2} s"
    );
}
