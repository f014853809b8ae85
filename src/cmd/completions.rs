//! `bench-db completions SHELL`: the completion script for a shell, on standard output.

use crate::cli::{Cli, CompletionsArgs};
use anyhow::Result;
use clap_complete::Shell;
use std::io::Write;

/// The command the scripts complete.
const BIN: &str = "bench-db";

/// Writes the script. It is built in memory first: the generator panics when it cannot
/// write, and a closed standard output (`completions zsh | true`) is the reader's choice,
/// which the caller turns into exit 0.
pub fn run(args: &CompletionsArgs) -> Result<u8> {
    let script = script(args.shell);
    let mut out = std::io::stdout().lock();
    out.write_all(script.as_bytes())?;
    out.flush()?;
    Ok(crate::exit::OK)
}

/// The completion script for `shell`.
///
/// clap_complete's bash generator spells a subcommand's state two ways when the command's
/// name has a hyphen (`bench__db__subcmd__rm` where it is set, `bench__subcmd__db__subcmd__rm`
/// where it is matched), so nothing past the subcommand's name would complete. Bash's is
/// therefore generated for the name without its hyphen, `bench_db`, which both spell
/// alike, and registered for `bench-db`.
pub fn script(shell: Shell) -> String {
    use clap::CommandFactory;
    let mut cmd = Cli::command();
    let mut script = Vec::new();
    if shell == Shell::Bash {
        let name = BIN.replace('-', "_");
        clap_complete::generate(shell, &mut cmd, &name, &mut script);
        let script = String::from_utf8_lossy(&script);
        // Only the `complete … NAME` lines name the command itself.
        let suffix = format!(" {name}");
        script
            .lines()
            .map(|line| match line.strip_suffix(&suffix) {
                Some(head) if line.trim_start().starts_with("complete ") => {
                    format!("{head} {BIN}\n")
                }
                _ => format!("{line}\n"),
            })
            .collect()
    } else {
        clap_complete::generate(shell, &mut cmd, BIN, &mut script);
        String::from_utf8_lossy(&script).into_owned()
    }
}
