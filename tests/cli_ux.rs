//! The command line as people meet it: help with examples for every subcommand,
//! completions, the version's commit, colour choices and one error style.

use crate::common::Env;

const SUBCOMMANDS: [&[&str]; 17] = [
    &["ingest"],
    &["runs"],
    &["label"],
    &["variation"],
    &["export"],
    &["compare"],
    &["curve"],
    &["gate"],
    &["report"],
    &["run"],
    &["run", "loopback"],
    &["run", "threads"],
    &["completions"],
    &["history"],
    &["calibrate"],
    &["copy"],
    &["migrate"],
];

#[test]
fn every_subcommand_has_examples_and_every_option_help() {
    let env = Env::new();
    for sub in SUBCOMMANDS {
        let mut args = sub.to_vec();
        args.push("--help");
        let help = env.ok(&args);
        assert!(help.contains("EXAMPLES:\n  bench-db "), "{sub:?}:\n{help}");
        // Every option carries text after its name, or on the next line when long.
        let lines: Vec<&str> = help.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let opt = line.trim_start();
            if !(opt.starts_with("--") || opt.starts_with("-h")) {
                continue;
            }
            let beside = opt.split_once("  ").is_some_and(|x| !x.1.trim().is_empty());
            let below = lines.get(i + 1).is_some_and(|n| {
                let t = n.trim_start();
                !t.is_empty() && !t.starts_with('-') && n.len() - t.len() > 6
            });
            assert!(beside || below, "{sub:?}: option without help: {line:?}");
        }
    }
}

#[test]
fn completions_for_four_shells_and_version_with_commit() {
    let env = Env::new();
    for (shell, marker) in [
        ("bash", "complete -F"),
        ("zsh", "#compdef bench-db"),
        ("fish", "complete -c bench-db"),
        ("powershell", "Register-ArgumentCompleter"),
    ] {
        let script = env.ok(&["completions", shell]);
        assert!(script.contains(marker), "{shell}");
        assert!(
            script.contains("report") && script.contains("baseline"),
            "{shell}"
        );
    }
    let bad = env.cmd(&["completions", "tcsh"]).output().unwrap();
    assert_eq!(bad.status.code(), Some(2));
    let version = env.ok(&["--version"]);
    assert!(version.starts_with("bench-db 0."), "{version}");
    assert!(version.contains("(commit "), "{version}");
}

/// What bash completes for `words` (the last is the word being completed), from the
/// script `completions bash` prints, sourced as a user's shell would.
fn bash_completes(env: &Env, words: &[&str]) -> String {
    let script = env.write("bench-db.bash", env.ok(&["completions", "bash"]).as_bytes());
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let cword = words.len() - 1;
    let prev = if cword > 0 { words[cword - 1] } else { "" };
    // The function `complete -p bench-db` names: what bash itself would call.
    let line = format!(
        "source {script}; f=$(complete -p bench-db); f=${{f#*-F }}; f=${{f%% *}}; \
         COMP_WORDS=({}); COMP_CWORD={cword}; $f bench-db '{}' '{prev}'; \
         echo \"${{COMPREPLY[*]}}\"",
        quoted.join(" "),
        words[cword]
    );
    let out = std::process::Command::new("bash")
        .args(["-c", &line])
        .output()
        .expect("bash");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

#[test]
fn bash_completes_options_and_values_past_the_subcommand() {
    let env = Env::new();
    assert_eq!(
        bash_completes(&env, &["bench-db", "rm", "--dr"]),
        "--dry-run"
    );
    assert_eq!(
        bash_completes(&env, &["bench-db", "ingest", "--pa"]),
        "--parser"
    );
    assert_eq!(
        bash_completes(&env, &["bench-db", "gate", "--format", ""]),
        "text json markdown junit github"
    );
    // Parser names, not file names, after `--parser` and its alias `--format`.
    for option in ["--parser", "--format"] {
        assert_eq!(
            bash_completes(&env, &["bench-db", "ingest", option, "hy"]),
            "hyperfine"
        );
    }
    assert_eq!(
        bash_completes(&env, &["bench-db", "run", "loo"]),
        "loopback"
    );
}

#[test]
fn colour_follows_flag_then_environment_and_errors_share_one_style() {
    let env = Env::new();
    // A usage error (clap) and a runtime error (ours) both start with `error:`.
    let usage = env.cmd(&["compare", "--baseline", "x"]).output().unwrap();
    let runtime = env.cmd(&["runs", "colour=red"]).output().unwrap();
    for out in [&usage, &runtime] {
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.starts_with("error: "), "{err}");
    }
    // Forced colour, by flag or by CLICOLOR_FORCE; NO_COLOR and --color never win over it.
    let forced = env
        .cmd(&["runs", "colour=red"])
        .env("CLICOLOR_FORCE", "1")
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&forced.stderr).starts_with("\x1b[1;31merror:"));
    let flag = env
        .cmd(&["--color", "always", "runs", "colour=red"])
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&flag.stderr).contains("\x1b["));
    let never = env
        .cmd(&["--color=never", "runs", "colour=red"])
        .env("CLICOLOR_FORCE", "1")
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&never.stderr).contains('\x1b'));
    let no_color = env
        .cmd(&["compare", "--baseline", "x"])
        .env("NO_COLOR", "1")
        .env("CLICOLOR_FORCE", "1")
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&no_color.stderr).contains('\x1b'));
}

#[test]
fn empty_selections_typos_and_unitless_slos_are_errors_with_hints() {
    let Some(seed) = crate::common::shared("seeds/004_b9ec09d331214652.txt") else {
        return;
    };
    let env = Env::new();
    let seed = seed.display().to_string();
    env.ok(&["ingest", &seed]);
    let run = |args: &[&str]| {
        let out = env.cmd(args).output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let before = "label=Before this changes";
    let after = "label=After these changes";
    // A near miss names what is stored.
    for args in [
        &[
            "compare",
            "--baseline",
            "label=Before",
            "--candidate",
            after,
        ][..],
        &["gate", "--baseline", before, "--candidate", "label=Before"][..],
        &["curve", "label=Before"][..],
        &["label", "label=Before", "x"][..],
        &["report", "--baseline", "label=Before", "--candidate", after][..],
    ] {
        let (code, _, err) = run(args);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        // The hint is a line of its own under the error, not a `\n` shown in one line.
        assert!(
            err.contains(
                "\"label=Before\" selects no run\n  \
                 no run has label=Before; near matches: label=Before this changes\n"
            ),
            "{args:?}: {err}"
        );
    }
    // An empty baseline alone is a first run: undecided (3), with the hint.
    let (code, _, err) = run(&["gate", "--baseline", "label=Befor", "--candidate", after]);
    assert_eq!(code, Some(3), "{err}");
    assert!(
        err.contains(
            "hint: --baseline \"label=Befor\" selects no run\n  \
             no run has label=Befor; near matches: label=Before this changes\n"
        ),
        "{err}"
    );
    // A comma where a ';' was meant gets a hint on any command.
    let (code, out, err) = run(&["runs", "suite=arthas,label=x"]);
    assert_eq!(code, Some(0));
    assert!(out.contains("0 runs"));
    assert!(
        err.contains("did you mean \"suite=arthas;label=x\""),
        "{err}"
    );
    // source= takes a path suffix.
    let (_, out, _) = run(&["runs", "source=seeds/004_b9ec09d331214652.txt"]);
    assert!(out.contains("2 runs"), "{out}");
    // A mistyped metric is an error with the right name.
    let (code, _, err) = run(&[
        "compare",
        "--baseline",
        before,
        "--candidate",
        after,
        "--metric",
        "latency_avgg",
    ]);
    assert_eq!(code, Some(2));
    assert!(err.contains("did you mean latency_avg"), "{err}");
    let (code, _, err) = run(&["curve", "--slo", "p99<200"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("has no unit"), "{err}");
}

#[test]
fn runs_table_shows_whole_labels_tags_and_commit() {
    let Some(seed) = crate::common::shared("seeds/004_b9ec09d331214652.txt") else {
        return;
    };
    let env = Env::new();
    let label = "以下是以20,000次迭代/秒的吞吐量運行時的結果 with a long English tail too";
    env.ok(&[
        "ingest",
        &seed.display().to_string(),
        "--label",
        label,
        "--tag",
        "commit=abc1234",
        "--tag",
        "branch=main",
    ]);
    let out = env.ok(&["runs"]);
    assert!(!out.contains('…'), "{out}");
    assert!(
        out.contains("abc1234") && out.contains("branch=main"),
        "{out}"
    );
    // The label is whole once its wrapped pieces are put back together.
    let label_col = out.lines().next().unwrap().find("label").unwrap();
    let pieces: String = out
        .lines()
        .skip(1)
        .take_while(|l| !l.starts_with('2'))
        .map(|l| {
            let start = l
                .char_indices()
                .map(|c| c.0)
                .find(|i| *i >= label_col)
                .unwrap_or(l.len());
            let piece = &l[start..];
            piece.split("  ").next().unwrap_or("").to_string()
        })
        .collect();
    let squeeze = |t: &str| t.replace(' ', "");
    assert_eq!(squeeze(&pieces), squeeze(label), "{out}");
}

#[test]
fn json_documents_carry_a_schema_version() {
    let Some(seed) = crate::common::shared("seeds/004_b9ec09d331214652.txt") else {
        return;
    };
    let env = Env::new();
    let ingest = env.json(&["ingest", &seed.display().to_string(), "--json"]);
    assert_eq!(ingest["schema"], 1);
    let label = env.json(&["label", "label=Before this changes", "before", "--json"]);
    assert_eq!(
        (label["schema"].as_i64(), label["relabelled"].as_i64()),
        (Some(1), Some(1))
    );
    let out = env.dir.path().join("r").display().to_string();
    let report = env.json(&[
        "report",
        "--baseline",
        "label=before",
        "--candidate",
        "label=After these changes",
        "--out",
        &out,
        "--json",
    ]);
    assert_eq!(report["schema"], 1);
    assert_eq!(report["comparisons"][0]["baseline"], "before");
    assert!(report["files"].as_array().unwrap().len() >= 2);
    // --json is an alias of --format json where --format exists.
    let a = env.ok(&["export", "--json"]);
    let b = env.ok(&["export", "--format", "json"]);
    assert_eq!(a, b);
    assert!(a.trim_start().starts_with('['));
}

/// CSV is data: a label a spreadsheet would run as a formula is written with a leading
/// `'`, numbers stay numbers, and JSON keeps the label exactly.
#[test]
fn export_csv_neutralises_formula_cells() {
    let env = Env::new();
    let f = crate::common::fixture("jlbh/v10-current.txt");
    env.ok(&[
        "ingest",
        "--no-git",
        "--label",
        "=HYPERLINK(\"http://x\")",
        &f,
    ]);
    let csv = env.ok(&["export"]);
    let row = csv.lines().nth(1).unwrap();
    assert!(row.contains(",\"'=HYPERLINK(\"\"http://x\"\")\","), "{row}");
    // The row ends with value, unit and stat (empty for a measured point).
    let value = row.rsplit(',').nth(2).unwrap();
    assert!(value.parse::<f64>().is_ok(), "{row}");
    let json = env.json(&["export", "--json"]);
    assert_eq!(json[0]["label"], "=HYPERLINK(\"http://x\")");
}

#[test]
fn variation_columns_stay_apart_when_values_are_wide() {
    let Some(hlog) = crate::common::shared("samples/hdrhistogram/hlog-v1.2-tagged.txt") else {
        return;
    };
    let env = Env::new();
    env.ok(&["ingest", &hlog.display().to_string(), "--no-git"]);
    let table = env.ok(&["variation", "source=hlog-v1.2-tagged.txt"]);
    // The untagged stream and `Tag=A` are two streams, each a table of its own; each
    // 95th percentile is 746586111 (twelve characters with decimals), apart from the
    // `% Variation` column beside it.
    let headers: Vec<&str> = table.lines().filter(|l| l.starts_with("== ")).collect();
    assert_eq!(headers.len(), 2, "{table}");
    assert!(headers[1].contains("[tag=A]"), "{table}");
    for (k, header_line) in table
        .lines()
        .enumerate()
        .filter(|(_, l)| l.starts_with("Percentile"))
    {
        let row = table
            .lines()
            .skip(k)
            .find(|l| l.starts_with("95:"))
            .unwrap();
        assert_eq!(
            row.split_whitespace().collect::<Vec<_>>()[..3],
            ["95:", "746586111.00", "-"],
            "{table}"
        );
        // The run column ends where its header ends.
        let run = if header_line.contains("run1") {
            "run1"
        } else {
            "run2"
        };
        let run_end = header_line.find(run).unwrap() + run.len();
        assert_eq!(row.rfind("746586111.00").unwrap() + 12, run_end, "{table}");
    }
}

#[test]
fn variation_columns_stay_apart_for_jgroups_byte_counts() {
    let Some(file) =
        crate::common::shared("samples/jgroups/mperf-2013-manual-jgroups3.x-count-based.txt")
    else {
        return;
    };
    let env = Env::new();
    env.ok(&["ingest", &file.display().to_string(), "--no-git"]);
    let table = env.ok(&["variation", "suite=jgroups"]);
    // 2 runs of 1,000,000 messages of 1000 bytes: 2000000000 bytes received each.
    let row = table
        .lines()
        .find(|l| l.contains("2000000000.00"))
        .unwrap_or_else(|| panic!("{table}"));
    assert_eq!(
        row.split_whitespace().collect::<Vec<_>>()[..3],
        ["value:", "2000000000.00", "2000000000.00"],
        "{table}"
    );
}

#[test]
fn variation_headings_name_the_configuration_and_mode() {
    let env = Env::new();
    env.ok(&[
        "ingest",
        &crate::common::fixture("real/jmh/jmh-playground-branch-prediction.txt"),
        &crate::common::fixture("real/go-bench/bench-cpu.txt"),
        "--no-git",
    ]);
    let table = env.ok(&["variation", "bench=BranchPrediction.hashSet"]);
    let headings: Vec<&str> = table.lines().filter(|l| l.starts_with("== ")).collect();
    // Lines 2-5 of the JMH table: (same) and (shuffle) false/true, mode avgt, in ns/op.
    let name = "== jmh / jmh-playground-branch-prediction.txt / BranchPrediction.hashSet";
    assert_eq!(
        headings,
        [
            format!("{name} [same=false shuffle=false] avgt (ns/op)"),
            format!("{name} [same=false shuffle=true] avgt (ns/op)"),
            format!("{name} [same=true shuffle=false] avgt (ns/op)"),
            format!("{name} [same=true shuffle=true] avgt (ns/op)"),
        ],
        "{table}"
    );
    // Go's BenchmarkJoin-2 (bench-cpu.txt lines 7-8) is BenchmarkJoin at procs=2; its
    // metric ns_op spells its unit, which is not repeated.
    let go = env.ok(&["variation", "source=bench-cpu.txt;param.procs=2"]);
    let first = go.lines().next().unwrap();
    assert!(
        first.starts_with("== go-bench / bench-cpu.txt / BenchmarkJoin [")
            && first.contains(" procs=2] ")
            && first.ends_with(" ns_op"),
        "{go}"
    );
}

#[test]
fn runs_table_names_each_runs_benchmark() {
    let env = Env::new();
    let file = crate::common::fixture("real/hyperfine/two-commands.json");
    env.ok(&["ingest", &file, "--no-git", "--tag", "commit=hA"]);
    let out = env.ok(&["runs", "tag.commit=hA"]);
    let header = out.lines().next().unwrap();
    assert!(header.contains("  bench  "), "{out}");
    // Ten runs of each command (two-commands.json lines 4 and 38).
    for bench in ["sleep 0.01", "sleep 0.02"] {
        let rows = out
            .lines()
            .filter(|l| l.contains(&format!("  {bench}  ")))
            .count();
        assert_eq!(rows, 10, "{bench}:\n{out}");
    }
}

#[test]
fn selector_and_metric_errors_say_what_is_there() {
    let env = Env::new();
    let tsar = crate::common::fixture("real/tsar");
    env.ok(&["ingest", &tsar, "--no-git"]);
    // A selector that selects nothing is said to, for history and variation alike.
    for cmd in ["history", "variation"] {
        let out = env.cmd(&[cmd, "tag.commit=zzz"]).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{cmd}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.starts_with("error: selector \"tag.commit=zzz\" selects no run\n"),
            "{cmd}: {err}"
        );
    }
    // An unknown key lists every term, the history terms too.
    let out = env.cmd(&["runs", "foo=bar"]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("time>=, time<, latest="), "{err}");
    // `qsp` is `qps` with two letters swapped: the tsar metrics that end in it are named.
    let out = env
        .cmd(&["variation", "--metric", "qsp", "suite=tsar"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("did you mean nginx_ups.qps or php_fpm.qps?"),
        "{err}"
    );
}

#[test]
fn unchanged_file_shows_the_format_it_is_stored_as() {
    let env = Env::new();
    let file = crate::common::fixture("real/qps-table/brpc-docs-en-thrift.md.txt");
    let first = env.ok(&["ingest", &file, "--no-git"]);
    assert!(first.contains("(qps-table, "), "{first}");
    let again = env.ok(&["ingest", &file, "--no-git", "--parser", "tsar"]);
    assert!(again.starts_with("unchanged"), "{again}");
    assert!(again.contains("(qps-table"), "{again}");
}

#[test]
fn help_names_the_json_fields_each_command_prints() {
    let env = Env::new();
    let help = |cmd: &str| env.ok(&[cmd, "--help"]);
    assert!(help("ingest").contains("error, reason}]"));
    // The fields of VariationRow, as `variation --json` prints them.
    let variation = help("variation");
    for field in ["suite, bench, config, label", "variation_pct", "spread"] {
        assert!(variation.contains(field), "{field}: {variation}");
    }
    assert!(help("migrate").contains("upgraded, reingest}"));
    assert!(help("copy").contains("The global --db is not used"));
    // printed::side shows a summary for the runs of one block: a JMH benchmark's forks.
    assert!(help("compare").contains("the forks of one JMH benchmark are one block"));
}

#[test]
fn check_on_a_file_too_damaged_to_open_does_not_send_the_reader_to_check() {
    let env = Env::new();
    std::fs::write(env.db(), vec![0x5a; 16384]).unwrap();
    let out = env.cmd(&["check"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("so nothing in it can be checked"), "{err}");
    assert!(!err.contains("check` tells"), "{err}");
    // Other commands still name `check`.
    let out = env.cmd(&["runs"]).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("check` tells"));
}

#[test]
fn variation_says_when_jlbhs_printed_figure_counts_run_one() {
    let Some(file) = crate::common::shared(
        "samples/jlbh/jlbh-2021-summary-5runs-10M-skipfirst-false-chronicle-wire.txt",
    ) else {
        return;
    };
    let env = Env::new();
    env.ok(&["ingest", &file.display().to_string(), "--no-git"]);
    let sel = "source=jlbh-2021-summary-5runs-10M-skipfirst-false-chronicle-wire.txt";
    // p50 runs 0.41 0.42 0.42 0.42 0.42: JLBH printed 1.60, the spread with run 1; runs 2–5
    // alone vary 0.00.
    let table = env.ok(&["variation", sel]);
    let p50 = table.lines().find(|l| l.starts_with("50:")).unwrap();
    assert_eq!(
        p50.split_whitespace().rev().take(3).collect::<Vec<_>>(),
        ["0.00", "1.60", "0.00"],
        "{table}"
    );
    assert!(
        table.contains(
            "printed ≠ % Variation on 1 row: the printed figure counts run 1 (JLBH run with skipFirstRun(false)); --include-first reproduces it"
        ),
        "{table}"
    );
    let all = env.ok(&["variation", sel, "--include-first"]);
    assert!(!all.contains("printed ≠"), "{all}");
}

#[test]
fn a_policy_file_error_is_shown_on_its_own_lines_naming_the_file_once() {
    let env = Env::new();
    let policy = env.write("pol.toml", b"alpha = \"x\"\n");
    let gate = |policy: &str| {
        let out = env
            .cmd(&[
                "gate",
                "--baseline",
                "label=a",
                "--candidate",
                "label=b",
                "--policy",
                policy,
            ])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        String::from_utf8(out.stderr).unwrap()
    };
    assert_eq!(
        gate(&policy),
        format!(
            "error: policy {policy}: TOML parse error at line 1, column 9\n    \
             |\n  1 | alpha = \"x\"\n    |         ^^^\n  \
             invalid type: string \"x\", expected f64\n"
        )
    );
    let policy = env.write("alpha.toml", b"alpha = 2\n");
    assert_eq!(
        gate(&policy),
        format!("error: policy {policy}: alpha must be in (0, 1), got 2\n")
    );
}

#[test]
fn a_comma_hint_is_printed_once_per_selector() {
    let env = Env::new();
    // A label holding `,suite=`: the selector selects its runs and still gets the hint.
    let label = "x,suite=jlbh";
    env.ok(&[
        "ingest",
        &crate::common::fixture("jlbh/v1-varlog.txt"),
        "--no-git",
        "--label",
        "before",
    ]);
    env.ok(&[
        "ingest",
        &crate::common::fixture("jlbh/v10-current.txt"),
        "--no-git",
        "--label",
        label,
    ]);
    let hints = |args: &[&str]| {
        let out = env.cmd(args).output().unwrap();
        let err = String::from_utf8(out.stderr).unwrap();
        (
            out.status.code(),
            err.matches("hint: selector terms are joined").count(),
        )
    };
    let x = "label=x,suite=jlbh";
    assert_eq!(hints(&["curve", "suite=jlbh,label=after"]), (Some(2), 1));
    assert_eq!(
        hints(&["compare", "--baseline", "label=before", "--candidate", x]),
        (Some(0), 1)
    );
    assert_eq!(
        hints(&["gate", "--baseline", "label=before", "--candidate", x]).1,
        1
    );
    assert_eq!(hints(&["label", x, "after"]), (Some(0), 1));
}

#[test]
fn percentiles_outside_0_to_100_are_usage_errors_and_100_is_the_worst() {
    let env = Env::new();
    env.ok(&[
        "ingest",
        &crate::common::fixture("jlbh/v10-current.txt"),
        "--no-git",
    ]);
    for args in [
        &["curve", "--percentiles", "50,150"][..],
        &["history", "--percentile", "150"][..],
    ] {
        let out = env.cmd(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(
            err.contains("'150'") && err.contains("percentile 150 is not in 0-100"),
            "{err}"
        );
    }
    // JLBH's `worst` row is percentile 100: runs 2 and 3 print 15.30 and 2049.02.
    let curve = env.json(&["curve", "--percentiles", "100", "--json"]);
    let point = &curve["points"][0];
    assert_eq!(
        (point["percentile"].as_f64(), point["min"].as_f64()),
        (Some(100.0), Some(15.3))
    );
    assert_eq!(point["max"].as_f64(), Some(2049.02));
}

#[test]
fn help_lists_the_json_fields_and_every_selector_term() {
    let env = Env::new();
    let help = |cmd: &str| env.ok(&[cmd, "--help"]);
    // Fields as `runs --json` and `history --json` write them.
    assert!(help("runs").contains(
        "JSON: an array of runs (id, suite, label, format, source, run_index, bench, config, params,"
    ));
    assert!(help("history").contains(
        "JSON: an array of series (suite, bench, config, label, metric, percentile, unit, \
         points, change_points); label only where the runs were given one (--label), and with \
         --by label."
    ));
    // Every command that takes a selector lists every term.
    for cmd in [
        "rm",
        "label",
        "runs",
        "copy",
        "export",
        "variation",
        "curve",
        "calibrate",
        "report",
        "history",
    ] {
        let text = help(cmd);
        for term in [
            "param.KEY=VALUE",
            "time<RFC3339",
            "latest=N",
            "run=A..B",
            "bench=NAME",
        ] {
            assert!(text.contains(term), "{cmd} --help lacks {term}");
        }
    }
}

/// On a database without runs the listing commands list nothing (exit 0), and the
/// commands that need runs say what to do first (exit 2); a selector that selects
/// nothing names its near matches, in `calibrate` too.
#[test]
fn an_empty_database_says_to_ingest_first() {
    let env = Env::new();
    let logs = env.dir.path().join("logs");
    std::fs::create_dir(&logs).unwrap();
    env.ok(&["ingest", logs.to_str().unwrap()]);
    for args in [&["runs"][..], &["variation"], &["history"], &["export"]] {
        env.ok(args);
    }
    for args in [&["curve"][..], &["calibrate"]] {
        let out = env.cmd(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("the database holds no runs: `bench-db ingest PATH` first"),
            "{args:?}: {err}"
        );
    }
    env.ok(&["ingest", &crate::common::fixture("jlbh/v10-current.txt")]);
    let out = env.cmd(&["calibrate", "suite=jlbx"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("near matches: suite=jlbh"), "{err}");
}
