//! The number shapes JGroups tools print, turned into plain `f64`s.
//!
//! Java's `%,d` / `%,.2f` grouping commas, `NumberFormat` output without grouping, decimal
//! count suffixes (`1.23k`, `12.3M`), `Util.printBytes` sizes (`512.0b`, `137.61MB`, `2GB`;
//! decimal, 1000-based) and `Util.printTime` durations (`150ns`, `73.06us`, `1.23ms`).
//! Suffixes are multipliers applied here, never units: callers store bytes and microseconds.
//! Nothing here knows about lines or blocks.

use crate::model::Param;

/// A plain or grouped decimal (`13402`, `1,512,859.30`, `-1`, `0.0`, `1.0E-4`).
pub fn number(s: &str) -> Option<f64> {
    scaled(s, 0)
}

/// `s` as a number times `10^exp10`, rounded once: the decimal point is shifted in the
/// text (`137.61` with 6 parses as `137.61e6`), so `137.61MB` is exactly 137 610 000.
///
/// Grouping commas are accepted only between digits, so a list separator (`1,`) is not a
/// number. Hand-written because Rust's `f64` parser rejects grouping.
fn scaled(s: &str, exp10: i32) -> Option<f64> {
    let t = s.trim();
    let bytes = t.as_bytes();
    let mut plain = String::with_capacity(t.len() + 4);
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b',' => {
                let between_digits = i > 0
                    && bytes[i - 1].is_ascii_digit()
                    && bytes.get(i + 1).is_some_and(u8::is_ascii_digit);
                if !between_digits {
                    return None;
                }
            }
            b'0'..=b'9' | b'.' | b'-' | b'+' | b'e' | b'E' => plain.push(b as char),
            _ => return None,
        }
    }
    if !bytes.iter().any(u8::is_ascii_digit) {
        return None;
    }
    let v = if exp10 == 0 {
        plain.parse::<f64>().ok()?
    } else if plain.contains(['e', 'E']) {
        plain.parse::<f64>().ok()? * 10f64.powi(exp10)
    } else {
        format!("{plain}e{exp10}").parse::<f64>().ok()?
    };
    v.is_finite().then_some(v)
}

/// Splits `12.3MB` into (`12.3`, `MB`): the numeric head and the alphabetic tail.
fn split_suffix(s: &str) -> (&str, &str) {
    let t = s.trim();
    let cut = t
        .char_indices()
        .rev()
        .take_while(|(_, c)| c.is_alphabetic())
        .last()
        .map_or(t.len(), |(i, _)| i);
    (t[..cut].trim_end(), &t[cut..])
}

/// A count with an optional decimal multiplier: `13402`, `1.23k` (1230), `12.3M`, `2G`.
pub fn count(s: &str) -> Option<f64> {
    let (num, suffix) = split_suffix(s);
    let exp = match suffix {
        "" => 0,
        "k" | "K" => 3,
        "M" => 6,
        "G" => 9,
        _ => return None,
    };
    scaled(num, exp)
}

/// A size printed by `Util.printBytes`, in bytes: `512.0b` → 512, `137.61MB` → 137 610 000.
pub fn bytes(s: &str) -> Option<f64> {
    let (num, suffix) = split_suffix(s);
    let exp = match suffix {
        "b" | "B" => 0,
        "KB" | "kB" | "kb" => 3,
        "MB" => 6,
        "GB" => 9,
        "TB" => 12,
        _ => return None,
    };
    scaled(num, exp)
}

/// `value` printed in the time `unit` (`Util.printTime` suffixes), in microseconds.
pub fn to_micros(num: &str, unit: &str) -> Option<f64> {
    match unit {
        "ns" => scaled(num, -3),
        "us" | "µs" | "μs" => scaled(num, 0),
        "ms" => scaled(num, 3),
        "s" => scaled(num, 6),
        "m" => scaled(num, 6).map(|v| v * 60.0),
        "h" => scaled(num, 6).map(|v| v * 3600.0),
        "d" => scaled(num, 6).map(|v| v * 86_400.0),
        _ => None,
    }
}

/// A duration printed by `Util.printTime` (`73.06us`, `1.23ms`, `150ns`), in microseconds.
pub fn micros(s: &str) -> Option<f64> {
    let (num, suffix) = split_suffix(s);
    to_micros(num, suffix)
}

/// A configuration value: `true`/`false` are flags, numbers are numbers, the rest is text.
pub fn param(value: &str) -> Param {
    match value.trim() {
        "true" => Param::Bool(true),
        "false" => Param::Bool(false),
        v => number(v).map_or_else(|| Param::Text(v.to_string()), Param::Num),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_and_grouped_numbers() {
        assert_eq!(number("13402"), Some(13402.0));
        assert_eq!(number("1,512,859.30"), Some(1_512_859.3));
        assert_eq!(number("-1"), Some(-1.0));
        assert_eq!(number("1.0E-4"), Some(1.0e-4));
        assert_eq!(number(" 0.0 "), Some(0.0));
        assert_eq!(number("1,"), None);
        assert_eq!(number(",1"), None);
        assert_eq!(number("13x02"), None);
        assert_eq!(number("."), None);
        assert_eq!(number(""), None);
        assert_eq!(number("NaN"), None);
    }

    #[test]
    fn counts_with_decimal_multipliers() {
        assert_eq!(count("1.23k"), Some(1230.0));
        assert_eq!(count("12.5M"), Some(12_500_000.0));
        assert_eq!(count("2G"), Some(2e9));
        assert_eq!(count("755,857.90"), Some(755_857.9));
        assert_eq!(count("12MB"), None);
    }

    #[test]
    fn sizes_are_decimal_bytes() {
        assert_eq!(bytes("512.0b"), Some(512.0));
        assert_eq!(bytes("1KB"), Some(1000.0));
        assert_eq!(bytes("137.61MB"), Some(137_610_000.0));
        assert_eq!(bytes("2GB"), Some(2e9));
        assert_eq!(bytes("1,234.50MB"), Some(1_234_500_000.0));
        assert_eq!(bytes("2XB"), None);
        assert_eq!(bytes("2"), None);
    }

    #[test]
    fn durations_in_microseconds() {
        assert_eq!(micros("73.06us"), Some(73.06));
        assert_eq!(micros("1.5ms"), Some(1500.0));
        assert_eq!(micros("150ns"), Some(0.15));
        assert_eq!(micros("2s"), Some(2e6));
        assert_eq!(micros("2"), None);
    }

    #[test]
    fn config_values() {
        assert_eq!(param("true"), Param::Bool(true));
        assert_eq!(param("1000000"), Param::Num(1e6));
        assert_eq!(param("-1"), Param::Num(-1.0));
        assert_eq!(param("UNICAST2"), Param::Text("UNICAST2".into()));
    }
}
