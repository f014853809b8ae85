//! The store under bad numbers and damage, on both stores: a number that is not finite is
//! dropped at ingest with a warning and never poisons a read; a stored row that does not
//! decode (bad JSON, a flipped bit in a packed blob) is skipped with a warning naming its
//! run, never read as other numbers; `check` finds the damage; a corrupted SQLite file is
//! called corrupt; `rm` takes runs out again.
//!
//! PostgreSQL comes from `BENCH_DB_TEST_PG` as in `stores.rs` (skipped locally without it,
//! required when `CI` is set); each test works in a schema of its own, dropped at the end.

use crate::common::{Env, fixture, pg_base, plain};
use assert_cmd::Command;
use std::process::Output;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A run of 400 nines: a number every parser reads as infinity.
fn huge() -> String {
    "9".repeat(400)
}

/// One store under test, in a temp dir of its own (inputs, reports, copies).
enum Store {
    Sqlite(Env),
    Postgres {
        env: Env,
        base: String,
        schema: String,
    },
}

impl Drop for Store {
    fn drop(&mut self) {
        if let Store::Postgres { base, schema, .. } = self
            && let Ok(mut c) = postgres::Client::connect(&plain(base), postgres::NoTls)
        {
            let _ = c.batch_execute(&format!("DROP SCHEMA IF EXISTS {schema} CASCADE"));
        }
    }
}

impl Store {
    /// A SQLite store and, when the cluster is there, a PostgreSQL one.
    fn both() -> Vec<Store> {
        let mut v = vec![Store::Sqlite(Env::new())];
        if let Some(base) = pg_base() {
            static N: AtomicUsize = AtomicUsize::new(0);
            let schema = format!(
                "rb{}_{}",
                std::process::id(),
                N.fetch_add(1, Ordering::Relaxed)
            );
            v.push(Store::Postgres {
                env: Env::new(),
                base,
                schema,
            });
        }
        v
    }

    fn env(&self) -> &Env {
        match self {
            Store::Sqlite(e) | Store::Postgres { env: e, .. } => e,
        }
    }

    fn name(&self) -> &'static str {
        match self {
            Store::Sqlite(_) => "sqlite",
            Store::Postgres { .. } => "postgres",
        }
    }

    fn db(&self) -> String {
        match self {
            Store::Sqlite(e) => e.db().display().to_string(),
            Store::Postgres { base, schema, .. } => {
                let sep = if base.contains('?') { '&' } else { '?' };
                format!("{base}{sep}schema={schema}")
            }
        }
    }

    fn cmd(&self, args: &[&str]) -> Command {
        let mut c = Command::cargo_bin("bench-db").expect("binary");
        c.current_dir(self.env().dir.path())
            .env_remove("BENCH_DB")
            .arg("--db")
            .arg(self.db())
            .args(args);
        c
    }

    fn run(&self, args: &[&str]) -> Output {
        self.cmd(args).output().expect("run")
    }

    /// Runs a command that must succeed; returns (stdout, stderr).
    fn ok(&self, args: &[&str]) -> (String, String) {
        let out = self.run(args);
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(
            out.status.success(),
            "[{}] bench-db {args:?} failed ({:?}): {err}",
            self.name(),
            out.status.code(),
        );
        (String::from_utf8(out.stdout).expect("utf-8"), err)
    }

    fn json(&self, args: &[&str]) -> serde_json::Value {
        let (out, _) = self.ok(args);
        serde_json::from_str(&out)
            .unwrap_or_else(|e| panic!("[{}] {args:?}: {e}: {out}", self.name()))
    }

    /// Runs SQL against the store, as its owner.
    fn sql(&self, sql: &str) {
        match self {
            Store::Sqlite(e) => rusqlite::Connection::open(e.db())
                .unwrap()
                .execute_batch(sql)
                .unwrap(),
            Store::Postgres { base, schema, .. } => {
                let mut c = postgres::Client::connect(&plain(base), postgres::NoTls).unwrap();
                c.batch_execute(&format!("SET search_path TO {schema}; {sql}"))
                    .unwrap();
            }
        }
    }

    /// Flips one bit of the packed points of the first ladder series: the low bit
    /// of its last number's last byte, so the bytes still read as numbers, other ones.
    /// Returns the id of the run.
    fn flip_a_bit(&self) -> i64 {
        let pick = "SELECT id, run_id, length(points) FROM series WHERE kind = 'ladder' \
                    ORDER BY id LIMIT 1";
        match self {
            Store::Sqlite(e) => {
                let c = rusqlite::Connection::open(e.db()).unwrap();
                let (id, run, len): (i64, i64, i64) = c
                    .query_row(pick, [], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
                    .unwrap();
                let mut blob: Vec<u8> = c
                    .query_row("SELECT points FROM series WHERE id = ?1", [id], |r| {
                        r.get(0)
                    })
                    .unwrap();
                blob[len as usize - 5] ^= 1;
                c.execute(
                    "UPDATE series SET points = ?2 WHERE id = ?1",
                    rusqlite::params![id, blob],
                )
                .unwrap();
                run
            }
            Store::Postgres { base, schema, .. } => {
                let mut c = postgres::Client::connect(&plain(base), postgres::NoTls).unwrap();
                c.batch_execute(&format!("SET search_path TO {schema}"))
                    .unwrap();
                let row = c.query_one(pick, &[]).unwrap();
                let (id, run, len): (i64, i64, i32) = (row.get(0), row.get(1), row.get(2));
                c.execute(
                    "UPDATE series SET points = set_byte(points, $2, get_byte(points, $2) # 1) \
                     WHERE id = $1",
                    &[&id, &(len - 5)],
                )
                .unwrap();
                run
            }
        }
    }
}

/// A Criterion terminal output whose outlier count has 400 digits (a stats value that
/// overflows), and a JMH JSON result (a real one, cut to two benchmarks) whose `@Param`
/// is `1e400` (a numeric parameter that overflows).
fn overflowing_inputs(env: &Env) -> (String, String) {
    let crit = std::fs::read_to_string(fixture("criterion/long-name-and-inline-change.txt"))
        .unwrap()
        .replace("Found 3 outliers", &format!("Found {} outliers", huge()));
    let mut jmh: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(fixture("real/jmh/jcasbin-jmh-result-0b7774d.json")).unwrap(),
    )
    .unwrap();
    let jmh = jmh.as_array_mut().unwrap();
    jmh.truncate(2);
    jmh[0]["params"] = serde_json::json!({ "size": "1e400" });
    (
        env.write("crit.txt", crit.as_bytes()),
        env.write("jmh.json", serde_json::to_string(&jmh).unwrap().as_bytes()),
    )
}

#[test]
fn a_number_that_overflows_is_dropped_at_ingest_and_every_command_reads_on() {
    for s in Store::both() {
        let (crit, jmh) = overflowing_inputs(s.env());
        let (_, err) = s.ok(&["ingest", "--no-git", &crit, &jmh]);
        assert!(
            err.contains("crit.txt:3: criterion: numbers that are not finite (NaN, infinite) refused: run 1 time outliers"),
            "[{}] {err}",
            s.name()
        );
        assert!(
            err.contains("jmh.json:")
                && err.contains("refused: run 1 param size, run 2 param size"),
            "[{}] {err}",
            s.name()
        );
        let runs = s.json(&["runs", "--json"]);
        let runs = runs.as_array().unwrap();
        assert!(runs.len() >= 3, "[{}] {runs:?}", s.name());
        let crit_run = runs.iter().find(|r| r["format"] == "criterion").unwrap();
        // The other printed numbers of the series are kept.
        assert!(crit_run["stats"]["time"].get("outliers").is_none());
        assert!(crit_run["stats"]["time"].as_object().unwrap().len() >= 2);
        let jmh_run = runs.iter().find(|r| r["format"] == "jmh").unwrap();
        assert!(jmh_run["params"].get("size").is_none(), "{jmh_run}");
        let (csv, _) = s.ok(&["export"]);
        assert!(csv.lines().count() > 3, "[{}] {csv}", s.name());
        s.ok(&[
            "compare",
            "--baseline",
            "suite=criterion",
            "--candidate",
            "suite=criterion",
        ]);
        s.ok(&["history"]);
        s.ok(&["report", "--out", "site"]);
        let copy = s.env().dir.path().join("copy.db").display().to_string();
        let copied = s.json(&["copy", "--from", &s.db(), "--to", &copy, "--json"]);
        assert_eq!(copied["runs"].as_u64(), Some(runs.len() as u64), "{copied}");
        assert_eq!(s.json(&["check", "--json"])["ok"], true);
    }
}

/// Ingests three JMH runs and an HdrHistogram percentile table (one ladder, stored as a
/// packed blob).
fn some_runs(s: &Store) {
    s.ok(&[
        "ingest",
        "--no-git",
        &fixture("jmh/gc-profiler-and-single-shot.txt"),
        &fixture("hdr-percentiles/c-wrk2.txt"),
    ]);
}

#[test]
fn a_row_that_does_not_decode_is_skipped_with_a_warning_naming_its_run() {
    for s in Store::both() {
        some_runs(&s);
        let (before, _) = s.ok(&["export"]);
        s.sql(
            "UPDATE series SET stats = '{\"score\": null}' WHERE run_id = 1 AND metric = 'thrpt'",
        );
        let flipped = s.flip_a_bit();
        assert_eq!(flipped, 4, "[{}] the ladder is the fourth run", s.name());
        for args in [
            &["runs"][..],
            &["runs", "--json"],
            &["export"],
            &["export", "--json"],
        ] {
            let (out, err) = s.ok(args);
            assert!(
                err.contains("warning: run 1 (source ")
                    && err.contains("damaged: stats of series")
                    && err.contains("(thrpt) do not decode"),
                "[{}] {args:?}: {err}",
                s.name()
            );
            assert!(
                err.contains("warning: run 4 (source ") && err.contains("checksum mismatch"),
                "[{}] {args:?}: {err}",
                s.name()
            );
            if args.contains(&"--json") {
                serde_json::from_str::<serde_json::Value>(&out).expect("valid JSON");
            }
        }
        let ids: Vec<i64> = s
            .json(&["runs", "--json"])
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["id"].as_i64().unwrap())
            .collect();
        assert_eq!(ids, [2, 3], "[{}]", s.name());
        let (_, err) = s.ok(&["compare", "--baseline", "run=2", "--candidate", "run=3+4"]);
        assert!(err.contains("checksum"), "[{}] {err}", s.name());
        // Every exported row is one exported before the damage: the damaged runs' rows are
        // missing, never printed with other numbers.
        let (after, _) = s.ok(&["export"]);
        let kept: Vec<&str> = before
            .lines()
            .filter(|l| l.starts_with("2,") || l.starts_with("3,") || l.starts_with("run_id"))
            .collect();
        assert_eq!(after.lines().collect::<Vec<_>>(), kept, "[{}]", s.name());
    }
}

#[test]
fn a_changed_single_value_or_statistic_is_caught_by_the_row_checksum() {
    for s in Store::both() {
        some_runs(&s);
        // JMH run 2's single value (SQLite keeps it as a plain REAL), and a printed
        // statistic of the ladder that still parses.
        s.sql("UPDATE series SET value = value + 1 WHERE run_id = 2 AND kind = 'value'");
        s.sql("UPDATE series SET stats = replace(stats, '.', '9') WHERE run_id = 4 AND kind = 'ladder'");
        let (out, err) = s.ok(&["runs", "--json"]);
        let runs: serde_json::Value = serde_json::from_str(&out).unwrap();
        let ids: Vec<i64> = runs
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["id"].as_i64().unwrap())
            .collect();
        assert_eq!(ids, [1, 3], "[{}] {err}", s.name());
        for run in [2, 4] {
            assert!(
                err.contains(&format!("warning: run {run} (source "))
                    && err.contains("checksum mismatch"),
                "[{}] {err}",
                s.name()
            );
        }
        let out = s.run(&["check"]);
        assert_eq!(out.status.code(), Some(1), "[{}]", s.name());
    }
}

#[test]
fn check_passes_a_sound_store_and_names_each_damaged_run() {
    for s in Store::both() {
        some_runs(&s);
        let (text, _) = s.ok(&["check"]);
        assert!(
            text.contains("4 runs and 7 series checked; no damage found"),
            "[{}] {text}",
            s.name()
        );
        let sound = s.json(&["check", "--json"]);
        assert_eq!(sound["ok"], true);
        assert_eq!(sound["runs_checked"], 4);
        assert_eq!(sound["damaged"], serde_json::json!([]));

        s.sql("UPDATE run SET params = '{\"size\": ' WHERE id = 2");
        let run = s.flip_a_bit();
        let out = s.run(&["check", "--json"]);
        assert_eq!(out.status.code(), Some(1), "[{}]", s.name());
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(doc["ok"], false);
        assert_eq!(doc["runs_checked"], 4);
        let damaged = doc["damaged"].as_array().unwrap();
        assert_eq!(damaged.len(), 2, "[{}] {doc}", s.name());
        assert_eq!(damaged[0]["run"], 2);
        assert!(
            damaged[0]["source"]
                .as_str()
                .unwrap()
                .ends_with("gc-profiler-and-single-shot.txt")
        );
        assert!(
            damaged[0]["what"]
                .as_str()
                .unwrap()
                .starts_with("params do not decode")
        );
        assert_eq!(damaged[1]["run"], run);
        assert!(
            damaged[1]["what"].as_str().unwrap().contains("checksum"),
            "{doc}"
        );
        let text = s.run(&["check"]);
        assert_eq!(text.status.code(), Some(1));
        let text = String::from_utf8(text.stdout).unwrap();
        assert!(text.contains(&format!("run {run} (source ")), "{text}");
        assert!(text.contains("2 damaged"), "{text}");

        // A damaged run can still be removed, and then the store is sound again.
        s.ok(&["rm", &format!("run=2+{run}")]);
        assert_eq!(s.json(&["check", "--json"])["ok"], true, "[{}]", s.name());
    }
}

#[test]
fn a_corrupted_sqlite_file_is_called_corrupt() {
    let env = Env::new();
    env.ok(&[
        "ingest",
        "--no-git",
        &fixture("jmh/gc-profiler-and-single-shot.txt"),
    ]);
    let mut bytes = std::fs::read(env.db()).unwrap();
    // The header's page size and format bytes.
    bytes[16..24].copy_from_slice(&[0xff, 0xfe, 0x00, 0x13, 0x37, 0x99, 0x42, 0x01]);
    std::fs::write(env.db(), &bytes).unwrap();
    for args in [
        &["runs"][..],
        &["export"],
        &["check"],
        &["ingest", &fixture("k6/summary-export.json")],
    ] {
        let out = env.cmd(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!("the database {} is corrupt", env.db().display()))
                && err.contains("restore a copy of the file"),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn rm_removes_the_selected_runs_and_the_sources_left_without_any() {
    for s in Store::both() {
        some_runs(&s);
        let jmh = fixture("jmh/gc-profiler-and-single-shot.txt");
        // Refused: an empty selector would remove everything.
        let out = s.run(&["rm", ""]);
        assert_eq!(out.status.code(), Some(2));
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("is empty and would remove every run")
        );

        // A dry run answers what a removal would do, and removes nothing.
        let (text, _) = s.ok(&["rm", "source=gc-profiler-and-single-shot.txt", "--dry-run"]);
        assert_eq!(
            text,
            format!(
                "would remove 3 runs (ids 1..3) and 1 source left without runs:\n  {jmh}\n\
                 nothing was removed (--dry-run)\n"
            ),
            "[{}]",
            s.name()
        );
        assert_eq!(s.json(&["runs", "--json"]).as_array().unwrap().len(), 4);

        // One run of a source: the source keeps its other runs.
        let one = s.json(&["rm", "run=2", "--json"]);
        assert_eq!(
            one,
            serde_json::json!({"schema": 1, "dry_run": false, "runs": 1, "run_ids": [2], "sources_removed": []}),
            "[{}]",
            s.name()
        );
        // Ingesting it again stores nothing: the removed run stays removed.
        let again = s.json(&["ingest", "--no-git", &jmh, "--json"]);
        assert_eq!(again["ingested"], 0, "[{}] {again}", s.name());
        assert_eq!(again["unchanged"], 1, "[{}] {again}", s.name());
        assert_eq!(s.json(&["runs", "--json"]).as_array().unwrap().len(), 3);
        let all = s.json(&["rm", "source=gc-profiler-and-single-shot.txt", "--json"]);
        assert_eq!(
            all,
            serde_json::json!({"schema": 1, "dry_run": false, "runs": 2, "run_ids": [1, 3], "sources_removed": [jmh]}),
            "[{}]",
            s.name()
        );
        let left: Vec<i64> = s
            .json(&["runs", "--json"])
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["id"].as_i64().unwrap())
            .collect();
        assert_eq!(left, [4], "[{}]", s.name());
        // Nothing of the source is left: ingesting it again stores it again.
        let again = s.json(&["ingest", "--no-git", &jmh, "--json"]);
        assert_eq!(again["ingested"], 1, "[{}] {again}", s.name());
        assert_eq!(s.json(&["runs", "--json"]).as_array().unwrap().len(), 4);
        let (text, _) = s.ok(&["check"]);
        assert!(text.contains("no damage found"), "[{}] {text}", s.name());

        // A selector that selects nothing is an error, as for the other commands.
        let out = s.run(&["rm", "suite=nosuch"]);
        assert_eq!(out.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&out.stderr).contains("selects no run"));
    }
}

#[test]
fn rm_and_check_have_examples_and_their_json_in_help() {
    let env = Env::new();
    for (sub, json) in [("rm", "\"sources_removed\""), ("check", "\"runs_checked\"")] {
        let help = env.ok(&[sub, "--help"]);
        assert!(help.contains("EXAMPLES:\n  bench-db "), "{help}");
        assert!(help.contains(json), "{help}");
    }
}
