//! `bench-db ingest ../shared/seeds && bench-db report --out r`, end to end: the pages
//! exist and show the seeds' spectra, variation and before/after numbers. Skipped when
//! ../shared is absent.

use crate::common::{Env, fixture, shared};

#[test]
fn report_of_the_seeds() {
    let Some(seeds) = shared("seeds") else { return };
    let env = Env::new();
    // Some seed files are prose only; ingest may report them and still store the rest.
    let _ = env
        .cmd(&["ingest", &seeds.display().to_string()])
        .output()
        .expect("run");
    let out = env.dir.path().join("r");
    let printed = env.ok(&[
        "report",
        "--slo",
        "p99<=200us",
        "--out",
        &out.display().to_string(),
    ]);
    assert!(printed.trim_end().ends_with("index.html"), "{printed}");

    // Nothing was asked to be compared and no branch tags say so: no comparisons are
    // invented from blocks that merely follow each other in a file.
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(index.contains("No before/after comparisons"), "{index}");
    assert!(!index.contains("Got better") && !index.contains("−72.4%"));
    let tsar = std::fs::read_to_string(out.join("suite-tsar.html")).unwrap();
    assert!(!tsar.contains("Before and after"));

    // Asked for: seed 003, ts.rt 3.39 → 2.96 ms (−12.6%), cpu util +2.5%, baseline first.
    let out2 = env.dir.path().join("r2");
    env.ok(&[
        "report",
        "--baseline",
        "label=the current master",
        "--candidate",
        "label=the current master with patch version v11jp",
        "--out",
        &out2.display().to_string(),
    ]);
    let index = std::fs::read_to_string(out2.join("index.html")).unwrap();
    assert!(index.contains("Got better") && index.contains("Got worse"));
    assert!(index.contains("3.39 ms") && index.contains("2.96 ms") && index.contains("−12.6%"));
    assert!(index.contains("+2.5%"));
    let tsar = std::fs::read_to_string(out2.join("suite-tsar.html")).unwrap();
    assert!(
        tsar.contains("the current master → the current master with patch version v11jp"),
        "baseline first"
    );
    assert!(tsar.contains("with 95% confidence intervals"), "shift plot");
    // Hover values: cells carry more digits, chart points a <title>.
    assert!(tsar.contains("<td title=\"3.38"), "cell hover");
    assert!(tsar.contains("<title>ts rt"), "point hover");
    assert!(
        tsar.contains("ts rt: baseline and candidate"),
        "both sides over time"
    );

    // Seed 000: a spectrum of the three JLBH runs and the variation table, whose
    // 50th percentile reproduces the printed 13.91.
    let jlbh = std::fs::read_to_string(out.join("suite-jlbh.html")).unwrap();
    assert!(jlbh.contains("End to End: latency by percentile"));
    assert!(jlbh.contains("run 1") && jlbh.contains("run 2") && jlbh.contains("run 3"));
    assert!(jlbh.contains("title=\"printed by the tool: 13.91\">13.91</td>"));

    for entry in std::fs::read_dir(&out).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        assert!(!text.contains("<script"), "no scripts in the report");
    }
}

#[test]
fn explicit_sides_and_bad_input() {
    let Some(seed) = shared("seeds/004_b9ec09d331214652.txt") else {
        return;
    };
    let env = Env::new();
    env.ok(&["ingest", &seed.display().to_string()]);
    let out = env.dir.path().join("r");
    let out_s = out.display().to_string();
    env.ok(&[
        "report",
        "--baseline",
        "label=Before this changes",
        "--candidate",
        "label=After these changes",
        "--out",
        &out_s,
    ]);
    let page = std::fs::read_to_string(out.join("suite-arthas.html")).unwrap();
    // Names, not selectors or ids; the baseline first.
    assert!(page.contains("Before this changes → After these changes"));
    assert!(page.contains("8.88 ms") && page.contains("2.45 ms"));

    let bad = env
        .cmd(&["report", "--slo", "p99=fast", "--out", &out_s])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("p99<=200us"));
    let none = env
        .cmd(&[
            "report",
            "--baseline",
            "label=nope",
            "--candidate",
            "label=x",
            "--out",
            &out_s,
        ])
        .output()
        .unwrap();
    assert_eq!(none.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&none.stderr).contains("selects no run"));
}

/// One suite and label stored on `main` and on another branch: the report compares the
/// latest of each, baseline (main) first, and nothing else.
#[test]
fn branches_of_one_label_are_compared_and_nothing_else() {
    let env = Env::new();
    for (branch, label) in [("main", "rtt"), ("fast", "rtt"), ("main", "other")] {
        env.ok(&[
            "run",
            "loopback",
            "--throughput",
            "2000",
            "--iterations",
            "400",
            "--warmup",
            "100",
            "--runs",
            "3",
            "--os-jitter",
            "off",
            "--label",
            label,
            "--tag",
            &format!("branch={branch}"),
        ]);
    }
    let out = env.dir.path().join("r").display().to_string();
    let report = env.json(&["report", "--out", &out, "--json"]);
    let cmps = report["comparisons"].as_array().unwrap();
    assert_eq!(cmps.len(), 1, "{report}");
    assert_eq!(cmps[0]["baseline"], "rtt on main");
    assert_eq!(cmps[0]["candidate"], "rtt on fast");
    let page = std::fs::read_to_string(env.dir.path().join("r/suite-loopback.html")).unwrap();
    assert!(page.contains("rtt on main → rtt on fast"));
    assert!(
        page.contains("branch=fast") && page.contains("branch=main"),
        "run tables show tags"
    );
}

/// Suite names no file system or template takes as they are: 240 characters, a
/// template slot, a slug two suites share, and values whose range is subnormal. The
/// report is written, every page name is short and linked from the index, and the
/// slot stays text.
#[test]
fn hostile_suite_names_and_values_still_give_a_report() {
    let env = Env::new();
    let long = "a very long suite name ".repeat(11);
    assert!(long.len() >= 240);
    let wrk = std::fs::read(fixture("wrk/wrk-latency.txt")).unwrap();
    for (i, suite) in [long.as_str(), "{{body}}", "Same name", "same-name"]
        .into_iter()
        .enumerate()
    {
        // Other bytes per suite: the same bytes again would be the same source.
        let mut bytes = wrk.clone();
        bytes.extend(std::iter::repeat_n(b'\n', i + 1));
        let file = env.write(&format!("wrk-{i}.txt"), &bytes);
        env.ok(&["ingest", &file, "--suite", suite]);
    }
    // A tiny range: 0 and the smallest subnormal (4.9e-324, written out), once a panic
    // in the axis' ticks.
    let tiny = env.write(
        "tiny.txt",
        format!(
            "       Value   Percentile   TotalCount 1/(1-Percentile)\n\n       0.000     0.000000            1         1.00\n       0.000     0.500000            1         2.00\n  0.{}49     1.000000            2          inf\n",
            "0".repeat(323)
        )
        .as_bytes(),
    );
    env.ok(&["ingest", &tiny, "--suite", "tiny"]);
    let out = env.dir.path().join("r");
    env.ok(&["report", "--out", &out.display().to_string()]);
    let mut names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    for name in &names {
        assert!(name.len() <= 100, "{name}");
        if name.starts_with("suite-") {
            assert!(index.contains(&format!("href=\"{name}\"")), "{name}");
        }
    }
    let suites = names.iter().filter(|n| n.starts_with("suite-")).count();
    assert_eq!(suites, 5, "{names:?}");
    let tiny = std::fs::read_to_string(out.join("suite-tiny.html")).unwrap();
    assert!(tiny.contains("<svg") && !tiny.contains("Chart not drawn"));
    let slot = names.iter().find(|n| *n == "suite-body.html").unwrap();
    let page = std::fs::read_to_string(out.join(slot)).unwrap();
    assert!(page.contains("<title>Suite {{body}}</title>"), "{page}");
}

/// The rows of a page's before/after tables: (cell, baseline, candidate) as shown.
fn comparison_rows(page: &str) -> Vec<(String, String, String)> {
    let section = &page[page.find("id=\"compare\"").expect("a comparison")..];
    // The section ends where the next one begins.
    let section = &section[..section[1..].find("<h2 ").map_or(section.len(), |i| i + 1)];
    section
        .split("<tr><th>")
        .skip(1)
        .filter_map(|row| {
            let (name, rest) = row.split_once("</th>")?;
            let cells: Vec<&str> = rest
                .split("</td>")
                .filter_map(|c| c.rsplit_once('>').map(|x| x.1))
                .collect();
            Some((
                name.to_string(),
                cells.first()?.to_string(),
                cells.get(1)?.to_string(),
            ))
        })
        .filter(|r| r.0 != "cell")
        .collect()
}

/// Each before/after row names its own cell as `compare` does (benchmark, configuration,
/// metric), beside that cell's numbers, on two real pairs: Go's `-count 3` runs of three
/// benchmarks sharing metrics, and jcasbin's JMH results of one method under 37 parameter
/// sets.
#[test]
fn comparison_rows_name_their_own_cell() {
    let env = Env::new();
    for (file, commit) in [("bench-count3.txt", "gA"), ("bench-count3-b.txt", "gB")] {
        let tag = format!("commit={commit}");
        env.ok(&[
            "ingest",
            &fixture(&format!("real/go-bench/{file}")),
            "--tag",
            &tag,
        ]);
    }
    let out = env.dir.path().join("go");
    let out_s = out.display().to_string();
    env.ok(&[
        "report",
        "--out",
        &out_s,
        "--baseline",
        "tag.commit=gA",
        "--candidate",
        "tag.commit=gB",
    ]);
    let rows = comparison_rows(&std::fs::read_to_string(out.join("suite-go-bench.html")).unwrap());
    let cfg = "[cpu=AMD EPYC goarch=amd64 goos=linux pkg=example.com/benchdemo procs=2]";
    let row = |bench: &str, metric: &str| {
        let name = format!("{bench} {cfg} {metric}");
        rows.iter()
            .find(|r| r.0 == name)
            .unwrap_or_else(|| panic!("no row {name}: {rows:?}"))
            .clone()
    };
    // bench-count3.txt lines 11-13: 126.7, 175.4, 196.4 ns/op, mean 166.17;
    // bench-count3-b.txt lines 11-13: 298.0, 863.2, 646.5 ns/op, mean 602.57.
    let parallel = row("BenchmarkParallelJoin", "ns_op");
    assert_eq!(
        (&parallel.1[..], &parallel.2[..]),
        ("166 ns/op", "603 ns/op")
    );
    // BenchmarkJoin: 1152 ns/op before, 2797 after; 7 allocs and 1016 B per op.
    let join = row("BenchmarkJoin", "ns_op");
    assert_eq!((&join.1[..], &join.2[..]), ("1152 ns/op", "2797 ns/op"));
    assert_eq!(row("BenchmarkJoin", "allocs_op").1, "7 allocs/op");
    assert_eq!(row("BenchmarkParallelJoin", "allocs_op").1, "3 allocs/op");
    assert_eq!(row("BenchmarkSortCopy", "b_op").1, "8216 B/op");

    let jmh = Env::new();
    for (file, branch) in [("9fbceef", "main"), ("0b7774d", "fix")] {
        let tag = format!("branch={branch}");
        let path = fixture(&format!("real/jmh/jcasbin-jmh-result-{file}.json"));
        jmh.ok(&["ingest", &path, "--tag", &tag]);
    }
    let out = jmh.dir.path().join("jmh");
    let out_s = out.display().to_string();
    jmh.ok(&[
        "report",
        "--out",
        &out_s,
        "--baseline",
        "tag.branch=main",
        "--candidate",
        "tag.branch=fix",
    ]);
    let rows = comparison_rows(&std::fs::read_to_string(out.join("suite-jmh.html")).unwrap());
    assert_eq!(rows.len(), 37, "{rows:?}");
    let names: std::collections::BTreeSet<&str> = rows.iter().map(|r| r.0.as_str()).collect();
    assert_eq!(names.len(), 37, "every row tells its cell apart: {names:?}");
    assert!(names.contains(
        "org.casbin.jcasbin.main.benchmark.BenchmarkEnforce.enforce [dataScale=large modelType=rbac useCache=false] thrpt"
    ));
    // Under that row, what JMH printed for it on each side: 9fbceef scored
    // 0.2970826885984748 ± 0.3341766860827693 [-0.03709399748429448, 0.631259374681244]
    // ops/ms, 0b7774d 0.31402111011524303 ± 0.8027072385503304 [-0.4886861284350874,
    // 1.1167283486655735].
    let page = std::fs::read_to_string(out.join("suite-jmh.html")).unwrap();
    let row = page
        .find("enforce [dataScale=large modelType=rbac useCache=false] thrpt</th>")
        .unwrap();
    let next = &page[row..page[row..].find("</tr>\n<tr>").unwrap() + row + 200];
    assert!(
        next.contains(
            "<tr class=\"printed\"><td colspan=\"6\">JMH printed: baseline 0.29708 ± 0.33418 \
             [-0.037094, 0.63126] ops/ms (score), candidate 0.31402 ± 0.80271 [-0.48869, \
             1.1167] ops/ms (score)</td></tr>"
        ),
        "{next}"
    );
}

/// Main's JLBH runs against a branch's far slower ones: the gate cannot decide a single
/// cell (too few replicates), and the index says so, linking to the comparison,
/// rather than an empty "Got worse".
#[test]
fn the_index_counts_and_links_undecided_cells() {
    let env = Env::new();
    for (file, branch) in [("v10-current.txt", "main"), ("v1-varlog.txt", "fix")] {
        let tag = format!("branch={branch}");
        env.ok(&["ingest", &fixture(&format!("jlbh/{file}")), "--tag", &tag]);
    }
    let out = env.dir.path().join("r");
    env.ok(&["report", "--out", &out.display().to_string()]);
    let page = std::fs::read_to_string(out.join("suite-jlbh.html")).unwrap();
    // End to End and OS Jitter at six percentiles each; end to end 50% 8.01 µs → 252 µs.
    assert_eq!(page.matches("<td>undecided</td>").count(), 12, "{page}");
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(
        index.contains(
            "12 cells are undecided: the change may be large but the runs are too few or too noisy to tell; add runs. See <a href=\"suite-jlbh.html#compare\">jlbh: main → fix</a> (12).</p>"
        ),
        "{index}"
    );
}

/// The variation caption says run 1 was left out only where the warm-up rule left it
/// out: JLBH's blocks, not JGroups' perf.Test results, whose runs are all measured.
#[test]
fn variation_captions_name_the_warm_up_run_only_for_jlbh() {
    let env = Env::new();
    env.ok(&[
        "ingest",
        &fixture("real/jgroups/jgroups-2011-INSTALL.html.txt"),
    ]);
    env.ok(&["ingest", &fixture("jlbh/v10-current.txt")]);
    let out = env.dir.path().join("r");
    env.ok(&["report", "--out", &out.display().to_string()]);
    let jgroups = std::fs::read_to_string(out.join("suite-jgroups.html")).unwrap();
    // Three members' lines per '-- results:' block (jgroups-2011-INSTALL.html.txt).
    assert!(
        jgroups.contains("<span class=\"muted\">(3 runs)</span></h4>"),
        "{jgroups}"
    );
    assert!(!jgroups.contains("left out"));
    let jlbh = std::fs::read_to_string(out.join("suite-jlbh.html")).unwrap();
    // Headed by the configuration, as the group is.
    assert!(jlbh.contains("<h4>[co_correction=true distribution=NORMAL interval_us=10 target_throughput=100000] · v10-current.txt <span class=\"muted\">(3 runs; run 1 left out, as JLBH does)</span></h4>"));
}

/// A metric of unknown polarity (tsar's `rpc`, requests per connection) is listed neither
/// as better nor as worse, whatever its change; latency (`rt`) still is.
#[test]
fn unknown_polarity_is_neither_better_nor_worse() {
    let Some(base) = shared("samples/tsar/history-ts-module-ats.txt") else {
        return;
    };
    let env = Env::new();
    env.ok(&["ingest", &base.display().to_string(), "--label", "base"]);
    env.ok(&[
        "ingest",
        &fixture("tsar/history-tail.txt"),
        "--label",
        "cand",
    ]);
    let out = env.dir.path().join("r").display().to_string();
    let report = env.json(&[
        "report",
        "--out",
        &out,
        "--baseline",
        "label=base",
        "--candidate",
        "label=cand",
        "--json",
    ]);
    let listed = |side: &str| -> Vec<String> {
        report["comparisons"][0][side]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["metric"].as_str().unwrap().to_string())
            .collect()
    };
    let (better, worse) = (listed("better"), listed("worse"));
    // rpc 2.84 → 4.99 (+75.8%): unknown polarity.
    assert!(!worse.contains(&"ts.rpc".to_string()), "{report}");
    assert!(!better.contains(&"ts.rpc".to_string()), "{report}");
    // rt 63.35 → 3.38 ms: lower is better.
    assert!(better.contains(&"ts.rt".to_string()), "{report}");
}

/// The `<title>` texts of a page (what its marks say on hover).
fn hover_titles(page: &str) -> Vec<&str> {
    page.split("<title>")
        .skip(1)
        .filter_map(|t| t.split("</title>").next())
        .collect()
}

#[test]
fn a_go_file_of_three_benchmarks_draws_each_apart() {
    // bench-count3.txt: one block, -count 3 of BenchmarkJoin (1064, 1289, 1102 ns/op),
    // BenchmarkSortCopy (40474, 42921, 38736) and BenchmarkParallelJoin (126.7, 175.4,
    // 196.4).
    let env = Env::new();
    let f = fixture("real/go-bench/bench-count3.txt");
    env.ok(&["ingest", &f, "--label", "before"]);
    let out = env.dir.path().join("r");
    env.ok(&["report", "--out", &out.display().to_string()]);
    let page = std::fs::read_to_string(out.join("suite-go-bench.html")).unwrap();
    let titles = hover_titles(&page);
    let ours = |bench: &str| -> Vec<&str> {
        titles
            .iter()
            .copied()
            .filter(|t| t.starts_with(bench) && t.contains("ns/op, 3 runs"))
            .collect()
    };
    let join = ours("BenchmarkJoin [");
    assert_eq!(join.len(), 1, "{titles:#?}");
    assert!(
        join[0].ends_with(
            "· before: ours, median 1102 ns/op, quartiles 1083 ns/op – 1196 ns/op, 3 runs"
        ),
        "{join:?}"
    );
    assert_eq!(ours("BenchmarkSortCopy [").len(), 1, "{titles:#?}");
    assert_eq!(ours("BenchmarkParallelJoin [").len(), 1, "{titles:#?}");
    // Each point is its own benchmark's run: SortCopy's first is run 4 of the file.
    assert!(
        titles
            .iter()
            .any(|t| t.starts_with("BenchmarkSortCopy [")
                && t.contains(": 40.47K ns/op · run 4 (id 4)")),
        "{titles:#?}"
    );
    assert!(
        !titles
            .iter()
            .any(|t| t.starts_with("BenchmarkJoin [") && t.contains("run 4 "))
    );
    // The runs are listed per benchmark: three groups of three runs.
    assert!(page.contains("9 runs in 3 groups"), "{page}");
    let headings: Vec<&str> = page
        .split("<h3>")
        .skip(1)
        .filter(|h| h.contains("go-bench · 3 runs"))
        .collect();
    assert_eq!(headings.len(), 3, "{headings:#?}");
}

#[test]
fn a_jlbh_file_that_kept_run_1_is_not_said_to_leave_it_out_as_jlbh_does() {
    // skipFirstRun(false): JLBH's printed 50% variation 1.60 counts run 1 (0.41 against
    // 0.42 of the others); ours, run 1 left out, is 0.00.
    let Some(dir) = shared("samples/jlbh") else {
        return;
    };
    let file = dir.join("jlbh-2021-summary-5runs-10M-skipfirst-false-chronicle-wire.txt");
    let env = Env::new();
    env.ok(&["ingest", &file.display().to_string()]);
    let out = env.dir.path().join("r");
    env.ok(&["report", "--out", &out.display().to_string()]);
    let jlbh = std::fs::read_to_string(out.join("suite-jlbh.html")).unwrap();
    assert!(!jlbh.contains("as JLBH does"), "{jlbh}");
    assert!(
        jlbh.contains("(5 runs; run 1 left out; printed ≠ % Variation on 1 row: the printed figure counts run 1 (JLBH run with skipFirstRun(false)); --include-first reproduces it)"),
        "{jlbh}"
    );
    assert!(jlbh.contains("<td class=\"v-low\" title=\"printed by the tool: 1.60\">0.00</td>"));
}

/// A branch comparison says for each cell what `gate` says on the same runs: main's
/// history (Go's `-count 3` and hyperfine's 10 ms, then 20 ms, for four commits, the
/// same bytes each time) against a branch's one commit. The copies count once on both
/// (the page once showed a 0-wide interval of four alike centres), so each cell is one
/// invocation against one, judged on its runs.
#[test]
fn a_branch_comparison_judges_each_cell_as_the_gate_does() {
    let env = Env::new();
    let (go, hf) = (fixture("real/go-bench"), fixture("real/hyperfine"));
    let ingest = |files: [&str; 2], commit: &str, branch: &str, day: u32| {
        let (c, b) = (format!("commit={commit}"), format!("branch={branch}"));
        let time = format!("2026-01-{day:02}T10:00:00Z");
        let (g, h) = (format!("{go}/{}", files[0]), format!("{hf}/{}", files[1]));
        env.ok(&[
            "ingest", &g, &h, "--tag", &c, "--tag", &b, "--time", &time, "--no-git",
        ]);
    };
    let (before, after) = (
        ["bench-count3.txt", "named-work-10ms.json"],
        ["bench-count3-b.txt", "named-work-20ms.json"],
    );
    for day in 1..=10 {
        let files = if day <= 6 { before } else { after };
        ingest(files, &format!("c{day}"), "main", day);
    }
    ingest(after, "f1", "feature", 11);
    ingest(before, "f2", "feature", 12);
    let out = env.dir.path().join("r");
    let report = env.json(&["report", "--out", &out.display().to_string(), "--json"]);
    let comparisons = report["comparisons"].as_array().unwrap();
    assert_eq!(comparisons.len(), 2, "{report:#}");
    let key = |c: &serde_json::Value| {
        format!(
            "{} {} {} {}",
            c["bench"], c["config"], c["metric"], c["percentile"]
        )
    };
    let mut statuses = Vec::new();
    for suite in ["go-bench", "hyperfine"] {
        let out = env
            .cmd(&[
                "gate",
                "--json",
                "--baseline",
                &format!("suite={suite};tag.branch=main;latest=10"),
                "--candidate",
                &format!("suite={suite};tag.branch=feature;latest=1"),
            ])
            .output()
            .unwrap();
        let gate: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let c = comparisons.iter().find(|c| c["suite"] == suite).unwrap();
        let listed =
            |side: &str| -> Vec<String> { c[side].as_array().unwrap().iter().map(key).collect() };
        let (worse, better) = (listed("worse"), listed("better"));
        for cell in gate["cells"].as_array().unwrap() {
            let k = key(cell);
            let status = cell["status"].as_str().unwrap();
            assert_eq!(worse.contains(&k), status == "regression", "{k}: {cell:#}");
            if better.contains(&k) {
                assert_eq!(status, "pass", "{k}: {cell:#}");
            }
            if cell["gated"] == true {
                statuses.push((suite, cell["metric"].clone(), status.to_string()));
            }
        }
    }
    // BenchmarkJoin, ParallelJoin and SortCopy ns/op, SortCopy MB/s: 3 runs a side, too
    // few. hyperfine's `work`: main's last segment is four copies of one output, counted
    // once, so its 10 runs against the branch's 10 are the test, and it got faster.
    assert_eq!(statuses.len(), 5, "{statuses:?}");
    for (suite, _, status) in &statuses {
        let want = if *suite == "hyperfine" {
            "pass"
        } else {
            "undecided"
        };
        assert_eq!(status, want, "{statuses:?}");
    }
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(index.contains("Got better (1)") && index.contains("Got worse (0)"));
    let page = std::fs::read_to_string(out.join("suite-hyperfine.html")).unwrap();
    // `work`: 23.8 ms on main, 15.3 ms on the branch: the tested change inside an
    // interval of width, never a 0-wide one of copies that agree to the last digit.
    assert!(
        page.contains("<td class=\"better\">−39.8%</td><td>−58.7% … −20.9%</td><td>better</td>"),
        "{page}"
    );
    assert!(!page.contains("−39.8% … −39.8%"), "{page}");
    assert!(
        page.contains("<p class=\"note\">baseline: 4 invocations repeat the values of ")
            && page.contains("named-work-20ms.json in every run"),
        "{page}"
    );
}

/// `report --json` names each worse and better cell's benchmark and configuration as
/// `compare --json` does: Alpha 50% slower and Beta 40% faster, one metric each.
#[test]
fn report_json_names_the_benchmark_of_each_cell() {
    let env = Env::new();
    let go = |runs: [(&str, [f64; 6]); 2]| {
        let mut s = String::from("goos: linux\ngoarch: amd64\npkg: example.com/x\ncpu: AMD EPYC\n");
        for (bench, values) in runs {
            for v in values {
                s.push_str(&format!("{bench}-2   \t  100000\t {v} ns/op\n"));
            }
        }
        s + "PASS\nok  \texample.com/x\t3.3s\n"
    };
    let base = env.write(
        "base.txt",
        go([
            (
                "BenchmarkAlpha",
                [985.4, 1013.9, 1010.6, 990.2, 999.8, 998.0],
            ),
            (
                "BenchmarkBeta",
                [50303.2, 50577.4, 49187.7, 49056.7, 50671.5, 49865.5],
            ),
        ])
        .as_bytes(),
    );
    let cand = env.write(
        "cand.txt",
        go([
            (
                "BenchmarkAlpha",
                [1515.7, 1470.1, 1496.7, 1513.3, 1483.7, 1526.7],
            ),
            (
                "BenchmarkBeta",
                [30481.7, 29436.7, 29430.5, 30049.7, 30527.0, 29857.4],
            ),
        ])
        .as_bytes(),
    );
    env.ok(&["ingest", &base, "--label", "base", "--no-git"]);
    env.ok(&["ingest", &cand, "--label", "cand", "--no-git"]);
    let sides = ["--baseline", "label=base", "--candidate", "label=cand"];
    let out = env.dir.path().join("r").display().to_string();
    let report = env.json(&[&["report", "--out", &out, "--json"][..], &sides].concat());
    let compared = env.json(&[&["compare", "--json"][..], &sides].concat());
    let c = &report["comparisons"][0];
    let (worse, better) = (&c["worse"][0], &c["better"][0]);
    assert_eq!(
        (worse["bench"].as_str(), better["bench"].as_str()),
        (Some("BenchmarkAlpha"), Some("BenchmarkBeta"))
    );
    for cell in [worse, better] {
        let same = compared
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["bench"] == cell["bench"])
            .unwrap();
        assert_eq!(cell["config"], same["config"]);
        assert_eq!(cell["config"]["pkg"], "example.com/x");
        assert_eq!(cell["config"]["procs"], "2");
    }
}

/// A branch comparison of one benchmark in a suite of several names that benchmark: main
/// holds Go's `BenchmarkJoin` and `BenchmarkSortCopy` (first stored) and
/// `BenchmarkEnvSort`, the pull request `BenchmarkEnvSort` alone (n=1000 against n=4000:
/// 99.4K against 468K ns/op, the means of the files' five runs).
#[test]
fn a_branch_comparison_row_names_its_own_benchmark() {
    let env = Env::new();
    let go = |f: &str| fixture(&format!("real/go-bench/{f}"));
    env.ingest_commit_on(&go("bench-count3.txt"), 1, "main");
    env.ingest_commit_on(&go("envsort-n1000.txt"), 2, "main");
    env.ingest_commit_on(&go("envsort-n4000.txt"), 3, "pr-7");
    let out = env.dir.path().join("r");
    env.ok(&["report", "--out", &out.display().to_string()]);
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    let summary = &index[..index.find("<h2>Suites</h2>").unwrap()];
    assert!(
        summary.contains("<td class=\"text\">BenchmarkEnvSort-2 ns/op</td><td>99.4K ns/op</td><td>468K ns/op</td>"),
        "{summary}"
    );
    assert!(!summary.contains("BenchmarkJoin"), "{summary}");
    assert!(!summary.contains("BenchmarkSortCopy"), "{summary}");
}

/// Where a row's change and its baseline/candidate columns point opposite ways (dubbo's
/// JMH runs of 18 and 31 January: 4 rows, among them `ClientPb.existUser` p99.9 6.56 →
/// 7.18 ms/op shown as −0.6%), the report's table says why, as `compare` does.
#[test]
fn the_report_explains_a_change_opposite_to_its_columns() {
    let env = Env::new();
    for (day, label) in [("18", "before"), ("31", "after")] {
        let path = fixture(&format!("real/jmh/dubbo-triple-202401{day}.md"));
        env.ok(&["ingest", &path, "--label", label, "--no-git"]);
    }
    let sides = ["--baseline", "label=before", "--candidate", "label=after"];
    let text = env.ok(&[&["compare"][..], &sides].concat());
    assert!(
        text.contains("delta and the baseline/candidate columns point opposite ways (4 rows): delta is the tested change"),
        "{text}"
    );
    let out = env.dir.path().join("r");
    env.ok(&[&["report", "--out", &out.display().to_string()][..], &sides].concat());
    let page = std::fs::read_to_string(out.join("suite-jmh.html")).unwrap();
    assert!(
        page.contains("the change column and the baseline/candidate columns point opposite ways (4 rows): the change column is the tested change of the replicates&#39; trimmed geometric mean"),
        "{page}"
    );
}

/// A pull request's one commit is not drawn beside main's curve and history, and the
/// page says so as `curve` and `history` do: a JLBH output at 100000/s and the same at
/// 50000/s (its rate lines edited) twice on main and once on pr-7; Go's three
/// benchmarks on main at two commits and on pr-7 at one.
#[test]
fn the_page_names_the_one_commit_branches_it_leaves_out() {
    let env = Env::new();
    let fast = fixture("jlbh/v10-current.txt");
    let text = std::fs::read_to_string(&fast).unwrap();
    let slow = env.write(
        "v10-50k.txt",
        text.replace(
            "Target throughput:100000/s = 1 message every 10us",
            "Target throughput:50000/s = 1 message every 20us",
        )
        .as_bytes(),
    );
    let go = |f: &str| fixture(&format!("real/go-bench/{f}"));
    let ingest = |i: usize, branch: &str, go_file: &str| {
        for f in [fast.as_str(), slow.as_str(), go(go_file).as_str()] {
            env.ingest_commit_on(f, i, branch);
        }
    };
    ingest(1, "main", "bench-count3.txt");
    ingest(2, "main", "bench-count3-b.txt");
    ingest(3, "pr-7", "bench-count3.txt");
    let out = env.dir.path().join("r");
    env.ok(&["report", "--out", &out.display().to_string()]);
    let jlbh = std::fs::read_to_string(out.join("suite-jlbh.html")).unwrap();
    let curves = &jlbh[jlbh.find("<h2 id=\"curves\">").unwrap()..];
    assert!(
        curves.contains("<p class=\"note\">1 branch with one commit left out beside the longer history of the same curve (pr-7); select one with tag.branch=pr-7.</p>"),
        "{jlbh}"
    );
    let go = std::fs::read_to_string(out.join("suite-go-bench.html")).unwrap();
    assert!(
        go.contains("<p class=\"note\">1 branch with one commit left out beside the longer history of the same series (pr-7); select one with tag.branch=pr-7.</p>"),
        "{go}"
    );
    // Main's histories are drawn over their two commits; the branch's commit is in none
    // (its name is in the note alone).
    let commits = &go[go.find("<h2>History over commits</h2>").unwrap()..];
    assert_eq!(commits.matches("pr-7").count(), 2, "{commits}");
    assert!(commits.contains("/ branch main / ns_op</h3>"), "{commits}");
}

/// The report judges its sides as the gate does: the candidate's runs leave a baseline
/// that also selects them, so `suite=jmh` against `label=b` compares the dubbo log of
/// 2024-01-18 (`a`) with that of 2024-01-31 (`b`), not both against `b`.
#[test]
fn report_sides_leave_the_candidates_runs_out_of_the_baseline() {
    let env = Env::new();
    for (file, label) in [
        ("real/jmh/dubbo-triple-20240118.md", "a"),
        ("real/jmh/dubbo-triple-20240131.md", "b"),
    ] {
        env.ok(&["ingest", &fixture(file), "--label", label, "--no-git"]);
    }
    let out = env
        .cmd(&[
            "report",
            "--out",
            "r",
            "--baseline",
            "suite=jmh",
            "--candidate",
            "label=b",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("leaves out the 36 runs the candidate also selects"),
        "{err}"
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let c = &v["comparisons"][0];
    assert_eq!(
        (c["baseline"].as_str(), c["candidate"].as_str()),
        (Some("a"), Some("b"))
    );
}
