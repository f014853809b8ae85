//! History over commits: metadata captured at ingest (git, CI variables, `--tag`),
//! `history` on a backfill of per-commit logs (medians in order, Otava's change
//! points), history selectors, and the README's CI script against a throwaway repo.

use crate::common::{Env, fixture};
use crate::otava::{Noise, otava, otava_python};
use bench_db::stats::change_point::{Options, compute_change_points};
use serde_json::Value;
use std::path::Path;
use std::process::Command;

/// CI variables a test must not inherit from the machine running it.
const CI_VARS: [&str; 11] = [
    "GITHUB_SHA",
    "GITHUB_REF_NAME",
    "GITHUB_HEAD_REF",
    "CI_COMMIT_SHA",
    "CI_COMMIT_REF_NAME",
    "BUILDKITE_COMMIT",
    "BUILDKITE_BRANCH",
    "GIT_COMMIT",
    "GIT_BRANCH",
    "GITHUB_STEP_SUMMARY",
    "GITHUB_EVENT_NAME",
];

/// An HdrHistogram percentile log whose p50, p99 and max are given.
fn hdr_log(p50: f64, p99: f64, max: f64) -> String {
    format!(
        "       Value   Percentile   TotalCount 1/(1-Percentile)\n\n\
         {p50:12.3}     0.500000         1001         2.00\n\
         {p99:12.3}     0.990000         1981       100.00\n\
         {max:12.3}     1.000000         2000          inf\n\
         #[Mean    = {p50:12.3}, StdDeviation   =        2.013]\n\
         #[Max     = {max:12.3}, Total count    =         2000]\n\
         #[Buckets =           27, SubBuckets     =         2048]\n"
    )
}

/// Rounds as the log prints it, so expected values equal parsed ones.
fn printed(v: f64) -> f64 {
    format!("{v:.3}").parse().unwrap()
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .current_dir(dir)
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .env("GIT_COMMITTER_DATE", "2024-03-04T05:06:07Z")
        .env("GIT_AUTHOR_DATE", "2024-03-04T05:06:07Z")
        .output()
        .expect("git");
    assert!(out.status.success(), "git {args:?}: {:?}", out);
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

fn tags_of(
    env: &Env,
    dir: &Path,
    file: &str,
    extra: &[&str],
    vars: &[(&str, &str)],
) -> serde_json::Value {
    let path = dir.join(file);
    let mut c = env.cmd(&["ingest"]);
    c.arg(&path).args(extra).current_dir(dir);
    for v in CI_VARS {
        c.env_remove(v);
    }
    for (k, v) in vars {
        c.env(k, v);
    }
    let out = c.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let runs = env.json(&["runs", "--json", &format!("source={}", path.display())]);
    runs[0]["tags"].clone()
}

#[test]
fn ingest_records_git_then_ci_then_tag_metadata() {
    let env = Env::new();
    let repo = env.dir.path().join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "-q", "-b", "trunk"]);
    std::fs::write(repo.join("code.txt"), "v1\n").unwrap();
    git(&repo, &["add", "code.txt"]);
    git(&repo, &["commit", "-q", "-m", "one"]);
    let head = git(&repo, &["rev-parse", "HEAD"]);

    std::fs::write(repo.join("a.log"), hdr_log(1.0, 2.0, 3.0)).unwrap();
    let t = tags_of(&env, &repo, "a.log", &[], &[]);
    assert_eq!(t["commit"], head.as_str());
    assert_eq!(t["branch"], "trunk");
    assert_eq!(t["time"], "2024-03-04T05:06:07Z");
    assert_eq!(t["dirty"], "false");
    assert!(t["host"].as_str().is_some_and(|h| !h.is_empty()));

    // A tracked change makes the checkout dirty (untracked logs do not).
    std::fs::write(repo.join("code.txt"), "v2\n").unwrap();
    std::fs::write(repo.join("b.log"), hdr_log(1.5, 2.0, 3.0)).unwrap();
    assert_eq!(tags_of(&env, &repo, "b.log", &[], &[])["dirty"], "true");

    // CI variables win over git.
    std::fs::write(repo.join("c.log"), hdr_log(1.6, 2.0, 3.0)).unwrap();
    let ci = [
        ("GITHUB_SHA", "feedbeef"),
        ("GITHUB_REF_NAME", "main"),
        ("GITHUB_HEAD_REF", ""),
    ];
    let t = tags_of(&env, &repo, "c.log", &[], &ci);
    assert_eq!(
        (t["commit"].as_str(), t["branch"].as_str()),
        (Some("feedbeef"), Some("main"))
    );
    assert!(t.get("dirty").is_none(), "HEAD is not the CI commit: {t}");

    // --tag and --time win over both.
    std::fs::write(repo.join("d.log"), hdr_log(1.7, 2.0, 3.0)).unwrap();
    let t = tags_of(
        &env,
        &repo,
        "d.log",
        &[
            "--tag",
            "commit=abc123",
            "--tag",
            "branch=rel",
            "--time",
            "2020-01-02T03:04:05+01:00",
        ],
        &ci,
    );
    assert_eq!(t["commit"], "abc123");
    assert_eq!(t["branch"], "rel");
    assert_eq!(t["time"], "2020-01-02T02:04:05Z");

    // --no-git: neither CI nor git; the time is the file's.
    std::fs::write(repo.join("e.log"), hdr_log(1.8, 2.0, 3.0)).unwrap();
    let t = tags_of(&env, &repo, "e.log", &["--no-git"], &ci);
    assert!(
        t.get("commit").is_none() && t.get("branch").is_none(),
        "{t}"
    );
    assert!(t["time"].as_str().is_some());

    // A bad --time is a usage error.
    let out = env
        .cmd(&["ingest", "--time", "yesterday"])
        .arg(repo.join("e.log"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("RFC 3339"));
}

/// The per-commit p50 levels of the backfill: steps up and down plus noise.
fn backfill_levels() -> Vec<f64> {
    let mut z = Noise::new(7);
    (0..100)
        .map(|i| {
            let level = match i {
                0..30 => 100.0,
                30..55 => 112.0,
                55..80 => 104.0,
                _ => 125.0,
            };
            printed(level + 2.0 * z.normal())
        })
        .collect()
}

#[test]
fn backfilled_history_has_per_commit_medians_and_otavas_change_points() {
    let env = Env::new();
    let levels = backfill_levels();
    // Ingest in a scrambled order: history orders by time, not by ingest.
    let mut order: Vec<usize> = (0..100).collect();
    order.sort_by_key(|i| (i * 37) % 100);
    let mut expected = levels.clone();
    for &i in &order {
        let commit = format!("c{i:03}");
        let time = format!("2024-01-01T{:02}:{:02}:00Z", i / 60, i % 60);
        let mut files = vec![env.write(
            &format!("logs/{commit}-a.log"),
            hdr_log(levels[i], 500.0, 900.0).as_bytes(),
        )];
        if i % 10 == 3 {
            // A second run of this commit: the point is the median (mean of the two).
            let other = printed(levels[i] + 3.0);
            files.push(env.write(
                &format!("logs/{commit}-b.log"),
                hdr_log(other, 501.0, 901.0).as_bytes(),
            ));
            expected[i] = (levels[i] + other) / 2.0;
        }
        let tag = format!("commit={commit}");
        let mut args = vec!["ingest", "--no-git", "--tag", &tag, "--time", &time];
        for f in &files {
            args.push(f);
        }
        env.ok(&args);
    }
    let h = env.json(&["history", "--json", "--percentile", "50"]);
    let arr = h.as_array().unwrap();
    assert_eq!(arr.len(), 1, "{h}");
    let s = &arr[0];
    assert_eq!(s["suite"], "hdr-percentiles");
    assert_eq!(s["metric"], "latency");
    assert_eq!(s["percentile"], 50.0);
    let points = s["points"].as_array().unwrap();
    let commits: Vec<&str> = points
        .iter()
        .map(|p| p["commit"].as_str().unwrap())
        .collect();
    let want: Vec<String> = (0..100).map(|i| format!("c{i:03}")).collect();
    assert_eq!(commits, want);
    let values: Vec<f64> = points
        .iter()
        .map(|p| p["value"].as_f64().unwrap())
        .collect();
    assert_eq!(values.len(), expected.len());
    for (i, (v, e)) in values.iter().zip(&expected).enumerate() {
        assert!((v - e).abs() < 1e-9, "point {i}: {v} vs {e}");
    }
    assert_eq!(points[3]["runs"], 2);
    assert_eq!(points[4]["runs"], 1);
    assert_eq!(points[5]["time"], "2024-01-01T00:05:00Z");
    let keys: Vec<&str> = s.as_object().unwrap().keys().map(|k| k.as_str()).collect();
    assert_eq!(
        keys,
        [
            "bench",
            "change_points",
            "config",
            "metric",
            "percentile",
            "points",
            "statistic",
            "suite",
            "unit"
        ]
    );
    let keys: Vec<&str> = points[0]
        .as_object()
        .unwrap()
        .keys()
        .map(|k| k.as_str())
        .collect();
    assert_eq!(keys, ["branch", "commit", "runs", "time", "value"]);

    let got: Vec<usize> = s["change_points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["index"].as_u64().unwrap() as usize)
        .collect();
    let port: Vec<usize> = compute_change_points(&expected, &Options::default())
        .unwrap()
        .iter()
        .map(|c| c.index)
        .collect();
    assert_eq!(got, port);
    assert_eq!(got, vec![30, 55, 80], "the steps of the backfill");
    let first = &s["change_points"][0];
    let keys: Vec<&str> = first
        .as_object()
        .unwrap()
        .keys()
        .map(|k| k.as_str())
        .collect();
    assert_eq!(
        keys,
        [
            "after",
            "before",
            "commit",
            "delta_pct",
            "index",
            "p_value",
            "time"
        ]
    );
    assert_eq!(first["commit"], "c030");
    assert_eq!(first["time"], "2024-01-01T00:30:00Z");
    assert!(first["delta_pct"].as_f64().unwrap() > 8.0);
    assert!(first["p_value"].as_f64().unwrap() < 0.001);
    if let Some(python) = otava_python() {
        let reference: Vec<usize> = otava(&python, &[expected.clone()], &Options::default())[0]
            .iter()
            .map(|c| c.0)
            .collect();
        assert_eq!(got, reference, "Apache Otava on the same medians");
    }

    // The human table marks the change points; selectors narrow the history.
    let text = env.ok(&["history", "--percentile", "50"]);
    assert!(text.contains("100 points, 3 change points"), "{text}");
    // A percentile no series has: nothing to show (exit 0), and standard error says why.
    let none = env
        .cmd(&["history", "--percentile", "99.5"])
        .output()
        .unwrap();
    assert_eq!(none.status.code(), Some(0));
    assert!(
        String::from_utf8_lossy(&none.stderr).contains("--percentile 99.5: no selected series"),
        "{none:?}"
    );
    assert_eq!(text.matches("<< ").count(), 3);
    let recent = env.json(&["history", "latest=10", "--json", "--percentile", "50"]);
    let pts = recent[0]["points"].as_array().unwrap();
    assert_eq!(pts.len(), 10);
    assert_eq!(pts[0]["commit"], "c090");
    let window = env.json(&[
        "history",
        "time>=2024-01-01T00:10:00Z;time<2024-01-01T00:20:00Z",
        "--json",
        "--percentile",
        "50",
    ]);
    assert_eq!(window[0]["points"].as_array().unwrap().len(), 10);

    // Bad options are usage errors.
    let out = env.cmd(&["history", "--window", "1"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = env.cmd(&["history", "latest=x"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// The lines of the README's CI job between its markers.
fn readme_ci_script() -> String {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let start = readme.find("# ci-script-start").expect("start marker");
    let end = readme.find("# ci-script-end").expect("end marker");
    readme[start..end]
        .lines()
        .skip(1)
        .map(|l| l.strip_prefix("          ").unwrap_or(l))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The stand-in benchmark: prints a log whose p50 sits at the level in `level.txt`,
/// ±1% from a counter kept outside the repository, and 17% higher on the run whose counter
/// is in `spike.txt`.
const BENCH_SH: &str = r##"#!/bin/sh
n=$(cat "$BENCH_COUNTER" 2>/dev/null || echo 0); n=$((n + 1)); echo $n > "$BENCH_COUNTER"
spike=$(cat spike.txt 2>/dev/null || echo 0)
awk -v level="$(cat level.txt)" -v n=$n -v spike=$spike 'BEGIN {
  j = (n * 37) % 11 - 5; v = level * (1 + j / 500); if (n == spike) v = v * 1.17
  printf "       Value   Percentile   TotalCount 1/(1-Percentile)\n\n"
  printf "%12.3f     0.500000         1001         2.00\n", v
  printf "%12.3f     0.990000         1981       100.00\n", v * 2
  printf "%12.3f     1.000000         2000          inf\n", v * 3
  printf "#[Mean    = %12.3f, StdDeviation   =        2.013]\n", v
  printf "#[Max     = %12.3f, Total count    = %12d]\n", v * 3, 2000 + n
  printf "#[Buckets =           27, SubBuckets     =         2048]\n"
}'
"##;

#[test]
fn readme_ci_job_runs_green_against_a_throwaway_repository() {
    let env = Env::new();
    let script = readme_ci_script();
    assert!(script.contains("bench-db gate"), "{script}");
    let repo = env.dir.path().join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    std::fs::write(env.dir.path().join("ci.sh"), &script).unwrap();
    std::fs::write(repo.join("bench.sh"), BENCH_SH).unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        let p = repo.join("bench.sh");
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    std::fs::write(repo.join("level.txt"), "100\n").unwrap();
    git(&repo, &["init", "-q", "-b", "main"]);
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-q", "-m", "start"]);
    let bin = Path::new(env!("CARGO_BIN_EXE_bench-db"))
        .parent()
        .unwrap()
        .to_path_buf();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let summary = env.dir.path().join("summary.md");
    let job = |event: &str, branch: &str| {
        // Each job starts from a clean checkout.
        for f in std::fs::read_dir(&repo).unwrap() {
            let p = f.unwrap().path();
            if p.extension().is_some_and(|e| e == "log") {
                std::fs::remove_file(p).unwrap();
            }
        }
        let sha = git(&repo, &["rev-parse", "HEAD"]);
        let mut c = Command::new("bash");
        c.arg(env.dir.path().join("ci.sh")).current_dir(&repo);
        for v in CI_VARS {
            c.env_remove(v);
        }
        let pr = event == "pull_request";
        c.env("PATH", &path)
            .env("BENCH_DB", env.db())
            .env("BENCH_COUNTER", env.dir.path().join("counter"))
            .env("GITHUB_EVENT_NAME", event)
            .env("GITHUB_SHA", &sha)
            .env("GITHUB_REF_NAME", if pr { "7/merge" } else { branch })
            .env("GITHUB_HEAD_REF", if pr { branch } else { "" })
            .env("GITHUB_STEP_SUMMARY", &summary);
        c.output().unwrap()
    };
    // The repository's first pull request: no baseline on main yet. The gate cannot decide
    // (exit 3); the job reports that in the summary and passes.
    git(&repo, &["checkout", "-q", "-b", "first"]);
    std::fs::write(repo.join("code.txt"), "first\n").unwrap();
    git(&repo, &["add", "code.txt"]);
    git(&repo, &["commit", "-q", "-m", "first pull request"]);
    let out = job("pull_request", "first");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let first = std::fs::read_to_string(&summary).expect("step summary written");
    assert!(first.to_lowercase().contains("decide"), "{first}");
    git(&repo, &["checkout", "-q", "main"]);
    std::fs::remove_file(&summary).unwrap();
    for k in 0..5 {
        std::fs::write(repo.join("code.txt"), format!("{k}\n")).unwrap();
        git(&repo, &["add", "code.txt"]);
        git(&repo, &["commit", "-q", "-m", &format!("main {k}")]);
        let out = job("push", "main");
        assert!(
            out.status.success(),
            "push {k}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let runs = env.json(&["runs", "--json", "tag.branch=main"]);
    assert_eq!(runs.as_array().unwrap().len(), 25);

    git(&repo, &["checkout", "-q", "-b", "feature"]);
    std::fs::write(repo.join("code.txt"), "feature\n").unwrap();
    git(&repo, &["commit", "-q", "-am", "harmless"]);
    // Its fifth and last log (counter 35: 5 runs of the first pull request, 25 on main)
    // is 17% slow, the other four are as main.
    std::fs::write(repo.join("spike.txt"), "35\n").unwrap();
    let out = job("pull_request", "feature");
    std::fs::remove_file(repo.join("spike.txt")).unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let md = std::fs::read_to_string(&summary).expect("step summary written");
    assert!(md.contains("latency"), "{md}");
    // The gate passed the harmless pull request: the report lists nothing under "Got worse"
    // for it (comparing the latest log file of each branch, one run against one, it showed
    // the slow fifth log as +17% worse).
    let dir = env.dir.path().join("report-harmless").display().to_string();
    let report = env.json(&["report", "--out", &dir, "--json"]);
    for c in report["comparisons"].as_array().unwrap() {
        if c["candidate"].as_str().unwrap().contains("feature") {
            assert_eq!(c["worse"].as_array().unwrap().len(), 0, "{report}");
        }
    }

    std::fs::write(repo.join("level.txt"), "130\n").unwrap();
    git(&repo, &["commit", "-q", "-am", "slower"]);
    let out = job("pull_request", "feature");
    assert_eq!(
        out.status.code(),
        Some(1),
        "a 30% slower pull request fails the job"
    );
    let md2 = std::fs::read_to_string(&summary).unwrap();
    assert!(md2.len() > md.len(), "the second verdict is appended");
    // The report pairs and judges as the gate does: its "Got worse" for the branch is the
    // gate's regressions, cell for cell.
    let sha = git(&repo, &["rev-parse", "HEAD"]);
    let out = env
        .cmd(&[
            "gate",
            "--baseline",
            "tag.branch=main;latest=10",
            "--candidate",
            &format!("tag.commit={sha}"),
            "--json",
        ])
        .output()
        .unwrap();
    let gate: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let key =
        |c: &serde_json::Value| format!("{}@{}", c["metric"].as_str().unwrap(), c["percentile"]);
    let mut regressions: Vec<String> = gate["cells"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["status"] == "regression")
        .map(key)
        .collect();
    regressions.sort();
    assert!(!regressions.is_empty(), "{gate}");
    let dir = env.dir.path().join("report").display().to_string();
    let report = env.json(&["report", "--out", &dir, "--json"]);
    let cmp = report["comparisons"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["candidate"].as_str().unwrap().contains("feature"))
        .unwrap_or_else(|| panic!("{report}"));
    let mut worse: Vec<String> = cmp["worse"].as_array().unwrap().iter().map(key).collect();
    worse.sort();
    assert_eq!(worse, regressions, "{report}");
}

#[test]
fn gate_against_history_uses_the_last_segment() {
    let env = Env::new();
    let mut z = Noise::new(99);
    let mut k = 0;
    let mut ingest = |commit: &str, branch: &str, minute: usize, level: f64, runs: usize| {
        let mut args: Vec<String> = ["ingest", "--no-git", "--tag"].map(String::from).to_vec();
        args.push(format!("commit={commit}"));
        args.extend([
            "--tag".to_string(),
            format!("branch={branch}"),
            "--time".to_string(),
        ]);
        args.push(format!(
            "2024-02-01T{:02}:{:02}:00Z",
            minute / 60,
            minute % 60
        ));
        for _ in 0..runs {
            k += 1;
            let v = printed(level * (1.0 + 0.01 * z.normal()));
            args.push(env.write(
                &format!("logs/{k}.log"),
                hdr_log(v, 2.0 * v, 3.0 * v + k as f64 / 1000.0).as_bytes(),
            ));
        }
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        env.ok(&refs);
    };
    // Thirty commits of main: a step from 100 to 130 at the twenty-first.
    for i in 0..30 {
        ingest(
            &format!("m{i:02}"),
            "main",
            i,
            if i < 20 { 100.0 } else { 130.0 },
            3,
        );
    }
    ingest("same", "feature", 40, 131.0, 5);
    ingest("slower", "feature", 41, 160.0, 5);
    let gate = |cand: &str| {
        env.cmd(&[
            "gate",
            "--baseline",
            "tag.branch=main;latest=30",
            "--candidate",
            cand,
        ])
        .output()
        .unwrap()
    };
    // Against all thirty commits 131 would be +30%; against the segment after the
    // step it is within noise.
    let out = gate("tag.commit=same");
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("the 30 of 90 runs after its last change point"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let out = gate("tag.commit=slower");
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    // The history shows the step where it is.
    let h = env.json(&["history", "tag.branch=main", "--json", "--percentile", "50"]);
    let idx: Vec<u64> = h[0]["change_points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["index"].as_u64().unwrap())
        .collect();
    assert_eq!(idx, vec![20]);
    assert_eq!(h[0]["points"][20]["commit"], "m20");
}

/// The warm-up rule is JLBH's alone: a Go `-count 3` block and a qps-table sweep keep
/// their first run.
#[test]
fn history_keeps_run_one_outside_jlbh_layouts() {
    let env = Env::new();
    for f in ["real/go-bench/bench-count3.txt", "qps-table/sweep.txt"] {
        env.ok(&["ingest", "--tag", "commit=a", &fixture(f)]);
    }
    // bench-count3.txt lines 5-7: BenchmarkJoin 1064, 1289, 1102 ns/op, the median of
    // all three.
    let join = env.json(&[
        "history",
        "--json",
        "bench=BenchmarkJoin",
        "--metric",
        "ns_op",
    ]);
    assert_eq!(join[0]["points"][0]["runs"], 3);
    assert_eq!(join[0]["points"][0]["value"], 1102.0);
    // sweep.txt line 4, threads=8 (run 1 of the table): qps 640.
    let qps = env.json(&["history", "--json", "suite=qps-table", "--metric", "qps"]);
    // The thread count is a number, as `runs --json` writes it; series stay in the order
    // of its printed text.
    let by_threads: Vec<(f64, f64)> = qps
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let threads = s["config"]["threads"].as_f64().unwrap();
            (threads, s["points"][0]["value"].as_f64().unwrap())
        })
        .collect();
    assert_eq!(by_threads, [(16.0, 1221.0), (32.0, 1524.0), (8.0, 640.0)]);
}

/// One hyperfine invocation exported four ways (JSON, CSV, Markdown, terminal) is one
/// value: the Markdown and terminal exports print only the mean (12.7 ms for `sleep
/// 0.01`), so the series follows means throughout and says so; a JSON-only series
/// follows the printed median (the median of the 10 timings, 0.013546731 s).
#[test]
fn one_hyperfine_invocation_is_one_history_value_whatever_its_export() {
    let ingest = |env: &Env, i: usize, f: &str| {
        env.ingest_commit(&fixture(&format!("real/hyperfine/{f}")), i);
    };
    let sleep = |v: &serde_json::Value| {
        v.as_array()
            .unwrap()
            .iter()
            .find(|h| h["bench"] == "sleep 0.01")
            .unwrap()
            .clone()
    };
    let values = |h: &serde_json::Value| -> Vec<f64> {
        h["points"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| (p["value"].as_f64().unwrap() * 1e6).round() / 1e6)
            .collect()
    };
    let env = Env::new();
    let files = [
        "two-commands.json",
        "two-commands.csv",
        "two-commands.md",
        "two-commands-terminal.txt",
    ];
    for (i, f) in files.iter().enumerate() {
        ingest(&env, i + 1, f);
    }
    let h = sleep(&env.json(&["history", "--json"]));
    assert_eq!(h["statistic"], "mean");
    // Was 0.013547 (median), 0.012655, 0.0127, 0.0127 (means): a −6.6% step.
    assert_eq!(values(&h), [0.012655, 0.012655, 0.0127, 0.0127]);
    let text = env.ok(&["history"]);
    assert!(
        text.contains("values are means: an invocation printed only its mean"),
        "{text}"
    );

    let env = Env::new();
    ingest(&env, 1, "two-commands.json");
    ingest(&env, 2, "two-commands.csv");
    let h = sleep(&env.json(&["history", "--json"]));
    assert_eq!(h["statistic"], "median");
    // Was 0.013547 and the CSV's mean 0.012655.
    assert_eq!(values(&h), [0.013547, 0.013547]);
}

/// A series follows one branch: a pull request's one commit is not a point of `main`'s
/// history (Go's Join: main's medians 1102 then 1649 ns/op; the branch's 1102 stays
/// out), and is left out with a note naming it; selected alone, it is its own series.
#[test]
fn a_branch_commit_is_not_a_point_of_mains_history() {
    let env = Env::new();
    let go = |f: &str| fixture(&format!("real/go-bench/{f}"));
    env.ingest_commit(&go("bench-count3.txt"), 1);
    env.ingest_commit(&go("bench-count3-b.txt"), 2);
    env.ingest_commit_on(&go("bench-count3.txt"), 3, "pr-7");
    let out = env.cmd(&["history", "--json"]).output().unwrap();
    assert!(out.status.success());
    let series: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let join: Vec<&serde_json::Value> = series
        .as_array()
        .unwrap()
        .iter()
        .filter(|h| h["bench"] == "BenchmarkJoin" && h["metric"] == "ns_op")
        .collect();
    assert_eq!(join.len(), 1, "{join:?}");
    assert_eq!(join[0]["branch"], "main");
    let values: Vec<f64> = join[0]["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["value"].as_f64().unwrap())
        .collect();
    assert_eq!(values, [1102.0, 1649.0]);
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("note: 1 branch with one commit left out beside the longer history of the same series (pr-7); select one with tag.branch=pr-7"),
        "{err}"
    );
    let alone = env.json(&["history", "tag.branch=pr-7", "--json"]);
    assert!(
        alone
            .as_array()
            .unwrap()
            .iter()
            .all(|h| h["branch"] == "pr-7" && h["points"].as_array().unwrap().len() == 1)
    );
}

/// Without commits a point is one invocation, not one run: Criterion's folders of
/// fixtures/real/criterion/baselines holds two `cargo bench` processes of 100 samples
/// each in three folders (`before`, `after`, and `new`, which Criterion writes as a copy
/// of `after`): two points of fib 10 at the medians their estimates.json print (430.15,
/// 437.54 ns), not 300 points with two change points at p = 0 between copies of one
/// number, nor the copy `new` as a third point.
#[test]
fn without_commits_a_point_is_one_invocation() {
    let env = Env::new();
    env.ok(&["ingest", &fixture("real/criterion/baselines"), "--no-git"]);
    let out = env.cmd(&["history", "--json"]).output().unwrap();
    assert!(out.status.success());
    let h: Value = serde_json::from_slice(&out.stdout).unwrap();
    let fib10 = series(&h, Some("fib/fib 10"), "time");
    let mut values: Vec<f64> = values_2dp(fib10);
    values.sort_by(f64::total_cmp);
    assert_eq!(values, [430.15, 437.54]);
    assert!(fib10["change_points"].as_array().unwrap().is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("note: history: Criterion's `new` folder repeats the values of")
            && err.contains("fib 10/after (the baseline saved beside it, from the same run)"),
        "{err}"
    );
}

/// fixtures/real/hyperfine holds three runs of `sleep 0.01`: two-commands.json and
/// two-commands-b.json (10 times each, the first also as CSV, Markdown and terminal
/// output) and step n=1 of a parameter scan (scan.json, 5 times, also as CSV and terminal
/// output, which prints no parameter: the command names the step). Without commits that
/// is three points, the medians of the runs' times (13.55, 9.99 and 10.62 ms), not eight;
/// under one commit one point of 25 runs, not 31: the exports add no runs.
#[test]
fn exports_of_one_run_are_one_point() {
    let env = Env::new();
    env.ok(&["ingest", &fixture("real/hyperfine"), "--no-git"]);
    let h = env.json(&["history", "--json"]);
    let sleep = |h: &Value| -> Value {
        let mut found = h
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["bench"] == "sleep 0.01" && s["metric"] == "time");
        let one = found.next().unwrap().clone();
        assert!(found.next().is_none(), "one series of `sleep 0.01`");
        one
    };
    let s = sleep(&h);
    assert_eq!(s["config"], serde_json::json!({}));
    assert_eq!(s["statistic"], "median");
    let mut points: Vec<(u64, f64)> = s["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let v = p["value"].as_f64().unwrap();
            (p["runs"].as_u64().unwrap(), (v * 100.0).round() / 100.0)
        })
        .collect();
    points.sort_by(|a, b| a.1.total_cmp(&b.1));
    assert_eq!(points, [(10, 9.99), (5, 10.62), (10, 13.55)]);

    let env = Env::new();
    env.ingest_commit(&fixture("real/hyperfine"), 1);
    let out = env.cmd(&["history", "--json"]).output().unwrap();
    let h: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(sleep(&h)["points"][0]["runs"], 25);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("outputs print the summary of another output beside them"),
        "{err}"
    );
}

/// A time series counts as its run's mean, as in `compare`: three commits of tsar's
/// six-minute table (samples/tsar/history-default-modules-with-max-mean-min-clsn.txt) are
/// three points of cpu.util 0.16 (0.15–0.18 over the minutes) and traffic.bytin 20.83
/// (72, 5, 4, 4, 21, 19); `history` found no series before.
#[test]
fn a_time_series_is_followed_by_its_mean() {
    let Some(dir) = crate::common::shared("samples/tsar") else {
        return;
    };
    let env = Env::new();
    let file = dir.join("history-default-modules-with-max-mean-min-clsn.txt");
    for i in 1..=3 {
        env.ingest_commit(file.to_str().unwrap(), i);
    }
    let h = env.json(&["history", "--json"]);
    let values = |metric: &str| values_2dp(series(&h, None, metric));
    assert_eq!(values("cpu.util"), [0.16, 0.16, 0.16]);
    assert_eq!(values("traffic.bytin"), [20.83, 20.83, 20.83]);
}

/// Criterion's terminal `time: [low estimate high]` prints an estimate of the mean time
/// and no median, so a series holding it follows means throughout: run1-terminal.txt's
/// fib 10 511.91 ns, then the run2 folder's mean 488.13 ns (estimates.json), not its
/// median 451.29 beside the terminal's mean.
#[test]
fn a_criterion_terminal_estimate_is_followed_as_a_mean() {
    let env = Env::new();
    env.ingest_commit(&fixture("real/criterion/run1-terminal.txt"), 1);
    env.ingest_commit(&fixture("real/criterion/run2/criterion"), 2);
    let h = env.json(&["history", "--json"]);
    let fib10 = series(&h, Some("fib/fib 10"), "time");
    assert_eq!(fib10["statistic"], "mean");
    let values: Vec<f64> = values_2dp(fib10);
    assert_eq!(values, [511.91, 488.13]);
}

/// The series of `history --json` with this bench (`None`: one that names none) and metric.
fn series<'a>(h: &'a Value, bench: Option<&str>, metric: &str) -> &'a Value {
    h.as_array()
        .unwrap()
        .iter()
        .find(|s| s["bench"].as_str() == bench && s["metric"] == metric)
        .unwrap_or_else(|| panic!("no series of {metric}: {h}"))
}

/// A series' point values to two decimals, as the files print them.
fn values_2dp(series: &Value) -> Vec<f64> {
    series["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["value"].as_f64().unwrap() * 100.0).round() / 100.0)
        .collect()
}
