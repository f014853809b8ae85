//! Read commands on a large database against the targets of the store.
//!
//! `cargo bench --bench store_reads -- [MB]` (default 30: about 19.5k runs) ingests a
//! synthetic multi-output JLBH log, then runs the release `bench-db` binary and prints,
//! for each command, its wall time and peak RSS (from `wait4`):
//!
//! - `export --format csv` against the sqlite3 shell printing the same rows as CSV from
//!   one plain table holding them (target: within 2x, < 64 MB);
//! - `runs --json` (target < 128 MB);
//! - `report` (target < 5 s, < 256 MB, < 30 MB written).
//!
//! The sqlite3 comparison is skipped when no `sqlite3` is on the PATH.

use bench_db_parsers::jlbh;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Wall seconds and peak RSS (MB) of a command whose stdout goes to `out`.
fn measure(cmd: &mut Command, out: &Path) -> anyhow::Result<(f64, f64)> {
    let started = Instant::now();
    let child = cmd
        .stdout(std::fs::File::create(out)?)
        .stderr(Stdio::inherit())
        .spawn()?;
    let mut status = 0;
    // SAFETY: rusage is plain data; wait4 fills it for our own child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = child.id() as libc::pid_t;
    // SAFETY: waiting for the child we spawned, with valid out-pointers.
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    anyhow::ensure!(r == pid, "wait4 failed");
    let secs = started.elapsed().as_secs_f64();
    anyhow::ensure!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "{cmd:?} failed ({status})"
    );
    Ok((secs, usage.ru_maxrss as f64 / 1024.0))
}

fn dir_bytes(dir: &Path) -> u64 {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter_map(|e| e.metadata().ok())
        .filter(|m| m.is_file())
        .map(|m| m.len())
        .sum()
}

fn main() -> anyhow::Result<()> {
    let mb: u64 = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .map(|a| a.parse())
        .transpose()?
        .unwrap_or(30);
    let dir = tempfile::tempdir()?;
    let log = dir.path().join("jlbh.log");
    let (bytes, outputs) = jlbh::synthetic::generate(&log, mb)?;
    let db = dir.path().join("bench.db");
    let bin = env!("CARGO_BIN_EXE_bench-db");
    let run = |args: &[&str]| {
        let mut c = Command::new(bin);
        c.arg("--db").arg(&db).args(args);
        c
    };
    // Ingested by the binary too: a child's peak RSS starts from its parent's at fork,
    // so this process stays small.
    let log_arg = log.to_str().unwrap_or_default();
    measure(
        &mut run(&["ingest", log_arg]),
        &dir.path().join("ingest.txt"),
    )?;
    let runs_json = dir.path().join("runs.json");
    let (runs_s, runs_mb) = measure(&mut run(&["runs", "--json"]), &runs_json)?;
    println!(
        "log: {:.1} MB of {outputs} JLBH outputs",
        bytes as f64 / 1e6
    );
    println!("runs --json: {runs_s:.2} s, {runs_mb:.0} MB RSS (target < 128 MB)");

    let csv = dir.path().join("export.csv");
    let (export_s, export_mb) = measure(&mut run(&["export", "--format", "csv"]), &csv)?;
    let csv_bytes = std::fs::metadata(&csv)?.len();
    println!(
        "export --format csv: {export_s:.2} s, {export_mb:.0} MB RSS (target < 64 MB), {:.1} MB of CSV",
        csv_bytes as f64 / 1e6
    );
    let flat = dir.path().join("flat.db");
    let imported = Command::new("sqlite3")
        .arg(&flat)
        .arg(format!(".import --csv {} flat", csv.display()))
        .status();
    match imported {
        Ok(s) if s.success() => {
            let (sq_s, sq_mb) = measure(
                Command::new("sqlite3")
                    .arg("-csv")
                    .arg("-header")
                    .arg(&flat)
                    .arg("SELECT * FROM flat"),
                &dir.path().join("sqlite3.csv"),
            )?;
            println!(
                "sqlite3 shell, same rows from one plain table: {sq_s:.2} s, {sq_mb:.0} MB RSS; \
                 export / sqlite3 = {:.2} (target <= 2)",
                export_s / sq_s
            );
        }
        _ => println!("sqlite3 shell not available: comparison skipped"),
    }

    let out = dir.path().join("report");
    let (report_s, report_mb) = measure(
        &mut run(&["report", "--out", out.to_str().unwrap_or("report")]),
        &dir.path().join("report.txt"),
    )?;
    println!(
        "report: {report_s:.2} s, {report_mb:.0} MB RSS, {:.1} MB written (targets < 5 s, < 256 MB, < 30 MB)",
        dir_bytes(&out) as f64 / 1e6
    );
    // Counted last: parsing the listing grows this process, and a child's peak RSS starts
    // from its parent's.
    let n_runs = serde_json::from_slice::<serde_json::Value>(&std::fs::read(&runs_json)?)?
        .as_array()
        .map_or(0, Vec::len);
    println!("database: {n_runs} runs");
    Ok(())
}
