//! PostgreSQL ingest rate against SQLite's on the same log (issue target: PostgreSQL over a
//! local unix socket at ≥ 50% of the SQLite rate).
//!
//! `BENCH_DB_BENCH_PG=postgres://USER:PW@%2Frun%2Fpostgresql:5432/DB cargo bench --bench
//! pg_ingest -- [MB] [ROUNDS]` (default 20 MB, 3 rounds; `.ci/pg-cluster.sh start DIR`
//! prints a `BENCH_DB_TEST_PG_SOCKET` URL that fits) writes a synthetic multi-output JLBH
//! log, then ingests it with `bench-db ingest` in this process (read, detect, hash, parse,
//! store: exactly the command's code path) into a fresh SQLite file and into a fresh
//! PostgreSQL schema, alternating, and prints each store's best MB/s and their ratio.
//! Without the variable it says so and measures nothing.

use bench_db::cli::Cli;
use bench_db_parsers::jlbh;
use clap::Parser;
use std::str::FromStr;
use std::time::Instant;

/// The allocator the `bench-db` binary uses.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn ingest(db: &str, log: &std::path::Path) -> anyhow::Result<f64> {
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
    let (mut best_sqlite, mut best_pg) = (f64::INFINITY, f64::INFINITY);
    for round in 0..rounds {
        let db = dir.path().join(format!("bench{round}.db"));
        best_sqlite = best_sqlite.min(ingest(db.to_str().expect("utf-8 temp dir"), &log)?);
        let schema = format!("bench_ingest_{}_{round}", std::process::id());
        let sep = if pg.contains('?') { '&' } else { '?' };
        let result = ingest(&format!("{pg}{sep}schema={schema}"), &log);
        admin.batch_execute(&format!("DROP SCHEMA IF EXISTS {schema} CASCADE"))?;
        best_pg = best_pg.min(result?);
    }
    let mb_of = |b: u64| b as f64 / 1e6;
    let rate = |secs: f64| mb_of(bytes) / secs;
    println!(
        "log: {:.1} MB, {outputs} JLBH outputs; best of {rounds}",
        mb_of(bytes)
    );
    println!(
        "sqlite:     {best_sqlite:.2} s = {:.1} MB/s",
        rate(best_sqlite)
    );
    println!("postgresql: {best_pg:.2} s = {:.1} MB/s", rate(best_pg));
    println!(
        "postgresql / sqlite = {:.2} (target >= 0.50)",
        best_sqlite / best_pg
    );
    Ok(())
}
