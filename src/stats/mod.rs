//! Pure numbers over slices: run-to-run variation, quantiles, confidence intervals,
//! two-sample tests and multiple-comparison corrections. No IO, no model types.

pub mod variation;
