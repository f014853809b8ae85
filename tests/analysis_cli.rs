//! End-to-end checks of `compare`, `curve` and `gate` through the binary, on the seed
//! documents in `../shared/seeds` (skipped when they are absent, or when the parser a seed
//! needs is not part of this build).

use assert_cmd::Command;
use serde_json::Value;
use std::path::{Path, PathBuf};
use tempfile::TempDir;

fn seed(prefix: &str) -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/seeds");
    let found = std::fs::read_dir(&dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(prefix))
        });
    if found.is_none() {
        eprintln!("skipped: seed {prefix} not found in {}", dir.display());
    }
    found
}

struct Db {
    dir: TempDir,
    path: PathBuf,
}

impl Db {
    fn new() -> Db {
        let dir = TempDir::new().unwrap();
        let path = dir.path().join("bench.db");
        Db { dir, path }
    }

    fn cmd(&self, args: &[&str]) -> Command {
        let mut c = Command::cargo_bin("bench-db").unwrap();
        c.arg("--db").arg(&self.path).args(args);
        c
    }

    fn stdout(&self, args: &[&str]) -> (i32, String) {
        let out = self.cmd(args).output().unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    }

    /// Ingests a seed; returns the stored runs as `runs --json` lists them.
    fn ingest(&self, path: &Path) -> Vec<Value> {
        self.cmd(&["ingest", path.to_str().unwrap()])
            .output()
            .unwrap();
        let (_, out) = self.stdout(&["runs", "--json"]);
        serde_json::from_str::<Value>(&out)
            .ok()
            .and_then(|v| v.as_array().cloned())
            .unwrap_or_default()
    }
}

/// `run=ID+ID…` of the runs whose label satisfies `pick`.
fn select(runs: &[Value], pick: impl Fn(&str) -> bool) -> String {
    let ids: Vec<String> = runs
        .iter()
        .filter(|r| pick(r["label"].as_str().unwrap_or("")))
        .map(|r| r["id"].to_string())
        .collect();
    format!("run={}", ids.join("+"))
}

fn cell<'a>(cells: &'a Value, metric: &str) -> &'a Value {
    cells
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["metric"] == metric)
        .unwrap_or_else(|| panic!("no {metric} in {cells}"))
}

fn round2(v: &Value) -> f64 {
    (v.as_f64().unwrap() * 100.0).round() / 100.0
}

#[test]
fn seed_004_single_values_delta_only() {
    let Some(path) = seed("004") else { return };
    let db = Db::new();
    let runs = db.ingest(&path);
    if runs.len() < 2 {
        eprintln!("skipped: no parser for seed 004 in this build");
        return;
    }
    let before = select(&runs, |l| l.starts_with("Before"));
    let after = select(&runs, |l| l.starts_with("After"));
    let (code, out) = db.stdout(&[
        "compare",
        "--baseline",
        &before,
        "--candidate",
        &after,
        "--json",
    ]);
    assert_eq!(code, 0);
    let cells: Value = serde_json::from_str(&out).unwrap();
    let c = cell(&cells, "latency_avg");
    assert_eq!(round2(&c["baseline"]), 8.88);
    assert_eq!(round2(&c["candidate"]), 2.45);
    assert_eq!(round2(&c["delta_pct"]), -72.41);
    assert_eq!(c["verdict"], "insufficient");
    assert!(c["percentile"].is_null());
    // One run a side is below the default minimum: cannot decide, never a regression.
    let (code, _) = db.stdout(&["gate", "--baseline", &before, "--candidate", &before]);
    assert_eq!(code, 3);
    // --out writes the verdict to a file instead of standard output.
    let junit = db.dir.path().join("gate.xml");
    let (code, out) = db.stdout(&[
        "gate",
        "--baseline",
        &before,
        "--candidate",
        &after,
        "--format",
        "junit",
        "--out",
        junit.to_str().unwrap(),
    ]);
    assert_eq!((code, out.as_str()), (3, ""));
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(xml.contains("<testcase classname=\"arthas\" name=\"latency_avg\">"));
    // A threshold naming a metric that does not exist is an error.
    let (code, _) = db.stdout(&[
        "gate",
        "--baseline",
        &before,
        "--candidate",
        &after,
        "--max",
        "no_such_metric=+5%",
    ]);
    assert_eq!(code, 2);
}

#[test]
fn seed_003_tsar_before_after_and_gate() {
    let Some(path) = seed("003") else { return };
    let db = Db::new();
    let runs = db.ingest(&path);
    if runs.len() < 2 {
        eprintln!("skipped: no tsar parser in this build");
        return;
    }
    let patch = select(&runs, |l| l.contains("patch"));
    let master = select(&runs, |l| !l.contains("patch"));
    let (code, out) = db.stdout(&[
        "compare",
        "--baseline",
        &master,
        "--candidate",
        &patch,
        "--json",
    ]);
    assert_eq!(code, 0);
    let cells: Value = serde_json::from_str(&out).unwrap();
    let rt = cell(&cells, "ts.rt");
    assert_eq!(round2(&rt["delta_pct"]), -12.58);
    assert_eq!(rt["verdict"], "better");
    assert!((rt["baseline"].as_f64().unwrap() - 3.388).abs() < 1e-9);
    assert!((rt["candidate"].as_f64().unwrap() - 2.962).abs() < 5e-4);
    let cpu = cell(&cells, "cpu.util");
    assert_eq!(round2(&cpu["baseline"]), 68.36);
    assert_eq!(round2(&cpu["candidate"]), 70.08);
    assert_eq!(round2(&cpu["delta_pct"]), 2.51);
    assert_eq!(cpu["verdict"], "worse");

    let gate = |base: &str, cand: &str, format: &str| {
        db.stdout(&[
            "gate",
            "--baseline",
            base,
            "--candidate",
            cand,
            "--max",
            "ts.rt=+5%",
            "--format",
            format,
        ])
    };
    assert_eq!(gate(&master, &patch, "text").0, 0);
    for format in ["text", "json", "markdown", "junit", "github"] {
        let (code, out) = gate(&patch, &master, format);
        assert_eq!(code, 1, "{format}: {out}");
        assert!(out.contains("ts.rt"), "{format}: {out}");
    }
    assert_ne!(gate(&master, &master, "text").0, 1);
}

#[test]
fn seed_002_tcp_against_the_default_transport() {
    let Some(path) = seed("002") else { return };
    let db = Db::new();
    let runs = db.ingest(&path);
    // The first block (the default transport) and the TCP block; the article repeats
    // both as tab-separated tables further down.
    let first = runs
        .first()
        .and_then(|r| r["label"].as_str())
        .unwrap_or("")
        .to_string();
    let tcp = select(&runs, |l| l == "Test results using TCP");
    let other = select(&runs, |l| l == first && !l.contains("TCP"));
    if tcp == "run=" || other == "run=" {
        eprintln!("skipped: no jgroups parser in this build");
        return;
    }
    let (code, out) = db.stdout(&[
        "compare",
        "--baseline",
        &other,
        "--candidate",
        &tcp,
        "--metric",
        "msgs_per_sec",
        "--json",
    ]);
    assert_eq!(code, 0);
    let cells: Value = serde_json::from_str(&out).unwrap();
    let c = cell(&cells, "msgs_per_sec");
    assert_eq!(round2(&c["baseline"]), 13252.0);
    assert_eq!(round2(&c["candidate"]), 13467.0);
    assert_eq!(round2(&c["delta_pct"]), 1.62);
    assert_eq!(c["verdict"], "better");
}

#[test]
fn empty_database_and_bad_slo_are_errors() {
    let db = Db::new();
    let (code, _) = db.stdout(&["compare", "--baseline", "run=1", "--candidate", "run=2"]);
    assert_eq!(code, 2);
    let (code, _) = db.stdout(&["curve", "--slo", "p99=fast"]);
    assert_eq!(code, 2);
    let (code, _) = db.stdout(&["gate", "--baseline", "run=1", "--candidate", "run=2"]);
    assert_eq!(code, 3);
}
