//! The migration guide's proof: one uuid-style program, built against the
//! `uuid` crate and against uuidkit under the name `uuid`, observes the
//! same things.

#[test]
fn the_program_prints_the_same_against_uuid_and_uuidkit() {
    let with_uuid = migration_proof_uuid::run();
    let with_uuidkit = migration_proof_uuidkit::run();
    for (n, (a, b)) in with_uuid.lines().zip(with_uuidkit.lines()).enumerate() {
        assert_eq!(a, b, "line {} differs (left: uuid, right: uuidkit)", n + 1);
    }
    assert_eq!(with_uuid.lines().count(), with_uuidkit.lines().count());
    // The program ran to the end and saw real values, not empty output.
    assert!(with_uuidkit.contains("v5 2ed6657d-e927-568b-95e1-2665a8aea6a2"));
    assert!(with_uuidkit.contains("json back true") && with_uuidkit.contains("postcard back true"));
    assert!(with_uuidkit.contains("v7 distinct 1000 sorted true"));
    // Rows written and read through sqlx: two rows, each UUID a 16-byte BLOB.
    let rows: Vec<&str> = with_uuidkit
        .lines()
        .filter(|l| l.starts_with("sqlx row "))
        .collect();
    assert_eq!(rows.len(), 2, "{with_uuidkit}");
    assert!(rows.iter().all(|r| r.ends_with(" 16")), "{rows:?}");
    assert!(with_uuidkit.contains("sqlx scalar Some("), "{with_uuidkit}");
}
