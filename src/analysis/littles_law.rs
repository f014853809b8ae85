//! Little's law: the mean number of requests in flight L = λ·W (Little 1961, *Operations
//! Research* 9(3):383–387), derived wherever a run has both a request rate and a mean
//! response time of the same prefix (`ts.qps` with `ts.rt`; `qps` with `rt`).
//!
//! W must be in seconds: time units convert; an `rt` printed without a unit is taken as
//! milliseconds, the unit tsar's `ts` module and the QPS/RT load-test tables use.

use crate::dataset::StoredRun;
use crate::units::seconds_per;
use bench_db_parsers::{Data, Series, TimePoint};
use std::collections::BTreeMap;

/// Name of the derived metric for a prefix (`ts.` → `ts.concurrency`).
pub fn concurrency_metric(prefix: &str) -> String {
    format!("{prefix}concurrency")
}

fn split_last(metric: &str) -> (&str, &str) {
    match metric.rfind('.') {
        Some(i) => (&metric[..=i], &metric[i + 1..]),
        None => ("", metric),
    }
}

fn is_rate(last: &str) -> bool {
    matches!(last, "qps" | "tps" | "rps")
}

fn is_response_time(last: &str) -> bool {
    matches!(
        last,
        "rt" | "avg_rt" | "rt_ms" | "latency_avg" | "avg_latency"
    )
}

/// Seconds per unit of a response-time series (empty unit = milliseconds, see module doc).
fn rt_seconds(unit: &str) -> Option<f64> {
    if unit.trim().is_empty() {
        Some(1e-3)
    } else {
        seconds_per(unit)
    }
}

/// The concurrency series derivable from one run: for time series, the product at each
/// time both were sampled; for single values, one product.
pub fn concurrency_series(run: &StoredRun) -> Vec<Series> {
    let mut out = Vec::new();
    for rate in &run.run.series {
        let (prefix, last) = split_last(&rate.metric);
        if !is_rate(last) {
            continue;
        }
        let Some(rt) = run.run.series.iter().find(|s| {
            let (p, l) = split_last(&s.metric);
            p == prefix && is_response_time(l)
        }) else {
            continue;
        };
        let Some(scale) = rt_seconds(&rt.unit) else {
            continue;
        };
        let data = match (&rate.data, &rt.data) {
            (Data::TimeSeries { points: q }, Data::TimeSeries { points: r }) => {
                let by_t: BTreeMap<u64, f64> = r
                    .iter()
                    .filter_map(|p| Some((p.t.to_bits(), p.value?)))
                    .collect();
                let points = q
                    .iter()
                    .filter_map(|p| {
                        let w = by_t.get(&p.t.to_bits())?;
                        Some(TimePoint {
                            t: p.t,
                            value: Some(p.value? * w * scale),
                        })
                    })
                    .collect::<Vec<_>>();
                if points.is_empty() {
                    continue;
                }
                Data::TimeSeries { points }
            }
            (Data::Value { value: Some(q) }, Data::Value { value: Some(w) }) => Data::Value {
                value: Some(q * w * scale),
            },
            _ => continue,
        };
        out.push(Series::new(
            concurrency_metric(prefix),
            format!("concurrency ({} × {})", rate.metric, rt.metric),
            "",
            data,
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::testdata::stored;

    #[test]
    fn tsar_rate_times_rt_in_milliseconds() {
        let ts = |v: &[f64]| Data::TimeSeries {
            points: v
                .iter()
                .enumerate()
                .map(|(i, &v)| TimePoint {
                    t: 60.0 * i as f64,
                    value: Some(v),
                })
                .collect(),
        };
        let run = stored(
            1,
            "tsar",
            "m",
            vec![
                Series::new("ts.qps", "qps", "", ts(&[1000.0, 2000.0])),
                Series::new("ts.rt", "rt", "", ts(&[3.0, 4.0])),
            ],
        );
        let c = concurrency_series(&run);
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].metric, "ts.concurrency");
        let Data::TimeSeries { points } = &c[0].data else {
            panic!()
        };
        assert_eq!(points[0].value, Some(3.0));
        assert_eq!(points[1].value, Some(8.0));
    }

    #[test]
    fn seed_001_concurrency_is_the_best_thread_count() {
        // Seed 001's load-test table: qps, RT (ms) and the article's best thread count.
        for (qps, rt, best) in [
            (125.0, 103.0, 13.0),
            (123.0, 65.0, 8.0),
            (244.0, 101.0, 25.0),
        ] {
            let run = stored(
                1,
                "qps-table",
                "m",
                vec![
                    Series::value("qps", "", Some(qps)),
                    Series::value("rt", "", Some(rt)),
                ],
            );
            let Data::Value { value: Some(l) } = concurrency_series(&run)[0].data else {
                panic!()
            };
            assert_eq!(l.round(), best, "{qps} × {rt} ms = {l}");
        }
    }

    #[test]
    fn values_convert_time_units() {
        let run = stored(
            1,
            "qps-table",
            "m",
            vec![
                Series::value("qps", "", Some(500.0)),
                Series::value("rt", "us", Some(2000.0)),
            ],
        );
        let c = concurrency_series(&run);
        assert_eq!(c[0].metric, "concurrency");
        assert_eq!(c[0].data, Data::Value { value: Some(1.0) });
        assert!(concurrency_series(&stored(2, "x", "m", vec![])).is_empty());
    }
}
