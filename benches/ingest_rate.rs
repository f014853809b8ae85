//! End-to-end ingest rate and database size, against the targets of the store.
//!
//! `cargo bench --bench ingest_rate -- [MB] [LOG] [--rounds N]` (default 20 MB and 5
//! rounds; the target is stated for 100 MB; LOG keeps the generated log at that path, e.g.
//! for `/usr/bin/time -v`) writes a synthetic multi-output JLBH log, then runs `bench-db
//! ingest` on it in this process (read, detect, hash, parse, store: exactly the command's
//! code path), each round into a new database, and prints the best round's MB/s (target ≥
//! 100) with every round's wall and CPU time (on a shared machine the same work swings by
//! half with the host's load), the database size against the log's (target ≤ 1.0) and
//! the time of a re-ingest of the same file (`unchanged`), then ingests the same outputs
//! as a folder of 512 KiB logs and prints its rate against the single log's. Peak memory is a property of
//! the process: measure it on the binary with `/usr/bin/time -v bench-db ingest LOG`.

use bench_db::cli::Cli;
use bench_db_parsers::jlbh;
use clap::Parser;
use std::path::Path;
use std::time::Instant;

/// The allocator the `bench-db` binary uses.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// User + system CPU seconds of this process so far: on a shared machine the wall time
/// also counts the time other processes held the CPU.
fn cpu_seconds() -> f64 {
    // SAFETY: rusage is plain data that getrusage fills.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: a valid out-pointer for this process's own usage.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) };
    let t = |v: libc::timeval| v.tv_sec as f64 + v.tv_usec as f64 / 1e6;
    t(u.ru_utime) + t(u.ru_stime)
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut rounds: usize = 5;
    let mut words = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "--rounds" {
            let n = it
                .next()
                .ok_or_else(|| anyhow::anyhow!("--rounds needs a number"))?;
            rounds = n.parse::<usize>()?.max(1);
        } else if !a.starts_with('-') {
            words.push(a.clone());
        }
    }
    let mb: u64 = words.first().map(|a| a.parse()).transpose()?.unwrap_or(20);
    let dir = tempfile::tempdir()?;
    let log = words
        .get(1)
        .map_or_else(|| dir.path().join("jlbh.log"), std::path::PathBuf::from);
    let (bytes, outputs) = jlbh::synthetic::generate(&log, mb)?;
    // The generator's writes reach the disk before the first round, not during it.
    std::fs::File::open(&log)?.sync_all()?;
    let db = dir.path().join("bench.db");
    let ingest_into = |db: &Path, input: &Path| -> anyhow::Result<(f64, f64)> {
        let cli = Cli::try_parse_from([
            "bench-db".as_ref(),
            "--db".as_ref(),
            db.as_os_str(),
            "ingest".as_ref(),
            input.as_os_str(),
        ])?;
        // Each round starts with no dirty pages of an earlier one still being written
        // back: on two processors the kernel's flusher would take one from the ingest.
        // SAFETY: sync(2) takes no arguments and cannot fail.
        unsafe { libc::sync() };
        let (started, cpu) = (Instant::now(), cpu_seconds());
        let code = bench_db::run(cli)?;
        anyhow::ensure!(code == 0, "ingest exited {code}");
        Ok((started.elapsed().as_secs_f64(), cpu_seconds() - cpu))
    };
    // Each round into a new database; the last one's is kept for the re-ingest and size.
    let mut seen = Vec::new();
    for _ in 0..rounds {
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", db.display()));
        }
        seen.push(ingest_into(&db, &log)?);
    }
    let (best, best_cpu) = seen
        .iter()
        .copied()
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .expect("at least one round");
    let (again, _) = ingest_into(&db, &log)?;
    let db_bytes: u64 = ["", "-wal", "-shm"]
        .iter()
        .filter_map(|s| std::fs::metadata(format!("{}{s}", db.display())).ok())
        .map(|m| m.len())
        .sum();
    // The same outputs as a folder of half-megabyte logs, as a folder of CI results is
    // ingested: detection and one transaction per file.
    let folder = dir.path().join("folder");
    std::fs::create_dir(&folder)?;
    let (folder_bytes, files) = jlbh::synthetic::generate_folder(&folder, mb, FILE_KB)?;
    let (took, _) = ingest_into(&dir.path().join("folder.db"), &folder)?;
    // The figures last, after the command's own lines.
    let mb_of = |b: u64| b as f64 / 1e6;
    println!("log: {:.1} MB, {outputs} JLBH outputs", mb_of(bytes));
    println!(
        "ingest: {best:.2} s wall = {:.1} MB/s (target >= 100; best of {rounds}); {best_cpu:.2} s of CPU = {:.1} MB/s per CPU second",
        mb_of(bytes) / best,
        mb_of(bytes) / best_cpu
    );
    let each: Vec<String> = seen
        .iter()
        .map(|(wall, cpu)| {
            format!(
                "{wall:.2} s ({:.1} MB/s, {cpu:.2} s CPU)",
                mb_of(bytes) / wall
            )
        })
        .collect();
    println!("rounds: {}", each.join(", "));
    println!("re-ingest (unchanged): {again:.2} s");
    println!(
        "database: {:.1} MB = {:.2} x the log (target <= 1.00)",
        mb_of(db_bytes),
        db_bytes as f64 / bytes as f64
    );
    println!(
        "folder of {files} files of {FILE_KB} KiB: {took:.2} s = {:.1} MB/s, {:.2} x the single log's rate",
        mb_of(folder_bytes) / took,
        (mb_of(folder_bytes) / took) / (mb_of(bytes) / best)
    );
    Ok(())
}

/// The size of each file of the folder ingest.
const FILE_KB: u64 = 512;
