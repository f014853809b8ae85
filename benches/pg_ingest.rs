//! PostgreSQL ingest rate against SQLite's on the same log, and against `psql \copy` of
//! the same rows (issue targets: PostgreSQL over a local unix socket at ≥ 50% of the
//! SQLite rate; the ingest within 1.2× of `psql \copy`).
//!
//! `BENCH_DB_BENCH_PG=postgres://USER:PW@%2Frun%2Fpostgresql:5432/DB cargo bench --bench
//! pg_ingest -- [MB] [ROUNDS]` (default 20 MB, 3 rounds; `.ci/pg-cluster.sh start DIR`
//! prints a `BENCH_DB_TEST_PG_SOCKET` URL that fits) writes a synthetic multi-output JLBH
//! log, then ingests it with `bench-db ingest` in this process (read, detect, hash, parse,
//! store: exactly the command's code path) into a fresh SQLite file and into a fresh
//! PostgreSQL schema, alternating. After each PostgreSQL ingest, every table it wrote is
//! dumped (`COPY … TO STDOUT`, text format) and loaded into a fresh schema with the same
//! tables and indexes (`LIKE … INCLUDING ALL`) by one `psql --single-transaction` of one
//! `\copy … FROM` per table, timed from the start of `psql` to its exit: the floor of
//! writing those rows from outside the server. Prints each best time, MB/s and the ratios.
//! Without the variable it says so and measures nothing.

use bench_db::cli::Cli;
use bench_db_parsers::jlbh;
use clap::Parser;
use std::path::Path;
use std::str::FromStr;
use std::time::Instant;

/// The allocator the `bench-db` binary uses.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The tables an ingest writes.
const TABLES: [&str; 7] = [
    "source",
    "block",
    "run",
    "run_tag",
    "block_tag",
    "series",
    "histogram",
];

fn ingest(db: &str, log: &Path) -> anyhow::Result<f64> {
    let cli = Cli::try_parse_from([
        "bench-db".as_ref(),
        "--db".as_ref(),
        db.as_ref(),
        "ingest".as_ref(),
        log.as_os_str(),
    ])?;
    let started = Instant::now();
    let code = bench_db::run(cli)?;
    anyhow::ensure!(code == 0, "ingest exited {code}");
    Ok(started.elapsed().as_secs_f64())
}

/// Dumps the tables of `from` into `dir`, creates `to` with the same tables and indexes,
/// and times `psql` loading the dumps into it; returns the seconds and the rows loaded.
fn psql_copy(
    admin: &mut postgres::Client,
    pg: &str,
    from: &str,
    to: &str,
    dir: &Path,
) -> anyhow::Result<(f64, u64)> {
    use std::io::{Read, Write};
    let mut script = String::new();
    let mut rows = 0u64;
    admin.batch_execute(&format!("CREATE SCHEMA {to}"))?;
    for table in TABLES {
        let file = dir.join(format!("{table}.copy"));
        let mut out = std::io::BufWriter::new(std::fs::File::create(&file)?);
        let mut dump = admin.copy_out(&format!("COPY {from}.{table} TO STDOUT"))?;
        let mut buf = vec![0u8; 1 << 16];
        loop {
            let n = dump.read(&mut buf)?;
            if n == 0 {
                break;
            }
            rows += buf[..n].iter().filter(|&&b| b == b'\n').count() as u64;
            out.write_all(&buf[..n])?;
        }
        drop(dump);
        out.flush()?;
        admin.batch_execute(&format!(
            "CREATE TABLE {to}.{table} (LIKE {from}.{table} INCLUDING ALL)"
        ))?;
        script.push_str(&format!("\\copy {to}.{table} FROM '{}'\n", file.display()));
    }
    let script_file = dir.join("load.psql");
    std::fs::write(&script_file, script)?;
    let started = Instant::now();
    let done = std::process::Command::new("psql")
        .args(["-X", "-q", "--single-transaction", "-v", "ON_ERROR_STOP=1"])
        .arg("-d")
        .arg(pg)
        .arg("-f")
        .arg(&script_file)
        .status()?;
    let secs = started.elapsed().as_secs_f64();
    anyhow::ensure!(done.success(), "psql exited {done}");
    Ok((secs, rows))
}

fn main() -> anyhow::Result<()> {
    let Ok(pg) = std::env::var("BENCH_DB_BENCH_PG") else {
        println!("BENCH_DB_BENCH_PG is not set: no PostgreSQL to measure");
        return Ok(());
    };
    let words: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let mb: u64 = words.first().map(|a| a.parse()).transpose()?.unwrap_or(20);
    let rounds: u32 = words.get(1).map(|a| a.parse()).transpose()?.unwrap_or(3);
    let dir = tempfile::tempdir()?;
    let log = dir.path().join("jlbh.log");
    let (bytes, outputs) = jlbh::synthetic::generate(&log, mb)?;
    let mut admin = postgres::Config::from_str(&pg)?.connect(postgres::NoTls)?;
    let (mut best_sqlite, mut best_pg, mut best_psql) =
        (f64::INFINITY, f64::INFINITY, f64::INFINITY);
    let mut rows = 0;
    for round in 0..rounds {
        let db = dir.path().join(format!("bench{round}.db"));
        best_sqlite = best_sqlite.min(ingest(db.to_str().expect("utf-8 temp dir"), &log)?);
        let schema = format!("bench_ingest_{}_{round}", std::process::id());
        let copied = format!("{schema}_psql");
        let sep = if pg.contains('?') { '&' } else { '?' };
        let result = ingest(&format!("{pg}{sep}schema={schema}"), &log).and_then(|secs| {
            let psql = psql_copy(&mut admin, &pg, &schema, &copied, dir.path())?;
            Ok((secs, psql))
        });
        admin.batch_execute(&format!(
            "DROP SCHEMA IF EXISTS {schema} CASCADE; DROP SCHEMA IF EXISTS {copied} CASCADE"
        ))?;
        let (secs, (psql, n)) = result?;
        best_pg = best_pg.min(secs);
        best_psql = best_psql.min(psql);
        rows = n;
    }
    let mb_of = |b: u64| b as f64 / 1e6;
    let rate = |secs: f64| mb_of(bytes) / secs;
    println!(
        "log: {:.1} MB, {outputs} JLBH outputs, {rows} rows in the tables; best of {rounds}",
        mb_of(bytes)
    );
    println!(
        "sqlite:       {best_sqlite:.2} s = {:.1} MB/s",
        rate(best_sqlite)
    );
    println!("postgresql:   {best_pg:.2} s = {:.1} MB/s", rate(best_pg));
    println!(
        "psql \\copy:   {best_psql:.2} s (the same rows, already parsed) = {:.1} MB/s",
        rate(best_psql)
    );
    println!(
        "postgresql / sqlite = {:.2} (target >= 0.50)",
        best_sqlite / best_pg
    );
    println!(
        "postgresql ingest / psql \\copy = {:.2} (target <= 1.20)",
        best_pg / best_psql
    );
    Ok(())
}
