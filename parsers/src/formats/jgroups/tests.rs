//! Tests of the JGroups parser against the seed, the published samples and the fixtures.

use super::*;
use crate::model::{Data, Parsed};
use crate::testutil::{parse_ok, shared};
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> Vec<u8> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures")
        .join(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn blocks(bytes: &[u8]) -> Vec<Block> {
    parse_ok(&FORMAT, bytes)
}

fn items(bytes: &[u8]) -> Vec<Result<Parsed, ParseError>> {
    parse(Box::new(bytes)).collect()
}

fn first_error(bytes: &[u8]) -> ParseError {
    items(bytes)
        .into_iter()
        .find_map(Result::err)
        .expect("a parse error")
}

fn warnings(bytes: &[u8]) -> Vec<(u64, String)> {
    items(bytes)
        .into_iter()
        .filter_map(|r| match r {
            Ok(Parsed::Warning { line, message }) => Some((line, message)),
            _ => None,
        })
        .collect()
}

/// The runs of `block` but the one of perf.Test's `combined:` line.
fn member_runs(block: &Block) -> impl Iterator<Item = &Run> {
    block
        .runs
        .iter()
        .filter(|r| r.params.get("member") != Some(&Param::Text("combined".into())))
}

/// The single value of `metric` in each member run of `block`.
fn values(block: &Block, metric: &str) -> Vec<f64> {
    member_runs(block)
        .map(|r| {
            let s = r
                .series
                .iter()
                .find(|s| s.metric == metric)
                .unwrap_or_else(|| panic!("run {} has no {metric}", r.index));
            match s.data {
                Data::Value { value: Some(v) } => v,
                ref d => panic!("{metric} is {d:?}"),
            }
        })
        .collect()
}

fn unit(block: &Block, metric: &str) -> String {
    let units: Vec<&str> = block
        .runs
        .iter()
        .flat_map(|r| r.series.iter().filter(|s| s.metric == metric))
        .map(|s| s.unit.as_str())
        .collect();
    assert!(
        units.windows(2).all(|w| w[0] == w[1]),
        "{metric}: {units:?}"
    );
    units[0].to_string()
}

fn printed(block: &Block) -> Vec<(String, String, f64)> {
    block
        .printed
        .iter()
        .map(|p| (p.metric.clone(), p.name.clone(), p.value.unwrap()))
        .collect()
}

fn stat(block: &Block, metric: &str, name: &str) -> f64 {
    block
        .printed
        .iter()
        .find(|p| p.metric == metric && p.name == name)
        .and_then(|p| p.value)
        .unwrap_or_else(|| panic!("no {metric}.{name}"))
}

fn param(run: &Run, key: &str) -> Param {
    run.params
        .get(key)
        .cloned()
        .unwrap_or_else(|| panic!("run {} has no {key}", run.index))
}

fn members(block: &Block) -> Vec<String> {
    member_runs(block)
        .map(|r| match param(r, "member") {
            Param::Text(t) => t,
            p => panic!("member {p:?}"),
        })
        .collect()
}

/// The run of perf.Test's `combined:` line.
fn combined_run(block: &Block) -> &Run {
    block
        .runs
        .iter()
        .find(|r| r.params.get("member") == Some(&Param::Text("combined".into())))
        .expect("a combined run")
}

/// Each series of `run` as (metric, value).
fn series_values(run: &Run) -> Vec<(String, f64)> {
    run.series
        .iter()
        .map(|s| match s.data {
            Data::Value { value: Some(v) } => (s.metric.clone(), v),
            ref d => panic!("{} is {d:?}", s.metric),
        })
        .collect()
}

fn indices(block: &Block) -> Vec<u32> {
    block.runs.iter().map(|r| r.index).collect()
}

fn sample(name: &str) -> Option<Vec<u8>> {
    let p = shared("samples/jgroups")?.join(name);
    Some(std::fs::read(p).expect("sample readable"))
}

#[test]
fn seed_002_four_tables_with_labels_values_and_config() {
    let Some(seeds) = shared("seeds") else { return };
    let bytes = std::fs::read(seeds.join("002_a14823897dac979e.txt")).unwrap();
    let b = blocks(&bytes);
    assert_eq!(b.len(), 4);
    let labels: Vec<_> = b.iter().map(|b| b.label.as_deref()).collect();
    assert_eq!(
        labels,
        [
            Some("测试结果如下"),
            Some("Test results using TCP"),
            Some(
                "A 20 million message test was also run to ensure that there are no memory leaks."
            ),
            Some(
                "A 20 million message test was also run to ensure that there are no memory leaks."
            ),
        ]
    );
    let default = [13402.0, 13155.0, 13344.0, 13107.0];
    let tcp = [13490.0, 13462.0, 13476.0, 13440.0];
    assert_eq!(values(&b[0], "msgs_per_sec"), default);
    assert_eq!(values(&b[1], "msgs_per_sec"), tcp);
    assert_eq!(values(&b[2], "msgs_per_sec"), default);
    assert_eq!(values(&b[3], "msgs_per_sec"), tcp);
    assert!(b[1].label.as_deref().unwrap().contains("TCP"));
    // Vertical tables span the run-number and value lines; the tab repeats one line per run.
    assert_eq!((b[0].first_line, b[0].last_line), (15, 33));
    assert_eq!((b[1].runs[0].first_line, b[1].runs[0].last_line), (41, 43));
    assert_eq!((b[2].first_line, b[2].last_line), (59, 63));
    assert_eq!((b[3].first_line, b[3].last_line), (65, 69));
    for block in &b {
        assert_eq!(indices(block), [1, 2, 3, 4]);
        assert_eq!(unit(block, "msgs_per_sec"), "msgs/s");
        assert!(block.printed.is_empty());
        for run in &block.runs {
            assert_eq!(run.series[0].display, "Number of messages read per second");
            // The config.txt line comes after the tables and still applies to them.
            assert_eq!(param(run, "num_msgs"), Param::Num(1_000_000.0));
            assert_eq!(param(run, "msg_size"), Param::Num(1000.0));
            assert_eq!(param(run, "num_members"), Param::Num(4.0));
            assert_eq!(param(run, "num_senders"), Param::Num(4.0));
            assert_eq!(run.params.len(), 4, "{:?}", run.params);
            assert_eq!(run.bench.as_deref(), Some("perf.Test"));
            let config: Vec<&str> = run.config.iter().map(String::as_str).collect();
            assert_eq!(
                config,
                ["msg_size", "num_members", "num_msgs", "num_senders"]
            );
        }
    }
    assert!(warnings(&bytes).is_empty());
}

#[test]
fn mperf_2013_manual_sample() {
    let Some(bytes) = sample("mperf-2013-manual-jgroups3.x-count-based.txt") else {
        return;
    };
    let b = blocks(&bytes);
    assert_eq!(b.len(), 1);
    let b = &b[0];
    assert_eq!(b.label, None);
    assert_eq!((b.first_line, b.last_line), (23, 31));
    assert_eq!(members(b), ["B", "A"]);
    assert_eq!(indices(b), [1, 2]);
    assert_eq!(values(b, "msgs"), [2e6, 2e6]);
    assert_eq!(values(b, "received"), [2e9, 2e9]);
    assert_eq!(values(b, "msgs_per_sec"), [137608.37, 137959.58]);
    assert_eq!(values(b, "throughput"), [137_610_000.0, 137_960_000.0]);
    assert_eq!(unit(b, "msgs"), "msgs");
    assert_eq!(unit(b, "received"), "bytes");
    assert_eq!(unit(b, "msgs_per_sec"), "msgs/s");
    assert_eq!(unit(b, "throughput"), "bytes/s");
    // This early variant prints no time=.
    assert!(b.runs.iter().all(|r| r.series.len() == 4));
    assert_eq!(
        printed(b),
        [
            ("msgs".into(), "avg_node".into(), 2e6),
            ("received".into(), "avg_node".into(), 2e9),
            ("msgs_per_sec".into(), "avg_node".into(), 137788.49),
            ("throughput".into(), "avg_node".into(), 137_790_000.0),
            ("msgs".into(), "avg_cluster".into(), 4e6),
            ("received".into(), "avg_cluster".into(), 4e9),
            ("msgs_per_sec".into(), "avg_cluster".into(), 275576.99),
            ("throughput".into(), "avg_cluster".into(), 275_580_000.0),
        ]
    );
    for run in &b.runs {
        assert_eq!(param(run, "num_msgs"), Param::Num(1_000_000.0));
        assert_eq!(run.params.len(), 2);
        assert_eq!(run.bench.as_deref(), Some("MPerf"));
        // The member is which replicate, not configuration.
        assert_eq!(run.config.iter().collect::<Vec<_>>(), ["num_msgs"]);
    }
}

#[test]
fn mperf_2016_manual_sample() {
    let Some(bytes) = sample("mperf-2016-manual-jgroups4-count-based.txt") else {
        return;
    };
    let b = blocks(&bytes);
    assert_eq!(b.len(), 1);
    let b = &b[0];
    assert_eq!(b.label, None);
    assert_eq!(members(b), ["A", "B"]);
    assert_eq!(values(b, "msgs"), [2e6, 2e6]);
    assert_eq!(values(b, "received"), [2e9, 2e9]);
    assert_eq!(values(b, "time"), [2646.0, 2642.0]);
    assert_eq!(unit(b, "time"), "ms");
    assert_eq!(values(b, "msgs_per_sec"), [755857.9, 757002.27]);
    assert_eq!(values(b, "throughput"), [755_860_000.0, 757_000_000.0]);
    assert_eq!(stat(b, "time", "avg_node"), 2644.0);
    assert_eq!(stat(b, "msgs_per_sec", "avg_node"), 756429.65);
    assert_eq!(stat(b, "throughput", "avg_node"), 756_430_000.0);
    assert_eq!(stat(b, "msgs", "avg_cluster"), 4e6);
    assert_eq!(stat(b, "received", "avg_cluster"), 4e9);
    assert_eq!(stat(b, "msgs_per_sec", "avg_cluster"), 1512859.3);
    assert_eq!(stat(b, "throughput", "avg_cluster"), 1.51e9);
    assert_eq!(b.printed.len(), 10);
    assert_eq!(param(&b.runs[0], "num_msgs"), Param::Num(1_000_000.0));
}

#[test]
fn uperf_2016_manual_sample() {
    let Some(bytes) = sample("uperf-2016-manual-jgroups3.6-count-based.txt") else {
        return;
    };
    let b = blocks(&bytes);
    assert_eq!(b.len(), 1);
    let b = &b[0];
    assert_eq!(b.label, None);
    assert_eq!((b.first_line, b.last_line), (6, 14));
    assert!(b.runs.iter().all(|r| r.bench.as_deref() == Some("UPerf")));
    assert_eq!(members(b), ["D", "A", "B", "C"]);
    assert_eq!(indices(b), [1, 2, 3, 4]);
    assert_eq!(
        values(b, "reqs_per_sec"),
        [23121.39, 22805.02, 24449.88, 22371.36]
    );
    assert_eq!(unit(b, "reqs_per_sec"), "reqs/s");
    assert_eq!(values(b, "gets"), [15813.0, 15826.0, 15807.0, 15826.0]);
    assert_eq!(values(b, "puts"), [4187.0, 4174.0, 4193.0, 4174.0]);
    assert_eq!(values(b, "get_rtt"), [971.37, 992.44, 873.63, 937.02]);
    assert_eq!(values(b, "put_rtt"), [1495.74, 1541.44, 1551.84, 1755.55]);
    assert_eq!(unit(b, "get_rtt"), "us");
    assert_eq!(unit(b, "put_rtt"), "us");
    assert_eq!(
        printed(b),
        [
            ("reqs_per_sec".into(), "per_node".into(), 23161.55),
            ("throughput".into(), "per_node".into(), 23_160_000.0),
            ("get_rtt".into(), "avg".into(), 932.4),
            ("put_rtt".into(), "avg".into(), 1646.17),
        ]
    );
    // The `invoking 20000 RPCs of 1KB, sync=true, …` line configures every run.
    for run in &b.runs {
        assert_eq!(param(run, "num_msgs"), Param::Num(20000.0));
        assert_eq!(param(run, "msg_size"), Param::Num(1000.0));
        assert_eq!(param(run, "sync"), Param::Bool(true));
        assert_eq!(param(run, "oob"), Param::Bool(true));
        assert_eq!(param(run, "msg_bundling"), Param::Bool(true));
        assert_eq!(run.params.len(), 6);
    }
}

#[test]
fn fixture_2006_tables_vertical_and_piped() {
    let b = blocks(&fixture("jgroups/table-2006.txt"));
    assert_eq!(b.len(), 2);
    assert_eq!(b[0].label.as_deref(), Some("Default transport (UDP)"));
    assert_eq!(values(&b[0], "msgs_per_sec"), [12001.0, 12345.0, 1200.0]);
    assert_eq!(b[1].label.as_deref(), Some("TCP results"));
    assert_eq!(values(&b[1], "msgs_per_sec"), [13490.0, 13462.0]);
    assert_eq!((b[1].first_line, b[1].last_line), (25, 28));
    for run in b.iter().flat_map(|b| &b.runs) {
        assert_eq!(param(run, "num_senders"), Param::Num(4.0));
    }
}

#[test]
fn fixture_mperf_time_based_with_ansi_and_parameters() {
    let b = blocks(&fixture("jgroups/mperf-time-based.txt"));
    assert_eq!(b.len(), 1);
    let b = &b[0];
    assert_eq!(members(b), ["A", "B"]);
    assert_eq!(values(b, "msgs"), [12_342_914.0, 12_345_678.0]);
    assert_eq!(values(b, "received"), [12.34e9, 12.35e9]);
    assert_eq!(values(b, "time"), [60012.0, 60011.0]);
    assert_eq!(values(b, "msgs_per_sec"), [205_674.1, 205_723.55]);
    assert_eq!(values(b, "throughput"), [205_670_000.0, 205_720_000.0]);
    assert_eq!(stat(b, "msgs_per_sec", "avg_node"), 205_700.22);
    assert_eq!(stat(b, "msgs_per_sec", "avg_cluster"), 411_400.44);
    assert_eq!(stat(b, "received", "avg_cluster"), 24.69e9);
    let run = &b.runs[0];
    assert_eq!(param(run, "time"), Param::Num(60.0));
    assert_eq!(param(run, "num_threads"), Param::Num(100.0));
    assert_eq!(param(run, "num_senders"), Param::Num(-1.0));
    assert_eq!(param(run, "oob"), Param::Bool(false));
    assert_eq!(param(run, "display_msg_src"), Param::Bool(true));
    assert_eq!(param(run, "run_by"), Param::Text("bela".into()));
    assert_eq!(
        param(run, "jgroups_version"),
        Param::Text("5.0.0.Final".into())
    );
}

/// Two MPerf outputs that differ in their banner's `Date:` are runs of one configuration:
/// the date and `Run by:` stay parameters, out of `config`.
#[test]
fn run_date_and_author_are_not_configuration() {
    let day1 = fixture("jgroups/mperf-time-based.txt");
    let text = String::from_utf8(day1.clone()).unwrap();
    let day2 = text.replace(
        "Date: Tue Sep 01 10:12:44 CEST 2020",
        "Date: Wed Sep 02 09:00:00 CEST 2020",
    );
    let (a, b) = (
        &blocks(&day1)[0].runs[0],
        &blocks(day2.as_bytes())[0].runs[0],
    );
    assert_eq!(a.config_params(), b.config_params());
    assert!(!a.config.contains("date") && !a.config.contains("run_by"));
    assert!(a.config.contains("jgroups_version") && a.config.contains("num_threads"));
    assert_eq!(
        param(a, "date"),
        Param::Text("Tue Sep 01 10:12:44 CEST 2020".into())
    );
    assert_eq!(
        param(b, "date"),
        Param::Text("Wed Sep 02 09:00:00 CEST 2020".into())
    );
    assert_eq!(param(b, "run_by"), Param::Text("bela".into()));
}

#[test]
fn fixture_uperf_with_ansi_grouping_and_a_silent_member() {
    let bytes = fixture("jgroups/uperf-ansi.txt");
    let b = blocks(&bytes);
    assert_eq!(b.len(), 1);
    let b = &b[0];
    assert_eq!(members(b), ["A", "B"]);
    assert_eq!(values(b, "reqs_per_sec"), [13081.1, 12990.42]);
    assert_eq!(values(b, "gets"), [314_005.0, 311_743.0]);
    assert_eq!(values(b, "put_rtt"), [1230.5, 1198.07]);
    assert_eq!(
        printed(b),
        [
            ("reqs_per_sec".into(), "per_node".into(), 13035.76),
            ("throughput".into(), "per_node".into(), 13_040_000.0),
            ("get_rtt".into(), "min".into(), 41.2),
            ("get_rtt".into(), "avg".into(), 74.08),
            ("get_rtt".into(), "max".into(), 9812.33),
            ("put_rtt".into(), "min".into(), 310.02),
            ("put_rtt".into(), "avg".into(), 1214.29),
            ("put_rtt".into(), "max".into(), 25001.9),
        ]
    );
    assert_eq!(
        warnings(&bytes),
        [(11, "UPerf member C gave no results: null".to_string())]
    );
}

#[test]
fn fixture_uperf_5_4_times_with_their_own_units() {
    let b = blocks(&fixture("jgroups/uperf-5.4-printtime.txt"));
    assert_eq!(b.len(), 1);
    let b = &b[0];
    assert_eq!(members(b), ["node-1-58213", "node-2-11937"]);
    assert_eq!(values(b, "get_rtt"), [73.06, 0.801]);
    assert_eq!(values(b, "put_rtt"), [1230.0, 1500.0]);
    assert_eq!(unit(b, "get_rtt"), "us");
    assert_eq!(stat(b, "get_rtt", "avg"), 37.43);
    assert_eq!(stat(b, "put_rtt", "avg"), 1360.0);
    assert_eq!(stat(b, "throughput", "per_node"), 39_500_000.0);
}

#[test]
fn fixture_perf_test_results_and_local_results() {
    let b = blocks(&fixture("jgroups/perftest-2006.txt"));
    assert_eq!(b.len(), 2);
    // A receiver's local view of each sender.
    assert_eq!(members(&b[0]), ["A", "B"]);
    assert_eq!(values(&b[0], "msgs_received"), [1e6, 999_000.0]);
    assert_eq!(values(&b[0], "loss_rate"), [0.0, 0.1]);
    assert_eq!(unit(&b[0], "loss_rate"), "%");
    assert!(b[0].printed.is_empty());
    // The final results, one member each, and the combined line.
    assert_eq!(members(&b[1]), ["A", "B"]);
    assert_eq!(values(&b[1], "msgs_per_sec"), [13485.72, 13405.2]);
    assert_eq!(values(&b[1], "time"), [148_305.0, 149_121.0]);
    assert_eq!(values(&b[1], "received"), [2e9, 2e9]);
    assert_eq!(
        printed(&b[1]),
        [
            ("msgs_per_sec".into(), "combined".into(), 13445.46),
            ("throughput".into(), "combined".into(), 13_450_000.0),
        ]
    );
    // …and the combined line as a run of its own, after the members'.
    let c = combined_run(&b[1]);
    assert_eq!(c.index, 3);
    assert_eq!(
        series_values(c),
        [
            ("combined_msgs_per_sec".to_string(), 13445.46),
            ("combined_throughput".to_string(), 13_450_000.0),
        ]
    );
    // The `key:<tab>value` lines under the TEST banner are the configuration.
    let run = &b[1].runs[0];
    assert_eq!(param(run, "num_msgs"), Param::Num(1e6));
    assert_eq!(param(run, "num_members"), Param::Num(2.0));
    assert_eq!(param(run, "jgroups_version"), Param::Text("2.3".into()));
}

#[test]
fn fixture_perf_test_2004_receiver_dumps() {
    let b = blocks(&fixture("jgroups/perftest-2004.txt"));
    assert_eq!(b.len(), 3);
    let senders = ["192.168.0.2:32781", "192.168.0.3:32790"];
    // The receiver's own dump has no heading; each `-- results from` is a block of its own.
    assert_eq!((b[0].first_line, b[0].last_line), (14, 17));
    assert_eq!((b[1].first_line, b[1].last_line), (19, 25));
    assert_eq!((b[2].first_line, b[2].last_line), (27, 31));
    for block in &b {
        assert_eq!(members(block), senders);
        assert_eq!(values(block, "msgs_received"), [100_000.0, 99_000.0]);
        assert_eq!(values(block, "received"), [100e6, 99e6]);
        assert_eq!(values(block, "throughput"), [12_310_000.0, 11_610_000.0]);
        assert_eq!(values(block, "loss_rate"), [0.0, 1.0]);
        assert_eq!(stat(block, "msgs_per_sec", "combined"), 23329.43);
        assert_eq!(stat(block, "msgs_received", "combined"), 199_000.0);
        let c = combined_run(block);
        let got = series_values(c);
        assert!(got.contains(&("combined_msgs_per_sec".to_string(), 23329.43)));
        assert!(got.contains(&("combined_time".to_string(), 8530.0)));
        assert!(got.contains(&("combined_msgs_received".to_string(), 199_000.0)));
        assert_eq!(
            c.params.get("receiver"),
            block.runs[0].params.get("receiver")
        );
        assert_eq!(block.printed.len(), 7);
        let run = &block.runs[0];
        assert_eq!(param(run, "num_msgs"), Param::Num(100_000.0));
        assert_eq!(param(run, "sender"), Param::Bool(false));
        assert_eq!(
            param(run, "props"),
            Param::Text("UDP(mcast_addr=228.8.8.8;mcast_port=45566):PING:pbcast.NAKACK".into())
        );
    }
    assert_eq!(b[0].runs[0].params.get("receiver"), None);
    assert_eq!(
        param(&b[1].runs[1], "receiver"),
        Param::Text(senders[0].into())
    );
    assert_eq!(
        param(&b[2].runs[0], "receiver"),
        Param::Text(senders[1].into())
    );
}

#[test]
fn fixtures_snapshot() {
    insta::glob!("../../../../fixtures/jgroups", "*.txt", |path| {
        let bytes = std::fs::read(path).unwrap();
        let out: Vec<serde_json::Value> = items(&bytes)
            .into_iter()
            .map(|item| match item {
                Ok(Parsed::Block(b)) => serde_json::to_value(b).unwrap(),
                Ok(Parsed::Warning { line, message }) => {
                    serde_json::json!({ "warning": { "line": line, "message": message } })
                }
                Err(e) => panic!("{}: {e}", path.display()),
            })
            .collect();
        insta::assert_json_snapshot!(out);
    });
}

#[test]
fn malformed_fixtures_name_the_line() {
    let e = first_error(&fixture("malformed/jgroups-garbage-number.txt"));
    assert_eq!(e.line, 6);
    assert!(
        e.message.contains("test run 3") && e.message.contains("'13x76'"),
        "{e}"
    );

    let e = first_error(&fixture("malformed/jgroups-truncated-table.txt"));
    assert_eq!(e.line, 11);
    assert_eq!(e.message, "table cut off: test run 2 (line 9) has no value");
}

/// MPerf results cut after the first `Average/node:` line
/// (`fixtures/jgroups/mperf-cut-before-averages.txt`): members A and B are complete.
#[test]
fn results_cut_at_the_end_keep_their_complete_members_with_a_warning() {
    let bytes = fixture("jgroups/mperf-cut-before-averages.txt");
    let b = blocks(&bytes);
    assert_eq!(b.len(), 1);
    assert_eq!(values(&b[0], "msgs_per_sec"), [755857.9, 757002.27]);
    assert_eq!(
        warnings(&bytes),
        [(
            9,
            "input ends inside the MPerf results that starts at line 3: \
             stored the 2 member line(s) printed in full"
                .to_string()
        )]
    );

    // UPerf cut inside member C's line: A, B and D are complete.
    let uperf = b"======================= Results: ===========================\n\
        D: 23121.39 reqs/sec (15813 gets, 4187 puts, get RTT 971.37 us, put RTT 1495.74 us)\n\
        A: 22805.02 reqs/sec (15826 gets, 4174 puts, get RTT 992.44 us, put RTT 1541.44 us)\n\
        B: 24449.88 reqs/sec (15807 gets, 4193 puts, get RTT 873.63 us, put RTT 1551.84 us)\n\
        C: 22371.36 ---\n\n";
    let b = blocks(uperf);
    assert_eq!(
        values(&b[0], "reqs_per_sec"),
        [23121.39, 22805.02, 24449.88]
    );
    let w = warnings(uperf);
    assert_eq!(w.len(), 2, "{w:?}");
    assert_eq!(w[1].0, 6);
    assert!(w[1].1.contains("stored the 3 member line(s)"), "{w:?}");

    // Cut before any member line printed in full: nothing to keep.
    let e = first_error(b"=== Results: ===\nC: 22371.36 ---\n");
    assert_eq!(
        e.message,
        "input ends inside the UPerf results that starts at line 1"
    );
}

#[test]
fn garbage_inside_result_lines_is_an_error() {
    let mperf = b"Results:\n\nA: 2000000 msgs, 2GB received, msgs/sec=1x3, throughput=1MB\n";
    let e = first_error(mperf);
    assert_eq!(e.line, 3);
    assert!(e.message.contains("'1x3'"), "{e}");

    let uperf =
        b"=== Results: ===\nA: 12.5 reqs/sec (1 gets, 2 puts, get RTT 3 parsecs, put RTT 4 us)\n";
    assert_eq!(first_error(uperf).line, 2);

    let cut = b"=== Results: ===\nA: 12.5 reqs/sec (1 GETs, 2 PUTs total)\nsomething else\n";
    let e = first_error(cut);
    assert_eq!(e.line, 3);
    assert!(e.message.starts_with("UPerf results cut off"), "{e}");

    let members_then_prose =
        b"Results:\n\nA: 1 msgs, 1KB received, msgs/sec=1, throughput=1KB\nprose\n";
    assert_eq!(first_error(members_then_prose).line, 4);

    let bad_size = b"Results:\n\nA: 1 msgs, 1XB received, msgs/sec=1, throughput=1KB\n";
    assert!(first_error(bad_size).message.contains("'1XB'"));

    let vertical = b"Test Run #\n\nNumber of messages read per second\n\n1\n\n13x02\n";
    let e = first_error(vertical);
    assert_eq!(e.line, 7);
    assert!(e.message.contains("'13x02'"), "{e}");

    let no_rows = b"Test Run #\tNumber of messages read per second\nprose\n";
    assert_eq!(first_error(no_rows).line, 2);

    let row_without_value = b"Test Run #\tNumber of messages read per second\n1\t13402\n2\n";
    assert_eq!(first_error(row_without_value).line, 3);

    // perf.Test results cut before `combined:`: member A is kept, with a warning.
    let perf = b"-- results:\n\nA (myself):\nnum_msgs_expected=1, num_msgs_received=1 (loss rate=0.0%), received=1KB, time=1ms, msgs/sec=1, throughput=1KB\n";
    assert_eq!(blocks(perf)[0].runs.len(), 1);
    assert_eq!(warnings(perf)[0].0, 4);
    let perf_member_only = b"-- results:\n\nA (myself):\n";
    assert_eq!(first_error(perf_member_only).line, 3);
}

#[test]
fn uperf_2011_summary_and_two_line_roundtrip() {
    let old = b"=== Results: ===\nA: 12345.67 reqs/sec (15813 GETs, 4187 PUTs total)\nB: 12000 reqs/sec (15000 GETs, 4000 PUTs total)\n\n\x1b[1mAverage of 12172.84 requests / sec (12.17MB / sec), 0.08 ms /request (prot=UNICAST2)\x1b[0m\n";
    let b = blocks(old);
    assert_eq!(b.len(), 1);
    assert_eq!(values(&b[0], "reqs_per_sec"), [12345.67, 12000.0]);
    assert_eq!(values(&b[0], "gets"), [15813.0, 15000.0]);
    assert_eq!(stat(&b[0], "reqs_per_sec", "per_node"), 12172.84);
    assert_eq!(stat(&b[0], "rtt", "avg_ms"), 0.08);
    assert_eq!(param(&b[0].runs[1], "prot"), Param::Text("UNICAST2".into()));

    let related = b"=== Results: ===\nA: 10.00 reqs/sec (8 gets, 2 puts, get RTT 1.00 us, put RTT 2.00 us)\n\nThroughput: 10.00 reqs/sec/node (10KB/sec) 20.00 reqs/sec/cluster\nRoundtrip:  gets avg = 1.00 us,\n            puts avg = 2.00 us\nafter\n";
    let b = blocks(related);
    assert_eq!(b.len(), 1);
    assert_eq!(stat(&b[0], "reqs_per_sec", "per_cluster"), 20.0);
    assert_eq!(stat(&b[0], "put_rtt", "avg"), 2.0);
    assert_eq!(b[0].last_line, 6);
}

#[test]
fn prose_headings_are_not_blocks() {
    let text = "Results:\nThe numbers are below.\n\nTest Run #\nis how the report names a run.\n";
    assert!(items(text.as_bytes()).is_empty());
    // "Results:" stays a label candidate when it turns out to be prose.
    let text = "Results:\nwere good\n\nTest Run #\tNumber of messages read per second\n1\t5\n";
    let b = blocks(text.as_bytes());
    assert_eq!(b[0].label.as_deref(), Some("Results"));
    // A Markdown heading underlined with '=' is not MPerf's rule either.
    let text = "Results:\n================\n\nAll good.\n";
    assert!(items(text.as_bytes()).is_empty());
    assert!(items(b"Results:\n================\n").is_empty());
    assert!(items(b"-- results:\nwill follow\n").is_empty());
    assert!(items(b"-- results:\n").is_empty());
}

#[test]
fn tool_chatter_is_not_a_label() {
    let text = "\
UDP, 4 nodes

[1] Start test [2] View [4] Threads (100) [6] Time (60s) [7] Msg size (1KB)
[x] Exit this [X] Exit all

running for 60 seconds

invoker 1: gets avg = 1.00 us puts avg = 2.00 us

avg over all invokers: gets avg = 1.00 us puts avg = 2.00 us

done (in 60,002 ms)

======================= Results: ===========================
A: 10.00 reqs/sec (8 gets, 2 puts, get RTT 1.00 us, put RTT 2.00 us)


Throughput: 10.00 reqs/sec/node (10KB/sec)
Roundtrip:  gets avg = 1.00 us, puts avg = 2.00 us
";
    let b = blocks(text.as_bytes());
    assert_eq!(b.len(), 1);
    assert_eq!(b[0].label.as_deref(), Some("UDP, 4 nodes"));
}

#[test]
fn mperf_with_no_results_warns() {
    let text = "Results:\n\nview: [A|1] (1) [A] (local address=A)\ntime=60\n\n===============================================================================\n Received no results\n================================================================================\n";
    let out = items(text.as_bytes());
    assert_eq!(out.len(), 1);
    assert!(
        matches!(&out[0], Ok(Parsed::Warning { line: 8, .. })),
        "{out:?}"
    );
}

#[test]
fn configuration_applies_forward_and_fills_earlier_blocks() {
    let text = "\
Test Run #\tNumber of messages read per second
1\t100

num_msgs=10 msg_size=1KB

Test Run #\tNumber of messages read per second
1\t200

num_msgs=20 oob=true

Test Run #\tNumber of messages read per second
1\t300
";
    let b = blocks(text.as_bytes());
    assert_eq!(b.len(), 3);
    let p = |i: usize, k: &str| b[i].runs[0].params.get(k).cloned();
    assert_eq!(p(0, "num_msgs"), Some(Param::Num(10.0)));
    assert_eq!(p(0, "msg_size"), Some(Param::Text("1KB".into())));
    assert_eq!(p(0, "oob"), None);
    assert_eq!(p(1, "num_msgs"), Some(Param::Num(10.0)));
    assert_eq!(p(2, "num_msgs"), Some(Param::Num(20.0)));
    assert_eq!(p(2, "oob"), Some(Param::Bool(true)));
    assert_eq!(p(2, "msg_size"), Some(Param::Text("1KB".into())));
    // Without any configuration, blocks come out unchanged at the end.
    let b = blocks(b"Test Run #\tNumber of messages read per second\n1\t5\n");
    assert!(b[0].runs[0].params.is_empty());
    // XML attributes and spaced assignments are not configuration.
    assert_eq!(
        config_pairs(r#"loopback="false" max_bundle_size="64000""#),
        None
    );
    assert_eq!(config_pairs("reader_threads = 8 * number of CPUs"), None);
}

#[test]
fn odd_inputs_never_panic() {
    assert!(items(b"").is_empty());
    assert!(items(b"\n\n\n").is_empty());
    let junk: Vec<u8> = (0..=255u8).cycle().take(70_000).collect();
    for r in items(&junk) {
        r.unwrap();
    }
    // A few megabytes of pseudo-random text, with and without newlines.
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    let alphabet = b"0123456789 abcdefxyz:=,./#|\t\n-ResultsTestRun#msgs/sec";
    let random: Vec<u8> = (0..3_000_000)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            alphabet[(x % alphabet.len() as u64) as usize]
        })
        .collect();
    let _ = items(&random);
    let one_line: Vec<u8> = random
        .iter()
        .map(|&b| if b == b'\n' { b' ' } else { b })
        .collect();
    let _ = items(&one_line);
    // Shapes cut at every possible point.
    for name in [
        "jgroups/uperf-ansi.txt",
        "jgroups/mperf-time-based.txt",
        "jgroups/perftest-2006.txt",
    ] {
        let bytes = fixture(name);
        for cut in 0..bytes.len() {
            let _ = items(&bytes[..cut]);
        }
    }
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    crate::testutil::files_under(dir)
}

fn sniff_file(p: &Path) -> u8 {
    crate::testutil::sniff_file(&FORMAT, p)
}

#[test]
fn sniffer_claims_jgroups_files_only() {
    let Some(root) = shared("") else { return };
    let mut checked = 0;
    for dir in ["seeds", "samples"] {
        for p in files_under(&root.join(dir)) {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            if name == "README.md" {
                continue;
            }
            let ours = name.starts_with("002_") || p.parent().unwrap().ends_with("jgroups");
            let c = sniff_file(&p);
            assert_eq!(c > 0, ours, "{}: confidence {c}", p.display());
            if ours {
                assert!(c >= 90, "{}: confidence {c}", p.display());
            }
            checked += 1;
        }
    }
    assert!(checked > 5);
    for p in crate::testutil::own_fixtures() {
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        let ours = p.parent().unwrap().ends_with("jgroups") || name.starts_with("jgroups-");
        assert_eq!(sniff_file(&p) > 0, ours, "{}", p.display());
    }
}

#[test]
fn registered() {
    assert_eq!(
        crate::format_by_name("jgroups").map(|f| f.name),
        Some("jgroups")
    );
}
