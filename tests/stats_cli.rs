//! `compare`, `gate` and `calibrate` through the binary on generated JLBH logs: the
//! warm-up rule, the run-level family that catches a tail-only stall, `inconclusive`
//! for a large change with too few runs, the calibrate JSON, and seed 003's contract.

use crate::common::{Env, shared};
use serde_json::Value;

/// A JLBH summary table of `runs` runs: run r's end-to-end ladder (50, 90, 99, 99.9,
/// 99.99, worst) is `scale` × a deterministic ±2% wobble × `tail` on p99.9 and worst, and
/// run 1 is a 50% slower warm-up run.
fn jlbh_log(runs: usize, scale: f64, tail: f64, salt: u64) -> String {
    let mut out = String::from(
        "-------------------------------- SUMMARY (end to end) us -------------------------------------------\nPercentile ",
    );
    for r in 1..=runs {
        out.push_str(&format!("  run{r:<10}"));
    }
    out.push_str("% Variation\n");
    let rows = [
        ("50.0", 12.0, 1.0),
        ("90.0", 15.0, 1.0),
        ("99.0", 20.0, 1.0),
        ("99.9", 30.0, tail),
        ("99.99", 40.0, 1.0),
        ("worst", 41.0, tail),
    ];
    for (k, (name, x, t)) in rows.iter().enumerate() {
        out.push_str(&format!("{:<10}", format!("{name}:")));
        for r in 1..=runs {
            let h = (r as u64 * 2_654_435_761 + salt * 40_503 + k as u64 * 7_919) % 1000;
            let wobble = 1.0 + (h as f64 / 1000.0 - 0.5) * 0.04;
            let warm = if r == 1 { 1.5 } else { 1.0 };
            out.push_str(&format!("{:>13.2}", x * scale * wobble * warm * t));
        }
        out.push_str("         1.00\n");
    }
    out.push_str("-----------------------------------------------------------------------------------------------------\n");
    out
}

/// The gate's `end_to_end` p99 cell in its `--format json` output.
fn p99_cell(v: &Value) -> &Value {
    v["cells"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["metric"] == "end_to_end" && c["percentile"] == 99.0)
        .unwrap()
}

/// `(exit code, stdout)`.
fn code_out(env: &Env, args: &[&str]) -> (i32, String) {
    let out = env.cmd(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

fn ingest(env: &Env, name: &str, text: &str) {
    let path = env.write(name, text.as_bytes());
    env.ok(&["ingest", "--format", "jlbh", &path]);
}

/// [`ingest`] as CI does: tagged with its branch and commit.
fn ingest_commit(env: &Env, name: &str, text: &str, branch: &str, commit: &str) {
    let path = env.write(name, text.as_bytes());
    let (branch, commit) = (format!("branch={branch}"), format!("commit={commit}"));
    env.ok(&[
        "ingest", "--format", "jlbh", &path, "--no-git", "--tag", &branch, "--tag", &commit,
    ]);
}

#[test]
fn gate_catches_a_tail_only_stall_with_five_runs_a_side() {
    let env = Env::new();
    ingest(&env, "base.jlbh", &jlbh_log(6, 1.0, 1.0, 1));
    ingest(&env, "cand.jlbh", &jlbh_log(6, 1.0, 3.0, 2));
    ingest(&env, "same.jlbh", &jlbh_log(6, 1.0, 1.0, 3));
    let base = "label=base.jlbh";
    let args = |cand: &'static str, extra: &'static [&'static str]| {
        let mut a = vec![
            "gate",
            "--baseline",
            base,
            "--candidate",
            cand,
            "--format",
            "json",
        ];
        a.extend_from_slice(extra);
        a
    };
    let (code, out) = code_out(&env, &args("label=cand.jlbh", &[]));
    assert_eq!(code, 1, "{out}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["schema"], 1);
    assert!(
        v["family"].as_str().unwrap().contains("max-T"),
        "{}",
        v["family"]
    );
    // Run 1 (the slow warm-up) is skipped: 5 runs a side.
    assert_eq!(v["baseline_runs"], 5);
    let regressed: Vec<&Value> = v["cells"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["status"] == "regression")
        .collect();
    assert!(!regressed.is_empty());
    for c in &regressed {
        let p = c["percentile"].as_f64().unwrap();
        assert!(p == 99.9 || p == 100.0, "{c}");
        assert_eq!(c["n_baseline"], 5);
        // Perfect separation: the exact floor 1/252 one-sided, 2/252 two-sided.
        assert!(c["p_worse"].as_f64().unwrap() <= 1.0 / 252.0 + 1e-12, "{c}");
        assert!(c["p_value"].as_f64().unwrap() <= 2.0 / 252.0 + 1e-12, "{c}");
        assert_eq!(c["unit"], "us");
    }
    // Nothing changed: a pass, with the exact floor 1/252 below alpha.
    assert_eq!(code_out(&env, &args("label=same.jlbh", &[])).0, 0);
    // Keeping the warm-up run counts 6 a side.
    let (_, out) = code_out(&env, &args("label=same.jlbh", &["--include-first"]));
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (v["baseline_runs"].clone(), v["include_first"].clone()),
        (6.into(), true.into())
    );
}

#[test]
fn a_large_change_with_three_runs_a_side_is_inconclusive() {
    let env = Env::new();
    ingest(&env, "a.jlbh", &jlbh_log(4, 1.0, 1.0, 1));
    ingest(&env, "b.jlbh", &jlbh_log(4, 15.0, 1.0, 2));
    let v = env.json(&[
        "compare",
        "--baseline",
        "label=a.jlbh",
        "--candidate",
        "label=b.jlbh",
        "--json",
    ]);
    for c in v.as_array().unwrap() {
        // 3 runs a side after the warm-up: 20 rearrangements, smallest p 0.05.
        assert_eq!(c["verdict"], "inconclusive", "{c}");
        assert_eq!(c["n_baseline"], 3);
        assert_eq!(c["p_floor"].as_f64(), Some(0.05));
        assert!(c["delta_pct"].as_f64().unwrap() > 1000.0);
        assert_eq!(c["schema"], 1);
    }
    // The gate cannot decide either (fewer than 5 runs a side).
    let (code, _) = code_out(
        &env,
        &[
            "gate",
            "--baseline",
            "label=a.jlbh",
            "--candidate",
            "label=b.jlbh",
        ],
    );
    assert_eq!(code, 3);
}

#[test]
fn calibrate_reports_alarm_rates_and_detectable_shifts() {
    let env = Env::new();
    ingest(&env, "runs.jlbh", &jlbh_log(11, 1.0, 1.0, 5));
    let v = env.json(&["calibrate", "--trials", "20", "--json"]);
    assert_eq!(v["trials"], 20);
    let rate = v["alarm_rate"].as_f64().unwrap();
    assert!((0.0..=1.0).contains(&rate));
    assert_eq!(v["alarms"].as_u64().unwrap() as f64, rate * 20.0);
    let cells = v["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 6, "{v}");
    for c in cells {
        for k in ["suite", "metric", "percentile", "alarm_rate", "mde_pct"] {
            assert!(c.get(k).is_some(), "{k} in {c}");
        }
        // 10 runs split 5/5 can reach 0.01; at least the default 10% threshold.
        assert!(c["mde_pct"].as_f64().unwrap() >= 10.0, "{c}");
    }
    let text = env.ok(&["calibrate", "--trials", "5"]);
    assert!(text.contains("A/A split"), "{text}");
    // A threshold naming nothing is an error (exit 2), as for `gate`, which names that
    // term (not a good one beside it) and what the runs hold.
    assert_eq!(
        code_out(
            &env,
            &["calibrate", "--trials", "5", "--max", "nothing=+5%"]
        )
        .0,
        2
    );
    let out = env
        .cmd(&[
            "calibrate",
            "--trials",
            "5",
            "--max",
            "end_to_end=+5%",
            "--max",
            "end_to_edn=+5%",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("threshold \"end_to_edn\" names nothing") && err.contains("end_to_end"),
        "{err}"
    );
    assert!(!err.contains("threshold \"end_to_end\""), "{err}");
}

/// The README's CI layout (per commit, three logs of one suite, each its own output): the
/// gate pools a commit's logs, so calibrate splits the history by commit, one commit
/// against the others, never a log file against its own runs.
#[test]
fn calibrate_splits_a_ci_history_by_commit_as_the_gate_groups_it() {
    let env = Env::new();
    for c in 0..6u64 {
        for f in 0..3u64 {
            ingest_commit(
                &env,
                &format!("c{c}/bench-{f}.log"),
                &jlbh_log(4, 1.0, 1.0, c * 10 + f),
                "main",
                &format!("c{c}"),
            );
        }
    }
    let v = env.json(&["calibrate", "--trials", "30", "--json"]);
    let cells = v["cells"].as_array().unwrap();
    // One group: the 18 log files pooled; its 6 percentiles.
    assert_eq!(cells.len(), 6, "{v}");
    for c in cells {
        assert_eq!(c["split_by"], "commits", "{c}");
        assert_eq!(c["label"], "", "file names are no label: {c}");
        assert_eq!(c["trials"], 30, "{c}");
    }
    assert_eq!(v["trials"], 30);
    // Quiet history (±2%): the one-against-several test raises few alarms.
    assert!(v["alarm_rate"].as_f64().unwrap() <= 0.1, "{v}");
    // Without commit tags the 18 outputs are split as halves of invocations.
    let env = Env::new();
    for f in 0..6u64 {
        ingest(&env, &format!("bench-{f}.log"), &jlbh_log(4, 1.0, 1.0, f));
    }
    let v = env.json(&["calibrate", "--trials", "10", "--json"]);
    let cells = v["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 6, "{v}");
    assert!(cells.iter().all(|c| c["split_by"] == "invocations"), "{v}");
}

#[test]
fn seed_003_one_run_a_side_is_confident() {
    let Some(dir) = shared("seeds") else { return };
    let Some(path) = std::fs::read_dir(&dir).ok().and_then(|d| {
        d.filter_map(|e| e.ok().map(|e| e.path())).find(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("003"))
        })
    }) else {
        return;
    };
    let env = Env::new();
    env.ok(&["ingest", path.to_str().unwrap()]);
    let cells = env.json(&[
        "compare",
        "--baseline",
        "label=the current master",
        "--candidate",
        "label=the current master with patch version v11jp",
        "--json",
    ]);
    for metric in ["ts.rt", "cpu.util"] {
        let c = cells
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["metric"] == metric)
            .unwrap();
        assert!(c["p_value"].as_f64().unwrap() < 0.01, "{c}");
        assert_eq!(c["replicates"], "samples");
        assert!(c["ess_baseline"].as_f64().unwrap() >= 5.0, "{c}");
    }
}

/// A CI history: 8 main commits, one JLBH output (invocation) of 8 runs each, the
/// invocations apart by up to ±7% and the runs within one by ±2%. The runs of one
/// invocation are not independent replicates: the gate tests the candidate invocation
/// against the spread of the 8 baseline invocations, and says so.
#[test]
fn a_history_of_invocations_is_tested_on_its_invocations() {
    let env = Env::new();
    let offsets = [1.00, 1.06, 0.95, 1.03, 0.93, 1.07, 0.98, 1.02];
    for (i, f) in offsets.iter().enumerate() {
        ingest_commit(
            &env,
            &format!("main{i}.jlbh"),
            &jlbh_log(8, *f, 1.0, i as u64),
            "main",
            &format!("m{i}"),
        );
    }
    for (name, scale) in [("same", 1.08), ("slower", 1.35)] {
        ingest_commit(
            &env,
            &format!("{name}.jlbh"),
            &jlbh_log(8, scale, 1.0, 99),
            "pr",
            name,
        );
    }
    let gate = |cand: &str| {
        code_out(
            &env,
            &[
                "gate",
                "--baseline",
                "tag.branch=main;latest=8",
                "--candidate",
                cand,
                "--max",
                "end_to_end@99=+5%",
                "--json",
            ],
        )
    };
    // +8% against invocations that vary by ±7%: within their spread, a pass. With the 56
    // runs pooled as independent replicates the same candidate was a regression (+7.73%,
    // p_adj 0.0004).
    let (code, out) = gate("tag.commit=same");
    assert_eq!(code, 0, "{out}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let p99 = p99_cell(&v);
    assert_eq!(p99["replicates"], "invocations", "{p99}");
    assert_eq!(p99["method"], "prediction_t", "{p99}");
    assert_eq!(p99["invocations_baseline"], 8);
    assert_eq!(p99["invocations_candidate"], 1);
    assert_eq!(
        p99["runs_candidate"], 7,
        "the warm-up run is not a replicate"
    );
    assert_eq!(p99["within_invocation"], false);
    let (d, lo, hi) = (
        p99["delta_pct"].as_f64().unwrap(),
        p99["ci_low_pct"].as_f64().unwrap(),
        p99["ci_high_pct"].as_f64().unwrap(),
    );
    assert!(lo <= d && d <= hi && lo < 0.0, "{p99}");
    // +35% is beyond any invocation's offset: a regression.
    let (code, out) = gate("tag.commit=slower");
    assert_eq!(code, 1, "{out}");
    // One invocation a side keeps its test and says what it covers.
    let (_, text) = code_out(
        &env,
        &[
            "compare",
            "--baseline",
            "tag.commit=m0",
            "--candidate",
            "tag.commit=same",
        ],
    );
    assert!(text.contains("within one invocation"), "{text}");
}

/// One JLBH output a side, and earlier outputs of the same label in the store: their
/// spread (invocations ±6%) is the floor a change must exceed. A +3% step between two
/// outputs is significant within them (their runs vary by ±2%), but inside that spread:
/// `compare` says inconclusive and the gate does not call it a regression.
#[test]
fn earlier_invocations_are_the_noise_floor_of_one_against_one() {
    let env = Env::new();
    let offsets = [1.00, 1.06, 0.94, 1.04, 0.95, 1.05];
    for (i, f) in offsets.iter().enumerate() {
        let path = env.write(
            &format!("rtt{i}.jlbh"),
            jlbh_log(8, *f, 1.0, i as u64).as_bytes(),
        );
        env.ok(&["ingest", "--format", "jlbh", &path, "--label", "rtt"]);
    }
    let base = env.write("base.jlbh", jlbh_log(8, 1.0, 1.0, 40).as_bytes());
    let cand = env.write("cand.jlbh", jlbh_log(8, 1.03, 1.0, 41).as_bytes());
    env.ok(&["ingest", "--format", "jlbh", &base, "--label", "rtt"]);
    env.ok(&["ingest", "--format", "jlbh", &cand, "--label", "rtt"]);
    let cells = env.json(&[
        "compare",
        "--baseline",
        "source=base.jlbh",
        "--candidate",
        "source=cand.jlbh",
        "--json",
    ]);
    let p99 = cells
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["percentile"] == 99.0)
        .unwrap();
    assert_eq!(p99["within_invocation"], true, "{p99}");
    assert_eq!(p99["earlier_invocations"], 6, "{p99}");
    let floor = p99["invocation_noise_pct"].as_f64().unwrap();
    let d = p99["delta_pct"].as_f64().unwrap();
    assert!(d > 3.0 && d < floor, "{d} vs floor {floor}: {p99}");
    assert!(p99["p_value"].as_f64().unwrap() < 0.05, "{p99}");
    assert_eq!(p99["verdict"], "inconclusive", "{p99}");
    let (code, out) = code_out(
        &env,
        &[
            "gate",
            "--baseline",
            "source=base.jlbh",
            "--candidate",
            "source=cand.jlbh",
            "--max",
            "end_to_end@99=+3%",
        ],
    );
    assert_ne!(code, 1, "{out}");
    assert!(out.contains("earlier invocations"), "{out}");
}

/// A Go output of two benchmarks (one block each), `-count 8`, at `scale` with ±1% jitter.
fn go_output(scale: f64, salt: u64) -> String {
    let mut out = String::from("goos: linux\ngoarch: amd64\npkg: example.com/floor\n");
    for (name, base) in [("Encode", 1000.0), ("Decode", 2500.0)] {
        for k in 0..8u64 {
            let jitter = 1.0 + 0.01 * ((k * 7 + salt * 13) as f64).sin();
            out.push_str(&format!(
                "Benchmark{name}-2   \t  100000\t {:.1} ns/op\n",
                base * scale * jitter
            ));
        }
    }
    out.push_str("PASS\nok  \texample.com/floor\t3.3s\n");
    out
}

/// The floor of earlier invocations holds per benchmark: a Go output of two benchmarks is
/// two invocations (one block each), each one a side. The earlier ones are main's before
/// the candidate: a pull request's +50% and a later commit do not widen it.
#[test]
fn earlier_invocations_are_per_benchmark_and_of_the_baselines_branch() {
    let env = Env::new();
    let offsets = [1.00, 1.06, 0.94, 1.04, 0.95, 1.05];
    for (i, f) in offsets.iter().enumerate() {
        let path = env.write(&format!("e{i}.txt"), go_output(*f, i as u64).as_bytes());
        env.ingest_commit(&path, i + 1);
    }
    let pr = env.write("pr.txt", go_output(1.5, 20).as_bytes());
    env.ingest_commit_on(&pr, 7, "pr");
    let base = env.write("base.txt", go_output(1.0, 30).as_bytes());
    let cand = env.write("cand.txt", go_output(1.03, 31).as_bytes());
    let later = env.write("later.txt", go_output(0.8, 32).as_bytes());
    env.ingest_commit(&base, 7);
    env.ingest_commit(&cand, 8);
    env.ingest_commit(&later, 9);
    let cells = env.json(&[
        "compare",
        "--baseline",
        "tag.commit=c7;tag.branch=main",
        "--candidate",
        "tag.commit=c8",
        "--json",
    ]);
    let cells = cells.as_array().unwrap();
    assert_eq!(cells.len(), 2, "{cells:?}");
    for c in cells {
        assert_eq!(c["within_invocation"], true, "{c}");
        assert_eq!(c["earlier_invocations"], 6, "{c}");
        // The spread of the six and the baseline: logs of 1, 1.06, 0.94, 1.04, 0.95, 1.05, 1.
        let floor = c["invocation_noise_pct"].as_f64().unwrap();
        assert!((4.5..5.5).contains(&floor), "{floor}: {c}");
        let d = c["delta_pct"].as_f64().unwrap();
        assert!(d > 2.0 && d < floor, "{d}: {c}");
        assert_eq!(c["verdict"], "inconclusive", "{c}");
    }
}

/// Go's MB/s is higher-is-better: its smallest detectable worsening is a fall (the same
/// log shift as the +3160.9% rise of the same benchmark's ns/op is −96.9%), and the JSON
/// says the cell's polarity.
#[test]
fn calibrate_reports_a_throughputs_detectable_worsening_as_a_fall() {
    let env = Env::new();
    for i in 1..=6 {
        let f = if i % 2 == 1 {
            "bench-count3.txt"
        } else {
            "bench-count3-b.txt"
        };
        env.ingest_commit(&crate::common::fixture(&format!("real/go-bench/{f}")), i);
    }
    let v = env.json(&["calibrate", "--json"]);
    let cell = |bench: &str, metric: &str| {
        v["cells"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["bench"] == bench && c["metric"] == metric)
            .unwrap_or_else(|| panic!("{bench} {metric} in {v}"))
            .clone()
    };
    let (mb, ns) = (
        cell("BenchmarkSortCopy", "mb_s"),
        cell("BenchmarkSortCopy", "ns_op"),
    );
    assert_eq!(
        (&mb["polarity"], &ns["polarity"]),
        (&"higher".into(), &"lower".into())
    );
    let (fall, rise) = (
        mb["mde_pct"].as_f64().unwrap(),
        ns["mde_pct"].as_f64().unwrap(),
    );
    assert!((fall - -96.94).abs() < 0.01, "{mb}");
    assert!((rise - 3160.9).abs() < 0.1, "{ns}");
    let text = env.ok(&["calibrate"]);
    let line = text.lines().find(|l| l.contains(" mb_s ")).unwrap();
    assert!(line.ends_with(" -96.9%"), "{text}");
}

/// A push to main gated against `latest=3` of main: the candidate's own commit is the
/// newest of main, so leaving its runs out used to leave 2 commits of baseline; the
/// baseline is the 3 commits before it (m1, m2, m3), with a note.
#[test]
fn latest_n_counts_n_commits_besides_the_candidates() {
    let env = Env::new();
    for i in 0..5u64 {
        ingest_commit(
            &env,
            &format!("main{i}.jlbh"),
            &jlbh_log(6, 1.0, 1.0, i),
            "main",
            &format!("m{i}"),
        );
    }
    let out = env
        .cmd(&[
            "gate",
            "--baseline",
            "tag.branch=main;latest=3",
            "--candidate",
            "tag.commit=m4",
            "--json",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("1 commit held only the candidate's: selected as latest=4"),
        "{err}"
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    // 3 commits of 6 runs, less each one's warm-up run (the candidate's left out of the 4
    // commits selected); 2 commits before.
    assert_eq!(v["baseline_runs"], 15, "{v}");
    let p99 = p99_cell(&v);
    assert_eq!(p99["invocations_baseline"], 3, "{p99}");
}
