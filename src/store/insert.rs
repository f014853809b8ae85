//! Writing parsed sources into the database: one `BEGIN IMMEDIATE` transaction per
//! source, blocks inserted as the parser yields them, so memory stays flat on large logs.
//! The content hash is computed while the source is read and checked inside the same
//! transaction, so a concurrent ingest of the same content ends `unchanged`.

use super::{Store, pack};
use bench_db_parsers::{Block, Data, ParseError, Parsed, PrintedStat, Run, Series};
use rusqlite::{Statement, Transaction, TransactionBehavior, params};
use std::collections::BTreeMap;
use thiserror::Error;

/// Provenance of one source.
#[derive(Debug, Clone)]
pub struct SourceMeta {
    /// Path as given by the user (quoted when not UTF-8), `-` for standard input, or an
    /// origin such as `run loopback`.
    pub path: String,
    pub format: String,
    /// Parser name and version.
    pub parser: String,
}

/// Identity of a source's content, known once it has been read to the end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Digest {
    /// Hex SHA-256 of the whole content.
    pub sha256: String,
    pub bytes: u64,
}

impl Digest {
    /// The digest of bytes held in memory.
    pub fn of(bytes: &[u8]) -> Digest {
        use sha2::Digest as _;
        Digest {
            sha256: hex::encode(sha2::Sha256::digest(bytes)),
            bytes: bytes.len() as u64,
        }
    }
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

impl Generated<'_> {
    /// The source record and block defaults an ingest of this output takes.
    pub(crate) fn ingest_parts(&self) -> (SourceMeta, BlockDefaults) {
        let meta = SourceMeta {
            path: self.origin.to_string(),
            format: self.format.to_string(),
            parser: format!("{} {}", self.format, env!("CARGO_PKG_VERSION")),
        };
        let defaults = BlockDefaults {
            suite: self.suite.to_string(),
            label_override: self.label_override.map(str::to_string),
            fallback_label: self.format.to_string(),
            tags: self.tags.clone(),
        };
        (meta, defaults)
    }

    /// The blocks as parsed items.
    pub(crate) fn items(&self) -> impl Iterator<Item = Result<Parsed, ParseError>> + '_ {
        self.blocks.iter().cloned().map(|b| Ok(Parsed::Block(b)))
    }

    /// The digest of the printed output, which identifies the source.
    pub(crate) fn digest(&self) -> Digest {
        Digest::of(self.text.as_bytes())
    }
}

impl Store {
    /// Whether a source with this content hash is already stored.
    pub fn has_source(&self, sha256: &str) -> anyhow::Result<bool> {
        Ok(self.conn.query_row(
            "SELECT EXISTS (SELECT 1 FROM source WHERE sha256 = ?1)",
            [sha256],
            |r| r.get(0),
        )?)
    }

    /// Whether a source of exactly this many bytes is stored (then a file of that size
    /// is worth hashing before it is parsed).
    pub fn has_source_of_size(&self, bytes: u64) -> anyhow::Result<bool> {
        Ok(self.conn.query_row(
            "SELECT EXISTS (SELECT 1 FROM source WHERE bytes = ?1)",
            [bytes as i64],
            |r| r.get(0),
        )?)
    }

    /// Stores every block of one source in one transaction: all or nothing.
    ///
    /// `digest` is called once the items are exhausted (the source has been read) and
    /// identifies the content; when it is already stored, everything is rolled back and
    /// `unchanged` is set. A parse error rolls everything back. A source that yields no
    /// block stores nothing and returns `blocks == 0`.
    pub fn ingest<'a>(
        &mut self,
        meta: &SourceMeta,
        items: impl Iterator<Item = Result<Parsed, ParseError>> + 'a,
        defaults: &BlockDefaults,
        digest: impl FnOnce() -> std::io::Result<Digest>,
    ) -> Result<Ingested, IngestError> {
        self.without_checks(|s| s.ingest_unchecked(meta, items, defaults, digest))
    }

    /// Runs `write` with SQLite's CHECK constraints off. The schema's one CHECK
    /// (`series.kind IN (…)`) makes SQLite build a temporary table for its list on every
    /// inserted series, a tenth of an ingest's time; the kind the writers store comes
    /// from `Series::kind`, always one of the four.
    pub(super) fn without_checks<T, E: From<rusqlite::Error>>(
        &mut self,
        write: impl FnOnce(&mut Store) -> Result<T, E>,
    ) -> Result<T, E> {
        self.conn
            .pragma_update(None, "ignore_check_constraints", true)?;
        let done = write(self);
        self.conn
            .pragma_update(None, "ignore_check_constraints", false)?;
        done
    }

    fn ingest_unchecked<'a>(
        &mut self,
        meta: &SourceMeta,
        items: impl Iterator<Item = Result<Parsed, ParseError>> + 'a,
        defaults: &BlockDefaults,
        digest: impl FnOnce() -> std::io::Result<Digest>,
    ) -> Result<Ingested, IngestError> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let mut out = Ingested::default();
        {
            let mut w = Writer::new(&tx)?;
            let mut source_id = None;
            for item in items {
                match item? {
                    Parsed::Warning { line, message } => out.warnings.push((line, message)),
                    Parsed::Block(block) => {
                        let sid = match source_id {
                            Some(id) => id,
                            None => *source_id.insert(insert_source(&tx, meta)?),
                        };
                        w.block(sid, out.blocks, &block, defaults, &mut out)?;
                        out.blocks += 1;
                    }
                }
            }
            let d = digest()?;
            let Some(sid) = source_id else {
                return Ok(out);
            };
            let seen: bool = tx.query_row(
                "SELECT EXISTS (SELECT 1 FROM source WHERE sha256 = ?1)",
                [&d.sha256],
                |r| r.get(0),
            )?;
            if seen {
                return Ok(Ingested {
                    unchanged: true,
                    warnings: out.warnings,
                    ..Ingested::default()
                });
            }
            tx.execute(
                "UPDATE source SET sha256 = ?2, bytes = ?3 WHERE id = ?1",
                params![sid, d.sha256, d.bytes as i64],
            )?;
        }
        tx.commit()?;
        Ok(out)
    }

    /// Stores the output of a built-in benchmark; returns the new run ids.
    pub fn insert_generated(&mut self, g: &Generated) -> anyhow::Result<Vec<i64>> {
        let (meta, defaults) = g.ingest_parts();
        let done = self.ingest(&meta, g.items(), &defaults, || Ok(g.digest()))?;
        Ok(done.run_ids)
    }
}

fn insert_source(tx: &Transaction, meta: &SourceMeta) -> rusqlite::Result<i64> {
    let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    // The hash is set once the whole source has been read; until then (inside this
    // transaction only) the row holds a placeholder no real hash equals.
    tx.execute(
        "INSERT INTO source (path, sha256, bytes, format, parser, ingested_at) VALUES (?1, 'pending', 0, ?2, ?3, ?4)",
        params![meta.path, meta.format, meta.parser, now],
    )?;
    Ok(tx.last_insert_rowid())
}

/// The prepared statements of one ingest or copy.
pub(super) struct Writer<'t> {
    tx: &'t Transaction<'t>,
    block: Statement<'t>,
    run: Statement<'t>,
    series: Statement<'t>,
    hist: Statement<'t>,
}

impl<'t> Writer<'t> {
    pub(super) fn new(tx: &'t Transaction<'t>) -> rusqlite::Result<Self> {
        Ok(Writer {
            tx,
            block: tx.prepare(
                "INSERT INTO block (source_id, idx, label, first_line, last_line, printed) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?,
            run: tx.prepare(
                "INSERT INTO run (block_id, suite, label, run_index, first_line, last_line, params, tags)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            )?,
            series: tx.prepare(
                "INSERT INTO series (run_id, metric, display, unit, kind, sample_count, stats, value, points)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            )?,
            hist: tx.prepare(
                "INSERT INTO histogram (series_id, idx, t, duration, tag, encoded) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?,
        })
    }

    /// Writes a parsed block, its runs under the suite, label and tags `defaults` decide.
    fn block(
        &mut self,
        source_id: i64,
        idx: usize,
        block: &Block,
        defaults: &BlockDefaults,
        out: &mut Ingested,
    ) -> Result<(), IngestError> {
        let block_id = self.block_row(
            source_id,
            idx as i64,
            block.label.as_deref(),
            (block.first_line, block.last_line),
            &block.printed,
        )?;
        let label = defaults
            .label_override
            .as_deref()
            .or(block.label.as_deref())
            .unwrap_or(&defaults.fallback_label);
        for run in &block.runs {
            let tags = if defaults.tags.is_empty() {
                serde_json::to_string(&run.tags)?
            } else {
                let mut tags = run.tags.clone();
                tags.extend(defaults.tags.iter().map(|(k, v)| (k.clone(), v.clone())));
                serde_json::to_string(&tags)?
            };
            let id = self.run(block_id, &defaults.suite, label, run, &tags, out)?;
            out.run_ids.push(id);
            out.runs += 1;
        }
        Ok(())
    }

    /// Writes a block's own row; returns its id.
    pub(super) fn block_row(
        &mut self,
        source_id: i64,
        idx: i64,
        label: Option<&str>,
        (first_line, last_line): (u64, u64),
        printed: &[PrintedStat],
    ) -> Result<i64, IngestError> {
        self.block.execute(params![
            source_id,
            idx,
            label,
            first_line as i64,
            last_line as i64,
            super::query::printed_to_json(printed)?
        ])?;
        Ok(self.tx.last_insert_rowid())
    }

    /// Writes a run with its series under `suite` and `label`, with `tags` (JSON) as its
    /// final tags; returns its id.
    pub(super) fn run(
        &mut self,
        block_id: i64,
        suite: &str,
        label: &str,
        run: &Run,
        tags: &str,
        out: &mut Ingested,
    ) -> Result<i64, IngestError> {
        self.run.execute(params![
            block_id,
            suite,
            label,
            run.index,
            run.first_line as i64,
            run.last_line as i64,
            serde_json::to_string(&run.params)?,
            tags,
        ])?;
        let run_id = self.tx.last_insert_rowid();
        for series in &run.series {
            self.series(run_id, series, out)?;
        }
        Ok(run_id)
    }

    fn series(&mut self, run_id: i64, s: &Series, out: &mut Ingested) -> Result<(), IngestError> {
        let (count, value, points) = match &s.data {
            Data::Ladder { count, points } | Data::Histogram { count, points, .. } => {
                out.points += points.len();
                (count.map(|c| c as i64), None, Some(pack::ladder(points)))
            }
            Data::TimeSeries { points } => {
                out.points += points.len();
                (None, None, Some(pack::time_series(points)))
            }
            Data::Value { value } => {
                out.points += 1;
                (None, *value, None)
            }
        };
        let stats = if s.stats.is_empty() {
            "{}".to_string()
        } else {
            serde_json::to_string(&s.stats)?
        };
        self.series.execute(params![
            run_id,
            s.metric,
            s.display,
            s.unit,
            s.kind(),
            count,
            stats,
            value,
            points
        ])?;
        if let Data::Histogram { intervals, .. } = &s.data {
            let series_id = self.tx.last_insert_rowid();
            for (i, h) in intervals.iter().enumerate() {
                self.hist.execute(params![
                    series_id, i as i64, h.t, h.duration, h.tag, h.encoded
                ])?;
            }
        }
        Ok(())
    }
}
