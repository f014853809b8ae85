//! Analyses built from `stats` over stored runs: variation tables, before/after deltas,
//! throughput–latency curves and gate verdicts. Pure: no IO, no SQL.

pub mod compare;
pub mod curve;
pub mod gate;
#[cfg(test)]
mod gate_proof;
pub mod littles_law;
pub mod polarity;
pub mod pool_size;
pub mod samples;
#[cfg(test)]
pub(crate) mod testdata;
pub mod units;
pub mod variation;
