//! Numbers as JLBH prints them under any JVM locale: grouping separators (`20,450`,
//! `20.450`, `20 450` with U+00A0, `20'450`), decimal commas, and the cells that are
//! not numbers (`Infinity`, `-Infinity`, `NaN`, the `...` of masked test output).
//!
//! Hand-written rather than a locale crate: the separators must be guessed from the text
//! itself (the printing JVM's locale is unknown), one cell at a time, without allocating.

/// What a block's own text says about its decimal separator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Decimal {
    /// Nothing seen yet: guess per number.
    #[default]
    Unknown,
    /// `.` is the decimal point; `,`, `'` and spaces group digits (en, de-CH).
    Point,
    /// `,` is the decimal point; `.` and spaces group digits (de, fr, ru).
    Comma,
}

impl Decimal {
    /// The convention implied by the grouping separator of a `%,d` count such as
    /// `50,000`; `None` when the count shows no separator.
    pub fn from_grouped_count(count: &str) -> Option<Decimal> {
        for c in count.chars() {
            match c {
                ',' | '\'' | '’' => return Some(Decimal::Point),
                '.' | '\u{a0}' | '\u{202f}' | ' ' => return Some(Decimal::Comma),
                _ => {}
            }
        }
        None
    }
}

/// A grouping or decimal separator character.
fn is_separator(c: char) -> bool {
    matches!(c, '.' | ',' | '\'' | '’' | '\u{a0}' | '\u{202f}' | ' ')
}

/// Parses an integer count printed with `%,d` (`50,000`, `1.000.000`, `26 960`).
pub fn parse_count(s: &str) -> Option<u64> {
    let mut v: u64 = 0;
    let mut digits = 0;
    for c in s.chars() {
        if let Some(d) = c.to_digit(10) {
            v = v.checked_mul(10)?.checked_add(u64::from(d))?;
            digits += 1;
        } else if !is_separator(c) {
            return None;
        }
    }
    (digits > 0).then_some(v)
}

/// A table or probe-line cell: `Ok(Some(v))` for a number, `Ok(None)` for an absent
/// value (`Infinity`, `-Infinity`, `NaN`, `...`), `Err(())` when it is not a cell.
pub fn parse_cell(tok: &str, dec: Decimal) -> Result<Option<f64>, ()> {
    if dec != Decimal::Comma
        && let Some(v) = plain_decimal(tok.as_bytes())
    {
        return Ok(Some(v));
    }
    match tok {
        "Infinity" | "-Infinity" | "+Infinity" | "NaN" | "∞" | "-∞" => return Ok(None),
        _ if tok.starts_with("...") || tok == "…" => return Ok(None),
        _ => {}
    }
    parse_number(tok, dec).map(Some).ok_or(())
}

/// Parses a decimal number with optional locale separators; `None` if it is not one.
pub fn parse_number(tok: &str, dec: Decimal) -> Option<f64> {
    let b = tok.as_bytes();
    if b.is_empty() || b.len() > 40 {
        return None;
    }
    // Fast path: plain `123` / `12.34` / `-0.5`, the overwhelmingly common shape.
    if dec != Decimal::Comma
        && let Some(v) = plain_decimal(b)
    {
        return Some(v);
    }
    let decimal = decimal_char(tok, dec)?;
    // Rebuild `[-]digits[.digits]` on the stack, dropping grouping separators.
    let mut buf = [0u8; 48];
    let mut n = 0;
    let mut seen_decimal = false;
    let mut digits = 0;
    for (i, c) in tok.char_indices() {
        let out = if let Some(d) = c.to_digit(10) {
            digits += 1;
            b'0' + d as u8
        } else if (c == '-' || c == '\u{2212}') && i == 0 {
            // CLDR locales (sv, fi, …) print U+2212 MINUS SIGN.
            b'-'
        } else if Some(c) == decimal {
            if seen_decimal {
                return None;
            }
            seen_decimal = true;
            b'.'
        } else if is_separator(c) {
            continue;
        } else {
            return None;
        };
        if n == buf.len() {
            return None;
        }
        buf[n] = out;
        n += 1;
    }
    if digits == 0 {
        return None;
    }
    std::str::from_utf8(&buf[..n]).ok()?.parse().ok()
}

/// Powers of ten that are exact in an `f64`.
const POW10: [f64; 16] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
];

/// `[-]digits[.digits]` with at most 15 digits, parsed exactly and fast: the digits form
/// an integer below 2^53 and 10^k is exact, so one division rounds correctly (Clinger's
/// fast path) and the result equals `str::parse`. `None` for any other shape.
pub fn plain_decimal(b: &[u8]) -> Option<f64> {
    let (negative, b) = match b.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, b),
    };
    let mut mantissa: u64 = 0;
    let mut digits = 0;
    let mut seen = false;
    let mut point = None;
    for (i, &c) in b.iter().enumerate() {
        match c {
            b'0'..=b'9' => {
                // Leading zeros add no significant digit.
                if mantissa > 0 || c != b'0' {
                    digits += 1;
                    if digits > 15 {
                        return None;
                    }
                }
                mantissa = mantissa * 10 + u64::from(c - b'0');
                seen = true;
            }
            b'.' if point.is_none() => point = Some(i),
            _ => return None,
        }
    }
    let scale = point.map_or(0, |i| b.len() - i - 1);
    if !seen || scale >= POW10.len() {
        return None;
    }
    let v = mantissa as f64 / POW10[scale];
    Some(if negative { -v } else { v })
}

/// The commonest cell, a plain `ddd.dd` at the start of `b` ending at a blank or the end:
/// its value and length, read in the same pass that finds the end of the token (cells are
/// half the bytes of an output). `None` for any other shape, which [`parse_cell`] then
/// reads; where both read a token they agree, as both compute `digits / 10^scale`.
#[inline]
pub fn plain_cell(b: &[u8], dec: Decimal) -> Option<(f64, usize)> {
    let mut mantissa = 0;
    let whole = digits(b, 0, &mut mantissa);
    let mut n = whole;
    let mut scale = 0;
    // Under a decimal comma a point groups digits: the general path reads it.
    if b.get(n) == Some(&b'.') && dec != Decimal::Comma {
        scale = digits(b, n + 1, &mut mantissa);
        n += 1 + scale;
    }
    if !matches!(b.get(n), None | Some(b' ' | b'\t')) {
        return None;
    }
    // Fifteen digits at most: the mantissa is exact in an `f64`.
    if whole + scale == 0 || whole + scale > 15 {
        return None;
    }
    Some((mantissa as f64 / POW10[scale], n))
}

/// Appends the ASCII digits of `b` from `at` to `mantissa`; returns how many there were.
#[inline]
fn digits(b: &[u8], at: usize, mantissa: &mut u64) -> usize {
    let mut n = at;
    while let Some(d) = b
        .get(n)
        .and_then(|c| c.checked_sub(b'0'))
        .filter(|&d| d < 10)
    {
        // Wrapping: a mantissa of more than 15 digits is refused anyway.
        *mantissa = mantissa.wrapping_mul(10).wrapping_add(u64::from(d));
        n += 1;
    }
    n - at
}

/// Which character of `tok` is its decimal separator (`None`: an integer).
/// `Err`-free: ambiguous shapes are resolved by the rules of Java's printers, where a
/// single `,` or `.` followed by exactly three digits after a non-zero integer part is
/// a grouping separator (`2,950` is the old probe format's rounded integer).
fn decimal_char(tok: &str, dec: Decimal) -> Option<Option<char>> {
    let last_comma = tok.rfind(',');
    let last_dot = tok.rfind('.');
    Some(match dec {
        Decimal::Point => Some('.'),
        Decimal::Comma => Some(','),
        Decimal::Unknown => match (last_comma, last_dot) {
            (Some(c), Some(d)) => Some(if c > d { ',' } else { '.' }),
            (Some(_), None) => guess(tok, ','),
            (None, Some(_)) => guess(tok, '.'),
            (None, None) => None,
        },
    })
}

/// Decides whether the only separator kind `sep` in `tok` is a decimal or a grouping one.
fn guess(tok: &str, sep: char) -> Option<char> {
    let count = tok.matches(sep).count();
    if count > 1 {
        return None;
    }
    let (int, frac) = tok.split_once(sep)?;
    let int = int.trim_start_matches('-');
    let grouped = frac.len() == 3
        && frac.bytes().all(|b| b.is_ascii_digit())
        && !int.is_empty()
        && int != "0"
        && int.len() <= 3;
    if grouped { None } else { Some(sep) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_numbers() {
        assert_eq!(parse_number("34", Decimal::Unknown), Some(34.0));
        assert_eq!(parse_number("2949.12", Decimal::Unknown), Some(2949.12));
        assert_eq!(parse_number("-200.00", Decimal::Unknown), Some(-200.0));
        assert_eq!(parse_number("0.100", Decimal::Unknown), Some(0.1));
        assert_eq!(parse_number("abc", Decimal::Unknown), None);
        assert_eq!(parse_number("", Decimal::Unknown), None);
        assert_eq!(parse_number("-", Decimal::Unknown), None);
        assert_eq!(parse_number("1e5", Decimal::Unknown), None);
        assert_eq!(parse_number("inf", Decimal::Unknown), None);
    }

    #[test]
    fn fast_path_equals_std_parse() {
        for s in [
            "0",
            "1",
            "2.5",
            "2949.12",
            "0.100",
            "99.9997",
            "163577.86",
            "-200.00",
            "1.",
            ".5",
            "123456789012345",
            "0.000000000000001",
            "8.07",
            "20447.23",
        ] {
            assert_eq!(plain_decimal(s.as_bytes()), s.parse::<f64>().ok(), "{s}");
        }
        for s in [
            "",
            "-",
            ".",
            "1.2.3",
            "1e5",
            "1234567890123456",
            "+1",
            "1,5",
            "0.0000000000000001",
        ] {
            assert_eq!(plain_decimal(s.as_bytes()), None, "{s}");
        }
        let mut x: u64 = 88172645463325252;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let s = format!("{}.{:02}", x % 1_000_000, (x >> 20) % 100);
            assert_eq!(plain_decimal(s.as_bytes()), s.parse::<f64>().ok(), "{s}");
        }
    }

    #[test]
    fn plain_cells_agree_with_parse_cell() {
        for dec in [Decimal::Unknown, Decimal::Point, Decimal::Comma] {
            for s in [
                "0",
                "1",
                "2.5",
                "2949.12",
                "0.100",
                "1.",
                ".5",
                "123456789012345",
                "007.50",
                "20.450",
                "12.5x",
                "1,5",
                "-3",
                ".",
                "",
                "1.2.3",
                "1234567890123456",
                "000000000000000.1",
                "123456789012345678901234567890",
                "9.99999999999999999999",
            ] {
                let fast = plain_cell(s.as_bytes(), dec);
                if let Some((v, n)) = fast {
                    assert_eq!(n, s.len(), "{s}");
                    assert_eq!(parse_cell(s, dec), Ok(Some(v)), "{s} {dec:?}");
                }
                let blank = format!("{s}  next");
                assert_eq!(plain_cell(blank.as_bytes(), dec), fast, "{s} {dec:?}");
            }
        }
        assert_eq!(plain_cell(b"20.450", Decimal::Comma), None);
        assert_eq!(
            plain_cell(b"2949.12\t1", Decimal::Point),
            Some((2949.12, 7))
        );
    }

    #[test]
    fn grouped_numbers() {
        assert_eq!(parse_number("2,950", Decimal::Unknown), Some(2950.0));
        assert_eq!(parse_number("1,711,280", Decimal::Unknown), Some(1711280.0));
        assert_eq!(parse_number("20.450", Decimal::Comma), Some(20450.0));
        assert_eq!(parse_number("20\u{a0}450", Decimal::Unknown), Some(20450.0));
        assert_eq!(parse_number("20'450", Decimal::Unknown), Some(20450.0));
        assert_eq!(parse_number("1.711.280", Decimal::Unknown), Some(1711280.0));
    }

    #[test]
    fn decimal_commas() {
        assert_eq!(parse_number("33,79", Decimal::Unknown), Some(33.79));
        assert_eq!(parse_number("9,0", Decimal::Unknown), Some(9.0));
        assert_eq!(parse_number("0,100", Decimal::Unknown), Some(0.1));
        assert_eq!(parse_number("1.234,5", Decimal::Unknown), Some(1234.5));
        assert_eq!(parse_number("2,950", Decimal::Comma), Some(2.95));
        assert_eq!(parse_number("20.450,25", Decimal::Comma), Some(20450.25));
        assert_eq!(parse_number("1,5,0", Decimal::Comma), None);
        assert_eq!(parse_number("\u{2212}200,00", Decimal::Comma), Some(-200.0));
        assert_eq!(parse_number("5\u{2212}2", Decimal::Unknown), None);
    }

    #[test]
    fn cells_and_counts() {
        assert_eq!(parse_cell("Infinity", Decimal::Unknown), Ok(None));
        assert_eq!(parse_cell("-Infinity", Decimal::Unknown), Ok(None));
        assert_eq!(parse_cell("...", Decimal::Unknown), Ok(None));
        assert_eq!(parse_cell("...s", Decimal::Unknown), Ok(None));
        assert_eq!(parse_cell("12.5", Decimal::Unknown), Ok(Some(12.5)));
        assert_eq!(parse_cell("x1", Decimal::Unknown), Err(()));
        assert_eq!(parse_count("50,000"), Some(50000));
        assert_eq!(parse_count("26\u{a0}960"), Some(26960));
        assert_eq!(parse_count("169"), Some(169));
        assert_eq!(parse_count("5O,000"), None);
        assert_eq!(parse_count(""), None);
        assert_eq!(Decimal::from_grouped_count("50.000"), Some(Decimal::Comma));
        assert_eq!(Decimal::from_grouped_count("50,000"), Some(Decimal::Point));
        assert_eq!(Decimal::from_grouped_count("169"), None);
    }
}
