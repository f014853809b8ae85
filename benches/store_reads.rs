//! Read commands on a large database against the targets of the store.
//!
//! `cargo bench --bench store_reads -- [MB]` (default 30: about 19.5k runs) ingests a
//! synthetic multi-output JLBH log, then runs the release `bench-db` binary and prints,
//! for each command, its wall time and peak RSS (from `wait4`):
//!
//! - `export --format csv` against the sqlite3 shell printing the same rows as CSV from
//!   one plain table holding them (target: within 2x, < 64 MB);
//! - `runs --json` and the `runs` table (target < 128 MB each);
//! - `report` (target < 5 s, < 256 MB, < 30 MB written);
//! - the analyses `variation`, `curve`, `history` over every run, and `compare`, `gate`
//!   of the first 200 runs against the last 200, selected by id range, so the whole
//!   database is read while the statistics stay small (no fixed target: memory that
//!   does not grow with the database beyond what the analysis keeps).
//!
//! The sqlite3 comparison is skipped when no `sqlite3` is on the PATH. `--keep DIR`
//! keeps the log and the database in `DIR` (made if needed) instead of a temporary
//! folder, and ingests only when `DIR` holds no database yet.

mod common;

use bench_db_parsers::jlbh;
use common::{dir_bytes, measure, measure_exit};
use std::path::Path;
use std::process::Command;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let keep = args
        .iter()
        .position(|a| a == "--keep")
        .and_then(|i| args.get(i + 1))
        .map(std::path::PathBuf::from);
    let mb: u64 = args
        .iter()
        .enumerate()
        .find(|(i, a)| !a.starts_with('-') && (*i == 0 || args[i - 1] != "--keep"))
        .map(|(_, a)| a.parse())
        .transpose()?
        .unwrap_or(30);
    let temp = tempfile::tempdir()?;
    let dir = match &keep {
        Some(d) => {
            std::fs::create_dir_all(d)?;
            d.clone()
        }
        None => temp.path().to_path_buf(),
    };
    let dir = Dir(dir);
    let log = dir.path().join("jlbh.log");
    let db = dir.path().join("bench.db");
    let fresh = !db.exists();
    let (bytes, outputs) = if fresh {
        jlbh::synthetic::generate(&log, mb)?
    } else {
        (std::fs::metadata(&log)?.len(), 0)
    };
    let bin = env!("CARGO_BIN_EXE_bench-db");
    let run = |args: &[&str]| {
        let mut c = Command::new(bin);
        c.arg("--db").arg(&db).args(args);
        c
    };
    // Ingested by the binary too: a child's peak RSS starts from its parent's at fork,
    // so this process stays small.
    let log_arg = log.to_str().unwrap_or_default();
    if fresh {
        measure(
            &mut run(&["ingest", log_arg]),
            &dir.path().join("ingest.txt"),
        )?;
    }
    let runs_json = dir.path().join("runs.json");
    let (runs_s, runs_mb) = measure(&mut run(&["runs", "--json"]), &runs_json)?;
    if fresh {
        println!(
            "log: {:.1} MB of {outputs} JLBH outputs",
            bytes as f64 / 1e6
        );
    } else {
        println!(
            "log: {:.1} MB, database kept in {}",
            bytes as f64 / 1e6,
            dir.path().display()
        );
    }
    println!("runs --json: {runs_s:.2} s, {runs_mb:.0} MB RSS (target < 128 MB)");
    let (table_s, table_mb) = measure(&mut run(&["runs"]), &dir.path().join("runs.txt"))?;
    println!("runs (table): {table_s:.2} s, {table_mb:.0} MB RSS (target < 128 MB)");

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
    let _ = std::fs::remove_dir_all(&out);
    let (report_s, report_mb) = measure(
        &mut run(&["report", "--out", out.to_str().unwrap_or("report")]),
        &dir.path().join("report.txt"),
    )?;
    println!(
        "report: {report_s:.2} s, {report_mb:.0} MB RSS, {:.1} MB written (targets < 5 s, < 256 MB, < 30 MB)",
        dir_bytes(&out) as f64 / 1e6
    );

    // The analyses; the two-sided ones take the first runs by id against the last.
    let n_runs = count_runs(&runs_json)?;
    let side = (n_runs / 2).min(200);
    let base = format!("run=1..{side}");
    let cand = format!("run={}..{n_runs}", n_runs + 1 - side);
    let analyses: [(&str, Vec<&str>, &[i32]); 5] = [
        ("variation", vec!["variation"], &[0]),
        ("curve", vec!["curve"], &[0]),
        ("history", vec!["history"], &[0]),
        (
            "compare",
            vec!["compare", "--baseline", &base, "--candidate", &cand],
            &[0],
        ),
        // A gate may pass, find a regression or not decide.
        (
            "gate",
            vec!["gate", "--baseline", &base, "--candidate", &cand],
            &[0, 1, 3],
        ),
    ];
    for (name, argv, codes) in analyses {
        let text = dir.path().join(format!("{name}.txt"));
        let (s, mb) = measure_exit(&mut run(&argv), &text, codes)?;
        println!(
            "{name}: {s:.2} s, {mb:.0} MB RSS, {:.1} MB of output",
            std::fs::metadata(&text)?.len() as f64 / 1e6
        );
    }
    println!("database: {n_runs} runs");
    Ok(())
}

/// The number of runs in a `runs --json` listing, counted line by line by its runs'
/// `"id"` keys so that this process stays small (a child's peak RSS starts from its
/// parent's, so reading the whole listing here would raise every later figure).
fn count_runs(listing: &Path) -> anyhow::Result<usize> {
    use std::io::BufRead;
    let mut n = 0;
    for line in std::io::BufReader::new(std::fs::File::open(listing)?).lines() {
        n += usize::from(line?.starts_with("    \"id\": "));
    }
    Ok(n)
}

/// The working folder: a temporary one, or the one `--keep` names.
struct Dir(std::path::PathBuf);
impl Dir {
    fn path(&self) -> &Path {
        &self.0
    }
}
