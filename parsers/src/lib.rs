//! bench-db-parsers: the intermediate model and one module per input format.
//!
//! Pure: bytes and lines in, model values out. No files, no SQL, no clocks. Each format
//! module exposes a sniffer (`sniff`) and a streaming parser (`parse`) and is listed in
//! [`formats`], which [`detect`] consults.

pub mod arthas;
pub mod criterion;
pub mod error;
pub mod go_bench;
pub mod hdr_percentiles;
pub mod hlog;
pub mod hyperfine;
pub mod jgroups;
pub mod jlbh;
pub mod jmh;
pub mod k6;
pub mod model;
pub mod qps_table;
pub mod registry;
pub mod sockperf;
pub mod text;
pub mod tsar;
pub mod units;
pub mod wrk;
pub mod zk_benchmark;
pub mod zookeeper;

pub use error::ParseError;
pub use model::*;
pub use registry::{Format, Head, ParseIter, detect, format_by_name, formats};

#[cfg(test)]
pub(crate) mod testutil;
