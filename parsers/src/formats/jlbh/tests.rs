//! Tests of the JLBH parser over the seed, the published samples (both read from
//! `../shared`, skipped when absent) and the fixtures written for it.

use super::*;
use crate::testutil::{parse_ok, shared};
use std::path::PathBuf;

/// `fixtures/<sub>` at the repository root.
fn fixture(sub: &str) -> Vec<u8> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures")
        .join(sub);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn sample(name: &str) -> Option<Vec<Block>> {
    let p = shared("samples/jlbh")?.join(name);
    Some(parse_ok(&FORMAT, &std::fs::read(p).unwrap()))
}

/// Everything a parse yields, errors included.
fn parse_all(bytes: &[u8]) -> Vec<Result<Parsed, ParseError>> {
    (FORMAT.parse)(Box::new(bytes)).collect()
}

/// The first error of a parse that must fail.
fn parse_err(bytes: &[u8]) -> ParseError {
    parse_all(bytes)
        .into_iter()
        .find_map(Result::err)
        .expect("a parse error")
}

fn series<'b>(b: &'b Block, run: u32, metric: &str) -> &'b Series {
    let r = b.runs.iter().find(|r| r.index == run).expect("run");
    r.series
        .iter()
        .find(|s| s.metric == metric)
        .unwrap_or_else(|| panic!("no {metric} in run {run}"))
}

fn point(b: &Block, run: u32, metric: &str, p: f64) -> LadderPoint {
    *series(b, run, metric)
        .ladder()
        .unwrap()
        .iter()
        .find(|q| q.percentile == p)
        .unwrap_or_else(|| panic!("no p{p} for {metric} in run {run}"))
}

fn value(b: &Block, run: u32, metric: &str, p: f64) -> Option<f64> {
    point(b, run, metric, p).value
}

fn count(b: &Block, run: u32, metric: &str) -> Option<u64> {
    match series(b, run, metric).data {
        Data::Ladder { count, .. } => count,
        _ => panic!("not a ladder"),
    }
}

fn printed(b: &Block, metric: &str, p: f64, name: &str) -> Option<f64> {
    b.printed
        .iter()
        .find(|s| s.metric == metric && s.percentile == Some(p) && s.name == name)
        .unwrap_or_else(|| panic!("no printed {name} for {metric} p{p}"))
        .value
}

fn metrics(b: &Block, run: u32) -> Vec<&str> {
    let r = b.runs.iter().find(|r| r.index == run).unwrap();
    r.series.iter().map(|s| s.metric.as_str()).collect()
}

fn percentiles(b: &Block, run: u32, metric: &str) -> Vec<f64> {
    let l = series(b, run, metric).ladder().unwrap();
    l.iter().map(|q| q.percentile).collect()
}

fn param(b: &Block, run: u32, name: &str) -> Option<Param> {
    b.runs
        .iter()
        .find(|r| r.index == run)?
        .params
        .get(name)
        .cloned()
}

/// Blocks, runs per block, metrics of run 1, and the summary rows (printed variations
/// per metric) a file must give.
fn shape(blocks: &[Block], runs: usize, metrics_run1: &[&str], rows: usize) {
    assert_eq!(blocks.len(), 1);
    let b = &blocks[0];
    assert_eq!(b.runs.len(), runs);
    assert_eq!(metrics(b, 1), metrics_run1);
    let first = metrics_run1[0];
    let variations = b
        .printed
        .iter()
        .filter(|p| p.metric == first && p.name == "variation_pct")
        .count();
    assert_eq!(variations, rows);
}

const LADDER6: [f64; 6] = [50.0, 90.0, 99.0, 99.9, 99.99, 100.0];

#[test]
fn seed_000_one_line_output() {
    let Some(dir) = shared("seeds") else { return };
    let bytes = std::fs::read(dir.join("000_6d13b013910482e6.txt")).unwrap();
    let blocks = parse_ok(&FORMAT, &bytes);
    assert_eq!(blocks.len(), 1);
    let b = &blocks[0];
    assert_eq!(
        b.label.as_deref(),
        Some("以下是以20,000次迭代/秒的吞吐量運(yùn)行時的結(jié)果")
    );
    assert_eq!((b.first_line, b.last_line), (35, 35));
    assert_eq!(b.runs.len(), 3);
    for r in 1..=3 {
        assert_eq!(
            metrics(b, r),
            [
                "end_to_end",
                "client2server",
                "server2clientprobe",
                "os_jitter"
            ]
        );
        for m in ["end_to_end", "client2server", "server2clientprobe"] {
            assert_eq!(count(b, r, m), Some(50000));
            assert_eq!(percentiles(b, r, m), LADDER6);
        }
        assert_eq!(param(b, r, "target_throughput"), Some(Param::Num(20000.0)));
        assert_eq!(param(b, r, "run_time_s"), Some(Param::Num(2.5)));
        assert_eq!(param(b, r, "co_correction"), Some(Param::Bool(true)));
        assert_eq!(param(b, r, "warmup_iterations"), Some(Param::Num(50000.0)));
        assert_eq!(param(b, r, "warmup_time_s"), Some(Param::Num(2.296)));
        assert_eq!(param(b, r, "interval_us"), Some(Param::Num(50.0)));
    }
    let s = series(b, 2, "server2clientprobe");
    assert_eq!(
        (s.display.as_str(), s.unit.as_str()),
        ("server2clientProbe", "us")
    );
    assert_eq!(series(b, 1, "end_to_end").display, "End to End");
    assert_eq!(
        point(b, 2, "end_to_end", 50.0),
        LadderPoint {
            percentile: 50.0,
            value: Some(41.98),
            line_value: Some(42.0)
        }
    );
    let p90 = point(b, 1, "end_to_end", 90.0);
    assert_eq!((p90.value, p90.line_value), (Some(2949.12), Some(2950.0)));
    let c2s: Vec<_> = (1..=3)
        .map(|r| value(b, r, "client2server", 99.99))
        .collect();
    assert_eq!(c2s, [Some(286.72), Some(573.44), Some(200.70)]);
    let worst: Vec<_> = (1..=3)
        .map(|r| value(b, r, "server2clientprobe", 100.0))
        .collect();
    assert_eq!(worst, [Some(901.12), Some(1736.70), Some(1736.70)]);
    let jitter: Vec<_> = (1..=3).map(|r| count(b, r, "os_jitter")).collect();
    assert_eq!(jitter, [Some(26960), Some(13314), Some(14306)]);
    // OS Jitter has no table: its values are the line's, grouped `1,340`.
    let j = point(b, 1, "os_jitter", 99.9);
    assert_eq!((j.value, j.line_value), (Some(1340.0), None));
    assert_eq!(printed(b, "end_to_end", 50.0, "variation_pct"), Some(13.91));
    assert_eq!(printed(b, "end_to_end", 90.0, "variation_pct"), Some(75.92));
    assert_eq!(
        printed(b, "client2server", 99.99, "variation_pct"),
        Some(55.32)
    );
    assert_eq!(
        printed(b, "server2clientprobe", 100.0, "variation_pct"),
        Some(0.0)
    );
    // The header announces var(log) but the pasted rows lost the column.
    assert!(b.printed.iter().all(|p| p.name != "var_log"));
    assert_eq!(b.printed.len(), 18);
}

#[test]
fn sample_2017_fixture_three_runs_two_probes() {
    let Some(blocks) = sample("chronicle-core-2017-test-fixture-3runs-probes.txt") else {
        return;
    };
    shape(&blocks, 3, &["end_to_end", "a", "b", "os_jitter"], 6);
    let b = &blocks[0];
    assert_eq!((b.first_line, b.last_line), (1, 55));
    assert_eq!(count(b, 1, "a"), Some(9001));
    assert_eq!(count(b, 2, "a"), Some(9000));
    assert_eq!(count(b, 3, "os_jitter"), Some(30));
    let p = point(b, 3, "a", 50.0);
    assert_eq!((p.value, p.line_value), (Some(4.99), Some(5.0)));
    assert_eq!(value(b, 1, "b", 100.0), Some(0.10));
    assert_eq!(value(b, 2, "os_jitter", 50.0), Some(2.5));
    assert_eq!(printed(b, "a", 50.0, "variation_pct"), Some(21.48));
    assert_eq!(printed(b, "b", 100.0, "variation_pct"), Some(0.0));
    assert_eq!(param(b, 1, "run_time_s"), Some(Param::Num(0.09)));
    assert_eq!(param(b, 1, "target_throughput"), Some(Param::Num(100000.0)));
    assert_eq!(param(b, 1, "warmup_iterations"), Some(Param::Num(500.0)));
    assert_eq!(param(b, 1, "distribution"), None);
}

#[test]
fn sample_2018_two_runs_with_a_log_line() {
    let Some(blocks) = sample("chronicle-core-2018-2runs-50k-iterations.txt") else {
        return;
    };
    shape(&blocks, 2, &["end_to_end", "os_jitter"], 6);
    let b = &blocks[0];
    assert_eq!(percentiles(b, 2, "end_to_end"), LADDER6);
    assert_eq!(value(b, 1, "end_to_end", 100.0), Some(184.32));
    assert_eq!(value(b, 2, "end_to_end", 99.0), Some(4.22));
    // `10.0` is the old format's rounding across a threshold.
    assert_eq!(value(b, 1, "os_jitter", 99.0), Some(10.0));
    assert_eq!(count(b, 1, "os_jitter"), Some(2670));
    assert!(
        b.printed
            .iter()
            .all(|p| p.value == Some(0.0) && p.name == "variation_pct")
    );
}

#[test]
fn sample_2018_one_million_iterations_worst_mislabel() {
    let Some(blocks) = sample("chronicle-core-2018-4runs-1M-iterations.txt") else {
        return;
    };
    shape(&blocks, 4, &["end_to_end", "os_jitter"], 6);
    let b = &blocks[0];
    assert_eq!(count(b, 1, "end_to_end"), Some(1_000_000));
    assert_eq!(
        percentiles(b, 1, "end_to_end"),
        [50.0, 90.0, 99.0, 99.9, 99.99, 99.999, 100.0]
    );
    // The row labelled `worst:` holds the 99.999 value (line `143`); the real worst
    // (`176`) is only on the probe line.
    let p = point(b, 1, "end_to_end", 99.999);
    assert_eq!((p.value, p.line_value), (Some(143.36), Some(143.0)));
    let w = point(b, 1, "end_to_end", 100.0);
    assert_eq!((w.value, w.line_value), (Some(176.0), None));
    assert_eq!(value(b, 4, "end_to_end", 99.999), Some(129.02));
    assert_eq!(value(b, 2, "end_to_end", 90.0), Some(0.91));
    assert_eq!(
        printed(b, "end_to_end", 99.999, "variation_pct"),
        Some(13.70)
    );
    assert_eq!(printed(b, "end_to_end", 90.0, "variation_pct"), Some(2.37));
    assert_eq!(
        param(b, 3, "warmup_iterations"),
        Some(Param::Num(3_000_000.0))
    );
    assert_eq!(param(b, 3, "run_time_s"), Some(Param::Num(10.0)));
}

#[test]
fn samples_2016_var_log_tables_without_summary_header() {
    let cases = [
        (
            "jlbh-2016-varlog-summary-quickfix-throughput2000.txt",
            270.34,
            163577.86,
            9.52,
            12.43,
            28.47,
        ),
        (
            "jlbh-2016-varlog-summary-quickfix-throughput10000.txt",
            184.32,
            9175.04,
            0.0,
            11.76,
            19.10,
        ),
        (
            "jlbh-2016-varlog-summary-quickfix-throughput50000.txt",
            176.13,
            27787.26,
            0.0,
            11.82,
            25.93,
        ),
    ];
    for (file, p50_run1, worst_run3, var50, varlog50, varlog_worst) in cases {
        let Some(blocks) = sample(file) else { return };
        shape(&blocks, 3, &["end_to_end"], 6);
        let b = &blocks[0];
        assert_eq!((b.first_line, b.last_line), (1, 7));
        assert_eq!(percentiles(b, 3, "end_to_end"), LADDER6);
        assert_eq!(count(b, 1, "end_to_end"), None);
        assert_eq!(value(b, 1, "end_to_end", 50.0), Some(p50_run1), "{file}");
        assert_eq!(value(b, 3, "end_to_end", 100.0), Some(worst_run3), "{file}");
        assert_eq!(printed(b, "end_to_end", 50.0, "variation_pct"), Some(var50));
        assert_eq!(printed(b, "end_to_end", 50.0, "var_log"), Some(varlog50));
        assert_eq!(
            printed(b, "end_to_end", 100.0, "var_log"),
            Some(varlog_worst)
        );
        assert_eq!(b.printed.len(), 12);
    }
}

#[test]
fn sample_2021_skip_first_false_ten_rows() {
    let Some(blocks) = sample("jlbh-2021-summary-5runs-10M-skipfirst-false-chronicle-wire.txt")
    else {
        return;
    };
    shape(&blocks, 5, &["end_to_end"], 10);
    let b = &blocks[0];
    assert_eq!(
        percentiles(b, 5, "end_to_end"),
        [
            50.0, 90.0, 99.0, 99.7, 99.9, 99.97, 99.99, 99.997, 99.999, 100.0
        ]
    );
    assert_eq!(value(b, 1, "end_to_end", 50.0), Some(0.41));
    assert_eq!(value(b, 2, "end_to_end", 100.0), Some(63.04));
    assert_eq!(printed(b, "end_to_end", 50.0, "variation_pct"), Some(1.60));
    assert_eq!(
        printed(b, "end_to_end", 100.0, "variation_pct"),
        Some(88.80)
    );
}

#[test]
fn samples_2022_chronicle_wire_nine_and_eleven_rows() {
    let Some(b3) = sample("jlbh-2022-summary-5runs-3M-iterations-chronicle-wire.txt") else {
        return;
    };
    // No closing dash line after the table: the input's end closes it.
    shape(&b3, 5, &["end_to_end"], 9);
    assert_eq!((b3[0].first_line, b3[0].last_line), (1, 11));
    assert_eq!(value(&b3[0], 4, "end_to_end", 99.97), Some(14.61));
    assert_eq!(value(&b3[0], 1, "end_to_end", 100.0), Some(217.34));
    assert_eq!(
        printed(&b3[0], "end_to_end", 99.97, "variation_pct"),
        Some(18.16)
    );
    let Some(b30) = sample("jlbh-2022-summary-5runs-30M-iterations-chronicle-wire.txt") else {
        return;
    };
    shape(&b30, 5, &["end_to_end"], 11);
    assert_eq!(
        percentiles(&b30[0], 1, "end_to_end"),
        [
            50.0, 90.0, 99.0, 99.7, 99.9, 99.97, 99.99, 99.997, 99.999, 99.9997, 100.0
        ]
    );
    assert_eq!(value(&b30[0], 1, "end_to_end", 99.9997), Some(6381.57));
    assert_eq!(value(&b30[0], 5, "end_to_end", 100.0), Some(199.94));
    assert_eq!(
        printed(&b30[0], "end_to_end", 99.9997, "variation_pct"),
        Some(66.75)
    );
}

#[test]
fn sample_2022_infinity_cells_are_absent() {
    let Some(blocks) = sample("jlbh-2022-summary-infinity-bug-issue37.txt") else {
        return;
    };
    shape(&blocks, 3, &["b"], 5);
    let b = &blocks[0];
    assert_eq!(percentiles(b, 1, "b"), [50.0, 90.0, 99.0, 99.7, 100.0]);
    assert_eq!(series(b, 1, "b").display, "B");
    for r in 1..=3 {
        assert_eq!(value(b, r, "b", 99.7), Some(0.10));
        assert_eq!(value(b, r, "b", 100.0), None);
    }
    assert_eq!(printed(b, "b", 100.0, "variation_pct"), None);
    assert_eq!(printed(b, "b", 99.7, "variation_pct"), Some(0.0));
}

#[test]
fn sample_2022_masked_test_fixture() {
    let Some(blocks) = sample("jlbh-2022-test-fixture-masked-3runs-probes.txt") else {
        return;
    };
    // `OS Jitter ...` is masked: no series.
    shape(&blocks, 3, &["end_to_end", "a", "b"], 4);
    let b = &blocks[0];
    assert_eq!((b.first_line, b.last_line), (1, 49));
    assert_eq!(param(b, 1, "run_time_s"), None);
    assert_eq!(param(b, 1, "warmup_iterations"), None);
    assert_eq!(param(b, 1, "distribution"), Some(Param::from("NORMAL")));
    assert_eq!(param(b, 1, "target_throughput"), Some(Param::Num(1e6)));
    assert_eq!(param(b, 1, "interval_us"), Some(Param::Num(1.0)));
    // V10 omits rows: 99.9 and 99.99 keep the line's values.
    assert_eq!(percentiles(b, 3, "a"), LADDER6);
    let p = point(b, 3, "a", 99.9);
    assert_eq!((p.value, p.line_value), (Some(9.58), None));
    let w = point(b, 3, "a", 100.0);
    assert_eq!((w.value, w.line_value), (Some(9.62), Some(9.62)));
    assert_eq!(value(b, 1, "b", 50.0), Some(0.10));
    assert_eq!(count(b, 1, "b"), Some(9001));
    assert_eq!(printed(b, "end_to_end", 50.0, "variation_pct"), Some(17.69));
    assert_eq!(printed(b, "a", 100.0, "variation_pct"), Some(11.92));
}

#[test]
fn every_sample_is_sniffed_as_jlbh() {
    let Some(dir) = shared("samples/jlbh") else {
        return;
    };
    for e in std::fs::read_dir(dir).unwrap() {
        let text = std::fs::read_to_string(e.unwrap().path()).unwrap();
        let head = Head {
            file_name: "x.txt",
            text: &text,
            complete: true,
        };
        assert!(sniff(&head) >= 75, "{text}");
        assert_eq!(crate::detect(&head).map(|f| f.name), Some("jlbh"));
    }
}

#[test]
fn other_seeds_are_not_jlbh() {
    let Some(dir) = shared("seeds") else { return };
    for e in std::fs::read_dir(dir).unwrap() {
        let path = e.unwrap().path();
        let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
        let head = Head {
            file_name: "x.txt",
            text: &text,
            complete: true,
        };
        let is_jlbh = path.to_string_lossy().contains("000_");
        assert_eq!(sniff(&head) >= 75, is_jlbh, "{}", path.display());
    }
}

#[test]
fn fixture_v10_current_layout() {
    let blocks = parse_ok(&FORMAT, &fixture("jlbh/v10-current.txt"));
    shape(&blocks, 3, &["end_to_end", "serverprobe", "os_jitter"], 6);
    let b = &blocks[0];
    assert_eq!((b.first_line, b.last_line), (3, 45));
    assert_eq!(series(b, 1, "serverprobe").display, "serverProbe");
    assert_eq!(
        percentiles(b, 1, "end_to_end"),
        [50.0, 90.0, 99.0, 99.7, 99.9, 99.99, 100.0]
    );
    // 99.7 comes only from the table; 99.99 only from the line.
    assert_eq!(point(b, 1, "end_to_end", 99.7).line_value, None);
    assert_eq!(value(b, 1, "end_to_end", 99.7), Some(12.52));
    assert_eq!(value(b, 2, "end_to_end", 99.99), Some(13.10));
    let w = point(b, 3, "end_to_end", 100.0);
    assert_eq!((w.value, w.line_value), (Some(2049.02), Some(2049.0)));
    assert_eq!(count(b, 2, "os_jitter"), Some(980));
    assert_eq!(param(b, 2, "run_time_s"), Some(Param::Num(1.0)));
    assert_eq!(param(b, 2, "warmup_time_s"), Some(Param::Num(1.234)));
    assert_eq!(param(b, 2, "warmup_iterations"), Some(Param::Num(100000.0)));
    assert_eq!(
        printed(b, "serverprobe", 100.0, "variation_pct"),
        Some(2.22)
    );
    assert_eq!(
        printed(b, "end_to_end", 100.0, "variation_pct"),
        Some(98.88)
    );
}

#[test]
fn fixture_v1_var_log_six_character_labels() {
    let blocks = parse_ok(&FORMAT, &fixture("jlbh/v1-varlog.txt"));
    shape(&blocks, 3, &["end_to_end", "os_jitter"], 6);
    let b = &blocks[0];
    assert_eq!(param(b, 1, "run_time_s"), None);
    assert_eq!(param(b, 1, "co_correction"), Some(Param::Bool(true)));
    assert_eq!(param(b, 1, "target_throughput"), Some(Param::Num(2000.0)));
    let p = point(b, 3, "end_to_end", 99.9);
    assert_eq!((p.value, p.line_value), (Some(163577.86), Some(163580.0)));
    let p = point(b, 1, "end_to_end", 100.0);
    assert_eq!((p.value, p.line_value), (Some(111149.06), Some(111150.0)));
    assert_eq!(printed(b, "end_to_end", 50.0, "var_log"), Some(12.43));
    assert_eq!(printed(b, "end_to_end", 99.99, "var_log"), Some(25.46));
    assert_eq!(printed(b, "end_to_end", 50.0, "variation_pct"), Some(9.53));
}

#[test]
fn fixture_crlf_ansi_and_foreign_lines() {
    let bytes = fixture("jlbh/crlf-ansi-foreign.txt");
    assert!(bytes.windows(2).any(|w| w == b"\r\n") && bytes.contains(&0x1b));
    let blocks = parse_ok(&FORMAT, &bytes);
    shape(&blocks, 2, &["end_to_end", "os_jitter"], 4);
    let b = &blocks[0];
    assert_eq!(b.label.as_deref(), Some("Results with CO correction off"));
    assert_eq!((b.first_line, b.last_line), (3, 27));
    assert_eq!(param(b, 1, "co_correction"), Some(Param::Bool(false)));
    assert_eq!(param(b, 1, "target_throughput"), Some(Param::Num(5000.0)));
    assert_eq!(param(b, 2, "distribution"), Some(Param::from("NORMAL")));
    assert_eq!(percentiles(b, 1, "end_to_end"), LADDER6);
    let p = point(b, 2, "end_to_end", 100.0);
    assert_eq!((p.value, p.line_value), (Some(35.07), Some(35.1)));
    assert_eq!(count(b, 2, "os_jitter"), Some(498));
}

#[test]
fn fixture_two_outputs_two_labels() {
    let blocks = parse_ok(&FORMAT, &fixture("jlbh/two-outputs.txt"));
    assert_eq!(blocks.len(), 2);
    assert_eq!(blocks[0].label.as_deref(), Some("Before the change"));
    assert_eq!(blocks[1].label.as_deref(), Some("After the change"));
    assert_eq!((blocks[0].first_line, blocks[0].last_line), (5, 35));
    assert_eq!((blocks[1].first_line, blocks[1].last_line), (41, 71));
    for b in &blocks {
        assert_eq!(b.runs.len(), 3);
        assert_eq!(metrics(b, 3), ["end_to_end", "os_jitter"]);
    }
    assert_eq!(value(&blocks[0], 1, "end_to_end", 100.0), Some(184.32));
    assert_eq!(value(&blocks[1], 2, "end_to_end", 100.0), Some(52.22));
    assert_eq!(
        printed(&blocks[1], "end_to_end", 100.0, "variation_pct"),
        Some(8.93)
    );
}

#[test]
fn fixture_german_locale() {
    let blocks = parse_ok(&FORMAT, &fixture("jlbh/locale-de.txt"));
    shape(&blocks, 3, &["end_to_end", "os_jitter"], 6);
    let b = &blocks[0];
    assert_eq!(count(b, 1, "end_to_end"), Some(50000));
    assert_eq!(count(b, 1, "os_jitter"), Some(26960));
    let p = point(b, 1, "end_to_end", 90.0);
    assert_eq!((p.value, p.line_value), (Some(2949.12), Some(2950.0)));
    let p = point(b, 1, "end_to_end", 99.99);
    assert_eq!((p.value, p.line_value), (Some(20447.23), Some(20450.0)));
    assert_eq!(value(b, 2, "end_to_end", 50.0), Some(41.98));
    assert_eq!(value(b, 1, "os_jitter", 50.0), Some(9.0));
    assert_eq!(value(b, 1, "os_jitter", 99.9), Some(1340.0));
    assert_eq!(printed(b, "end_to_end", 50.0, "variation_pct"), Some(13.91));
}

#[test]
fn locale_grouping_variants_in_probe_lines() {
    for (count, value, expect) in [
        ("20,450", "20,450", 20450.0),
        ("20.450", "20.450", 20450.0),
        ("20\u{a0}450", "20\u{a0}450", 20450.0),
        ("20'450", "20'450", 20450.0),
        ("20.450", "9,5", 9.5),
    ] {
        let text = format!(
            "---- BENCHMARK RESULTS (RUN 1) ----\n\
             End to End: ({count}) 50/90 99/99.9 99.99 - worst was 1 / 2  3 / 4  5 - {value}\n\
             ----\n\
             ---- SUMMARY (end to end) ----\n\
             Percentile   run1   % Variation\n\
             worst:   1.00   -200.00\n"
        );
        let blocks = parse_ok(&FORMAT, text.as_bytes());
        assert_eq!(count_of(&blocks[0]), Some(20450), "{count}");
        // The worst row's table value refines the line's: compare the line value.
        assert_eq!(
            point(&blocks[0], 1, "end_to_end", 100.0).line_value,
            Some(expect),
            "{value}"
        );
    }
}

fn count_of(b: &Block) -> Option<u64> {
    count(b, 1, "end_to_end")
}

#[test]
fn cut_table_is_kept_with_warnings() {
    // Truncation is data: the rows present are stored, the cut is a warning.
    let bytes = fixture("jlbh/cut-at-99.txt");
    let items: Vec<_> = (FORMAT.parse)(Box::new(&bytes[..]))
        .map(|r| r.expect("no error"))
        .collect();
    let warnings: Vec<_> = items
        .iter()
        .filter_map(|p| match p {
            Parsed::Warning { line, message } => Some((*line, message.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert_eq!(warnings[0].0, 32);
    assert!(
        warnings[0]
            .1
            .contains("SUMMARY (end to end) table from line 28 ends at 99 (no worst row)"),
        "{warnings:?}"
    );
    assert!(
        warnings[1].1.contains("no SUMMARY table for 'serverProbe'"),
        "{warnings:?}"
    );
    let blocks: Vec<_> = items
        .iter()
        .filter_map(|p| match p {
            Parsed::Block(b) => Some(b),
            _ => None,
        })
        .collect();
    assert_eq!(blocks.len(), 1);
    let ladder = blocks[0].runs[2]
        .series
        .iter()
        .find(|s| s.metric == "end_to_end")
        .and_then(|s| s.ladder())
        .unwrap();
    let p99 = ladder.iter().find(|p| p.percentile == 99.0).unwrap();
    assert_eq!(p99.value, Some(12.20));
}

#[test]
fn a_table_closed_by_dashes_before_its_worst_row_is_warned_about() {
    // As in fixtures/real/jlbh/chronicle-queue-contended-writes.adoc.txt (lines 36–42):
    // the rows stop at `99.7:` and the closing dashes follow.
    let text = "\
------------------ SUMMARY (Concurrent) --------------------
Percentile   run1         run2         run3      % Variation
50:            90.40        90.59        91.17         0.42
99.7:         213.57       198.72       217.28         5.86
------------------------------------------------------------
";
    let items: Vec<_> = parse_all(text.as_bytes())
        .into_iter()
        .map(|r| r.expect("no error"))
        .collect();
    let warnings: Vec<_> = items
        .iter()
        .filter_map(|p| match p {
            Parsed::Warning { line, message } => Some((*line, message.as_str())),
            _ => None,
        })
        .collect();
    assert_eq!(
        warnings,
        [(
            4,
            "SUMMARY (Concurrent) table from line 1 ends at 99.7 (no worst row)"
        )]
    );
    let block = items.iter().find_map(|p| match p {
        Parsed::Block(b) => Some(b),
        _ => None,
    });
    assert_eq!(value(block.unwrap(), 3, "concurrent", 99.7), Some(217.28));
}

#[test]
fn malformed_garbled_probe_values() {
    let e = parse_err(&fixture("malformed/jlbh-garbled.txt"));
    assert_eq!(e.line, 9);
    assert!(
        e.message.contains("'5.O2'") && e.message.contains("serverProbe"),
        "{e}"
    );
}

/// A small current output to cut and garble in the error tests.
const SMALL: &str = "\
Warm up complete (500 iterations took 0.1 s)
-------- BENCHMARK RESULTS (RUN 1) us --------
Run time: 0.5 s, distribution: NORMAL
End to End: (9,000)   50/90 99/99.9 99.99 - worst was 1.0 / 2.0  3.0 / 4.0  5.0 - 6.0
--------
-------- BENCHMARK RESULTS (RUN 2) us --------
End to End: (9,000)   50/90 99/99.9 99.99 - worst was 1.0 / 2.0  3.0 / 4.0  5.0 - 6.0
--------
-------- SUMMARY (end to end) us --------
Percentile   run1   run2   % Variation
50.0:   1.01   1.02   0.00
worst:  6.01   6.02   0.00
--------
";

#[test]
fn small_output_parses() {
    let blocks = parse_ok(&FORMAT, SMALL.as_bytes());
    assert_eq!(blocks.len(), 1);
    assert_eq!((blocks[0].first_line, blocks[0].last_line), (1, 13));
    assert_eq!(value(&blocks[0], 2, "end_to_end", 100.0), Some(6.02));
    // Three outputs pasted onto one line are three blocks.
    let joined = SMALL.replace('\n', " ").repeat(3);
    let blocks = parse_ok(&FORMAT, joined.as_bytes());
    assert_eq!(blocks.len(), 3);
    assert!(
        blocks
            .iter()
            .all(|b| b.runs.len() == 2 && b.first_line == 1)
    );
    assert_eq!(value(&blocks[2], 1, "end_to_end", 50.0), Some(1.01));
}

/// The blocks and the warnings (line, text) of a parse that must not fail.
fn blocks_and_warnings(bytes: &[u8]) -> (Vec<Block>, Vec<(u64, String)>) {
    let (mut blocks, mut warnings) = (Vec::new(), Vec::new());
    for item in parse_all(bytes) {
        match item.expect("no error") {
            Parsed::Block(b) => blocks.push(b),
            Parsed::Warning { line, message } => warnings.push((line, message)),
        }
    }
    (blocks, warnings)
}

#[test]
fn cut_off_outputs_keep_their_runs_and_name_the_line() {
    // fixtures/jlbh/v10-current.txt cut where `head -n` leaves it: the runs read are
    // stored, JLBH's summary (values to two decimals, % Variation) is absent.
    let text = String::from_utf8(fixture("jlbh/v10-current.txt")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let cut = |n: usize| lines[..n].join("\n");
    let no_table = "the JLBH output from line 3 is cut off: no SUMMARY table for 'End to End'";

    // Line 27 closes RUN 3: three complete runs.
    let (blocks, warnings) = blocks_and_warnings(cut(27).as_bytes());
    assert_eq!(warnings, [(27, no_table.to_string())]);
    assert_eq!(blocks.len(), 1);
    let b = &blocks[0];
    assert_eq!(b.runs.len(), 3);
    assert_eq!((b.first_line, b.last_line), (3, 27));
    assert!(b.printed.is_empty());
    // Lines 8, 16 and 24 as printed (`2,049` is grouped).
    assert_eq!(value(b, 1, "end_to_end", 50.0), Some(8.07));
    assert_eq!(value(b, 2, "end_to_end", 99.99), Some(13.10));
    assert_eq!(value(b, 3, "end_to_end", 100.0), Some(2049.0));
    assert_eq!(value(b, 3, "serverprobe", 99.9), Some(6.38));
    assert_eq!(count(b, 3, "os_jitter"), Some(1001));
    assert_eq!(param(b, 3, "target_throughput"), Some(Param::Num(100000.0)));

    // Line 26 is RUN 3's last probe line, before its closing dashes.
    let (blocks, warnings) = blocks_and_warnings(cut(26).as_bytes());
    assert_eq!(
        warnings,
        [
            (
                26,
                "input ends inside RUN 3 from line 20: no closing dash line".to_string()
            ),
            (26, no_table.to_string()),
        ]
    );
    let b = &blocks[0];
    assert_eq!(b.runs.len(), 3);
    assert_eq!(b.runs[2].last_line, 26);
    assert_eq!(metrics(b, 3), ["end_to_end", "serverprobe", "os_jitter"]);
    assert_eq!(value(b, 3, "os_jitter", 99.0), Some(9.00));

    // Line 23: RUN 3 has no probe line yet and is left out.
    let (blocks, warnings) = blocks_and_warnings(cut(23).as_bytes());
    assert_eq!(blocks[0].runs.len(), 2);
    assert_eq!(
        warnings[0],
        (
            23,
            "input ends inside RUN 3 from line 20: no closing dash line; it has no probe \
             line and is left out"
                .to_string()
        )
    );

    // Line 28: the SUMMARY header alone.
    let (blocks, warnings) = blocks_and_warnings(cut(28).as_bytes());
    assert_eq!(blocks[0].runs.len(), 3);
    assert_eq!(
        warnings,
        [
            (
                28,
                "input ends after the SUMMARY (end to end) header at line 28".to_string()
            ),
            (28, no_table.to_string()),
        ]
    );
}

#[test]
fn cut_off_outputs_without_a_probe_line_are_errors() {
    let lines: Vec<&str> = SMALL.lines().collect();
    let cut = |n: usize| lines[..n].join("\n");
    let cases = [(1, 1, "before RUN 1"), (3, 3, "inside RUN 1 from line 2")];
    for (n, line, text) in cases {
        let e = parse_err(cut(n).as_bytes());
        assert_eq!(e.line, line, "cut at {n}: {e}");
        assert!(e.message.contains(text), "cut at {n}: {e}");
    }
}

#[test]
fn an_output_cut_by_the_next_one_keeps_its_runs() {
    let lines: Vec<&str> = SMALL.lines().collect();
    let cut = |n: usize| lines[..n].join("\n");
    // A new output starting before the tables of the previous one.
    let (blocks, warnings) = blocks_and_warnings(format!("{}\n{SMALL}", cut(8)).as_bytes());
    assert_eq!(
        warnings,
        [(
            8,
            "the JLBH output from line 1 is cut off: no SUMMARY table for 'End to End'".to_string()
        )]
    );
    assert_eq!(blocks.len(), 2);
    assert_eq!((blocks[0].first_line, blocks[0].last_line), (1, 8));
    assert_eq!(value(&blocks[0], 2, "end_to_end", 100.0), Some(6.0));
    assert_eq!(value(&blocks[1], 2, "end_to_end", 100.0), Some(6.02));
    // A run header inside an unclosed run: the run ends at its last line.
    let text = format!("{}\n{}", cut(4), lines[5..].join("\n"));
    let (blocks, warnings) = blocks_and_warnings(text.as_bytes());
    assert_eq!(
        warnings,
        [(
            4,
            "RUN 1 from line 2 is cut off: no closing dash line before line 5".to_string()
        )]
    );
    assert_eq!(blocks[0].runs[0].last_line, 4);
    assert_eq!(value(&blocks[0], 1, "end_to_end", 100.0), Some(6.01));
}

#[test]
fn garbled_lines_name_the_line() {
    let cases = [
        (3, "Run time: soon", "run time"),
        (
            4,
            "End to End: (9,0x0)   50/90 99/99.9 99.99 - worst was 1 / 2  3 / 4  5 - 6",
            "sample count",
        ),
        (
            4,
            "End to End: (9,000)   50/90 99/99.9 99.99 - worst was 1 / 2  3",
            "3 values",
        ),
        (11, "50.0:   1.01   x   0.00", "'x' is not a number"),
        (11, "50.0:   1.01   0.00", "expected 3"),
        (11, "50.0:   1.01   1.02   0.00   7.00", "more than 3"),
        (
            2,
            "-------- BENCHMARK RESULTS (RUN two) --------",
            "run number",
        ),
    ];
    for (at, replacement, text) in cases {
        let mut lines: Vec<&str> = SMALL.lines().collect();
        lines[at - 1] = replacement;
        let e = parse_err(lines.join("\n").as_bytes());
        assert_eq!(e.line, at as u64, "{replacement}: {e}");
        assert!(e.message.contains(text), "{replacement}: {e}");
    }
    // Two run columns but one run: the second `RUN 1` starts an output of one run.
    let one_run = SMALL.replace("RUN 2)", "RUN 1)");
    let e = parse_err(one_run.as_bytes());
    assert_eq!(e.line, 9);
    assert!(
        e.message
            .contains("has 2 run columns but the output has 1 runs"),
        "{e}"
    );
}

#[test]
fn foreign_lines_and_prose_are_ignored() {
    let text = format!(
        "JLBH prints lines such as\n\
         ---- SUMMARY (end to end) ----\n\
         and a Run time: line; End to End: (50,000) 50/90 was junk.\n\
         \n\
         Results:\n\
         \n\
         {}\n\
         The worst was 6 us.\n\
         Percentile means the rank.\n",
        SMALL.replace(
            "--------\n--------",
            "--------\n[main] INFO tick (3)\n--------"
        )
    );
    let blocks = parse_ok(&FORMAT, text.as_bytes());
    assert_eq!(blocks.len(), 1);
    assert_eq!(blocks[0].label.as_deref(), Some("Results"));
    assert_eq!(blocks[0].first_line, 7);
    // Lone headers in prose open nothing.
    let prose = "Percentile   run1   run2   % Variation\nis the header; then\n\
                 ---- SUMMARY (end to end) ----\nPercentile   run1   % Variation\nends it.\n";
    assert!(parse_ok(&FORMAT, prose.as_bytes()).is_empty());
    assert!(parse_ok(&FORMAT, b"Percentile   run1   % Variation").is_empty());
    assert!(parse_ok(&FORMAT, b"Percentile run1 and run2 are columns.\n").is_empty());
    // Warm-up progress lines are no lead lines.
    let progress = format!("Complete: 50000\n{SMALL}");
    assert_eq!(parse_ok(&FORMAT, progress.as_bytes())[0].label, None);
    assert!(parse_ok(&FORMAT, b"").is_empty());
    assert!(parse_ok(&FORMAT, b"hello\nworld\n").is_empty());
}

#[test]
fn hand_edited_table_without_variation_column() {
    let text = "\
---- SUMMARY (end to end microseconds) ----
Percentile   run1   run2
50:          1.50   1.60
99.7:        2.50   2.60
worst:       9.00   9.50
";
    let b = &parse_ok(&FORMAT, text.as_bytes())[0];
    assert_eq!(b.runs.len(), 2);
    assert_eq!(value(b, 2, "end_to_end_microseconds", 99.7), Some(2.6));
    assert!(b.printed.is_empty());
}

#[test]
fn hundred_point_zero_rows_follow_the_ladder() {
    assert_eq!(next_rung(99.9999), 99.99997);
    assert_eq!(next_rung(99.99997), 99.99999);
    let text = "\
Percentile   run1   % Variation
99.9999:  1.00   0.00
100.0:    2.00   0.00
100.0:    3.00   0.00
worst:    4.00   0.00
";
    let b = &parse_ok(&FORMAT, text.as_bytes())[0];
    assert_eq!(
        percentiles(b, 1, "end_to_end"),
        [99.9999, 99.99997, 99.99999, 100.0]
    );
    assert_eq!(value(b, 1, "end_to_end", 99.99999), Some(3.0));
}

#[test]
fn blocks_are_yielded_as_they_complete() {
    /// Yields `data`, then fails: anything after the first block is never reached.
    struct ThenFail<'a>(&'a [u8]);
    impl std::io::Read for ThenFail<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.0.is_empty() {
                return Err(std::io::Error::other("boom"));
            }
            let n = buf.len().min(self.0.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }
    let data = format!("{SMALL}next line\n");
    let mut it = (FORMAT.parse)(Box::new(std::io::BufReader::new(ThenFail(data.as_bytes()))));
    assert!(matches!(it.next(), Some(Ok(Parsed::Block(_)))));
    let e = it.next().unwrap().unwrap_err();
    assert!(e.message.contains("boom"));
    assert!(it.next().is_none());
}

/// A tiny deterministic generator (xorshift) for the robustness loop.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[test]
fn never_panics_on_truncated_mutated_or_random_input() {
    let mut inputs: Vec<Vec<u8>> = [
        "jlbh/v10-current.txt",
        "jlbh/v1-varlog.txt",
        "jlbh/crlf-ansi-foreign.txt",
        "jlbh/two-outputs.txt",
        "jlbh/locale-de.txt",
    ]
    .iter()
    .map(|f| fixture(f))
    .collect();
    inputs.push(SMALL.as_bytes().to_vec());
    // One-line form: every newline turned into a space.
    inputs.push(SMALL.replace('\n', " ").into_bytes());
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let tokens: [&[u8]; 10] = [
        b"(",
        b")",
        b":",
        b" ",
        b"\n",
        b"-----",
        b"worst:",
        b"50/90",
        b"Infinity",
        b"\xff",
    ];
    for input in &inputs {
        for cut in 0..=input.len() {
            let _ = parse_all(&input[..cut]);
        }
        for _ in 0..300 {
            let mut m = input.clone();
            for _ in 0..1 + rng.below(4) {
                let at = rng.below(m.len() + 1);
                match rng.below(3) {
                    0 if at < m.len() => {
                        m.remove(at);
                    }
                    1 if at < m.len() => m[at] = rng.next() as u8,
                    _ => {
                        let t = tokens[rng.below(tokens.len())];
                        m.splice(at..at, t.iter().copied());
                    }
                }
            }
            let _ = parse_all(&m);
        }
    }
    // Long pathological lines must cost linear time (a quadratic scan would hang here).
    let long = [
        format!("---- SUMMARY ({}", ")a".repeat(200_000)),
        format!(
            "---- BENCHMARK RESULTS (RUN 1) ----\n{}",
            "(".repeat(400_000)
        ),
        format!(
            "---- BENCHMARK RESULTS (RUN 1) ----\nx {}",
            "(1) ".repeat(100_000)
        ),
        "Percentile run1 % Variation ".repeat(50_000),
        SMALL.replace('\n', " ").repeat(2_000),
    ];
    for text in &long {
        let _ = parse_all(text.as_bytes());
    }
    for len in [0, 1, 100, 10_000, 200_000] {
        let junk: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        let _ = parse_all(&junk);
        let text: Vec<u8> = (0..len).map(|_| b"(-) 0:5/9w.\n"[rng.below(12)]).collect();
        let _ = parse_all(&text);
    }
}

#[test]
fn fixture_snapshots() {
    // One snapshot per fixture: a new fixture is a new test.
    insta::glob!("../../../../fixtures/jlbh", "*.txt", |path| {
        let blocks = parse_ok(&FORMAT, &std::fs::read(path).unwrap());
        insta::assert_json_snapshot!(blocks);
    });
}

#[test]
fn walking_refine_matches_a_search_from_the_start() {
    /// The ladder a search from the start builds for `rows`.
    fn searched(mut points: Vec<LadderPoint>, rows: &[(f64, Option<f64>)]) -> Vec<LadderPoint> {
        for &(p, cell) in rows {
            refine(&mut points, None, p, cell);
        }
        points
    }
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let grid = [50.0, 90.0, 99.0, 99.7, 99.9, 99.97, 99.99, 99.999, 100.0];
    for _ in 0..2000 {
        let mut points = Vec::new();
        for &p in &grid {
            if rng.below(3) > 0 {
                points.push(LadderPoint {
                    percentile: p,
                    value: Some(rng.below(100) as f64),
                    line_value: None,
                });
            }
        }
        if rng.below(4) == 0 && points.len() > 1 {
            points.swap(0, 1);
        }
        if rng.below(20) == 0 {
            points.truncate(1);
            if let Some(q) = points.first_mut() {
                q.percentile = f64::NAN;
            }
        }
        // Mostly ascending rows, sometimes repeated, near-equal or out of order.
        let rows: Vec<(f64, Option<f64>)> = (0..rng.below(12))
            .map(|_| {
                let p = grid[rng.below(grid.len())] + [0.0, 0.0, 0.0, 5e-10, 0.05][rng.below(5)];
                (p, (rng.below(5) > 0).then(|| rng.below(1000) as f64))
            })
            .collect();
        let mut sorted_rows = rows.clone();
        sorted_rows.sort_by(|a, b| a.0.total_cmp(&b.0));
        for rows in [rows, sorted_rows] {
            let mut walked = points.clone();
            let mut from = ascending(&walked).then_some(0);
            for &(p, cell) in &rows {
                from = refine(&mut walked, from, p, cell);
            }
            // Compared as text: a NaN percentile equals no number, itself included.
            let expect = searched(points.clone(), &rows);
            assert_eq!(
                format!("{walked:?}"),
                format!("{expect:?}"),
                "{points:?} {rows:?}"
            );
        }
    }
}

#[test]
fn the_chosen_load_is_config_and_the_run_time_is_not() {
    let blocks =
        crate::testutil::parse_ok(&FORMAT, &crate::testutil::fixture("jlbh/v10-current.txt"));
    let run = &blocks[0].runs[0];
    let config: Vec<&str> = run.config.iter().map(String::as_str).collect();
    assert_eq!(
        config,
        [
            "co_correction",
            "distribution",
            "interval_us",
            "target_throughput"
        ]
    );
    assert_eq!(
        run.params["target_throughput"],
        crate::model::Param::Num(100000.0)
    );
    assert_eq!(run.params["run_time_s"], crate::model::Param::Num(1.0));
    assert_eq!(run.bench, None);
    assert_eq!(
        blocks[0].runs[0].config_params(),
        blocks[0].runs[2].config_params()
    );
}

/// A log cut mid-write inside a summary row (chronicle-queue-demo-2019-throughput-test.txt
/// cut inside its second table's `99:` row, after `3.22  2.39`): the rows before it are
/// stored, the cut row is left out with a warning; the same row followed by another line
/// is an error naming it.
#[test]
fn a_summary_row_the_input_ends_inside_is_left_out_with_a_warning() {
    let text = String::from_utf8(fixture(
        "real/jlbh/chronicle-queue-demo-2019-throughput-test.txt",
    ))
    .unwrap();
    let row = text
        .find("99:             3.22         2.39")
        .expect("the row");
    let cut = &text[..row + "99:             3.22         2.39".len()];
    let (blocks, warnings) = blocks_and_warnings(cut.as_bytes());
    assert_eq!(blocks.len(), 2);
    assert_eq!(value(&blocks[1], 5, "end_to_end", 90.0), Some(0.66));
    assert_eq!(percentiles(&blocks[1], 5, "end_to_end"), vec![50.0, 90.0]);
    assert!(
        warnings.iter().any(|(line, m)| *line == 14
            && m.contains("the input ends inside this summary row")
            && m.contains("has 2 values, expected 6")),
        "{warnings:?}"
    );
    let garbled = format!("{cut}\n99.7:  45.42  14.04  1554.94  4156.42  6834.18  99.69\n");
    let e = parse_err(garbled.as_bytes());
    assert_eq!(e.line, 14, "{e}");
}

/// A percentile only the probe line prints keeps its 4 significant digits, which can read
/// above the table's precise worst: v10-current.txt's run 3 with its 99.99 printed `2,049`
/// (the line's worst) and its table's worst 2048.60. No percentile lies above the worst:
/// 99.99 takes 2048.60, its printing kept as `line_value`.
#[test]
fn a_rounded_line_value_never_lies_above_the_tables_next_row() {
    let text = String::from_utf8(fixture("jlbh/v10-current.txt")).unwrap();
    let text = text
        .replace("12.50  13.00 - 2,049\n", "12.50  2,049 - 2,049\n")
        .replace(
            "worst:          14.02        15.30      2049.02",
            "worst:          14.02        15.30      2048.60",
        );
    let blocks = parse_ok(&FORMAT, text.as_bytes());
    let b = &blocks[0];
    let p = point(b, 3, "end_to_end", 99.99);
    assert_eq!((p.value, p.line_value), (Some(2048.6), Some(2049.0)));
    assert_eq!(value(b, 3, "end_to_end", 100.0), Some(2048.6));
    // The rows below keep the table's values (99.9: 12.50).
    assert_eq!(value(b, 3, "end_to_end", 99.9), Some(12.50));
    // The fixture itself keeps its line values (13.00 lies below 2049.02).
    let blocks = parse_ok(&FORMAT, &fixture("jlbh/v10-current.txt"));
    assert_eq!(value(&blocks[0], 3, "end_to_end", 99.99), Some(13.0));
}

/// A line-only point printed with one decimal (`Histogram.p` between 25.6 and 256 µs) can
/// read below the table's precise previous row: the loopback runner's 99.9 printed `34.8`
/// beside a 99.7 row of 34.82. It takes 34.82 (its printing kept as `line_value`); a gap
/// wider than the printing's half unit (34.7) is left as printed.
#[test]
fn a_rounded_line_value_never_lies_below_the_tables_previous_row() {
    let pt = |percentile: f64, value: f64, line_value: Option<f64>| LadderPoint {
        percentile,
        value: Some(value),
        line_value,
    };
    let mut points = vec![
        pt(99.0, 30.12, Some(30.1)),
        pt(99.7, 34.82, None),
        pt(99.9, 34.8, None),
        pt(100.0, 40.02, Some(40.0)),
    ];
    settle_rounded(&mut points, &[true, true, false, true]);
    assert_eq!(
        (points[2].value, points[2].line_value),
        (Some(34.82), Some(34.8))
    );
    assert_eq!(points[1].value, Some(34.82));
    let mut wide = vec![pt(99.7, 34.82, None), pt(99.9, 34.7, None)];
    settle_rounded(&mut wide, &[true, false]);
    assert_eq!((wide[1].value, wide[1].line_value), (Some(34.7), None));
}
