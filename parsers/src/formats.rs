//! The input formats, one module each: what a tool prints, read into the model.
//!
//! A format module owns its sniffer, its parser and its `FORMAT` entry, and describes its
//! input with an example and a fixture. It imports only the shared pieces beside this
//! folder (`format`, `text`, `document`, `unwrap`, `units`, `hdr_table`, `model`,
//! `error`); never the registry, and never another format (a format's tests may name
//! another format's `FORMAT` to check that each claims only its own files).

pub mod arthas;
pub mod criterion;
pub mod go_bench;
pub mod hdr_percentiles;
pub mod hlog;
pub mod hyperfine;
pub mod jgroups;
pub mod jlbh;
pub mod jmh;
pub mod jtest;
pub mod k6;
pub mod qps_table;
pub mod sockperf;
pub mod tsar;
pub mod wrk;
pub mod zk_benchmark;
pub mod zk_latencies;
pub mod zookeeper;
