//! Printed numbers with units, as wrk and the HdrHistogram printers write them: exact
//! decimal rescaling (`0.039` ms → `39` µs without binary rounding error), wrk's time
//! units (`us`, `ms`, `s`, `m`, `h`), its metric counts (`56.20k`) and its 1024-based byte
//! sizes (`19.81MB`). Pure string → number functions; no format knowledge beyond units.

/// Parses a plain decimal (`12.927`, `-3`, `.5`) multiplied by `10^pow10`, moving the
/// decimal point in the text before converting, so `0.039` scaled by 3 is exactly `39.0`.
/// `None` for anything that is not a plain finite decimal (exponents, `inf`, junk).
pub fn scaled_decimal(s: &str, pow10: i32) -> Option<f64> {
    let (sign, body) = match s.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", s.strip_prefix('+').unwrap_or(s)),
    };
    let (int, frac) = body.split_once('.').unwrap_or((body, ""));
    let digits_ok = |d: &str| d.bytes().all(|b| b.is_ascii_digit());
    if (int.is_empty() && frac.is_empty()) || !digits_ok(int) || !digits_ok(frac) {
        return None;
    }
    let mut digits = String::with_capacity(int.len() + frac.len());
    digits.push_str(int);
    digits.push_str(frac);
    // Position of the decimal point inside `digits` after scaling.
    let point = int.len() as i64 + i64::from(pow10);
    let text = if point <= 0 {
        format!(
            "{sign}0.{}{digits}",
            "0".repeat(point.unsigned_abs() as usize)
        )
    } else if point as usize >= digits.len() {
        format!(
            "{sign}{digits}{}",
            "0".repeat(point as usize - digits.len())
        )
    } else {
        let (a, b) = digits.split_at(point as usize);
        format!("{sign}{a}.{b}")
    };
    text.parse::<f64>().ok().filter(|v| v.is_finite())
}

/// Splits `12.92ms` into the number text and its alphabetic suffix (`12.92`, `ms`).
fn split_suffix(s: &str) -> (&str, &str) {
    let end = s.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(s.len());
    (&s[..end], &s[end..])
}

/// A wrk time (`635.91us`, `0.89ms`, `1.42s`, `1.00m`, `2h`) in microseconds.
/// A bare number is taken as microseconds, as wrk's own unit table starts there.
pub fn time_us(s: &str) -> Option<f64> {
    let (num, unit) = split_suffix(s);
    match unit {
        "us" | "" => scaled_decimal(num, 0),
        "ms" => scaled_decimal(num, 3),
        "s" => scaled_decimal(num, 6),
        "m" => scaled_decimal(num, 6).map(|v| v * 60.0),
        "h" => scaled_decimal(num, 6).map(|v| v * 3600.0),
        _ => None,
    }
}

/// A wrk duration (`30s`, `1m`, `10.10s`, `1.00m`, `2h`, `500ms`) in seconds.
pub fn duration_s(s: &str) -> Option<f64> {
    time_us(s)
        .map(|us| us / 1e6)
        .filter(|_| !split_suffix(s).1.is_empty())
}

/// A wrk metric amount (`56.20k`, `231.13`, `1.33M`): suffixes are powers of 1000.
pub fn metric_count(s: &str) -> Option<f64> {
    let (num, unit) = split_suffix(s);
    let pow = match unit {
        "" => 0,
        "k" => 3,
        "M" => 6,
        "G" => 9,
        "T" => 12,
        "P" => 15,
        _ => return None,
    };
    scaled_decimal(num, pow)
}

/// A wrk byte size (`19.81MB`, `676.14KB`, `512.00B`, `7.85GB`) in bytes: wrk's binary
/// units are powers of 1024 (`units.c`, `binary_units`).
pub fn bytes(s: &str) -> Option<f64> {
    let (num, unit) = split_suffix(s);
    let pow = match unit {
        "B" => 0,
        "KB" => 1,
        "MB" => 2,
        "GB" => 3,
        "TB" => 4,
        "PB" => 5,
        _ => return None,
    };
    scaled_decimal(num, 0).map(|v| v * 1024f64.powi(pow))
}

/// A printed cell that is not a number; callers name the file line in their own error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotANumber;

/// Parses a number as Java's `Long.toString` / `Double.toString` print it (`12`, `0.5789`,
/// `1.0E-4`, `NaN`, `Infinity`). `Ok(None)` for the non-finite ones, `Err` for text.
pub fn java_number(s: &str) -> Result<Option<f64>, NotANumber> {
    let s = s.trim();
    match s {
        "NaN" | "Infinity" | "-Infinity" => return Ok(None),
        _ => {}
    }
    // Rust also accepts `inf`/`nan` spellings Java never prints: demand a digit.
    if !s.bytes().any(|b| b.is_ascii_digit()) {
        return Err(NotANumber);
    }
    s.parse::<f64>().map(Some).map_err(|_| NotANumber)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_scale_exactly() {
        assert_eq!(scaled_decimal("0.039", 3), Some(39.0));
        assert_eq!(scaled_decimal("12.927", 3), Some(12927.0));
        assert_eq!(scaled_decimal("1.5", -2), Some(0.015));
        assert_eq!(scaled_decimal("-2.5", 1), Some(-25.0));
        assert_eq!(scaled_decimal("7", 2), Some(700.0));
        assert_eq!(scaled_decimal(".5", 0), Some(0.5));
        assert_eq!(scaled_decimal("1e3", 0), None);
        assert_eq!(scaled_decimal("inf", 0), None);
        assert_eq!(scaled_decimal("", 0), None);
        assert_eq!(scaled_decimal(".", 0), None);
        assert_eq!(scaled_decimal("1.2.3", 0), None);
    }

    #[test]
    fn wrk_units() {
        assert_eq!(time_us("635.91us"), Some(635.91));
        assert_eq!(time_us("0.89ms"), Some(890.0));
        assert_eq!(time_us("1.42s"), Some(1_420_000.0));
        assert_eq!(time_us("1.00m"), Some(60_000_000.0));
        assert_eq!(time_us("3xs"), None);
        assert_eq!(duration_s("30s"), Some(30.0));
        assert_eq!(duration_s("1m"), Some(60.0));
        assert_eq!(duration_s("10.10s"), Some(10.1));
        assert_eq!(duration_s("30"), None);
        assert_eq!(metric_count("56.20k"), Some(56_200.0));
        assert_eq!(metric_count("231.13"), Some(231.13));
        assert_eq!(metric_count("1.33M"), Some(1_330_000.0));
        assert_eq!(bytes("795.91MB"), Some(795.91 * 1024.0 * 1024.0));
        assert_eq!(bytes("512.00B"), Some(512.0));
        assert_eq!(bytes("12k"), None);
    }
}

/// Unix seconds as an RFC 3339 UTC time to the second (`2013-04-14T00:21:00Z`), the form
/// of a run's `time` tag; `None` out of range.
pub fn rfc3339_utc(secs: f64) -> Option<String> {
    use chrono::{Datelike, Timelike};
    if !secs.is_finite() {
        return None;
    }
    let t = chrono::DateTime::from_timestamp(secs.floor() as i64, 0)?;
    Some(format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z",
        t.year(),
        t.month(),
        t.day(),
        t.hour(),
        t.minute(),
        t.second()
    ))
}

#[cfg(test)]
mod rfc3339_tests {
    #[test]
    fn unix_seconds_as_rfc3339() {
        assert_eq!(
            super::rfc3339_utc(1365898860.0).as_deref(),
            Some("2013-04-14T00:21:00Z")
        );
        assert_eq!(super::rfc3339_utc(f64::NAN), None);
    }
}
