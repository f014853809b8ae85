//! `bench-db run loopback|threads` end to end: exit codes, printed shape, stored runs.

use assert_cmd::Command;
use predicates::str::contains;

fn bench_db(dir: &std::path::Path) -> Command {
    let mut c = Command::cargo_bin("bench-db").unwrap();
    c.arg("--db").arg(dir.join("bench.db")).current_dir(dir);
    c
}

#[test]
fn loopback_prints_jlbh_layout_and_stores_every_run() {
    let dir = tempfile::tempdir().unwrap();
    let out = bench_db(dir.path())
        .args([
            "run",
            "loopback",
            "--sweep",
            "5000,20000",
            "--iterations",
            "1000",
        ])
        .args([
            "--warmup", "200", "--runs", "2", "--tag", "host=ci", "--hlog", "out.hlog",
        ])
        .assert()
        .success()
        .stderr(contains("run 2 of 2"))
        .stderr(contains("stored 4 runs"))
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    assert_eq!(text.matches("BENCHMARK RESULTS (RUN ").count(), 4);
    assert_eq!(text.matches("SUMMARY (end to end) us").count(), 2);
    assert!(text.contains("loopback 5000/s:\n"));
    assert!(text.contains("Target throughput:20000/s = 1 message every 50us"));
    let hlog = std::fs::read_to_string(dir.path().join("out.hlog")).unwrap();
    assert_eq!(hlog.matches("Tag=end_to_end,").count(), 4);

    let runs = bench_db(dir.path())
        .args(["runs", "--json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let runs: serde_json::Value = serde_json::from_slice(&runs).unwrap();
    let runs = runs.as_array().unwrap();
    assert_eq!(runs.len(), 4);
    let targets: Vec<f64> = runs
        .iter()
        .map(|r| r["params"]["target_throughput"].as_f64().unwrap())
        .collect();
    assert_eq!(targets, [5000.0, 5000.0, 20000.0, 20000.0]);
    assert!(runs.iter().all(|r| r["tags"]["host"] == "ci"));
    assert!(runs.iter().all(|r| r["params"]["co_correction"] == true));
}

#[test]
fn loopback_json_and_no_store() {
    let dir = tempfile::tempdir().unwrap();
    let out = bench_db(dir.path())
        .args([
            "run",
            "loopback",
            "--iterations",
            "500",
            "--warmup",
            "0",
            "--runs",
            "1",
        ])
        .args(["--mode", "spin", "--msg-size", "64", "--json", "--no-store"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v[0]["target_throughput"], 20000);
    assert_eq!(v[0]["runs"][0]["params"]["mode"], "spin");
    assert_eq!(v[0]["runs"][0]["params"]["msg_size"], 64.0);
    assert!(v[0]["runs"][0]["percentiles"]["end_to_end"].is_array());
    assert!(!dir.path().join("bench.db").exists());
}

#[test]
fn loopback_refuses_a_message_too_small_for_the_timestamp() {
    let dir = tempfile::tempdir().unwrap();
    bench_db(dir.path())
        .args(["run", "loopback", "--msg-size", "4", "--no-store"])
        .assert()
        .code(2)
        .stderr(contains("--msg-size must be at least 8"));
}

#[test]
fn threads_prints_one_row_per_pool_size_and_the_best_count() {
    let dir = tempfile::tempdir().unwrap();
    bench_db(dir.path())
        .args(["run", "threads", "--threads", "1,2", "--cpu-time", "1ms"])
        .args(["--io-wait", "4ms", "--duration", "0.2s"])
        .assert()
        .success()
        .stdout(contains("best thread count: measured "))
        .stdout(contains("× cores = (4ms / 1ms + 1) × "))
        .stderr(contains("stored 2 runs"));
    let runs = bench_db(dir.path())
        .args(["runs", "--json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let runs: serde_json::Value = serde_json::from_slice(&runs).unwrap();
    let threads: Vec<f64> = runs
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["params"]["threads"].as_f64().unwrap())
        .collect();
    assert_eq!(threads, [1.0, 2.0]);
}
