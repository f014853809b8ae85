//! Analyses built from `stats` over stored runs: variation tables, before/after deltas,
//! throughput–latency curves and gate verdicts. Pure: no IO, no SQL.

pub mod calibration;
pub mod compare;
pub mod curve;
pub mod false_alarms;
pub mod gate;
#[cfg(test)]
mod gate_proof;
pub mod history;
pub mod littles_law;
pub mod polarity;
pub mod policy;
pub mod samples;
#[cfg(test)]
pub(crate) mod testdata;
pub mod units;
pub mod variation;
pub mod warmup;
