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

/// A unit with one time unit in it, as the power of ten it scales a value by against
/// seconds and the rest: `ms` → (−3, ""), `us/op` → (−6, "/op"), `ops/ms` → (3, "ops/"):
/// a time per operation scales with its time unit, a rate per time unit against it.
fn time_scale(unit: &str) -> Option<(i32, &str)> {
    let unit = unit.trim();
    if let Some(e) = exponent(unit) {
        return Some((e, ""));
    }
    let (num, den) = unit.split_at(unit.find('/')?);
    match (exponent(num), exponent(&den[1..])) {
        (Some(e), None) => Some((e, den)),
        (None, Some(e)) => Some((-e, &unit[..=num.len()])),
        _ => None,
    }
}

/// What a unit measures apart from its time unit, when it has one: `""` for a time
/// (`ms`), `"/op"` for a time per operation (`us/op`), `"ops/"` for a rate (`ops/ms`);
/// units with the same answer convert into one another ([`convert`]).
pub fn time_dimension(unit: &str) -> Option<&str> {
    time_scale(unit).map(|(_, rest)| rest)
}

/// `value` in `from` expressed in `to`: identity for equal units, a scale for two time
/// units or two units alike but for their time unit (JMH's `us/op` and `ns/op`, `ops/ms`
/// and `ops/s`), `None` otherwise.
pub fn convert(value: f64, from: &str, to: &str) -> Option<f64> {
    if from.trim() == to.trim() {
        return Some(value);
    }
    let ((f, from_rest), (t, to_rest)) = (time_scale(from)?, time_scale(to)?);
    if from_rest != to_rest {
        return None;
    }
    let shift = f - t;
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

    /// JMH prints the unit it was told (`-tu`): 3.25 us/op is 3250 ns/op, 2.5 ops/ms is
    /// 2500 ops/s; a time per operation never converts into a rate, nor `ns` into `ns/op`.
    #[test]
    fn units_alike_but_for_their_time_unit_convert() {
        assert_eq!(convert(3.25, "us/op", "ns/op"), Some(3250.0));
        assert_eq!(convert(2.5, "ops/ms", "ops/s"), Some(2500.0));
        assert_eq!(convert(4000.0, "ops/s", "ops/ms"), Some(4.0));
        assert_eq!(convert(1.0, "ns/op", "ops/ns"), None);
        assert_eq!(convert(1.0, "ns", "ns/op"), None);
        assert_eq!(convert(1.0, "B/op", "B/op"), Some(1.0));
        assert_eq!(convert(1.0, "B/op", "KB/op"), None);
    }
}
