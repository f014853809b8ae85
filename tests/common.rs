//! Helpers: a fresh temp dir and database per test, the binary, shared inputs.

use assert_cmd::Command;
use std::path::{Path, PathBuf};

/// A temp dir holding the test's database; dropped at the end of the test.
pub struct Env {
    pub dir: tempfile::TempDir,
}

impl Env {
    pub fn new() -> Env {
        Env {
            dir: tempfile::tempdir().expect("temp dir"),
        }
    }

    pub fn db(&self) -> PathBuf {
        self.dir.path().join("bench.db")
    }

    /// `bench-db --db <temp>/bench.db ARGS…`, run in the temp dir.
    pub fn cmd(&self, args: &[&str]) -> Command {
        let mut c = Command::cargo_bin("bench-db").expect("binary");
        c.current_dir(self.dir.path())
            .env_remove("BENCH_DB")
            .arg("--db")
            .arg(self.db())
            .args(args);
        c
    }

    /// Runs a command that must succeed; returns stdout.
    pub fn ok(&self, args: &[&str]) -> String {
        let out = self.cmd(args).output().expect("run");
        assert!(
            out.status.success(),
            "bench-db {args:?} failed ({:?}): {}",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).expect("utf-8")
    }

    /// Runs a command that must print JSON; returns it parsed.
    pub fn json(&self, args: &[&str]) -> serde_json::Value {
        serde_json::from_str(&self.ok(args)).expect("json")
    }

    /// Ingests `path` as commit `c{i}` on branch `main`, stored at 2026-01-0{i} (i in 1..=9).
    pub fn ingest_commit(&self, path: &str, i: usize) -> String {
        self.ingest_commit_on(path, i, "main")
    }

    /// [`Self::ingest_commit`] on `branch`.
    pub fn ingest_commit_on(&self, path: &str, i: usize, branch: &str) -> String {
        self.ok(&[
            "ingest",
            path,
            "--no-git",
            "--tag",
            &format!("commit=c{i}"),
            "--tag",
            &format!("branch={branch}"),
            "--time",
            &format!("2026-01-0{i}T00:00:00Z"),
        ])
    }

    /// Writes a file in the temp dir and returns its path as a string.
    pub fn write(&self, name: &str, content: &[u8]) -> String {
        let p = self.dir.path().join(name);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(&p, content).unwrap();
        p.display().to_string()
    }
}

/// `../shared/<sub>` beside the repository, or `None` (the test then skips).
pub fn shared(sub: &str) -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared")
        .join(sub);
    if p.exists() {
        Some(p)
    } else {
        eprintln!("skipping: {} not found", p.display());
        None
    }
}

/// A fixture of this repository.
pub fn fixture(rel: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(rel)
        .display()
        .to_string()
}

/// Asserts two floats agree to `tol`.
#[track_caller]
pub fn close(a: f64, b: f64, tol: f64) {
    assert!((a - b).abs() <= tol, "{a} != {b} (± {tol})");
}

/// The PostgreSQL URL of the test cluster, or `None` (skip) outside CI.
pub fn pg_base() -> Option<String> {
    match std::env::var("BENCH_DB_TEST_PG") {
        Ok(u) if !u.is_empty() => Some(u),
        _ if std::env::var_os("CI").is_some() => {
            panic!("CI is set but BENCH_DB_TEST_PG is not: .ci/run must start PostgreSQL")
        }
        _ => {
            eprintln!("skipping the PostgreSQL half: BENCH_DB_TEST_PG is not set");
            None
        }
    }
}

/// The URL in the key=value form the postgres crate reads, without TLS.
pub fn plain(url: &str) -> String {
    let rest = url.split_once("://").unwrap().1;
    let (userinfo, hostdb) = rest.rsplit_once('@').unwrap();
    let (user, pw) = userinfo.split_once(':').unwrap();
    let (hostport, db) = hostdb.split_once('/').unwrap();
    let db = db.split('?').next().unwrap();
    let (host, port) = hostport.rsplit_once(':').unwrap();
    format!("host={host} port={port} user={user} password={pw} dbname={db} sslmode=disable")
}

/// Rows as schema version 3 stored them, in SQL both stores read: a hyperfine run named
/// after its command (its block's label, its metric `sleep_0_01`), and a JMH run whose
/// package was dropped at ingest, the newer by its time tag (the other's time is its
/// ingest time). Ids 1 and 2.
pub const VERSION_3_ROWS: &str = "
    INSERT INTO source (id, path, sha256, bytes, format, parser, ingested_at)
        VALUES (1, 'bench.json', 'a1', 10, 'hyperfine', 'hyperfine 1', '2026-01-01T00:00:00Z'),
               (2, 'result.json', 'b2', 10, 'jmh', 'jmh 1', '2026-01-01T00:00:00Z');
    INSERT INTO block (id, source_id, idx, label, first_line, last_line)
        VALUES (1, 1, 0, 'sleep 0.01', 1, 9), (2, 2, 0, NULL, 1, 9);
    INSERT INTO run (id, block_id, suite, label, run_index, first_line, last_line, tags)
        VALUES (1, 1, 'hyperfine', 'sleep 0.01', 1, 1, 9,
                '{\"commit\":\"c1\",\"time\":\"2026-02-01T00:00:00+01:00\"}'),
               (2, 2, 'jmh', 'result.json', 1, 1, 9, '{\"commit\":\"c2\"}');
    INSERT INTO series (id, run_id, metric, display, unit, kind, value)
        VALUES (1, 1, 'sleep_0_01', 'sleep 0.01', 's', 'value', 0.0105),
               (2, 2, 'clientpb.existuser.avgt', 'ClientPb.existUser', 'ms/op', 'value', 3.5);";

/// Checks a store upgraded from [`VERSION_3_ROWS`]: `migrate --json` (the JSON it printed)
/// listed both sources to ingest again (what version 3 dropped: a JMH package, hyperfine's
/// printed summary and parameters), and `runs --json` (`runs` of a selector) shows the
/// hyperfine run with its bench and the metric `time`, the JMH run as it was; their tags
/// and times are indexed (`tag.`, `latest=`, `time<` find them).
pub fn assert_version_3_upgraded(
    migrate: &serde_json::Value,
    runs: impl Fn(&str) -> serde_json::Value,
) {
    let ids = |sel: &str| {
        runs(sel)
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["id"].as_i64().unwrap())
            .collect::<Vec<_>>()
    };
    assert_eq!(ids("tag.commit=c2"), [2]);
    assert_eq!(ids("latest=1"), [1]);
    assert_eq!(ids("time<2026-01-31T23:00:00Z"), [2]);
    let runs = runs("");
    assert_eq!(migrate["from"], 3, "{migrate}");
    assert_eq!(
        migrate["reingest"],
        serde_json::json!(["bench.json", "result.json"]),
        "{migrate}"
    );
    let runs = runs.as_array().unwrap();
    assert_eq!(runs.len(), 2);
    assert_eq!(runs[0]["bench"], "sleep 0.01");
    assert_eq!(runs[0]["metrics"], serde_json::json!(["time"]));
    assert_eq!(runs[0]["values"]["time"], 0.0105);
    assert!(runs[1]["bench"].is_null());
    assert_eq!(
        runs[1]["metrics"],
        serde_json::json!(["clientpb.existuser.avgt"])
    );
}

/// Copies the folder `from` to `to`, recursively.
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let t = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &t);
        } else {
            std::fs::copy(e.path(), &t).unwrap();
        }
    }
}
