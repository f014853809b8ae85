//! End-to-end ingest rate and database size, against the targets of the store.
//!
//! `cargo bench --bench ingest_rate -- [MB]` (default 20; the target is stated for 100)
//! writes a synthetic multi-output JLBH log, then runs `bench-db ingest` on it in this
//! process (read, detect, hash, parse, store: exactly the command's code path) and
//! prints MB/s (target ≥ 35), the database size against the log's (target ≤ 1.0) and
//! the time of a re-ingest of the same file (`unchanged`). Peak memory is a property of
//! the process: measure it on the binary with `/usr/bin/time -v bench-db ingest LOG`.

use bench_db::cli::Cli;
use bench_db_parsers::jlbh;
use clap::Parser;
use std::time::Instant;

/// The allocator the `bench-db` binary uses.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> anyhow::Result<()> {
    let mb: u64 = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .map(|a| a.parse())
        .transpose()?
        .unwrap_or(20);
    let dir = tempfile::tempdir()?;
    let log = dir.path().join("jlbh.log");
    let (bytes, outputs) = jlbh::synthetic::generate(&log, mb)?;
    let db = dir.path().join("bench.db");
    let ingest = || -> anyhow::Result<f64> {
        let cli = Cli::try_parse_from([
            "bench-db".as_ref(),
            "--db".as_ref(),
            db.as_os_str(),
            "ingest".as_ref(),
            log.as_os_str(),
        ])?;
        let started = Instant::now();
        let code = bench_db::run(cli)?;
        anyhow::ensure!(code == 0, "ingest exited {code}");
        Ok(started.elapsed().as_secs_f64())
    };
    let first = ingest()?;
    let again = ingest()?;
    let db_bytes: u64 = ["", "-wal", "-shm"]
        .iter()
        .filter_map(|s| std::fs::metadata(format!("{}{s}", db.display())).ok())
        .map(|m| m.len())
        .sum();
    let mb_of = |b: u64| b as f64 / 1e6;
    println!("log: {:.1} MB, {outputs} JLBH outputs", mb_of(bytes));
    println!(
        "ingest: {first:.2} s = {:.1} MB/s (target >= 35)",
        mb_of(bytes) / first
    );
    println!("re-ingest (unchanged): {again:.2} s");
    println!(
        "database: {:.1} MB = {:.2} x the log (target <= 1.00)",
        mb_of(db_bytes),
        db_bytes as f64 / bytes as f64
    );
    Ok(())
}
