//! `bench-db ingest ../shared/seeds && bench-db report --out r`, end to end: the pages
//! exist and show the seeds' before/after numbers. Skipped when ../shared is absent.

use assert_cmd::Command;
use std::path::Path;

#[test]
fn report_of_the_seeds() {
    let seeds = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/seeds");
    if !seeds.is_dir() {
        eprintln!("../shared/seeds absent: skipping");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("bench.db");
    // Some seed files are prose only; ingest may report them and still store the rest.
    let ingest = Command::cargo_bin("bench-db")
        .unwrap()
        .arg("--db")
        .arg(&db)
        .arg("ingest")
        .arg(&seeds)
        .output()
        .unwrap();
    assert!(db.exists(), "{}", String::from_utf8_lossy(&ingest.stderr));
    let out = dir.path().join("r");
    Command::cargo_bin("bench-db")
        .unwrap()
        .arg("--db")
        .arg(&db)
        .args(["report", "--slo", "p99<=200us", "--out"])
        .arg(&out)
        .assert()
        .success();
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(index.contains("Got better") && index.contains("Got worse"));
    // Seed 004: latency_avg 8.88 ms before, 2.45 ms after.
    assert!(
        index.contains("8.88 ms") && index.contains("2.45 ms") && index.contains("−72.4%"),
        "{index}"
    );
    // Seed 003: ts.rt 3.39 → 2.96 ms, cpu util +2.5%.
    assert!(index.contains("3.39 ms") && index.contains("2.96 ms") && index.contains("−12.6%"));
    assert!(index.contains("+2.5%"));

    let tsar = std::fs::read_to_string(out.join("suite-tsar.html")).unwrap();
    assert!(tsar.contains("Change: "), "shift plot");
    assert!(tsar.contains("before and after"), "both sides over time");
    assert!(tsar.matches("<svg").count() >= 3);

    // Seed 000 (JLBH, three runs), once its parser is registered.
    if let Ok(jlbh) = std::fs::read_to_string(out.join("suite-jlbh.html")) {
        assert!(jlbh.contains("latency by percentile"));
        assert!(jlbh.contains("run 3"));
        assert!(jlbh.contains("Run-to-run variation") && jlbh.contains("class=\"var\""));
    }
    for entry in std::fs::read_dir(&out).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        assert!(!text.contains("<script"), "no scripts in the report");
    }
}
