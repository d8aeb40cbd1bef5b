//! The benchmark program, end to end at a small N against the test
//! harness's servers, so that it cannot rot between real runs.

use std::process::Command;

use test_support::db::{MariaDb, Postgres};

fn db_bench(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_db-bench"))
        .args(args)
        .output()
        .expect("db-bench runs")
}

#[test]
fn a_small_run_reports_every_kind_on_both_servers_with_plots() {
    let name = "a_small_run_reports_every_kind_on_both_servers_with_plots";
    let (Some(pg), Some(maria)) = (Postgres::for_test(name), MariaDb::for_test(name)) else {
        return;
    };
    let out_dir = std::env::temp_dir().join(format!("db-bench-smoke-{}", std::process::id()));
    let out = db_bench(&[
        "--rows=2000",
        "--batch=300",
        "--lookups=50",
        "--scans=3",
        "--postgres-url",
        &pg.url(),
        "--mariadb-url",
        &maria.url(),
        "--out",
        out_dir.to_str().unwrap(),
        "--img-prefix=img",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let md = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        std::fs::read_to_string(out_dir.join("results.md")).unwrap(),
        md
    );

    assert!(
        md.starts_with("2,000 rows per kind, 300 rows per batch;"),
        "{md}"
    );
    for server in ["PostgreSQL", "MariaDB"] {
        assert!(md.contains(&format!("### {server}\n")), "{md}");
        let png = out_dir.join(format!("locality-{}.png", server.to_lowercase()));
        let bytes = std::fs::read(&png).unwrap();
        assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "{}", png.display());
        assert!(md.contains(&format!(
            "![{server}](img/locality-{}.png)",
            server.to_lowercase()
        )));
    }
    assert!(md.contains("shared_buffers = "), "{md}");
    assert!(md.contains("innodb_buffer_pool_size = "), "{md}");
    // Every kind, on both servers; the baseline is 1× itself.
    for kind in db_bench::Kind::ALL {
        let rows = md
            .lines()
            .filter(|l| l.starts_with(&format!("| {} |", kind.label())));
        assert_eq!(rows.count(), 2, "{}: {md}", kind.label());
    }
    assert_eq!(md.matches("| bigserial | ").count(), 2);
    let base = md.lines().find(|l| l.starts_with("| bigserial |")).unwrap();
    assert!(base.contains("| 1.00× |"), "{base}");
    // A random key's index is larger than a time-ordered one's (2,000
    // rows already fill more leaf pages when inserts land anywhere).
    let leaves = |label: &str| -> u64 {
        let line = md
            .lines()
            .find(|l| l.starts_with(&format!("| {label} |")))
            .unwrap();
        line.split('|')
            .nth(5)
            .unwrap()
            .trim()
            .replace(',', "")
            .parse()
            .unwrap()
    };
    assert!(leaves("v4") > leaves("v7 counter (§6.2 m1)"), "{md}");
    std::fs::remove_dir_all(&out_dir).ok();
}

#[test]
fn a_bad_setting_is_a_clear_error_before_any_server_starts() {
    let out = db_bench(&[
        "--rows=10",
        "--scan-rows=11",
        "--no-mariadb",
        "--postgres-url=postgresql://nowhere.invalid/x",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stderr,
        "db-bench: --scan-rows: expected 1 to 10 (the rows), found 11\n"
    );
}
