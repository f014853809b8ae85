//! `compare`, `curve` and `gate` through the binary, on the seed documents in
//! `../shared/seeds` (skipped when absent).

use crate::common::{Env, close, fixture, shared};
use serde_json::Value;

/// A fresh database holding the seed whose file name starts with `prefix`.
fn with_seed(prefix: &str) -> Option<Env> {
    let dir = shared("seeds")?;
    let path = std::fs::read_dir(&dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(prefix))
        })?;
    let env = Env::new();
    env.ok(&["ingest", path.to_str().unwrap()]);
    Some(env)
}

/// `(exit code, stdout)`.
fn code_out(env: &Env, args: &[&str]) -> (i32, String) {
    let out = env.cmd(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
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

const BEFORE_004: &str = "label=Before this changes";
const AFTER_004: &str = "label=After these changes";
const MASTER_003: &str = "label=the current master";
const PATCH_003: &str = "label=the current master with patch version v11jp";

#[test]
fn seed_004_single_values_delta_only() {
    let Some(env) = with_seed("004") else { return };
    let cells = env.json(&[
        "compare",
        "--baseline",
        BEFORE_004,
        "--candidate",
        AFTER_004,
        "--json",
    ]);
    let c = cell(&cells, "latency_avg");
    assert_eq!(round2(&c["baseline"]), 8.88);
    assert_eq!(round2(&c["candidate"]), 2.45);
    assert_eq!(round2(&c["delta_pct"]), -72.41);
    assert_eq!(c["verdict"], "insufficient");
    assert!(c["percentile"].is_null());
    // One run a side is below the default minimum: cannot decide, never a regression.
    assert_eq!(
        code_out(
            &env,
            &["gate", "--baseline", BEFORE_004, "--candidate", BEFORE_004]
        )
        .0,
        3
    );
    // --out writes the verdict to a file instead of standard output.
    let junit = env.dir.path().join("gate.xml");
    let (code, out) = code_out(
        &env,
        &[
            "gate",
            "--baseline",
            BEFORE_004,
            "--candidate",
            AFTER_004,
            "--format",
            "junit",
            "--out",
            junit.to_str().unwrap(),
        ],
    );
    assert_eq!((code, out.as_str()), (3, ""));
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(
        xml.contains("<testcase classname=\"arthas\" name=\"latency_avg\">"),
        "{xml}"
    );
    // A threshold naming a metric that does not exist is an error.
    let args = [
        "gate",
        "--baseline",
        BEFORE_004,
        "--candidate",
        AFTER_004,
        "--max",
        "no_such_metric=+5%",
    ];
    assert_eq!(code_out(&env, &args).0, 2);
}

#[test]
fn seed_003_tsar_before_after_and_gate() {
    let Some(env) = with_seed("003") else { return };
    let cells = env.json(&[
        "compare",
        "--baseline",
        MASTER_003,
        "--candidate",
        PATCH_003,
        "--json",
    ]);
    let rt = cell(&cells, "ts.rt");
    assert_eq!(round2(&rt["delta_pct"]), -12.58);
    assert_eq!(rt["verdict"], "better");
    assert!((rt["baseline"].as_f64().unwrap() - 3.388).abs() < 1e-9);
    assert!((rt["candidate"].as_f64().unwrap() - 2.962).abs() < 5e-4);
    assert!(rt["p_value"].as_f64().unwrap() < 0.01);
    assert!(rt["p_adjusted"].as_f64().unwrap() < 0.01);
    let cpu = cell(&cells, "cpu.util");
    assert_eq!(round2(&cpu["baseline"]), 68.36);
    assert_eq!(round2(&cpu["candidate"]), 70.08);
    assert_eq!(round2(&cpu["delta_pct"]), 2.51);
    assert_eq!(cpu["verdict"], "worse");
    assert!(cpu["ci_low_pct"].as_f64().unwrap() > 0.0);
    assert!(cpu["p_value"].as_f64().unwrap() < 0.01);

    let gate = |base: &str, cand: &str, format: &str| {
        code_out(
            &env,
            &[
                "gate",
                "--baseline",
                base,
                "--candidate",
                cand,
                "--max",
                "ts.rt=+5%",
                "--format",
                format,
            ],
        )
    };
    assert_eq!(gate(MASTER_003, PATCH_003, "text").0, 0);
    for format in ["text", "json", "markdown", "junit", "github"] {
        let (code, out) = gate(PATCH_003, MASTER_003, format);
        assert_eq!(code, 1, "{format}: {out}");
        assert!(out.contains("ts.rt"), "{format}: {out}");
    }
    // The same runs on both sides leave the baseline empty: undecided, as a first run
    // (with its threshold, which used to be an error naming nothing), not a pass.
    assert_eq!(gate(MASTER_003, MASTER_003, "text").0, 3);
    assert_eq!(gate("label=nothing-stored", PATCH_003, "text").0, 3);
    // Markdown for a PR comment is a table.
    let md = env.ok(&[
        "compare",
        "--baseline",
        MASTER_003,
        "--candidate",
        PATCH_003,
        "--markdown",
    ]);
    assert!(md.contains("| ts.rt"), "{md}");
}

#[test]
fn seed_002_tcp_against_the_default_transport() {
    let Some(env) = with_seed("002") else { return };
    let args = [
        "compare",
        "--baseline",
        "label=测试结果如下",
        "--candidate",
        "label=Test results using TCP",
        "--metric",
        "msgs_per_sec",
        "--json",
    ];
    let cells = env.json(&args);
    let c = cell(&cells, "msgs_per_sec");
    assert_eq!(round2(&c["baseline"]), 13252.0);
    assert_eq!(round2(&c["candidate"]), 13467.0);
    // The one estimate is the tested change of the geometric means; the medians' change
    // has its own name.
    assert_eq!(round2(&c["delta_pct"]), 1.63);
    assert_eq!(round2(&c["central_delta_pct"]), 1.62);
    assert!(
        c["ci_low_pct"].as_f64().unwrap() <= 1.63 && 1.63 <= c["ci_high_pct"].as_f64().unwrap()
    );
    assert_eq!(c["verdict"], "better");
    // The same runs on both sides never regress; four runs a side are below the
    // default minimum of 5, so the gate cannot decide (3).
    let same = [
        "gate",
        "--baseline",
        "label=Test results using TCP",
        "--candidate",
        "label=Test results using TCP",
    ];
    assert_eq!(code_out(&env, &same).0, 3);
}

#[test]
fn seed_000_curve_has_one_throughput() {
    let Some(env) = with_seed("000") else { return };
    let curve = env.json(&["curve", "--json", "--percentiles", "50,90"]);
    let points = curve["points"].as_array().unwrap();
    assert_eq!(points.len(), 2, "{curve}");
    assert!(
        points
            .iter()
            .all(|p| p["throughput"].as_f64() == Some(20000.0) && p["runs"] == 2)
    );
    let p90 = |curve: &Value| {
        curve["points"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["percentile"].as_f64() == Some(90.0))
            .unwrap()
            .clone()
    };
    // Run 1 (2949.12) is JLBH's warm-up: the median of runs 2 and 3, 868.35 and 151.55.
    let p = p90(&curve);
    close(p["value"].as_f64().unwrap(), 509.95, 1e-9);
    assert_eq!(p["min"].as_f64(), Some(151.55));
    assert_eq!(p["max"].as_f64(), Some(868.35));
    // `--include-first` keeps it: the median of the three.
    let all = env.json(&[
        "curve",
        "--json",
        "--percentiles",
        "50,90",
        "--include-first",
    ]);
    let p = p90(&all);
    assert_eq!(p["runs"], 3);
    assert_eq!(p["value"].as_f64(), Some(868.35));
    assert_eq!(p["max"].as_f64(), Some(2949.12));
}

/// `curve` leaves JLBH's warm-up run out as `compare` does (fixtures/jlbh/v10-current.txt
/// line 8: run 1's end-to-end p50 8.07; runs 2 and 3: 8.03 and 7.99).
#[test]
fn curve_leaves_the_jlbh_warm_up_run_out() {
    let env = Env::new();
    env.ok(&[
        "ingest",
        "--label",
        "after",
        &fixture("jlbh/v10-current.txt"),
    ]);
    let curve = env.json(&["curve", "label=after;suite=jlbh", "--json"]);
    let p50 = curve["points"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["percentile"].as_f64() == Some(50.0))
        .unwrap();
    assert_eq!(p50["runs"], 2, "{curve}");
    close(p50["value"].as_f64().unwrap(), 8.01, 1e-9);
    assert_eq!(p50["max"].as_f64(), Some(8.03));
    assert_eq!(p50["min"].as_f64(), Some(7.99));
}

/// wrk2's `latency` is its detailed spectrum, with rows at 99.0625, not 99: `curve` reads
/// p99 where wrk2 printed it (`99.000%    2.94ms`, line 165 of the GET run at 1000/s;
/// `86.21ms` at line 23 for PUT at 1001/s), and the PUT and GET runs, labelled by their
/// headings, are two curves, not one with a cliff between 1000 and 1001/s.
#[test]
fn curve_reads_wrk2_p99_where_it_was_printed_and_keeps_endpoints_apart() {
    let env = Env::new();
    env.ok(&[
        "ingest",
        "--no-git",
        &fixture("real/wrk/polis-highload-2021-STAGE1-crlf.md.txt"),
    ]);
    let v = env.json(&["curve", "--slo", "p99<=3ms", "--json"]);
    let curves = v["curves"].as_array().unwrap();
    assert_eq!(curves.len(), 2, "{v}");
    let by_label = |l: &str| curves.iter().find(|c| c["label"] == l).unwrap();
    let get = by_label("GET запросами");
    let put = by_label("PUT-запросами");
    let p99 = |c: &Value| -> (f64, f64) {
        let p = c["points"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["percentile"] == 99.0)
            .unwrap();
        (
            p["throughput"].as_f64().unwrap(),
            p["value"].as_f64().unwrap(),
        )
    };
    assert_eq!(p99(get), (1000.0, 2940.0));
    assert_eq!(p99(put), (1001.0, 86210.0));
    assert_eq!(get["max_throughput_within_slo"], 1000.0);
    assert_eq!(put["max_throughput_within_slo"], Value::Null);
}

/// A committed sweep (chronicle-queue-demo-2019-throughput-test.txt): 11 tables each under
/// `// -Dthroughput=N`, 3 unmarked. One curve of the 11 rates, read by hand from the file
/// (runs 2-5; JLBH's first run is its warm-up); the unmarked tables' runs are skipped.
#[test]
fn a_jlbh_sweep_labelled_by_its_rates_is_one_curve() {
    let env = Env::new();
    env.ok(&[
        "ingest",
        "--no-git",
        &fixture("real/jlbh/chronicle-queue-demo-2019-throughput-test.txt"),
    ]);
    let v = env.json(&["curve", "--percentiles", "99.9", "--json"]);
    let curves = v["curves"].as_array().unwrap();
    assert_eq!(curves.len(), 1, "{v}");
    let c = &curves[0];
    assert_eq!(c["label"], Value::Null, "{c}");
    assert_eq!(c["skipped_runs"], 12, "{c}");
    let rates: Vec<f64> = c["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["throughput"].as_f64().unwrap())
        .collect();
    assert_eq!(
        rates,
        [
            150e3, 200e3, 300e3, 400e3, 500e3, 700e3, 900e3, 1e6, 1.2e6, 1.4e6, 1.6e6
        ]
    );
    let at = |rate: f64| {
        c["points"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["throughput"] == rate)
            .unwrap()
    };
    // 3607.55, 10194.94, 13217.79, 15994.88
    assert_eq!(at(150e3)["value"], 11706.365);
    assert_eq!(at(150e3)["min"], 3607.55);
    assert_eq!(at(1.6e6)["max"], 27303.94);
}

/// sockperf prints no rate for a latency run: its curve point is the rate it sent at
/// (`SentMessages / RunTime` of the valid duration: 2547 / 2.546 s over TCP, 1549 / 1.551 s
/// over UDP, read from the files), and TCP and UDP are two curves, not two rates of one.
#[test]
fn sockperf_runs_are_drawn_at_their_sent_rate_one_curve_per_protocol() {
    let env = Env::new();
    for f in [
        "pingpong-tcp-fullrtt-1000.txt",
        "pingpong-udp-fullrtt-1000.txt",
    ] {
        env.ok(&[
            "ingest",
            "--no-git",
            &fixture(&format!("real/sockperf/{f}")),
        ]);
    }
    let v = env.json(&["curve", "--percentiles", "99", "--json"]);
    let curves = v["curves"].as_array().unwrap();
    assert_eq!(curves.len(), 2, "{v}");
    let point = |protocol: &str| {
        let c = curves
            .iter()
            .find(|c| c["config"]["protocol"] == protocol)
            .unwrap_or_else(|| panic!("no {protocol} curve in {v}"));
        let p = &c["points"][0];
        (
            p["throughput"].as_f64().unwrap(),
            p["value"].as_f64().unwrap(),
        )
    };
    let (tcp_rate, tcp_p99) = point("TCP");
    assert!((tcp_rate - 2547.0 / 2.546).abs() < 1e-9, "{tcp_rate}");
    assert_eq!(tcp_p99, 4682.177);
    let (udp_rate, _) = point("UDP");
    assert!((udp_rate - 1549.0 / 1.551).abs() < 1e-9, "{udp_rate}");
}

/// A baseline whose tag key no stored run carries (`tag.brnach`) is a typo, exit 2: as
/// undecided (exit 3, which CI lets pass) every later pull request would pass unchecked.
/// A known key with a value nothing has yet is a first run, exit 3.
#[test]
fn a_misspelt_baseline_tag_key_is_an_error_not_a_first_run() {
    let env = Env::new();
    env.ingest_commit_on(&fixture("real/go-bench/bench-count3.txt"), 1, "main");
    env.ingest_commit_on(&fixture("real/go-bench/bench-count3-b.txt"), 2, "pr-7");
    let gate = |baseline: &str| {
        let out = env
            .cmd(&[
                "gate",
                "--baseline",
                baseline,
                "--candidate",
                "tag.commit=c2",
            ])
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, err) = gate("tag.brnach=main;latest=10");
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains(
            "no stored run has a tag brnach (the tags stored: branch, commit, host, time)"
        ),
        "{err}"
    );
    let (code, err) = gate("tag.branch=release;latest=10");
    assert_eq!(code, Some(3), "{err}");
    // The right key selects main's one commit: a verdict, not an error.
    assert_ne!(gate("tag.branch=main;latest=10").0, Some(2));
}

/// A pull request that renames a benchmark (`BenchmarkJoin` to `BenchmarkJoinStrings` in
/// bench-count3-b.txt) is told of on both commands: the renamed one is in no cell, so
/// without a note it would leave the comparison unseen.
#[test]
fn benchmarks_only_one_side_holds_are_named() {
    let env = Env::new();
    let text = std::fs::read_to_string(fixture("real/go-bench/bench-count3-b.txt")).unwrap();
    let renamed = env.write(
        "renamed.txt",
        text.replace("BenchmarkJoin-", "BenchmarkJoinStrings-")
            .as_bytes(),
    );
    let base = fixture("real/go-bench/bench-count3.txt");
    env.ok(&["ingest", "--no-git", "--label", "base", &base]);
    env.ok(&["ingest", "--no-git", "--label", "pr", &renamed]);
    for command in ["compare", "gate"] {
        let out = env
            .cmd(&[
                command,
                "--baseline",
                "label=base",
                "--candidate",
                "label=pr",
            ])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("note: only in the baseline, not compared (dropped or renamed?): 1 benchmark (go-bench / BenchmarkJoin ["),
            "{command}: {err}"
        );
        assert!(
            err.contains("note: only in the candidate, not compared (new or renamed?): 1 benchmark (go-bench / BenchmarkJoinStrings ["),
            "{command}: {err}"
        );
        assert!(!err.contains("SortCopy"), "{command}: {err}");
    }
}

#[test]
fn empty_database_and_bad_slo_are_errors() {
    let env = Env::new();
    // A database with no runs (the one file is not a benchmark log).
    let f = env.write("notes.txt", b"hello\n");
    env.ok(&["ingest", &f]);
    assert_eq!(
        code_out(
            &env,
            &["compare", "--baseline", "run=1", "--candidate", "run=2"]
        )
        .0,
        2
    );
    assert_eq!(code_out(&env, &["curve", "--slo", "p99=fast"]).0, 2);
    // A candidate selecting nothing is a mistake in the script (exit 2); an empty
    // baseline alone is a first run, undecided (exit 3).
    assert_eq!(
        code_out(
            &env,
            &["gate", "--baseline", "run=1", "--candidate", "run=2"]
        )
        .0,
        2
    );
}

/// The output of `compare` with its standard error.
fn compare_out(env: &Env, args: &[&str]) -> (i32, String, String) {
    let out = env
        .cmd(&[&["compare"][..], args].concat())
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// JLBH at 2000/s labelled `before`, and at 100000/s labelled `after`.
fn jlbh_before_after() -> Env {
    let env = Env::new();
    env.ok(&[
        "ingest",
        &fixture("jlbh/v1-varlog.txt"),
        "--label",
        "before",
    ]);
    env.ok(&[
        "ingest",
        &fixture("jlbh/v10-current.txt"),
        "--label",
        "after",
    ]);
    env
}

/// JLBH at 2000/s (interval 500 µs) against 100000/s (10 µs, NORMAL): each side holds one
/// configuration, so their cells pair, and every row says across which keys; the
/// configuration they share stays `config`.
#[test]
fn cells_paired_across_configurations_say_so() {
    let env = jlbh_before_after();
    let sides = ["--baseline", "label=before", "--candidate", "label=after"];
    let (code, text, _) = compare_out(&env, &sides);
    assert_eq!(code, 0);
    assert!(
        text.lines().nth(1).unwrap().contains(
            "[co_correction=true distribution=– → NORMAL interval_us=500 → 10 target_throughput=2000 → 100000]  end_to_end"
        ),
        "{text}"
    );
    assert!(text.contains("paired across configurations (12 rows: distribution=– → NORMAL, interval_us=500 → 10, target_throughput=2000 → 100000): each side holds one configuration"), "{text}");
    let cells = env.json(&[&["compare", "--json"][..], &sides].concat());
    let first = &cells[0];
    assert_eq!(
        first["config"],
        serde_json::json!({"co_correction": "true"})
    );
    assert_eq!(
        first["config_baseline"],
        serde_json::json!({"interval_us": "500", "target_throughput": "2000"})
    );
    assert_eq!(
        first["config_candidate"],
        serde_json::json!({"distribution": "NORMAL", "interval_us": "10", "target_throughput": "100000"})
    );
    // The gate's cells say the same.
    let out = env
        .cmd(&[&["gate", "--json"][..], &sides].concat())
        .output()
        .unwrap();
    let gate: Value = serde_json::from_slice(&out.stdout).unwrap();
    let cell = &gate["cells"][0];
    assert_eq!(cell["config_baseline"], first["config_baseline"]);
    assert_eq!(cell["config_candidate"], first["config_candidate"]);
    // Named by both selectors, the rate is what is compared: no note.
    let named = [
        "--baseline",
        "label=before;param.target_throughput=2000",
        "--candidate",
        "label=after;param.target_throughput=100000",
    ];
    let (_, text, _) = compare_out(&env, &named);
    assert!(
        text.contains(
            "paired across configurations (12 rows: distribution=– → NORMAL, interval_us=500 → 10):"
        ),
        "{text}"
    );
    // wrk2 at one thread against 64, both at 64 connections.
    let Some(wrk) = shared("samples/wrk") else {
        return;
    };
    let env = Env::new();
    for (file, label) in [
        ("wrk2-latency-modern-polis-highload.txt", "before"),
        ("wrk2-latency-modern-64threads-polis-highload.txt", "after"),
    ] {
        env.ok(&[
            "ingest",
            &wrk.join(file).display().to_string(),
            "--label",
            label,
        ]);
    }
    let (_, text, _) = compare_out(&env, &sides);
    assert!(
        text.contains("[connections=64 threads=1 → 64]  latency"),
        "{text}"
    );
    assert!(text.contains(": threads=1 → 64): "), "{text}");
    let cells = env.json(&[&["compare", "--json"][..], &sides].concat());
    assert_eq!(cells[0]["config"], serde_json::json!({"connections": "64"}));
    assert_eq!(
        cells[0]["config_baseline"],
        serde_json::json!({"threads": "1"})
    );
    assert_eq!(
        cells[0]["config_candidate"],
        serde_json::json!({"threads": "64"})
    );
}

/// A candidate of two JLBH rates (100000/s and 20000/s) against one of 2000/s: nothing
/// pairs, as a side's configurations are never pooled, and `compare` says why and how
/// to select one instead of calling the metric absent.
#[test]
fn a_metric_whose_configurations_do_not_pair_says_why() {
    let env = jlbh_before_after();
    env.ok(&["ingest", &fixture("jlbh/locale-de.txt"), "--label", "after"]);
    let sides = ["--baseline", "label=before", "--candidate", "label=after"];
    let why = "metric \"end_to_end\" is on both sides, but no cell pairs: the baseline holds it in 1 configuration ([co_correction=true interval_us=500 target_throughput=2000]), the candidate in 2 configurations ([co_correction=true distribution=NORMAL interval_us=10 target_throughput=100000]; [co_correction=true interval_us=50 target_throughput=20000]); a side's configurations are never pooled";
    let (code, text, err) = compare_out(&env, &[&sides[..], &["--metric", "end_to_end"]].concat());
    assert_eq!(code, 0);
    assert!(
        text.starts_with("no cell pairs between the sides:\n- "),
        "{text}"
    );
    assert!(text.contains(why), "{text}");
    assert!(
        text.contains("select one on each side with param.distribution=NORMAL, param.interval_us=500|10|50, param.target_throughput=2000|100000|20000"),
        "{text}"
    );
    assert!(err.contains(&format!("warning: {why}")), "{err}");
    assert!(!err.contains("not present on both sides"), "{err}");
    // JSON has no room for it: standard error says it.
    let (code, json, err) = compare_out(&env, &[&sides[..], &["--json"]].concat());
    assert_eq!((code, json.trim()), (0, "[]"));
    assert!(err.contains(&format!("warning: {why}")), "{err}");
    // Selecting one rate on the candidate's side pairs it.
    let (_, text, _) = compare_out(
        &env,
        &[
            "--baseline",
            "label=before",
            "--candidate",
            "label=after;param.target_throughput=20000",
            "--metric",
            "end_to_end",
        ],
    );
    assert!(text.contains("target_throughput=2000 → 20000"), "{text}");
}

/// The same runs on both sides: `compare` compares them with themselves and warns, naming
/// how many; `gate` leaves them out of the baseline, so identical sides cannot pass.
#[test]
fn sides_sharing_runs_are_warned_of() {
    let env = jlbh_before_after();
    let warning = "warning: the baseline and the candidate share 3 runs (of 3 and 3): a run on both sides is compared with itself, which hides a change";
    let (code, text, err) = compare_out(
        &env,
        &["--baseline", "label=before", "--candidate", "label=before"],
    );
    assert_eq!(code, 0);
    assert!(
        text.contains("same") || text.contains("inconclusive"),
        "{text}"
    );
    assert!(err.contains(warning), "{err}");
    let gate = env
        .cmd(&[
            "gate",
            "--baseline",
            "suite=jlbh",
            "--candidate",
            "label=before",
        ])
        .output()
        .unwrap();
    assert_eq!(gate.status.code(), Some(3));
    let err = String::from_utf8(gate.stderr).unwrap();
    assert!(
        err.contains(
            "note: baseline: leaves out the 3 runs the candidate also selects (a run is not its \
             own baseline): 3 baseline runs left"
        ),
        "{err}"
    );
    // Identical sides used to pass (exit 0) on a run compared with itself.
    let gate = env
        .cmd(&[
            "gate",
            "--baseline",
            "label=before",
            "--candidate",
            "label=before",
            "--json",
        ])
        .output()
        .unwrap();
    assert_eq!(gate.status.code(), Some(3));
    let err = String::from_utf8(gate.stderr).unwrap();
    assert!(
        err.contains("the baseline selects only the candidate's own runs"),
        "{err}"
    );
    let v: serde_json::Value = serde_json::from_slice(&gate.stdout).unwrap();
    assert_eq!(
        (v["outcome"].as_str(), v["baseline_runs"].as_u64()),
        (Some("undecided"), Some(0))
    );
    let (_, _, err) = compare_out(
        &env,
        &["--baseline", "label=before", "--candidate", "label=after"],
    );
    assert!(!err.contains("share"), "{err}");
}

/// The footer says what the family correction does: Go's three benchmarks at 3 runs a
/// side are three groups of runs, each at p 0.1000 (2/C(6,3)), Bonferroni-adjusted to 0.3000.
#[test]
fn the_compare_footer_states_the_family() {
    let env = Env::new();
    for (file, label) in [("bench-count3.txt", "a"), ("bench-count3-b.txt", "b")] {
        let path = fixture(&format!("real/go-bench/{file}"));
        env.ok(&["ingest", &path, "--label", label]);
    }
    let (_, text, _) = compare_out(&env, &["--baseline", "label=a", "--candidate", "label=b"]);
    let join = text
        .lines()
        .find(|l| l.contains("BenchmarkJoin ") && l.contains("ns_op"))
        .unwrap();
    assert!(join.contains("0.1000  0.3000"), "{join}");
    assert!(
        text.contains("p_adj: step-down max-T within each group of rows measured by the same runs (one benchmark's metrics and percentiles), Bonferroni across those groups;"),
        "{text}"
    );
}

#[test]
fn config_values_keep_their_stored_types_in_runs_history_and_curve() {
    // JLBH's load is numbers and a flag; JMH's @Param values are strings, `"false"` too.
    let env = Env::new();
    env.ok(&["ingest", &fixture("jlbh/v10-current.txt"), "--no-git"]);
    let jmh = fixture("real/jmh/jcasbin-jmh-result-0b7774d.json");
    env.ok(&["ingest", &jmh, "--no-git"]);
    let jlbh = serde_json::json!({
        "co_correction": true,
        "distribution": "NORMAL",
        "interval_us": 10.0,
        "target_throughput": 100000.0,
    });
    let param = serde_json::json!({"dataScale": "small", "modelType": "rbac", "useCache": "false"});
    let runs = env.json(&["runs", "--json"]);
    let configs: Vec<&Value> = runs
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["config"])
        .collect();
    assert!(
        configs.contains(&&jlbh) && configs.contains(&&param),
        "{configs:?}"
    );
    let history = env.json(&["history", "--json"]);
    let series = |suite: &str, config: &Value| {
        history
            .as_array()
            .unwrap()
            .iter()
            .any(|h| h["suite"] == suite && h["config"] == *config)
    };
    assert!(series("jlbh", &jlbh) && series("jmh", &param));
    // The curve leaves out the rate (`target_throughput`, `interval_us`).
    let curve = env.json(&["curve", "suite=jlbh", "--json"]);
    assert_eq!(
        curve["curves"][0]["config"],
        serde_json::json!({"co_correction": true, "distribution": "NORMAL"})
    );
}

#[test]
fn curve_columns_print_whole_numbers_as_their_neighbours() {
    // fixtures/qps-table/sweep.txt: 640 qps at 12.5 ms is 8 requests in flight, beside
    // 1221 × 13.1 ms = 15.995 and 1524 × 21 ms = 32.004; 21 ms beside 12.5 and 13.1.
    let env = Env::new();
    env.ok(&["ingest", &fixture("qps-table/sweep.txt"), "--no-git"]);
    let text = env.ok(&["curve"]);
    assert!(
        text.contains(
            "throughput  pct  median  min   max   runs  concurrency\n\
             640         -    12.5    12.5  12.5  1     8.00\n\
             1221        -    13.1    13.1  13.1  1     16.00\n\
             1524        -    21.0    21.0  21.0  1     32.00\n"
        ),
        "{text}"
    );
}

/// Two tsar tables (6 and 4 minutes): a series' interval is that of its ratio of means,
/// never below −100% and holding the estimate, and none where the baseline mean cannot
/// be told from 0; all-zero series are the same, not short of independent samples; the
/// printed MAX/MEAN/MIN tail is shown beside the cell.
#[test]
fn tsar_series_intervals_respect_positivity() {
    let Some(dir) = shared("samples/tsar") else {
        return;
    };
    let env = Env::new();
    for (file, label) in [
        (
            "history-default-modules-with-max-mean-min-clsn.txt",
            "before",
        ),
        ("live-default-modules-clsn.txt", "after"),
    ] {
        let path = dir.join(file);
        env.ok(&[
            "ingest",
            path.to_str().unwrap(),
            "--label",
            label,
            "--no-git",
        ]);
    }
    let args = [
        "compare",
        "--baseline",
        "label=before",
        "--candidate",
        "label=after",
    ];
    let cells = env.json(&[&args[..], &["--json"]].concat());
    for c in cells.as_array().unwrap() {
        if let (Some(lo), Some(hi)) = (c["ci_low_pct"].as_f64(), c["ci_high_pct"].as_f64()) {
            let d = c["delta_pct"].as_f64().unwrap();
            assert!(lo >= -100.0 && lo <= d && d <= hi, "{c}");
        }
    }
    let mem = cell(&cells, "mem.util");
    assert_eq!(round2(&mem["delta_pct"]), 0.58);
    assert_eq!(
        (round2(&mem["ci_low_pct"]), round2(&mem["ci_high_pct"])),
        (-0.56, 1.73)
    );
    // 0.16 → 0.49 and 0.0533 → 0 (the old difference intervals: [−681%, +1094%] and
    // [−304%, +104%]).
    for metric in ["cpu.util", "sda.util"] {
        assert!(cell(&cells, metric)["ci_low_pct"].is_null(), "{metric}");
    }
    for metric in ["load.load1", "tcp.retran"] {
        let c = cell(&cells, metric);
        assert_eq!(
            (c["verdict"].as_str(), c["ess_baseline"].as_f64()),
            (Some("same"), Some(6.0))
        );
    }
    // tsar's printed tail beside the cell (the live table has none); its MEAN leaves out
    // the first row: traffic.bytin 72, 5, 4, 4, 21, 19 → MEAN 10.60, bench-db 20.83.
    let bytin = cell(&cells, "traffic.bytin");
    let printed = &bytin["printed_baseline"];
    assert_eq!(
        (printed["name"].as_str(), printed["value"].as_f64()),
        (Some("MEAN"), Some(10.6))
    );
    assert_eq!(
        (printed["min"].as_f64(), printed["max"].as_f64()),
        (Some(4.0), Some(72.0))
    );
    assert!(
        printed["note"].as_str().unwrap().contains("rows 2–6"),
        "{printed}"
    );
    assert!(bytin["printed_candidate"].is_null());
    // mem.util's MEAN 18.37 is bench-db's 18.373 as printed: no note.
    assert!(cell(&cells, "mem.util")["printed_baseline"]["note"].is_null());
    let text = env.ok(&args);
    assert!(
        text.contains("tsar printed: baseline 10.6 (min 4, max 72) (MEAN), candidate -; tsar's MEAN is the mean of rows 2–6"),
        "{text}"
    );
    assert!(
        text.contains("no CI (4 rows): a series' CI is that of the ratio"),
        "{text}"
    );
    assert!(!text.contains("autocorrelation leaves fewer"), "{text}");
}

/// A gate over two suites names each row's suite: the same benchmark in suites `x` and
/// `y` is two cells, told apart in the table, the Markdown and the annotations.
#[test]
fn a_gate_over_several_suites_names_them() {
    let env = Env::new();
    let go = |f: &str| fixture(&format!("real/go-bench/{f}"));
    for suite in ["x", "y"] {
        for (f, label) in [
            ("bench-count3.txt", "before"),
            ("bench-count3-b.txt", "after"),
        ] {
            env.ok(&[
                "ingest",
                &go(f),
                "--suite",
                suite,
                "--label",
                label,
                "--no-git",
            ]);
        }
    }
    let args = [
        "gate",
        "--baseline",
        "label=before",
        "--candidate",
        "label=after",
    ];
    let text = String::from_utf8(env.cmd(&args).output().unwrap().stdout).unwrap();
    for suite in ["x", "y"] {
        assert!(
            text.contains(&format!("{suite} / BenchmarkJoin [cpu=AMD EPYC goarch=amd64 goos=linux pkg=example.com/benchdemo procs=2] ns_op  ")),
            "{text}"
        );
    }
    let md = String::from_utf8(
        env.cmd(&[&args[..], &["--format", "markdown"]].concat())
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    assert!(md.contains("| y / BenchmarkSortCopy ["), "{md}");
}

/// wrk's curve runs at the run's `Requests/sec`, not one thread's `Req/Sec`:
/// fixtures/real/wrk/helloworld_wrk_test-solon_jlhttp-README-20230101.md.txt, four runs of
/// 10 threads print 127822.19, 130382.40, 136846.55 and 133425.46 (their threads' means
/// 13.23k … 14.20k were the x before). Their headings (第一次 … 第四次, "first" to
/// "fourth time") say no rate: each is a curve of its own, as any given label is.
#[test]
fn a_wrk_curve_is_drawn_at_the_runs_request_rate() {
    let env = Env::new();
    env.ok(&[
        "ingest",
        &fixture("real/wrk/helloworld_wrk_test-solon_jlhttp-README-20230101.md.txt"),
        "--no-git",
    ]);
    let curve = env.json(&["curve", "--json"]);
    let mut x: Vec<f64> = curve["curves"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["points"].as_array().unwrap().clone())
        .map(|p| p["throughput"].as_f64().unwrap())
        .collect();
    x.sort_by(f64::total_cmp);
    x.dedup();
    assert_eq!(x, [127822.19, 130382.40, 133425.46, 136846.55]);
}

/// A passing cell whose estimate fell but whose interval holds no change is not called
/// better without saying so: hyperfine's `sleep 0.01` over two real invocations of 10
/// (fixtures/real/hyperfine/two-commands.json, two-commands-b.json) is −4.89% with a
/// 95% CI of −27.72% to +19.31%.
#[test]
fn a_pass_that_fell_within_its_noise_is_not_shown_better() {
    let env = Env::new();
    for (f, label) in [
        ("two-commands.json", "before"),
        ("two-commands-b.json", "after"),
    ] {
        env.ok(&[
            "ingest",
            &fixture(&format!("real/hyperfine/{f}")),
            "--label",
            label,
            "--no-git",
        ]);
    }
    let out = env
        .cmd(&[
            "gate",
            "--baseline",
            "label=before",
            "--candidate",
            "label=after",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("-4.89%  +10%")
            && text.contains("better by 4.89% but not shown better (95% CI -27.72% to +19.31%)"),
        "{text}"
    );
}

/// A curve follows one branch, as `history` does: a pull request's one commit is not
/// pooled into main's points (fixtures/qps-table/sweep.txt at three rates, twice on main,
/// once on pr-7: 2 runs a point, not 3) and is left out with a note.
#[test]
fn a_branch_commit_is_not_a_point_of_mains_curve() {
    let env = Env::new();
    let sweep = fixture("qps-table/sweep.txt");
    env.ingest_commit(&sweep, 1);
    env.ingest_commit(&sweep, 2);
    env.ingest_commit_on(&sweep, 3, "pr-7");
    let out = env.cmd(&["curve", "--json"]).output().unwrap();
    assert!(out.status.success());
    let curve: Value = serde_json::from_slice(&out.stdout).unwrap();
    let curves = curve["curves"].as_array().unwrap();
    assert_eq!(curves.len(), 1, "{curve}");
    assert_eq!(curves[0]["branch"], "main");
    assert!(
        curves[0]["points"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["runs"] == 2),
        "{curve}"
    );
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains(
            "1 branch with one commit left out beside the longer history of the same curve (pr-7)"
        ),
        "{err}"
    );
}

/// One output ingested for five commits is one measurement, not five that agree to the
/// last digit: Go's Join 1064, 1289 and 1102 ns/op five times against one invocation of
/// 1289 three times (a value the baseline printed) is 3 runs against 3, p = 0.4, never a
/// 0-wide interval at p < 0.0001 with the gate failing on "baseline noise 0.00%".
#[test]
fn copies_of_one_output_count_once() {
    let env = Env::new();
    let go = fixture("real/go-bench/bench-count3.txt");
    for i in 1..=5 {
        env.ingest_commit(&go, i);
    }
    let text = std::fs::read_to_string(&go).unwrap();
    let resampled = env.write(
        "resampled.txt",
        text.replace("214471\t      1064 ns", "214471\t      1289 ns")
            .replace("197029\t      1102 ns", "197029\t      1289 ns")
            .as_bytes(),
    );
    env.ingest_commit_on(&resampled, 6, "fix");
    let sides = [
        "--baseline",
        "tag.branch=main",
        "--candidate",
        "tag.branch=fix",
    ];
    let out = env
        .cmd(&[&["compare", "--json", "--metric", "ns_op"], &sides[..]].concat())
        .output()
        .unwrap();
    let cells: Value = serde_json::from_slice(&out.stdout).unwrap();
    let join = cells
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["bench"] == "BenchmarkJoin")
        .unwrap();
    assert_eq!(
        (join["n_baseline"].as_u64(), join["n_candidate"].as_u64()),
        (Some(3), Some(3))
    );
    assert_eq!(join["invocations_baseline"], 1, "{join}");
    close(join["p_value"].as_f64().unwrap(), 0.4, 1e-9);
    // gm(1289, 1289, 1289) / gm(1064, 1289, 1102) − 1.
    close(
        join["delta_pct"].as_f64().unwrap(),
        100.0 * (1289.0 / (1064.0f64 * 1289.0 * 1102.0).cbrt() - 1.0),
        1e-6,
    );
    assert_eq!(join["verdict"], "inconclusive", "{join}");
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("note: baseline: 5 invocations repeat the values of ")
            && err.contains("bench-count3.txt in every run"),
        "{err}"
    );
    // Two commits' copies against each other: the output compared with itself.
    let out = env
        .cmd(&[
            "compare",
            "--baseline",
            "tag.commit=c1",
            "--candidate",
            "tag.commit=c2",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains(
            "warning: 1 invocation of the candidate repeats the baseline's values exactly"
        ),
        "{err}"
    );
    let gate = env.cmd(&[&["gate"], &sides[..]].concat()).output().unwrap();
    assert_eq!(
        gate.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&gate.stdout)
    );
}

/// wrk outputs name no benchmark, so a folder of them against several servers is one
/// curve; it says so, naming the URLs and how to select one (a URL is no configuration:
/// CI servers listen on ephemeral ports).
#[test]
fn a_curve_of_several_wrk_servers_says_so() {
    let env = Env::new();
    env.ok(&["ingest", &fixture("wrk"), &fixture("real/wrk"), "--no-git"]);
    let curve = env.json(&["curve", "--json"]);
    let several: Vec<&Value> = curve["curves"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["servers"].as_array().is_some_and(|s| s.len() > 1))
        .collect();
    assert_eq!(several.len(), 1, "{curve}");
    let servers = several[0]["servers"].as_array().unwrap();
    assert!(
        servers.contains(&Value::from("http://127.0.0.1:9000/")),
        "{servers:?}"
    );
    // A knee across servers would bend over several benchmarks' points: none is called.
    assert_eq!(several[0]["knee"], Value::Null, "{curve}");
    let text = env.ok(&["curve"]);
    assert!(
        text.contains(&format!(
            "note: its runs measured {} servers (",
            servers.len()
        )) && text.contains("select one with param.url="),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "knee: none: its runs measured {} servers, not one benchmark",
            servers.len()
        )),
        "{text}"
    );
}

/// `compare --json` of commit `c1` against `c2`: its standard error and its cells.
fn commits_compared(env: &Env) -> (String, Vec<Value>) {
    let args = [
        "--baseline",
        "tag.commit=c1",
        "--candidate",
        "tag.commit=c2",
        "--json",
    ];
    let (code, out, err) = compare_out(env, &args);
    assert_eq!(code, 0, "{err}");
    let cells: Value = serde_json::from_str(&out).unwrap();
    (err, cells.as_array().unwrap().clone())
}

/// The README's hyperfine recipe stores one run four times (JSON, CSV, Markdown and the
/// terminal output, fixtures/real/hyperfine/two-commands*): they print one summary
/// (`sleep 0.01`: 12.7 ms ± 2.4 ms, the JSON's 0.01265469 s ± 0.00240021 s) and count
/// once, as the JSON's 10 times: −4.89%, p 0.64, as the JSON alone gives (before: 4
/// "invocations" of rounded means against one, −13.69%, p 0.0009, "better").
#[test]
fn exports_of_one_hyperfine_run_are_one_invocation() {
    let env = Env::new();
    let f = |name: &str| fixture(&format!("real/hyperfine/{name}"));
    let (json, csv, md, term) = (
        f("two-commands.json"),
        f("two-commands.csv"),
        f("two-commands.md"),
        f("two-commands-terminal.txt"),
    );
    env.ok(&[
        "ingest",
        &json,
        &csv,
        &md,
        &term,
        "--no-git",
        "--tag",
        "commit=c1",
    ]);
    env.ok(&[
        "ingest",
        &f("two-commands-b.json"),
        "--no-git",
        "--tag",
        "commit=c2",
    ]);
    let (err, cells) = commits_compared(&env);
    assert!(
        err.contains("3 other outputs print the summary of"),
        "{err}"
    );
    let c = cells.iter().find(|c| c["bench"] == "sleep 0.01").unwrap();
    assert_eq!(c["invocations_baseline"], 1, "{c}");
    assert_eq!(c["n_baseline"], 10, "{c}");
    close(c["delta_pct"].as_f64().unwrap(), -4.89, 0.005);
    assert_eq!(c["verdict"], "inconclusive", "{c}");
}

/// `cargo bench`'s terminal lines and its `target/criterion` folder are one run: the
/// folder's slope of `fib 15` (6260.56 ns [5747.70, 6775.77]) is what the terminal
/// printed (`[5.7477 µs 6.2606 µs 6.7758 µs]`). Ingested together, run 2 against run 3
/// is the folders' +36.70% "worse" (before: 2 invocations a side, +29.27%, p 0.33).
#[test]
fn criterions_terminal_and_folder_of_one_run_are_one_invocation() {
    let env = Env::new();
    for (run, commit) in [("run2", "c1"), ("run3", "c2")] {
        env.ok(&[
            "ingest",
            &fixture(&format!("real/criterion/{run}")),
            &fixture(&format!("real/criterion/{run}-terminal.txt")),
            "--no-git",
            "--tag",
            &format!("commit={commit}"),
        ]);
    }
    let (err, cells) = commits_compared(&env);
    assert!(
        err.contains("1 other output prints the summary of"),
        "{err}"
    );
    let c = cells
        .iter()
        .find(|c| c["bench"] == "fib/fib 15" && c["metric"] == "time")
        .unwrap();
    assert_eq!(c["n_baseline"], 100, "{c}");
    assert_eq!(c["n_candidate"], 100, "{c}");
    close(c["delta_pct"].as_f64().unwrap(), 36.70, 0.005);
    assert_eq!(c["verdict"], "worse", "{c}");
}

/// Two Go outputs that differ only in a configuration line (benchstat's `note:`) pair no
/// cell: the gate says why, as `compare` does, naming the one key the sides differ in,
/// not the `size=` both sides vary alike.
#[test]
fn a_gate_with_no_pair_names_the_key_the_sides_differ_in() {
    let env = Env::new();
    for note in ["before", "after"] {
        let mut text = format!("goos: linux\nnote: {note}\n");
        for size in [16, 1024] {
            for k in 0..5 {
                text.push_str(&format!(
                    "BenchmarkCRC/size={size}-8   \t 1000000\t {} ns/op\n",
                    100 + size / 16 + k
                ));
            }
        }
        let path = env.write(&format!("{note}.txt"), text.as_bytes());
        env.ok(&["ingest", &path, "--no-git"]);
    }
    let out = env
        .cmd(&[
            "gate",
            "--baseline",
            "source=before.txt",
            "--candidate",
            "source=after.txt",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("hint: metric \"ns_op\" is on both sides, but no cell pairs"),
        "{err}"
    );
    assert!(
        err.contains("select one on each side with param.note=before|after"),
        "{err}"
    );
    assert!(!err.contains("param.size"), "{err}");
}
