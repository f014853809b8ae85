//! What a new user meets in the first hour: every command with its standard output
//! closed, `--json` where the README promises it, one rule for a metric that does not
//! exist, and text that reads right (plurals, reasons, units, widths).

use crate::common::{Env, fixture};
use std::process::{Command, Stdio};

/// A database holding `two-outputs.txt` (blocks "Before the change" and "After the
/// change", three JLBH runs each), tagged with one commit.
fn env_with_jlbh() -> Env {
    let env = Env::new();
    env.ok(&[
        "ingest",
        &fixture("jlbh/two-outputs.txt"),
        "--no-git",
        "--tag",
        "commit=0123456789abcdef0123456789abcdef01234567",
    ]);
    env
}

/// Runs `bench-db ARGS` with a standard output whose reading end is already closed, so
/// the first write fails; returns the exit code and standard error.
fn with_closed_stdout(env: &Env, args: &[&str]) -> (Option<i32>, String) {
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    let out = Command::new(assert_cmd::cargo::cargo_bin("bench-db"))
        .current_dir(env.dir.path())
        .env_remove("BENCH_DB")
        .arg("--db")
        .arg(env.db())
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::from(writer))
        .stderr(Stdio::piped())
        .output()
        .expect("run");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn every_command_exits_0_when_stdout_is_closed() {
    let env = env_with_jlbh();
    let before = "label=Before the change";
    let after = "label=After the change";
    let other = env.dir.path().join("other.db").display().to_string();
    let report = env.dir.path().join("r").display().to_string();
    let db = env.db().display().to_string();
    let jlbh = fixture("jlbh/two-outputs.txt");
    let commands: Vec<Vec<&str>> = vec![
        vec!["completions", "bash"],
        vec!["completions", "zsh"],
        vec!["completions", "fish"],
        vec!["completions", "powershell"],
        vec!["--help"],
        vec!["ingest", "--help"],
        vec!["--version"],
        vec!["ingest", &jlbh, "--no-git"],
        vec!["ingest", &jlbh, "--no-git", "--json"],
        vec!["runs"],
        vec!["runs", "--json"],
        vec!["label", "label=After the change", "After the change"],
        vec![
            "label",
            "label=After the change",
            "After the change",
            "--json",
        ],
        vec!["variation"],
        vec!["variation", "--json"],
        vec!["export"],
        vec!["export", "--json"],
        vec!["compare", "--baseline", before, "--candidate", after],
        vec![
            "compare",
            "--baseline",
            before,
            "--candidate",
            after,
            "--json",
        ],
        vec![
            "compare",
            "--baseline",
            before,
            "--candidate",
            after,
            "--markdown",
        ],
        vec!["curve"],
        vec!["curve", "--json"],
        vec!["history"],
        vec!["history", "--json"],
        vec!["calibrate", "--trials", "5"],
        vec!["calibrate", "--trials", "5", "--json"],
        vec!["report", "--out", &report],
        vec!["report", "--out", &report, "--json"],
        vec!["migrate"],
        vec!["migrate", "--json"],
        vec!["copy", "--from", &db, "--to", &other],
        vec!["copy", "--from", &db, "--to", &other, "--json"],
        vec![
            "run",
            "loopback",
            "--throughput",
            "2000",
            "--iterations",
            "200",
            "--runs",
            "2",
            "--os-jitter",
            "off",
            "--no-store",
        ],
        vec![
            "run",
            "threads",
            "--threads",
            "1",
            "--duration",
            "50ms",
            "--cpu-time",
            "100us",
            "--io-wait",
            "100us",
            "--no-git",
        ],
    ];
    for args in &commands {
        let (code, err) = with_closed_stdout(&env, args);
        assert_eq!(code, Some(0), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    // The gate keeps its verdict: a closed pipe does not turn a regression into a pass.
    let (code, err) = with_closed_stdout(
        &env,
        &[
            "gate",
            "--baseline",
            before,
            "--candidate",
            after,
            "--max",
            "p99=+1%",
        ],
    );
    let (want, _) = gate_code(
        &env,
        &[
            "gate",
            "--baseline",
            before,
            "--candidate",
            after,
            "--max",
            "p99=+1%",
        ],
    );
    assert_eq!(code, want, "{err}");
    assert!(!err.contains("panicked"), "{err}");
    // Results are stored whether or not anybody reads what `run` prints.
    let runs_before = env.json(&["runs", "--json"]).as_array().unwrap().len();
    let (code, err) = with_closed_stdout(
        &env,
        &[
            "run",
            "threads",
            "--threads",
            "1",
            "--duration",
            "50ms",
            "--cpu-time",
            "100us",
            "--io-wait",
            "100us",
            "--no-git",
            "--label",
            "closed pipe",
        ],
    );
    assert_eq!(code, Some(0), "{err}");
    let runs_after = env.json(&["runs", "--json"]).as_array().unwrap().len();
    assert!(runs_after > runs_before, "{runs_before} -> {runs_after}");
}

/// The exit code and standard output of a command run with a normal standard output.
fn gate_code(env: &Env, args: &[&str]) -> (Option<i32>, String) {
    let out = env.cmd(args).output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn migrate_and_copy_print_json_with_a_schema() {
    let env = env_with_jlbh();
    let m = env.json(&["migrate", "--json"]);
    assert_eq!(m["schema"], 1);
    assert_eq!(m["from"], m["to"]);
    assert_eq!(m["upgraded"], false);
    assert!(m["to"].as_i64().unwrap() >= 1);
    let other = env.dir.path().join("other.db").display().to_string();
    let db = env.db().display().to_string();
    // A selector that selects nothing is an error, and creates no target.
    let none = env
        .cmd(&["copy", "--from", &db, "--to", &other, "label=nosuch"])
        .output()
        .unwrap();
    assert_eq!(none.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&none.stderr).contains("selects no run"),
        "{none:?}"
    );
    assert!(!std::path::Path::new(&other).exists());
    let c = env.json(&["copy", "--from", &db, "--to", &other, "--json"]);
    assert_eq!(c["schema"], 1);
    assert_eq!(
        (c["sources"].as_u64(), c["runs"].as_u64()),
        (Some(1), Some(6))
    );
    assert_eq!(c["copied"][0]["runs"], 6);
    assert!(
        c["copied"][0]["source"]
            .as_str()
            .unwrap()
            .ends_with("two-outputs.txt")
    );
    // Again: everything is present already.
    let again = env.json(&["copy", "--from", &db, "--to", &other, "--json"]);
    assert_eq!(
        (again["sources"].as_u64(), again["present"].as_u64()),
        (Some(0), Some(1))
    );
    assert_eq!(again["already_present"].as_array().unwrap().len(), 1);
    // The text says what it did, with singular and plural right.
    let text = env.ok(&["copy", "--from", &db, "--to", &other]);
    assert!(
        text.contains("0 sources copied (0 runs), 1 already present"),
        "{text}"
    );
    assert_eq!(again["other_label"], 0);
    // Relabelled here after the copy: still present, and said to be labelled otherwise
    // there, where the labels are kept.
    env.ok(&["label", "--all", "relabelled"]);
    let out = env
        .cmd(&["copy", "--from", &db, "--to", &other, "--json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (v["present"].as_u64(), v["other_label"].as_u64()),
        (Some(1), Some(6))
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("note: 6 selected runs the target holds already carry another label there (as \"relabelled\" here"),
        "{err}"
    );
    let there = std::process::Command::new(env!("CARGO_BIN_EXE_bench-db"))
        .args(["--db", &other, "runs", "--json"])
        .output()
        .unwrap();
    let there: serde_json::Value = serde_json::from_slice(&there.stdout).unwrap();
    let labels: Vec<&serde_json::Value> = there
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["label"])
        .collect();
    assert_eq!(labels.len(), 6);
    assert!(labels.iter().all(|l| *l != "relabelled"), "{labels:?}");
}

#[test]
fn a_metric_that_does_not_exist_is_an_error_with_the_nearest_names() {
    let env = env_with_jlbh();
    let before = "label=Before the change";
    let after = "label=After the change";
    for args in [
        &["variation", "--metric", "end_to_edn"][..],
        &["history", "--metric", "end_to_edn"][..],
        &["curve", "--metric", "end_to_edn"][..],
        &[
            "compare",
            "--baseline",
            before,
            "--candidate",
            after,
            "--metric",
            "end_to_edn",
        ][..],
    ] {
        let out = env.cmd(args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("did you mean end_to_end"), "{args:?}: {err}");
    }
    // A name nothing resembles lists what is stored.
    let out = env.cmd(&["history", "--metric", "zzz"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    // Nearest first: os_jitter is 9 edits from zzz, end_to_end 10.
    assert!(err.contains("(metrics: os_jitter, end_to_end)"), "{err}");
}

#[test]
fn history_percentile_keeps_only_series_with_that_percentile() {
    let env = Env::new();
    // ZooKeeper `srvr` output: single values only, no percentile ladder.
    env.ok(&["ingest", &fixture("zookeeper"), "--no-git"]);
    env.ok(&["ingest", &fixture("jlbh/two-outputs.txt"), "--no-git"]);
    let all = env.json(&["history", "--json"]);
    assert!(
        all.as_array()
            .unwrap()
            .iter()
            .any(|h| h["percentile"].is_null()),
        "the store holds single values"
    );
    for p in ["99", "99.5"] {
        let h = env.json(&["history", "--json", "--percentile", p]);
        let want: f64 = p.parse().unwrap();
        for s in h.as_array().unwrap() {
            assert_eq!(s["percentile"].as_f64(), Some(want), "{s}");
        }
        assert_eq!(h.as_array().unwrap().is_empty(), p == "99.5", "{p}: {h}");
    }
}

#[test]
fn ingest_help_lists_every_parser_and_parser_replaces_format() {
    let env = Env::new();
    let help = env.ok(&["ingest", "--help"]);
    for f in bench_db_parsers::formats() {
        assert!(help.contains(f.name), "{} missing:\n{help}", f.name);
    }
    // `--parser` is the input format; `--format` still works for scripts.
    let jlbh = fixture("jlbh/two-outputs.txt");
    let a = env.json(&["ingest", &jlbh, "--parser", "jlbh", "--no-git", "--json"]);
    assert_eq!(a["files"][0]["format"], "jlbh");
    let b = env.json(&["ingest", &jlbh, "--format", "jlbh", "--no-git", "--json"]);
    assert_eq!(b["files"][0]["status"], "unchanged");
    let out = env
        .cmd(&["ingest", &jlbh, "--parser", "nope"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("known: jlbh"));
}

#[test]
fn output_format_and_json_alias_on_every_printing_command() {
    let env = env_with_jlbh();
    let before = "label=Before the change";
    let after = "label=After the change";
    for args in [
        &["runs"][..],
        &["variation"][..],
        &["history"][..],
        &["curve"][..],
        &["calibrate", "--trials", "5"][..],
        &["compare", "--baseline", before, "--candidate", after][..],
    ] {
        let mut json = args.to_vec();
        json.push("--json");
        let mut format = args.to_vec();
        format.extend(["--format", "json"]);
        assert_eq!(env.ok(&json), env.ok(&format), "{args:?}");
        let mut both = json.clone();
        both.extend(["--format", "text"]);
        assert_eq!(env.cmd(&both).output().unwrap().status.code(), Some(2));
    }
    // `compare --markdown` is `--format markdown`.
    let md = env.ok(&[
        "compare",
        "--baseline",
        before,
        "--candidate",
        after,
        "--markdown",
    ]);
    let f = env.ok(&[
        "compare",
        "--baseline",
        before,
        "--candidate",
        after,
        "--format",
        "markdown",
    ]);
    assert_eq!(md, f);
    assert!(md.starts_with("| suite |"), "{md}");
}

#[test]
fn text_says_1_run_and_why_a_file_was_skipped() {
    let env = Env::new();
    let one = env.write("one.txt", b"Run time: 5.0s\n");
    let notes = env.write("notes.txt", b"nothing to see here\n");
    let out = env.ok(&["ingest", &notes, &one, "--no-git"]);
    assert!(
        out.contains("notes.txt (no format recognised in its first 256 KiB)"),
        "{out}"
    );
    assert!(out.contains("0 errors"), "{out}");
    let runs = env.ok(&["runs"]);
    assert!(runs.ends_with("\n0 runs\n"), "{runs}");
    // A k6 summary is one run: singular.
    let out = env.ok(&["ingest", &fixture("k6/summary-export.json"), "--no-git"]);
    assert!(out.contains("(k6, 1 run)"), "{out}");
    assert!(env.ok(&["runs"]).ends_with("\n1 run\n"));
}

#[test]
fn runs_table_shows_values_a_short_commit_and_aligns_wide_labels() {
    use unicode_width::UnicodeWidthStr;
    let env = Env::new();
    let commit = "0123456789abcdef0123456789abcdef01234567";
    env.ok(&[
        "ingest",
        &fixture("zookeeper/mntr-3.4.txt"),
        "--no-git",
        "--label",
        "以下是以20,000次迭代/秒的吞吐量運行時的結果",
        "--tag",
        &format!("commit={commit}"),
    ]);
    let out = env.ok(&["runs"]);
    let lines: Vec<&str> = out.lines().collect();
    // The commit on one line, by its first 12 characters.
    assert!(lines[1].contains(" 0123456789ab "), "{out}");
    assert!(!out.contains("cdef01234567"), "{out}");
    // Single values in a column of their own.
    assert!(lines[0].ends_with("values"), "{out}");
    assert!(lines[1].contains("zk_avg_latency=3"), "{out}");
    assert!(out.contains("more"), "{out}");
    // Columns start at the same terminal column on every line, wide characters or not.
    let column = |line: &str, text: &str| line.find(text).map(|i| line[..i].width());
    assert_eq!(
        column(lines[0], "commit"),
        column(lines[1], "0123456789ab"),
        "{out}"
    );
    assert_eq!(column(lines[0], "run "), column(lines[1], "1    "), "{out}");
}

/// The README's five-line walkthrough, run as written from the checkout (the database and
/// the report go to a temp dir instead of the checkout).
#[test]
fn the_readme_walkthrough_works() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let start = readme.find("The first five minutes").expect("walkthrough");
    let block = readme[start..]
        .split("```sh\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .unwrap();
    let lines: Vec<&str> = block.lines().collect();
    assert_eq!(lines.len(), 5, "{block}");
    let env = Env::new();
    let out_dir = env.dir.path().join("bench-report");
    let mut ran = 0;
    for line in lines.iter().filter(|l| l.starts_with("bench-db ")) {
        let args: Vec<String> = line
            .split_whitespace()
            .skip(1)
            .map(|a| {
                if a == "bench-report" {
                    out_dir.display().to_string()
                } else {
                    a.to_string()
                }
            })
            .collect();
        let out = Command::new(assert_cmd::cargo::cargo_bin("bench-db"))
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env("BENCH_DB", env.db())
            .args(&args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{line}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        ran += 1;
    }
    assert_eq!(ran, 4);
    assert!(out_dir.join("index.html").is_file());
    assert!(lines[4].ends_with("bench-report/index.html"), "{block}");
}
