//! Pure numbers over slices: run-to-run variation, quantiles, the permutation test of
//! whole runs and its family correction, the autocorrelation-aware series test,
//! multiple-comparison corrections. No IO, no model types.

pub mod autocorr;
pub mod change_point;
pub mod correction;
pub mod describe;
pub mod dist;
pub mod histogram;
pub mod mann_whitney;
pub mod outliers;
pub mod shift;
pub mod variation;
pub mod yuen;
