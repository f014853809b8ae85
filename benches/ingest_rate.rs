//! Ingest rate against rusqlite alone, measured in the same run.
//!
//! `cargo bench --bench ingest_rate -- [MB]` (default 20) writes a synthetic JLBH log,
//! then (1) ingests it end to end (parse + store, one transaction, as `bench-db ingest`
//! does) and (2) inserts exactly the same rows into the same schema with plain rusqlite
//! prepared statements, and prints points per second for both and their ratio
//! (target: end to end ≥ 50% of rusqlite alone).
//!
//! The SQL in `insert_raw` mirrors `store::insert` on purpose: it is the baseline.

use bench_db::store::{BlockDefaults, SourceMeta, Store};
use bench_db_parsers::{Block, Data, Parsed, jlbh};
use rusqlite::{Connection, params};
use std::fs::File;
use std::io::BufReader;
use std::path::Path;
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
    println!("log: {:.1} MB, {outputs} JLBH outputs", bytes as f64 / 1e6);

    let (points, e2e) = ingest_end_to_end(&log, &dir.path().join("e2e.db"))?;
    let blocks = parse_all(&log)?;
    let (raw_points, raw) = insert_raw(&blocks, &dir.path().join("raw.db"))?;
    assert_eq!(points, raw_points, "both sides must store the same points");

    let rate = |secs: f64| points as f64 / secs;
    println!(
        "end to end (parse + store): {points} points in {e2e:.2} s = {:.0} points/s",
        rate(e2e)
    );
    println!(
        "rusqlite alone (same rows):  {points} points in {raw:.2} s = {:.0} points/s",
        rate(raw)
    );
    println!(
        "ratio end-to-end / rusqlite alone: {:.2} (target >= 0.50)",
        raw / e2e
    );
    Ok(())
}

fn ingest_end_to_end(log: &Path, db: &Path) -> anyhow::Result<(usize, f64)> {
    let mut store = Store::open(db)?;
    let meta = SourceMeta {
        path: log.display().to_string(),
        sha256: "bench".into(),
        bytes: 0,
        format: "jlbh".into(),
        parser: "jlbh bench".into(),
    };
    let defaults = BlockDefaults {
        suite: "jlbh".into(),
        fallback_label: "bench".into(),
        ..Default::default()
    };
    let started = Instant::now();
    let reader = BufReader::with_capacity(1 << 16, File::open(log)?);
    let done = store.ingest(&meta, (jlbh::FORMAT.parse)(Box::new(reader)), &defaults)?;
    Ok((done.points, started.elapsed().as_secs_f64()))
}

fn parse_all(log: &Path) -> anyhow::Result<Vec<Block>> {
    let reader = BufReader::new(File::open(log)?);
    let mut out = Vec::new();
    for item in (jlbh::FORMAT.parse)(Box::new(reader)) {
        if let Parsed::Block(b) = item? {
            out.push(b);
        }
    }
    Ok(out)
}

/// Inserts the parsed rows with plain prepared statements into a fresh database that
/// has the same schema and pragmas; returns the points inserted and the seconds taken.
fn insert_raw(blocks: &[Block], db: &Path) -> anyhow::Result<(usize, f64)> {
    drop(Store::open(db)?); // creates the schema
    let mut conn = Connection::open(db)?;
    let _mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
    conn.execute_batch("PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL;")?;
    let started = Instant::now();
    let tx = conn.transaction()?;
    let mut points = 0;
    {
        tx.execute(
            "INSERT INTO source (path, sha256, bytes, format, parser, ingested_at)
             VALUES ('x', 'raw', 0, 'jlbh', 'raw', 'now')",
            [],
        )?;
        let source = tx.last_insert_rowid();
        let mut block_stmt = tx.prepare(
            "INSERT INTO block (source_id, idx, label, first_line, last_line) VALUES (?1, ?2, ?3, ?4, ?5)",
        )?;
        let mut stat_stmt = tx.prepare(
            "INSERT INTO printed_stat (block_id, metric, percentile, name, value) VALUES (?1, ?2, ?3, ?4, ?5)",
        )?;
        let mut run_stmt = tx.prepare(
            "INSERT INTO run (block_id, suite, label, run_index, first_line, last_line, params, tags)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        )?;
        let mut series_stmt = tx.prepare(
            "INSERT INTO series (run_id, metric, display, unit, kind, sample_count, stats)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )?;
        let mut point_stmt = tx.prepare(
            "INSERT INTO point (series_id, percentile, t, value, line_value) VALUES (?1, ?2, ?3, ?4, ?5)",
        )?;
        for (i, b) in blocks.iter().enumerate() {
            block_stmt.execute(params![
                source,
                i as i64,
                b.label,
                b.first_line as i64,
                b.last_line as i64
            ])?;
            let block = tx.last_insert_rowid();
            for p in &b.printed {
                stat_stmt.execute(params![block, p.metric, p.percentile, p.name, p.value])?;
            }
            for r in &b.runs {
                let params_json = serde_json::to_string(&r.params)?;
                run_stmt.execute(params![
                    block,
                    "jlbh",
                    "bench",
                    r.index,
                    r.first_line as i64,
                    r.last_line as i64,
                    params_json,
                    "{}"
                ])?;
                let run = tx.last_insert_rowid();
                for s in &r.series {
                    let Data::Ladder {
                        count,
                        points: ladder,
                    } = &s.data
                    else {
                        continue;
                    };
                    series_stmt.execute(params![
                        run,
                        s.metric,
                        s.display,
                        s.unit,
                        "ladder",
                        count.map(|c| c as i64),
                        "{}"
                    ])?;
                    let series = tx.last_insert_rowid();
                    for p in ladder {
                        point_stmt.execute(params![
                            series,
                            p.percentile,
                            None::<f64>,
                            p.value,
                            p.line_value
                        ])?;
                    }
                    points += ladder.len();
                }
            }
        }
    }
    tx.commit()?;
    Ok((points, started.elapsed().as_secs_f64()))
}
