//! Synthetic stored runs shaped like the seed documents (a JLBH ladder at two
//! throughputs, tsar minutes before and after a patch, ZooKeeper averages before and
//! after, JGroups rates) and a generator of many runs. They let the report be tried,
//! tested and benchmarked without a database; every number is made up.

use crate::dataset::StoredRun;
use bench_db_parsers::{Data, LadderPoint, Param, PrintedStat, Run, Series, TimePoint};
use std::collections::BTreeMap;

/// JLBH's ladder percentiles at 100k iterations.
const LADDER: [f64; 8] = [50.0, 90.0, 99.0, 99.7, 99.9, 99.97, 99.99, 100.0];

fn ladder_series(metric: &str, display: &str, values: &[f64]) -> Series {
    let points = LADDER
        .iter()
        .zip(values)
        .map(|(p, v)| LadderPoint {
            percentile: *p,
            value: Some(*v),
            line_value: None,
        })
        .collect();
    Series::new(
        metric,
        display,
        "us",
        Data::Ladder {
            count: Some(100_000),
            points,
        },
    )
}

fn time_series(metric: &str, unit: &str, start: f64, values: &[f64]) -> Series {
    let points = values
        .iter()
        .enumerate()
        .map(|(i, v)| TimePoint {
            t: start + 60.0 * i as f64,
            value: Some(*v),
        })
        .collect();
    Series::new(metric, metric, unit, Data::TimeSeries { points })
}

struct Src<'a> {
    id: &'a mut i64,
    source_id: i64,
    suite: &'a str,
    format: &'a str,
    source: &'a str,
    ingested_at: &'a str,
}

impl Src<'_> {
    fn run(
        &mut self,
        block: u32,
        label: &str,
        index: u32,
        params: &[(&str, f64)],
        series: Vec<Series>,
    ) -> StoredRun {
        *self.id += 1;
        StoredRun {
            id: *self.id,
            suite: self.suite.to_string(),
            label: label.to_string(),
            format: self.format.to_string(),
            source: self.source.to_string(),
            source_id: self.source_id,
            block_id: self.source_id * 100 + block as i64,
            block_index: block,
            ingested_at: self.ingested_at.to_string(),
            run: Run {
                bench: None,
                // Every parameter is the load, as JLBH's target rate is.
                config: params.iter().map(|(k, _)| k.to_string()).collect(),
                index,
                first_line: 1,
                last_line: 1,
                params: params
                    .iter()
                    .map(|(k, v)| (k.to_string(), Param::Num(*v)))
                    .collect(),
                tags: BTreeMap::new(),
                series,
            },
            printed: Vec::new(),
        }
    }
}

/// A small database's worth of runs across four suites; one block label is the
/// markup probe `<script>alert(1)</script>`.
pub fn runs() -> Vec<StoredRun> {
    let mut id = 0;
    let mut out = Vec::new();
    let e2e20k = [
        [40.9, 120.4, 710.0, 1245.0, 2113.0, 3100.0, 4000.0, 5310.0],
        [41.98, 132.0, 690.0, 1300.0, 2030.0, 2900.0, 3910.0, 4950.0],
        [33.79, 118.0, 650.0, 1190.0, 1990.0, 2950.0, 3700.0, 6100.0],
    ];
    let mut src = Src {
        id: &mut id,
        source_id: 1,
        suite: "jlbh",
        format: "jlbh",
        source: "seeds/tcp-20k.txt",
        ingested_at: "2026-11-01T10:00:00Z",
    };
    for (i, v) in e2e20k.iter().enumerate() {
        let probe: Vec<f64> = v.iter().map(|x| x * 0.45).collect();
        let mut r = src.run(
            0,
            "TCP loopback at 20k msg/s",
            i as u32 + 1,
            &[("target_throughput", 20_000.0)],
            vec![
                ladder_series("end_to_end", "End to End", v),
                ladder_series("client2server", "client2server", &probe),
            ],
        );
        r.printed = vec![PrintedStat {
            metric: "end_to_end".into(),
            percentile: Some(50.0),
            name: "variation_pct".into(),
            value: Some(13.91),
        }];
        out.push(r);
    }
    let mut src = Src {
        id: &mut id,
        source_id: 2,
        suite: "jlbh",
        format: "jlbh",
        source: "seeds/tcp-5k.txt",
        ingested_at: "2026-11-02T10:00:00Z",
    };
    for i in 0..3 {
        let k = 1.0 + i as f64 * 0.04;
        let v: Vec<f64> = [31.0, 62.46, 95.0, 130.0, 210.0, 400.0, 800.0, 1500.0]
            .iter()
            .map(|x| x * k)
            .collect();
        out.push(src.run(
            0,
            "TCP loopback at 5k msg/s",
            i + 1,
            &[("target_throughput", 5_000.0)],
            vec![ladder_series("end_to_end", "End to End", &v)],
        ));
    }

    let before_rt = [3.41, 3.35, 3.44, 3.39, 3.30, 3.42, 3.38, 3.40, 3.37, 3.42];
    let after_rt = [2.98, 2.95, 3.01, 2.93, 2.97, 2.96, 2.92, 2.99, 2.95, 2.96];
    let before_cpu = [68.2, 68.5, 68.1, 68.6, 68.3, 68.4, 68.2, 68.5, 68.3, 68.5];
    let after_cpu = [70.0, 70.2, 69.9, 70.1, 70.3, 70.0, 70.1, 70.2, 69.9, 70.1];
    let mut src = Src {
        id: &mut id,
        source_id: 3,
        suite: "tsar",
        format: "tsar",
        source: "seeds/ts-1405.txt",
        ingested_at: "2026-11-03T10:00:00Z",
    };
    out.push(src.run(
        0,
        "current master",
        1,
        &[],
        vec![
            time_series("ts.rt", "ms", 1_347_616_800.0, &before_rt),
            time_series("cpu.util", "%", 1_347_616_800.0, &before_cpu),
        ],
    ));
    out.push(src.run(
        1,
        "master with patch v11jp",
        1,
        &[],
        vec![
            time_series("ts.rt", "ms", 1_347_703_200.0, &after_rt),
            time_series("cpu.util", "%", 1_347_703_200.0, &after_cpu),
        ],
    ));

    let mut src = Src {
        id: &mut id,
        source_id: 4,
        suite: "zookeeper",
        format: "arthas",
        source: "seeds/zk-4714.txt",
        ingested_at: "2026-11-04T10:00:00Z",
    };
    out.push(src.run(
        0,
        "before",
        1,
        &[],
        vec![
            Series::value("latency_avg", "ms", Some(8.88)),
            Series::value("count", "", Some(1_203_344.0)),
        ],
    ));
    out.push(src.run(
        1,
        "after",
        1,
        &[],
        vec![
            Series::value("latency_avg", "ms", Some(2.45)),
            Series::value("count", "", Some(1_198_950.0)),
        ],
    ));

    let mut src = Src {
        id: &mut id,
        source_id: 5,
        suite: "jgroups",
        format: "jgroups",
        source: "seeds/jgroups.txt",
        ingested_at: "2026-11-05T10:00:00Z",
    };
    for (i, v) in [35_000.0, 36_100.0, 34_800.0, 35_500.0].iter().enumerate() {
        out.push(src.run(
            0,
            "<script>alert(1)</script>",
            i as u32 + 1,
            &[],
            vec![Series::value("msgs_per_sec", "msgs/s", Some(*v))],
        ));
    }
    for (i, v) in [41_000.0, 43_500.0, 40_200.0, 44_100.0].iter().enumerate() {
        out.push(src.run(
            1,
            "TCP",
            i as u32 + 1,
            &[],
            vec![Series::value("msgs_per_sec", "msgs/s", Some(*v))],
        ));
    }
    out
}

/// The before/after comparisons a user would ask for over [`runs`]: tsar and ZooKeeper,
/// block 1 (baseline) against block 2 (candidate), as `--baseline/--candidate` give.
pub fn comparisons(runs: &[StoredRun]) -> Vec<super::pairing::Comparison> {
    use super::pairing;
    ["tsar", "zookeeper"]
        .iter()
        .map(|suite| {
            let side = |block: u32| -> Vec<&StoredRun> {
                runs.iter()
                    .filter(|r| r.suite == *suite && r.block_index == block)
                    .collect()
            };
            let (b, c) = (side(0), side(1));
            let (bn, cn) = pairing::side_names(&b, &c);
            pairing::compare(&bn, &b, &cn, &c)
        })
        .collect()
}

/// `n` runs of one suite, 100 runs per source, each with a JLBH-like ladder that
/// drifts slowly, for load tests of the report.
pub fn many(n: usize) -> Vec<StoredRun> {
    let mut id = 0;
    let mut out = Vec::with_capacity(n);
    for s in 0..n.div_ceil(100) {
        let ingested = format!(
            "2026-10-{:02}T{:02}:{:02}:00Z",
            1 + s / 1440 % 28,
            s / 60 % 24,
            s % 60
        );
        let source = format!("load/{s:05}.txt");
        let mut src = Src {
            id: &mut id,
            source_id: s as i64 + 1,
            suite: "load",
            format: "jlbh",
            source: &source,
            ingested_at: &ingested,
        };
        for i in 0..(n - s * 100).min(100) {
            // A deterministic wobble: no randomness, so output is reproducible.
            let k = 1.0 + ((s * 100 + i) as f64 * 0.37).sin() * 0.1 + s as f64 * 0.001;
            let v: Vec<f64> = [30.0, 60.0, 120.0, 200.0, 400.0, 800.0, 1500.0, 3000.0]
                .iter()
                .map(|x| x * k)
                .collect();
            let tp = [5_000.0, 10_000.0, 20_000.0][i % 3];
            out.push(src.run(
                0,
                "",
                i as u32 + 1,
                &[("target_throughput", tp)],
                vec![ladder_series("end_to_end", "End to End", &v)],
            ));
        }
    }
    out
}
