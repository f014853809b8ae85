//! bench-db-parsers: the intermediate model and one module per input format.
//!
//! Pure: bytes and lines in, model values out. No files, no SQL, no clocks.
//!
//! # The house
//!
//! - [`formats`](mod@formats): one module per input format (`formats/jmh.rs`; a folder
//!   beside the file when it grows: `formats/jlbh.rs` with `formats/jlbh/`). A format
//!   imports the shared pieces below, never the registry and never another format.
//! - [`registry`]: the list of formats and detection; the one module that names every
//!   format. It imports the formats, nothing imports it back.
//! - The shared pieces, beside `formats/`:
//!   - [`format`](mod@format): [`Format`] (name, version, sniffer, parser, and what the
//!     tool's numbers mean: `binary_prefixes`, `first_run_is_warmup`), [`Head`],
//!     [`ParseIter`];
//!   - [`unwrap`]: the un-wrapping pass the readers and the sniffers go through (fences,
//!     pipe tables, HTML, comments, quotes, shortcodes, notes after values);
//!   - [`lines`]: line-by-line reading: the line reader, and the driver that runs a
//!     format's [`LineMachine`](lines::LineMachine) and hands out its
//!     [`Queue`](lines::Queue);
//!   - [`document`]: the document reader, for formats read whole, with the same cleaning;
//!   - [`finite`]: the refusal of non-finite numbers in what a format hands out;
//!   - [`text`]: line cleaning (`\r`, ANSI escapes), labels from lead lines, metric names;
//!   - [`units`]: printed numbers (exact decimal scaling, wrk units, Java-printed numbers
//!     with `NaN`/`Infinity` as absent); [`hdr_table`]: the HdrHistogram percentile table
//!     (read by [`hdr_percentiles`] and [`wrk`]);
//!   - [`model`] and [`error`]: what every parser returns.
//!
//! # How a format is added
//!
//! 1. `formats/<name>.rs` and one line `pub mod <name>;` in [`formats`](mod@formats). Its
//!    module doc shows the input and names a fixture.
//! 2. `pub fn sniff(head: &Head) -> u8`: confidence 0–100 that the first
//!    [`HEAD_BYTES`](format::HEAD_BYTES) of a file (already un-wrapped) are this format.
//!    Claim only what has the format's anchors; the corpus test fails when two formats
//!    claim one file.
//! 3. `pub fn parse(r) -> ParseIter`, in one of two ways:
//!    - line by line (the default: memory stays flat on a large log): a state machine
//!      implementing [`lines::LineMachine`] (`feed(line, n)`, `finish(last)`, `queue()`)
//!      that puts blocks and warnings on its [`lines::Queue`] as they complete, run by
//!      `lines::drive(r, Machine::new())`;
//!    - whole, when the input is one document (JSON) or its blocks need what is printed
//!      after them: `document::parse(r, |doc| …)`, reading `doc.lines()`, or `doc.text()`
//!      for JSON.
//!
//!    Either way lines arrive cleaned and un-wrapped, numbered as in the file. A parser
//!    yields [`Parsed::Block`]s, and [`Parsed::Warning`]s for what it kept despite a flaw
//!    (a cut table is data with a warning). An error is for a row of the right shape whose
//!    numbers do not read, or a contradiction.
//! 4. `pub const FORMAT: Format = Format::new(name, version, sniff, parse)`, with
//!    `.with_binary_prefixes()` or `.with_first_run_warmup()` when they hold, and one line
//!    in [`registry::formats`].
//! 5. Fixtures: `fixtures/<format>/` (insta snapshots), `fixtures/malformed/<format>-*`,
//!    and real outputs under `fixtures/real/<format>/` with a `MANIFEST`. Tests share
//!    `testutil` (fixtures, samples, `never_panics` robustness loops).

pub mod document;
pub mod error;
pub mod finite;
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

#[cfg(feature = "test-support")]
pub mod mutate;
#[cfg(test)]
pub(crate) mod testutil;
