//! bench-db-parsers: the intermediate model and one module per input format.
//!
//! Pure: bytes and lines in, model values out. No files, no SQL, no clocks.
//!
//! # The house: how a format is added
//!
//! A format is a module with a sniffer and a line machine, and one line in the registry:
//!
//! 1. `pub fn sniff(head: &Head) -> u8`: confidence 0–100 that the first
//!    [`HEAD_BYTES`](format::HEAD_BYTES) of a file (already un-wrapped, see below) are this
//!    format. Claim only what has the format's anchors; the corpus test fails when two
//!    formats claim one file.
//! 2. A state machine implementing [`text::LineMachine`] (`feed(line, n)`, `finish(last)`,
//!    `pop()`), run by [`text::drive`]: `pub fn parse(r) -> ParseIter { drive(r, Machine::new()) }`.
//!    Lines arrive un-wrapped and numbered as in the file; a machine yields
//!    [`Parsed::Block`]s as they complete and [`Parsed::Warning`]s for what it kept despite a
//!    flaw (a cut table is data with a warning). An error is for a row of the right shape
//!    whose numbers do not read, or a contradiction.
//! 3. `pub const FORMAT: Format = Format { name, version, sniff, parse }` and one line in
//!    [`registry::formats`], the only place that names every format. Modules import the
//!    shared types from [`format`], never from the registry.
//!
//! Shared pieces: [`format`] (`Format`, `Head`, `ParseIter`), [`unwrap`] (the un-wrapping
//! pass every reader and the sniffers go through: fences, pipe tables, HTML, comments,
//! quotes, shortcodes, notes after values), [`text`] (the line reader and driver, labels
//! from lead lines, metric names), [`units`] (printed numbers: exact decimal scaling, wrk
//! units, Java-printed numbers with `NaN`/`Infinity` as absent), the HdrHistogram table
//! reader [`hdr_table`] (used by [`hdr_percentiles`] and [`wrk`]). Tests share
//! `testutil` (fixtures, samples, `never_panics` robustness loops). Every format has
//! `fixtures/<format>/` (insta snapshots), `fixtures/malformed/<format>-*`, and real
//! outputs under `fixtures/real/<format>/` with a `MANIFEST`.

pub mod document;
pub mod error;
pub mod format;
pub mod formats;
pub mod hdr_table;
pub mod lines;
pub mod model;
pub mod registry;
pub mod text;
pub mod units;
pub mod unwrap;

/// The format modules by their names, as the root crate names them
/// (`bench_db_parsers::jlbh::synthetic`).
pub use formats::{
    arthas, criterion, go_bench, hdr_percentiles, hlog, hyperfine, jgroups, jlbh, jmh, jtest, k6,
    qps_table, sockperf, tsar, wrk, zk_benchmark, zk_latencies, zookeeper,
};

pub use error::ParseError;
pub use format::{Format, Head, ParseIter};
pub use model::*;
pub use registry::{detect, format_by_name, formats};

#[cfg(test)]
pub(crate) mod testutil;
