//! What the tools printed about their own numbers, shown by `runs --json`, `export`,
//! `compare` and the report, checked against numbers read by hand from the real files in
//! `fixtures/real` (their MANIFESTs name them).

use crate::common::{Env, fixture};
use serde_json::Value;

fn ingest(env: &Env, files: &[&str]) {
    let mut args = vec!["ingest"];
    args.extend_from_slice(files);
    env.ok(&args);
}

/// Ingests each file (a path under `fixtures/real`) under its one tag (`KEY=VALUE`).
fn ingest_tagged(env: &Env, files: &[(&str, &str)]) {
    for (file, tag) in files {
        env.ok(&["ingest", &fixture(&format!("real/{file}")), "--tag", tag]);
    }
}

/// The runs of `bench` in `runs --json`.
fn runs_of(env: &Env, bench: &str) -> Vec<Value> {
    let runs = env.json(&["runs", "--json"]);
    runs.as_array()
        .unwrap()
        .iter()
        .filter(|r| r["bench"] == bench)
        .cloned()
        .collect()
}

/// The CSV rows of `export` whose last column (`stat`) is `stat`.
fn stat_rows(csv: &str, stat: &str) -> Vec<Vec<String>> {
    csv.lines()
        .skip(1)
        .map(|l| l.split(',').map(str::to_string).collect::<Vec<_>>())
        .filter(|c| c.last().map(String::as_str) == Some(stat))
        .collect()
}

#[test]
fn hyperfine_summary_in_runs_export_and_compare() {
    let env = Env::new();
    ingest(&env, &[&fixture("real/hyperfine/two-commands.json")]);
    // Read by hand (two-commands.json, `sleep 0.01`): mean 0.012654691440000001,
    // stddev 0.0024002142030061027, median 0.013546731440000001, min 0.009970168440000001,
    // max 0.01691686744, user 0.0008096199999999998, system 0.0005856359999999998 (s).
    let runs = runs_of(&env, "sleep 0.01");
    assert_eq!(runs.len(), 10);
    for r in &runs {
        let t = &r["stats"]["time"];
        assert_eq!(t["mean"].as_f64(), Some(0.012654691440000001));
        assert_eq!(t["stddev"].as_f64(), Some(0.0024002142030061027));
        assert_eq!(t["user"].as_f64(), Some(0.0008096199999999998));
        assert_eq!(t["system"].as_f64(), Some(0.0005856359999999998));
        // Printed percentiles are points, not stats.
        for k in ["min", "median", "max"] {
            assert!(t.get(k).is_none(), "{k} in {t}");
        }
    }

    let csv = env.ok(&["export", "bench=sleep 0.01"]);
    assert_eq!(
        csv.lines().next(),
        Some("run_id,suite,label,source,metric,percentile,t,value,unit,stat")
    );
    // The ten timing runs as measured points, the summary once for the block.
    let measured: Vec<&str> = csv.lines().skip(1).filter(|l| l.ends_with(",s,")).collect();
    assert_eq!(measured.len(), 10);
    let median = stat_rows(&csv, "median");
    assert_eq!(median.len(), 1);
    assert_eq!(median[0][5..9], ["50.0", "", "0.013546731440000001", "s"]);
    assert_eq!(
        stat_rows(&csv, "min")[0][5..9],
        ["0.0", "", "0.009970168440000001", "s"]
    );
    assert_eq!(
        stat_rows(&csv, "max")[0][5..9],
        ["100.0", "", "0.01691686744", "s"]
    );
    let mean = stat_rows(&csv, "mean");
    assert_eq!(mean.len(), 1);
    assert_eq!(mean[0][5..9], ["", "", "0.012654691440000001", "s"]);
    assert_eq!(stat_rows(&csv, "stddev")[0][7], "0.0024002142030061027");
    let json = env.json(&["export", "bench=sleep 0.01", "--json"]);
    let points = json.as_array().unwrap();
    assert_eq!(points.iter().filter(|p| p["stat"].is_null()).count(), 10);
    assert_eq!(points.iter().filter(|p| p["stat"] == "user").count(), 1);

    // compare: the printed mean ± σ per side; the replicates stay the ten timing runs.
    let cells = env.json(&[
        "compare",
        "--baseline",
        "bench=sleep 0.01",
        "--candidate",
        "bench=sleep 0.02",
        "--json",
    ]);
    let c = &cells[0];
    assert_eq!(
        (c["n_baseline"].as_u64(), c["n_candidate"].as_u64()),
        (Some(10), Some(10))
    );
    let b = &c["printed_baseline"];
    assert_eq!(b["name"], "mean");
    assert_eq!(b["value"].as_f64(), Some(0.012654691440000001));
    assert_eq!(b["error"].as_f64(), Some(0.0024002142030061027));
    assert_eq!(b["unit"], "s");
    assert!(b.get("low").is_none() && b.get("high").is_none());
    // `sleep 0.02`: mean 0.022108245239999998, stddev 0.0028509815470043457.
    let k = &c["printed_candidate"];
    assert_eq!(k["value"].as_f64(), Some(0.022108245239999998));
    assert_eq!(k["error"].as_f64(), Some(0.0028509815470043457));
    assert!(c["printed_note"].is_null());
    let text = env.ok(&[
        "compare",
        "--baseline",
        "bench=sleep 0.01",
        "--candidate",
        "bench=sleep 0.02",
    ]);
    assert!(
        text.contains(
            "hyperfine printed: baseline 0.012655 ± 0.0024002 s (mean), candidate 0.022108 ± 0.002851 s (mean)"
        ),
        "{text}"
    );
}

/// A parameter scan's terminal output prints the rewritten command without the parameter
/// (`Benchmark 1: sleep 0.01`); its JSON export has `parameters: {n: "1"}` beside the same
/// command. They are one benchmark: the terminal output against the JSON gives three
/// cells, each with the mean hyperfine printed on each side (scan-terminal.txt: 11.5,
/// 22.4, 32.7 ms; scan.json: 0.011487, 0.022358, 0.032714 s).
#[test]
fn a_scans_terminal_output_and_its_json_are_one_benchmark() {
    let env = Env::new();
    ingest_tagged(
        &env,
        &[
            ("hyperfine/scan-terminal.txt", "side=t"),
            ("hyperfine/scan.json", "side=j"),
        ],
    );
    let cells = env.json(&[
        "compare",
        "--baseline",
        "tag.side=t",
        "--candidate",
        "tag.side=j",
        "--json",
    ]);
    let rows: Vec<(String, f64, f64)> = cells
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["bench"].as_str().unwrap().to_string(),
                c["printed_baseline"]["value"].as_f64().unwrap(),
                c["printed_candidate"]["value"].as_f64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            ("sleep 0.01".to_string(), 11.5, 0.011486889760000002),
            ("sleep 0.02".to_string(), 22.4, 0.022357553960000002),
            ("sleep 0.03".to_string(), 32.7, 0.03271382896),
        ]
    );
    // The step's parameter is kept with its runs.
    let run = &runs_of(&env, "sleep 0.02")
        .into_iter()
        .find(|r| r["source"].as_str().unwrap().ends_with("scan.json"))
        .unwrap();
    assert_eq!(run["params"]["n"], 2.0);
}

/// The gate shows what the tool printed beside each cell, as `compare` does: hyperfine's
/// mean ± σ of `sleep 0.01` in two-commands.json (0.012654691440000001 ±
/// 0.0024002…) and two-commands-b.json (0.012292608679999997), in the text under the
/// row, in the Markdown's list and in `--format json`.
#[test]
fn the_gate_shows_what_the_tool_printed() {
    let env = Env::new();
    ingest_tagged(
        &env,
        &[
            ("hyperfine/two-commands.json", "commit=a"),
            ("hyperfine/two-commands-b.json", "commit=b"),
        ],
    );
    let gate = |format: &str| {
        let out = env
            .cmd(&[
                "gate",
                "--baseline",
                "tag.commit=a",
                "--candidate",
                "tag.commit=b",
                "--format",
                format,
            ])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let line = "hyperfine printed: baseline 0.012655 ± 0.0024002 s (mean), candidate 0.012293 ± 0.0039664 s (mean)";
    let text = gate("text");
    let under: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("pass    sleep 0.01 time"))
        .take(2)
        .collect();
    assert_eq!(under[1], format!("  {line}"), "{text}");
    assert!(
        gate("markdown").contains(&format!("- sleep 0.01 time: {line}\n")),
        "{}",
        gate("markdown")
    );
    let json: Value = serde_json::from_str(&gate("json")).unwrap();
    let cell = json["cells"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["bench"] == "sleep 0.01")
        .unwrap();
    assert_eq!(
        cell["printed_baseline"]["value"].as_f64(),
        Some(0.012654691440000001)
    );
    assert_eq!(
        cell["printed_candidate"]["value"].as_f64(),
        Some(0.012292608679999997)
    );
}

/// A printed interval below zero: jcasbin-jmh-result-0b7774d.json's
/// `enforce [dataScale=large modelType=rbac useCache=false]` scored 0.31402111011524303
/// ± 0.8027072385503304 ops/ms, scoreConfidence [-0.4886861284350874,
/// 1.1167283486655735]. The line under the row writes its minus as the table does, so
/// the bound copies back as a number.
#[test]
fn a_printed_interval_below_zero_keeps_a_plain_minus() {
    let env = Env::new();
    ingest_tagged(
        &env,
        &[
            ("jmh/jcasbin-jmh-result-0b7774d.json", "commit=a"),
            ("jmh/jcasbin-jmh-result-9fbceef.json", "commit=b"),
        ],
    );
    let out = env
        .cmd(&[
            "compare",
            "--baseline",
            "tag.commit=a",
            "--candidate",
            "tag.commit=b",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains(
            "JMH printed: baseline 0.31402 ± 0.80271 [-0.48869, 1.1167] ops/ms (score), "
        ),
        "{text}"
    );
    assert!(!text.contains('\u{2212}'), "{text}");
}

#[test]
fn a_side_pooling_several_invocations_shows_no_printed_summary() {
    let env = Env::new();
    ingest(
        &env,
        &[
            &fixture("real/hyperfine/two-commands.json"),
            &fixture("real/hyperfine/two-commands-b.json"),
        ],
    );
    let cells = env.json(&[
        "compare",
        "--baseline",
        "bench=sleep 0.01",
        "--candidate",
        "bench=sleep 0.02;source=two-commands-b.json",
        "--json",
    ]);
    let c = &cells[0];
    // Two invocations (one per file) of 10 runs against one.
    assert_eq!(c["invocations_baseline"].as_u64(), Some(2));
    assert_eq!(c["runs_baseline"].as_u64(), Some(20));
    assert!(c["printed_baseline"].is_null());
    // two-commands-b.json, `sleep 0.02`: mean 0.02152661388.
    assert_eq!(
        c["printed_candidate"]["value"].as_f64(),
        Some(0.02152661388)
    );
    assert!(
        c["printed_note"]
            .as_str()
            .unwrap()
            .contains("the baseline pools 2 invocations"),
        "{c}"
    );
}

#[test]
fn jmh_score_error_and_confidence_beside_the_iterations() {
    let env = Env::new();
    let before = fixture("real/jmh/dubbo-triple-20240118.md");
    let after = fixture("real/jmh/dubbo-triple-20240131.md");
    ingest(&env, &[&before, &after]);
    let bench = "org.apache.dubbo.benchmark.ClientPb.createUser";
    // 20240118: `12.453 ±(99.9%) 1.823 ops/ms`, `(min, avg, max) = (12.371, 12.453,
    // 12.565), stdev = 0.100`, `CI (99.9%): [10.630, 14.276]`; table Cnt 3.
    let runs: Vec<Value> = runs_of(&env, bench)
        .into_iter()
        .filter(|r| r["source"].as_str().unwrap().ends_with("20240118.md"))
        .filter(|r| r["params"]["mode"] == "thrpt")
        .collect();
    assert_eq!(runs.len(), 3);
    let t = &runs[2]["stats"]["thrpt"];
    assert_eq!(t["score"].as_f64(), Some(12.453));
    assert_eq!(t["score_error"].as_f64(), Some(1.823));
    assert_eq!(t["score_confidence_low"].as_f64(), Some(10.630));
    assert_eq!(t["score_confidence_high"].as_f64(), Some(14.276));
    assert_eq!(t["stdev"].as_f64(), Some(0.100));
    assert_eq!(t["count"].as_f64(), Some(3.0));

    let cells = env.json(&[
        "compare",
        "--baseline",
        "source=dubbo-triple-20240118.md",
        "--candidate",
        "source=dubbo-triple-20240131.md",
        "--metric",
        "thrpt",
        "--json",
    ]);
    let c = cells
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["bench"] == bench)
        .unwrap();
    // The three iterations a side are the replicates, whatever JMH printed beside them.
    assert_eq!(
        (c["n_baseline"].as_u64(), c["n_candidate"].as_u64()),
        (Some(3), Some(3))
    );
    let b = &c["printed_baseline"];
    assert_eq!(b["name"], "score");
    assert_eq!(
        [&b["value"], &b["error"], &b["low"], &b["high"]].map(|v| v.as_f64().unwrap()),
        [12.453, 1.823, 10.630, 14.276]
    );
    assert_eq!(b["unit"], "ops/ms");
    // 20240131: `12.661 ±(99.9%) 1.110 ops/ms`, `CI (99.9%): [11.551, 13.771]`.
    let k = &c["printed_candidate"];
    assert_eq!(
        [&k["value"], &k["error"], &k["low"], &k["high"]].map(|v| v.as_f64().unwrap()),
        [12.661, 1.110, 11.551, 13.771]
    );
    let text = env.ok(&[
        "compare",
        "--baseline",
        "source=dubbo-triple-20240118.md",
        "--candidate",
        "source=dubbo-triple-20240131.md",
        "--metric",
        "thrpt",
    ]);
    assert!(
        text.contains("JMH printed: baseline 12.453 ± 1.823 [10.63, 14.276] ops/ms (score), candidate 12.661 ± 1.11 [11.551, 13.771] ops/ms (score)"),
        "{text}"
    );
    let md = env.ok(&[
        "compare",
        "--baseline",
        "source=dubbo-triple-20240118.md",
        "--candidate",
        "source=dubbo-triple-20240131.md",
        "--metric",
        "thrpt",
        "--markdown",
    ]);
    assert!(md.contains("What the tool printed:"), "{md}");
    assert!(md.contains("baseline 12.453 ± 1.823"), "{md}");
}

/// JMH scores sample mode by its mean (`Score ± Error` of the `sample` row): each
/// iteration's mean is a replicate of a cell of its own, beside the percentiles.
#[test]
fn jmh_sample_mode_mean_is_a_cell_beside_its_percentiles() {
    let env = Env::new();
    let before = fixture("real/jmh/dubbo-triple-20240118.md");
    let after = fixture("real/jmh/dubbo-triple-20240131.md");
    ingest(&env, &[&before, &after]);
    let cells = env.json(&[
        "compare",
        "--baseline",
        "source=dubbo-triple-20240118.md",
        "--candidate",
        "source=dubbo-triple-20240131.md",
        "--metric",
        "sample",
        "--json",
    ]);
    let create = cells
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["bench"] == "org.apache.dubbo.benchmark.ClientPb.createUser")
        .collect::<Vec<_>>();
    // Eight percentile rows (p0.00 … p1.00) and the mean.
    assert_eq!(create.len(), 9);
    let mean = create.iter().find(|c| c["percentile"].is_null()).unwrap();
    assert_eq!(mean["unit"], "ms/op");
    assert_eq!(
        (mean["n_baseline"].as_u64(), mean["n_candidate"].as_u64()),
        (Some(3), Some(3))
    );
    // Iterations `2.521`, `2.519`, `2.541 ±(99.9%) … ms/op` and `2.548`, `2.503`, `2.530`:
    // both means are 2.527, the score JMH printed on each side's `sample` row.
    let (b, c) = (
        mean["baseline"].as_f64().unwrap(),
        mean["candidate"].as_f64().unwrap(),
    );
    assert!(
        (b - 2.527).abs() < 1e-9 && (c - 2.527).abs() < 1e-9,
        "{b} {c}"
    );
    for side in ["printed_baseline", "printed_candidate"] {
        assert_eq!(mean[side]["name"], "score");
        assert_eq!(mean[side]["value"].as_f64(), Some(2.527));
        assert_eq!(mean[side]["error"].as_f64(), Some(0.003));
    }
    // Three iterations a side: no rearrangement is more extreme than the observed one.
    assert_eq!(mean["p_value"].as_f64(), Some(1.0));
}

#[test]
fn jmh_score_percentiles_are_exported_points_that_no_analysis_counts() {
    let env = Env::new();
    ingest(
        &env,
        &[&fixture("real/jmh/jcasbin-jmh-result-0b7774d.json")],
    );
    let sel = "bench=org.casbin.jcasbin.main.benchmark.BenchmarkEnforce.enforce;param.modelType=rbac;param.useCache=false;param.dataScale=small";
    let csv = env.ok(&["export", sel]);
    // MANIFEST: score 20.33940552161268, error 75.81431512301063, p50 21.00904195728958,
    // rawData 15.889612079979479 .. 24.119562527568988; scoreConfidence
    // [-55.474909601397954, 96.1537206446233].
    let measured: Vec<&str> = csv
        .lines()
        .skip(1)
        .filter(|l| l.ends_with("ops/ms,"))
        .collect();
    assert_eq!(measured.len(), 3);
    let pct = stat_rows(&csv, "score_percentile");
    assert_eq!(pct.len(), 10);
    assert!(
        pct.iter()
            .any(|r| r[5] == "50.0" && r[7] == "21.00904195728958")
    );
    assert!(
        pct.iter()
            .any(|r| r[5] == "0.0" && r[7] == "15.889612079979479")
    );
    assert_eq!(stat_rows(&csv, "score")[0][7], "20.33940552161268");
    assert_eq!(
        stat_rows(&csv, "score_confidence_low")[0][7],
        "-55.474909601397954"
    );
    assert_eq!(stat_rows(&csv, "score")[0][5], "");
    // variation counts the three iterations only.
    let rows = env.json(&["variation", sel, "--json"]);
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["values"].as_array().unwrap().len(), 3);
    assert!(rows[0]["percentile"].is_null());
    // compare of the benchmark with itself: one cell of three runs a side, no cell per
    // printed percentile.
    let cells = env.json(&["compare", "--baseline", sel, "--candidate", sel, "--json"]);
    let cells = cells.as_array().unwrap();
    assert_eq!(cells.len(), 1);
    assert_eq!(cells[0]["n_baseline"].as_u64(), Some(3));
    assert_eq!(
        cells[0]["printed_baseline"]["value"].as_f64(),
        Some(20.33940552161268)
    );
    assert_eq!(
        cells[0]["printed_baseline"]["low"].as_f64(),
        Some(-55.474909601397954)
    );
}

#[test]
fn criterion_estimates_alone_ingest_with_their_bench() {
    let env = Env::new();
    let dir = "real/criterion/run3/criterion/fib/fib 10";
    ingest(
        &env,
        &[
            &fixture(&format!("{dir}/new/estimates.json")),
            &fixture(&format!("{dir}/change/estimates.json")),
        ],
    );
    let runs = runs_of(&env, "fib/fib 10");
    assert_eq!(runs.len(), 2);
    // new/estimates.json: mean 506.8147449045671 [419.13248667586754, 639.0273907827485],
    // slope 500.76010626079335, std_dev 578.2095039162592 (ns).
    let est = &runs[0];
    assert_eq!(est["values"]["time"].as_f64(), Some(506.8147449045671));
    assert_eq!(est["tags"]["criterion_baseline"], "new");
    let t = &est["stats"]["time"];
    assert_eq!(t["mean"].as_f64(), Some(506.8147449045671));
    assert_eq!(t["mean_low"].as_f64(), Some(419.13248667586754));
    assert_eq!(t["mean_high"].as_f64(), Some(639.0273907827485));
    assert_eq!(t["slope"].as_f64(), Some(500.76010626079335));
    assert_eq!(t["std_dev"].as_f64(), Some(578.2095039162592));
    assert!(t.get("median").is_none(), "the median is a point");
    // change/estimates.json: mean change 0.03827446391268419 (a fraction), in percent.
    let change = &runs[1]["stats"]["time"];
    assert_eq!(
        change["change_mean_pct"].as_f64(),
        Some(0.03827446391268419 * 100.0)
    );
    let csv = env.ok(&["export", "bench=fib/fib 10"]);
    let median = stat_rows(&csv, "median");
    assert_eq!(median[0][5..9], ["50.0", "", "438.9753684010409", "ns"]);
    assert_eq!(stat_rows(&csv, "change_mean_pct")[0][8], "%");
}

#[test]
fn criterion_terminal_change_is_in_the_stats() {
    let env = Env::new();
    ingest(&env, &[&fixture("real/criterion/run3-terminal.txt")]);
    // run3-terminal.txt, fib/fib 15: `time: [7.2839 µs 7.6528 µs 8.0273 µs]`,
    // `change: [+10.201% +31.224% +57.463%] (p = 0.00 < 0.05)`.
    let runs = runs_of(&env, "fib/fib 15");
    let t = &runs[0]["stats"]["time"];
    assert_eq!(t["low"].as_f64(), Some(7283.9));
    assert_eq!(t["high"].as_f64(), Some(8027.3));
    assert_eq!(t["change_pct"].as_f64(), Some(31.224));
    assert_eq!(t["change_low_pct"].as_f64(), Some(10.201));
    assert_eq!(t["change_p"].as_f64(), Some(0.0));
}

#[test]
fn the_report_shows_the_tools_summaries_beside_ours() {
    let env = Env::new();
    env.ok(&[
        "ingest",
        &fixture("real/jmh/dubbo-triple-20240118.md"),
        "--no-git",
        "--tag",
        "branch=main",
        "--tag",
        "commit=abc123",
    ]);
    env.ok(&["report", "--out", "rep"]);
    let page = std::fs::read_to_string(env.dir.path().join("rep/suite-jmh.html")).unwrap();
    assert!(page.contains("<h2>What the tools printed</h2>"), "no table");
    // createUser thrpt: JMH printed 12.453 ± 1.823 [10.630, 14.276]; ours is the mean of
    // the iterations 12.371, 12.424, 12.565 = 12.453 (five significant digits).
    // The row names its group: the benchmark, then the file it came from, its branch and
    // its commit (rows of one benchmark over a history are told apart).
    let row = "<tr><td class=\"text\">org.apache.dubbo.benchmark.ClientPb.createUser · dubbo-triple-20240118.md · branch main · commit abc123</td><td class=\"text\">thrpt</td><td class=\"text\">JMH score 12.453 ± 1.823 [10.63, 14.276] ops/ms</td><td class=\"text\">12.453 ops/ms, mean of 3 runs</td></tr>";
    assert!(page.contains(row), "{page}");
}

/// k6's summary line, under the names k6 prints: `avg` and `min` as stats, `med`, `p(90)`,
/// `p(95)` and `max` as points with their percentiles.
#[test]
fn k6_summary_numbers_keep_their_names() {
    let env = Env::new();
    ingest(&env, &[&fixture("real/k6/performance-md-spike-nginx.md")]);
    let runs = env.json(&["runs", "--json"]);
    // http_req_duration: avg=18.37ms min=13.34ms med=16.44ms max=795.57ms p(90)=22.15ms
    // p(95)=24.72ms (line 38).
    let stats = &runs[0]["stats"]["http_req_duration"];
    assert_eq!(stats["avg"].as_f64(), Some(18.37), "{stats}");
    assert_eq!(stats["min"].as_f64(), Some(13.34), "{stats}");
    assert!(stats.get("mean").is_none(), "{stats}");
    let points = env.json(&["export", "--json"]);
    let at = |p: f64| {
        points
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["metric"] == "http_req_duration" && x["percentile"].as_f64() == Some(p))
            .map(|x| x["value"].as_f64().unwrap())
    };
    assert_eq!(at(50.0), Some(16.44));
    assert_eq!(at(90.0), Some(22.15));
    assert_eq!(at(95.0), Some(24.72));
    assert_eq!(at(100.0), Some(795.57));
}

#[test]
fn jlbh_var_log_is_exported_without_a_unit() {
    let env = Env::new();
    ingest(
        &env,
        &[&fixture(
            "real/jlbh/introductiontojlbh-zh-JLBH_Examples_4.md.txt",
        )],
    );
    let points = env.json(&["export", "--json"]);
    let stat = |name: &str| -> Vec<(f64, f64, String)> {
        points
            .as_array()
            .unwrap()
            .iter()
            .filter(|p| p["stat"] == name)
            .map(|p| {
                let f = |k: &str| p[k].as_f64().unwrap();
                (
                    f("percentile"),
                    f("value"),
                    p["unit"].as_str().unwrap().into(),
                )
            })
            .collect()
    };
    // The 50,000/s QuickFIX table prints `var(log)` 11.82 and 21.01 (lines 307 and 308):
    // variances of logarithms, no microseconds (FORMATS.md §1.6).
    let var_log = stat("var_log");
    assert_eq!(var_log.len(), 6, "{var_log:?}");
    assert_eq!(var_log[0], (50.0, 11.82, String::new()));
    assert_eq!(var_log[1], (90.0, 21.01, String::new()));
    assert!(var_log.iter().all(|v| v.2.is_empty()), "{var_log:?}");
    // `% Variation` beside it stays a percentage.
    assert!(stat("variation_pct").iter().all(|v| v.2 == "%"));
}

/// What Criterion printed for a folder's run is what its terminal printed for it: the
/// slope when it sampled linearly (run3-terminal.txt, fib/fib 10: `time: [442.98 ns
/// 500.76 ns 566.31 ns]`; fib/fib 15: `[7.2839 µs 7.6528 µs 8.0273 µs]`), not the
/// folder's mean (506.81, 7497).
#[test]
fn criterion_folders_show_the_estimate_criterion_printed() {
    let env = Env::new();
    for run in ["run2", "run3"] {
        env.ok(&[
            "ingest",
            &fixture(&format!("real/criterion/{run}/criterion")),
            "--label",
            run,
            "--no-git",
        ]);
    }
    let out = env.ok(&[
        "compare",
        "--baseline",
        "label=run2",
        "--candidate",
        "label=run3",
    ]);
    assert!(
        out.contains("candidate 500.76 [442.98, 566.31] ns (slope)")
            && out.contains("candidate 7652.8 [7283.9, 8027.3] ns (slope)"),
        "{out}"
    );
}

/// JMH printed `Parse.noop … avgt 5 ≈ 10⁻⁴ us/op` (fixtures/jmh/gc-profiler-and-single-shot.txt
/// line 7): below its printed precision, no number. Against the same output it makes no
/// cell, and `compare` says so rather than dropping it silently; against an output where
/// it printed 0.001 us/op, it is not "new or renamed": the baseline printed it without a
/// number.
#[test]
fn a_cell_printed_without_a_number_is_named_not_dropped() {
    let env = Env::new();
    let file = fixture("jmh/gc-profiler-and-single-shot.txt");
    let text = std::fs::read_to_string(&file).unwrap();
    let numbered = env.dir.path().join("numbered.txt");
    std::fs::write(&numbered, text.replace("≈ 10⁻⁴", "0.001")).unwrap();
    for (path, side) in [(file.as_str(), "a"), (file.as_str(), "b")] {
        env.ok(&["ingest", path, "--tag", &format!("side={side}")]);
    }
    env.ok(&["ingest", numbered.to_str().unwrap(), "--tag", "side=n"]);
    let note = |candidate: &str| {
        let out = env
            .cmd(&[
                "compare",
                "--baseline",
                "tag.side=a",
                "--candidate",
                candidate,
            ])
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stderr).unwrap()
    };
    let both = note("tag.side=b");
    assert!(
        both.contains(
            "note: not compared, printed without a number (such as JMH's `≈ 10⁻⁴` or `NaN`): \
             1 cell (jmh / Parse.noop avgt on both sides)"
        ),
        "{both}"
    );
    let one = note("tag.side=n");
    assert!(
        one.contains("1 cell (jmh / Parse.noop avgt on the baseline)"),
        "{one}"
    );
    assert!(!one.contains("only in the candidate"), "{one}");
}
