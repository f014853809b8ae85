//! bench-db: ingest benchmark logs into a store (SQLite, or a team's PostgreSQL), analyse
//! them, report and gate.
//!
//! Pipeline: `parsers` (bytes → model) → `store` (model ↔ SQLite or PostgreSQL, behind one
//! trait) → `analysis` (pure, over stored runs) → `report` and output renderers (Strings) →
//! `cmd` (files, stdout, exit codes). ARCHITECTURE.md describes the layers.

pub mod analysis;
pub mod cli;
pub mod cmd;
pub mod dataset;
pub mod exit;
pub mod metadata;
pub mod numfmt;
pub mod output;
pub mod report;
pub mod runner;
pub mod selector;
pub mod stats;
pub mod store;
pub mod units;

use cli::{Cli, Command, RunCommand};

/// Runs one command and returns its exit code; errors map to exit code 2 in `main`.
pub fn run(cli: Cli) -> anyhow::Result<u8> {
    let db = &store::url::Target::parse(&cli.db)?;
    match cli.command {
        Command::Ingest(a) => cmd::ingest::run(db, &a),
        Command::Runs(a) => cmd::runs::run(db, &a),
        Command::Label(a) => cmd::label::run(db, &a),
        Command::Rm(a) => cmd::rm::run(db, &a),
        Command::Variation(a) => cmd::variation::run(db, &a),
        Command::Export(a) => cmd::export::run(db, &a),
        Command::Compare(a) => cmd::compare::run(db, &a),
        Command::Curve(a) => cmd::curve::run(db, &a),
        Command::Gate(a) => cmd::gate::run(db, &a),
        Command::History(a) => cmd::history::run(db, &a),
        Command::Calibrate(a) => cmd::calibrate::run(db, &a),
        Command::Report(a) => cmd::report::run(db, &a),
        Command::Run(RunCommand::Loopback(a)) => cmd::run::loopback(db, &a),
        Command::Run(RunCommand::Threads(a)) => cmd::run::threads(db, &a),
        Command::Copy(a) => cmd::copy::run(&a),
        Command::Migrate(a) => cmd::migrate::run(db, &a),
        Command::Check(a) => cmd::check::run(db, &a),
        Command::Completions(a) => cmd::completions::run(&a),
    }
}
