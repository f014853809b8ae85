//! Number formatting, in one place for `output/`, `report/`, `analysis/` and `cmd/`:
//! numbers with significant digits, values with their units scaled (ns/µs/ms/s; K/M/G as
//! the tool printed them), percentiles, p-values, signed percentages, table columns and
//! JSON numbers. Pure functions; nothing else formats a number for people.

/// Nanoseconds per unit for the time units tools print; `None` for other units.
pub fn time_unit_ns(unit: &str) -> Option<f64> {
    crate::units::seconds_per(unit).map(|s| s * 1e9)
}

/// A number with three significant digits at most, without trailing zeros.
pub fn sig3(v: f64) -> String {
    sig(v, 3)
}

/// A number with `digits` significant digits at most (all digits left of the point are
/// kept), without trailing zeros, with a true minus sign.
pub fn sig(v: f64, digits: usize) -> String {
    let s = sig_plain(v, digits);
    // A true minus sign reads better than a hyphen in charts and pages.
    match s.strip_prefix('-') {
        Some(rest) => format!("−{rest}"),
        None => s,
    }
}

/// [`sig`] with an ASCII hyphen-minus, as terminal tables and Markdown print numbers: a
/// number copied from them reads back as a number.
pub fn sig_plain(v: f64, digits: usize) -> String {
    if !v.is_finite() {
        return "–".to_string();
    }
    let a = v.abs();
    let s = if a == 0.0 {
        return "0".to_string();
    } else {
        let mag = a.log10().floor() as i64;
        let decimals = (digits as i64 - 1 - mag).max(0) as usize;
        format!("{v:.decimals$}")
    };
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// A value with its unit, scaled for reading: time units move between ns, µs, ms
/// and s; other units get a K/M/G suffix (`92.0K ops/s`, `1.3G`).
pub fn human(v: f64, unit: &str) -> String {
    human_sig(v, unit, 3)
}

/// How a tool scaled large numbers with K/M/G.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Prefixes {
    /// K = 1000 (most tools).
    #[default]
    Decimal,
    /// K = 1024: tsar's `printf_result` divides by 1024, so its `92.0K` is 94208.
    Binary,
}

/// The prefixes a format's tool printed with, so values read back as in the log.
pub fn prefixes_of(format: &str) -> Prefixes {
    match bench_db_parsers::format_by_name(format) {
        Some(f) if f.binary_prefixes => Prefixes::Binary,
        _ => Prefixes::Decimal,
    }
}

/// Whether `format` prints its times as local wall-clock times with no zone.
pub fn local_times_of(format: &str) -> bool {
    bench_db_parsers::format_by_name(format).is_some_and(|f| f.local_times)
}

/// [`human`] with `digits` significant digits at most.
pub fn human_sig(v: f64, unit: &str, digits: usize) -> String {
    human_in(v, unit, digits, Prefixes::Decimal)
}

/// [`human_sig`] with the K/M/G of `prefixes` (time units always scale by 1000).
pub fn human_in(v: f64, unit: &str, digits: usize, prefixes: Prefixes) -> String {
    let sig3 = |v: f64| sig(v, digits);
    if !v.is_finite() {
        return "–".to_string();
    }
    if let Some(per) = time_unit_ns(unit) {
        let ns = v * per;
        let a = ns.abs();
        let (scaled, u) = if a == 0.0 {
            (0.0, unit_display(unit))
        } else if a < 1e3 {
            (ns, "ns")
        } else if a < 1e6 {
            (ns / 1e3, "µs")
        } else if a < 1e9 {
            (ns / 1e6, "ms")
        } else {
            (ns / 1e9, "s")
        };
        return format!("{} {u}", sig3(scaled));
    }
    let a = v.abs();
    let k = match prefixes {
        Prefixes::Decimal => 1e3,
        Prefixes::Binary => 1024.0,
    };
    let (scaled, suffix) = if a >= 1e9 {
        (v / (k * k * k), "G")
    } else if a >= 1e6 {
        (v / (k * k), "M")
    } else if a >= 1e4 {
        (v / k, "K")
    } else {
        (v, "")
    };
    let unit = unit.trim();
    match unit {
        "" => format!("{}{suffix}", sig3(scaled)),
        "%" => format!("{}{suffix}%", sig3(scaled)),
        u if u.starts_with('/') => format!("{}{suffix}{u}", sig3(scaled)),
        u => format!("{}{suffix} {u}", sig3(scaled)),
    }
}

/// An axis caption: the name alone for time units (the ticks carry µs, ms, s) and for
/// unitless counts, else `name (unit)`; never an empty `()`.
pub fn axis_caption(name: &str, unit: &str) -> String {
    let unit = unit_display(unit);
    if unit.is_empty() || time_unit_ns(unit).is_some() {
        name.to_string()
    } else {
        format!("{name} ({unit})")
    }
}

/// The unit as shown to people (`us` → `µs`).
pub fn unit_display(unit: &str) -> &str {
    match unit.trim() {
        "us" | "μs" => "µs",
        u => u,
    }
}

/// A percentile as people name it: `50%`, `99.9%`, `max` for 100.
pub fn percentile_name(p: f64) -> String {
    if p >= 100.0 {
        "max".to_string()
    } else {
        let s = format!("{p:.4}");
        let s = s.trim_end_matches('0').trim_end_matches('.');
        format!("{s}%")
    }
}

/// A signed percentage with one decimal (`+2.5%`, `−12.6%`).
pub fn signed_pct(v: f64) -> String {
    if !v.is_finite() {
        return "–".to_string();
    }
    if v < 0.0 {
        format!("−{:.1}%", -v)
    } else {
        format!("+{v:.1}%")
    }
}

/// A signed percentage as round as it is (`+25%`, `−0.5%`, `+1000%`), for axis ticks.
pub fn signed_pct_round(v: f64) -> String {
    if !v.is_finite() {
        return "–".to_string();
    }
    let body = sig(v.abs(), 3);
    if v < 0.0 {
        format!("−{body}%")
    } else {
        format!("+{body}%")
    }
}

/// A number for tables: four significant digits without exponent (`3.388`, `68.36`,
/// `13467`, `12.50`), a whole number without decimals (`5`, not `5.000`); `-` for none.
pub fn num(v: Option<f64>) -> String {
    match v {
        None => "-".to_string(),
        Some(v) if !v.is_finite() => v.to_string(),
        Some(0.0) => "0".to_string(),
        // A whole number as it was written: a count of 5 is not 5.000.
        Some(v) if v.fract() == 0.0 && v.abs() < 1e15 => format!("{v:.0}"),
        Some(v) => {
            let digits = 3 - v.abs().log10().floor() as i32;
            format!("{v:.*}", digits.clamp(0, 6) as usize)
        }
    }
}

/// A percentile as a number without trailing zeros (`99`, `99.9`), as cell names and
/// gate reasons print it.
pub fn percentile_number(p: f64) -> String {
    let s = format!("{p:.6}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// A percentile column (`99.9`, `-` for none).
pub fn percentile(p: Option<f64>) -> String {
    p.map_or("-".to_string(), percentile_number)
}

/// A p-value for people: four decimals, or `<0.0001`.
pub fn p_value(p: f64) -> String {
    if p < 1e-4 {
        "<0.0001".to_string()
    } else {
        format!("{p:.4}")
    }
}

/// A p-value column (`-` for none).
pub fn p(v: Option<f64>) -> String {
    v.map_or("-".to_string(), p_value)
}

/// Rounds to 15 significant digits (what an f64 holds exactly) for JSON, so binary
/// noise (`3.3880000000000003`) does not leak into machine output.
pub fn json_num(v: Option<f64>) -> Option<f64> {
    let v = v.filter(|v| v.is_finite())?;
    if v == 0.0 {
        return Some(0.0);
    }
    format!("{v:.14e}").parse().ok()
}

/// A signed percentage with two decimals for tables (`-12.58%`); `-` for none.
pub fn pct(v: Option<f64>) -> String {
    v.map_or("-".to_string(), |v| format!("{v:+.2}%"))
}

/// A count with its noun, singular for one: `1 run`, `2 runs`, `0 runs`. Every noun
/// counted in the output takes an `s` in the plural.
pub fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// The first `shown` names joined by commas, and how many more there are: `a, b, and 3
/// more`.
pub fn first_names(names: &[String], shown: usize) -> String {
    let mut text = names
        .iter()
        .take(shown)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > shown {
        text.push_str(&format!(", and {} more", names.len() - shown));
    }
    text
}

/// A percentage with two decimals for tables (`13.91`); `-` for none.
pub fn pct2(v: Option<f64>) -> String {
    v.map_or_else(|| "-".to_string(), |v| format!("{v:.2}"))
}

/// Decimals for a table's values: for each value the fewer of the decimals it was written
/// with and those that show four significant digits (`0.09` takes two, `0.0126547` five,
/// `12.345` two), the most of those over the values; at least two, as JLBH prints its
/// tables, and at most nine. (Not the point encoder's `decimal`: that one fixes stored
/// bytes, this one only how many digits a table shows.)
pub fn table_decimals(values: impl IntoIterator<Item = f64>) -> usize {
    column_decimals(values).max(2)
}

/// Decimals for a column of values, one number for all of them so that its whole numbers
/// print as the others do (`8.00` beside `16.00`, not `8`): for each value the fewer of
/// the decimals it was written with and those that show four significant digits, the most
/// of those over the values (none for a column of whole numbers).
pub fn column_decimals(values: impl IntoIterator<Item = f64>) -> usize {
    values
        .into_iter()
        .filter(|v| v.is_finite() && *v != 0.0)
        .map(|v| {
            let significant = (3 - v.abs().log10().floor() as i64).clamp(0, 9) as usize;
            written_decimals(v).unwrap_or(9).min(significant)
        })
        .fold(0, usize::max)
}

/// The fewest decimals (up to nine) that write `v` exactly: `m / 10^N` gives `v` back for
/// the integer `m` nearest `v·10^N` (as reading the number `m` with N decimals does).
fn written_decimals(v: f64) -> Option<usize> {
    (0..=9).find(|&n| {
        let p = 10f64.powi(n as i32);
        let m = (v * p).round();
        m.abs() < 9_007_199_254_740_992.0 && (m / p).to_bits() == v.to_bits()
    })
}

/// `v` with `decimals` decimals (see [`table_decimals`]), with an exponent where they would
/// show a nonzero value as zero (`1.110e-16`); `-` for none.
pub fn fixed(v: Option<f64>, decimals: usize) -> String {
    match v {
        None => "-".to_string(),
        Some(v) if v != 0.0 && v.is_finite() && v.abs() < 0.5 * 10f64.powi(-(decimals as i32)) => {
            format!("{v:.3e}")
        }
        Some(v) => format!("{v:.decimals$}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_time_units() {
        assert_eq!(human(62.46, "us"), "62.5 µs");
        assert_eq!(human(1500.0, "us"), "1.5 ms");
        assert_eq!(human(0.5, "us"), "500 ns");
        assert_eq!(human(8.88, "ms"), "8.88 ms");
        assert_eq!(human(2500.0, "ms"), "2.5 s");
        assert_eq!(human(0.0, "us"), "0 µs");
    }

    #[test]
    fn human_counts() {
        assert_eq!(human(92_000.0, "ops/s"), "92K ops/s");
        assert_eq!(human(1.3e9, ""), "1.3G");
        assert_eq!(human(68.36, "%"), "68.4%");
        assert_eq!(human(1234.0, ""), "1234");
        assert_eq!(human(0.01234, ""), "0.0123");
        assert_eq!(human(-40.0, "%"), "−40%");
        // tsar's 92.0K is 92.0·1024 and reads back as printed.
        assert_eq!(
            human_in(92.0 * 1024.0, "req/s", 3, Prefixes::Binary),
            "92K req/s"
        );
        assert_eq!(
            human_in(1.3 * 1024f64.powi(3), "", 3, Prefixes::Binary),
            "1.3G"
        );
    }

    #[test]
    fn percentiles_and_deltas() {
        assert_eq!(percentile_name(50.0), "50%");
        assert_eq!(percentile_name(99.99), "99.99%");
        assert_eq!(percentile_name(99.997), "99.997%");
        assert_eq!(percentile_name(100.0), "max");
        assert_eq!(signed_pct(-12.58), "−12.6%");
        assert_eq!(signed_pct(2.51), "+2.5%");
    }

    #[test]
    fn table_numbers() {
        assert_eq!(num(Some(3.388)), "3.388");
        assert_eq!(num(Some(2.961_818)), "2.962");
        assert_eq!(num(Some(68.36)), "68.36");
        assert_eq!(num(Some(13467.0)), "13467");
        assert_eq!(num(Some(0.012_34)), "0.01234");
        // A whole number has no decimals to show; others keep four significant digits.
        assert_eq!(num(Some(5.0)), "5");
        assert_eq!(num(Some(320.0)), "320");
        assert_eq!(num(Some(-2.0)), "-2");
        assert_eq!(num(Some(12.5)), "12.50");
        assert_eq!(num(Some(0.012_654_691_44)), "0.01265");
        assert_eq!(num(None), "-");
        assert_eq!(pct(Some(2.5)), "+2.50%");
        assert_eq!(json_num(Some(3.3880000000000003)), Some(3.388));
        assert_eq!(json_num(Some(f64::NAN)), None);
        assert_eq!(percentile(Some(99.9)), "99.9");
        assert_eq!(percentile(Some(50.0)), "50");
        assert_eq!(percentile(None), "-");
        assert_eq!(p(Some(0.04567)), "0.0457");
        assert_eq!(p(Some(1e-7)), "<0.0001");
        assert_eq!(pct(Some(-12.584)), "-12.58%");
        assert_eq!(pct2(Some(13.914)), "13.91");
        assert_eq!(pct2(None), "-");
    }

    #[test]
    fn table_values_keep_their_digits() {
        // JLBH's tables: two decimals, as it printed them.
        let jlbh = [10.66, 0.09, 2031.62];
        assert_eq!(table_decimals(jlbh), 2);
        assert_eq!(fixed(Some(0.09), 2), "0.09");
        // hyperfine's seconds: four significant digits, not `0.01`.
        let secs = [0.012654691440000001, 0.0099708, 0.026671475440000002];
        assert_eq!(table_decimals(secs), 6);
        assert_eq!(fixed(Some(0.012654691440000001), 6), "0.012655");
        // Its own decimals, up to four significant digits; below what nine show, an exponent.
        assert_eq!(table_decimals([1.234, 7.0]), 3);
        assert_eq!(table_decimals([12.345, 7.0]), 2);
        assert_eq!(table_decimals([1.1102230246251565e-16]), 9);
        assert_eq!(fixed(Some(1.1102230246251565e-16), 9), "1.110e-16");
        assert_eq!(fixed(Some(0.0), 2), "0.00");
        assert_eq!(fixed(None, 2), "-");
    }
}
