//! `bench-db run loopback|threads` end to end: exit codes, printed shape, stored runs,
//! and the stored runs feeding `variation` and `curve`.

use crate::common::Env;
use predicates::str::contains;

#[test]
fn loopback_prints_jlbh_layout_and_stores_every_run() {
    let env = Env::new();
    let out = env
        .cmd(&[
            "run",
            "loopback",
            "--sweep",
            "5000,20000",
            "--iterations",
            "1000",
        ])
        .args([
            "--warmup", "200", "--runs", "3", "--tag", "host=ci", "--hlog", "out.hlog",
        ])
        .assert()
        .success()
        .stderr(contains("run 3 of 3"))
        .stderr(contains("stored 6 runs"))
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    assert_eq!(text.matches("BENCHMARK RESULTS (RUN ").count(), 6);
    assert_eq!(text.matches("SUMMARY (end to end) us").count(), 2);
    assert!(text.contains("loopback 5000/s:\n"));
    assert!(text.contains("Target throughput:20000/s = 1 message every 50us"));
    let hlog = std::fs::read_to_string(env.dir.path().join("out.hlog")).unwrap();
    assert_eq!(hlog.matches("Tag=end_to_end,").count(), 6);

    let runs = env.json(&["runs", "--json"]);
    let runs = runs.as_array().unwrap();
    assert_eq!(runs.len(), 6);
    let targets: Vec<f64> = runs
        .iter()
        .map(|r| r["params"]["target_throughput"].as_f64().unwrap())
        .collect();
    assert_eq!(targets, [5e3, 5e3, 5e3, 2e4, 2e4, 2e4]);
    assert!(runs.iter().all(|r| r["tags"]["host"] == "ci"));
    assert!(runs.iter().all(|r| r["params"]["co_correction"] == true));

    // The stored runs feed the analyses like ingested ones.
    env.ok(&["variation", "label=loopback 20000/s"]);
    // A loaded machine may miss the 20000/s schedule; such runs still belong here.
    let curve = env.ok(&["curve", "suite=loopback", "--include-late"]);
    assert!(curve.contains("5000") && curve.contains("20000"), "{curve}");
}

#[test]
fn loopback_settings_are_config_and_its_hlog_probes_are_cells_of_their_own() {
    let env = Env::new();
    for size in ["8", "65536"] {
        env.cmd(&[
            "run",
            "loopback",
            "--throughput",
            "5000",
            "--iterations",
            "300",
        ])
        .args(["--warmup", "0", "--runs", "2", "--label", "L", "--no-git"])
        .args(["--msg-size", size, "--hlog", &format!("size-{size}.hlog")])
        .assert()
        .success();
    }
    let runs = env.json(&["runs", "--json"]);
    let sizes: Vec<&str> = runs
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let c = &r["config"];
            assert_eq!(c["target_throughput"], 5000.0, "{c}");
            assert_eq!(
                (c["mode"].as_str(), c["pin_client"].as_str()),
                (Some("block"), Some("none"))
            );
            assert!(c.get("iterations").is_none() && c.get("achieved_throughput").is_none());
            if c["msg_size"] == 8.0 { "8" } else { "64K" }
        })
        .collect();
    assert_eq!(sizes, ["8", "8", "64K", "64K"]);
    // Two message sizes are two curves, the rate being their x axis.
    let curve = env.json(&["curve", "label=L", "--include-late", "--json"]);
    // The size is a number, as `runs --json` writes it; curves in the order of its text.
    let sizes: Vec<f64> = curve["curves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["config"]["msg_size"].as_f64().unwrap())
        .collect();
    assert_eq!(sizes, [65536.0, 8.0]);

    // The interval log holds four probes of two runs: four streams, one cell each.
    let hlog = env.dir.path().join("size-8.hlog");
    env.ok(&["ingest", hlog.to_str().unwrap(), "--suite", "probes"]);
    let runs = env.json(&["runs", "suite=probes", "--json"]);
    let tags: Vec<&str> = runs
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["config"]["tag"].as_str().unwrap())
        .collect();
    assert_eq!(
        tags,
        [
            "end_to_end",
            "client2server",
            "end_to_end_uncorrected",
            "server2client"
        ]
    );
    let variation = env.json(&["variation", "suite=probes", "--json"]);
    let groups: std::collections::BTreeSet<String> = variation
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["config"]["tag"].to_string())
        .collect();
    assert_eq!(groups.len(), 4, "{variation}");
}

#[test]
fn loopback_json_and_no_store() {
    let env = Env::new();
    let v = env.json(&[
        "run",
        "loopback",
        "--iterations",
        "500",
        "--warmup",
        "0",
        "--runs",
        "1",
        "--mode",
        "spin",
        "--msg-size",
        "64",
        "--json",
        "--no-store",
    ]);
    assert_eq!(v[0]["target_throughput"], 20000);
    assert_eq!(v[0]["runs"][0]["params"]["mode"], "spin");
    assert_eq!(v[0]["runs"][0]["params"]["msg_size"], 64.0);
    assert!(v[0]["runs"][0]["percentiles"]["end_to_end"].is_array());
    assert!(!env.db().exists());
}

#[test]
fn loopback_refuses_a_message_too_small_for_the_timestamp() {
    let env = Env::new();
    env.cmd(&["run", "loopback", "--msg-size", "4", "--no-store"])
        .assert()
        .code(2)
        .stderr(contains("--msg-size must be at least 8"));
}

#[test]
fn threads_prints_one_row_per_pool_size_and_the_best_count() {
    let env = Env::new();
    env.cmd(&["run", "threads", "--threads", "1,2", "--cpu-time", "1ms"])
        .args(["--io-wait", "4ms", "--duration", "0.2s"])
        .assert()
        .success()
        .stdout(contains("best thread count: measured "))
        .stdout(contains("× cores = (4ms / 1ms + 1) × "))
        .stderr(contains("stored 2 runs"));
    let runs = env.json(&["runs", "--json"]);
    let threads: Vec<f64> = runs
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["params"]["threads"].as_f64().unwrap())
        .collect();
    assert_eq!(threads, [1.0, 2.0]);
}
