//! The same test bodies against both stores: a SQLite file and a PostgreSQL schema.
//!
//! PostgreSQL comes from `BENCH_DB_TEST_PG` (`.ci/pg-cluster.sh` starts a throwaway
//! cluster and sets it). Without it the PostgreSQL half is skipped locally, but fails when
//! `CI` is set: CI must test the real thing. Every test works in a schema of its own,
//! dropped at the end, so the tests run in parallel on one database. Every command's
//! output is checked for the password.

use crate::common::{Env, copy_tree, fixture, pg_base, plain, shared};
use assert_cmd::Command;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::atomic::{AtomicUsize, Ordering};

fn env_var(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| panic!("{name} is set with BENCH_DB_TEST_PG"))
}

/// The password in a URL (`user:PASSWORD@`).
fn password_of(url: &str) -> String {
    let rest = url.split_once("://").unwrap().1;
    let userinfo = rest.rsplit_once('@').unwrap().0;
    userinfo.split_once(':').unwrap().1.to_string()
}

/// `url` with `param=value` added to its query.
fn with_param(url: &str, param: &str) -> String {
    let sep = if url.contains('?') { '&' } else { '?' };
    format!("{url}{sep}{param}")
}

/// A schema of its own for one test on the test cluster; dropped with everything in it.
struct Schema {
    base: String,
    name: String,
}

impl Schema {
    fn new(base: &str) -> Schema {
        static N: AtomicUsize = AtomicUsize::new(0);
        let name = format!(
            "t{}_{}_{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .subsec_nanos()
        );
        Schema {
            base: base.to_string(),
            name,
        }
    }

    fn url(&self) -> String {
        with_param(&self.base, &format!("schema={}", self.name))
    }

    /// Runs SQL as the schema's owner.
    fn sql(&self, sql: &str) {
        let mut c = postgres::Client::connect(&plain(&self.base), postgres::NoTls).unwrap();
        c.batch_execute(&format!("SET search_path TO {}; {sql}", self.name))
            .unwrap();
    }
}

impl Drop for Schema {
    fn drop(&mut self) {
        if let Ok(mut c) = postgres::Client::connect(&plain(&self.base), postgres::NoTls) {
            let _ = c.batch_execute(&format!("DROP SCHEMA IF EXISTS {} CASCADE", self.name));
        }
    }
}

/// One store under test.
enum Store {
    Sqlite(Env),
    Postgres {
        env: Env,
        schema: Schema,
        password: String,
    },
}

impl Store {
    fn sqlite() -> Store {
        Store::Sqlite(Env::new())
    }

    fn postgres(base: &str) -> Store {
        Store::Postgres {
            env: Env::new(),
            schema: Schema::new(base),
            password: password_of(base),
        }
    }

    /// A SQLite store and, when the cluster is there, a PostgreSQL one.
    fn both() -> Vec<Store> {
        let mut v = vec![Store::sqlite()];
        if let Some(base) = pg_base() {
            v.push(Store::postgres(&base));
        }
        v
    }

    fn env(&self) -> &Env {
        match self {
            Store::Sqlite(e) | Store::Postgres { env: e, .. } => e,
        }
    }

    fn db(&self) -> String {
        match self {
            Store::Sqlite(e) => e.db().display().to_string(),
            Store::Postgres { schema, .. } => schema.url(),
        }
    }

    /// The PostgreSQL schema of a PostgreSQL store.
    fn schema(&self) -> &Schema {
        match self {
            Store::Postgres { schema, .. } => schema,
            Store::Sqlite(_) => panic!("a SQLite store has no schema"),
        }
    }

    fn name(&self) -> &'static str {
        match self {
            Store::Sqlite(_) => "sqlite",
            Store::Postgres { .. } => "postgres",
        }
    }

    fn cmd_on(&self, db: &str, args: &[&str]) -> Command {
        let mut c = Command::cargo_bin("bench-db").expect("binary");
        c.current_dir(self.env().dir.path())
            .env_remove("BENCH_DB")
            .env_remove("PGPASSWORD")
            .arg("--db")
            .arg(db)
            .args(args);
        c
    }

    /// Runs `bench-db --db THIS ARGS…`; asserts no output shows the password.
    fn run(&self, args: &[&str]) -> Output {
        self.run_on(&self.db(), args)
    }

    fn run_on(&self, db: &str, args: &[&str]) -> Output {
        let out = self.cmd_on(db, args).output().expect("run");
        self.no_password(&out);
        out
    }

    fn no_password(&self, out: &Output) {
        if let Store::Postgres { password, .. } = self {
            for text in [&out.stdout, &out.stderr] {
                assert!(
                    !String::from_utf8_lossy(text).contains(password.as_str()),
                    "the password was printed: {}",
                    String::from_utf8_lossy(text)
                );
            }
        }
    }

    fn ok(&self, args: &[&str]) -> String {
        self.ok_on(&self.db(), args)
    }

    /// [`Store::ok`] against another database.
    fn ok_on(&self, db: &str, args: &[&str]) -> String {
        let out = self.run_on(db, args);
        assert!(
            out.status.success(),
            "[{}] bench-db {args:?} failed ({:?}): {}",
            self.name(),
            out.status.code(),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).expect("utf-8")
    }

    /// `(exit code, stdout)` of a command that may fail.
    fn code(&self, args: &[&str]) -> (i32, String) {
        let out = self.run(args);
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    }
}

/// Two labels [`corpus`] holds, as selectors to compare: the samples' when they are there,
/// else the fixtures'.
fn two_labels() -> (&'static str, &'static str) {
    if shared("samples").is_some() {
        (
            "label=the current master",
            "label=the current master with patch version v11jp",
        )
    } else {
        (
            "label=Results with CO correction off",
            "label=locale-de.txt",
        )
    }
}

/// Every seed and sample (or the fixtures when `../shared` is absent), copied into one
/// folder so that every store ingests exactly the same files in the same order.
fn corpus(into: &Path) -> PathBuf {
    let dir = into.join("corpus");
    let mut sources: Vec<PathBuf> = Vec::new();
    for sub in ["seeds", "samples"] {
        if let Some(p) = shared(sub) {
            sources.push(p);
        }
    }
    if sources.is_empty() {
        sources.push(PathBuf::from(fixture("jlbh")));
    }
    for (i, src) in sources.iter().enumerate() {
        copy_tree(src, &dir.join(format!("{i}")));
    }
    dir
}

/// The read commands whose answers must not depend on the store.
fn answers(s: &Store) -> Vec<(String, i32, String)> {
    let mut calls: Vec<Vec<&str>> = vec![
        vec!["runs"],
        vec!["runs", "--json"],
        vec!["variation"],
        vec!["variation", "--json"],
        vec!["export", "--format", "csv"],
        vec!["export", "--format", "json"],
        vec!["curve"],
        vec!["history", "--json"],
        vec!["history", "suite=jlbh;latest=5", "--json"],
        // Streamed reads: history terms, a block cut by a range, one metric.
        vec!["variation", "run=2..30", "--json"],
        vec!["curve", "--metric", "end_to_end", "--json"],
        vec!["curve", "run=3..40", "--slo", "p99<=1ms"],
        vec![
            "history",
            "--metric",
            "end_to_end",
            "--percentile",
            "99",
            "--json",
        ],
    ];
    // The seeds' before/after pairs (see tests/analysis_cli.rs).
    let pairs = [
        ("label=Before this changes", "label=After these changes"),
        (
            "label=the current master",
            "label=the current master with patch version v11jp",
        ),
    ];
    for (b, c) in pairs {
        calls.push(vec!["compare", "--baseline", b, "--candidate", c, "--json"]);
        calls.push(vec!["gate", "--baseline", b, "--candidate", c]);
        calls.push(vec![
            "gate",
            "--baseline",
            b,
            "--candidate",
            c,
            "--format",
            "json",
        ]);
    }
    calls
        .into_iter()
        .map(|args| {
            let (code, out) = s.code(&args);
            (args.join(" "), code, without_ingest_time(out))
        })
        .collect()
}

/// JSON output without its ingest times (the two stores ingested seconds apart).
fn without_ingest_time(out: String) -> String {
    fn strip(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(m) => {
                m.remove("ingested_at");
                // `history` dates a point by its ingest when it has no commit time.
                m.remove("time");
                m.values_mut().for_each(strip);
            }
            serde_json::Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    match serde_json::from_str::<serde_json::Value>(&out) {
        Ok(mut v) => {
            strip(&mut v);
            serde_json::to_string_pretty(&v).unwrap()
        }
        Err(_) => out,
    }
}

/// The first line where two outputs differ.
fn first_difference(a: &str, b: &str) -> String {
    let (mut la, mut lb) = (a.lines(), b.lines());
    for n in 1.. {
        match (la.next(), lb.next()) {
            (Some(x), Some(y)) if x == y => continue,
            (None, None) => break,
            (x, y) => return format!("line {n}:\n  {x:?}\n  {y:?}"),
        }
    }
    "same lines".to_string()
}

#[test]
fn seeds_and_samples_give_the_same_answers_on_both_stores() {
    let stores = Store::both();
    // One folder for both, so the stored source paths are equal too.
    let tmp = tempfile::tempdir().unwrap();
    let dir = corpus(tmp.path());
    let mut results = Vec::new();
    for s in &stores {
        let out = s.ok(&["ingest", dir.to_str().unwrap(), "--json"]);
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["errors"], 0, "{out}");
        assert!(v["ingested"].as_u64().unwrap() > 0, "{out}");
        // Again: every file is unchanged.
        let again: serde_json::Value =
            serde_json::from_str(&s.ok(&["ingest", dir.to_str().unwrap(), "--json"])).unwrap();
        assert_eq!(again["ingested"], 0);
        assert_eq!(again["unchanged"], v["ingested"]);
        results.push(answers(s));
    }
    if let [sqlite, pg] = &results[..] {
        assert_eq!(sqlite.len(), pg.len());
        for (a, b) in sqlite.iter().zip(pg) {
            assert!(
                a == b,
                "`{}` differs between SQLite and PostgreSQL (exit {} vs {}): {}",
                a.0,
                a.1,
                b.1,
                first_difference(&a.2, &b.2)
            );
        }
        // The gates decided (pass or regression), so the numbers were really compared.
        let gates: Vec<i32> = sqlite
            .iter()
            .filter(|(args, _, _)| args.starts_with("gate"))
            .map(|(_, code, _)| *code)
            .collect();
        if shared("seeds").is_some() {
            assert!(gates.iter().any(|c| *c == 0 || *c == 1), "{gates:?}");
        }
    }
}

#[test]
fn label_and_generated_runs_work_on_both_stores() {
    for s in Store::both() {
        let f = fixture("jlbh");
        s.ok(&["ingest", &f]);
        let ids: serde_json::Value = serde_json::from_str(&s.ok(&["runs", "--json"])).unwrap();
        let n = ids.as_array().unwrap().len();
        assert!(n > 0);
        let out = s.ok(&["label", "run=1", "renamed"]);
        assert!(out.contains("relabelled 1 run"), "[{}] {out}", s.name());
        let runs = s.ok(&["runs", "label=renamed", "--json"]);
        let v: serde_json::Value = serde_json::from_str(&runs).unwrap();
        assert_eq!(v.as_array().unwrap().len(), 1, "[{}] {runs}", s.name());
        assert_eq!(v[0]["id"], 1);
    }
}

/// The same output ingested for a second and a third commit is stored, and named as a
/// copy of what was stored before (on stderr and in `ingest --json`).
#[test]
fn an_output_ingested_again_is_named_a_copy_on_both_stores() {
    for s in Store::both() {
        let go = fixture("real/go-bench/bench-count3.txt");
        let ingest = |commit: &str| s.run(&["ingest", &go, "--no-git", "--tag", commit, "--json"]);
        let first = ingest("commit=c1");
        assert!(
            String::from_utf8_lossy(&first.stderr).is_empty(),
            "[{}]",
            s.name()
        );
        ingest("commit=c2");
        let third = ingest("commit=c3");
        let files: serde_json::Value = serde_json::from_slice(&third.stdout).unwrap();
        let file = &files["files"][0];
        assert_eq!(file["status"], "ingested", "[{}] {file}", s.name());
        assert_eq!(
            file["same_bytes_as"],
            serde_json::json!([go, go]),
            "[{}]",
            s.name()
        );
        let err = String::from_utf8_lossy(&third.stderr);
        assert!(
            err.contains(&format!(
                "warning: {go}: the same bytes as source 1 ({go}) and 1 more, stored before under other tags: a copy of one output"
            )),
            "[{}] {err}",
            s.name()
        );
    }
}

/// `run=ID` written down before an `rm` never names a later run: removing the newest runs
/// does not hand their ids to the next ingest.
#[test]
fn a_removed_run_id_is_never_given_again_on_both_stores() {
    for s in Store::both() {
        let ids = |s: &Store| -> Vec<i64> {
            let v: serde_json::Value = serde_json::from_str(&s.ok(&["runs", "--json"])).unwrap();
            v.as_array()
                .unwrap()
                .iter()
                .map(|r| r["id"].as_i64().unwrap())
                .collect()
        };
        s.ok(&["ingest", &fixture("jlbh/v1-varlog.txt"), "--label", "a"]);
        s.ok(&["ingest", &fixture("jlbh/v10-current.txt"), "--label", "b"]);
        assert_eq!(ids(&s), [1, 2, 3, 4, 5, 6], "[{}]", s.name());
        s.ok(&["rm", "label=b"]);
        s.ok(&["ingest", &fixture("jlbh/v10-current.txt"), "--label", "c"]);
        assert_eq!(ids(&s), [1, 2, 3, 7, 8, 9], "[{}]", s.name());
        let again = s.ok(&["runs", "run=4..6", "--json"]);
        assert_eq!(again.trim(), "[]", "[{}] {again}", s.name());
    }
}

#[test]
fn copy_round_trips_sqlite_postgres_sqlite_byte_for_byte() {
    let Some(base) = pg_base() else { return };
    let pg = Store::postgres(&base);
    let dir = corpus(pg.env().dir.path());
    let first = pg.env().dir.path().join("first.db");
    let second = pg.env().dir.path().join("second.db");
    let first = first.to_str().unwrap();
    let second = second.to_str().unwrap();
    pg.run_on(first, &["ingest", dir.to_str().unwrap()]);
    // Relabel part of a block, so runs of one source carry different labels.
    pg.run_on(first, &["label", "run=2", "moved"]);
    let export = |db: &str, fmt: &str| {
        let out = pg.run_on(db, &["export", "--format", fmt]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        out.stdout
    };
    let url = pg.db();
    let copy = |from: &str, to: &str| {
        let out = Command::cargo_bin("bench-db")
            .unwrap()
            .args(["copy", "--from", from, "--to", to])
            .output()
            .unwrap();
        pg.no_password(&out);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let out = copy(first, &url);
    assert!(out.contains("0 already present"), "{out}");
    let out = copy(&url, second);
    assert!(out.contains("0 already present"), "{out}");
    for fmt in ["csv", "json"] {
        let a = export(first, fmt);
        assert!(a.len() > 1000);
        assert_eq!(
            a,
            export(&url, fmt),
            "SQLite → PostgreSQL changed the {fmt} export"
        );
        assert_eq!(
            a,
            export(second, fmt),
            "PostgreSQL → SQLite changed the {fmt} export"
        );
    }
    let runs = |db: &str| pg.run_on(db, &["runs", "--json"]).stdout;
    assert_eq!(runs(first), runs(&url));
    assert_eq!(runs(first), runs(second));
    // Copying again copies nothing.
    let out = copy(first, &url);
    assert!(out.starts_with("present "), "{out}");
    assert!(out.contains("0 sources copied (0 runs)"), "{out}");
    assert_eq!(export(first, "csv"), export(&url, "csv"));
}

/// A copy of a narrower selection first, then of everything: the second copy brings the
/// runs the first left behind into the same source and blocks, and a third has nothing
/// to do.
#[test]
fn a_repeated_copy_completes_a_source_copied_in_part_on_both_stores() {
    let file = fixture("real/jlbh/chronicle-queue-demo-2019-throughput-test.txt");
    for s in Store::both() {
        let from = s.env().dir.path().join("from.db");
        let from = from.to_str().unwrap();
        s.ok_on(from, &["ingest", &file, "--no-git"]);
        let copy = |sel: &[&str]| {
            let mut args = vec!["copy", "--from", from, "--to"];
            let to = s.db();
            args.push(&to);
            args.extend(sel);
            s.ok_on(from, &args)
        };
        let out = copy(&["run=3..4"]);
        assert!(
            out.contains("1 source copied (2 runs), 0 already present"),
            "[{}] {out}",
            s.name()
        );
        let out = copy(&[]);
        assert!(
            out.starts_with(&format!("completed {file}: 68 runs\n")),
            "[{}] {out}",
            s.name()
        );
        assert!(
            out.contains("1 source copied (68 runs), 1 of them completed, 0 already present"),
            "[{}] {out}",
            s.name()
        );
        let out = copy(&[]);
        assert!(
            out.contains("0 sources copied (0 runs), 1 already present"),
            "[{}] {out}",
            s.name()
        );
        // The same numbers under the same blocks, whatever the ids.
        let rows = |db: &str| {
            let csv = s.ok_on(db, &["export", "--format", "csv"]);
            let mut rows: Vec<String> = csv
                .lines()
                .map(|l| l.split_once(',').unwrap().1.to_string())
                .collect();
            rows.sort();
            rows
        };
        let want = rows(from);
        assert_eq!(want.len(), 1 + 70 * 6, "[{}]", s.name());
        assert_eq!(rows(&s.db()), want, "[{}]", s.name());
        // Each block is one group still: its five runs' values with the printed variation.
        let groups = |db: &str| -> Vec<String> {
            let v: serde_json::Value =
                serde_json::from_str(&s.ok_on(db, &["variation", "--json"])).unwrap();
            let mut g: Vec<String> = v
                .as_array()
                .unwrap()
                .iter()
                .map(|r| {
                    let mut values: Vec<String> = r["values"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|x| x.to_string())
                        .collect();
                    values.sort();
                    format!(
                        "{} {values:?} {}",
                        r["percentile"], r["printed_variation_pct"]
                    )
                })
                .collect();
            g.sort();
            g
        };
        let want = groups(from);
        assert_eq!(want.len(), 14 * 5, "[{}]", s.name());
        assert_eq!(groups(&s.db()), want, "[{}]", s.name());
    }
}

/// `connect_timeout` bounds the whole connection set-up, as libpq's does: a server that
/// accepts the TCP connection and never answers is given up on, exit 2.
#[test]
fn connect_timeout_bounds_a_server_that_never_answers() {
    // The kernel completes the handshakes into the backlog; nothing ever reads or writes.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = silent.local_addr().unwrap().port();
    let started = std::time::Instant::now();
    let out = Command::cargo_bin("bench-db")
        .unwrap()
        .env_remove("BENCH_DB")
        .args([
            "--db",
            &format!("postgres://bench:secret@127.0.0.1:{port}/bench?connect_timeout=2"),
            "runs",
        ])
        .timeout(std::time::Duration::from_secs(30))
        .output()
        .unwrap();
    let took = started.elapsed();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(took < std::time::Duration::from_secs(10), "{took:?}");
    assert_eq!(
        err.trim(),
        format!(
            "error: cannot connect to postgres://bench:********@127.0.0.1:{port}/bench?connect_timeout=2: \
             no answer within 2 s (connect_timeout) from a server that accepted the connection"
        )
    );
    drop(silent);
}

/// Ingesting a folder again stores nothing and draws no id: the next runs get the same
/// ids on both stores (PostgreSQL's sequences give back none that a rollback undoes).
#[test]
fn an_unchanged_ingest_uses_no_ids_on_both_stores() {
    for s in Store::both() {
        let folder = fixture("real/criterion/run2");
        s.ok(&["ingest", &folder, "--no-git"]);
        let again = s.ok(&["ingest", &folder, "--no-git"]);
        assert!(
            again.ends_with("0 ingested, 2 unchanged, 0 skipped, 0 errors\n"),
            "[{}] {again}",
            s.name()
        );
        s.ok(&["ingest", &fixture("jlbh/v1-varlog.txt"), "--no-git"]);
        let v: serde_json::Value =
            serde_json::from_str(&s.ok(&["runs", "source=v1-varlog.txt", "--json"])).unwrap();
        let ids: Vec<i64> = v
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["id"].as_i64().unwrap())
            .collect();
        assert_eq!(ids, [201, 202, 203], "[{}]", s.name());
    }
}

#[test]
fn four_concurrent_ingesters_store_every_file_once() {
    let Some(base) = pg_base() else { return };
    let pg = Store::postgres(&base);
    let dir = corpus(pg.env().dir.path());
    let children: Vec<_> = (0..4)
        .map(|_| {
            std::process::Command::new(assert_cmd::cargo::cargo_bin("bench-db"))
                .args(["--db", &pg.db(), "ingest", dir.to_str().unwrap(), "--json"])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut ingested = 0;
    let mut files = None;
    for c in children {
        let out = c.wait_with_output().unwrap();
        pg.no_password(&out);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["errors"], 0);
        ingested += v["ingested"].as_u64().unwrap();
        let n = v["ingested"].as_u64().unwrap() + v["unchanged"].as_u64().unwrap();
        assert_eq!(*files.get_or_insert(n), n, "every ingester saw every file");
    }
    // Each file was stored by exactly one of them; the store equals one plain ingest.
    assert_eq!(Some(ingested), files);
    let single = Store::sqlite();
    single.ok(&["ingest", dir.to_str().unwrap()]);
    let rows = |s: &Store| {
        let mut lines: Vec<String> = s
            .ok(&["export", "--format", "csv"])
            .lines()
            .map(|l| l.split_once(',').map_or(l, |x| x.1).to_string())
            .collect();
        lines.sort();
        lines
    };
    let pg_rows = rows(&pg);
    assert!(pg_rows.len() > 100);
    assert_eq!(pg_rows, rows(&single));
}

#[test]
fn a_select_only_role_can_report_and_gate_but_not_write() {
    let Some(base) = pg_base() else { return };
    let ro_base = env_var("BENCH_DB_TEST_PG_RO");
    let owner = Store::postgres(&base);
    let seeds = corpus(owner.env().dir.path());
    owner.ok(&["ingest", seeds.to_str().unwrap()]);
    let (baseline, candidate) = two_labels();
    let ro = with_param(&ro_base, &format!("schema={}", owner.schema().name));
    // Without USAGE on the schema, its tables are out of the role's sight: the error says
    // which grant is missing, for a read and for a write.
    let grant = format!(
        "GRANT USAGE ON SCHEMA \"{s}\" TO \"bench_ro\"",
        s = owner.schema().name
    );
    for args in [vec!["runs"], vec!["ingest", &fixture("jlbh/v1-varlog.txt")]] {
        let out = owner.run_on(&ro, &args);
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!(
                "error: role \"bench_ro\" may not use schema \"{}\"",
                owner.schema().name
            )) && err.contains("lacks USAGE")
                && err.trim_end().ends_with(&grant),
            "{args:?}: {err}"
        );
    }
    // The README's statements for a read-only role.
    owner.schema().sql(&format!(
        "GRANT USAGE ON SCHEMA {s} TO bench_ro;
         GRANT SELECT ON ALL TABLES IN SCHEMA {s} TO bench_ro;",
        s = owner.schema().name
    ));
    let ro_pw = password_of(&ro_base);
    let check = |out: &Output| {
        for text in [&out.stdout, &out.stderr] {
            assert!(!String::from_utf8_lossy(text).contains(&ro_pw));
        }
    };
    let before = owner.ok(&["export", "--format", "csv"]);
    let report_dir = owner.env().dir.path().join("site");
    for args in [
        vec!["runs"],
        vec!["variation"],
        vec!["export"],
        vec!["curve"],
        vec!["report", "--out", report_dir.to_str().unwrap()],
        vec!["compare", "--baseline", baseline, "--candidate", candidate],
    ] {
        let out = owner.run_on(&ro, &args);
        check(&out);
        assert!(
            out.status.success(),
            "read-only {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert!(report_dir.join("index.html").exists());
    let out = owner.run_on(
        &ro,
        &["gate", "--baseline", baseline, "--candidate", baseline],
    );
    check(&out);
    let code = out.status.code().unwrap();
    assert!(
        [0, 1, 3].contains(&code),
        "gate: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // `rm --dry-run` only reads: the read-only role gets the owner's answer.
    for sel in ["run=2..3", "run=1..100000"] {
        let dry = ["rm", sel, "--dry-run"];
        let want = owner.ok(&dry);
        assert!(want.starts_with("would remove "), "{want}");
        let out = owner.run_on(&ro, &dry);
        check(&out);
        assert!(
            out.status.success(),
            "read-only rm --dry-run: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(String::from_utf8_lossy(&out.stdout), want);
    }
    // Writing is refused, and refused cleanly.
    let out = owner.run_on(&ro, &["rm", "run=1"]);
    check(&out);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("permission denied"));
    let out = owner.run_on(&ro, &["label", "run=1", "x"]);
    check(&out);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("permission denied"));
    assert_eq!(before, owner.ok(&["export", "--format", "csv"]));
    // A wrong password is an error that does not echo it.
    let wrong = ro.replacen(&ro_pw, "not-the-password-42", 1);
    let out = owner.run_on(&wrong, &["runs"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("not-the-password-42"), "{err}");
    assert!(err.contains("********"), "{err}");
}

/// Through PgBouncer in session mode, as a team puts one before a server that many short CI
/// jobs connect to. A pooler refuses the startup packet's `options`, so bench-db sets its
/// schema by a statement once connected: ingest (migrations, `COPY`, the second connection
/// that draws ids) and the reads work through it, and read what the server itself gives.
#[test]
fn a_session_pooler_in_front_of_the_server_answers_as_the_server() {
    let Some(base) = pg_base() else { return };
    let s = Store::postgres(&base);
    let pooled = with_param(
        &env_var("BENCH_DB_TEST_PG_POOLED"),
        &format!("schema={}", s.schema().name),
    );
    let seeds = corpus(s.env().dir.path());
    let out = s.run_on(&pooled, &["ingest", seeds.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "ingest through the pooler: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (baseline, candidate) = two_labels();
    for args in [
        vec!["runs", "--json"],
        vec!["export", "--format", "csv"],
        vec!["compare", "--baseline", baseline, "--candidate", candidate],
        vec!["history", "suite=jlbh"],
    ] {
        let direct = s.ok(&args);
        assert!(direct.len() > 100, "{args:?}: {direct}");
        assert_eq!(s.ok_on(&pooled, &args), direct, "{args:?}");
    }
    let gate = ["gate", "--baseline", baseline, "--candidate", candidate];
    let (direct, through) = (s.run(&gate), s.run_on(&pooled, &gate));
    assert_eq!(through.status.code(), direct.status.code());
    assert_eq!(through.stdout, direct.stdout);
    // The pooler's server connections keep no schema of a client before: another schema's
    // tables are not found through a connection this one used.
    let other = with_param(
        &env_var("BENCH_DB_TEST_PG_POOLED"),
        &format!("schema={}_none", s.schema().name),
    );
    let out = s.run_on(&other, &["runs"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no bench-db tables"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn tls_require_pgpass_socket_and_newer_schema() {
    let Some(base) = pg_base() else { return };
    let s = Store::postgres(&base);
    let f = fixture("jlbh");
    // TLS, verified against the cluster's own CA.
    let tls = with_param(
        &with_param(&s.db(), "sslmode=require"),
        &format!("sslrootcert={}", env_var("BENCH_DB_TEST_PG_CA")),
    );
    let out = s.run_on(&tls, &["ingest", &f]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Without the CA, the system roots do not know the server: refused.
    let out = s.run_on(&with_param(&s.db(), "sslmode=require"), &["runs"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot connect"));
    // The same database over the unix socket.
    let socket = with_param(
        &env_var("BENCH_DB_TEST_PG_SOCKET"),
        &format!("schema={}", s.schema().name),
    );
    let out = s.run_on(&socket, &["runs", "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let n = serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap();
    assert!(!n.as_array().unwrap().is_empty());
    // The password from a pgpass file (and from PGPASSWORD), not the URL.
    let pw = password_of(&base);
    let bare = s.db().replacen(&format!(":{pw}@"), "@", 1);
    let pgpass = s
        .env()
        .write("pgpass", format!("*:*:*:bench:{pw}\n").as_bytes());
    std::fs::set_permissions(&pgpass, std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
    let out = s
        .cmd_on(&bare, &["runs"])
        .env("PGPASSFILE", &pgpass)
        .output()
        .unwrap();
    s.no_password(&out);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = s
        .cmd_on(&bare, &["runs"])
        .env("PGPASSWORD", &pw)
        .output()
        .unwrap();
    s.no_password(&out);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // $BENCH_DB names the store too.
    let out = Command::cargo_bin("bench-db")
        .unwrap()
        .env("BENCH_DB", s.db())
        .args(["runs", "--help"])
        .output()
        .unwrap();
    s.no_password(&out);
    // A schema written by a newer bench-db is refused, by readers and writers, naming the
    // database as a SQLite file's refusal does (password masked).
    s.schema().sql("UPDATE bench_db_schema SET version = 99");
    let masked = s.db().replacen(&password_of(&s.db()), "********", 1);
    for args in [vec!["runs"], vec!["ingest", f.as_str()], vec!["migrate"]] {
        let out = s.run(&args);
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.starts_with(&format!(
                "error: cannot use database {masked}: the database has schema version 99, \
                 newer than this bench-db understands (9); use a newer bench-db"
            )),
            "{args:?}: {err}"
        );
    }
}

/// `migrate` upgrades a database in place: where there is none, both stores refuse alike
/// (exit 2) and PostgreSQL creates no schema or table.
#[test]
fn migrate_refuses_a_missing_database_on_both_stores() {
    for s in Store::both() {
        let out = s.run(&["migrate"]);
        assert_eq!(out.status.code(), Some(2), "[{}]", s.name());
        let err = String::from_utf8_lossy(&out.stderr);
        let shown = match &s {
            Store::Sqlite(_) => s.db(),
            Store::Postgres { password, .. } => s.db().replacen(password.as_str(), "********", 1),
        };
        assert!(
            err.starts_with(&format!("error: no database at {shown}")),
            "[{}] {err}",
            s.name()
        );
        assert!(
            err.trim_end().ends_with("; run `bench-db ingest` first"),
            "[{}] {err}",
            s.name()
        );
        match &s {
            Store::Sqlite(_) => assert!(!std::path::Path::new(&s.db()).exists()),
            Store::Postgres { .. } => {
                let base = pg_base().unwrap();
                let mut c = postgres::Client::connect(&plain(&base), postgres::NoTls).unwrap();
                let n: i64 = c
                    .query_one(
                        "SELECT count(*) FROM pg_namespace WHERE nspname = $1",
                        &[&s.schema().name],
                    )
                    .unwrap()
                    .get(0);
                assert_eq!(n, 0, "migrate created the schema");
            }
        }
    }
}

#[test]
fn many_first_opens_migrate_once() {
    let Some(base) = pg_base() else { return };
    let s = Store::postgres(&base);
    let f = fixture("jlbh");
    let children: Vec<_> = (0..6)
        .map(|_| {
            std::process::Command::new(assert_cmd::cargo::cargo_bin("bench-db"))
                .args(["--db", &s.db(), "ingest", &f])
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for c in children {
        let out = c.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // Reading a schema that does not exist is an error, not a creation.
    let other = Schema::new(&base);
    let out = s.run_on(&other.url(), &["runs"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("run `bench-db ingest` first"));
}

/// metric, percentile, t, value of one exported point.
type ExportedPoint = (String, Option<f64>, Option<f64>, Option<f64>);

/// A store on a new, empty schema, and a connection whose `search_path` is that schema
/// (to write an older schema's tables into it by hand).
fn empty_schema(base: &str) -> (Store, postgres::Client) {
    let s = Store::postgres(base);
    let name = &s.schema().name;
    let mut c = postgres::Client::connect(&plain(base), postgres::NoTls).unwrap();
    c.batch_execute(&format!("CREATE SCHEMA {name}; SET search_path TO {name};"))
        .unwrap();
    (s, c)
}

/// The PostgreSQL twin of the SQLite version-3 upgrade: the same rows, the same answers.
#[test]
fn a_version_3_postgres_schema_gets_bench_and_metric_names() {
    let Some(base) = pg_base() else { return };
    let (s, mut c) = empty_schema(&base);
    for sql in [
        include_str!("../migrations/postgres/0001_init.sql"),
        include_str!("../migrations/postgres/0002_packed_points.sql"),
        // What version 2's upgrade did after its SQL (point rows packed into blobs).
        "DROP TABLE point; DROP TABLE printed_stat;",
        include_str!("../migrations/postgres/0003_writer_keys.sql"),
        crate::common::VERSION_3_ROWS,
        "CREATE TABLE bench_db_schema (version bigint NOT NULL);
         INSERT INTO bench_db_schema VALUES (3);
         SELECT setval('source_id_seq', 2), setval('block_id_seq', 2), setval('run_id_seq', 2),
                setval('series_id_seq', 2);",
    ] {
        c.batch_execute(sql).unwrap();
    }
    let migrate: serde_json::Value = serde_json::from_str(&s.ok(&["migrate", "--json"])).unwrap();
    assert_eq!(migrate["to"], 9, "{migrate}");
    crate::common::assert_version_3_upgraded(&migrate, |sel| {
        let mut args = vec!["runs", "--json"];
        args.extend((!sel.is_empty()).then_some(sel));
        serde_json::from_str(&s.ok(&args)).unwrap()
    });
}

#[test]
fn a_version_1_postgres_schema_is_upgraded_in_place() {
    let Some(base) = pg_base() else { return };
    let (s, mut c) = empty_schema(&base);
    let name = &s.schema().name;
    // A version-1 schema as the first PostgreSQL store wrote it.
    c.batch_execute(include_str!("../migrations/postgres/0001_init.sql"))
        .unwrap();
    c.batch_execute(
        "CREATE TABLE bench_db_schema (version bigint NOT NULL);
         INSERT INTO bench_db_schema VALUES (1);
         INSERT INTO source (id, path, sha256, bytes, format, parser, ingested_at)
             VALUES (1, 'a.txt', 'abc', 10, 'jlbh', 'jlbh 1', '2026-01-01T00:00:00Z');
         INSERT INTO block (id, source_id, idx, label, first_line, last_line) VALUES (1, 1, 0, 'L', 1, 9);
         INSERT INTO printed_stat VALUES (1, 0, 'end_to_end', 50, 'variation_pct', 1.5),
                                         (1, 1, 'end_to_end', 99, 'variation_pct', NULL);
         INSERT INTO run (id, block_id, suite, label, run_index, first_line, last_line)
             VALUES (1, 1, 'jlbh', 'L', 1, 1, 9);
         INSERT INTO series (id, run_id, metric, display, unit, kind, sample_count)
             VALUES (1, 1, 'end_to_end', 'End to End', 'us', 'ladder', 100),
                    (2, 1, 'count', 'count', '', 'value', NULL),
                    (3, 1, 'rate', 'rate', '/s', 'timeseries', NULL);
         INSERT INTO point VALUES (1, 0, 50, NULL, 12.5, NULL), (1, 1, 99, NULL, 20.25, NULL),
                                  (2, 0, NULL, NULL, 7, NULL),
                                  (3, 0, NULL, 0, 100, NULL), (3, 1, NULL, 1.5, NULL, NULL);
         SELECT setval('source_id_seq', 1), setval('block_id_seq', 1), setval('run_id_seq', 1),
                setval('series_id_seq', 3);",
    )
    .unwrap();
    // A read command upgrades it (the owner may write) and reads the same numbers back.
    let points: serde_json::Value =
        serde_json::from_str(&s.ok(&["export", "--format", "json"])).unwrap();
    // The block's printed numbers are rows of their own (`stat` set); the measured points
    // are the version-1 ones.
    let got: Vec<ExportedPoint> = points
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["stat"].is_null())
        .map(|p| {
            (
                p["metric"].as_str().unwrap().to_string(),
                p["percentile"].as_f64(),
                p["t"].as_f64(),
                p["value"].as_f64(),
            )
        })
        .collect();
    let want = vec![
        ("count".to_string(), None, None, Some(7.0)),
        ("end_to_end".to_string(), Some(50.0), None, Some(12.5)),
        ("end_to_end".to_string(), Some(99.0), None, Some(20.25)),
        ("rate".to_string(), None, Some(0.0), Some(100.0)),
        ("rate".to_string(), None, Some(1.5), None),
    ];
    assert_eq!(got, want);
    let runs: serde_json::Value = serde_json::from_str(&s.ok(&["runs", "--json"])).unwrap();
    assert_eq!(runs.as_array().unwrap().len(), 1);
    let v: serde_json::Value = serde_json::from_str(&s.ok(&["variation", "--json"])).unwrap();
    assert!(
        v.to_string().contains("1.5"),
        "the printed variation survives: {v}"
    );
    let version: i64 = c
        .query_one("SELECT version FROM bench_db_schema", &[])
        .unwrap()
        .get(0);
    assert_eq!(version, 9);
    let gone: bool = c
        .query_one(
            "SELECT to_regclass('point') IS NULL AND to_regclass('printed_stat') IS NULL",
            &[],
        )
        .unwrap()
        .get(0);
    assert!(gone);
    // Version 3 dropped the foreign keys, the series' key and run_block (version 7 made
    // run_block again, for the runs of the blocks with a tag).
    let keys: i64 = c
        .query_one(
            "SELECT count(*) FROM pg_constraint WHERE (contype = 'f' OR conname = 'series_pkey')
               AND connamespace = $1::text::regnamespace",
            &[name],
        )
        .unwrap()
        .get(0);
    assert_eq!(keys, 0);
    let run_block: bool = c
        .query_one("SELECT to_regclass('run_block') IS NOT NULL", &[])
        .unwrap()
        .get(0);
    assert!(run_block);
    // And it takes new files.
    s.ok(&["ingest", &fixture("jlbh")]);
    assert!(s.ok(&["runs"]).lines().count() > 2);
}

/// A suite with more groups than a report page holds: its groups are listed on group
/// pages (each linked from the suite page and from every other group page, every group
/// listed once), every file is written through a temporary file that does not stay
/// behind, and the pages are the same on both stores.
#[test]
fn a_large_suite_is_paginated_and_written_atomically_on_both_stores() {
    let tmp = tempfile::tempdir().unwrap();
    let log = tmp.path().join("jlbh.log");
    // About 130 JLBH outputs: one group each, three pages of 50.
    let (_, outputs) = bench_db_parsers::jlbh::synthetic::generate(&log, 1).unwrap();
    assert!(outputs > 100, "{outputs}");
    let mut sites = Vec::new();
    for s in Store::both() {
        s.ok(&[
            "ingest",
            "--no-git",
            "--time",
            "2026-01-01T00:00:00Z",
            log.to_str().unwrap(),
        ]);
        let out = s.env().dir.path().join("site");
        // A page of a previous report, to be replaced whole.
        std::fs::create_dir_all(&out).unwrap();
        std::fs::write(out.join("suite-jlbh.html"), "old").unwrap();
        let doc: serde_json::Value =
            serde_json::from_str(&s.ok(&["report", "--json", "--out", out.to_str().unwrap()]))
                .unwrap();
        let mut names: Vec<String> = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        let pages = outputs.div_ceil(50);
        let mut want: Vec<String> = (1..=pages)
            .map(|k| format!("groups-jlbh-{k}.html"))
            .collect();
        want.extend(["index.html".to_string(), "suite-jlbh.html".to_string()]);
        want.sort();
        // Exactly the report's files: no temporary file left.
        assert_eq!(names, want, "[{}]", s.name());
        assert_eq!(doc["files"].as_array().unwrap().len(), want.len());
        let read = |n: &str| std::fs::read_to_string(out.join(n)).unwrap();
        let suite = read("suite-jlbh.html");
        assert!(suite.contains("All groups"), "{suite}");
        let mut listed = std::collections::BTreeMap::<String, usize>::new();
        for k in 1..=pages {
            let name = format!("groups-jlbh-{k}.html");
            assert!(
                suite.contains(&format!("href=\"{name}\"")),
                "suite page links {name}"
            );
            let page = read(&name);
            assert!(page.contains("href=\"suite-jlbh.html\""));
            for j in (1..=pages).filter(|j| *j != k) {
                assert!(page.contains(&format!("href=\"groups-jlbh-{j}.html\"")));
            }
            // The listing: one row per group, linking to its tables on the page.
            let rows = page.split("<tr><td>").skip(1);
            let mut on_page = 0;
            for row in rows {
                let Some(at) = row.find("<a href=\"#g") else {
                    continue;
                };
                let title = &row[at..];
                let title = &title[title.find('>').unwrap() + 1..title.find("</a>").unwrap()];
                let anchor = &row[at + "<a href=\"#".len()..];
                let anchor = &anchor[..anchor.find('"').unwrap()];
                assert!(page.contains(&format!("id=\"{anchor}\"")), "{anchor}");
                *listed.entry(title.to_string()).or_default() += 1;
                on_page += 1;
            }
            assert_eq!(
                on_page,
                if k < pages {
                    50
                } else {
                    outputs - 50 * (pages - 1)
                }
            );
        }
        assert_eq!(listed.len(), outputs, "[{}] every group listed", s.name());
        assert!(
            listed.values().all(|n| *n == 1),
            "[{}] listed once",
            s.name()
        );
        // Titled by the configuration, then the output's own title.
        assert!(listed.contains_key(
            "[co_correction=true distribution=NORMAL interval_us=1 target_throughput=1000000] · Benchmark 0, 1,000,000 msg/s"
        ));
        // Charts stay on the suite page, for its most recent groups only.
        assert!(!read("groups-jlbh-1.html").contains("<svg"));
        assert!(suite.contains("older groups are not drawn here"));
        sites.push(
            (1..=pages)
                .map(|k| read(&format!("groups-jlbh-{k}.html")))
                .collect::<Vec<_>>(),
        );
        // A group page that cannot be written (a folder holds its name, as a full disk
        // would refuse it) stops the report with that page's error, not the pages'
        // drawing's, and no index links to what was not written.
        let bad = s.env().dir.path().join("bad");
        std::fs::create_dir_all(bad.join("groups-jlbh-2.html/x")).unwrap();
        let run = s.run(&["report", "--out", bad.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "[{}] {err}", s.name());
        assert!(err.contains("groups-jlbh-2.html"), "[{}] {err}", s.name());
        assert!(!bad.join("index.html").exists(), "[{}]", s.name());
    }
    if let [sqlite, pg] = &sites[..] {
        assert!(
            sqlite == pg,
            "the group pages differ between SQLite and PostgreSQL"
        );
    }
}

/// Streams that go block by block rely on a block's runs having consecutive ids; when
/// they do not (interleaved here by hand, as concurrent PostgreSQL ingests may leave
/// them), `variation` and `history` still see every block whole, on both stores.
#[test]
fn interleaved_run_ids_still_give_whole_groups() {
    let tmp = tempfile::tempdir().unwrap();
    let log = tmp.path().join("jlbh.log");
    bench_db_parsers::jlbh::synthetic::generate(&log, 1).unwrap();
    for s in Store::both() {
        s.ok(&[
            "ingest",
            "--no-git",
            "--tag",
            "commit=abc",
            log.to_str().unwrap(),
        ]);
        let before = s.ok(&["variation", "--json"]);
        let history_before = s.ok(&["history", "--json"]);
        // Swap the ids of run 3 (block 1) and run 8 (block 2).
        let swap =
            "UPDATE run SET id = -3 WHERE id = 3; UPDATE series SET run_id = -3 WHERE run_id = 3;
             UPDATE run SET id = 3 WHERE id = 8; UPDATE series SET run_id = 3 WHERE run_id = 8;
             UPDATE run SET id = 8 WHERE id = -3; UPDATE series SET run_id = 8 WHERE run_id = -3;";
        match &s {
            Store::Sqlite(env) => rusqlite::Connection::open(env.db())
                .unwrap()
                .execute_batch(&format!("PRAGMA foreign_keys = OFF; {swap}"))
                .unwrap(),
            Store::Postgres { schema, .. } => schema.sql(swap),
        }
        let rows: serde_json::Value =
            serde_json::from_str(&s.ok(&["variation", "--json"])).unwrap();
        let rows = rows.as_array().unwrap();
        assert!(!rows.is_empty(), "{}", s.name());
        // Every row still has one value per run of its five-run block.
        assert!(
            rows.iter()
                .all(|r| r["values"].as_array().unwrap().len() == 5),
            "{}: {rows:?}",
            s.name()
        );
        let before: serde_json::Value = serde_json::from_str(&before).unwrap();
        assert_eq!(rows.len(), before.as_array().unwrap().len(), "{}", s.name());
        // The history's medians are over the same runs as before the swap.
        assert_eq!(s.ok(&["history", "--json"]), history_before, "{}", s.name());
    }
}

/// `source=` (a suffix of whole path components) selects the same runs in `runs`,
/// `export`, `label`, `copy` and `calibrate`, on both stores.
#[test]
fn source_terms_mean_the_same_in_every_command() {
    for s in Store::both() {
        let dir = fixture("jlbh");
        s.ok(&["ingest", "--no-git", &dir]);
        let all: serde_json::Value = serde_json::from_str(&s.ok(&["runs", "--json"])).unwrap();
        let all = all.as_array().unwrap();
        let path = all[0]["source"].as_str().unwrap().to_string();
        let name = Path::new(&path).file_name().unwrap().to_str().unwrap();
        let sel = format!("source={name}");
        let want: Vec<i64> = all
            .iter()
            .filter(|r| r["source"] == path.as_str())
            .map(|r| r["id"].as_i64().unwrap())
            .collect();
        assert!(!want.is_empty() && want.len() < all.len(), "{path}");
        let listed: serde_json::Value =
            serde_json::from_str(&s.ok(&["runs", &sel, "--json"])).unwrap();
        let listed: Vec<i64> = listed
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["id"].as_i64().unwrap())
            .collect();
        assert_eq!(listed, want, "[{}] runs {sel}", s.name());
        // export: one row per point, of those runs only.
        let csv = s.ok(&["export", &sel]);
        let mut exported: Vec<i64> = csv
            .lines()
            .skip(1)
            .map(|l| l.split(',').next().unwrap().parse().unwrap())
            .collect();
        exported.dedup();
        assert_eq!(exported, want, "[{}] export {sel}", s.name());
        // copy: the selected runs land in a fresh SQLite file.
        let copied = s.env().dir.path().join("copied.db");
        let copied = copied.display().to_string();
        s.ok(&["copy", "--from", &s.db(), "--to", &copied, &sel]);
        let there: serde_json::Value =
            serde_json::from_str(&s.ok_on(&copied, &["runs", "--json"])).unwrap();
        assert_eq!(
            there.as_array().unwrap().len(),
            want.len(),
            "[{}] copy",
            s.name()
        );
        // label: exactly those runs are relabelled.
        let out = s.ok(&["label", &sel, "picked"]);
        let n = want.len();
        assert!(
            out.contains(&format!("relabelled {n} run")),
            "[{}] {out}",
            s.name()
        );
    }
}

/// The same bytes under other metadata (commit, branch, `--tag`, `--label`, `--suite`) are
/// new runs; under the same metadata they are `unchanged`, even after a `touch`.
#[test]
fn content_identity_includes_the_metadata_given() {
    for s in Store::both() {
        let file = s.env().dir.path().join("run.txt");
        std::fs::copy(fixture("jlbh/v10-current.txt"), &file).unwrap();
        let f = file.display().to_string();
        let status = |args: &[&str]| -> String {
            let mut all = vec!["ingest", "--no-git", "--json"];
            all.extend_from_slice(args);
            all.push(&f);
            let v: serde_json::Value = serde_json::from_str(&s.ok(&all)).unwrap();
            v["files"][0]["status"].as_str().unwrap().to_string()
        };
        let runs = || -> usize {
            let v: serde_json::Value = serde_json::from_str(&s.ok(&["runs", "--json"])).unwrap();
            v.as_array().unwrap().len()
        };
        assert_eq!(
            status(&["--tag", "commit=aaa"]),
            "ingested",
            "[{}]",
            s.name()
        );
        let one = runs();
        assert_eq!(
            status(&["--tag", "commit=aaa"]),
            "unchanged",
            "[{}]",
            s.name()
        );
        // The file's time is not part of the identity.
        let f2 = std::fs::File::options().append(true).open(&file).unwrap();
        f2.set_modified(std::time::SystemTime::now() + std::time::Duration::from_secs(60))
            .unwrap();
        assert_eq!(
            status(&["--tag", "commit=aaa"]),
            "unchanged",
            "[{}]",
            s.name()
        );
        assert_eq!(runs(), one);
        assert_eq!(
            status(&["--tag", "commit=bbb"]),
            "ingested",
            "[{}]",
            s.name()
        );
        assert_eq!(status(&["--tag", "commit=bbb", "--label", "x"]), "ingested");
        assert_eq!(
            status(&["--tag", "commit=bbb", "--suite", "other"]),
            "ingested"
        );
        assert_eq!(runs(), 4 * one, "[{}]", s.name());
        let v: serde_json::Value =
            serde_json::from_str(&s.ok(&["runs", "--json", "tag.commit=bbb;label=x"])).unwrap();
        assert_eq!(v.as_array().unwrap().len(), one, "[{}]", s.name());
    }
}

/// A hyperfine scan stored before schema 9 kept its values as configuration
/// (`sleep 0.01 [n=1]`, apart from the terminal output's `sleep 0.01`). The upgrade leaves
/// them params where each command ran with one set of values (fixtures/real/hyperfine/
/// scan.json), and keeps them where one name ran with two (`--command-name run` over
/// `-P n 1 2`, written here), on both stores.
#[test]
fn a_scan_stored_before_version_9_becomes_one_benchmark_per_command() {
    for s in Store::both() {
        let named = s.env().dir.path().join("named.json");
        let result = |n: u32| {
            format!(
                r#"{{"command": "run", "mean": 0.{n}, "times": [0.{n}, 0.{n}], "exit_codes": [0, 0], "parameters": {{"n": "{n}"}}}}"#
            )
        };
        std::fs::write(
            &named,
            format!(r#"{{"results": [{}, {}]}}"#, result(1), result(2)),
        )
        .unwrap();
        s.ok(&[
            "ingest",
            &fixture("real/hyperfine/scan.json"),
            named.to_str().unwrap(),
        ]);
        // What an earlier build stored, at the version it stored it under.
        let before = "UPDATE run SET config = '[\"n\"]' WHERE bench LIKE 'sleep%'";
        match &s {
            Store::Sqlite(env) => {
                let c = rusqlite::Connection::open(env.db()).unwrap();
                c.execute_batch(before).unwrap();
                c.pragma_update(None, "user_version", 8).unwrap();
            }
            Store::Postgres { schema, .. } => {
                schema.sql(&format!("{before}; UPDATE bench_db_schema SET version = 8"));
            }
        }
        let configs = |s: &Store| -> Vec<(String, serde_json::Value)> {
            let runs: serde_json::Value = serde_json::from_str(&s.ok(&["runs", "--json"])).unwrap();
            let mut v: Vec<(String, serde_json::Value)> = runs
                .as_array()
                .unwrap()
                .iter()
                .map(|r| {
                    (
                        r["bench"].as_str().unwrap().to_string(),
                        r["config"].clone(),
                    )
                })
                .collect();
            v.dedup();
            v
        };
        let migrate: serde_json::Value =
            serde_json::from_str(&s.ok(&["migrate", "--json"])).unwrap();
        assert_eq!(
            (&migrate["from"], &migrate["to"]),
            (&8.into(), &9.into()),
            "{migrate}"
        );
        let empty = serde_json::json!({});
        assert_eq!(
            configs(&s),
            [
                ("sleep 0.01".to_string(), empty.clone()),
                ("sleep 0.02".to_string(), empty.clone()),
                ("sleep 0.03".to_string(), empty),
                ("run".to_string(), serde_json::json!({"n": 1.0})),
                ("run".to_string(), serde_json::json!({"n": 2.0})),
            ],
            "[{}]",
            s.name()
        );
        // The values stay with the runs.
        let runs: serde_json::Value = serde_json::from_str(&s.ok(&["runs", "--json"])).unwrap();
        assert_eq!(runs[5]["params"]["n"], 2.0, "[{}]", s.name());
    }
}
