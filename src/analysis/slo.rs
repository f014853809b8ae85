//! Service-level objectives for charts: the `--slo` terms (parsed by the curve
//! analysis, `p99<=200us,max<=50ms`) sorted by percentile and converted to a series'
//! unit, ready to draw as a step line or limit lines.

pub use super::curve::SloTerm;
use super::curve::parse_slo;
use crate::units::convert;
use anyhow::Result;

/// Parses the terms and sorts them by percentile.
pub fn parse(text: &str) -> Result<Vec<SloTerm>> {
    let mut terms = parse_slo(text)?;
    terms.sort_by(|a, b| a.percentile.total_cmp(&b.percentile));
    Ok(terms)
}

/// The terms as (percentile, limit) in `unit`; a term whose unit does not convert (a
/// time limit on a count) is left out. A term without a unit is in the series' unit.
pub fn in_unit(terms: &[SloTerm], unit: &str) -> Vec<(f64, f64)> {
    terms
        .iter()
        .filter_map(|t| {
            let limit = if t.unit.is_empty() {
                Some(t.limit)
            } else {
                convert(t.limit, &t.unit, unit)
            };
            limit.map(|l| (t.percentile, l))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_sorts_and_converts() {
        let t = parse("p99.9<=5ms, p50<=200us ,max<=50ms").unwrap();
        assert_eq!(t.len(), 3);
        assert_eq!(
            (t[0].percentile, t[0].limit, t[0].unit.as_str()),
            (50.0, 200.0, "us")
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
    }
}
