//! The one integration-test binary: CLI tests through the real `bench-db` binary.

mod analysis_cli;
mod cli_ux;
mod common;
mod crash;
mod first_hour;
mod formats_cli;
mod history;
mod hostile;
mod ingest;
mod otava;
mod printed_cli;
mod real_corpus_cli;
mod report_browser;
mod report_cli;
mod report_snapshots;
mod robustness;
mod runner_cli;
mod runner_roundtrip;
mod scipy;
mod stats_cli;
mod store;
mod stores;
