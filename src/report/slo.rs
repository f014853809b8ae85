//! Service-level objectives as the `--slo` option spells them (`p99<=200us`,
//! `p50<=1ms,p99.9<=5ms`, `max<=50ms`): parsed into percentile limits and converted to a
//! series' unit, ready to draw as a step line.

use super::fmt::time_unit_ns;
use anyhow::{Context, Result, bail};

/// One SLO term: the value at `percentile` (0–100, `max` = 100) must not exceed `limit`.
#[derive(Debug, Clone, PartialEq)]
pub struct SloTerm {
    pub percentile: f64,
    pub limit: f64,
    /// Unit as written (`us`, `ms`; empty for a bare number).
    pub unit: String,
}

/// Parses terms separated by `,` or `;`.
pub fn parse(text: &str) -> Result<Vec<SloTerm>> {
    let mut terms = Vec::new();
    for raw in text
        .split([',', ';'])
        .map(str::trim)
        .filter(|t| !t.is_empty())
    {
        let (lhs, rhs) = raw
            .split_once("<=")
            .or_else(|| raw.split_once('<'))
            .with_context(|| format!("SLO term {raw:?} is not like p99<=200us"))?;
        let lhs = lhs.trim().to_ascii_lowercase();
        let percentile = match lhs.as_str() {
            "max" | "worst" | "p100" => 100.0,
            l => l
                .strip_prefix('p')
                .and_then(|p| p.parse::<f64>().ok())
                .filter(|p| (0.0..=100.0).contains(p))
                .with_context(|| {
                    format!("SLO term {raw:?}: {lhs:?} is not a percentile like p99 or max")
                })?,
        };
        let rhs = rhs.trim();
        let split = rhs
            .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == 'e' || c == 'E' || c == '+'))
            .unwrap_or(rhs.len());
        let (num, unit) = rhs.split_at(split);
        let limit: f64 = num
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite())
            .with_context(|| format!("SLO term {raw:?}: {num:?} is not a number"))?;
        let unit = unit.trim().to_string();
        if !unit.is_empty() && time_unit_ns(&unit).is_none() {
            bail!("SLO term {raw:?}: unknown unit {unit:?} (use ns, us, ms or s)");
        }
        terms.push(SloTerm {
            percentile,
            limit,
            unit,
        });
    }
    terms.sort_by(|a, b| a.percentile.total_cmp(&b.percentile));
    Ok(terms)
}

/// The terms as (percentile, limit) in `unit`; a term whose unit cannot be converted
/// (a time limit on a non-time series) is left out.
pub fn in_unit(terms: &[SloTerm], unit: &str) -> Vec<(f64, f64)> {
    terms
        .iter()
        .filter_map(|t| {
            if t.unit.is_empty() {
                return Some((t.percentile, t.limit));
            }
            let from = time_unit_ns(&t.unit)?;
            let to = time_unit_ns(unit)?;
            Some((t.percentile, t.limit * from / to))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_converts() {
        let t = parse("p99.9<=5ms, p50<=200us ,max<=50ms").unwrap();
        assert_eq!(t.len(), 3);
        assert_eq!(
            t[0],
            SloTerm {
                percentile: 50.0,
                limit: 200.0,
                unit: "us".into()
            }
        );
        assert_eq!(
            in_unit(&t, "us"),
            vec![(50.0, 200.0), (99.9, 5000.0), (100.0, 50000.0)]
        );
        assert!(in_unit(&t, "ops/s").is_empty());
    }

    #[test]
    fn rejects_nonsense() {
        assert!(parse("p99=5ms").is_err());
        assert!(parse("q99<=5ms").is_err());
        assert!(parse("p99<=fast").is_err());
        assert!(parse("p99<=5parsecs").is_err());
    }
}
