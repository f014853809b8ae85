//! Analyses built from `stats` over stored runs: variation tables, before/after deltas,
//! throughput–latency curves and gate verdicts. Pure: no IO, no SQL.

pub mod variation;
