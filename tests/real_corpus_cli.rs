//! `bench-db ingest` over the real-world corpus (`fixtures/real`): every kind of pasted,
//! wrapped, trimmed and cut output is stored, cut tables are warned about, exit 0.

use crate::common::{Env, fixture};
use serde_json::Value;
use std::path::Path;

/// Copies every corpus output (not the `MANIFEST`s and README, which describe them) into
/// `<temp>/real/<format>/`, returning how many were copied.
fn copy_corpus(env: &Env) -> usize {
    let root = Path::new(&fixture("real")).to_path_buf();
    let mut n = 0;
    for dir in std::fs::read_dir(&root).unwrap().flatten() {
        if !dir.path().is_dir() {
            continue;
        }
        let folder = dir.file_name().to_string_lossy().into_owned();
        for f in std::fs::read_dir(dir.path()).unwrap().flatten() {
            let name = f.file_name().to_string_lossy().into_owned();
            if name == "MANIFEST" {
                continue;
            }
            env.write(
                &format!("real/{folder}/{name}"),
                &std::fs::read(f.path()).unwrap(),
            );
            n += 1;
        }
    }
    n
}

#[test]
fn ingest_of_the_real_corpus_stores_every_file_and_warns_about_cut_tables() {
    let env = Env::new();
    let copied = copy_corpus(&env);
    assert!(copied >= 40, "only {copied} corpus files");
    let real = env.dir.path().join("real");
    let out = env
        .cmd(&["ingest", real.to_str().unwrap(), "--json"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["errors"], 0, "{json:#}");
    let files = json["files"].as_array().unwrap();
    assert_eq!(files.len(), copied);
    for f in files {
        let path = f["path"].as_str().unwrap();
        let p = Path::new(path);
        let folder = p.parent().unwrap().file_name().unwrap().to_str().unwrap();
        assert_eq!(f["status"], "ingested", "{f:#}");
        assert_eq!(f["format"], folder, "{f:#}");
        assert!(f["runs"].as_u64().unwrap() >= 1, "{f:#}");
    }
    // Tables cut by their authors are warned about with path and line.
    let cut = real
        .join("jlbh/chronicle-queue-demo-2025-account-benchmark-results.txt")
        .display()
        .to_string();
    assert!(
        stderr.contains(&format!(
            "warning: {cut}:29: jlbh: SUMMARY (end to end) table from line 25 ends at 99 (no worst row)"
        )),
        "{stderr}"
    );
    assert!(stderr.contains("ends at 99.9 (no worst row)"), "{stderr}");
    assert!(stderr.contains("(no #[Mean = …] footer)"), "{stderr}");
    // Printed summary numbers are visible: wrk2's spectrum footer and a ladder's count.
    let runs = env.json(&["runs", "--json"]);
    let runs = runs.as_array().unwrap();
    let stats = |metric: &str, name: &str, want: f64| {
        runs.iter()
            .any(|r| r["stats"][metric][name].as_f64() == Some(want))
    };
    assert!(
        stats("latency", "total_count", 39500.0),
        "wrk2 README footer"
    );
    assert!(
        stats("latency", "mean", 1287.159),
        "ycsb HdrHistogram footer"
    );
    assert!(
        stats("latency", "count", 8458.0),
        "zk-benchmark ladder count"
    );
    // Ingesting again changes nothing.
    let again = env.json(&["ingest", real.to_str().unwrap(), "--json"]);
    assert_eq!(again["ingested"], 0, "{again:#}");
    assert_eq!(again["errors"], 0, "{again:#}");
}
