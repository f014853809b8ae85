//! Stored runs typed in from the seed documents (the numbers as printed there), and small
//! builders, for the analysis tests.

use crate::dataset::StoredRun;
use bench_db_parsers::{Data, LadderPoint, Param, Run, Series, TimePoint};

/// A stored run with the given id, suite, label and series.
pub fn stored(id: i64, suite: &str, label: &str, series: Vec<Series>) -> StoredRun {
    StoredRun {
        id,
        suite: suite.to_string(),
        label: label.to_string(),
        format: suite.to_string(),
        source: format!("{suite}.txt"),
        source_id: 1,
        block_id: 1,
        block_index: 0,
        ingested_at: "2026-01-01T00:00:00Z".to_string(),
        run: Run {
            index: id as u32,
            first_line: 1,
            last_line: 1,
            series,
            ..Run::default()
        },
        printed: Vec::new(),
    }
}

/// Ladder runs: for each percentile, one value per run; ids start at `first_id`.
pub fn ladder_runs(
    metric: &str,
    unit: &str,
    ladder: &[(f64, &[f64])],
    first_id: i64,
) -> Vec<StoredRun> {
    let n = ladder.first().map_or(0, |l| l.1.len());
    (0..n)
        .map(|r| {
            let points = ladder
                .iter()
                .map(|(p, v)| LadderPoint {
                    percentile: *p,
                    value: Some(v[r]),
                    line_value: None,
                })
                .collect();
            let s = Series::new(
                metric,
                metric,
                unit,
                Data::Ladder {
                    count: Some(100_000),
                    points,
                },
            );
            stored(first_id + r as i64, "jlbh", "runs", vec![s])
        })
        .collect()
}

/// Ladder runs carrying a `target_throughput` parameter.
pub fn rate_runs(
    rate: f64,
    metric: &str,
    ladder: &[(f64, &[f64])],
    first_id: i64,
) -> Vec<StoredRun> {
    let mut runs = ladder_runs(metric, "us", ladder, first_id);
    for r in &mut runs {
        r.run
            .params
            .insert("target_throughput".to_string(), Param::Num(rate));
    }
    runs
}

fn minutes(first_minute: u32, values: &[f64]) -> Data {
    // 14/04/13-00:MM, read as UTC: 2013-04-14T00:00:00Z = 1365897600.
    Data::TimeSeries {
        points: values
            .iter()
            .enumerate()
            .map(|(i, &v)| TimePoint {
                t: 1_365_897_600.0 + 60.0 * f64::from(first_minute + i as u32),
                value: Some(v),
            })
            .collect(),
    }
}

/// One tsar run holding only a `ts.rt` series of one-minute samples.
pub fn tsar_rt(id: i64, rt: &[f64]) -> Vec<StoredRun> {
    vec![stored(
        id,
        "tsar",
        &format!("run {id}"),
        vec![Series::new("ts.rt", "rt", "", minutes(0, rt))],
    )]
}

fn tsar_block(id: i64, label: &str, first_minute: u32, cols: [&[f64]; 4]) -> Vec<StoredRun> {
    let [util, qps_k, rt, rpc] = cols;
    let qps: Vec<f64> = qps_k.iter().map(|k| k * 1024.0).collect();
    vec![stored(
        id,
        "tsar",
        label,
        vec![
            Series::new("cpu.util", "util", "", minutes(first_minute, util)),
            Series::new("ts.qps", "qps", "", minutes(first_minute, &qps)),
            Series::new("ts.rt", "rt", "", minutes(first_minute, rt)),
            Series::new("ts.rpc", "rpc", "", minutes(first_minute, rpc)),
        ],
    )]
}

/// Seed 003, "the current master": 10 minutes.
pub fn seed003_master() -> Vec<StoredRun> {
    tsar_block(
        1,
        "the current master",
        21,
        [
            &[
                68.53, 68.50, 67.80, 68.53, 68.55, 67.71, 68.44, 68.46, 68.32, 68.76,
            ],
            &[92.0, 92.0, 91.0, 92.1, 92.2, 90.9, 91.9, 92.2, 91.9, 92.5],
            &[3.38, 3.37, 3.44, 3.35, 3.33, 3.53, 3.46, 3.37, 3.34, 3.31],
            &[5.0; 10],
        ],
    )
}

/// Seed 003, "the current master with patch version v11jp": 11 minutes.
pub fn seed003_patch() -> Vec<StoredRun> {
    tsar_block(
        2,
        "the current master with patch version v11jp",
        22,
        [
            &[
                69.87, 70.25, 70.30, 69.66, 70.23, 70.20, 69.72, 70.14, 70.17, 69.99, 70.32,
            ],
            &[
                91.9, 92.4, 92.1, 91.5, 92.2, 92.4, 91.6, 92.4, 92.3, 91.8, 92.3,
            ],
            &[
                2.97, 2.98, 2.99, 2.98, 2.93, 2.94, 3.01, 2.93, 2.96, 2.97, 2.92,
            ],
            &[5.0; 11],
        ],
    )
}

fn zk(id: i64, label: &str, time: f64, count: f64, max: f64) -> Vec<StoredRun> {
    vec![stored(
        id,
        "arthas",
        label,
        vec![
            Series::value("latency_avg", "ms", Some(time / count)),
            Series::value("max_latency", "ms", Some(max)),
        ],
    )]
}

/// Seed 004, "Before this changes": ServerStats time 116413386, count 13108831, max 320.
pub fn seed004_before() -> Vec<StoredRun> {
    zk(3, "Before this changes", 116_413_386.0, 13_108_831.0, 320.0)
}

/// Seed 004, "After these changes": time 31908309, count 13024907, max 412.
pub fn seed004_after() -> Vec<StoredRun> {
    zk(4, "After these changes", 31_908_309.0, 13_024_907.0, 412.0)
}

fn jgroups(first_id: i64, label: &str, rates: [f64; 4]) -> Vec<StoredRun> {
    rates
        .iter()
        .enumerate()
        .map(|(i, &r)| {
            stored(
                first_id + i as i64,
                "jgroups",
                label,
                vec![Series::value("msgs_per_sec", "", Some(r))],
            )
        })
        .collect()
}

/// Seed 002, the default transport's four runs.
pub fn seed002_default() -> Vec<StoredRun> {
    jgroups(10, "Test Run #", [13402.0, 13155.0, 13344.0, 13107.0])
}

/// Seed 002, "Test results using TCP".
pub fn seed002_tcp() -> Vec<StoredRun> {
    jgroups(
        20,
        "Test results using TCP",
        [13490.0, 13462.0, 13476.0, 13440.0],
    )
}
