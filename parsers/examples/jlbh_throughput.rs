//! Measures the JLBH parser's throughput against one regex applied to every line.
//!
//! `cargo run --release -p bench-db-parsers --example jlbh_throughput -- [MB]` (default 200)
//! writes a log of many current-layout JLBH outputs (five runs, three probes, OS Jitter,
//! summary tables) into a temporary file, then
//! 1. parses it with the JLBH parser from a `BufReader<File>`,
//! 2. applies the probe-line regex of FORMATS.md §1.2 (`captures`) to every line,
//!
//! and prints the MB/s of both, their ratio, and the peak RSS (VmHWM) after the parse.

use bench_db_parsers::{Parsed, jlbh};
use regex::Regex;
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The probe-line regex suggested for JLBH (FORMATS.md §1.2).
const PROBE_RE: &str = r"^(?P<name>.*?) ?\((?P<count>[0-9][0-9,.\x{a0}' ]*)\)\s+(?P<labels>50/90 \S+ \S+(?: - worst| \S+/worst)) (?P<was>was:?) (?P<values>.*)$";

const RUNS: usize = 5;
const PROBES: [&str; 3] = ["End to End:", "client2server", "server2clientProbe"];
const LABELS: [&str; 9] = [
    "50.0", "90.0", "99.0", "99.7", "99.9", "99.97", "99.99", "99.997", "worst",
];

/// xorshift: reproducible values without a dependency.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// A latency-like value in µs: rising with the percentile rank `k`.
    fn latency(&mut self, k: usize) -> f64 {
        let base = 5.0 + (self.next() % 1000) as f64 / 100.0;
        base * (1.0 + k as f64 * k as f64 * 0.8)
    }
}

/// A header padded with dashes to 100 characters, as JLBH prints it since 2022.
fn header(title: &str) -> String {
    let s = format!("-------------------------------- {title} us ");
    format!("{s}{}", "-".repeat(100usize.saturating_sub(s.len())))
}

/// JLBH's probe-line number format (`Histogram.p`, resolution 2.56): 3, 2, 1 or 0
/// decimals, or rounded to 10 with grouping.
fn p(v: f64) -> String {
    if v < 2.56 {
        format!("{v:.3}")
    } else if v < 25.6 {
        format!("{v:.2}")
    } else if v < 256.0 {
        format!("{v:.1}")
    } else if v < 2560.0 {
        format!("{}", v.round())
    } else {
        let r = ((v / 10.0).round() * 10.0) as u64;
        format!("{},{:03}", r / 1000, r % 1000)
    }
}

fn write_output(w: &mut impl Write, n: usize, rng: &mut Rng) -> std::io::Result<()> {
    writeln!(w, "Benchmark {n}, 1,000,000 msg/s:\n")?;
    writeln!(w, "Warm up complete (500000 iterations took 0.731 s)")?;
    let mut table = vec![[[0.0f64; 9]; RUNS]; PROBES.len()];
    for run in 0..RUNS {
        writeln!(
            w,
            "{}",
            header(&format!("BENCHMARK RESULTS (RUN {})", run + 1))
        )?;
        writeln!(w, "Run time: 3.0 s, distribution: NORMAL")?;
        writeln!(w, "Correcting for co-ordinated:true")?;
        writeln!(w, "Target throughput:1000000/s = 1 message every 1us")?;
        for (name, probe) in PROBES.iter().zip(table.iter_mut()) {
            let v: [f64; 9] = std::array::from_fn(|k| rng.latency(k));
            probe[run] = v;
            let label = format!("{name} (3,000,000)");
            writeln!(
                w,
                "{label:<48}50/90 99/99.9 99.99/99.999 - worst was {} / {}  {} / {}  {} / {} - {}",
                p(v[0]),
                p(v[1]),
                p(v[2]),
                p(v[4]),
                p(v[6]),
                p(v[7]),
                p(v[8])
            )?;
        }
        let j = 1000 + rng.next() % 9000;
        writeln!(
            w,
            "{:<48}50/90 99/99.9 99.99 - worst was 1.41 / 2.05  9.12 / 22.53  22.53 - 22.53",
            format!("OS Jitter ({},{:03})", j / 1000, j % 1000)
        )?;
        writeln!(w, "{}", "-".repeat(100))?;
    }
    for (name, probe) in ["end to end", "client2server", "server2clientProbe"]
        .iter()
        .zip(&table)
    {
        writeln!(w, "{}", header(&format!("SUMMARY ({name})")))?;
        writeln!(
            w,
            "Percentile   run1         run2         run3         run4         run5      % Variation"
        )?;
        for (k, label) in LABELS.iter().enumerate() {
            let mut line = format!("{:<9}", format!("{label}:"));
            for run in probe {
                line.push_str(&format!("{:12.2} ", run[k]));
            }
            line.push_str(&format!("{:12.2}", (k as f64) * 1.37));
            writeln!(w, "{line}")?;
        }
        writeln!(w, "{}", "-".repeat(100))?;
    }
    writeln!(w)
}

fn generate(path: &Path, megabytes: u64) -> std::io::Result<(u64, usize)> {
    let mut w = BufWriter::with_capacity(1 << 20, File::create(path)?);
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let target = megabytes * 1_000_000;
    let mut outputs = 0;
    while w.get_ref().metadata()?.len() + w.buffer().len() as u64 <= target {
        write_output(&mut w, outputs, &mut rng)?;
        outputs += 1;
    }
    w.flush()?;
    Ok((std::fs::metadata(path)?.len(), outputs))
}

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
