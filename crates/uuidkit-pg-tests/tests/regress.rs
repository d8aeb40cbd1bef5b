//! The SQL regression suite (`regress/sql/*.sql` against
//! `regress/expected/*.out`), run by PostgreSQL's own `pg_regress` through
//! `psql` against a throwaway server with the packaged extension.

use std::path::{Path, PathBuf};
use std::process::Command;

use test_support::db::Postgres;
use uuidkit_pg_tests::{Scope, Server};

/// The suites, in `regress/sql`.
const SUITES: &[&str] = &["uuidkit"];

fn pg_regress() -> Result<PathBuf, String> {
    let path = Postgres::pg_config("--pkglibdir")?.join("pgxs/src/test/regress/pg_regress");
    if path.is_file() {
        Ok(path)
    } else {
        Err(format!(
            "pg_regress is not installed (expected {})",
            path.display()
        ))
    }
}

#[test]
fn sql_regression_suite_matches_its_expected_output() {
    let name = "sql_regression_suite_matches_its_expected_output";
    let (program, bindir) =
        match pg_regress().and_then(|p| Ok((p, Postgres::pg_config("--bindir")?))) {
            Ok(found) => found,
            Err(reason) => return test_support::skip(name, reason),
        };
    let Some(server) = Server::for_test(name, Scope::Backend) else {
        return;
    };
    let pg = server.postgres();
    // The suite creates the extension itself, as a user would.
    pg.query("DROP EXTENSION uuidkit").unwrap();
    let input = Path::new(env!("CARGO_MANIFEST_DIR")).join("regress");
    let output = std::env::temp_dir().join(format!("uuidkit-pg-regress-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&output);
    std::fs::create_dir_all(&output).unwrap();
    let out = Command::new(program)
        .arg("--use-existing")
        .arg(format!("--bindir={}", bindir.display()))
        .arg(format!("--host={}", pg.socket_dir().display()))
        .arg(format!("--port={}", pg.port()))
        .arg(format!("--user={}", pg.user()))
        .arg(format!("--dbname={}", test_support::db::DATABASE))
        .arg(format!("--inputdir={}", input.display()))
        .arg(format!("--outputdir={}", output.display()))
        .args(SUITES)
        .output()
        .unwrap();
    let diffs = std::fs::read_to_string(output.join("regression.diffs")).unwrap_or_default();
    let report =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    let _ = std::fs::remove_dir_all(&output);
    assert!(
        out.status.success(),
        "pg_regress failed:\n{report}\n{diffs}"
    );
    assert!(
        report.contains(&format!("All {} tests passed", SUITES.len())),
        "{report}"
    );
}
