//! The throwaway database servers: they start, answer the real command-line
//! clients on the URL and socket they report, and leave nothing behind when
//! dropped, also when the test panics.

use std::path::PathBuf;
use std::process::Command;

use test_support::db::{MariaDb, Postgres};

fn run(program: &str, args: &[&str]) -> String {
    let out = Command::new(program)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {program}: {e}"));
    assert!(
        out.status.success(),
        "{program} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .trim_end()
        .to_string()
}

#[test]
fn postgres_answers_psql_on_its_url_and_is_gone_after_drop() {
    let Some(pg) = Postgres::for_test("postgres_answers_psql_on_its_url_and_is_gone_after_drop")
    else {
        return;
    };
    // libpq reads the URL as given: the percent-encoded socket directory.
    let url = pg.url();
    let got = run(
        "psql",
        &[
            "-X",
            "-A",
            "-t",
            &url,
            "-c",
            "SELECT current_database(), 40 + 2",
        ],
    );
    assert_eq!(got, "uuidkit_test|42");
    // The fresh database is empty and writable.
    assert_eq!(
        pg.query("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'")
            .unwrap(),
        "0"
    );
    pg.query("CREATE TABLE t (id uuid PRIMARY KEY)").unwrap();
    pg.query("INSERT INTO t VALUES ('018f2a6e-0000-7000-8000-000000000000')")
        .unwrap();
    assert_eq!(
        pg.query("SELECT id FROM t").unwrap(),
        "018f2a6e-0000-7000-8000-000000000000"
    );

    let (socket, dir) = (pg.socket_path(), pg.socket_dir().to_path_buf());
    assert!(socket.exists());
    drop(pg);
    assert!(!socket.exists(), "{} still exists", socket.display());
    assert!(!dir.exists(), "{} still exists", dir.display());
}

#[test]
fn mariadb_answers_the_client_on_its_socket_and_is_gone_after_drop() {
    let Some(db) =
        MariaDb::for_test("mariadb_answers_the_client_on_its_socket_and_is_gone_after_drop")
    else {
        return;
    };
    let socket = db.socket_path();
    let got = run(
        "mariadb",
        &[
            "--no-defaults",
            &format!("--socket={}", socket.display()),
            &format!("--user={}", db.user()),
            "--batch",
            "--skip-column-names",
            "--database=uuidkit_test",
            "--execute=SELECT DATABASE(), 40 + 2, @@default_storage_engine",
        ],
    );
    assert_eq!(got, "uuidkit_test\t42\tInnoDB");
    db.query("CREATE TABLE t (id BINARY(16) PRIMARY KEY)")
        .unwrap();
    db.query("INSERT INTO t VALUES (UNHEX('018F2A6E000070008000000000000000'))")
        .unwrap();
    assert_eq!(
        db.query("SELECT HEX(id) FROM t").unwrap(),
        "018F2A6E000070008000000000000000"
    );

    let dir = socket.parent().unwrap().to_path_buf();
    assert!(socket.exists());
    drop(db);
    assert!(!socket.exists(), "{} still exists", socket.display());
    assert!(!dir.exists(), "{} still exists", dir.display());
}

/// Runs `start` and panics while its server is alive; returns the socket
/// path it reported, `None` if the server was skipped.
fn socket_after_panic<S>(
    start: impl FnOnce() -> Option<S>,
    socket_of: impl Fn(&S) -> PathBuf,
) -> Option<PathBuf> {
    let mut socket = None;
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let Some(server) = start() else { return };
        socket = Some(socket_of(&server));
        assert!(socket.as_ref().is_some_and(|s| s.exists()));
        panic!("a test fails while holding its server");
    }));
    assert_eq!(outcome.is_err(), socket.is_some());
    socket
}

#[test]
fn a_panicking_test_stops_its_servers() {
    let name = "a_panicking_test_stops_its_servers";
    if let Some(socket) = socket_after_panic(|| Postgres::for_test(name), Postgres::socket_path) {
        assert!(!socket.exists(), "{} outlived the panic", socket.display());
        assert!(!socket.parent().unwrap().exists());
    }
    if let Some(socket) = socket_after_panic(|| MariaDb::for_test(name), MariaDb::socket_path) {
        assert!(!socket.exists(), "{} outlived the panic", socket.display());
        assert!(!socket.parent().unwrap().exists());
    }
}

#[test]
fn a_bad_setting_is_an_error_quoting_the_server_log() {
    let name = "a_bad_setting_is_an_error_quoting_the_server_log";
    if !test_support::require(name, Postgres::start().map(drop)) {
        return;
    }
    let err = Postgres::start_with(&[("no_such_setting", "1")]).unwrap_err();
    assert!(err.contains("exited"), "{err}");
    assert!(err.contains("no_such_setting"), "{err}");

    if !test_support::require(name, MariaDb::start().map(drop)) {
        return;
    }
    let err = MariaDb::start_with(&[("no-such-option", "1")]).unwrap_err();
    assert!(err.contains("exited"), "{err}");
    assert!(err.contains("no-such-option"), "{err}");
}

#[test]
fn two_postgres_servers_run_side_by_side() {
    let name = "two_postgres_servers_run_side_by_side";
    let (Some(a), Some(b)) = (Postgres::for_test(name), Postgres::for_test(name)) else {
        return;
    };
    assert_ne!(a.socket_dir(), b.socket_dir());
    a.query("CREATE TABLE only_in_a (x int)").unwrap();
    assert_eq!(a.query("SELECT count(*) FROM only_in_a").unwrap(), "0");
    assert!(b.query("SELECT count(*) FROM only_in_a").is_err());
}

#[test]
fn a_server_started_with_a_package_loads_its_extension_and_writes_nothing_else() {
    let name = "a_server_started_with_a_package_loads_its_extension_and_writes_nothing_else";
    let share = match Postgres::pg_config("--sharedir") {
        Ok(dir) => dir,
        Err(reason) => return test_support::skip(name, reason),
    };
    // A package as `make install DESTDIR=…` lays it out: a SQL-only extension.
    let package = std::env::temp_dir().join(format!("uuidkit-pkg-{}", std::process::id()));
    let ext = package
        .join(share.strip_prefix("/").unwrap())
        .join("extension");
    std::fs::create_dir_all(&ext).unwrap();
    let extname = format!("answer_{}", std::process::id());
    std::fs::write(
        ext.join(format!("{extname}.control")),
        "default_version = '1'\nrelocatable = true\n",
    )
    .unwrap();
    std::fs::write(
        ext.join(format!("{extname}--1.sql")),
        "CREATE FUNCTION answer() RETURNS int LANGUAGE sql AS 'SELECT 42';",
    )
    .unwrap();
    let started = Postgres::start_with_package(&package, &[("work_mem", "8MB")]);
    std::fs::remove_dir_all(&package).unwrap();
    let pg = match started {
        Ok(pg) => pg,
        Err(reason) => return test_support::skip(name, reason),
    };
    pg.query(&format!("CREATE EXTENSION {extname}")).unwrap();
    assert_eq!(pg.query("SELECT answer()").unwrap(), "42");
    // The installation's own extensions and settings are all still there.
    pg.query("CREATE EXTENSION pgstattuple").unwrap();
    assert_eq!(pg.query("SHOW work_mem").unwrap(), "8MB");
    // The package's files were copied into the server's private directory.
    assert!(
        !share
            .join("extension")
            .join(format!("{extname}.control"))
            .exists()
    );

    let empty = std::env::temp_dir().join(format!("uuidkit-pkg-empty-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    let err = Postgres::start_with_package(&empty, &[]).unwrap_err();
    std::fs::remove_dir_all(&empty).unwrap();
    assert!(
        err.contains("has no files under PostgreSQL's share or library directory"),
        "{err}"
    );
}
