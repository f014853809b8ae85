//! Units: time units (ns/us/ms/s) convert to one another; every other unit compares only
//! with itself. Quantities like `200us` split into number and unit.

/// Decimal exponent of a time unit in seconds (`ms` → −3); `None` for other units.
/// Exponents keep conversions exact (`10^3`, not `1e-3 / 1e-6`).
fn exponent(unit: &str) -> Option<i32> {
    match unit.trim() {
        "ns" | "nanos" => Some(-9),
        "us" | "µs" | "μs" | "micros" => Some(-6),
        "ms" | "millis" => Some(-3),
        "s" | "sec" | "secs" => Some(0),
        _ => None,
    }
}

/// Seconds per unit for the time units tools print; `None` for anything else.
pub fn seconds_per(unit: &str) -> Option<f64> {
    exponent(unit).map(|e| 10f64.powi(e))
}

/// Whether `unit` is a time unit.
pub fn is_time(unit: &str) -> bool {
    seconds_per(unit).is_some()
}

/// `value` in `from` expressed in `to`: identity for equal units, a scale for two time
/// units, `None` otherwise.
pub fn convert(value: f64, from: &str, to: &str) -> Option<f64> {
    if from.trim() == to.trim() {
        return Some(value);
    }
    let shift = exponent(from)? - exponent(to)?;
    Some(if shift >= 0 {
        value * 10f64.powi(shift)
    } else {
        value / 10f64.powi(-shift)
    })
}

/// Splits `200us` / `1.5 ms` / `42` into the number and the (possibly empty) unit.
pub fn split_quantity(text: &str) -> Option<(f64, &str)> {
    let t = text.trim();
    let end = t
        .find(|c: char| !(c.is_ascii_digit() || matches!(c, '.' | '-' | '+' | 'e' | 'E')))
        .unwrap_or(t.len());
    // An exponent marker must not swallow a unit starting with 'e'; retry without it.
    let (num, unit) = t.split_at(end);
    match num.parse::<f64>() {
        Ok(v) if v.is_finite() => Some((v, unit.trim())),
        _ => {
            let end = t.find(|c: char| !(c.is_ascii_digit() || matches!(c, '.' | '-' | '+')))?;
            let (num, unit) = t.split_at(end);
            num.parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .map(|v| (v, unit.trim()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converts_time_units_only() {
        assert_eq!(convert(2.0, "ms", "us"), Some(2000.0));
        assert_eq!(convert(1500.0, "ns", "us"), Some(1.5));
        assert_eq!(convert(5.0, "%", "%"), Some(5.0));
        assert_eq!(convert(5.0, "%", "ms"), None);
        assert_eq!(split_quantity("200us"), Some((200.0, "us")));
        assert_eq!(split_quantity(" 1.5 ms"), Some((1.5, "ms")));
        assert_eq!(split_quantity("42"), Some((42.0, "")));
        assert_eq!(split_quantity("us"), None);
    }
}
