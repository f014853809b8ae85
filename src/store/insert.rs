//! Writing parsed sources into the database: one transaction per source, blocks
//! inserted as the parser yields them, so memory stays flat on large logs.

use super::Store;
use bench_db_parsers::{Block, Data, ParseError, Parsed, Run, Series};
use rusqlite::{Transaction, params};
use std::collections::BTreeMap;
use thiserror::Error;

/// Provenance of one source.
#[derive(Debug, Clone)]
pub struct SourceMeta {
    /// Path as given by the user (or an origin such as `run loopback`).
    pub path: String,
    /// Hex SHA-256 of the whole content.
    pub sha256: String,
    pub bytes: u64,
    pub format: String,
    /// Parser name and version.
    pub parser: String,
}

/// What the command line decides for every block of a source.
#[derive(Debug, Clone, Default)]
pub struct BlockDefaults {
    pub suite: String,
    /// `--label`: overrides every block's label.
    pub label_override: Option<String>,
    /// Label of a block that has none of its own (e.g. the file name).
    pub fallback_label: String,
    /// `--tag`s, added to every run.
    pub tags: BTreeMap<String, String>,
}

/// What one ingest stored.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Ingested {
    pub blocks: usize,
    pub runs: usize,
    pub points: usize,
    /// The content was already stored: nothing was written.
    pub unchanged: bool,
    /// The ids of the stored runs, in order.
    pub run_ids: Vec<i64>,
    /// Passages the parser skipped on purpose: (line, message).
    pub warnings: Vec<(u64, String)>,
}

/// Why an ingest stored nothing.
#[derive(Debug, Error)]
pub enum IngestError {
    #[error(transparent)]
    Parse(#[from] ParseError),
    #[error("database error: {0}")]
    Db(String),
    #[error("cannot encode run data: {0}")]
    Json(#[from] serde_json::Error),
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

impl From<rusqlite::Error> for IngestError {
    fn from(e: rusqlite::Error) -> Self {
        IngestError::Db(e.to_string())
    }
}

/// The output of a built-in benchmark, stored like an ingested source.
#[derive(Debug, Clone)]
pub struct Generated<'a> {
    /// Where it came from, stored as the source path (`run loopback`).
    pub origin: &'a str,
    /// Format name stored with the runs (`loopback`).
    pub format: &'a str,
    /// The printed output; its hash identifies the source.
    pub text: &'a str,
    pub blocks: &'a [Block],
    pub suite: &'a str,
    pub label_override: Option<&'a str>,
    pub tags: &'a BTreeMap<String, String>,
}

impl Store {
    /// Whether a source with this content hash is already stored.
    pub fn has_source(&self, sha256: &str) -> rusqlite::Result<bool> {
        self.conn.query_row(
            "SELECT EXISTS (SELECT 1 FROM source WHERE sha256 = ?1)",
            [sha256],
            |r| r.get(0),
        )
    }

    /// Stores every block of one source in one transaction: all or nothing.
    ///
    /// A parse error rolls everything back. A source that yields no block stores
    /// nothing and returns `blocks == 0`.
    pub fn ingest(
        &mut self,
        meta: &SourceMeta,
        items: impl Iterator<Item = Result<Parsed, ParseError>>,
        defaults: &BlockDefaults,
    ) -> Result<Ingested, IngestError> {
        let tx = self.conn.transaction()?;
        let mut out = Ingested::default();
        let mut source_id = None;
        for item in items {
            match item? {
                Parsed::Warning { line, message } => out.warnings.push((line, message)),
                Parsed::Block(block) => {
                    let sid = match source_id {
                        Some(id) => id,
                        None => *source_id.insert(insert_source(&tx, meta)?),
                    };
                    insert_block(&tx, sid, out.blocks, &block, defaults, &mut out)?;
                    out.blocks += 1;
                }
            }
        }
        if out.blocks > 0 {
            tx.commit()?;
        }
        Ok(out)
    }

    /// Stores the output of a built-in benchmark; returns the new run ids.
    pub fn insert_generated(&mut self, g: &Generated) -> anyhow::Result<Vec<i64>> {
        use sha2::Digest;
        let meta = SourceMeta {
            path: g.origin.to_string(),
            sha256: hex::encode(sha2::Sha256::digest(g.text.as_bytes())),
            bytes: g.text.len() as u64,
            format: g.format.to_string(),
            parser: format!("{} {}", g.format, env!("CARGO_PKG_VERSION")),
        };
        let defaults = BlockDefaults {
            suite: g.suite.to_string(),
            label_override: g.label_override.map(str::to_string),
            fallback_label: g.format.to_string(),
            tags: g.tags.clone(),
        };
        let before: i64 = self
            .conn
            .query_row("SELECT COALESCE(MAX(id), 0) FROM run", [], |r| r.get(0))?;
        let items = g.blocks.iter().cloned().map(|b| Ok(Parsed::Block(b)));
        self.ingest(&meta, items, &defaults)?;
        let mut stmt = self
            .conn
            .prepare("SELECT id FROM run WHERE id > ?1 ORDER BY id")?;
        let ids = stmt
            .query_map([before], |r| r.get(0))?
            .collect::<Result<Vec<i64>, _>>()?;
        Ok(ids)
    }
}

fn insert_source(tx: &Transaction, meta: &SourceMeta) -> rusqlite::Result<i64> {
    let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    tx.execute(
        "INSERT INTO source (path, sha256, bytes, format, parser, ingested_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![meta.path, meta.sha256, meta.bytes as i64, meta.format, meta.parser, now],
    )?;
    Ok(tx.last_insert_rowid())
}

fn insert_block(
    tx: &Transaction,
    source_id: i64,
    idx: usize,
    block: &Block,
    defaults: &BlockDefaults,
    out: &mut Ingested,
) -> Result<(), IngestError> {
    tx.prepare_cached(
        "INSERT INTO block (source_id, idx, label, first_line, last_line) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?
    .execute(params![source_id, idx as i64, block.label, block.first_line as i64, block.last_line as i64])?;
    let block_id = tx.last_insert_rowid();
    let mut stat = tx.prepare_cached(
        "INSERT INTO printed_stat (block_id, metric, percentile, name, value) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?;
    for p in &block.printed {
        stat.execute(params![block_id, p.metric, p.percentile, p.name, p.value])?;
    }
    let label = defaults
        .label_override
        .clone()
        .or_else(|| block.label.clone())
        .unwrap_or_else(|| defaults.fallback_label.clone());
    for run in &block.runs {
        insert_run(tx, block_id, &label, run, defaults, out)?;
        out.runs += 1;
    }
    Ok(())
}

fn insert_run(
    tx: &Transaction,
    block_id: i64,
    label: &str,
    run: &Run,
    defaults: &BlockDefaults,
    out: &mut Ingested,
) -> Result<(), IngestError> {
    let mut tags = run.tags.clone();
    tags.extend(defaults.tags.iter().map(|(k, v)| (k.clone(), v.clone())));
    tx.prepare_cached(
        "INSERT INTO run (block_id, suite, label, run_index, first_line, last_line, params, tags)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    )?
    .execute(params![
        block_id,
        defaults.suite,
        label,
        run.index,
        run.first_line as i64,
        run.last_line as i64,
        serde_json::to_string(&run.params)?,
        serde_json::to_string(&tags)?,
    ])?;
    let run_id = tx.last_insert_rowid();
    for series in &run.series {
        insert_series(tx, run_id, series, out)?;
    }
    Ok(())
}

fn insert_series(
    tx: &Transaction,
    run_id: i64,
    s: &Series,
    out: &mut Ingested,
) -> Result<(), IngestError> {
    let count = match &s.data {
        Data::Ladder { count, .. } | Data::Histogram { count, .. } => count.map(|c| c as i64),
        _ => None,
    };
    tx.prepare_cached(
        "INSERT INTO series (run_id, metric, display, unit, kind, sample_count, stats)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?
    .execute(params![
        run_id,
        s.metric,
        s.display,
        s.unit,
        s.kind(),
        count,
        serde_json::to_string(&s.stats)?
    ])?;
    let series_id = tx.last_insert_rowid();
    let mut point = tx.prepare_cached(
        "INSERT INTO point (series_id, percentile, t, value, line_value) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?;
    if let Some(points) = s.ladder() {
        for p in points {
            point.execute(params![
                series_id,
                p.percentile,
                None::<f64>,
                p.value,
                p.line_value
            ])?;
        }
        out.points += points.len();
    }
    match &s.data {
        Data::Ladder { .. } => {}
        Data::Histogram { intervals, .. } => {
            let mut hist = tx.prepare_cached(
                "INSERT INTO histogram (series_id, idx, t, duration, tag, encoded) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?;
            for (i, h) in intervals.iter().enumerate() {
                hist.execute(params![
                    series_id, i as i64, h.t, h.duration, h.tag, h.encoded
                ])?;
            }
        }
        Data::TimeSeries { points } => {
            for p in points {
                point.execute(params![series_id, None::<f64>, p.t, p.value, None::<f64>])?;
            }
            out.points += points.len();
        }
        Data::Value { value } => {
            point.execute(params![
                series_id,
                None::<f64>,
                None::<f64>,
                value,
                None::<f64>
            ])?;
            out.points += 1;
        }
    }
    Ok(())
}
