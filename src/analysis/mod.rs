//! Analyses built from `stats` over stored runs: variation tables, before/after deltas,
//! throughput–latency curves, gate verdicts, and the report's site model with every
//! chart's input (`site`, `charts`, `pairing`). Pure: no IO, no SQL.

pub mod calibration;
pub mod charts;
pub mod compare;
pub mod copies;
pub mod curve;
#[cfg(any(test, feature = "test-support"))]
pub mod demo;
pub mod false_alarms;
pub mod gate;
#[cfg(test)]
mod gate_proof;
pub mod history;
pub mod littles_law;
pub mod pairing;
pub mod polarity;
pub mod policy;
pub mod pool_size;
pub mod printed;
pub mod samples;
pub mod site;
pub mod slo;
#[cfg(test)]
pub(crate) mod testdata;
pub mod variation;
pub mod warmup;
