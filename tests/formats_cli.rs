//! The microbenchmark and load-tool formats through the binary: real outputs ingest with
//! auto-detection, `compare` reads their polarity from their units, and a sockperf
//! ping-pong compares directly with a `run loopback` at the same rate.

use crate::common::{Env, close, fixture};
use serde_json::Value;

/// The cell of `metric` (and `percentile`, when given) of a `compare --json` answer.
fn cell<'a>(cells: &'a Value, metric: &str, percentile: Option<f64>) -> &'a Value {
    cells
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["metric"] == metric && c["percentile"].as_f64() == percentile)
        .unwrap_or_else(|| panic!("no cell {metric} {percentile:?} in {cells}"))
}

/// The cell of `bench`'s `metric` (and `percentile`) of a `compare --json` answer.
fn bench_cell<'a>(
    cells: &'a Value,
    bench: &str,
    metric: &str,
    percentile: Option<f64>,
) -> &'a Value {
    cells
        .as_array()
        .unwrap()
        .iter()
        .find(|c| {
            c["bench"] == bench && c["metric"] == metric && c["percentile"].as_f64() == percentile
        })
        .unwrap_or_else(|| panic!("no cell {bench} {metric} {percentile:?} in {cells}"))
}

/// `compare --json` of the runs labelled `run2` (baseline) against `run3`.
fn run2_against_run3(env: &Env) -> Value {
    env.json(&[
        "compare",
        "--baseline",
        "label=run2",
        "--candidate",
        "label=run3",
        "--json",
    ])
}

/// Ingests `files` with auto-detection and returns the formats detected, in order.
fn ingest(env: &Env, files: &[&str], label: &str) -> Vec<String> {
    let mut args = vec!["ingest", "--json", "--label", label];
    args.extend_from_slice(files);
    let v: Value = serde_json::from_str(&env.ok(&args)).unwrap();
    v["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            assert_eq!(f["status"], "ingested", "{f}");
            f["format"].as_str().unwrap_or("").to_string()
        })
        .collect()
}

#[test]
fn sockperf_ping_pong_and_loopback_compare_on_round_trip_percentiles() {
    let env = Env::new();
    let sockperf = fixture("real/sockperf/pingpong-tcp-fullrtt-1000.txt");
    assert_eq!(ingest(&env, &[&sockperf], "sockperf 1000/s"), ["sockperf"]);
    // The same rate as the sockperf run (--mps=1000), few iterations.
    env.ok(&[
        "run",
        "loopback",
        "--throughput",
        "1000",
        "--iterations",
        "200",
        "--warmup",
        "50",
        "--runs",
        "2",
        "--label",
        "loopback 1000/s",
    ]);
    let cells = env.json(&[
        "compare",
        "--baseline",
        "label=sockperf 1000/s",
        "--candidate",
        "label=loopback 1000/s",
        "--metric",
        "end_to_end",
        "--json",
    ]);
    for p in [50.0, 99.0] {
        let c = cell(&cells, "end_to_end", Some(p));
        assert!(c["baseline"].as_f64().is_some(), "{c}");
        assert!(c["candidate"].as_f64().unwrap() > 0.0, "{c}");
        assert!(c["delta_pct"].as_f64().is_some(), "{c}");
    }
    // The sockperf side is the printed round trip, in µs.
    assert_eq!(
        cell(&cells, "end_to_end", Some(50.0))["baseline"].as_f64(),
        Some(17.756)
    );
    assert_eq!(
        cell(&cells, "end_to_end", Some(99.0))["baseline"].as_f64(),
        Some(4682.177)
    );
}

#[test]
fn hyperfine_exports_compare_time_as_lower_is_better() {
    let env = Env::new();
    let slow = fixture("real/hyperfine/named-work-20ms.json");
    let fast = fixture("real/hyperfine/named-work-10ms.json");
    assert_eq!(ingest(&env, &[&slow], "sleep 20ms"), ["hyperfine"]);
    assert_eq!(ingest(&env, &[&fast], "sleep 10ms"), ["hyperfine"]);
    let args = |b: &'static str, c: &'static str| {
        [
            "compare",
            "--baseline",
            b,
            "--candidate",
            c,
            "--metric",
            "time",
            "--json",
        ]
    };
    let faster = env.json(&args("label=sleep 20ms", "label=sleep 10ms"));
    let c = cell(&faster, "time", None);
    assert!(c["delta_pct"].as_f64().unwrap() < 0.0, "{c}");
    assert_eq!(c["verdict"], "better", "{c}");
    let slower = env.json(&args("label=sleep 10ms", "label=sleep 20ms"));
    let c = cell(&slower, "time", None);
    assert!(c["delta_pct"].as_f64().unwrap() > 0.0, "{c}");
    assert_eq!(c["verdict"], "worse", "{c}");
    // `variation` shows the seconds with their digits (times[0..3] of the export:
    // 0.018943906679999997, 0.00954031868, 0.00959508068), not as 0.02 0.01 0.01.
    let table = env.ok(&["variation", "label=sleep 10ms"]);
    let row: Vec<&str> = table.lines().nth(2).unwrap().split_whitespace().collect();
    assert_eq!(
        row[..4],
        ["value:", "0.018944", "0.009540", "0.009595"],
        "{table}"
    );
}

#[test]
fn go_benchmarks_compare_ns_op_down_and_mb_s_up() {
    let env = Env::new();
    let base = fixture("real/go-bench/envsort-n1000.txt");
    let cand = fixture("real/go-bench/envsort-n4000.txt");
    assert_eq!(ingest(&env, &[&base], "n1000"), ["go-bench"]);
    assert_eq!(ingest(&env, &[&cand], "n4000"), ["go-bench"]);
    let cells = env.json(&[
        "compare",
        "--baseline",
        "label=n1000",
        "--candidate",
        "label=n4000",
        "--json",
    ]);
    // More time per op and fewer MB/s: both are worse.
    let ns = cell(&cells, "ns_op", None);
    // Single values: the central value is the mean of the 5 runs.
    close(ns["baseline"].as_f64().unwrap(), 99425.0, 1e-6);
    close(ns["candidate"].as_f64().unwrap(), 467937.6, 1e-6);
    assert_eq!(ns["verdict"], "worse", "{ns}");
    let mb = cell(&cells, "mb_s", None);
    close(mb["baseline"].as_f64().unwrap(), 85.904, 1e-9);
    close(mb["candidate"].as_f64().unwrap(), 19.282, 1e-9);
    assert!(mb["delta_pct"].as_f64().unwrap() < 0.0);
    assert_eq!(mb["verdict"], "worse", "{mb}");
}

#[test]
fn two_jmh_runs_compare_per_benchmark_and_mode() {
    let env = Env::new();
    let a = fixture("real/jmh/dubbo-triple-20240118.md");
    let b = fixture("real/jmh/dubbo-triple-20240131.md");
    assert_eq!(ingest(&env, &[&a], "2024-01-18"), ["jmh"]);
    assert_eq!(ingest(&env, &[&b], "2024-01-31"), ["jmh"]);
    let cells = env.json(&[
        "compare",
        "--baseline",
        "label=2024-01-18",
        "--candidate",
        "label=2024-01-31",
        "--json",
    ]);
    // Throughput (ops/ms): the three measured iterations of each run, of this benchmark
    // only (the file holds twelve, each its own cell).
    let create = "org.apache.dubbo.benchmark.ClientPb.createUser";
    let t = bench_cell(&cells, create, "thrpt", None);
    close(
        t["baseline"].as_f64().unwrap(),
        (12.371 + 12.424 + 12.565) / 3.0,
        1e-9,
    );
    close(
        t["candidate"].as_f64().unwrap(),
        (12.612 + 12.641 + 12.729) / 3.0,
        1e-9,
    );
    assert!(t["delta_pct"].as_f64().unwrap() > 0.0);
    // Sample mode: per-iteration ladders, compared percentile by percentile.
    let p50 = bench_cell(&cells, create, "sample", Some(50.0));
    assert!(p50["baseline"].as_f64().is_some() && p50["candidate"].as_f64().is_some());
    // Three iterations a side: no p-value below the exact floor 2/C(6,3) = 0.1, so no
    // verdict either way, in any of the cells.
    for c in cells.as_array().unwrap() {
        assert_eq!(
            (c["n_baseline"].as_u64(), c["n_candidate"].as_u64()),
            (Some(3), Some(3)),
            "{c}"
        );
        assert!(c["p_value"].as_f64().unwrap() >= 0.1 - 1e-12, "{c}");
        assert!(c["verdict"] != "better" && c["verdict"] != "worse", "{c}");
    }
    assert!(
        cells
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["suite"] == "jmh")
    );
}

/// Two real JMH logs with `@Fork(2)` and a decimal-comma JVM locale: each fork is a JVM
/// of its own, so a benchmark's side is 2 invocations of 3 iterations, tested on the
/// invocations; 2 against 2 cannot reach a p below 2/C(4,2) = 1/3.
#[test]
fn jmh_forks_are_the_invocations_of_a_benchmark() {
    let env = Env::new();
    let a = fixture("real/jmh/hzt-utils-sort-double-list-20220531.md");
    let b = fixture("real/jmh/hzt-utils-sort-double-list-20220711.md");
    assert_eq!(ingest(&env, &[&a], "before"), ["jmh"]);
    assert_eq!(ingest(&env, &[&b], "after"), ["jmh"]);
    let cells = env.json(&[
        "compare",
        "--baseline",
        "label=before",
        "--candidate",
        "label=after",
        "--json",
    ]);
    // Five benchmarks on both sides (the later log's sixth has no baseline).
    assert_eq!(cells.as_array().unwrap().len(), 5, "{cells}");
    let c = bench_cell(
        &cells,
        "benchmark.prefix.DoubleTimSortBenchmark.arraySort",
        "thrpt",
        None,
    );
    assert_eq!(c["config"]["nrOfIterations"], "100000", "{c}");
    assert_eq!(c["replicates"], "invocations", "{c}");
    for (k, want) in [
        ("n_baseline", 2),
        ("n_candidate", 2),
        ("invocations_baseline", 2),
        ("runs_baseline", 6),
        ("runs_candidate", 6),
    ] {
        assert_eq!(c[k].as_u64(), Some(want), "{k}: {c}");
    }
    // JMH's own score (the mean of the 6 iterations) as printed, decimal comma read.
    close(
        c["printed_baseline"]["value"].as_f64().unwrap(),
        151.617,
        1e-9,
    );
    close(
        c["printed_baseline"]["error"].as_f64().unwrap(),
        5.688,
        1e-9,
    );
    close(
        c["printed_candidate"]["value"].as_f64().unwrap(),
        109.456,
        1e-9,
    );
    for c in cells.as_array().unwrap() {
        assert!(c["p_value"].as_f64().unwrap() >= 1.0 / 3.0 - 1e-12, "{c}");
        assert_eq!(c["verdict"], "inconclusive", "{c}");
        assert!(c["ci_low_pct"].is_null(), "2 a side bound no interval: {c}");
    }
    // Fork 2's iterations, read with their decimal comma.
    let runs = env.json(&[
        "runs",
        "--json",
        "label=before;bench=benchmark.prefix.DoubleTimSortBenchmark.arraySort;param.fork=2",
    ]);
    let values: Vec<f64> = runs
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["values"]["thrpt"].as_f64().unwrap())
        .collect();
    assert_eq!(values, [152.719, 153.168, 153.023]);
}

/// A label someone gave is part of the cell: one log with a "Before the change" and an
/// "After the change" output, ingested for two commits, compares each output with itself
/// across the commits; naming the labels on both sides makes them the axis instead.
#[test]
fn a_given_label_is_part_of_the_cell_unless_both_sides_name_it() {
    let env = Env::new();
    let log = fixture("jlbh/two-outputs.txt");
    for commit in ["aaa", "bbb"] {
        env.ok(&["ingest", &log, "--tag", &format!("commit={commit}")]);
    }
    let by_commit = env.json(&[
        "compare",
        "--baseline",
        "tag.commit=aaa",
        "--candidate",
        "tag.commit=bbb",
        "--metric",
        "end_to_end",
        "--json",
    ]);
    let cells = by_commit.as_array().unwrap();
    // 6 percentiles of each of the 2 labelled outputs, never pooled.
    assert_eq!(cells.len(), 12);
    for label in ["Before the change", "After the change"] {
        let of: Vec<&Value> = cells.iter().filter(|c| c["label"] == label).collect();
        assert_eq!(of.len(), 6, "{label}");
        for c in of {
            // Runs 2 and 3 of one output a side (run 1 is the warm-up).
            assert_eq!(
                (c["n_baseline"].as_u64(), c["runs_baseline"].as_u64()),
                (Some(2), Some(2))
            );
            assert_eq!(c["invocations_baseline"], 1, "{c}");
            assert_eq!(c["delta_pct"], 0.0, "the same bytes: {c}");
        }
    }
    // p50 of the "Before" output: runs 2 and 3 printed 4.22 and 4.35.
    let p50 = cells
        .iter()
        .find(|c| c["label"] == "Before the change" && c["percentile"] == 50.0)
        .unwrap();
    close(p50["baseline"].as_f64().unwrap(), (4.22 + 4.35) / 2.0, 1e-9);
    let by_label = env.json(&[
        "compare",
        "--baseline",
        "label=Before the change",
        "--candidate",
        "label=After the change",
        "--metric",
        "end_to_end",
        "--json",
    ]);
    let cells = by_label.as_array().unwrap();
    assert_eq!(cells.len(), 6);
    let p50 = cells.iter().find(|c| c["percentile"] == 50.0).unwrap();
    assert!(p50["label"].is_null(), "the label is the axis: {p50}");
    // Each side: the output of both commits, the same bytes twice: one invocation,
    // counted once, its runs the replicates.
    assert_eq!(p50["invocations_baseline"], 1, "{p50}");
    assert_eq!(p50["replicates"], "runs", "{p50}");
    assert!(p50["delta_pct"].as_f64().unwrap() < -20.0, "{p50}");
}

#[test]
fn two_criterion_folders_compare_sample_by_sample() {
    let env = Env::new();
    let run2 = fixture("real/criterion/run2/criterion");
    let run3 = fixture("real/criterion/run3/criterion");
    // One source per benchmark (its `new` folder), not one per JSON file.
    assert_eq!(ingest(&env, &[&run2], "run2"), ["criterion", "criterion"]);
    assert_eq!(ingest(&env, &[&run3], "run3"), ["criterion", "criterion"]);
    let runs = env.json(&["runs", "--json", "label=run3"]);
    assert_eq!(
        runs.as_array().unwrap().len(),
        200,
        "100 samples a benchmark"
    );
    let cells = run2_against_run3(&env);
    // Criterion itself reported fib 15 as regressed (+31.224%, p = 0.00) in run 3.
    let c = bench_cell(&cells, "fib/fib 15", "time", None);
    assert!(c["delta_pct"].as_f64().unwrap() > 0.0, "{c}");
    assert_eq!(c["verdict"], "worse", "{c}");
    // fib 10: the means rose (488.13 → 506.81 ns, as Criterion printed them: +3.83%) while
    // the medians of the samples fell (451.29 → 438.98 ns, times/iters of sample.json) and
    // the tested trimmed geometric mean fell 9.05%; the text says why they disagree.
    let c = bench_cell(&cells, "fib/fib 10", "time", None);
    let r2 = |v: &Value| (v.as_f64().unwrap() * 100.0).round() / 100.0;
    assert_eq!(
        (r2(&c["baseline"]), r2(&c["candidate"])),
        (488.13, 506.81),
        "{c}"
    );
    assert_eq!(r2(&c["central_delta_pct"]), 3.83, "{c}");
    assert_eq!(r2(&c["delta_pct"]), -9.05, "{c}");
    let median = |label: &str| {
        let sel = format!("label={label};bench=fib/fib 10");
        let rows = env.json(&["variation", &sel, "--json"]);
        let mut v: Vec<f64> = rows[0]["values"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect();
        v.sort_by(f64::total_cmp);
        (v[49] + v[50]) / 2.0
    };
    let (m2, m3) = (median("run2"), median("run3"));
    assert_eq!(
        ((m2 * 100.0).round(), (m3 * 100.0).round()),
        (45129.0, 43898.0)
    );
    assert_eq!(((m3 / m2 - 1.0) * 10000.0).round(), -273.0);
    let text = env.ok(&[
        "compare",
        "--baseline",
        "label=run2",
        "--candidate",
        "label=run3",
    ]);
    assert!(
        text.contains("delta and the baseline/candidate columns point opposite ways (1 row)"),
        "{text}"
    );
    // 100 samples are a distribution: `variation` shows their count, quartiles and range,
    // not 100 columns (JSON keeps every value).
    let table = env.ok(&["variation", "label=run3;bench=fib/fib 10"]);
    let header = table.lines().nth(1).unwrap();
    assert!(
        header.split_whitespace().eq([
            "Percentile",
            "runs",
            "min",
            "p25",
            "median",
            "p75",
            "max",
            "%",
            "Variation",
            "printed",
            "robust",
            "CV%"
        ]),
        "{table}"
    );
    let row: Vec<&str> = table.lines().nth(2).unwrap().split_whitespace().collect();
    // The fastest and slowest of the 100 samples (times/iters of sample.json).
    assert_eq!(row[..3], ["value:", "100", "141.83"], "{table}");
    assert_eq!(row[6], "5705.49", "{table}");
    let rows = env.json(&["variation", "label=run3;bench=fib/fib 10", "--json"]);
    assert_eq!(rows[0]["values"].as_array().unwrap().len(), 100);
}

/// Criterion's own change of run 3 against run 2 (run3's `change/estimates.json`: mean
/// +3.8274% in [−16.6226%, +36.4071%], median −2.7285%) is shown beside the row, since run
/// 3's base is run 2: 506.8147 ns / 1.038274 is run 2's mean 488.1318 ns. The other way
/// round (run 3 as the baseline) run 2's change is against another base and is not shown.
#[test]
fn criterions_own_change_is_shown_against_the_base_it_ran_against() {
    let env = Env::new();
    ingest(&env, &[&fixture("real/criterion/run2/criterion")], "run2");
    ingest(&env, &[&fixture("real/criterion/run3/criterion")], "run3");
    let sides = ["--baseline", "label=run2", "--candidate", "label=run3"];
    let text = env.ok(&[&["compare"][..], &sides].concat());
    assert!(
        text.contains("Criterion's own change against this baseline: mean +3.83% [-16.62%, +36.41%], median -2.73% [-18.22%, +5.47%]"),
        "{text}"
    );
    let cells = env.json(&[&["compare", "--json"][..], &sides].concat());
    let fib10 = cells
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["bench"] == "fib/fib 10")
        .unwrap();
    let mean = &fib10["printed_change"][0];
    assert_eq!(mean["name"], "mean");
    assert_eq!(mean["pct"].as_f64(), Some(3.8274463912684187));
    let reversed = env.json(&[
        "compare",
        "--json",
        "--baseline",
        "label=run3",
        "--candidate",
        "label=run2",
    ]);
    for c in reversed.as_array().unwrap() {
        assert_eq!(c["printed_change"], serde_json::json!([]), "{c}");
    }
}

/// `variation` shows what the tool printed for the same runs: Criterion's run2 folder for
/// fib 10, `slope` 470.7916 ns in [447.1593, 496.7155] (estimates.json), and hyperfine's
/// two-commands.json for `sleep 0.01`, mean 0.01265469144 s ± σ 0.0024002142 s.
#[test]
fn variation_shows_what_the_tool_printed() {
    let env = Env::new();
    ingest(&env, &[&fixture("real/criterion/run2/criterion")], "run2");
    ingest(&env, &[&fixture("real/hyperfine/two-commands.json")], "hf");
    let text = env.ok(&["variation", "label=run2;bench=fib/fib 10"]);
    assert!(
        text.contains("  Criterion printed: 470.79 [447.16, 496.72] ns (slope)"),
        "{text}"
    );
    let rows = env.json(&["variation", "label=hf;bench=sleep 0.01", "--json"]);
    let printed = &rows[0]["printed"];
    assert_eq!(printed["name"], "mean");
    assert_eq!(printed["value"].as_f64(), Some(0.012654691440000001));
    assert_eq!(printed["error"].as_f64(), Some(0.0024002142030061027));
    assert_eq!(printed["unit"], "s");
}

/// A Criterion run kept as its terminal output beside its folder is one measurement: the
/// terminal's time (the folder's summary) counts once, as the folder, but its `thrpt`,
/// which the folder does not hold, stays a cell (run2: `159.73 Kelem/s`, run3: `130.67
/// Kelem/s` for fib 15). The untestable thrpt cells (one run a side) add nothing to the
/// Bonferroni count: fib 10's time p 0.079 is doubled over the two benchmarks tested, not
/// multiplied by four.
#[test]
fn a_terminal_beside_its_folder_keeps_what_the_folder_lacks() {
    let env = Env::new();
    let dir = fixture("real/criterion");
    ingest(
        &env,
        &[
            &format!("{dir}/run2/criterion"),
            &format!("{dir}/run2-terminal.txt"),
        ],
        "run2",
    );
    ingest(
        &env,
        &[
            &format!("{dir}/run3/criterion"),
            &format!("{dir}/run3-terminal.txt"),
        ],
        "run3",
    );
    let cells = run2_against_run3(&env);
    let cell = |bench: &str, metric: &str| {
        cells
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["bench"] == bench && c["metric"] == metric)
            .unwrap_or_else(|| panic!("no {bench} {metric}: {cells}"))
            .clone()
    };
    let thrpt = cell("fib/fib 15", "thrpt");
    assert_eq!(thrpt["baseline"].as_f64(), Some(159730.0));
    assert_eq!(thrpt["candidate"].as_f64(), Some(130670.0));
    assert_eq!(thrpt["verdict"], "insufficient");
    let time = cell("fib/fib 10", "time");
    assert_eq!(
        (time["n_baseline"].as_u64(), time["n_candidate"].as_u64()),
        (Some(100), Some(100))
    );
    let (p, p_adj) = (
        time["p_value"].as_f64().unwrap(),
        time["p_adjusted"].as_f64().unwrap(),
    );
    assert!((p_adj - 2.0 * p).abs() < 1e-12, "{p} {p_adj}");
}

/// One estimate per cell on real pairs (two Criterion runs, two saved Criterion
/// baselines, two JMH result files): `delta_pct` lies inside its own interval, and the
/// gate's reason quotes that same number.
#[test]
fn every_real_estimate_lies_inside_its_interval_and_the_reason_quotes_it() {
    let env = Env::new();
    ingest(&env, &[&fixture("real/criterion/run2/criterion")], "run2");
    ingest(&env, &[&fixture("real/criterion/run3/criterion")], "run3");
    ingest(
        &env,
        &[&fixture("real/jmh/jcasbin-jmh-result-0b7774d.json")],
        "jmh-a",
    );
    ingest(
        &env,
        &[&fixture("real/jmh/jcasbin-jmh-result-9fbceef.json")],
        "jmh-b",
    );
    ingest(
        &env,
        &[&fixture("real/criterion/baselines/criterion")],
        "saved",
    );
    let mut checked = 0;
    for (b, c) in [
        ("label=run2", "label=run3"),
        ("label=jmh-a", "label=jmh-b"),
        (
            "tag.criterion_baseline=before",
            "tag.criterion_baseline=after",
        ),
    ] {
        let cells = env.json(&["compare", "--baseline", b, "--candidate", c, "--json"]);
        for cell in cells.as_array().unwrap() {
            let (Some(lo), Some(hi)) = (cell["ci_low_pct"].as_f64(), cell["ci_high_pct"].as_f64())
            else {
                continue;
            };
            let d = cell["delta_pct"].as_f64().unwrap();
            assert!(lo <= d && d <= hi, "{d} outside [{lo}, {hi}]: {cell}");
            checked += 1;
        }
        let out = env
            .cmd(&["gate", "--baseline", b, "--candidate", c, "--json"])
            .output()
            .unwrap();
        let gate: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        for cell in gate["cells"].as_array().unwrap() {
            let Some(d) = cell["delta_pct"].as_f64() else {
                continue;
            };
            if let (Some(lo), Some(hi)) =
                (cell["ci_low_pct"].as_f64(), cell["ci_high_pct"].as_f64())
            {
                assert!(lo <= d && d <= hi, "{d} outside [{lo}, {hi}]: {cell}");
            }
            let reason = cell["reason"].as_str().unwrap();
            if reason.contains(" by ") {
                let quoted = format!("{:.2}%", d.abs());
                assert!(
                    reason.contains(&quoted),
                    "{reason} does not quote {d}: {cell}"
                );
            }
        }
    }
    // JMH's 3 iterations a side reach no interval; the Criterion cells do.
    assert!(checked >= 4, "{checked}");
}

#[test]
fn two_k6_summaries_compare_on_their_percentiles() {
    let env = Env::new();
    let frankenphp = fixture("real/k6/performance-md-spike-frankenphp.md");
    let nginx = fixture("real/k6/performance-md-spike-nginx.md");
    assert_eq!(ingest(&env, &[&frankenphp], "frankenphp"), ["k6"]);
    assert_eq!(ingest(&env, &[&nginx], "nginx"), ["k6"]);
    let cells = env.json(&[
        "compare",
        "--baseline",
        "label=frankenphp",
        "--candidate",
        "label=nginx",
        "--metric",
        "http_req_duration",
        "--json",
    ]);
    let p50 = cell(&cells, "http_req_duration", Some(50.0));
    assert_eq!(p50["baseline"].as_f64(), Some(13.44));
    assert_eq!(p50["candidate"].as_f64(), Some(16.44));
    let max = cell(&cells, "http_req_duration", Some(100.0));
    assert_eq!(max["candidate"].as_f64(), Some(795.57));
    // The frankenphp p(95) was cut by the terminal: no cell rather than a wrong one.
    assert!(
        !cells
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["percentile"].as_f64() == Some(95.0))
    );
}

#[test]
fn two_saved_criterion_baselines_compare_by_tag() {
    let env = Env::new();
    let tree = fixture("real/criterion/baselines/criterion");
    // new/, before/ and after/ of two benchmarks; base/ and change/ are not sources.
    assert_eq!(ingest(&env, &[&tree], "fib").len(), 6);
    let before = env.json(&["runs", "--json", "tag.criterion_baseline=before"]);
    assert_eq!(before.as_array().unwrap().len(), 200);
    let cells = env.json(&[
        "compare",
        "--baseline",
        "tag.criterion_baseline=before",
        "--candidate",
        "tag.criterion_baseline=after",
        "--metric",
        "time",
        "--json",
    ]);
    let c = bench_cell(&cells, "fib/fib 15", "time", None);
    // The first sample of each baseline is among the replicates the means come from.
    assert!(c["baseline"].as_f64().unwrap() > 0.0 && c["candidate"].as_f64().unwrap() > 0.0);
    assert!(c["delta_pct"].as_f64().is_some(), "{c}");
}

#[test]
fn every_real_output_of_the_new_formats_ingests_with_auto_detection() {
    let env = Env::new();
    for format in [
        "sockperf",
        "hyperfine",
        "go-bench",
        "jmh",
        "criterion",
        "k6",
    ] {
        let dir = fixture(&format!("real/{format}"));
        let out = env.ok(&["ingest", "--json", "--label", format, &dir]);
        let v: Value = serde_json::from_str(&out).unwrap();
        let files = v["files"].as_array().unwrap();
        let mut n = 0;
        for f in files {
            if f["path"].as_str().unwrap().ends_with("MANIFEST") {
                continue;
            }
            assert_eq!(f["format"], format, "{f}");
            assert_eq!(f["status"], "ingested", "{f}");
            n += 1;
        }
        assert!(n >= 3, "{format}: {n} sources");
    }
}

#[test]
fn two_commands_of_one_hyperfine_export_compare_by_bench() {
    let env = Env::new();
    let f = fixture("real/hyperfine/two-commands.json");
    assert_eq!(ingest(&env, &[&f], "both"), ["hyperfine"]);
    let cells = env.json(&[
        "compare",
        "--baseline",
        "bench=sleep 0.01",
        "--candidate",
        "bench=sleep 0.02",
        "--json",
    ]);
    // The bench is the comparison's axis: one cell, `time`, each command's 10 runs.
    let cells = cells.as_array().unwrap();
    assert_eq!(cells.len(), 1, "{cells:?}");
    let c = &cells[0];
    assert_eq!(c["metric"], "time");
    assert!(c["bench"].is_null(), "{c}");
    assert_eq!(
        (c["n_baseline"].as_u64(), c["n_candidate"].as_u64()),
        (Some(10), Some(10))
    );
    // hyperfine printed a median of 13.5467 ms for `sleep 0.01` (MANIFEST).
    close(c["baseline"].as_f64().unwrap(), 0.013546731440000001, 1e-3);
    assert_eq!(c["verdict"], "worse", "{c}");
}

#[test]
fn go_configurations_compare_by_param_within_their_package() {
    let env = Env::new();
    let f = fixture("go-bench/notes-same-name-two-packages.txt");
    assert_eq!(ingest(&env, &[&f], "notes"), ["go-bench"]);
    let cells = env.json(&[
        "compare",
        "--baseline",
        "param.note=before",
        "--candidate",
        "param.note=after",
        "--metric",
        "ns_op",
        "--json",
    ]);
    // Only example.com/a was measured after: one cell, its own two runs against one, never
    // pooled with example.com/b's BenchmarkParse (2400 ns/op) of the same name.
    let cells = cells.as_array().unwrap();
    assert_eq!(cells.len(), 1, "{cells:?}");
    let c = &cells[0];
    assert_eq!(c["bench"], "BenchmarkParse");
    assert_eq!(c["config"]["pkg"], "example.com/a");
    assert!(
        c["config"].get("note").is_none(),
        "the axis is not matched: {c}"
    );
    assert_eq!(
        (c["n_baseline"].as_u64(), c["n_candidate"].as_u64()),
        (Some(2), Some(1))
    );
    assert_eq!(c["baseline"].as_f64(), Some(1225.0));
    assert_eq!(c["candidate"].as_f64(), Some(1000.0));
}
