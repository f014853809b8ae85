//! One module per subcommand: the only place, with `store`, that does IO.

pub mod calibrate;
pub mod check;
pub mod compare;
pub mod completions;
pub mod copy;
pub mod criterion_dirs;
pub mod curve;
pub mod export;
pub mod gate;
pub mod history;
pub mod ingest;
pub mod label;
pub mod metrics;
pub mod migrate;
pub mod report;
pub mod rm;
pub mod run;
pub mod runs;
pub mod select;
pub mod variation;
