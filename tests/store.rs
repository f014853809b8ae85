//! The store through the binary: concurrent processes, closed pipes, standard input,
//! missing, foreign and newer databases, walk errors, the version-1 upgrade.

use crate::common::{Env, fixture};
use assert_cmd::Command;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Child, Stdio};

/// `bench-db --db DB ARGS…` as a child process with its output captured.
fn spawn(env: &Env, args: &[&str]) -> Child {
    let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("bench-db"));
    c.current_dir(env.dir.path())
        .env_remove("BENCH_DB")
        .arg("--db")
        .arg(env.db())
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    c.spawn().expect("spawn")
}

fn finish(child: Child) -> (i32, String, String) {
    let out = child.wait_with_output().expect("wait");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// How many runs and sources the database holds, counted by the binary.
fn counts(env: &Env) -> (usize, usize) {
    let runs = env.json(&["runs", "--json"]);
    let runs = runs.as_array().unwrap();
    let mut sources: Vec<&str> = runs.iter().map(|r| r["source"].as_str().unwrap()).collect();
    sources.sort();
    sources.dedup();
    (runs.len(), sources.len())
}

/// Copies `n` distinct small JLBH logs into `dir` (each a fixture plus a unique line).
fn small_logs(env: &Env, dir: &str, n: usize) -> Vec<String> {
    let base = std::fs::read(fixture("jlbh/two-outputs.txt")).unwrap();
    (0..n)
        .map(|i| {
            let mut text = format!("copy {i}\n").into_bytes();
            text.extend_from_slice(&base);
            env.write(&format!("{dir}/log{i:02}.txt"), &text)
        })
        .collect()
}

/// Runs of `jlbh/two-outputs.txt`.
const RUNS_PER_LOG: usize = 6;

#[test]
fn four_ingesters_on_a_new_database_all_succeed() {
    let env = Env::new();
    let logs = small_logs(&env, "logs", 8);
    let children: Vec<Child> = logs
        .chunks(2)
        .map(|pair| spawn(&env, &["ingest", &pair[0], &pair[1]]))
        .collect();
    for child in children {
        let (code, out, err) = finish(child);
        assert_eq!(code, 0, "{out}{err}");
        assert!(out.contains("2 ingested, 0 unchanged"), "{out}");
    }
    assert_eq!(counts(&env), (8 * RUNS_PER_LOG, 8));
}

#[test]
fn four_ingesters_on_one_folder_store_each_file_once() {
    let env = Env::new();
    small_logs(&env, "logs", 6);
    let folder = env.dir.path().join("logs").display().to_string();
    let children: Vec<Child> = (0..4)
        .map(|_| spawn(&env, &["ingest", &folder, "--json"]))
        .collect();
    let mut ingested = 0;
    for child in children {
        let (code, out, err) = finish(child);
        assert_eq!(code, 0, "{out}{err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["errors"], 0);
        assert_eq!(
            v["ingested"].as_u64().unwrap() + v["unchanged"].as_u64().unwrap(),
            6
        );
        ingested += v["ingested"].as_u64().unwrap();
    }
    assert_eq!(ingested, 6, "each file is ingested by exactly one process");
    assert_eq!(counts(&env), (6 * RUNS_PER_LOG, 6));
}

#[test]
fn ingest_beside_readers_loses_nothing() {
    let env = Env::new();
    let logs = small_logs(&env, "logs", 1);
    env.ok(&["ingest", &logs[0]]);
    let big = env.dir.path().join("big.log");
    bench_db_parsers::jlbh::synthetic::generate(&big, 2).unwrap();
    let ingest = spawn(&env, &["ingest", big.to_str().unwrap(), "--json"]);
    let readers: Vec<Child> = (0..3)
        .flat_map(|_| {
            [
                spawn(&env, &["runs"]),
                spawn(&env, &["export"]),
                spawn(&env, &["report", "label=none", "--out", "r"]),
            ]
        })
        .collect();
    for r in readers {
        let (code, out, err) = finish(r);
        assert_eq!(code, 0, "{out}{err}");
    }
    let (code, out, err) = finish(ingest);
    assert_eq!(code, 0, "{out}{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["ingested"], 1);
    let runs = v["files"][0]["runs"].as_u64().unwrap() as usize;
    assert!(runs > 1000, "{runs}");
    assert_eq!(counts(&env), (RUNS_PER_LOG + runs, 2));
}

#[test]
fn a_walk_leaves_out_the_database_itself() {
    let env = Env::new();
    small_logs(&env, "logs", 1);
    let db = env.dir.path().join("logs/runs.db");
    let ingest = || {
        let out = Command::cargo_bin("bench-db")
            .unwrap()
            .arg("--db")
            .arg(&db)
            .args(["ingest", "logs", "--json"])
            .current_dir(env.dir.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    assert_eq!(ingest()["ingested"], 1);
    // Kept open by a reader, so that its -wal and -shm files exist during the walk.
    let reader = rusqlite::Connection::open(&db).unwrap();
    let _: i64 = reader
        .query_row("SELECT count(*) FROM run", [], |r| r.get(0))
        .unwrap();
    assert!(Path::new(&format!("{}-wal", db.display())).exists());
    let v = ingest();
    let paths: Vec<&str> = v["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["logs/log00.txt"]);
    assert_eq!(v["unchanged"], 1);
}

#[test]
fn closed_stdout_never_loses_files() {
    let env = Env::new();
    small_logs(&env, "logs", 30);
    let folder = env.dir.path().join("logs").display().to_string();
    let mut child = spawn(&env, &["ingest", &folder]);
    // Read one line, then close the pipe while the ingest goes on.
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.starts_with("ingested"), "{first}");
    let (code, _, err) = finish(child);
    assert!(code == 0 || code == 141, "exit {code}: {err}");
    assert_eq!(counts(&env), (30 * RUNS_PER_LOG, 30));
}

#[test]
fn export_into_a_closed_pipe_exits_0() {
    let env = Env::new();
    let big = env.dir.path().join("big.log");
    bench_db_parsers::jlbh::synthetic::generate(&big, 1).unwrap();
    env.ok(&["ingest", big.to_str().unwrap()]);
    for format in ["csv", "json"] {
        let mut child = spawn(&env, &["export", "--format", format]);
        let mut head = [0u8; 100];
        child
            .stdout
            .as_mut()
            .unwrap()
            .read_exact(&mut head)
            .unwrap();
        drop(child.stdout.take());
        let (code, _, err) = finish(child);
        assert_eq!(code, 0, "{format}: {err}");
        assert!(err.is_empty(), "{err}");
    }
}

#[test]
fn stdin_is_read_once_and_named() {
    let env = Env::new();
    let text = std::fs::read(fixture("jlbh/two-outputs.txt")).unwrap();
    let out = env
        .cmd(&["ingest", "-", "--json"])
        .write_stdin(text.clone())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["files"][0]["path"], "-");
    assert_eq!(v["files"][0]["format"], "jlbh");
    assert_eq!(v["files"][0]["runs"], RUNS_PER_LOG);
    // The same content again, under a name: unchanged.
    let out = env
        .cmd(&["ingest", "-", "--name", "nightly/run.txt"])
        .write_stdin(text)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).lines().next().unwrap(),
        "unchanged nightly/run.txt (jlbh)"
    );
    let runs = env.json(&["runs", "--json", "source=-"]);
    assert_eq!(runs.as_array().unwrap().len(), RUNS_PER_LOG);
    env.cmd(&["ingest", "-", "-"]).assert().code(2);
    // A pipe given by name is read like a file.
    let other = std::fs::read(fixture("jlbh/v1-varlog.txt")).unwrap();
    let out = env
        .cmd(&["ingest", "/dev/stdin"])
        .write_stdin(other)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("ingested  /dev/stdin (jlbh, "), "{text}");
}

#[test]
fn read_commands_refuse_a_missing_database_and_create_nothing() {
    let env = Env::new();
    for args in [
        &["runs"][..],
        &["export"],
        &["variation"],
        &["report", "--out", "r"],
        &["label", "run=1", "x"],
    ] {
        let out = env.cmd(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        {
            assert!(
                err.contains(&format!(
                    "no database at {}; run `bench-db ingest` first",
                    env.db().display()
                )),
                "{err}"
            );
        }
    }
    assert!(!env.db().exists());
}

/// The files of `dir` with their bytes.
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| (p.display().to_string(), std::fs::read(&p).unwrap()))
        .collect();
    out.sort();
    out
}

#[test]
fn a_foreign_sqlite_file_is_refused_byte_identical() {
    let env = Env::new();
    let c = rusqlite::Connection::open(env.db()).unwrap();
    c.execute_batch(
        "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO users (name) VALUES ('ann');",
    )
    .unwrap();
    drop(c);
    let log = fixture("jlbh/two-outputs.txt");
    let before = snapshot(env.dir.path());
    for args in [&["runs"][..], &["export"], &["ingest", &log], &["migrate"]] {
        let out = env.cmd(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("not a bench-db database") && err.contains("users"),
            "{err}"
        );
    }
    assert_eq!(snapshot(env.dir.path()), before);
    // A file that is not SQLite at all.
    std::fs::write(env.db(), b"just some notes\n".repeat(100)).unwrap();
    let before = snapshot(env.dir.path());
    for args in [&["runs"][..], &["ingest", &log]] {
        let out = env.cmd(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("not a database"), "{err}");
    }
    assert_eq!(snapshot(env.dir.path()), before);
}

#[test]
fn a_newer_schema_is_refused_before_any_write() {
    let env = Env::new();
    env.ok(&["ingest", &fixture("jlbh/two-outputs.txt")]);
    let c = rusqlite::Connection::open(env.db()).unwrap();
    c.pragma_update(None, "user_version", 99).unwrap();
    let _: String = c
        .query_row("PRAGMA journal_mode = DELETE", [], |r| r.get(0))
        .unwrap();
    drop(c);
    let before = snapshot(env.dir.path());
    for args in [&["runs"][..], &["ingest", &fixture("jlbh/v1-varlog.txt")]] {
        let out = env.cmd(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("newer than this bench-db"), "{err}");
    }
    assert_eq!(
        snapshot(env.dir.path()),
        before,
        "still in rollback-journal mode"
    );
}

#[test]
fn a_version_1_database_is_upgraded_in_place_and_reads_the_same() {
    let env = Env::new();
    std::fs::copy(fixture("store/v1.db"), env.db()).unwrap();
    let runs = env.ok(&["runs", "--json"]);
    let want: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("store/v1.runs.json")).unwrap())
            .unwrap();
    // `stats`, `bench` and `config` were added to `runs --json` after version 1 (a
    // version-1 run has no bench and no configuration); the rest must read the same.
    let mut got: serde_json::Value = serde_json::from_str(&runs).unwrap();
    for run in got.as_array_mut().unwrap() {
        let run = run.as_object_mut().unwrap();
        run.remove("stats");
        assert_eq!(run.remove("bench"), Some(serde_json::Value::Null));
        assert_eq!(run.remove("config"), Some(serde_json::json!({})));
    }
    assert_eq!(got, want);
    let export = env.ok(&["export", "--format", "json"]);
    let want: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("store/v1.export.json")).unwrap())
            .unwrap();
    // `stat` and the rows of printed numbers (JLBH's `% Variation`) were added to `export`
    // after version 1; the measured points must read the same.
    let mut got: serde_json::Value = serde_json::from_str(&export).unwrap();
    let points = got.as_array_mut().unwrap();
    points.retain(|p| p["stat"].is_null());
    for p in points.iter_mut() {
        p.as_object_mut().unwrap().remove("stat");
    }
    assert_eq!(got, want);
    assert!(
        env.ok(&["migrate"])
            .contains("schema version 9, up to date")
    );
    // A fresh copy, upgraded by the command.
    std::fs::remove_file(env.db()).unwrap();
    for s in ["-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{s}", env.db().display()));
    }
    std::fs::copy(fixture("store/v1.db"), env.db()).unwrap();
    assert!(
        env.ok(&["migrate"])
            .contains("schema version 1 upgraded to 9")
    );
    let c = rusqlite::Connection::open(env.db()).unwrap();
    let point: bool = c
        .query_row(
            "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE name = 'point')",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(!point, "the point rows moved into their series");
}

/// A database at schema version 3 upgrades: runs named after their benchmark get it as
/// their bench and their metric its quantity; what ingest dropped is listed to re-ingest.
#[test]
fn a_version_3_database_gets_bench_and_metric_names_and_lists_what_to_reingest() {
    let env = Env::new();
    let c = rusqlite::Connection::open(env.db()).unwrap();
    for sql in [
        include_str!("../migrations/0001_init.sql"),
        include_str!("../migrations/0002_packed_points.sql"),
        // What version 2's upgrade did after its SQL (point rows packed into blobs).
        "DROP TABLE point; DROP TABLE printed_stat;",
        include_str!("../migrations/0003_writer_keys.sql"),
        crate::common::VERSION_3_ROWS,
    ] {
        c.execute_batch(sql).unwrap();
    }
    c.pragma_update(None, "application_id", 0x6244_6231)
        .unwrap();
    c.pragma_update(None, "user_version", 3).unwrap();
    drop(c);
    let migrate = env.json(&["migrate", "--json"]);
    assert_eq!(migrate["to"], 9, "{migrate}");
    crate::common::assert_version_3_upgraded(&migrate, |sel| {
        let mut args = vec!["runs", "--json"];
        args.extend((!sel.is_empty()).then_some(sel));
        env.json(&args)
    });
    assert_eq!(env.cmd(&["check"]).output().unwrap().status.code(), Some(0));
}

#[test]
fn walk_errors_are_reported_per_entry_and_the_rest_is_stored() {
    let env = Env::new();
    small_logs(&env, "logs", 3);
    std::os::unix::fs::symlink("nowhere", env.dir.path().join("logs/dangling.txt")).unwrap();
    let folder = env.dir.path().join("logs").display().to_string();
    let missing = env.dir.path().join("absent").display().to_string();
    let out = env.cmd(&["ingest", &missing, &folder]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("{missing}: no such file or folder")),
        "{err}"
    );
    assert!(err.contains("dangling.txt: No such file"), "{err}");
    assert!(
        String::from_utf8_lossy(&out.stdout)
            .contains("3 ingested, 0 unchanged, 0 skipped, 2 errors")
    );
    assert_eq!(counts(&env), (3 * RUNS_PER_LOG, 3));
}

#[test]
fn file_names_that_are_not_utf8_are_stored_quoted() {
    use std::os::unix::ffi::OsStrExt;
    let env = Env::new();
    let dir = env.dir.path().join("logs");
    std::fs::create_dir(&dir).unwrap();
    let name = std::ffi::OsStr::from_bytes(b"caf\xe9.txt");
    std::fs::copy(fixture("jlbh/two-outputs.txt"), dir.join(name)).unwrap();
    let out = env.ok(&["ingest", dir.to_str().unwrap()]);
    let quoted = format!("'{}/caf'$'\\351''.txt'", dir.display());
    assert!(out.contains(&format!("ingested  {quoted} (jlbh")), "{out}");
    let runs = env.json(&["runs", "--json"]);
    assert_eq!(runs[0]["source"], quoted.as_str());
}

#[test]
fn label_refuses_an_empty_selector_unless_all() {
    let env = Env::new();
    env.ok(&["ingest", &fixture("jlbh/two-outputs.txt")]);
    let out = env.cmd(&["label", "", "x"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--all"));
    assert!(
        env.ok(&["label", "--all", "every"])
            .contains("relabelled 6 runs")
    );
    assert_eq!(
        env.json(&["runs", "--json", "label=every"])
            .as_array()
            .unwrap()
            .len(),
        6
    );
}

#[test]
fn msg_size_is_bounded() {
    let env = Env::new();
    let out = Command::cargo_bin("bench-db")
        .unwrap()
        .args(["--db"])
        .arg(env.db())
        .args(["run", "loopback", "--msg-size", "10000000000", "--no-store"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("64 MiB"));
    assert!(!env.db().exists());
}

#[test]
fn an_over_long_path_is_one_error_and_the_rest_is_stored() {
    let env = Env::new();
    small_logs(&env, "logs", 2);
    // Twenty nested 250-byte names, deeper than PATH_MAX (4096): two chains of ten,
    // the second moved into the first.
    let chain: std::path::PathBuf = std::iter::repeat_n("d".repeat(250), 10).collect();
    let first = env.dir.path().join("logs").join(&chain);
    let second = env.dir.path().join("more").join(&chain);
    std::fs::create_dir_all(&first).unwrap();
    std::fs::create_dir_all(&second).unwrap();
    std::fs::write(second.join("deep.txt"), b"x\n").unwrap();
    std::fs::rename(
        env.dir.path().join("more").join("d".repeat(250)),
        first.join("e"),
    )
    .unwrap();
    let folder = env.dir.path().join("logs").display().to_string();
    let out = env.cmd(&["ingest", &folder]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("File name too long"), "{err}");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("2 ingested, 0 unchanged"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(counts(&env), (2 * RUNS_PER_LOG, 2));
}

/// `bench-db ARGS…` as a user who cannot write `dir`: this user when it is not root,
/// else `nobody` through `setpriv` (`None` when that is not possible: the test skips).
fn as_unprivileged(dir: &Path, args: &[&str]) -> Option<std::process::Output> {
    use std::os::unix::fs::PermissionsExt;
    let bin = assert_cmd::cargo::cargo_bin("bench-db");
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    let mut c = if root {
        let found = std::process::Command::new("setpriv")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success());
        if !found {
            eprintln!("skipping: running as root without setpriv");
            return None;
        }
        let mut c = std::process::Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(&bin);
        c
    } else {
        std::process::Command::new(&bin)
    };
    let mut p = dir.to_path_buf();
    // Every folder up to `dir` must be searchable by that user (temp dirs are 0700).
    while let Some(parent) = p.parent() {
        if p.starts_with(std::env::temp_dir()) && p != std::env::temp_dir() {
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).ok()?;
        }
        p = parent.to_path_buf();
    }
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o555)).ok()?;
    let out = c.args(args).env_remove("BENCH_DB").output().ok();
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).ok()?;
    out
}

#[test]
fn a_database_in_a_read_only_folder_is_read_and_an_old_one_names_migrate() {
    let env = Env::new();
    let dir = env.dir.path().join("ro");
    std::fs::create_dir(&dir).unwrap();
    let db = dir.join("b.db");
    let db_s = db.to_str().unwrap();
    Command::cargo_bin("bench-db")
        .unwrap()
        .args(["--db", db_s, "ingest", &fixture("jlbh/two-outputs.txt")])
        .assert()
        .success();
    let Some(out) = as_unprivileged(&dir, &["--db", db_s, "runs"]) else {
        return;
    };
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).ends_with("6 runs\n"));
    // A version-1 database there cannot be upgraded: the error names `migrate`.
    let old = dir.join("v1.db");
    std::fs::copy(fixture("store/v1.db"), &old).unwrap();
    let old_s = old.to_str().unwrap();
    let before = std::fs::read(&old).unwrap();
    let out = as_unprivileged(&dir, &["--db", old_s, "runs"]).unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("has schema version 1") && err.contains("migrate`"),
        "{err}"
    );
    assert_eq!(std::fs::read(&old).unwrap(), before);
}

/// A folder given as the database is named as such, whatever the command (SQLite's own
/// words blamed the disk: "disk I/O error", "it is full").
#[test]
fn a_folder_given_as_the_database_is_refused_as_a_folder() {
    let env = Env::new();
    let folder = env.dir.path().join("results");
    std::fs::create_dir(&folder).unwrap();
    let db = folder.display().to_string();
    let want = format!(
        "error: {db} is a folder, not a database file: give --db the path of a file (bench-db \
         creates it on the first ingest), such as {db}/bench.db"
    );
    let f = fixture("jlbh/v1-varlog.txt");
    for args in [
        vec!["runs"],
        vec!["ingest", &f],
        vec!["check"],
        vec!["migrate"],
    ] {
        let out = Command::cargo_bin("bench-db")
            .unwrap()
            .env_remove("BENCH_DB")
            .arg("--db")
            .arg(&folder)
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(
            String::from_utf8_lossy(&out.stderr).trim(),
            want,
            "{args:?}"
        );
    }
}

/// An empty file is no database: `migrate` refuses it as the read commands do (exit 2),
/// and leaves it empty, as it creates nothing for a missing one.
#[test]
fn migrate_refuses_an_empty_file() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("e.db");
    std::fs::write(&db, b"").unwrap();
    for args in [&["runs"][..], &["migrate"]] {
        let out = Command::cargo_bin("bench-db")
            .unwrap()
            .env_remove("BENCH_DB")
            .arg("--db")
            .arg(&db)
            .args(args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("(the file is empty)"), "{args:?}: {err}");
    }
    assert_eq!(std::fs::metadata(&db).unwrap().len(), 0);
}
