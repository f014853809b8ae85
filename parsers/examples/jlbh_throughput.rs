//! Measures the JLBH parser's throughput against one regex applied to every line.
//!
//! `cargo run --release -p bench-db-parsers --example jlbh_throughput -- [MB]` (default 200)
//! writes a log of many current-layout JLBH outputs (five runs, three probes, OS Jitter,
//! summary tables) into a temporary file, then
//! 1. parses it with the JLBH parser from a `BufReader<File>`,
//! 2. applies the probe-line regex of FORMATS.md §1.2 (`captures`) to every line,
//!
//! and prints the MB/s of both, their ratio, and the peak RSS (VmHWM) after the parse.

use bench_db_parsers::jlbh::synthetic::generate;

/// The allocator the `bench-db` binary uses, so the parse is measured as it runs there.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use bench_db_parsers::{Parsed, jlbh};
use regex::Regex;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The probe-line regex suggested for JLBH (FORMATS.md §1.2).
const PROBE_RE: &str = r"^(?P<name>.*?) ?\((?P<count>[0-9][0-9,.\x{a0}' ]*)\)\s+(?P<labels>50/90 \S+ \S+(?: - worst| \S+/worst)) (?P<was>was:?) (?P<values>.*)$";

/// CPU time this thread has run, in seconds (Linux schedstat), so that a loaded
/// machine's waiting time does not count; `None` elsewhere.
fn cpu_seconds() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: f64 = s.split_whitespace().next()?.parse().ok()?;
    Some(ns / 1e9)
}

/// Peak resident set size of this process, from /proc (Linux).
fn vm_hwm() -> String {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .map(|l| l["VmHWM:".len()..].trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into())
}

/// What one parse of a file took.
struct Timed {
    blocks: usize,
    runs: usize,
    /// Wall-clock seconds.
    wall: f64,
    /// CPU seconds, where the platform tells.
    cpu: Option<f64>,
}

/// Parses `path` with the JLBH parser, timing it.
fn parse_file(path: &Path) -> Result<Timed, Box<dyn std::error::Error>> {
    let (started, cpu0) = (Instant::now(), cpu_seconds());
    let reader = BufReader::with_capacity(1 << 16, File::open(path)?);
    let (mut blocks, mut runs) = (0usize, 0usize);
    for item in (jlbh::FORMAT.parse)(Box::new(reader)) {
        if let Parsed::Block(b) = item? {
            blocks += 1;
            runs += b.runs.len();
        }
    }
    let wall = started.elapsed().as_secs_f64();
    let cpu = cpu_seconds().zip(cpu0).map(|(b, a)| b - a);
    Ok(Timed {
        blocks,
        runs,
        wall,
        cpu,
    })
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let arg = std::env::args().nth(1);
    // An existing file as the argument: parse only that file (for profiling real logs).
    if let Some(file) = arg.as_deref().map(Path::new).filter(|p| p.is_file()) {
        let mb = std::fs::metadata(file)?.len() as f64 / 1e6;
        let Timed {
            blocks,
            runs,
            wall,
            cpu,
        } = parse_file(file)?;
        let cpu = cpu.map_or(String::new(), |c| format!(", {:.0} MB/s CPU time", mb / c));
        println!(
            "{blocks} blocks, {runs} runs: {:.0} MB/s wall clock{cpu}",
            mb / wall
        );
        return Ok(());
    }
    let megabytes: u64 = arg.map(|a| a.parse()).transpose()?.unwrap_or(200);
    let path: PathBuf =
        std::env::temp_dir().join(format!("jlbh_throughput_{}.log", std::process::id()));
    let (bytes, outputs) = generate(&path, megabytes)?;
    let mb = bytes as f64 / 1e6;
    println!(
        "generated {mb:.1} MB: {outputs} JLBH outputs in {}",
        path.display()
    );

    let Timed {
        blocks,
        runs,
        wall: parse_s,
        cpu: parse_cpu,
    } = parse_file(&path)?;
    let rss = vm_hwm();
    assert_eq!(blocks, outputs, "every generated output must parse");

    let re = Regex::new(PROBE_RE)?;
    let (started, cpu0) = (Instant::now(), cpu_seconds());
    let mut reader = BufReader::with_capacity(1 << 16, File::open(&path)?);
    let mut line = String::with_capacity(256);
    let mut matches = 0usize;
    while {
        line.clear();
        reader.read_line(&mut line)? > 0
    } {
        if let Some(c) = re.captures(line.trim_end_matches(['\n', '\r'])) {
            matches += usize::from(c.name("values").is_some());
        }
    }
    let regex_s = started.elapsed().as_secs_f64();
    let regex_cpu = cpu_seconds().zip(cpu0).map(|(b, a)| b - a);
    if std::env::var_os("JLBH_KEEP").is_none() {
        std::fs::remove_file(&path)?;
    }

    let rate = |secs: f64| mb / secs;
    println!(
        "parser: {blocks} blocks, {runs} runs in {parse_s:.2} s = {:.0} MB/s (wall clock)",
        rate(parse_s)
    );
    println!(
        "regex:  {matches} probe lines in {regex_s:.2} s = {:.0} MB/s (wall clock)",
        rate(regex_s)
    );
    println!("ratio parser/regex (wall clock): {:.2}x", regex_s / parse_s);
    if let (Some(p), Some(r)) = (parse_cpu, regex_cpu) {
        // On a shared machine the wall clock includes waiting for a core; CPU time does not.
        println!(
            "CPU time: parser {p:.2} s = {:.0} MB/s, regex {r:.2} s = {:.0} MB/s, ratio {:.2}x",
            rate(p),
            rate(r),
            r / p
        );
    }
    println!("peak RSS after the parse (VmHWM): {rss}");
    Ok(())
}
