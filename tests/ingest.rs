//! `ingest`, `runs`, `label`, `variation`, `export` through the binary.

use crate::common::{Env, close, fixture, shared};
use serde_json::Value;

fn seed000(env: &Env) -> Option<String> {
    let dir = shared("seeds")?;
    let src = std::fs::read(dir.join("000_6d13b013910482e6.txt")).ok()?;
    Some(env.write("seed000.txt", &src))
}

fn row<'a>(rows: &'a [Value], metric: &str, p: f64) -> &'a Value {
    rows.iter()
        .find(|r| r["metric"] == metric && r["percentile"].as_f64() == Some(p))
        .unwrap_or_else(|| panic!("no variation row for {metric} p{p}"))
}

#[test]
fn seed_000_variation_matches_jlbh() {
    let env = Env::new();
    let Some(path) = seed000(&env) else { return };
    let out = env.json(&["ingest", &path, "--json"]);
    assert_eq!(out["ingested"], 1);
    assert_eq!(out["files"][0]["format"], "jlbh");
    assert_eq!(out["files"][0]["runs"], 3);
    let v = env.json(&["variation", "--json"]);
    let rows = v.as_array().unwrap();
    close(
        row(rows, "end_to_end", 50.0)["variation_pct"]
            .as_f64()
            .unwrap(),
        13.91,
        0.01,
    );
    close(
        row(rows, "end_to_end", 90.0)["variation_pct"]
            .as_f64()
            .unwrap(),
        75.92,
        0.01,
    );
    close(
        row(rows, "end_to_end", 99.0)["variation_pct"]
            .as_f64()
            .unwrap(),
        70.53,
        0.01,
    );
    close(
        row(rows, "client2server", 99.99)["variation_pct"]
            .as_f64()
            .unwrap(),
        55.32,
        0.01,
    );
    close(
        row(rows, "server2clientprobe", 100.0)["variation_pct"]
            .as_f64()
            .unwrap(),
        0.0,
        0.005,
    );
    let p50 = row(rows, "end_to_end", 50.0);
    assert_eq!(p50["values"][1].as_f64(), Some(41.98));
    assert_eq!(p50["printed_variation_pct"].as_f64(), Some(13.91));
    assert_eq!(p50["values"].as_array().unwrap().len(), 3);
    // --include-first keeps run 1: 33.79, 41.98, 33.79 → same extremes.
    let all = env.json(&[
        "variation",
        "--json",
        "--include-first",
        "--metric",
        "end_to_end",
    ]);
    let all = all.as_array().unwrap();
    assert!(all.iter().all(|r| r["metric"] == "end_to_end"));
    close(
        row(all, "end_to_end", 90.0)["variation_pct"]
            .as_f64()
            .unwrap(),
        100.0 * (2949.12 - 151.55) / (2949.12 + 151.55 / 2.0),
        0.01,
    );
}

#[test]
fn reingest_is_unchanged_and_adds_nothing() {
    let env = Env::new();
    let Some(path) = seed000(&env) else { return };
    env.ok(&["ingest", &path]);
    let before = env.ok(&["export", "--format", "csv"]);
    let again = env.json(&["ingest", &path, "--json"]);
    assert_eq!(again["unchanged"], 1);
    assert_eq!(again["files"][0]["status"], "unchanged");
    assert_eq!(env.ok(&["export", "--format", "csv"]), before);
    assert_eq!(env.json(&["runs", "--json"]).as_array().unwrap().len(), 3);
}

/// A stored source's size makes a file be hashed before it is parsed: the same bytes are
/// `unchanged` (with the format they are stored as), other bytes of that size are stored.
#[test]
fn a_file_of_a_stored_size_is_stored_unless_its_bytes_are() {
    let env = Env::new();
    let stored = std::fs::read(fixture("jlbh/two-outputs.txt")).unwrap();
    let mut other = stored.clone();
    let at = other.iter().rposition(|&b| b == b'1').unwrap();
    other[at] = b'2';
    let first = env.write("first.txt", &stored);
    let second = env.write("second.txt", &other);
    let copy = env.write("copy.txt", &stored);
    env.ok(&["ingest", "--no-git", &first]);
    let out = env.json(&["ingest", "--no-git", "--json", &second, &copy]);
    assert_eq!(out["files"][0]["status"], "ingested", "{out:#}");
    assert_eq!(out["files"][0]["runs"], 6);
    assert_eq!(out["files"][1]["status"], "unchanged", "{out:#}");
    assert_eq!(out["files"][1]["format"], "jlbh");
    assert_eq!(env.json(&["runs", "--json"]).as_array().unwrap().len(), 12);
}

#[test]
fn seeds_folder_ingests_with_exit_0() {
    let env = Env::new();
    let Some(dir) = shared("seeds") else { return };
    let out = env.json(&["ingest", dir.to_str().unwrap(), "--json"]);
    assert_eq!(out["errors"], 0, "{out:#}");
    let files = out["files"].as_array().unwrap();
    let jlbh = files
        .iter()
        .find(|f| f["path"].as_str().unwrap().contains("000_"))
        .unwrap();
    assert_eq!(jlbh["status"], "ingested");
    // The README is prose about the seeds, not a benchmark output.
    let readme = files
        .iter()
        .find(|f| f["path"].as_str().unwrap().ends_with("README.md"))
        .unwrap();
    assert_eq!(readme["status"], "skipped");
}

#[test]
fn runs_selectors_label_and_export() {
    let env = Env::new();
    let Some(path) = seed000(&env) else { return };
    env.ok(&[
        "ingest",
        &path,
        "--label",
        "tcp 20k",
        "--tag",
        "host=box1",
        "--suite",
        "loopback-java",
    ]);
    let runs = env.json(&["runs", "label=tcp 20k;tag.host=box1", "--json"]);
    let runs = runs.as_array().unwrap();
    assert_eq!(runs.len(), 3);
    assert_eq!(runs[0]["suite"], "loopback-java");
    assert_eq!(runs[0]["format"], "jlbh");
    assert_eq!(runs[0]["run_index"], 1);
    assert_eq!(runs[0]["tags"]["host"], "box1");
    assert_eq!(
        runs[0]["params"]["target_throughput"].as_f64(),
        Some(20000.0)
    );
    assert!(
        runs[0]["metrics"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m == "end_to_end")
    );
    assert_eq!(
        env.json(&["runs", "tag.host=other", "--json"])
            .as_array()
            .unwrap()
            .len(),
        0
    );
    let id2 = runs[1]["id"].as_i64().unwrap();
    env.ok(&["label", &format!("run={id2}"), "second"]);
    let second = env.json(&["runs", "label=second", "--json"]);
    assert_eq!(second.as_array().unwrap().len(), 1);
    // Export: ordered by run, metric, percentile; run 2's end-to-end p50 is 41.98 us.
    let csv = env.ok(&["export", &format!("run={id2}")]);
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("run_id,suite,label,source,metric,percentile,t,value,unit,stat")
    );
    let e2e: Vec<&str> = csv.lines().filter(|l| l.contains(",end_to_end,")).collect();
    assert!(e2e[0].contains(",end_to_end,50.0,,41.98,us"), "{}", e2e[0]);
    let json = env.json(&["export", &format!("run={id2}"), "--format", "json"]);
    let first = &json[0];
    assert_eq!(first["run_id"].as_i64(), Some(id2));
    assert!(first["t"].is_null());
}

#[test]
fn bad_selector_and_unknown_format_exit_2() {
    let env = Env::new();
    env.cmd(&["runs", "colour=red"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("unknown selector key"));
    let f = env.write("x.txt", b"hello\n");
    env.cmd(&["ingest", &f, "--format", "nope"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("unknown format"));
    env.cmd(&["label", "label=none", "x"]).assert().code(2);
}

#[test]
fn unknown_files_are_skipped_and_empty_files_too() {
    let env = Env::new();
    let a = env.write("in/notes.txt", b"just some prose\nnothing to see\n");
    let _ = env.write("in/empty.log", b"");
    let out = env.json(&["ingest", a.rsplit_once('/').unwrap().0, "--json"]);
    assert_eq!(out["skipped"], 2);
    assert_eq!(out["errors"], 0);
}

#[test]
fn malformed_jlbh_fails_with_path_and_line_while_good_files_are_stored() {
    let env = Env::new();
    let dir = std::path::Path::new(&fixture("malformed")).to_path_buf();
    let bad: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with("jlbh"))
        .collect();
    assert!(!bad.is_empty(), "no fixtures/malformed/jlbh* files");
    for b in &bad {
        let good = fixture("jlbh");
        let out = env
            .cmd(&["ingest", b.to_str().unwrap(), &good, "--json"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{}", b.display());
        let stderr = String::from_utf8_lossy(&out.stderr);
        let shown = b.display().to_string();
        let pos = stderr.find(&shown).unwrap_or_else(|| panic!("{stderr}"));
        let after = &stderr[pos + shown.len()..];
        assert!(
            after.starts_with(':') && after[1..].starts_with(|c: char| c.is_ascii_digit()),
            "{stderr}"
        );
        let json: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert!(json["ingested"].as_u64().unwrap() + json["unchanged"].as_u64().unwrap() >= 1);
    }
    assert!(!env.json(&["runs", "--json"]).as_array().unwrap().is_empty());
}

/// Binary junk, an empty file, 50 MB of random text and every malformed fixture in one
/// call: each is an error naming `path:line` or skipped, nothing panics, and the good
/// files of the same call are stored.
#[test]
fn junk_and_malformed_inputs_never_stop_the_good_files() {
    let env = Env::new();
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let junk: Vec<u8> = (0..64 * 1024).map(|_| next() as u8).collect();
    env.write("in/junk.bin", &junk);
    env.write("in/empty.txt", b"");
    let words = [
        "qps",
        "rt",
        "50/90",
        "worst",
        "was",
        "Percentile",
        "run1",
        "12.5",
        "1,024",
        "-",
        "|",
        "@Long[",
        "Time",
    ];
    let mut text = Vec::with_capacity(50 << 20);
    while text.len() < 50 << 20 {
        for _ in 0..(next() % 12) {
            text.extend_from_slice(words[(next() % words.len() as u64) as usize].as_bytes());
            text.push(b' ');
        }
        text.push(b'\n');
    }
    env.write("in/random.txt", &text);
    let malformed = fixture("malformed");
    let good = fixture("tsar");
    let out = env
        .cmd(&[
            "ingest",
            &env.dir.path().join("in").display().to_string(),
            &malformed,
            &good,
            "--json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    for f in json["files"].as_array().unwrap() {
        let path = f["path"].as_str().unwrap();
        match f["status"].as_str().unwrap() {
            "error" => {
                let msg = f["error"].as_str().unwrap();
                let rest = msg.strip_prefix(path).unwrap_or_else(|| panic!("{msg}"));
                assert!(
                    rest.starts_with(':') && rest[1..].starts_with(|c: char| c.is_ascii_digit()),
                    "{msg}"
                );
            }
            "skipped" => assert!(path.contains("/in/"), "{path} should not be skipped"),
            "ingested" => assert!(path.contains("/tsar/"), "{path} should not ingest"),
            s => panic!("{path}: {s}"),
        }
        if path.contains("/malformed/") {
            assert_eq!(f["status"], "error", "{path}");
        }
    }
    assert_eq!(json["skipped"], 3);
    assert!(json["ingested"].as_u64().unwrap() >= 3);
    let runs = env.json(&["runs", "suite=tsar", "--json"]);
    assert_eq!(
        runs.as_array().unwrap().len(),
        json["ingested"].as_u64().unwrap() as usize
    );
}

/// An error inside a Criterion folder names the file and its line: the folder's
/// `sample.json` (one line) cut to 400 bytes is `…/fib 10/new/sample.json:1`, not the
/// folder and line 5 of the stream the folder is read as; `fib 15` is still stored.
#[test]
fn an_error_in_a_criterion_folder_names_its_file() {
    let env = Env::new();
    let dir = env.dir.path().join("criterion");
    crate::common::copy_tree(
        std::path::Path::new(&fixture("real/criterion/run3/criterion")),
        &dir,
    );
    let sample = dir.join("fib/fib 10/new/sample.json");
    let bytes = std::fs::read(&sample).unwrap();
    std::fs::write(&sample, &bytes[..400]).unwrap();
    let out = env
        .cmd(&["ingest", "--no-git", dir.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("fib 10/new/sample.json:1: criterion: Criterion JSON: invalid number (the document ends early)"),
        "{err}"
    );
    let runs = env.json(&["runs", "--json"]);
    assert_eq!(runs.as_array().unwrap().len(), 100);
    assert!(runs[0]["bench"].as_str().unwrap().ends_with("fib 15"));
}

/// A file saved with a UTF-8 byte order mark (Windows editors, PowerShell's `Out-File
/// -Encoding utf8`) is read as without it: the same format and the same points, for
/// formats whose first line is their header (HdrHistogram's, JMH's, tsar's). Its bytes,
/// BOM and all, are what a re-ingest recognises.
#[test]
fn a_byte_order_mark_is_read_past() {
    for f in [
        "real/hdr-percentiles/hdrhistogram-GoogleChartsExample-example1.txt",
        "real/jmh/jmh-playground-branch-prediction.txt",
        "real/tsar/alibaba-tsar-info.md.txt",
    ] {
        let env = Env::new();
        let bytes = std::fs::read(fixture(f)).unwrap();
        let plain = env.write("plain.txt", &bytes);
        let marked = env.write("marked.txt", &[&b"\xEF\xBB\xBF"[..], &bytes].concat());
        env.ok(&["ingest", "--no-git", "--label", "x", &plain]);
        let before = env.ok(&["export", "--format", "json"]);
        env.ok(&["rm", "label=x"]);
        let out = env.ok(&["ingest", "--no-git", "--label", "x", &marked]);
        assert!(out.contains("ingested"), "{f}: {out}");
        let after = env.ok(&["export", "--format", "json"]);
        let points = |s: &str| -> Vec<(Value, Value, Value)> {
            let v: Value = serde_json::from_str(s).unwrap();
            v.as_array()
                .unwrap()
                .iter()
                .map(|p| {
                    (
                        p["metric"].clone(),
                        p["percentile"].clone(),
                        p["value"].clone(),
                    )
                })
                .collect()
        };
        assert!(!points(&before).is_empty(), "{f}");
        assert_eq!(points(&before), points(&after), "{f}");
        let again = env.ok(&["ingest", "--no-git", "--label", "x", &marked]);
        assert!(again.contains("unchanged"), "{f}: {again}");
    }
}
