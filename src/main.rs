//! The `bench-db` binary: parse arguments, run, map the outcome to an exit code.

use bench_db::cli::{Cli, ColorWhen};
use bench_db::output::escape::Lines;
use clap::{CommandFactory, FromArgMatches};
use std::io::IsTerminal;
use std::process::ExitCode;

/// mimalloc: parsing allocates many small strings and vectors per run (the model's
/// names, ladders and params); it parses JLBH logs about 15% faster than the system
/// allocator (`parsers/examples/jlbh_throughput.rs`).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    exit_quietly_on_closed_stdout();
    let color = ColorWhen::resolve(ColorWhen::from_args(std::env::args_os()), |k| {
        std::env::var(k).ok()
    });
    bench_db::cli::set_color(color);
    let parsed = Cli::command()
        .color(color.clap())
        .try_get_matches()
        .and_then(|m| Cli::from_arg_matches(&m));
    let cli = match parsed {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    match bench_db::run(cli) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            if is_broken_pipe(&e) {
                return ExitCode::SUCCESS;
            }
            // The same style as clap's usage errors: `error:` (red on a terminal).
            let prefix = if bench_db::cli::color_enabled(std::io::stderr().is_terminal()) {
                "\x1b[1;31merror:\x1b[0m"
            } else {
                "error:"
            };
            eprintln!("{prefix} {}", error_line(&e));
            ExitCode::from(2)
        }
    }
}

/// The error's chain as `{:#}` prints it (causes joined by `: `), each cause escaped and
/// cut to its first [`MAX_MESSAGE`](bench_db::output::escape::MAX_MESSAGE) characters:
/// a value from the input (a label, a selector, a line of a file) may hold terminal
/// escapes or be a megabyte long. A cause of several [`Lines`] keeps its line breaks,
/// its hints indented under it.
fn error_line(e: &anyhow::Error) -> String {
    let causes: Vec<String> = e
        .chain()
        .map(|c| match c.downcast_ref::<Lines>() {
            Some(lines) => lines.escaped(),
            None => bench_db::output::escape::message(&c.to_string()).into_owned(),
        })
        .collect();
    causes.join(": ")
}

/// A closed stdout (`bench-db export | head`) is not an error.
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// `println!` panics when stdout is a closed pipe; a closed pipe is the reader's choice
/// (`bench-db runs | head`), so it ends the program with exit code 0 instead.
fn exit_quietly_on_closed_stdout() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let msg = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if msg.contains("failed printing to stdout") && msg.contains("Broken pipe") {
            std::process::exit(0);
        }
        default(info);
    }));
}
