//! `bench-db completions SHELL`: the completion script for a shell, on standard output.

use crate::cli::{Cli, CompletionsArgs};
use anyhow::Result;
use std::io::Write;

/// Writes the script. It is built in memory first: the generator panics when it cannot
/// write, and a closed standard output (`completions zsh | true`) is the reader's choice,
/// which the caller turns into exit 0.
pub fn run(args: &CompletionsArgs) -> Result<u8> {
    use clap::CommandFactory;
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "bench-db", &mut script);
    let mut out = std::io::stdout().lock();
    out.write_all(&script)?;
    out.flush()?;
    Ok(crate::exit::OK)
}
