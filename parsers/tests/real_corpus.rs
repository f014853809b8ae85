//! The real-world corpus (`fixtures/real/<format>/`): outputs real projects published,
//! kept byte-exact with a `MANIFEST` line each (where from, what layout quirk, numbers
//! read by hand). Every file must be detected as its folder's format and as no other,
//! parse without error (warnings allowed), and yield the numbers its MANIFEST names;
//! those numbers are asserted below, file by file.

use bench_db_parsers::{Block, Data, Head, Param, Parsed, Run, format_by_name, registry};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/real")
}

/// What a corpus file parses into.
struct Loaded {
    blocks: Vec<Block>,
    warnings: Vec<(u64, String)>,
}

/// The formats whose sniffers claim the file at `path`, as detection sees it.
fn claims(path: &Path) -> Vec<&'static str> {
    let bytes = std::fs::read(path).unwrap();
    let n = bytes.len().min(registry::HEAD_BYTES);
    let text = String::from_utf8_lossy(&bytes[..n]);
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let head = Head {
        file_name: &name,
        text: &text,
        complete: n == bytes.len(),
    };
    registry::claims(&head)
        .iter()
        .map(|(f, _)| f.name)
        .collect()
}

/// Parses `fixtures/real/<format>/<file>` after checking that detection picks `format`
/// and no other format claims it; panics on a parse error.
fn load(format: &str, file: &str) -> Loaded {
    let path = corpus().join(format).join(file);
    assert_eq!(claims(&path), vec![format], "{}", path.display());
    let bytes = std::fs::read(&path).unwrap();
    let f = format_by_name(format).unwrap();
    let mut out = Loaded {
        blocks: Vec::new(),
        warnings: Vec::new(),
    };
    for item in (f.parse)(Box::new(&bytes[..])) {
        match item.unwrap_or_else(|e| panic!("{}: {e}", path.display())) {
            Parsed::Block(b) => out.blocks.push(b),
            Parsed::Warning { line, message } => out.warnings.push((line, message)),
        }
    }
    assert!(!out.blocks.is_empty(), "{}: no blocks", path.display());
    out
}

fn close(got: Option<f64>, want: f64, what: &str) {
    let g = got.unwrap_or_else(|| panic!("{what}: absent, want {want}"));
    assert!(
        (g - want).abs() <= 1e-9 * want.abs().max(1.0),
        "{what}: got {g}, want {want}"
    );
}

fn series<'r>(run: &'r Run, metric: &str) -> &'r bench_db_parsers::Series {
    run.series
        .iter()
        .find(|s| s.metric == metric)
        .unwrap_or_else(|| {
            let names: Vec<_> = run.series.iter().map(|s| s.metric.as_str()).collect();
            panic!("no series {metric} in {names:?}")
        })
}

/// The single value of series `metric`.
fn val(run: &Run, metric: &str) -> Option<f64> {
    match &series(run, metric).data {
        Data::Value { value } => *value,
        other => panic!("{metric}: not a value: {other:?}"),
    }
}

/// The ladder value of `metric` at percentile `p`.
fn pct(run: &Run, metric: &str, p: f64) -> Option<f64> {
    let ladder = series(run, metric).ladder().expect("a ladder");
    ladder
        .iter()
        .rev()
        .find(|q| (q.percentile - p).abs() < 1e-9)
        .unwrap_or_else(|| panic!("{metric}: no percentile {p}"))
        .value
}

/// The printed block statistic `name` (`variation_pct`, `var_log`, `combined`) of `metric`.
fn printed(b: &Block, metric: &str, p: Option<f64>, name: &str) -> Option<f64> {
    b.printed
        .iter()
        .find(|s| s.metric == metric && s.percentile == p && s.name == name)
        .unwrap_or_else(|| panic!("no printed {name} for {metric} at {p:?}"))
        .value
}

/// The values of time series `metric`.
fn ts(run: &Run, metric: &str) -> Vec<(f64, Option<f64>)> {
    match &series(run, metric).data {
        Data::TimeSeries { points } => points.iter().map(|p| (p.t, p.value)).collect(),
        other => panic!("{metric}: not a time series: {other:?}"),
    }
}

fn stat(run: &Run, metric: &str, name: &str) -> f64 {
    *series(run, metric)
        .stats
        .get(name)
        .unwrap_or_else(|| panic!("{metric}: no stat {name}"))
}

fn text<'r>(run: &'r Run, key: &str) -> &'r str {
    match run.params.get(key) {
        Some(Param::Text(t)) => t,
        other => panic!("param {key}: {other:?}"),
    }
}

/// The block whose label contains `needle`.
fn labelled<'b>(blocks: &'b [Block], needle: &str) -> &'b Block {
    blocks
        .iter()
        .find(|b| b.label.as_deref().is_some_and(|l| l.contains(needle)))
        .unwrap_or_else(|| {
            let labels: Vec<_> = blocks.iter().map(|b| b.label.clone()).collect();
            panic!("no block labelled {needle:?} in {labels:?}")
        })
}

/// Every corpus file with its numbers asserted below, by folder.
const COVERED: &[(&str, &[&str])] = &[
    (
        "arthas",
        &[
            "arthas-site-docs-en-watch.md.txt",
            "arthas-site-docs-zh-getstatic.md.txt",
        ],
    ),
    (
        "hdr-percentiles",
        &[
            "hdrhistogram-GoogleChartsExample-example1.txt",
            "hdrhistogram-GoogleChartsExample-example2-cut.txt",
            "hdrhistogramjs-Histogram.spec.ts.txt",
            "hdrhistogramjs-README.md.txt",
            "perfkitbenchmarker-ycsb_stats.py.txt",
        ],
    ),
    (
        "hlog",
        &[
            "hdrhistogram-jHiccup-2.0.6.logV1.hlog.txt",
            "hdrhistogramjs-bug-whitespace.hlog",
            "nosqlbench-histologger.md.txt",
        ],
    ),
    (
        "jgroups",
        &[
            "jgroups-2006-INSTALL.html.txt",
            "jgroups-2011-INSTALL.html.txt",
        ],
    ),
    (
        "jlbh",
        &[
            "chronicle-queue-ChronicleQueueLatencyDistribution.java.txt",
            "chronicle-queue-File-size-benchmark.txt",
            "chronicle-queue-contended-writes.adoc.txt",
            "chronicle-queue-demo-2019-throughput-test.txt",
            "chronicle-queue-demo-2025-account-benchmark-results.txt",
            "chronicle-queue-demo-OMSBenchmarkMain.java.txt",
            "chronicle-wire-BytesInBytesMarshallableMain.java.txt",
            "chronicle-wire-WireExchangerPerfMain.java.txt",
            "introductiontojlbh-zh-Intro.md.txt",
            "introductiontojlbh-zh-JLBH_Examples_3.md.txt",
            "introductiontojlbh-zh-JLBH_Examples_4.md.txt",
            "introductiontojlbh-zh-first-commit-JLBH_Examples_4.md.txt",
            "introductiontojlbh-zh-first-commit-Intro.md.txt",
            "introductiontojlbh-zh-first-commit-JLBH_Examples_3.md.txt",
        ],
    ),
    (
        "jtest",
        &[
            "trafficserver-tools-jtest-README.txt",
            "trafficserver-tools-jtest-README.zh.md.txt",
        ],
    ),
    (
        "qps-table",
        &["brpc-docs-cn-thrift.md.txt", "brpc-docs-en-thrift.md.txt"],
    ),
    (
        "tsar",
        &["alibaba-tsar-info.md.txt", "tsar-php-fpm-README.md.txt"],
    ),
    (
        "wrk",
        &[
            "avio-README.md.txt",
            "helloworld_wrk_test-solon_jlhttp-README-20230101.md.txt",
            "linuxlearn-wrk-zsh-prompt.md.txt",
            "networking-course-benchmark-trimmed.md.txt",
            "perfkitbenchmarker-wrk2_output_all_error.txt",
            "polis-highload-2020-wrkGet.txt",
            "polis-highload-2021-STAGE1-crlf.md.txt",
            "polis-highload-2021-putStressTestResult.txt",
            "perfkitbenchmarker-wrk_result.txt",
            "webapiperformance-DjangoApi-Orders.md.txt",
            "wrk2-README.md.txt",
        ],
    ),
    (
        "zk-benchmark",
        &[
            "epyeh-2-SETSINGLE_timings.dat.txt",
            "epyeh-MIXREADWRITE-0.5.dat.txt",
        ],
    ),
    (
        "zk-latencies",
        &[
            "yj7778826-size.result.txt",
            "zk-smoketest-README.textile.txt",
        ],
    ),
    (
        "zookeeper",
        &[
            "bookkeeper-tutorial-README.md.txt",
            "circonus-docs-apache-zookeeper.md.txt",
            "clickhouse-keeper-docs-4lw.md.txt",
            "myblog-zookeeper-4lw-notes-zh.md.txt",
            "zookeeper-contrib-monitoring-README.txt",
            "zookeeper-contrib-monitoring-test.py.txt",
            "zookeeper-docs-3.8-zookeeperAdmin.md.txt",
            "zookeeper-in-docker-swarm-3-servers.md.txt",
        ],
    ),
];

/// Corpus files the parsers do not read yet, each with the reason; they are still
/// checked not to be claimed by a wrong format or to fail with an error. Empty: every
/// file is read.
const NOT_YET: &[(&str, &str, &str)] = &[];

/// Every corpus file (not `MANIFEST`, not `README.md`), as (folder, file name).
/// Corpus folders whose numbers are asserted beside their format's module (the
/// microbenchmark and load-test formats, some of whose outputs are result trees).
const ASSERTED_IN_MODULE: &[&str] = &[
    "criterion",
    "go-bench",
    "hyperfine",
    "jmh",
    "k6",
    "sockperf",
];

fn corpus_files() -> Vec<(String, String)> {
    let mut out = Vec::new();
    let Ok(dirs) = std::fs::read_dir(corpus()) else {
        return out;
    };
    for dir in dirs.flatten().filter(|d| d.path().is_dir()) {
        let folder = dir.file_name().to_string_lossy().into_owned();
        if ASSERTED_IN_MODULE.contains(&folder.as_str()) {
            continue;
        }
        for f in std::fs::read_dir(dir.path()).unwrap().flatten() {
            let name = f.file_name().to_string_lossy().into_owned();
            if name != "MANIFEST" && name != "README.md" && f.path().is_file() {
                out.push((folder.clone(), name));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn every_file_is_listed_in_its_manifest_and_covered() {
    let covered: BTreeSet<(String, String)> = COVERED
        .iter()
        .flat_map(|(d, fs)| fs.iter().map(move |f| (d.to_string(), f.to_string())))
        .chain(
            NOT_YET
                .iter()
                .map(|(d, f, _)| (d.to_string(), f.to_string())),
        )
        .collect();
    let files = corpus_files();
    for (folder, file) in &files {
        assert!(
            format_by_name(folder).is_some(),
            "folder {folder} is not a format"
        );
        let manifest = std::fs::read_to_string(corpus().join(folder).join("MANIFEST")).unwrap();
        assert!(
            manifest
                .lines()
                .any(|l| l.split('\t').next() == Some(file.as_str())),
            "{folder}/{file} has no MANIFEST line"
        );
        assert!(
            covered.contains(&(folder.clone(), file.clone())),
            "{folder}/{file} has no test of its numbers"
        );
    }
    for (folder, file) in &covered {
        assert!(
            files.contains(&(folder.clone(), file.clone())),
            "{folder}/{file} is tested but missing"
        );
    }
}

#[test]
fn every_file_is_claimed_by_its_own_format_only_and_parses() {
    let files = corpus_files();
    for (folder, file) in &files {
        if NOT_YET.iter().any(|(d, f, _)| d == folder && f == file) {
            let path = corpus().join(folder).join(file);
            let c = claims(&path);
            assert!(c.is_empty() || c == vec![folder.as_str()], "{file}: {c:?}");
            continue;
        }
        load(folder, file);
    }
}

#[test]
fn arthas() {
    let l = load("arthas", "arthas-site-docs-en-watch.md.txt");
    let b = &l.blocks[0];
    close(val(&b.runs[0], "cost"), 0.220625, "first cost");
    // result = [params, target, returnObj]: params[0], target.illegalArgumentCount.
    close(val(&b.runs[0], "result.0.0"), -179173.0, "params[0]");
    close(
        val(&b.runs[0], "result.1.illegalargumentcount"),
        44.0,
        "illegalArgumentCount",
    );
    close(val(&b.runs[1], "cost"), 1.020982, "second cost");
    close(val(&b.runs[1], "result.2.0"), 2.0, "returnObj[0]");
    close(val(&b.runs[1], "result.2.1"), 2.0, "returnObj[1]");
    close(val(&b.runs[1], "result.2.2"), 26947.0, "returnObj[2]");
    // A result holding an exception's stack trace still reads.
    let b = labelled(&l.blocks, "Check `exceptions`");
    close(val(&b.runs[0], "cost"), 1.414993, "exception cost");

    let l = load("arthas", "arthas-site-docs-zh-getstatic.md.txt");
    let r = &l.blocks[0].runs[0];
    close(val(r, "random.seed"), 120955813885284.0, "seed");
    close(val(r, "random.multiplier"), 25214903917.0, "multiplier");
    close(
        val(r, "random.double_unit"),
        1.1102230246251565E-16,
        "DOUBLE_UNIT",
    );
    close(val(r, "random.seedoffset"), 24.0, "seedOffset");
    close(
        val(r, "random.seeduniquifier"),
        -3282039941672302964.0,
        "seedUniquifier",
    );
}

#[test]
fn hdr_percentiles() {
    let l = load(
        "hdr-percentiles",
        "hdrhistogram-GoogleChartsExample-example1.txt",
    );
    let r = &l.blocks[0].runs[0];
    close(pct(r, "latency", 50.0), 11.167, "p50");
    close(pct(r, "latency", 90.0), 40.671, "p90");
    close(pct(r, "latency", 99.9023), 1260.543, "p99.9023");
    assert_eq!(stat(r, "latency", "mean"), 25.048);
    assert_eq!(stat(r, "latency", "stddev"), 120.097);
    assert_eq!(stat(r, "latency", "max"), 9420.8);
    assert_eq!(stat(r, "latency", "total_count"), 475109.0);

    let l = load(
        "hdr-percentiles",
        "hdrhistogram-GoogleChartsExample-example2-cut.txt",
    );
    assert_eq!(l.warnings.len(), 1, "{:?}", l.warnings);
    assert!(l.warnings[0].1.contains("no #[Mean"), "{:?}", l.warnings);
    let r = &l.blocks[0].runs[0];
    close(pct(r, "latency", 0.0), 0.017, "first row");
    close(pct(r, "latency", 50.0), 1418.239, "p50");
    close(pct(r, "latency", 96.875), 1511.423, "0.96875");
    close(pct(r, "latency", 100.0), 1511.423, "last row");
    match &series(r, "latency").data {
        Data::Ladder { count, .. } => assert_eq!(*count, Some(1104769)),
        other => panic!("{other:?}"),
    }

    let l = load("hdr-percentiles", "perfkitbenchmarker-ycsb_stats.py.txt");
    let r = &l.blocks[0].runs[0];
    close(pct(r, "latency", 0.0), 314.0, "first row");
    close(pct(r, "latency", 30.0), 1033.0, "0.3 row");
    close(pct(r, "latency", 99.9999046326), 201983.0, "last row");
    assert_eq!(stat(r, "latency", "mean"), 1287.159);
    assert_eq!(stat(r, "latency", "stddev"), 667.56);
    assert_eq!(stat(r, "latency", "total_count"), 1000009.0);
    assert_eq!(stat(r, "latency", "buckets"), 8.0);

    let l = load("hdr-percentiles", "hdrhistogramjs-README.md.txt");
    let r = &l.blocks[0].runs[0];
    close(pct(r, "latency", 0.0), 25.0, "first row");
    close(pct(r, "latency", 70.0), 75.0, "0.7 row");
    assert_eq!(stat(r, "latency", "mean"), 50.0);
    assert_eq!(stat(r, "latency", "stddev"), 20.412);
    assert_eq!(stat(r, "latency", "total_count"), 3.0);
    assert_eq!(stat(r, "latency", "buckets"), 43.0);

    // Both tables open on a code line: `const expectedResult = \`       Value …`.
    let l = load("hdr-percentiles", "hdrhistogramjs-Histogram.spec.ts.txt");
    assert_eq!(l.blocks.len(), 2);
    let r = &l.blocks[0].runs[0];
    assert_eq!(series(r, "latency").ladder().unwrap().len(), 11);
    close(pct(r, "latency", 30.0), 25.0, "0.3 row");
    close(pct(r, "latency", 40.0), 50.0, "0.4 row");
    close(pct(r, "latency", 100.0), 75.0, "last row");
    assert_eq!(stat(r, "latency", "stddev"), 20.412);
    assert_eq!(stat(r, "latency", "sub_buckets"), 2048.0);
    let csv = &l.blocks[1].runs[0];
    assert_eq!(series(csv, "latency").ladder().unwrap().len(), 11);
    close(pct(csv, "latency", 65.0), 50.0, "CSV 0.65 row");
    close(pct(csv, "latency", 70.0), 75.0, "CSV 0.7 row");
    match &series(csv, "latency").data {
        Data::Ladder { count, .. } => assert_eq!(*count, Some(3)),
        other => panic!("{other:?}"),
    }
}

#[test]
fn hlog() {
    let l = load("hlog", "hdrhistogram-jHiccup-2.0.6.logV1.hlog.txt");
    let r = &l.blocks[0].runs[0];
    let max = ts(r, "latency_max");
    assert_eq!(max.len(), 88);
    // StartTime 1438867590.285 + 0.133 s.
    close(Some(max[0].0), 1438867590.418, "first interval start");
    close(max[0].1, 2.802, "first interval max");
    let largest = max.iter().filter_map(|p| p.1).fold(f64::MIN, f64::max);
    close(Some(largest), 1895.825, "largest interval max");
    let at = max.iter().find(|p| p.1 == Some(largest)).unwrap().0;
    close(Some(at), 1438867590.285 + 50.140, "largest at 50.140 s");

    let l = load("hlog", "nosqlbench-histologger.md.txt");
    let b = &l.blocks[0];
    assert_eq!(b.runs.len(), 2);
    assert_eq!(text(&b.runs[0], "tag"), "blockingactivity1.delay");
    assert_eq!(text(&b.runs[1], "tag"), "csvmetrics.cycles");
    // Lines 28 and 29: two streams, not two repeats of one; the tag keeps them apart.
    for r in &b.runs {
        assert_eq!(r.config_params().keys().collect::<Vec<_>>(), [&"tag"]);
    }
    close(
        b.runs[0].params["start_time"].as_f64(),
        1479149958.287,
        "StartTime",
    );
    let max = ts(&b.runs[0], "latency_max");
    close(Some(max[0].0), 1479149958.287 + 0.003, "interval start");
    close(max[0].1, 0.0, "interval max");

    // HdrHistogramJS writes normalizingIndexOffset 1 and conversion-ratio bits 0x1.
    let l = load("hlog", "hdrhistogramjs-bug-whitespace.hlog");
    let r = &l.blocks[0].runs[0];
    assert_eq!(text(r, "tag"), "bo-global-http");
    let count = ts(r, "count");
    assert_eq!(count.len(), 1);
    close(Some(count[0].0), 1527510686.313, "interval start");
    close(count[0].1, 0.0, "interval count");
    close(ts(r, "latency_max")[0].1, 0.0, "interval max");
}

#[test]
fn jgroups() {
    let l = load("jgroups", "jgroups-2006-INSTALL.html.txt");
    assert_eq!(l.blocks.len(), 1);
    let b = &l.blocks[0];
    assert_eq!(text(&b.runs[0], "member"), "192.168.5.2:4301");
    close(val(&b.runs[0], "msgs_per_sec"), 5333.33, "msgs/sec");
    close(val(&b.runs[0], "time"), 3750.0, "time");
    close(val(&b.runs[0], "received"), 20e6, "received 20MB");
    close(val(&b.runs[0], "throughput"), 5.33e6, "throughput");
    assert_eq!(text(&b.runs[1], "member"), "192.168.5.2:4311");
    close(val(&b.runs[1], "msgs_received"), 20000.0, "received");
    close(
        printed(b, "msgs_per_sec", None, "combined"),
        5333.33,
        "combined",
    );
    close(
        printed(b, "throughput", None, "combined"),
        5.33e6,
        "combined throughput",
    );
    // The combined line is also a run of its own, beside the two members'.
    assert_eq!(b.runs.len(), 3);
    assert_eq!(text(&b.runs[2], "member"), "combined");
    close(
        val(&b.runs[2], "combined_msgs_per_sec"),
        5333.33,
        "combined run",
    );
    close(
        val(&b.runs[2], "combined_throughput"),
        5.33e6,
        "combined run throughput",
    );

    // The same `-- results:` block printed twice, the first copy inside `<pre>`.
    let l = load("jgroups", "jgroups-2011-INSTALL.html.txt");
    assert_eq!(l.blocks.len(), 2);
    for b in &l.blocks {
        assert_eq!(text(&b.runs[0], "member"), "linux-34003");
        close(val(&b.runs[0], "msgs_per_sec"), 151998.78, "msgs/sec");
        close(val(&b.runs[0], "time"), 13158.0, "time");
        close(val(&b.runs[0], "throughput"), 152e6, "throughput");
        assert_eq!(text(&b.runs[1], "member"), "linux-15721");
        close(val(&b.runs[1], "msgs_per_sec"), 152987.07, "msgs/sec");
        close(val(&b.runs[1], "throughput"), 152.99e6, "throughput");
        close(
            printed(b, "msgs_per_sec", None, "combined"),
            152492.93,
            "combined",
        );
        close(
            printed(b, "throughput", None, "combined"),
            152.49e6,
            "combined throughput",
        );
        assert_eq!(text(&b.runs[2], "member"), "combined");
        close(
            val(&b.runs[2], "combined_msgs_per_sec"),
            152492.93,
            "combined run",
        );
        close(
            val(&b.runs[2], "combined_throughput"),
            152.49e6,
            "combined run throughput",
        );
    }
}

#[test]
fn jtest() {
    for file in [
        "trafficserver-tools-jtest-README.txt",
        "trafficserver-tools-jtest-README.zh.md.txt",
    ] {
        let l = load("jtest", file);
        assert_eq!(l.blocks.len(), 1, "{file}");
        let r = &l.blocks[0].runs[0];
        let at = |m: &str, i: usize| ts(r, m)[i].1;
        close(at("con", 0), 100.0, "con");
        close(at("new", 0), 468.0, "new");
        close(at("ops", 0), 2329.6, "ops");
        close(at("first_byte", 0), 39.0, "1byte");
        close(at("lat", 0), 39.0, "lat");
        close(at("bytes", 0), 36323315.0, "bytes");
        close(at("per", 0), 363233.0, "per");
        close(at("server_ops", 1), 619.0, "server ops");
        close(at("total", 1), 45466393.0, "total");
        close(Some(ts(r, "ops")[1].0), 136981.9, "time");
        close(at("ops", 2), 2327.0, "line 3 ops");
        close(at("lat", 2), 41.0, "line 3 lat");
        close(at("bytes", 2), 35385495.0, "line 3 bytes");
        close(at("per", 2), 353854.0, "line 3 per");
        close(at("server_new", 2), 607.0, "line 3 server new");
        close(at("err", 2), 0.0, "err");
    }
}

#[test]
fn tsar() {
    let l = load("tsar", "alibaba-tsar-info.md.txt");
    let r = &l.blocks[0].runs[0];
    // 13:45:48 is the first row; tsar's K and M are 1024-based.
    close(
        ts(r, "www_foo_com_8080.bytin")[0].1,
        410.1 * 1024.0,
        "bytin",
    );
    close(
        ts(r, "www_foo_com_8080.bytout")[0].1,
        16.6 * 1024.0 * 1024.0,
        "bytout",
    );
    let r = &l.blocks[1].runs[0];
    // 16:26:31 is the third row.
    close(
        ts(r, "nginx_ups.traff")[2].1,
        4.9 * 1024.0 * 1024.0,
        "traff",
    );
    close(ts(r, "nginx_ups.qps")[2].1, 1.2 * 1024.0, "qps");
    close(ts(r, "nginx_ups.rt")[2].1, 3.0 * 1024.0, "rt");

    let l = load("tsar", "tsar-php-fpm-README.md.txt");
    let r = &l.blocks[0].runs[0];
    close(ts(r, "php_fpm.accept")[0].1, 1.0, "accept");
    close(ts(r, "php_fpm.qlen")[0].1, 128.0, "qlen");
    close(ts(r, "php_fpm.total")[0].1, 10.0, "total");
    close(ts(r, "php_fpm.maxact")[0].1, 21.0, "maxact");
}

#[test]
fn wrk() {
    const MB: f64 = 1024.0 * 1024.0;
    let l = load("wrk", "avio-README.md.txt");
    let r = &l.blocks[0].runs[0];
    close(val(r, "latency_avg"), 3130.0, "latency avg");
    close(val(r, "latency_stdev"), 1900.0, "latency stdev");
    close(val(r, "latency_max"), 11320.0, "latency max");
    // Line 60, `Req/Sec -nan -nan 0.00 0.00%`: no sample, so none of the row is kept.
    assert!(
        !r.series
            .iter()
            .any(|s| s.metric.starts_with("req_per_thread"))
    );
    close(val(r, "requests"), 19943.0, "requests");
    close(val(r, "bytes_read"), 4.53 * MB, "read");
    close(val(r, "requests_per_sec"), 1994.33, "req/s");
    close(val(r, "transfer_per_sec"), 463.52 * 1024.0, "transfer");

    let l = load(
        "wrk",
        "helloworld_wrk_test-solon_jlhttp-README-20230101.md.txt",
    );
    assert_eq!(l.blocks.len(), 4);
    let r = &labelled(&l.blocks, "第一次").runs[0];
    close(pct(r, "latency", 50.0), 431.0, "p50");
    close(pct(r, "latency", 99.0), 89760.0, "p99");
    close(val(r, "requests_per_sec"), 127822.19, "req/s");
    let r = &l.blocks[1].runs[0];
    close(val(r, "req_per_thread_avg"), 13500.0, "Req/Sec avg");
    close(val(r, "requests_per_sec"), 130382.40, "req/s");
    close(pct(&l.blocks[2].runs[0], "latency", 99.0), 83420.0, "p99");
    close(
        val(&l.blocks[2].runs[0], "requests_per_sec"),
        136846.55,
        "req/s",
    );
    close(
        val(&l.blocks[3].runs[0], "requests_per_sec"),
        133425.46,
        "req/s",
    );

    let l = load("wrk", "linuxlearn-wrk-zsh-prompt.md.txt");
    let r = &l.blocks[0].runs[0];
    close(val(r, "latency_avg"), 57160.0, "latency avg");
    close(val(r, "latency_max"), 347280.0, "latency max");
    close(val(r, "req_per_thread_avg"), 579.99, "Req/Sec avg");
    close(val(r, "req_per_thread_max"), 1830.0, "Req/Sec max");
    close(pct(r, "latency", 50.0), 56190.0, "p50");
    close(pct(r, "latency", 99.0), 87830.0, "p99");
    close(val(r, "requests"), 208017.0, "requests");
    close(val(r, "requests_per_sec"), 6913.20, "req/s");

    // Excerpts without `Running …`, each labelled by its heading.
    let l = load("wrk", "networking-course-benchmark-trimmed.md.txt");
    assert_eq!(l.blocks.len(), 6);
    let r = &labelled(&l.blocks, "Single Thread").runs[0];
    close(val(r, "latency_avg"), 12.21e6, "latency avg");
    close(val(r, "socket_errors.timeout"), 135.0, "timeouts");
    close(val(r, "requests_per_sec"), 396.11, "req/s");
    close(
        val(
            &labelled(&l.blocks, "Threading").runs[0],
            "requests_per_sec",
        ),
        1833.75,
        "req/s",
    );
    let r = &labelled(&l.blocks, "Async").runs[0];
    close(val(r, "latency_avg"), 1170.0, "latency avg");
    close(val(r, "requests_per_sec"), 9999.91, "req/s");
    let r = &labelled(&l.blocks, "Process Pool").runs[0];
    close(val(r, "requests"), 210358.0, "requests");
    close(r.params["elapsed"].as_f64(), 30.01, "elapsed");
    close(val(r, "requests_per_sec"), 7010.63, "req/s");

    let l = load("wrk", "perfkitbenchmarker-wrk2_output_all_error.txt");
    let r = &l.blocks[0].runs[0];
    close(val(r, "latency_avg"), 1820.0, "latency avg");
    close(val(r, "req_per_thread_avg"), 10.22, "Req/Sec avg");
    // The printed distribution is kept as printed beside the spectrum.
    close(pct(r, "latency_distribution", 99.0), 3170.0, "printed p99");
    close(
        pct(r, "latency_distribution", 99.9),
        19360.0,
        "printed p99.9",
    );
    assert_eq!(stat(r, "latency", "total_count"), 348.0);
    assert_eq!(stat(r, "latency", "mean"), 1816.0);
    close(val(r, "requests"), 451.0, "requests");
    close(val(r, "non2xx"), 451.0, "non-2xx");
    close(val(r, "requests_per_sec"), 10.02, "req/s");

    let l = load("wrk", "perfkitbenchmarker-wrk_result.txt");
    let r = &l.blocks[0].runs[0];
    close(val(r, "latency_avg"), 218.37, "latency avg");
    close(val(r, "latency_max"), 11600.0, "latency max");
    close(val(r, "req_per_thread_avg"), 4830.0, "Req/Sec avg");
    close(val(r, "req_per_thread_max"), 5550.0, "Req/Sec max");
    close(val(r, "requests"), 577297.0, "requests");
    close(r.params["elapsed"].as_f64(), 60.0, "elapsed 1.00m");
    close(val(r, "bytes_read"), 143.12 * MB, "read");
    close(val(r, "requests_per_sec"), 9605.69, "req/s");
    close(val(r, "transfer_per_sec"), 2.38 * MB, "transfer");

    let l = load("wrk", "webapiperformance-DjangoApi-Orders.md.txt");
    let r = &l.blocks[0].runs[0];
    close(val(r, "latency_avg"), 265570.0, "latency avg");
    close(val(r, "latency_max"), 1.99e6, "latency max");
    close(val(r, "req_per_thread_max"), 970.0, "Req/Sec max");
    close(val(r, "requests"), 9428.0, "requests");
    close(val(r, "bytes_read"), 103.91 * MB, "read");
    close(val(r, "socket_errors.read"), 117.0, "read errors");
    close(val(r, "socket_errors.timeout"), 47.0, "timeouts");
    close(val(r, "requests_per_sec"), 470.49, "req/s");

    let l = load("wrk", "wrk2-README.md.txt");
    assert_eq!(l.blocks.len(), 4);
    let r = &l.blocks[0].runs[0];
    close(val(r, "latency_avg"), 6460.0, "latency avg");
    close(val(r, "requests_per_sec"), 2000.15, "req/s");
    close(val(r, "transfer_per_sec"), 676.14 * 1024.0, "transfer");
    let r = &l.blocks[1].runs[0];
    close(pct(r, "latency_distribution", 99.0), 11180.0, "printed p99");
    assert_eq!(stat(r, "latency", "total_count"), 39500.0);
    close(val(r, "requests_per_sec"), 2000.28, "req/s");
    let r = &labelled(&l.blocks, "Example 2").runs[0];
    close(pct(r, "latency_distribution", 99.0), 1.27e6, "printed p99");
    close(val(r, "latency_max"), 1.42e6, "latency max");
    close(
        pct(r, "latency_uncorrected_distribution", 99.0),
        6040.0,
        "uncorrected p99",
    );
    close(val(r, "requests_per_sec"), 2001.42, "req/s");

    // wrk2 outputs saved without their `Running …` line: wrk's, not `hdr-percentiles`'.
    let l = load("wrk", "polis-highload-2020-wrkGet.txt");
    assert_eq!(l.blocks.len(), 1);
    let r = &l.blocks[0].runs[0];
    close(val(r, "latency_avg"), 1020.0, "latency avg");
    close(val(r, "latency_stdev"), 472.27, "latency stdev");
    close(val(r, "req_per_thread_avg"), 2010.0, "Req/Sec avg");
    close(pct(r, "latency_distribution", 99.0), 2430.0, "printed p99");
    close(pct(r, "latency", 50.0), 991.0, "spectrum 0.5 (ms as µs)");
    close(pct(r, "latency", 90.0), 1557.0, "spectrum 0.9");
    assert_eq!(stat(r, "latency", "total_count"), 39988.0);
    close(val(r, "requests"), 59998.0, "requests");
    close(val(r, "requests_per_sec"), 1999.92, "req/s");
    close(val(r, "transfer_per_sec"), 141.89 * 1024.0, "transfer");

    let l = load("wrk", "polis-highload-2021-putStressTestResult.txt");
    let r = &l.blocks[0].runs[0];
    close(val(r, "latency_avg"), 849.97, "latency avg");
    close(val(r, "latency_max"), 20320.0, "latency max");
    close(pct(r, "latency_distribution", 50.0), 764.0, "printed p50");
    close(pct(r, "latency", 90.0), 1265.0, "spectrum 0.9");
    assert_eq!(stat(r, "latency", "max"), 20320.0);
    assert_eq!(stat(r, "latency", "total_count"), 399927.0);
    close(val(r, "non2xx"), 599985.0, "non-2xx");
    close(val(r, "requests_per_sec"), 19999.64, "req/s");

    // CRLF line ends throughout (a report saved on Windows): the same numbers as LF.
    let l = load("wrk", "polis-highload-2021-STAGE1-crlf.md.txt");
    assert_eq!(l.blocks.len(), 2);
    let r = &l.blocks[0].runs[0];
    close(val(r, "latency_avg"), 3270.0, "PUT latency avg");
    close(val(r, "req_per_thread_max"), 13780.0, "PUT Req/Sec max");
    close(
        pct(r, "latency_distribution", 99.0),
        86210.0,
        "PUT printed p99",
    );
    close(pct(r, "latency", 90.0), 1876.0, "PUT spectrum 0.9");
    assert_eq!(stat(r, "latency", "mean"), 3274.0);
    assert_eq!(stat(r, "latency", "total_count"), 590584.0);
    close(val(r, "requests"), 600600.0, "PUT requests");
    close(val(r, "requests_per_sec"), 1001.0, "PUT req/s");
    let r = &l.blocks[1].runs[0];
    close(val(r, "latency_max"), 103940.0, "GET latency max");
    close(pct(r, "latency", 90.0), 2101.0, "GET spectrum 0.9");
    close(val(r, "bytes_read"), 612.72 * MB, "GET read");
    close(val(r, "requests_per_sec"), 999.98, "GET req/s");
    close(val(r, "transfer_per_sec"), 1.02 * MB, "GET transfer");
}

#[test]
fn zk_benchmark() {
    let l = load("zk-benchmark", "epyeh-MIXREADWRITE-0.5.dat.txt");
    let r = &l.blocks[0].runs[0];
    let rate = &r.series[0];
    let Data::TimeSeries { points } = &rate.data else {
        panic!("{:?}", rate.data)
    };
    assert_eq!(points.len(), 16);
    close(Some(points[0].t), 2.807492254, "first t");
    close(points[0].value, 303.11748813822373, "first rate");
    close(points[1].value, 10585.682141357189, "second rate");
    close(Some(points[15].t), 5.802773505, "last t");
    close(points[15].value, 18119.44644836319, "last rate");

    let l = load("zk-benchmark", "epyeh-2-SETSINGLE_timings.dat.txt");
    let r = &l.blocks[0].runs[0];
    let s = &r.series[0];
    let Data::Ladder { count, .. } = &s.data else {
        panic!("{:?}", s.data)
    };
    assert_eq!(*count, Some(8458));
    // The largest latency, line 6666: 5.868522849 - 3.479924421 s.
    close(pct(r, &s.metric, 100.0), 2.388598428, "largest latency");
}

#[test]
fn zk_latencies() {
    let l = load("zk-latencies", "zk-smoketest-README.textile.txt");
    assert_eq!(l.blocks.len(), 2);
    let r = &labelled(&l.blocks, "host1").runs[0];
    assert_eq!(text(r, "server"), "host1:2181");
    assert_eq!(text(r, "calls"), "synchronous");
    close(val(r, "created_permanent_total"), 177.0, "created ms");
    close(val(r, "created_permanent_latency"), 1.772718, "ms/op");
    close(val(r, "created_permanent_rate"), 564.105378, "/sec");
    close(val(r, "get_latency"), 0.224919, "get ms/op");
    close(val(r, "get_rate"), 4446.038712, "get /sec");
    let r = &labelled(&l.blocks, "host2").runs[0];
    close(val(r, "get_total"), 19.0, "get ms");
    close(val(r, "get_rate"), 5142.410161, "get /sec");
    close(val(r, "deleted_ephemeral_rate"), 777.218080, "deleted /sec");

    let l = load("zk-latencies", "yj7778826-size.result.txt");
    assert_eq!(l.blocks.len(), 7);
    let r = &l.blocks[0].runs[0];
    assert_eq!(text(r, "calls"), "asynchronous");
    close(r.params["znode_count"].as_f64(), 10000.0, "count");
    close(val(r, "created_permanent_total"), 3280.0, "created ms");
    close(val(r, "created_permanent_latency"), 0.328070, "ms/op");
    close(val(r, "created_permanent_rate"), 3048.128008, "/sec");
    close(val(r, "get_rate"), 6685.041495, "get /sec");
    close(val(r, "notif_watches_total"), 0.0, "notif ms");
    let r = &l.blocks[1].runs[0];
    close(val(r, "set_total"), 15262.0, "set ms");
    close(val(r, "set_rate"), 655.207183, "set /sec");
    let r = &l.blocks[6].runs[0];
    close(val(r, "deleted_ephemeral_total"), 22528.0, "deleted ms");
    close(val(r, "deleted_ephemeral_rate"), 443.883179, "deleted /sec");
}

#[test]
fn zookeeper() {
    let l = load("zookeeper", "clickhouse-keeper-docs-4lw.md.txt");
    let mntr = &l.blocks[0].runs[0];
    close(val(mntr, "zk_packets_received"), 68.0, "packets received");
    close(val(mntr, "zk_approximate_data_size"), 723.0, "data size");
    close(
        val(mntr, "zk_max_file_descriptor_count"),
        10240.0,
        "max fds",
    );
    let srvr = &l.blocks[1].runs[0];
    assert_eq!(text(srvr, "server"), "clickhouse-keeper");
    close(val(srvr, "received"), 2.0, "received");
    close(val(srvr, "sent"), 2.0, "sent");
    assert_eq!(text(srvr, "zxid"), "34");
    close(val(srvr, "node_count"), 4.0, "node count");
    let stat = &l.blocks[2].runs[0];
    close(val(stat, "received"), 4.0, "received");
    assert_eq!(text(stat, "zxid"), "36");
    assert_eq!(text(stat, "mode"), "leader");
    close(val(stat, "clients"), 2.0, "clients");

    let l = load("zookeeper", "myblog-zookeeper-4lw-notes-zh.md.txt");
    assert_eq!(l.blocks.len(), 1, "the template is not an output");
    let r = &l.blocks[0].runs[0];
    close(val(r, "latency_min"), 0.0, "min");
    close(val(r, "latency_avg"), 0.0, "avg");
    close(val(r, "latency_max"), 599.0, "max");
    close(val(r, "received"), 224869.0, "received");
    close(val(r, "sent"), 224817.0, "sent");
    close(val(r, "connections"), 23.0, "connections");
    assert_eq!(text(r, "zxid"), "0x68000af707");
    close(val(r, "node_count"), 101081.0, "node count");

    let l = load("zookeeper", "circonus-docs-apache-zookeeper.md.txt");
    let r = &l.blocks[0].runs[0];
    close(val(r, "zk_packets_received"), 8.0, "received");
    close(val(r, "zk_packets_sent"), 7.0, "sent");
    close(val(r, "zk_znode_count"), 129.0, "znodes");
    close(val(r, "zk_approximate_data_size"), 10044.0, "data size");
    close(val(r, "zk_max_file_descriptor_count"), 4096.0, "max fds");
    assert_eq!(text(r, "zk_server_state"), "standalone");

    let l = load("zookeeper", "zookeeper-contrib-monitoring-test.py.txt");
    let mntr = l
        .blocks
        .iter()
        .find(|b| {
            b.runs[0]
                .series
                .iter()
                .any(|s| s.metric == "zk_avg_latency")
        })
        .unwrap();
    let r = &mntr.runs[0];
    close(val(r, "zk_avg_latency"), 1.0, "avg latency");
    close(val(r, "zk_max_latency"), 132.0, "max latency");
    close(val(r, "zk_packets_received"), 640.0, "received");
    close(val(r, "zk_max_file_descriptor_count"), 1024.0, "max fds");
    let stat = l
        .blocks
        .iter()
        .find(|b| b.runs[0].series.iter().any(|s| s.metric == "latency_avg"))
        .unwrap();
    let r = &stat.runs[0];
    close(val(r, "latency_min"), 0.0, "min");
    close(val(r, "latency_avg"), 40.0, "avg");
    close(val(r, "latency_max"), 121.0, "max");
    close(val(r, "received"), 11.0, "received");
    assert_eq!(text(r, "zxid"), "0x700000003");
    close(val(r, "node_count"), 4.0, "node count");

    let l = load("zookeeper", "zookeeper-contrib-monitoring-README.txt");
    let r = &l.blocks[0].runs[0];
    close(val(r, "zk_avg_latency"), 141.0, "avg");
    close(val(r, "zk_max_latency"), 1788.0, "max");
    close(val(r, "zk_packets_received"), 385466.0, "received");
    close(val(r, "zk_packets_sent"), 435364.0, "sent");
    close(val(r, "zk_num_alive_connections"), 1.0, "connections");
    close(val(r, "zk_approximate_data_size"), 41.0, "data size");

    // The example sits past 64 KiB of a 137 KB page; notes follow its values.
    let l = load("zookeeper", "zookeeper-docs-3.8-zookeeperAdmin.md.txt");
    let r = &l.blocks[0].runs[0];
    close(val(r, "zk_avg_latency"), 0.7561, "avg");
    close(val(r, "zk_packets_received"), 70.0, "received");
    close(val(r, "zk_znode_count"), 4.0, "znodes");
    close(val(r, "zk_followers"), 4.0, "followers");
    close(val(r, "zk_open_file_descriptor_count"), 23.0, "open fds");
    close(val(r, "zk_max_file_descriptor_count"), 1024.0, "max fds");

    let l = load("zookeeper", "bookkeeper-tutorial-README.md.txt");
    let r = &l.blocks[0].runs[0];
    close(val(r, "latency_max"), 23.0, "max");
    close(val(r, "received"), 167.0, "received");
    close(val(r, "sent"), 170.0, "sent");
    close(val(r, "connections"), 6.0, "connections");
    assert_eq!(text(r, "zxid"), "0x11");
    close(val(r, "node_count"), 16.0, "node count");

    // Three servers, each labelled by its own lead line (`**Results:**`).
    let l = load("zookeeper", "zookeeper-in-docker-swarm-3-servers.md.txt");
    for b in &l.blocks[..3] {
        assert_eq!(b.label.as_deref(), Some("Results"));
    }
    let zoo1 = &l.blocks[0].runs[0];
    close(val(zoo1, "received"), 3.0, "zoo1 received");
    assert_eq!(text(zoo1, "zxid"), "0x0");
    assert_eq!(text(zoo1, "mode"), "follower");
    let zoo2 = &l.blocks[1].runs[0];
    close(val(zoo2, "received"), 2.0, "zoo2 received");
    assert_eq!(text(zoo2, "zxid"), "0x100000000");
    let zoo3 = &l.blocks[2].runs[0];
    close(val(zoo3, "received"), 12.0, "zoo3 received");
    close(val(zoo3, "sent"), 11.0, "zoo3 sent");
    assert_eq!(text(zoo3, "mode"), "leader");
    assert!(
        !zoo3.series.iter().any(|s| s.metric == "proposal_size_last"),
        "-1 is not measured: no series"
    );
    let mntr = l
        .blocks
        .iter()
        .find(|b| b.runs[0].series.iter().any(|s| s.metric == "zk_followers"))
        .unwrap();
    let r = &mntr.runs[0];
    close(val(r, "zk_packets_received"), 18.0, "received");
    close(val(r, "zk_max_file_descriptor_count"), 1048576.0, "max fds");
    close(val(r, "zk_followers"), 2.0, "followers");
    assert_eq!(
        text(r, "zk_server_state"),
        "leader",
        "the note after it is gone"
    );
}

#[test]
fn jlbh() {
    let e2e = "end_to_end";
    let l = load("jlbh", "chronicle-queue-contended-writes.adoc.txt");
    assert_eq!(l.blocks.len(), 4);
    // `==== Double-Buffer Disabled` (line 34) and `… Enabled` (53) under `=== 1 KB
    // messages` (33), then both again under `=== 4 KB messages` (72): four settings.
    let labels: Vec<_> = l.blocks.iter().map(|b| b.label.as_deref()).collect();
    assert_eq!(
        labels,
        [
            Some("Benchmarks / 1 KB messages / Double-Buffer Disabled"),
            Some("Benchmarks / 1 KB messages / Double-Buffer Enabled"),
            Some("Benchmarks / 4 KB messages / Double-Buffer Disabled"),
            Some("Benchmarks / 4 KB messages / Double-Buffer Enabled"),
        ]
    );
    // All eight tables stop at `99.7:` and close with dashes: each is warned about.
    assert_eq!(l.warnings.len(), 8, "{:?}", l.warnings);
    assert_eq!(l.warnings[0].0, 41);
    assert!(
        l.warnings[0]
            .1
            .contains("SUMMARY (Concurrent) table from line 36 ends at 99.7 (no worst row)"),
        "{:?}",
        l.warnings
    );
    let b = &l.blocks[0];
    close(pct(&b.runs[0], "concurrent", 50.0), 90.40, "run1 50");
    close(
        printed(b, "concurrent", Some(90.0), "variation_pct"),
        36.14,
        "90 % Variation",
    );
    close(pct(&b.runs[2], "concurrent", 99.7), 217.28, "run3 99.7");
    close(
        pct(&b.runs[2], "concurrent2", 99.0),
        215.49,
        "Concurrent2 run3 99",
    );
    let b = &l.blocks[1];
    close(pct(&b.runs[1], "concurrent", 99.7), 185.92, "run2 99.7");

    // 14 tables cut at 99.9 by their author: every one kept, each with a warning.
    let l = load("jlbh", "chronicle-queue-demo-2019-throughput-test.txt");
    assert_eq!(l.blocks.len(), 14);
    assert_eq!(l.warnings.len(), 14, "{:?}", l.warnings);
    assert!(l.warnings[0].1.contains("ends at 99.9 (no worst row)"));
    let b = &l.blocks[0];
    close(pct(&b.runs[3], e2e, 99.7), 1105.41, "run4 99.7");
    close(
        printed(b, e2e, Some(99.0), "variation_pct"),
        35.34,
        "99 % Variation",
    );
    let b = labelled(&l.blocks, "-Dthroughput=150000");
    close(pct(&b.runs[4], e2e, 99.9), 15994.88, "run5 99.9");
    let b = labelled(&l.blocks, "-Dthroughput=900000");
    close(pct(&b.runs[1], e2e, 99.0), 10047.49, "run2 99");
    let b = labelled(&l.blocks, "-Dthroughput=1600000");
    close(pct(&b.runs[4], e2e, 99.9), 27303.94, "run5 99.9");
    // Each lead line states its table's rate; the three unmarked tables (lines 1, 54 and
    // 71, after a blank line) state none and inherit no other table's label.
    let rate = |b: &Block| match b.runs[0].params.get("target_throughput") {
        Some(Param::Num(r)) if b.runs[0].config.contains("target_throughput") => Some(*r),
        _ => None,
    };
    assert_eq!(rate(b), Some(1_600_000.0));
    let unmarked: Vec<(u64, Option<String>, Option<f64>)> = l
        .blocks
        .iter()
        .filter(|b| !b.label.as_deref().is_some_and(|l| l.contains("throughput")))
        .map(|b| (b.first_line, b.label.clone(), rate(b)))
        .collect();
    assert_eq!(
        unmarked,
        [(1, None, None), (54, None, None), (71, None, None)]
    );
    close(
        printed(b, e2e, Some(99.9), "variation_pct"),
        33.99,
        "99.9 % Variation",
    );

    let l = load("jlbh", "chronicle-queue-demo-OMSBenchmarkMain.java.txt");
    assert_eq!(l.blocks.len(), 5);
    let b = labelled(&l.blocks, "- default");
    close(pct(&b.runs[4], e2e, 50.0), 1.15, "run5 50");
    close(
        printed(b, e2e, Some(50.0), "variation_pct"),
        7.32,
        "50 % Variation",
    );
    let b = labelled(
        &l.blocks,
        "SelfDescribingMarshallable - with code generation",
    );
    close(pct(&b.runs[0], e2e, 99.9), 6.30, "run1 99.9");
    let b = labelled(&l.blocks, "with code generation + MethodIds");
    close(pct(&b.runs[3], e2e, 99.7), 2.08, "run4 99.7");
    let b = labelled(&l.blocks, "windows laptop");
    close(pct(&b.runs[1], e2e, 100.0), 28090.37, "run2 worst");
    close(
        printed(b, e2e, Some(100.0), "variation_pct"),
        94.73,
        "worst % Variation",
    );

    // The last table is cut at 99.0 at the end of the file.
    let l = load(
        "jlbh",
        "chronicle-queue-demo-2025-account-benchmark-results.txt",
    );
    assert_eq!(l.blocks.len(), 3);
    assert_eq!(l.warnings.len(), 2, "{:?}", l.warnings);
    assert!(l.warnings[1].1.contains("ends at 99 (no worst row)"));
    let b = &l.blocks[0];
    close(pct(&b.runs[0], e2e, 99.97), 2021.38, "run1 99.97");
    close(
        printed(b, e2e, Some(100.0), "variation_pct"),
        54.02,
        "worst % Variation",
    );
    close(pct(&l.blocks[1].runs[2], e2e, 99.7), 191.74, "run3 99.7");
    let b = &l.blocks[2];
    assert_eq!(b.label.as_deref(), Some("-Dthroughput=20000"));
    close(pct(&b.runs[1], e2e, 99.0), 250.62, "run2 99.0");
    close(
        printed(b, e2e, Some(99.0), "variation_pct"),
        72.53,
        "99.0 % Variation",
    );

    let l = load("jlbh", "chronicle-wire-WireExchangerPerfMain.java.txt");
    assert_eq!(l.blocks.len(), 2);
    let b = &l.blocks[0];
    close(pct(&b.runs[0], e2e, 100.0), 19.17, "run1 worst");
    close(
        printed(b, e2e, Some(100.0), "variation_pct"),
        81.06,
        "worst % Variation",
    );
    close(pct(&b.runs[1], e2e, 99.999), 1.61, "run2 99.999");
    let b = labelled(&l.blocks, "On Windows, (without affinity)");
    close(pct(&b.runs[0], e2e, 100.0), 295.42, "run1 worst");
    close(
        printed(b, e2e, Some(99.7), "variation_pct"),
        40.00,
        "99.7 % Variation",
    );
    close(pct(&b.runs[4], e2e, 99.97), 15.70, "run5 99.97");

    // Markdown pipe tables and a run header joined to `Run time:` by the translator.
    let l = load("jlbh", "introductiontojlbh-zh-JLBH_Examples_3.md.txt");
    assert_eq!(l.blocks.len(), 1);
    let b = &l.blocks[0];
    assert_eq!(b.runs.len(), 3);
    close(pct(&b.runs[0], e2e, 99.9), 20447.23, "RUN 1 99.9 (table)");
    close(
        b.runs[0].series[0].ladder().unwrap()[3].line_value,
        20450.0,
        "RUN 1 99.9 (probe line 20,450)",
    );
    close(
        pct(&b.runs[2], "os_jitter", 100.0),
        184.0,
        "RUN 3 OS Jitter worst",
    );
    close(pct(&b.runs[1], e2e, 50.0), 41.98, "run2 50");
    close(
        printed(b, e2e, Some(50.0), "variation_pct"),
        13.91,
        "50 % Variation",
    );
    close(
        pct(&b.runs[1], "client2server", 100.0),
        2555.90,
        "run2 worst",
    );
    close(
        pct(&b.runs[2], "server2clientprobe", 99.99),
        225.28,
        "run3 99.99",
    );

    // A run block that starts at `Run time:` with no RUN header is a run of its own,
    // beside the five runs of the summary tables.
    let l = load("jlbh", "introductiontojlbh-zh-first-commit-Intro.md.txt");
    assert_eq!(l.blocks.len(), 2);
    let r = &l.blocks[0].runs[0];
    close(r.params["run_time_s"].as_f64(), 100.001, "run time");
    close(
        r.params["target_throughput"].as_f64(),
        50000.0,
        "throughput",
    );
    close(pct(r, e2e, 99.99), 121.0, "End to End 99.99");
    close(pct(r, e2e, 100.0), 541.0, "End to End worst");
    close(pct(r, "os_jitter", 100.0), 217.0, "OS Jitter worst");
    let b = &l.blocks[1];
    let mid = "acceptor_2_95_on_mid";
    let nos = "acceptor_3_parse_nos";
    close(pct(&b.runs[3], mid, 99.9), 0.78, "run4 99.9");
    close(
        printed(b, mid, Some(99.99), "var_log"),
        9.30,
        "99.99 var(log)",
    );
    close(pct(&b.runs[4], nos, 100.0), 2.88, "run5 worst");
    close(
        printed(b, nos, Some(100.0), "variation_pct"),
        11.51,
        "worst % Variation",
    );

    // Two summary rows joined on one line; empty var(log) cells.
    let l = load(
        "jlbh",
        "introductiontojlbh-zh-first-commit-JLBH_Examples_3.md.txt",
    );
    let b = &l.blocks[0];
    close(pct(&b.runs[2], e2e, 99.9), 2162.69, "run3 99.9");
    close(
        printed(b, e2e, Some(99.9), "variation_pct"),
        47.62,
        "99.9 % Variation",
    );
    close(
        pct(&b.runs[1], e2e, 99.99),
        5373.95,
        "run2 99.99 (joined line)",
    );
    close(pct(&b.runs[0], e2e, 100.0), 20447.23, "run1 worst");
    close(
        pct(&b.runs[1], "client2server", 100.0),
        2555.90,
        "run2 worst",
    );
    close(
        b.runs[1].series[0].ladder().unwrap()[2].line_value,
        4590.0,
        "RUN 2 End to End 99 (probe line)",
    );

    // Seven bare tables, each after its lead line; a cut `Percentil` header cell; a
    // var(log) table; a 5-run table without `% Variation`.
    for file in [
        "introductiontojlbh-zh-JLBH_Examples_4.md.txt",
        "introductiontojlbh-zh-first-commit-JLBH_Examples_4.md.txt",
    ] {
        let l = load("jlbh", file);
        assert_eq!(l.blocks.len(), 7, "{file}");
        let b = labelled(&l.blocks, "2,000/s");
        close(pct(&b.runs[2], e2e, 99.0), 69206.02, "2,000/s run3 99");
        close(pct(&b.runs[2], e2e, 99.9), 163577.86, "2,000/s run3 99.9");
        close(
            printed(b, e2e, Some(100.0), "variation_pct"),
            30.54,
            "worst % Variation",
        );
        close(
            printed(&l.blocks[1], e2e, Some(99.0), "variation_pct"),
            37.56,
            "10,000/s 99 % Variation",
        );
        let b = &l.blocks[2];
        close(printed(b, e2e, Some(90.0), "var_log"), 21.01, "90 var(log)");
        close(printed(b, e2e, Some(99.0), "var_log"), 25.26, "99 var(log)");
        close(pct(&l.blocks[4].runs[0], e2e, 100.0), 1146.88, "run1 worst");
        close(pct(&l.blocks[5].runs[1], e2e, 99.9), 352.26, "run2 99.9");
        let b = &l.blocks[6];
        assert_eq!(b.runs.len(), 5);
        assert!(b.printed.is_empty());
        close(pct(&b.runs[2], e2e, 100.0), 22.02, "run3 worst");
        close(pct(&b.runs[4], e2e, 99.99), 6.02, "run5 99.99");
    }

    // The same, list-indented, with pipe tables whose first rows read `50:00:00`.
    let l = load("jlbh", "introductiontojlbh-zh-Intro.md.txt");
    assert_eq!(l.blocks.len(), 2);
    let r = &l.blocks[0].runs[0];
    close(pct(r, e2e, 50.0), 11.0, "End to End 50");
    close(pct(r, e2e, 100.0), 541.0, "End to End worst");
    let read = "acceptor_2_0_remaining_after_read";
    match &series(r, read).data {
        Data::Ladder { count, .. } => assert_eq!(*count, Some(20_649_126)),
        other => panic!("{other:?}"),
    }
    close(pct(r, read, 99.999), 1800.0, "8-value probe 99.999");
    close(pct(r, read, 100.0), 4590.0, "8-value probe worst");
    let b = &l.blocks[1];
    close(pct(&b.runs[2], nos, 99.0), 0.50, "run3 99");
    close(pct(&b.runs[1], nos, 100.0), 2.62, "run2 worst");
    close(
        printed(b, nos, Some(99.9), "var_log"),
        9.76,
        "99.9 var(log)",
    );
    close(pct(&b.runs[3], mid, 99.9), 0.78, "run4 99.9");
    close(pct(&b.runs[0], mid, 50.0), 0.09, "run1 50 (row 50:00:00)");

    // Chronicle Histogram probe lines on their own, no JLBH run or summary.
    let l = load(
        "jlbh",
        "chronicle-wire-BytesInBytesMarshallableMain.java.txt",
    );
    assert_eq!(l.blocks.len(), 2);
    let r = &labelled(&l.blocks, ".2.21.ea74").runs[0];
    close(pct(r, "read", 50.0), 0.222, "read 50");
    close(pct(r, "read", 99.99), 16.1, "read 99.99");
    close(pct(r, "read", 100.0), 98.6, "read worst");
    let r = &labelled(&l.blocks, ".latest").runs[0];
    close(pct(r, "write", 99.9), 0.309, "write 99.9");
    close(pct(r, "write", 99.9999), 28.9, "write 99.9999");
    close(pct(r, "write", 100.0), 53.4, "write worst");

    let l = load("jlbh", "chronicle-queue-File-size-benchmark.txt");
    assert_eq!(l.blocks.len(), 10);
    let w = "write_histogram";
    let r = &l.blocks[0].runs[0];
    close(pct(r, w, 50.0), 0.46, "64 B write 50");
    close(pct(r, w, 99.9999), 2320.0, "64 B write 99.9999");
    close(pct(r, w, 100.0), 7260.0, "64 B write worst");
    close(
        pct(&l.blocks[1].runs[0], "transport_histogram", 50.0),
        0.091,
        "256 B transport 50",
    );
    close(
        pct(&l.blocks[4].runs[0], w, 100.0),
        22350.0,
        "16 KiB write worst",
    );
    let r = &l.blocks[9].runs[0];
    close(pct(r, w, 50.0), 13530.0, "16 MiB write 50");
    close(pct(r, w, 100.0), 215480.0, "16 MiB write worst");

    let l = load(
        "jlbh",
        "chronicle-queue-ChronicleQueueLatencyDistribution.java.txt",
    );
    let r = &labelled(&l.blocks, "27/10/2015").runs[0];
    close(pct(r, "latency", 50.0), 1.5, "MBP 50");
    close(pct(r, "latency", 99.9), 3740.0, "MBP 99.9");
    close(pct(r, "latency", 100.0), 36700.0, "MBP worst");
    let r = &labelled(&l.blocks, "14/03/2016").runs[0];
    close(pct(r, "latency", 99.99), 72.0, "E5-2650v2 99.99");
    close(pct(r, "latency", 100.0), 483.0, "E5-2650v2 worst");
    let r = &labelled(&l.blocks, "1.2M/s").runs[0];
    close(pct(r, "latency", 99.9999), 3600.0, "1.2M/s 99.9999");
    close(pct(r, "latency", 100.0), 3600.0, "1.2M/s worst");
}

#[test]
fn qps_table() {
    // Pipe tables without outer pipes, rows named by their first cell, QPS in 万 (`w`).
    let l = load("qps-table", "brpc-docs-cn-thrift.md.txt");
    assert_eq!(l.blocks.len(), 3);
    let r = &l.blocks[0].runs[0];
    assert_eq!(text(r, "框架"), "native thrift");
    close(r.params["线程数"].as_f64(), 60.0, "threads");
    close(val(r, "qps"), 69000.0, "QPS 6.9w");
    close(val(r, "平响"), 0.9, "RT");
    assert_eq!(series(r, "平响").unit, "ms");
    close(val(r, "cpu利用率"), 2.8, "cpu");
    let r = &l.blocks[0].runs[1];
    assert_eq!(text(r, "框架"), "brpc thrift");
    close(val(r, "qps"), 300000.0, "QPS 30w");
    let r = &l.blocks[2].runs[1];
    close(val(r, "qps"), 21000.0, "QPS 2.1w");
    close(val(r, "平响"), 2.9, "RT");
    close(val(r, "cpu利用率"), 93.0, "cpu");

    let l = load("qps-table", "brpc-docs-en-thrift.md.txt");
    assert_eq!(l.blocks.len(), 3);
    let r = &l.blocks[1].runs[0];
    assert_eq!(text(r, "framework"), "native thrift");
    close(r.params["threads_num"].as_f64(), 60.0, "Threads Num");
    close(val(r, "qps"), 52000.0, "QPS 5.2w");
    close(val(r, "avg_lantecy"), 1.1, "Avg lantecy");
    close(val(r, "cpu"), 4.5, "CPU");
    let r = &l.blocks[1].runs[1];
    close(val(r, "qps"), 195000.0, "QPS 19.5w");
    close(val(r, "cpu"), 22.0, "CPU");
    close(val(&l.blocks[2].runs[0], "avg_lantecy"), 3.5, "Avg lantecy");
}

#[test]
fn hyperfine_terminal_in_ansi_colour() {
    // `hyperfine --style=full … > bench.ans`: every word wrapped in SGR sequences.
    let l = load("hyperfine", "process-info-bench-bench.ans");
    let runs: Vec<&Run> = l.blocks.iter().flat_map(|b| &b.runs).collect();
    assert_eq!(runs.len(), 5);
    let benches: Vec<_> = runs.iter().map(|r| r.bench.as_deref().unwrap()).collect();
    assert_eq!(
        benches,
        ["gcc.exe", "g++.exe", "clang.exe", "rust.exe", "msvc.exe"]
    );
    let time = |i: usize| val(runs[i], "time");
    close(time(0), 50.1, "gcc.exe mean");
    close(time(2), 48.0, "clang.exe mean");
    close(time(4), 50.8, "msvc.exe mean");
    assert_eq!(series(runs[0], "time").unit, "ms");
}

#[test]
fn jmh_cp1252_res_with_unreadable_cells() {
    // Windows JMH 1.23 output saved in cp1252: `±` is byte 0xB1, `·` 0xB7, and
    // `≈ 10⁻⁴` became `? 10??`, which cannot be read back: each such cell is left out
    // with one warning, everything else is stored.
    let l = load(
        "jmh",
        "born-to-be-mad-natural-number-generator-ALL-graalvm.res",
    );
    assert_eq!(l.warnings.len(), 1, "{:?}", l.warnings);
    let (line, message) = &l.warnings[0];
    assert_eq!(*line, 524);
    assert!(message.contains("`? 10??`"), "{message}");
    // 2 methods × 3 sizes × 4 modes.
    assert_eq!(l.blocks.len(), 24);
    let block = |method: &str, number: f64, mode: &str| {
        l.blocks
            .iter()
            .find(|b| {
                let r = &b.runs[0];
                r.bench.as_deref().is_some_and(|n| n.ends_with(method))
                    && r.params.get("number") == Some(&Param::Num(number))
                    && r.series[0].metric == mode
            })
            .unwrap_or_else(|| panic!("no block {method} {number} {mode}"))
    };
    let b = block(".generateViaIteration", 10.0, "thrpt");
    assert_eq!(b.runs.len(), 25);
    close(val(&b.runs[0], "thrpt"), 21700544.572, "first iteration");
    close(
        printed(b, "thrpt", None, "score"),
        21574987.817,
        "table score",
    );
    close(
        printed(b, "thrpt", None, "score_error"),
        100131.736,
        "table error (± as 0xB1)",
    );
    let b = block(".streamMethod", 1e6, "thrpt");
    close(
        printed(b, "thrpt", None, "score"),
        44.097,
        "streamMethod 1e6",
    );
    let b = block(".generateViaIteration", 1e6, "avgt");
    close(printed(b, "avgt", None, "score"), 0.020, "avgt score");
    close(printed(b, "avgt", None, "score_error"), 0.001, "avgt error");
    // `? 10??`: the iterations and the table score are absent, the row's count is kept.
    let b = block(".generateViaIteration", 10.0, "avgt");
    assert_eq!(b.runs.len(), 25);
    assert_eq!(val(&b.runs[0], "avgt"), None);
    close(printed(b, "avgt", None, "count"), 25.0, "avgt count");
    assert!(!b.printed.iter().any(|p| p.name == "score"));
    // `·p0.50` written with byte 0xB7 is still a percentile of the sample ladder.
    let b = block(".generateViaIteration", 1e6, "sample");
    close(printed(b, "sample", None, "count"), 12155.0, "sample count");
    assert!(b.printed.iter().any(|p| p.name == "score_percentile"));
    assert!(!b.printed.iter().any(|p| p.metric.contains("p0")));
    let b = block(".streamMethod", 1e6, "ss");
    close(printed(b, "ss", None, "score"), 0.035, "ss score");
}

#[test]
fn jmh_log_in_a_decimal_comma_locale() {
    // JMH formats numbers in the JVM's locale: `147,781 ops/s`, `151,617 ± 5,688`, and
    // `(min, avg, max) = (147,781, 151,617, 153,168)` whose separator is `, `.
    let l = load("jmh", "hzt-utils-sort-double-list-20220531.md");
    assert!(l.warnings.is_empty(), "{:?}", l.warnings);
    assert_eq!(l.blocks.len(), 5);
    let b = &l.blocks[0];
    assert_eq!(
        b.runs[0].bench.as_deref(),
        Some("benchmark.prefix.DoubleTimSortBenchmark.arraySort")
    );
    // @Fork(2) × 3 iterations, each run knowing its fork.
    assert_eq!(b.runs.len(), 6);
    let forks: Vec<Option<&Param>> = b.runs.iter().map(|r| r.params.get("fork")).collect();
    assert_eq!(forks[2], Some(&Param::Num(1.0)));
    assert_eq!(forks[3], Some(&Param::Num(2.0)));
    close(val(&b.runs[0], "thrpt"), 147.781, "fork 1 iteration 1");
    close(val(&b.runs[5], "thrpt"), 153.023, "fork 2 iteration 3");
    close(printed(b, "thrpt", None, "score"), 151.617, "score");
    close(printed(b, "thrpt", None, "score_error"), 5.688, "error");
    close(printed(b, "thrpt", Some(0.0), "min"), 147.781, "min");
}
