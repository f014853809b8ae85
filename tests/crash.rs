//! What survives a bad day at the store: an ingest killed (`kill -9`) at any moment and an
//! ingest that meets a full disk leave every source whole or absent, the database readable,
//! and a second ingest completes the rest.

use crate::common::{Env, fixture};
use std::collections::BTreeMap;
use std::process::{Command, Stdio};
use std::time::Duration;

/// `n` distinct copies of a real two-output JLBH file (6 runs each) in `in/`.
fn inputs(env: &Env, n: usize) -> String {
    let text = std::fs::read(fixture("jlbh/two-outputs.txt")).unwrap();
    for i in 0..n {
        let mut t = text.clone();
        t.extend_from_slice(format!("\n# copy {i}\n").as_bytes());
        env.write(&format!("in/f{i:03}.txt"), &t);
    }
    env.dir.path().join("in").display().to_string()
}

/// Runs per stored source.
fn runs_per_source(env: &Env) -> BTreeMap<String, usize> {
    let runs = env.json(&["runs", "--json"]);
    let mut per = BTreeMap::new();
    for r in runs.as_array().unwrap() {
        *per.entry(r["source"].as_str().unwrap().to_string())
            .or_default() += 1;
    }
    per
}

fn binary() -> std::path::PathBuf {
    assert_cmd::cargo::cargo_bin("bench-db")
}

#[test]
fn a_killed_ingest_leaves_each_source_whole_or_absent() {
    let env = Env::new();
    let dir = inputs(&env, 200);
    for delay_ms in [30, 120, 400] {
        let mut child = Command::new(binary())
            .current_dir(env.dir.path())
            .env_remove("BENCH_DB")
            .args([
                "--db",
                &env.db().display().to_string(),
                "ingest",
                "--no-git",
                &dir,
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(delay_ms));
        // SIGKILL: no destructor, no rollback in the process.
        let _ = child.kill();
        let _ = child.wait();
        // Killed before the schema was committed (no file, an empty one, or a header
        // whose first transaction never landed): no database yet, which the next ingest
        // creates.
        let schema = rusqlite::Connection::open_with_flags(
            env.db(),
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
        )
        .and_then(|c| {
            c.query_row(
                "SELECT count(*) FROM sqlite_master WHERE name = 'run'",
                [],
                |r| r.get::<_, i64>(0),
            )
        });
        if !matches!(schema, Ok(1)) {
            continue;
        }
        let per = runs_per_source(&env);
        eprintln!("killed after {delay_ms} ms: {} sources stored", per.len());
        for (source, n) in per {
            assert_eq!(n, 6, "killed after {delay_ms} ms: {source} holds {n} runs");
        }
    }
    // A second ingest stores the rest, each file once.
    env.ok(&["ingest", "--no-git", &dir]);
    let per = runs_per_source(&env);
    assert_eq!(per.len(), 200);
    assert!(per.values().all(|&n| n == 6), "{per:?}");
}

#[test]
fn a_full_disk_stops_the_ingest_with_one_line_and_keeps_what_was_stored() {
    let env = Env::new();
    let dir = inputs(&env, 30);
    env.ok(&["ingest", "--no-git", &fixture("jlbh/two-outputs.txt")]);
    // A file-size limit makes every write past 300 KiB fail as a full disk does (the
    // signal it raises ignored, so the write returns an error).
    let script = format!(
        "trap '' XFSZ; ulimit -f 300; exec '{}' --db '{}' ingest --no-git '{dir}'",
        binary().display(),
        env.db().display()
    );
    let out = Command::new("bash")
        .args(["-c", &script])
        .current_dir(env.dir.path())
        .env_remove("BENCH_DB")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    let errors: Vec<&str> = err.lines().filter(|l| l.contains("error:")).collect();
    assert_eq!(errors.len(), 1, "{err}");
    assert!(
        errors[0].contains("refused a write") && errors[0].contains("free space and ingest again"),
        "{err}"
    );
    // What was stored is whole and readable; nothing half written.
    let per = runs_per_source(&env);
    assert!(per.len() < 31, "{per:?}");
    assert!(per.values().all(|&n| n == 6), "{per:?}");
    env.ok(&["export"]);
    // With space again, the rest is stored.
    env.ok(&["ingest", "--no-git", &dir]);
    let per = runs_per_source(&env);
    assert_eq!(per.len(), 31);
    assert!(per.values().all(|&n| n == 6), "{per:?}");
}
