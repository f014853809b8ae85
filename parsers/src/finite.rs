//! The last check on what a parser hands out: every number of a block is finite. A value
//! a tool printed as `1e400`, `NaN` or `inf` (or a damaged digit made so) is refused here,
//! whatever the format: made absent where the model allows an absent value, else left out
//! (a ladder point at a non-finite percentile, a time point at a non-finite time, a
//! stat, a parameter), and named in one warning for the block. Later stages never meet a
//! NaN or an infinity.

use crate::model::{Block, Data, Param, Parsed};

/// How many refused numbers a warning names before `+N more`.
const NAMED: usize = 5;

/// Refuses the non-finite numbers of `block` (see the module doc); the warning naming
/// them, when there were any.
pub fn refuse_non_finite(block: &mut Block) -> Option<Parsed> {
    let mut refused: Vec<String> = Vec::new();
    let bad = |v: f64| !v.is_finite();
    for run in &mut block.runs {
        let at = |what: &str| format!("run {} {what}", run.index);
        let mut here = Vec::new();
        run.params.retain(|k, p| {
            let keep = !matches!(p, Param::Num(v) if bad(*v));
            if !keep {
                here.push(format!("param {k}"));
            }
            keep
        });
        // A dropped parameter is no longer part of the benchmark's configuration.
        let params = &run.params;
        run.config.retain(|k| params.contains_key(k));
        for s in &mut run.series {
            let metric = s.metric.clone();
            s.stats.retain(|k, v| {
                if bad(*v) {
                    here.push(format!("{metric} {k}"));
                }
                !bad(*v)
            });
            let mut hit = false;
            let absent = |v: &mut Option<f64>, hit: &mut bool| {
                if v.is_some_and(bad) {
                    *v = None;
                    *hit = true;
                }
            };
            match &mut s.data {
                Data::Ladder { points, .. } | Data::Histogram { points, .. } => {
                    let before = points.len();
                    points.retain(|p| !bad(p.percentile));
                    hit |= points.len() < before;
                    for p in points.iter_mut() {
                        absent(&mut p.value, &mut hit);
                        absent(&mut p.line_value, &mut hit);
                    }
                }
                Data::TimeSeries { points } => {
                    let before = points.len();
                    points.retain(|p| !bad(p.t));
                    hit |= points.len() < before;
                    for p in points.iter_mut() {
                        absent(&mut p.value, &mut hit);
                    }
                }
                Data::Value { value } => absent(value, &mut hit),
            }
            if let Data::Histogram { intervals, .. } = &mut s.data {
                for i in intervals {
                    absent(&mut i.t, &mut hit);
                    absent(&mut i.duration, &mut hit);
                }
            }
            if hit {
                here.push(metric);
            }
        }
        refused.extend(here.iter().map(|w| at(w)));
    }
    for p in &mut block.printed {
        if p.value.is_some_and(bad) || p.percentile.is_some_and(bad) {
            p.value = None;
            p.percentile = p.percentile.filter(|x| x.is_finite());
            refused.push(format!("printed {} {}", p.metric, p.name));
        }
    }
    if refused.is_empty() {
        return None;
    }
    let mut said = refused[..refused.len().min(NAMED)].join(", ");
    if refused.len() > NAMED {
        said.push_str(&format!(" (+{} more)", refused.len() - NAMED));
    }
    Some(Parsed::Warning {
        line: block.first_line,
        message: format!("numbers that are not finite (NaN, infinite) refused: {said}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{LadderPoint, PrintedStat, Run, Series, TimePoint};

    #[test]
    fn non_finite_numbers_are_made_absent_or_left_out_and_named() {
        let ladder = Data::Ladder {
            count: None,
            points: vec![
                LadderPoint {
                    percentile: 50.0,
                    value: Some(f64::INFINITY),
                    line_value: None,
                },
                LadderPoint {
                    percentile: f64::NAN,
                    value: Some(1.0),
                    line_value: None,
                },
                LadderPoint {
                    percentile: 99.0,
                    value: Some(2.0),
                    line_value: None,
                },
            ],
        };
        let mut lat = Series::new("lat", "lat", "ns", ladder);
        lat.stats.insert("mean".into(), f64::NAN);
        lat.stats.insert("max".into(), 3.0);
        let ts = Series::new(
            "rate",
            "rate",
            "/s",
            Data::TimeSeries {
                points: vec![TimePoint {
                    t: 1.0,
                    value: Some(5.0),
                }],
            },
        );
        let mut run = Run {
            index: 1,
            series: vec![lat, ts],
            ..Run::default()
        };
        run.set_config("rate", Param::Num(f64::NEG_INFINITY));
        run.set_config("threads", Param::Num(4.0));
        let mut block = Block {
            first_line: 7,
            runs: vec![run],
            printed: vec![PrintedStat {
                metric: "lat".into(),
                percentile: None,
                name: "stddev".into(),
                value: Some(f64::NAN),
            }],
            ..Block::default()
        };
        let warning = refuse_non_finite(&mut block);
        assert_eq!(
            warning,
            Some(Parsed::Warning {
                line: 7,
                message: "numbers that are not finite (NaN, infinite) refused: run 1 param \
                          rate, run 1 lat mean, run 1 lat, printed lat stddev"
                    .into()
            })
        );
        let run = &block.runs[0];
        assert_eq!(run.params.len(), 1);
        // The dropped parameter leaves the configuration too.
        assert_eq!(run.config.iter().collect::<Vec<_>>(), ["threads"]);
        assert_eq!(run.series[0].stats.len(), 1);
        let Data::Ladder { points, .. } = &run.series[0].data else {
            panic!("ladder");
        };
        assert_eq!(points.len(), 2);
        assert_eq!(points[0].value, None);
        assert_eq!(points[1].value, Some(2.0));
        assert_eq!(block.printed[0].value, None);
        // Nothing to refuse: no warning, nothing changed.
        let before = block.clone();
        assert_eq!(refuse_non_finite(&mut block), None);
        assert_eq!(block, before);
    }
}
