//! Pure numbers over slices: run-to-run variation, quantiles, confidence intervals,
//! two-sample tests and multiple-comparison corrections. No IO, no model types.

pub mod autocorr;
pub mod bootstrap;
pub mod correction;
pub mod describe;
pub mod dist;
pub mod histogram;
pub mod mann_whitney;
pub mod outliers;
pub mod permutation;
pub mod shift;
pub mod variation;
pub mod yuen;
