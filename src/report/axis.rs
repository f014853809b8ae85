//! Axis ranges and tick marks: value axes (linear or log, ticks on 1-2-5 steps),
//! the percentile axis on a log 1/(1−p) scale and time axes. Charts draw in the
//! mapped space these axes define and label ticks with their strings; no drawing here.

use super::fmt;

/// How data values map onto an axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scale {
    Linear,
    /// log10 of the value; non-positive values cannot be drawn.
    Log10,
}

impl Scale {
    /// The position of `v` on the axis, `None` when it cannot be drawn.
    pub fn map(self, v: f64) -> Option<f64> {
        if !v.is_finite() {
            return None;
        }
        match self {
            Scale::Linear => Some(v),
            Scale::Log10 => (v > 0.0).then(|| v.log10()),
        }
    }
}

/// A drawn axis: caption, range and labelled ticks, all in mapped space.
#[derive(Debug, Clone, PartialEq)]
pub struct Axis {
    pub caption: String,
    pub lo: f64,
    pub hi: f64,
    pub ticks: Vec<(f64, String)>,
    pub scale: Scale,
    /// How a position reads back as text, for hover values.
    pub reading: Reading,
}

/// How a position on an axis reads back as a value people understand.
#[derive(Debug, Clone, PartialEq)]
pub enum Reading {
    /// A value in this unit and these prefixes (through the axis' scale).
    Value(String, fmt::Prefixes),
    /// A percentile on the log 1/(1−p) axis; `max` sits at the given position.
    Percentile(f64),
    /// Seconds: Unix time (UTC) when true, else elapsed.
    Time(bool),
    /// Seconds of a clock read as printed, in no known time zone (tsar's local times).
    LocalTime,
    /// A plain number (a run's place in order).
    Plain,
    /// log10 of a ratio, read as a signed change in percent.
    LogRatioPct,
}

impl Axis {
    /// Tick positions, for the chart's key points.
    pub fn tick_positions(&self) -> Vec<f64> {
        self.ticks.iter().map(|t| t.0).collect()
    }

    /// The label of the tick at `x` (the nearest one; key points are exactly the ticks).
    pub fn label(&self, x: f64) -> String {
        self.ticks
            .iter()
            .min_by(|a, b| (a.0 - x).abs().total_cmp(&(b.0 - x).abs()))
            .map(|t| t.1.clone())
            .unwrap_or_default()
    }

    /// The value at position `x`, as hover text.
    pub fn read(&self, x: f64) -> String {
        match &self.reading {
            Reading::Value(unit, prefixes) => {
                let v = match self.scale {
                    Scale::Linear => x,
                    Scale::Log10 => 10f64.powf(x),
                };
                fmt::human_in(v, unit, 4, *prefixes)
            }
            Reading::Percentile(worst) if (x - worst).abs() < 1e-9 => "max".to_string(),
            Reading::Percentile(_) => fmt::percentile_name(100.0 - 100.0 / 10f64.powf(x)),
            Reading::Time(true) => chrono::DateTime::from_timestamp(x as i64, 0)
                .map(|d| d.format("%Y-%m-%d %H:%M:%S UTC").to_string())
                .unwrap_or_default(),
            Reading::Time(false) => format!("{} s", fmt::sig3(x)),
            Reading::LocalTime => chrono::DateTime::from_timestamp(x as i64, 0)
                .map(|d| d.format("%Y-%m-%d %H:%M:%S").to_string())
                .unwrap_or_default(),
            Reading::Plain => fmt::sig3(x),
            Reading::LogRatioPct => fmt::signed_pct(100.0 * (10f64.powf(x) - 1.0)),
        }
    }

    /// Maps a data value with this axis' scale.
    pub fn map(&self, v: f64) -> Option<f64> {
        self.scale.map(v)
    }
}

/// The least and greatest finite value, `(0, 1)` when there is none.
fn finite_range(values: impl IntoIterator<Item = f64>) -> (f64, f64) {
    let (mut min, mut max) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in values.into_iter().filter(|v| v.is_finite()) {
        min = min.min(v);
        max = max.max(v);
    }
    if min.is_finite() {
        (min, max)
    } else {
        (0.0, 1.0)
    }
}

/// An axis of positions 1..=n (commits, runs in order), with these ticks.
pub fn index_axis(caption: &str, n: usize, ticks: Vec<(f64, String)>) -> Axis {
    Axis {
        caption: caption.to_string(),
        lo: 0.5,
        hi: n as f64 + 0.5,
        ticks,
        scale: Scale::Linear,
        reading: Reading::Plain,
    }
}

/// Ticks on a 1-2-5 grid covering `[lo, hi]`, about `target` of them.
///
/// Any finite range gets finite ticks, at most [`MAX_TICKS`] of them: a range too
/// small for a 1-2-5 step to exist (subnormal widths, where the step underflows to
/// zero) or too wide for one (the width overflows) is marked at its two ends.
pub fn nice_ticks(lo: f64, hi: f64, target: usize) -> Vec<f64> {
    if !(lo.is_finite() && hi.is_finite()) {
        return [lo, hi]
            .into_iter()
            .filter(|v| v.is_finite())
            .take(1)
            .collect();
    }
    if hi <= lo {
        return vec![lo];
    }
    let n = target.max(1) as f64;
    let mut raw = (hi - lo) / n;
    if !raw.is_finite() {
        // The width overflows; halves of the ends do not.
        raw = hi / n - lo / n;
    }
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * mag);
    let (first, last) = ((lo / step).ceil(), (hi / step).floor());
    let grid = step.is_normal() && first.is_finite() && last.is_finite() && last >= first;
    if !grid || last - first >= MAX_TICKS as f64 || first.abs().max(last.abs()) > 2f64.powi(53) {
        return vec![lo, hi];
    }
    let ticks: Vec<f64> = (first as i64..=last as i64)
        .map(|i| i as f64 * step)
        .filter(|t| t.is_finite())
        .collect();
    if ticks.is_empty() {
        vec![lo, hi]
    } else {
        ticks
    }
}

/// The most ticks [`nice_ticks`] returns.
pub const MAX_TICKS: usize = 64;

/// The least half-span of a linear value axis that does not start at zero, in percent
/// of the median of its data: every such axis holds the median ± this much, so how tall
/// a change looks says how large it is without reading the ticks.
pub const MIN_SPAN_PCT: f64 = 10.0;

/// The axis rule every page states under its charts.
pub const AXIS_RULE: &str = "Value axes start at zero, or are logarithmic, or span at least ±10% of the median of what they draw; changes are drawn in percent of the baseline.";

/// The median of finite values, `None` when there is none.
fn median(values: &[f64]) -> Option<f64> {
    let mut v: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    v.sort_by(f64::total_cmp);
    super::series::quantile_sorted(&v, 0.5)
}

/// A value axis over the given data: linear from zero (or spanning at least the median
/// ± [`MIN_SPAN_PCT`] when `from_zero` is false), or log10 when `allow_log` and the data
/// span over two decades, which keeps both the median and a far tail readable.
pub fn value_axis(
    caption: &str,
    unit: &str,
    values: impl IntoIterator<Item = f64>,
    from_zero: bool,
    allow_log: bool,
) -> Axis {
    value_axis_in(
        caption,
        unit,
        fmt::Prefixes::Decimal,
        values,
        from_zero,
        allow_log,
    )
}

/// [`value_axis`] labelled with the K/M/G of `prefixes`; binary axes put their linear
/// ticks on round multiples of 1024ⁿ so they read as round as the log's numbers.
pub fn value_axis_in(
    caption: &str,
    unit: &str,
    prefixes: fmt::Prefixes,
    values: impl IntoIterator<Item = f64>,
    from_zero: bool,
    allow_log: bool,
) -> Axis {
    let finite: Vec<f64> = values.into_iter().filter(|v| v.is_finite()).collect();
    let (min, max) = finite_range(finite.iter().copied());
    let caption = caption.to_string();
    if allow_log && min > 0.0 && max / min > 100.0 {
        return log_axis(&caption, unit, prefixes, min, max);
    }
    linear_axis(caption, unit, prefixes, &finite, min, max, from_zero)
}

/// A log10 axis over `[min, max]` (both positive), ticks on 1-2-5 in every decade.
pub fn log_axis(caption: &str, unit: &str, prefixes: fmt::Prefixes, min: f64, max: f64) -> Axis {
    let caption = caption.to_string();
    let (lo, hi) = (min.log10() - 0.05, max.log10() + 0.05);
    let (first, last) = (lo.floor() as i32, hi.ceil() as i32);
    // 1, 2 and 5 in every decade, or powers of ten alone (every k-th decade) when
    // those would be more than MAX_TICKS.
    let decades = (last - first + 1) as usize;
    let (marks, every): (&[f64], usize) = if 3 * decades <= MAX_TICKS {
        (&[1.0, 2.0, 5.0], 1)
    } else {
        (&[1.0], decades.div_ceil(MAX_TICKS))
    };
    let mut ticks = Vec::new();
    for dec in (first..=last).step_by(every) {
        for m in marks {
            let v = m * 10f64.powi(dec);
            let x = v.log10();
            if x >= lo && x <= hi && v.is_finite() && v > 0.0 {
                ticks.push((x, v));
            }
        }
    }
    Axis {
        caption,
        lo,
        hi,
        ticks: unique_labels(ticks, unit, prefixes),
        scale: Scale::Log10,
        reading: Reading::Value(unit.to_string(), prefixes),
    }
}

fn linear_axis(
    caption: String,
    unit: &str,
    prefixes: fmt::Prefixes,
    finite: &[f64],
    min: f64,
    max: f64,
    from_zero: bool,
) -> Axis {
    let mut lo = if from_zero { min.min(0.0) } else { min };
    let mut hi = max;
    if !from_zero {
        // The stated reference of an axis not from zero: it spans the median ± MIN_SPAN_PCT
        // at least, so a 0.1% wobble stays a ripple and a 10% step reads as large.
        if let Some(m) = median(finite) {
            let half = m.abs() * MIN_SPAN_PCT / 100.0;
            lo = lo.min((m - half).max(f64::MIN));
            hi = hi.max((m + half).min(f64::MAX));
        }
    }
    if hi <= lo {
        // At least the smallest normal number, so a subnormal value still spans a range.
        let pad = if hi == 0.0 {
            1.0
        } else {
            (hi.abs() * 0.1).max(f64::MIN_POSITIVE)
        };
        lo = (lo - pad).max(f64::MIN);
        hi = (hi + pad).min(f64::MAX);
    }
    let width = hi - lo;
    // A width beyond f64 (from −MAX to MAX) is padded by a share of its halves.
    let pad = if width.is_finite() {
        width * 0.05
    } else {
        (hi / 2.0 - lo / 2.0) * 0.1
    };
    let hi = (hi + pad).min(f64::MAX);
    let lo = if from_zero && lo >= 0.0 {
        lo
    } else {
        (lo - pad).max(f64::MIN)
    };
    let step = match prefixes {
        fmt::Prefixes::Binary if fmt::time_unit_ns(unit).is_none() => {
            let top = lo.abs().max(hi.abs());
            [1024f64.powi(3), 1024f64.powi(2), 1024.0]
                .into_iter()
                .zip([1e9, 1e6, 1e4])
                .find(|(_, at)| top >= *at)
                .map_or(1.0, |(k, _)| k)
        }
        _ => 1.0,
    };
    let ticks = nice_ticks(lo / step, hi / step, 6)
        .into_iter()
        .map(|v| (v * step, v * step))
        .collect();
    Axis {
        caption,
        lo,
        hi,
        ticks: unique_labels(ticks, unit, prefixes),
        scale: Scale::Linear,
        reading: Reading::Value(unit.to_string(), prefixes),
    }
}

/// Labels ticks (position, value) with the fewest significant digits (three at least)
/// that tell every tick apart, so no two ticks read the same.
fn unique_labels(
    ticks: Vec<(f64, f64)>,
    unit: &str,
    prefixes: fmt::Prefixes,
) -> Vec<(f64, String)> {
    let label = |digits: usize| -> Vec<(f64, String)> {
        ticks
            .iter()
            .map(|(x, v)| (*x, fmt::human_in(*v, unit, digits, prefixes)))
            .collect()
    };
    for digits in 3..=7 {
        let out = label(digits);
        let mut names: Vec<&str> = out.iter().map(|t| t.1.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        if names.len() == out.len() {
            return out;
        }
    }
    label(8)
}

/// The axis of a change in percent drawn as log10(1 + change): +100% and −50% sit at
/// the same distance from 0, and one huge change no longer squeezes the others onto
/// zero. Ticks are round percentages.
pub fn log_ratio_axis(caption: &str, changes_pct: impl IntoIterator<Item = f64>) -> Axis {
    let to_x = |pct: f64| (pct > -100.0).then(|| (1.0 + pct / 100.0).log10());
    let (mut min, mut max) = (0f64, 0f64);
    for x in changes_pct
        .into_iter()
        .filter_map(|p| to_x(p).filter(|x| x.is_finite()))
    {
        min = min.min(x);
        max = max.max(x);
    }
    let span = (max - min).max(0.02);
    let (lo, hi) = (min - span * 0.06, max + span * 0.14);
    const STEPS: [f64; 25] = [
        -99.0, -90.0, -75.0, -50.0, -25.0, -10.0, -5.0, -2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 5.0,
        10.0, 25.0, 50.0, 100.0, 200.0, 500.0, 1000.0, 2000.0, 5000.0, 10000.0,
    ];
    // Round percentages in range, thinned so neighbours stay apart on the page.
    let min_gap = (hi - lo) / 9.0;
    let mut ticks: Vec<(f64, String)> = Vec::new();
    let zero = 0.0;
    for pct in STEPS {
        let Some(x) = to_x(pct) else { continue };
        if x < lo || x > hi {
            continue;
        }
        if pct != 0.0 && (x - zero).abs() < min_gap {
            continue;
        }
        if let Some(last) = ticks.last()
            && x - last.0 < min_gap
        {
            if last.0 < zero && x <= zero {
                ticks.pop();
            } else {
                continue;
            }
        }
        let label = if pct == 0.0 {
            "0%".to_string()
        } else {
            fmt::signed_pct_round(pct)
        };
        ticks.push((x, label));
    }
    Axis {
        caption: caption.to_string(),
        lo,
        hi,
        ticks,
        scale: Scale::Linear,
        reading: Reading::LogRatioPct,
    }
}

/// The percentile axis: x = log10(1/(1−p)), so 90% sits at 1, 99% at 2, 99.9% at 3.
/// The worst value (percentile 100) has no finite position; it is drawn one decade
/// past the highest finite percentile and labelled `max`.
#[derive(Debug, Clone, PartialEq)]
pub struct PercentileAxis {
    pub axis: Axis,
    worst_x: f64,
}

impl PercentileAxis {
    /// An axis covering the given percentiles (0–100).
    pub fn new(percentiles: impl IntoIterator<Item = f64>) -> Self {
        let mut max_x: f64 = 1.0;
        let mut min_x: f64 = 2f64.log10();
        for p in percentiles
            .into_iter()
            .filter(|p| p.is_finite() && *p < 100.0)
        {
            let x = finite_x(p);
            max_x = max_x.max(x);
            min_x = min_x.min(x);
        }
        // The tolerance keeps 99.99% (log10 of 9999.99…) on its own decade.
        let worst_x = (max_x + 1e-9).floor() + 1.0;
        let mut ticks = Vec::new();
        if min_x < 0.2 {
            ticks.push((0.0, "0%".to_string()));
        }
        ticks.push((2f64.log10(), "50%".to_string()));
        let mut dec = 1;
        while (dec as f64) < worst_x {
            ticks.push((
                dec as f64,
                fmt::percentile_name(100.0 - 100.0 / 10f64.powi(dec)),
            ));
            dec += 1;
        }
        ticks.push((worst_x, "max".to_string()));
        let axis = Axis {
            caption: "Percentile".to_string(),
            lo: (min_x - 0.05).max(0.0),
            hi: worst_x + 0.1,
            ticks,
            scale: Scale::Linear,
            reading: Reading::Percentile(worst_x),
        };
        PercentileAxis { axis, worst_x }
    }

    /// The position of percentile `p` (0–100).
    pub fn map(&self, p: f64) -> f64 {
        if p >= 100.0 {
            self.worst_x
        } else {
            finite_x(p)
        }
    }
}

fn finite_x(p: f64) -> f64 {
    (100.0 / (100.0 - p.max(0.0))).log10()
}

/// A time axis over seconds: Unix times get `HH:MM` labels (UTC; with the date when the
/// span crosses days), relative times get seconds.
pub fn time_axis(values: impl IntoIterator<Item = f64>) -> Axis {
    let (min, mut max) = finite_range(values);
    if max <= min {
        max = min + 60.0;
    }
    let unix = min > 1e9;
    const STEPS: [f64; 14] = [
        1.0, 2.0, 5.0, 10.0, 15.0, 30.0, 60.0, 120.0, 300.0, 600.0, 900.0, 1800.0, 3600.0, 7200.0,
    ];
    let span = max - min;
    let step = STEPS
        .iter()
        .copied()
        .find(|s| span / s <= 8.0)
        .unwrap_or_else(|| (span / 8.0 / 3600.0).ceil() * 3600.0);
    let ticks: Vec<f64> = if unix {
        let first = (min / step).ceil() as i64;
        let last = (max / step).floor() as i64;
        (first..=last).map(|i| i as f64 * step).collect()
    } else if max - min > 180.0 {
        nice_ticks(min / 60.0, max / 60.0, 8)
            .into_iter()
            .map(|m| m * 60.0)
            .collect()
    } else {
        nice_ticks(min, max, 8)
    };
    let minutes = !unix && max - min > 180.0;
    let multi_day = unix && (max / 86400.0).floor() != (min / 86400.0).floor();
    let ticks = ticks
        .into_iter()
        .map(|t| {
            let label = if unix {
                let pattern = match (multi_day, step < 60.0) {
                    (true, _) => "%m-%d %H:%M",
                    (false, true) => "%H:%M:%S",
                    (false, false) => "%H:%M",
                };
                chrono::DateTime::from_timestamp(t as i64, 0)
                    .map(|d| d.format(pattern).to_string())
                    .unwrap_or_default()
            } else if minutes {
                format!("{} min", fmt::sig3(t / 60.0))
            } else {
                format!("{} s", fmt::sig3(t))
            };
            (t, label)
        })
        .collect();
    Axis {
        caption: if unix {
            "Time (UTC)".to_string()
        } else {
            "Time".to_string()
        },
        lo: min,
        hi: max,
        ticks,
        scale: Scale::Linear,
        reading: Reading::Time(unix),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn percentile_positions() {
        let ax = PercentileAxis::new([50.0, 90.0, 99.0, 99.9, 99.99, 100.0]);
        assert!((ax.map(90.0) - 1.0).abs() < 1e-12);
        assert!((ax.map(99.9) - 3.0).abs() < 1e-9);
        assert_eq!(ax.map(100.0), 5.0);
        let labels: Vec<&str> = ax.axis.ticks.iter().map(|t| t.1.as_str()).collect();
        assert_eq!(labels, ["50%", "90%", "99%", "99.9%", "99.99%", "max"]);
    }

    #[test]
    fn nice_ticks_are_round() {
        assert_eq!(
            nice_ticks(0.0, 100.0, 5),
            [0.0, 20.0, 40.0, 60.0, 80.0, 100.0]
        );
        assert_eq!(nice_ticks(3.0, 7.0, 4), [3.0, 4.0, 5.0, 6.0, 7.0]);
    }

    #[test]
    fn wide_spans_go_log() {
        let ax = value_axis("Latency", "us", [10.0, 5000.0], true, true);
        assert_eq!(ax.scale, Scale::Log10);
        assert!(ax.ticks.iter().any(|t| t.1 == "1 ms"));
        let ax = value_axis("Latency", "us", [10.0, 500.0], true, true);
        assert_eq!(ax.scale, Scale::Linear);
        assert_eq!(ax.lo, 0.0);
    }

    #[test]
    fn small_wobbles_do_not_fill_the_axis() {
        // A Criterion history spanning 352.10–352.35 ns (+0.07%): it fills under 1% of
        // the axis, where a tight fit made it a cliff.
        let ax = value_axis("time", "ns", [352.10, 352.35, 352.2], false, false);
        let share = (352.35 - 352.10) / (ax.hi - ax.lo);
        assert!(share < 0.01, "{share} of {}..{}", ax.lo, ax.hi);
        assert!(ax.lo <= 352.2 * 0.9 && ax.hi >= 352.2 * 1.1, "{ax:?}");
        // A change of 2× still fills most of it.
        let ax = value_axis("time", "ns", [100.0, 200.0], false, false);
        assert!(100.0 / (ax.hi - ax.lo) > 0.8, "{ax:?}");
    }

    #[test]
    fn tick_labels_are_unique() {
        // 10.55 … 10.70: three significant digits would print 10.6 twice.
        let ax = value_axis("cpu", "", [10.55, 10.68], false, false);
        let mut labels: Vec<&str> = ax.ticks.iter().map(|t| t.1.as_str()).collect();
        let n = labels.len();
        labels.sort_unstable();
        labels.dedup();
        assert_eq!(labels.len(), n, "{:?}", ax.ticks);
        // Seconds-apart Unix times get seconds in their labels.
        let ax = time_axis([1347616800.0, 1347616830.0]);
        let labels: Vec<&str> = ax.ticks.iter().map(|t| t.1.as_str()).collect();
        assert_eq!(labels.first(), Some(&"10:00:00"));
    }

    #[test]
    fn log_ratio_axis_keeps_small_changes_readable() {
        let ax = log_ratio_axis("change", [9458.0, -12.6, 2.5]);
        assert!(ax.ticks.iter().any(|t| t.1 == "0%"));
        assert!(ax.ticks.iter().any(|t| t.1 == "+100%"), "{:?}", ax.ticks);
        // −12.6% sits a visible share of the width left of zero (on a linear axis up
        // to +9458% it would be 0.1% of the width).
        let x = (1.0f64 - 0.126).log10();
        assert!((0.0 - x) / (ax.hi - ax.lo) > 0.01);
        assert_eq!(ax.read(2f64.log10()), "+100.0%");
        for w in ax.ticks.windows(2) {
            assert!(
                w[1].0 - w[0].0 >= (ax.hi - ax.lo) / 9.0 - 1e-12,
                "{:?}",
                ax.ticks
            );
        }
    }

    #[test]
    fn tiny_huge_and_empty_ranges_get_bounded_ticks() {
        // The smallest subnormal width once asked for 2^63 ticks.
        assert_eq!(nice_ticks(0.0, 4.9e-324, 6), [0.0, 4.9e-324]);
        assert_eq!(nice_ticks(-f64::MAX, f64::MAX, 6).len(), 3);
        assert_eq!(nice_ticks(5.0, 5.0, 6), [5.0]);
        assert_eq!(nice_ticks(f64::NAN, 1.0, 6), [1.0]);
        for values in [
            vec![0.0, 4.9e-324],
            vec![4.9e-324],
            vec![-f64::MAX, f64::MAX],
            vec![1e-300, 1e300],
        ] {
            for (from_zero, allow_log) in [(true, true), (false, false)] {
                let ax = value_axis("v", "us", values.clone(), from_zero, allow_log);
                assert!(
                    ax.lo.is_finite() && ax.hi.is_finite() && ax.lo < ax.hi,
                    "{ax:?}"
                );
                assert!(
                    !ax.ticks.is_empty() && ax.ticks.len() <= MAX_TICKS,
                    "{ax:?}"
                );
                assert!(ax.ticks.iter().all(|t| t.0.is_finite()), "{ax:?}");
            }
        }
    }

    fn any_finite() -> impl Strategy<Value = f64> {
        prop::num::f64::NORMAL
            | prop::num::f64::SUBNORMAL
            | prop::num::f64::ZERO
            | prop::num::f64::POSITIVE
            | prop::num::f64::NEGATIVE
    }

    proptest! {
        #[test]
        fn ticks_are_finite_bounded_and_in_range(a in any_finite(), b in any_finite(), target in 1usize..20) {
            let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
            let ticks = nice_ticks(lo, hi, target);
            prop_assert!(!ticks.is_empty() && ticks.len() <= MAX_TICKS, "{:?}", ticks);
            prop_assert!(ticks.windows(2).all(|w| w[0] <= w[1]), "{:?}", ticks);
            // Within the range, give or take the rounding of i · step.
            let slack = (hi / 2.0 - lo / 2.0) * 1e-9;
            for t in &ticks {
                prop_assert!(t.is_finite() && *t >= lo - slack && *t <= hi + slack, "{} in {:?}", t, ticks);
            }
        }

        #[test]
        fn value_axes_are_finite_and_bounded(values in prop::collection::vec(any_finite(), 1..6), from_zero: bool, allow_log: bool) {
            let ax = value_axis("v", "us", values, from_zero, allow_log);
            prop_assert!(ax.lo.is_finite() && ax.hi.is_finite() && ax.lo < ax.hi, "{:?}", ax);
            prop_assert!(!ax.ticks.is_empty() && ax.ticks.len() <= MAX_TICKS, "{:?}", ax);
            prop_assert!(ax.ticks.iter().all(|t| t.0.is_finite()), "{:?}", ax);
        }
    }

    #[test]
    fn unix_time_labels() {
        // 2012-09-14 10:00 UTC .. 10:30
        let ax = time_axis([1347616800.0, 1347618600.0]);
        assert_eq!(ax.ticks.first().map(|t| t.1.as_str()), Some("10:00"));
        assert_eq!(ax.ticks.last().map(|t| t.1.as_str()), Some("10:30"));
    }
}
