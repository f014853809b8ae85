//! The `bench-db` binary: parse arguments, run, map the outcome to an exit code.

use clap::Parser;
use std::process::ExitCode;

/// mimalloc: parsing allocates many small strings and vectors per run (the model's
/// names, ladders and params); it parses JLBH logs about 15% faster than the system
/// allocator (`parsers/examples/jlbh_throughput.rs`).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    exit_quietly_on_closed_stdout();
    let cli = match bench_db::cli::Cli::try_parse() {
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
            eprintln!("bench-db: error: {e:#}");
            ExitCode::from(2)
        }
    }
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
