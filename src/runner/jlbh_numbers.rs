//! JLBH's percentile ladder and number formatting, reproduced so the runner's output reads
//! (and parses) exactly like JLBH's current output (FORMATS.md §1.3–1.4). Pure functions.

use bench_db_parsers::LadderPoint;
use hdrhistogram::Histogram;

/// The summary-table percentiles (0–100, worst = 100) for `count` samples: Chronicle-Core
/// `Histogram.percentilesFor` since 2021-11 (`06041cfc`): 50, 90, 99; 99.7 above 10,000;
/// then for x = 1e3 … 1e7, 1 − 1/x from 100·x samples and 1 − 0.3/x from 300·x; worst.
/// Values are rounded as JLBH rounds its labels (`Math.round(p·1e6)/1e4`).
pub fn ladder_percentiles(count: u64) -> Vec<f64> {
    let mut fractions = vec![0.5, 0.9, 0.99];
    if count > 10_000 {
        fractions.push(0.997);
    }
    let n = count as f64;
    let mut x = 1e3;
    while x <= 1e7 {
        if n < 100.0 * x {
            break;
        }
        fractions.push(1.0 - 1.0 / x);
        if n < 300.0 * x {
            break;
        }
        fractions.push(1.0 - 0.3 / x);
        x *= 10.0;
    }
    fractions.push(1.0);
    fractions
        .into_iter()
        .map(|p| (p * 1e6).round() / 1e4)
        .collect()
}

/// The percentiles of a probe line (`Histogram.toMicrosFormat()`), chosen by the
/// histogram's own count: 50/90 99/99.9 99.99 [99.999] [99.9999] worst.
pub fn probe_line_percentiles(count: u64) -> &'static [f64] {
    if count < 1_000_000 {
        &[50.0, 90.0, 99.0, 99.9, 99.99, 100.0]
    } else if count < 10_000_000 {
        &[50.0, 90.0, 99.0, 99.9, 99.99, 99.999, 100.0]
    } else {
        &[50.0, 90.0, 99.0, 99.9, 99.99, 99.999, 99.9999, 100.0]
    }
}

/// The probe line's label for `count` samples.
pub fn probe_line_labels(count: u64) -> &'static str {
    if count < 1_000_000 {
        "50/90 99/99.9 99.99 - worst"
    } else if count < 10_000_000 {
        "50/90 99/99.9 99.99/99.999 - worst"
    } else {
        "50/90 99/99.9 99.99/99.999 99.9999/worst"
    }
}

/// A summary row label: `50.0:`, `99.97:`, `worst:`, padded (or cut) to 9 characters.
/// `{:?}` prints the shortest round-trip form with at least one decimal, as Java's
/// `Double.toString` does for these magnitudes.
pub fn row_label(percentile: f64) -> String {
    let s = if percentile >= 100.0 {
        "worst".to_string()
    } else {
        format!("{percentile:?}")
    };
    let mut s = s + ":     ";
    s.truncate(9);
    s
}

/// `1234567` → `1,234,567` (Java `%,d` in the English locale).
pub fn group_thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Chronicle-Core `Histogram.p(v)` for JLBH's histogram resolution (t = 2.56 µs):
/// 3 decimals below t, 2 below 10t, 1 below 100t, an integer below 1000t, above that
/// rounded to a multiple of 10 with grouping (`20,450`).
pub fn micros_p(us: f64) -> String {
    const T: f64 = 2.56;
    if us < T {
        format!("{us:.3}")
    } else if us < 10.0 * T {
        format!("{us:.2}")
    } else if us < 100.0 * T {
        format!("{us:.1}")
    } else if us < 1000.0 * T {
        format!("{}", java_round(us))
    } else {
        group_thousands(java_round(us / 10.0) as u64 * 10)
    }
}

/// Java `Math.round`: floor(v + 0.5).
fn java_round(v: f64) -> i64 {
    (v + 0.5).floor() as i64
}

/// Rounds to 2 decimals as the summary's `%12.2f` prints the value (see [`java_fixed`]).
pub fn round2(v: f64) -> f64 {
    java_fixed(v, 2).parse().unwrap_or(v)
}

/// Java's `String.format("%.Nf", v)`: the shortest decimal that reads back as `v` (what
/// `Double.toString` and Rust's `{}` print), rounded half up. So 1.005 prints `1.01` and
/// 17.215 `17.22`, where rounding the exact binary value (`{:.2}`, C's `printf`) gives
/// `1.00` and `17.21`, and `(v * 100).round()` gives `1.00` and `17.22`.
pub fn java_fixed(v: f64, decimals: usize) -> String {
    let shortest = format!("{}", v.abs());
    let (int, frac) = shortest.split_once('.').unwrap_or((&shortest, ""));
    let mut digits: Vec<u8> = int.bytes().chain(frac.bytes().take(decimals)).collect();
    digits.extend(std::iter::repeat_n(
        b'0',
        decimals.saturating_sub(frac.len()),
    ));
    if frac.as_bytes().get(decimals).is_some_and(|&d| d >= b'5') {
        // Add one unit in the last place, carrying.
        let mut i = digits.len();
        loop {
            if i == 0 {
                digits.insert(0, b'1');
                break;
            }
            i -= 1;
            if digits[i] == b'9' {
                digits[i] = b'0';
            } else {
                digits[i] += 1;
                break;
            }
        }
    }
    let split = digits.len() - decimals;
    let text = String::from_utf8(digits).expect("ASCII digits");
    let sign = if v.is_sign_negative() && text.bytes().any(|b| b != b'0') {
        "-"
    } else {
        ""
    };
    if decimals == 0 {
        format!("{sign}{text}")
    } else {
        format!("{sign}{}.{}", &text[..split], &text[split..])
    }
}

/// The value a histogram gives for a percentile (0–100; 100 = max), in ns.
pub fn value_ns(h: &Histogram<u64>, percentile: f64) -> u64 {
    if percentile >= 100.0 {
        h.max()
    } else {
        h.value_at_quantile(percentile / 100.0)
    }
}

/// The ladder of a run's histogram in µs, as its printed output reads: at the summary
/// percentiles for `rows_count` the table's 2-decimal number (`value`) with the probe
/// line's printing as `line_value` where the line shows the same percentile, and at the
/// percentiles only the line shows (99.9 and 99.99 of a short run) the line's printing,
/// settled against the table's rows as the parser settles it
/// ([`bench_db_parsers::jlbh::settle_rounded`]).
pub fn ladder_points(h: &Histogram<u64>, rows_count: u64) -> Vec<LadderPoint> {
    let line = probe_line_percentiles(h.len());
    let table = ladder_percentiles(rows_count);
    let us = |p: f64| value_ns(h, p) as f64 / 1e3;
    let mut points: Vec<(LadderPoint, bool)> = table
        .iter()
        .map(|&p| {
            let v = us(p);
            let line_value = line.contains(&p).then(|| parse_p(&micros_p(v))).flatten();
            let point = LadderPoint {
                percentile: p,
                value: Some(round2(v)),
                line_value,
            };
            (point, true)
        })
        .collect();
    for &p in line.iter().filter(|p| !table.contains(p)) {
        let point = LadderPoint {
            percentile: p,
            value: parse_p(&micros_p(us(p))),
            line_value: None,
        };
        points.push((point, false));
    }
    points.sort_by(|a, b| a.0.percentile.total_cmp(&b.0.percentile));
    let precise: Vec<bool> = points.iter().map(|(_, t)| *t).collect();
    let mut points: Vec<LadderPoint> = points.into_iter().map(|(p, _)| p).collect();
    bench_db_parsers::jlbh::settle_rounded(&mut points, &precise);
    points
}

/// Reads back a `micros_p` string (`20,450` → 20450).
pub fn parse_p(s: &str) -> Option<f64> {
    s.replace(',', "").parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ladder_rule_matches_the_documented_examples() {
        assert_eq!(ladder_percentiles(9_000), vec![50.0, 90.0, 99.0, 100.0]);
        assert_eq!(
            ladder_percentiles(20_000),
            vec![50.0, 90.0, 99.0, 99.7, 100.0]
        );
        assert_eq!(
            ladder_percentiles(100_000),
            vec![50.0, 90.0, 99.0, 99.7, 99.9, 100.0]
        );
        assert_eq!(
            ladder_percentiles(3_000_000),
            vec![50.0, 90.0, 99.0, 99.7, 99.9, 99.97, 99.99, 99.997, 100.0]
        );
        assert_eq!(ladder_percentiles(30_000_000).len(), 11);
        assert_eq!(ladder_percentiles(30_000_000)[9], 99.9997);
    }

    #[test]
    fn fixed_decimals_round_as_java_prints_them() {
        // Java's `%.2f` rounds the shortest decimal half up.
        assert_eq!(java_fixed(17.215, 2), "17.22");
        assert_eq!(java_fixed(1.005, 2), "1.01");
        assert_eq!(java_fixed(17.125, 2), "17.13");
        assert_eq!(java_fixed(9.995, 2), "10.00");
        assert_eq!(java_fixed(99.999, 1), "100.0");
        assert_eq!(java_fixed(2.0, 2), "2.00");
        assert_eq!(java_fixed(0.5, 0), "1");
        assert_eq!(java_fixed(-1.005, 2), "-1.01");
        assert_eq!(java_fixed(-0.001, 2), "0.00");
        assert_eq!(java_fixed(1234.5678, 2), "1234.57");
        assert_eq!(round2(1.005), 1.01);
        // The probe line rounds the exact value half even, as Chronicle's
        // `DecimalFormat("0.00")` does: the same 17,215 ns reads 17.21 there, and a
        // table's 17.22 beside it is JLBH's own printing, not a disagreement.
        assert_eq!(micros_p(17.215), "17.21");
        assert_eq!(micros_p(17.125), "17.12");
    }

    #[test]
    fn row_labels_are_nine_characters() {
        assert_eq!(row_label(50.0), "50.0:    ");
        assert_eq!(row_label(99.97), "99.97:   ");
        assert_eq!(row_label(99.9997), "99.9997: ");
        assert_eq!(row_label(100.0), "worst:   ");
    }

    #[test]
    fn micros_format_follows_histogram_p() {
        assert_eq!(micros_p(0.1), "0.100");
        assert_eq!(micros_p(8.07), "8.07");
        assert_eq!(micros_p(123.44), "123.4");
        assert_eq!(micros_p(1234.4), "1234");
        assert_eq!(micros_p(20_447.23), "20,450");
        assert_eq!(micros_p(1_711_276.0), "1,711,280");
        assert_eq!(group_thousands(50_000), "50,000");
        assert_eq!(group_thousands(999), "999");
        assert_eq!(parse_p("20,450"), Some(20_450.0));
    }

    #[test]
    fn ladder_points_are_ordered_and_carry_line_values() {
        let mut h = crate::runner::record::new_histogram();
        for v in 1..=20_000u64 {
            h.record(v * 10).unwrap();
        }
        let pts = ladder_points(&h, 20_000);
        let ps: Vec<f64> = pts.iter().map(|p| p.percentile).collect();
        assert_eq!(ps, [50.0, 90.0, 99.0, 99.7, 99.9, 99.99, 100.0]);
        assert!(pts.windows(2).all(|w| w[0].value <= w[1].value));
        assert_eq!(pts[0].line_value, Some(100.0));
        assert_eq!(pts[0].value, Some(100.03));
        assert_eq!(pts[3].line_value, None, "99.7 is not on the probe line");
        // 99.9 is on the probe line only: its printing, one decimal above 25.6 µs.
        let us = value_ns(&h, 99.9) as f64 / 1e3;
        assert_eq!(pts[4].value, parse_p(&micros_p(us)));
        assert_eq!(pts[4].line_value, None);
        assert_eq!(pts[6].percentile, 100.0);
        assert_eq!(pts[6].value, Some(200.06));
    }
}
