//! Hostile input and bad days, through the binary: names carrying terminal escapes, a
//! megabyte token in an error, a crashed logger's zero fill, a line longer than the cap,
//! a Criterion stream of many documents, databases in read-only places or corrupt, a
//! PostgreSQL connection lost mid-ingest, and every input we hold damaged on purpose.

use crate::common::{Env, fixture, plain, shared};
use bench_db_parsers::mutate::{KINDS, Rng, files_under, mutate};
use serde_json::Value;
use std::path::Path;
use std::time::{Duration, Instant};

/// The control characters of `s` other than a line end: what a text output must never
/// send to a terminal.
fn controls(s: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(s)
        .chars()
        .filter(|c| c.is_control() && *c != '\n')
        .map(|c| format!("{:?}", c))
        .collect()
}

/// Runs `bench-db ARGS` in `env`; returns (exit code, stdout, stderr).
fn run(env: &Env, args: &[&str]) -> (i32, Vec<u8>, String) {
    let out = env.cmd(args).output().expect("run");
    (
        out.status.code().unwrap_or(-1),
        out.stdout,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A name with an OSC window-title sequence, a BEL and a C1 CSI, as a hyperfine
/// `"command"` or a Go benchmark name can carry them.
const HOSTILE: &str = "work\u{1b}]0;owned\u{7}\u{9b}2J";

#[test]
fn names_with_escapes_are_shown_escaped_in_text_and_kept_in_json_and_csv() {
    let env = Env::new();
    let src = std::fs::read_to_string(fixture("real/hyperfine/named-work-10ms.json")).unwrap();
    let hostile = src.replacen(
        "\"command\": \"work\"",
        &format!("\"command\": {}", serde_json::to_string(HOSTILE).unwrap()),
        1,
    );
    assert_ne!(hostile, src);
    let path = env.write("bench.json", hostile.as_bytes());
    let label = "lab\u{1b}[2Jel";
    let (code, out, err) = run(&env, &["ingest", &path, "--label", label, "--no-git"]);
    assert_eq!(code, 0, "{err}");
    assert!(controls(&out).is_empty() && controls(err.as_bytes()).is_empty());
    // Standard input named by the user.
    let stdin = env
        .cmd(&["ingest", "-", "--name", "in\u{1b}]0;t\u{7}put", "--no-git"])
        .write_stdin(src.clone())
        .output()
        .unwrap();
    assert_eq!(stdin.status.code(), Some(0));
    let said = String::from_utf8_lossy(&stdin.stdout);
    assert!(said.contains("in\\x1b]0;t\\x07put"), "{said}");
    assert!(controls(&stdin.stdout).is_empty(), "{said}");

    for args in [
        &["runs"][..],
        &["variation"],
        &["history"],
        &["calibrate", "--trials", "20"],
        &[
            "compare",
            "--baseline",
            "label=lab\u{1b}[2Jel",
            "--candidate",
            "label=lab\u{1b}[2Jel",
        ],
        &["label", "label=lab\u{1b}[2Jel", "re\u{7}named"],
        &["runs"],
        &[
            "gate",
            "--baseline",
            "label=none\u{1b}]0;x\u{7}",
            "--candidate",
            "label=re\u{7}named",
        ],
        &["runs", "label=gone\u{1b}[2J"],
    ] {
        let (_, out, err) = run(&env, args);
        assert!(
            controls(&out).is_empty(),
            "{args:?} printed {:?}:\n{}",
            controls(&out),
            String::from_utf8_lossy(&out)
        );
        assert!(controls(err.as_bytes()).is_empty(), "{args:?}: {err}");
    }
    let (_, out, _) = run(&env, &["runs"]);
    let text = String::from_utf8_lossy(&out);
    assert!(text.contains("re\\x07named"), "{text}");

    // JSON and CSV are data: the names as stored, every character kept.
    let runs: Value = env.json(&["runs", "--json"]);
    let labels: Vec<&str> = runs
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["label"].as_str().unwrap())
        .collect();
    assert!(labels.contains(&"re\u{7}named"), "{labels:?}");
    let benches: Vec<&str> = runs
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["bench"].as_str())
        .collect();
    assert!(benches.contains(&HOSTILE), "{benches:?}");
    let csv = env.ok(&["export", "--format", "csv"]);
    assert!(
        csv.contains("re\u{7}named"),
        "the CSV keeps the label's bytes"
    );
}

/// The real JLBH log whose last value is `33.99`.
fn jlbh_log() -> Vec<u8> {
    std::fs::read(fixture(
        "real/jlbh/chronicle-queue-demo-2019-throughput-test.txt",
    ))
    .unwrap()
}

#[test]
fn an_error_echoing_a_megabyte_token_is_one_short_line() {
    let env = Env::new();
    let log = String::from_utf8(jlbh_log()).unwrap();
    let at = log.rfind("33.99").unwrap();
    let token = format!("33.99{}", "x".repeat(600_000));
    let bad = format!("{}{token}{}", &log[..at], &log[at + 5..]);
    let path = env.write("cut.txt", bad.as_bytes());
    let (code, _, err) = run(&env, &["ingest", &path, "--no-git"]);
    assert_eq!(code, 2, "{err}");
    let longest = err.lines().map(str::len).max().unwrap_or(0);
    assert!(longest < 1000, "a stderr line of {longest} bytes");
    assert!(err.contains("more bytes)"), "{err}");
    let (code, out, _) = run(&env, &["ingest", &path, "--no-git", "--json"]);
    assert_eq!(code, 2);
    let doc: Value = serde_json::from_slice(&out).unwrap();
    let error = doc["files"][0]["error"].as_str().unwrap();
    assert!(error.chars().count() < 1000, "{} chars", error.len());
    assert!(error.contains("33.99xxx"), "{error}");
}

#[test]
fn a_zero_fill_and_an_overlong_line_are_skipped_with_a_warning() {
    let env = Env::new();
    let clean = env.write("clean.txt", &jlbh_log());
    let want = env.json(&["ingest", &clean, "--no-git", "--json"])["files"][0]["runs"].clone();
    assert_eq!(want, 70);

    // A crashed logger's tail: megabytes of NUL bytes after the last line.
    let mut zeros = jlbh_log();
    zeros.extend(std::iter::repeat_n(0u8, 8 << 20));
    let path = env.write("zero-tail.txt", &zeros);
    let (code, out, err) = run(&env, &["ingest", &path, "--no-git", "--json"]);
    assert_eq!(code, 0, "{err}");
    let doc: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(doc["files"][0]["runs"], want);
    assert!(
        err.contains(":121: jlbh: 8388608 NUL bytes left out"),
        "{err}"
    );

    // A first line of 2 MiB (no newline in the first 256 KiB: the format is given).
    let mut long = vec![b'a'; 2 << 20];
    long.push(b'\n');
    long.extend(jlbh_log());
    let path = env.write("long-line.txt", &long);
    let (code, out, err) = run(
        &env,
        &["ingest", &path, "--no-git", "--json", "--parser", "jlbh"],
    );
    assert_eq!(code, 0, "{err}");
    let doc: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(doc["files"][0]["runs"], want);
    assert!(
        err.contains("long-line.txt:1: jlbh: line longer than 1 MiB skipped"),
        "{err}"
    );
}

#[test]
fn a_criterion_stream_of_many_documents_is_read_in_one_pass() {
    let env = Env::new();
    let dir = Path::new(&fixture("real/criterion/run3/criterion/fib/fib 10/new")).to_path_buf();
    let read = |n: &str| std::fs::read_to_string(dir.join(n)).unwrap();
    let mut stream = format!(
        "{{\"criterion_baseline\":\"new\"}}\n{}\n{}\n",
        read("benchmark.json"),
        read("sample.json")
    );
    let estimates = read("estimates.json");
    // About 8 MB of estimates documents: counting lines from the start for each document
    // took minutes on this in a debug build.
    while stream.len() < 8 << 20 {
        stream.push_str(&estimates);
        stream.push('\n');
    }
    let path = env.write("stream.json", stream.as_bytes());
    let start = Instant::now();
    let (code, out, err) = run(&env, &["ingest", &path, "--no-git", "--json"]);
    assert_eq!(code, 0, "{err}");
    let doc: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(doc["files"][0]["format"], "criterion");
    assert!(doc["files"][0]["runs"].as_u64().unwrap() > 0);
    assert!(
        start.elapsed() < Duration::from_secs(60),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn a_corrupt_database_is_named_with_what_to_do() {
    let env = Env::new();
    std::fs::write(env.db(), vec![0x5a; 16384]).unwrap();
    for args in [&["runs"][..], &["ingest", &fixture("jlbh/two-outputs.txt")]] {
        let (code, _, err) = run(&env, args);
        assert_eq!(code, 2);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains("bench.db is corrupt ("), "{err}");
        assert!(err.contains("check"), "{err}");
    }
}

/// `bench-db` run as `user` (another OS user, for the tests run as root, who ignores
/// permissions) with `args`; (exit code, stderr).
fn as_user(user: &str, db: &Path, args: &[&str]) -> (i32, String) {
    let out = std::process::Command::new("runuser")
        .args(["-u", user, "--"])
        .arg(assert_cmd::cargo::cargo_bin("bench-db"))
        .arg("--db")
        .arg(db)
        .args(args)
        .output()
        .expect("runuser");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn chmod(p: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
}

fn chown(p: &Path, user: &str) {
    let ok = std::process::Command::new("chown")
        .arg(user)
        .arg(p)
        .status()
        .unwrap();
    assert!(ok.success());
}

/// Read-only places, as the users who meet them: `nobody` owns the database, `daemon`
/// reads it. Needs root (to act as both); elsewhere the error lines are tested on the
/// SQLite codes (`store::open_error`). A read-only mount needs privileges a test does not
/// have: its line is tested there too.
#[test]
fn read_only_places_get_one_line_saying_what_to_do() {
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    if !root
        || std::process::Command::new("runuser")
            .arg("--help")
            .output()
            .is_err()
    {
        eprintln!("skipping: needs root and runuser to act as two users");
        return;
    }
    let env = Env::new();
    chmod(env.dir.path(), 0o755);
    let input = env.write("in.txt", &jlbh_log());
    let other = env.write(
        "other.txt",
        &std::fs::read(fixture("jlbh/two-outputs.txt")).unwrap(),
    );
    for p in [&input, &other] {
        chmod(Path::new(p), 0o644);
    }
    let place = |name: &str| {
        let dir = env.dir.path().join(name);
        std::fs::create_dir(&dir).unwrap();
        chmod(&dir, 0o777);
        let db = dir.join("x.db");
        let (code, err) = as_user("nobody", &db, &["ingest", &input, "--no-git"]);
        assert_eq!(code, 0, "{err}");
        (dir, db)
    };

    // A folder that cannot be written, the file in it can: SQLite's -wal cannot be made.
    let (dir, db) = place("folder");
    chmod(&dir, 0o555);
    let (code, err) = as_user("nobody", &db, &["ingest", &other, "--no-git"]);
    assert_eq!(code, 2);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("folder") && err.contains("cannot be written"),
        "{err}"
    );
    assert!(err.contains("x.db-wal"), "{err}");

    // A read-only file: one line for the first file, and the ingest stops there.
    let (_, db) = place("file");
    chmod(&db, 0o444);
    let (code, err) = as_user("nobody", &db, &["ingest", &other, &other, "--no-git"]);
    assert_eq!(code, 2);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("is read-only to you"), "{err}");
    assert!(err.contains("1 file not read"), "{err}");

    // Another user's read leaves no -shm behind, so the owner's next ingest works.
    let (dir, db) = place("shared");
    let (code, err) = as_user("daemon", &db, &["runs"]);
    assert_eq!(code, 0, "{err}");
    assert!(!dir.join("x.db-shm").exists(), "a read left a -shm");
    let (code, err) = as_user("nobody", &db, &["ingest", &other, "--no-git"]);
    assert_eq!(code, 0, "{err}");
    // One left by an older bench-db (or sqlite3) is named, with what to do.
    let (dir, db) = place("stale");
    let shm = dir.join("x.db-shm");
    std::fs::write(&shm, vec![0u8; 32768]).unwrap();
    chown(&shm, "daemon");
    chmod(&shm, 0o644);
    let (code, err) = as_user("nobody", &db, &["ingest", &other, "--no-git"]);
    assert_eq!(code, 2);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("x.db-shm beside the database cannot be written"),
        "{err}"
    );
    assert!(err.contains(&format!("remove {}", shm.display())), "{err}");
}

/// A PostgreSQL connection that goes away mid-ingest (its backend terminated, as a server
/// restart does to every connection) ends the ingest with one error line. Skips when
/// `BENCH_DB_TEST_PG` is unset (CI sets it).
#[test]
fn a_lost_postgres_connection_stops_the_ingest_with_one_line() {
    let Ok(base) = std::env::var("BENCH_DB_TEST_PG") else {
        eprintln!("skipping: BENCH_DB_TEST_PG is not set");
        return;
    };
    let env = Env::new();
    let schema = format!("hostile_{}", std::process::id());
    let app = format!("bench_db_{schema}");
    let sep = if base.contains('?') { '&' } else { '?' };
    let url = format!("{base}{sep}schema={schema}&application_name={app}");
    // Many small distinct files, so that the ingest is still going when the
    // connection is cut.
    let line = |i: usize| format!("BenchmarkJoin-8   \t   82120\t      {} ns/op\n", 1000 + i);
    let mut files = Vec::new();
    for i in 0..300 {
        files.push(env.write(&format!("go/{i:03}.txt"), line(i).repeat(3).as_bytes()));
    }
    let mut admin = postgres::Client::connect(&plain(&base), postgres::NoTls).unwrap();
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("bench-db"))
        .args(["--db", &url, "ingest", "--no-git", "--parser", "go-bench"])
        .args(&files)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let mut cut = false;
    while start.elapsed() < Duration::from_secs(60) && !cut {
        let stored: i64 = admin
            .query_one(
                "SELECT count(*) FROM pg_tables WHERE schemaname = $1 AND tablename = 'source'",
                &[&schema],
            )
            .map(|r| r.get(0))
            .unwrap_or(0);
        let sources: i64 = if stored > 0 {
            admin
                .query_one(&format!("SELECT count(*) FROM {schema}.source"), &[])
                .map(|r| r.get(0))
                .unwrap_or(0)
        } else {
            0
        };
        if sources >= 3 {
            admin
                .execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1",
                    &[&app],
                )
                .unwrap();
            cut = true;
        } else {
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    let out = child.wait_with_output().unwrap();
    let _ = admin.batch_execute(&format!("DROP SCHEMA IF EXISTS {schema} CASCADE"));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        cut,
        "the ingest ended before three files were stored: {err}"
    );
    assert_eq!(out.status.code(), Some(2), "{err}");
    let errors: Vec<&str> = err.lines().filter(|l| l.contains("error")).collect();
    assert_eq!(errors.len(), 1, "{err}");
    assert!(
        errors[0].contains("connection to PostgreSQL was lost"),
        "{err}"
    );
    assert!(errors[0].contains("stored before it"), "{err}");
}

/// Every input we hold (fixtures, the real corpus, the shared samples when present),
/// damaged several ways, ingested in one go: the ingest ends with 0 or 2 (never a panic),
/// and the database reads back whole afterwards (`runs --json`, `export` as JSON and CSV).
#[test]
fn every_input_damaged_ingests_without_a_panic_and_the_database_reads_back() {
    let env = Env::new();
    let mut inputs = Vec::new();
    files_under(Path::new(&fixture("")), &mut inputs);
    if let Some(s) = shared("samples") {
        files_under(&s, &mut inputs);
    }
    assert!(inputs.len() > 50, "{} inputs", inputs.len());
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut written = 0;
    for (i, p) in inputs.iter().enumerate() {
        let bytes = std::fs::read(p).unwrap();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        // Each input three ways, the kinds turning over the corpus.
        for k in 0..3 {
            let kind = (i * 3 + k) % KINDS;
            env.write(
                &format!("damaged/{i:03}-{k}/{name}"),
                &mutate(&bytes, kind, &mut rng),
            );
            written += 1;
        }
    }
    let folder = env.dir.path().join("damaged").display().to_string();
    let start = Instant::now();
    let (code, out, err) = run(&env, &["ingest", &folder, "--no-git", "--json"]);
    assert!(code == 0 || code == 2, "exit {code}: {err}");
    assert!(!err.contains("panicked"), "{err}");
    let doc: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(doc["files"].as_array().unwrap().len(), written);
    assert!(doc["ingested"].as_u64().unwrap() > 0, "{doc}");
    eprintln!(
        "{written} damaged files ingested in {:.1}s",
        start.elapsed().as_secs_f64()
    );
    for args in [
        &["runs", "--json"][..],
        &["export"],
        &["export", "--format", "csv"],
    ] {
        let (code, _, err) = run(&env, args);
        assert_eq!(code, 0, "{args:?}: {err}");
    }
}

/// A named pipe in an ingested folder is skipped with what it is (reading it would wait
/// for a writer forever), as is a link to a folder (a loop when it points up); the files
/// beside them are stored.
#[test]
fn a_fifo_and_a_folder_link_in_a_walked_folder_are_skipped_not_waited_on() {
    let env = Env::new();
    let dir = env.dir.path().join("logs");
    std::fs::create_dir(&dir).unwrap();
    std::fs::copy(
        fixture("real/go-bench/bench-count3.txt"),
        dir.join("bench.txt"),
    )
    .unwrap();
    let fifo = dir.join("pipe");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    std::os::unix::fs::symlink("..", dir.join("up")).unwrap();
    // Bounded: a walk that opens the pipe would wait for ever.
    let out = env
        .cmd(&["ingest", "--no-git", "--json", &dir.display().to_string()])
        .timeout(Duration::from_secs(30))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "timed out or failed");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let status = |name: &str| {
        let f = v["files"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["path"].as_str().unwrap().ends_with(name))
            .unwrap_or_else(|| panic!("{name} in {v}"));
        (f["status"].clone(), f["reason"].clone())
    };
    assert_eq!(
        status("pipe"),
        ("skipped".into(), "a named pipe (FIFO), not a file".into())
    );
    assert_eq!(
        status("up"),
        ("skipped".into(), "a link to a folder, not followed".into())
    );
    assert_eq!(status("bench.txt").0, "ingested");
}
