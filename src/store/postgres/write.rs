//! Writing sources into PostgreSQL: one transaction per source; blocks are gathered into
//! batches of a bounded size, their ids drawn from the sequences in one round trip, and
//! each table's rows sent with one `COPY … FROM STDIN (FORMAT binary)` per batch (four
//! tables: block, run, series with its packed points, histogram).
//!
//! An ingest learns the content hash only once it has read the source, so its source row
//! holds a placeholder until then; setting the real hash meets the unique index, where a
//! second writer of the same content waits until the first commits, then fails with a
//! unique violation and reports `unchanged` (or goes on if the first rolled back). A copy
//! takes the same path, its digest known from the start.

use super::{PgStore, pg_text};
use crate::selector::time_ns;
use crate::store::backend::BlockFeed;
use crate::store::backend::{Digest, IngestError};
use crate::store::rows::{BlockEncoded, BlockRows, Removed, SourceRecord, Written, point_count};
use bench_db_parsers::Data;
use postgres::Transaction;
use postgres::binary_copy::BinaryCopyInWriter;
use postgres::types::Type;

/// A batch is sent once it holds this many runs or points (memory stays bounded). While
/// the server writes a batch this thread waits: small enough batches let the parsing
/// thread fill its queue meanwhile instead of stopping on a full one.
const BATCH_RUNS: usize = 500;
const BATCH_POINTS: usize = 100_000;

impl From<postgres::Error> for IngestError {
    fn from(e: postgres::Error) -> Self {
        // The server's message, detail and the client's chain, in one line.
        IngestError::Db(anyhow::anyhow!(pg_text(&e)))
    }
}

impl PgStore {
    pub(super) fn has_source(&self, sha256: &str, identity: &str) -> anyhow::Result<bool> {
        let row = self
            .client
            .borrow_mut()
            .query_one(
                "SELECT EXISTS (SELECT 1 FROM source WHERE sha256 = $1::text AND identity = $2::text)",
                &[&sha256, &identity],
            )
            .map_err(|e| self.err(e))?;
        Ok(row.get(0))
    }

    pub(super) fn has_source_of_size(&self, bytes: u64) -> anyhow::Result<bool> {
        let row = self
            .client
            .borrow_mut()
            .query_one(
                "SELECT EXISTS (SELECT 1 FROM source WHERE bytes = $1::bigint)",
                &[&(bytes as i64)],
            )
            .map_err(|e| self.err(e))?;
        Ok(row.get(0))
    }

    /// Writes one source in one transaction, its blocks sent in batches as the feed
    /// yields them; a content already stored (or stored meanwhile by another writer) is
    /// `unchanged` and nothing is written.
    pub(super) fn write_source(
        &self,
        record: &SourceRecord,
        blocks: &mut BlockFeed,
        digest: &mut dyn FnMut() -> Result<Digest, IngestError>,
    ) -> Result<Written, IngestError> {
        let mut client = self.client.borrow_mut();
        let mut tx = client.transaction()?;
        let mut writer: Option<Writer> = None;
        let mut n_blocks = 0;
        for block in blocks {
            let block = block?;
            let w = match &mut writer {
                Some(w) => w,
                None => writer.insert(Writer::new(
                    insert_source(&mut tx, record)?,
                    &record.ingested_at,
                )),
            };
            w.push(&mut tx, block)?;
            n_blocks += 1;
        }
        let d = digest()?;
        let Some(mut w) = writer else {
            return Ok(Written::default());
        };
        w.flush(&mut tx)?;
        let unchanged = || Written {
            unchanged: true,
            ..Written::default()
        };
        let seen: bool = tx
            .query_one(
                "SELECT EXISTS (SELECT 1 FROM source WHERE sha256 = $1::text AND identity = $2::text)",
                &[&d.sha256, &record.identity],
            )?
            .get(0);
        if seen {
            return Ok(unchanged());
        }
        match tx.execute(
            "UPDATE source SET sha256 = $2::text, bytes = $3::bigint WHERE id = $1",
            &[&w.source_id, &d.sha256, &(d.bytes as i64)],
        ) {
            Err(e) if e.code() == Some(&postgres::error::SqlState::UNIQUE_VIOLATION) => {
                return Ok(unchanged());
            }
            r => r?,
        };
        tx.commit()?;
        Ok(Written {
            unchanged: false,
            blocks: n_blocks,
            run_ids: w.run_ids,
            points: w.points,
        })
    }

    pub(super) fn relabel(&self, ids: &[i64], label: &str) -> anyhow::Result<usize> {
        let mut c = self.client.borrow_mut();
        let mut tx = c.transaction().map_err(|e| self.err(e))?;
        let n = tx
            .execute(
                "UPDATE run SET label = $1::text WHERE id = ANY($2::bigint[])",
                &[&label, &ids],
            )
            .map_err(|e| self.err(e))?;
        tx.commit().map_err(|e| self.err(e))?;
        Ok(n as usize)
    }
}

impl PgStore {
    /// Removes runs, then their sources' blocks left without a run and the sources left
    /// without a block, in one transaction (rolled back on a dry run). The schema has no
    /// foreign keys since version 3, so every table is cleared explicitly.
    pub(super) fn remove(&self, ids: &[i64], dry_run: bool) -> anyhow::Result<Removed> {
        let mut c = self.client.borrow_mut();
        let mut tx = c.transaction().map_err(|e| self.err(e))?;
        let ids = ids.to_vec();
        let sources: Vec<i64> = tx
            .query(
                "SELECT DISTINCT b.source_id FROM run r JOIN block b ON b.id = r.block_id
                 WHERE r.id = ANY($1::bigint[])",
                &[&ids],
            )
            .map_err(|e| self.err(e))?
            .iter()
            .map(|r| r.get(0))
            .collect();
        tx.execute(
            "DELETE FROM histogram WHERE series_id IN
               (SELECT id FROM series WHERE run_id = ANY($1::bigint[]))",
            &[&ids],
        )
        .map_err(|e| self.err(e))?;
        tx.execute(
            "DELETE FROM series WHERE run_id = ANY($1::bigint[])",
            &[&ids],
        )
        .map_err(|e| self.err(e))?;
        tx.execute(
            "DELETE FROM run_tag WHERE run_id = ANY($1::bigint[])",
            &[&ids],
        )
        .map_err(|e| self.err(e))?;
        let mut runs: Vec<i64> = tx
            .query(
                "DELETE FROM run WHERE id = ANY($1::bigint[]) RETURNING id",
                &[&ids],
            )
            .map_err(|e| self.err(e))?
            .iter()
            .map(|r| r.get(0))
            .collect();
        runs.sort_unstable();
        tx.execute(
            "DELETE FROM block b WHERE b.source_id = ANY($1::bigint[])
             AND NOT EXISTS (SELECT 1 FROM run r WHERE r.block_id = b.id)",
            &[&sources],
        )
        .map_err(|e| self.err(e))?;
        let mut removed: Vec<(i64, String)> = tx
            .query(
                "DELETE FROM source s WHERE s.id = ANY($1::bigint[])
                 AND NOT EXISTS (SELECT 1 FROM block b WHERE b.source_id = s.id)
                 RETURNING s.id, s.path",
                &[&sources],
            )
            .map_err(|e| self.err(e))?
            .iter()
            .map(|r| (r.get(0), r.get(1)))
            .collect();
        removed.sort_unstable();
        if dry_run {
            tx.rollback().map_err(|e| self.err(e))?;
        } else {
            tx.commit().map_err(|e| self.err(e))?;
        }
        Ok(Removed {
            runs,
            sources: removed.into_iter().map(|(_, p)| p).collect(),
        })
    }
}

/// A hash no content has, unique to this transaction, held until the real one is known.
fn placeholder() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!(
        "pending {} {nanos} {}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    )
}

/// Inserts the source row under a placeholder hash, unique to this transaction, until
/// the real one is known.
fn insert_source(tx: &mut Transaction, s: &SourceRecord) -> Result<i64, postgres::Error> {
    let row = tx.query_one(
        "INSERT INTO source (path, sha256, bytes, format, parser, ingested_at, identity)
         VALUES ($1, $2, 0, $3, $4, $5, $6) RETURNING id",
        &[
            &s.path,
            &placeholder(),
            &s.format,
            &s.parser,
            &s.ingested_at,
            &s.identity,
        ],
    )?;
    Ok(row.get(0))
}

/// Gathers the blocks of one source and sends them in batches.
struct Writer {
    source_id: i64,
    /// The source's ingest time: a run's time when it has no `time` tag.
    ingested_at: String,
    pending: Vec<BlockRows>,
    pending_runs: usize,
    pending_points: usize,
    run_ids: Vec<i64>,
    points: usize,
}

impl Writer {
    fn new(source_id: i64, ingested_at: &str) -> Writer {
        Writer {
            source_id,
            ingested_at: ingested_at.to_string(),
            pending: Vec::new(),
            pending_runs: 0,
            pending_points: 0,
            run_ids: Vec::new(),
            points: 0,
        }
    }

    fn push(&mut self, tx: &mut Transaction, b: BlockRows) -> Result<(), postgres::Error> {
        self.pending_runs += b.runs.len();
        self.pending_points += b
            .runs
            .iter()
            .flat_map(|r| &r.run.series)
            .map(|s| point_count(&s.data))
            .sum::<usize>();
        self.pending.push(b);
        if self.pending_runs >= BATCH_RUNS || self.pending_points >= BATCH_POINTS {
            self.flush(tx)?;
        }
        Ok(())
    }

    /// Sends the pending blocks: one round trip for the ids, one `COPY` per table.
    fn flush(&mut self, tx: &mut Transaction) -> Result<(), postgres::Error> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let mut blocks = std::mem::take(&mut self.pending);
        // Computed ahead on the parsing thread when an ingest prepared the blocks.
        let encoded: Vec<BlockEncoded> = blocks
            .iter_mut()
            .map(|b| {
                b.take_encoded()
                    .expect("maps of strings and numbers serialise")
            })
            .collect();
        self.pending_runs = 0;
        self.pending_points = 0;
        let n_blocks = blocks.len() as i32;
        let n_runs: i32 = blocks.iter().map(|b| b.runs.len() as i32).sum();
        let n_series: i32 = blocks
            .iter()
            .flat_map(|b| &b.runs)
            .map(|r| r.run.series.len() as i32)
            .sum();
        let ids = tx.query_one(
            "SELECT ARRAY(SELECT nextval('block_id_seq') FROM generate_series(1, $1::int) ORDER BY 1),
                    ARRAY(SELECT nextval('run_id_seq') FROM generate_series(1, $2::int) ORDER BY 1),
                    ARRAY(SELECT nextval('series_id_seq') FROM generate_series(1, $3::int) ORDER BY 1)",
            &[&n_blocks, &n_runs, &n_series],
        )?;
        let block_ids: Vec<i64> = ids.get(0);
        let run_ids: Vec<i64> = ids.get(1);
        let series_ids: Vec<i64> = ids.get(2);

        let mut block_w = copy(
            tx,
            "block (id, source_id, idx, label, first_line, last_line, printed)",
            &[
                Type::INT8,
                Type::INT8,
                Type::INT8,
                Type::TEXT,
                Type::INT8,
                Type::INT8,
                Type::TEXT,
            ],
        )?;
        for ((b, e), id) in blocks.iter().zip(&encoded).zip(&block_ids) {
            let printed = &e.printed;
            block_w.write(&[
                id,
                &self.source_id,
                &b.idx,
                &b.label,
                &(b.first_line as i64),
                &(b.last_line as i64),
                &printed,
            ])?;
        }
        block_w.finish()?;

        let mut run_w = copy(
            tx,
            "run (id, block_id, suite, label, run_index, first_line, last_line, params, tags, bench, config, at_ns, commit_tag)",
            &[
                Type::INT8,
                Type::INT8,
                Type::TEXT,
                Type::TEXT,
                Type::INT8,
                Type::INT8,
                Type::INT8,
                Type::TEXT,
                Type::TEXT,
                Type::TEXT,
                Type::TEXT,
                Type::INT8,
                Type::TEXT,
            ],
        )?;
        let mut next_run = run_ids.iter();
        for ((b, e), block_id) in blocks.iter().zip(&encoded).zip(&block_ids) {
            for (r, e) in b.runs.iter().zip(&e.runs) {
                let id = next_run.next().expect("one id per run");
                let (params, tags, config) = (&e.params, &e.tags, &e.config);
                let at_ns = time_ns(&r.run.tags, &self.ingested_at);
                run_w.write(&[
                    id,
                    block_id,
                    &r.suite,
                    &r.label,
                    &(r.run.index as i64),
                    &(r.run.first_line as i64),
                    &(r.run.last_line as i64),
                    params,
                    tags,
                    &r.run.bench,
                    config,
                    &at_ns,
                    &r.run.tags.get("commit"),
                ])?;
            }
        }
        run_w.finish()?;

        let mut tag_w = copy(
            tx,
            "run_tag (run_id, key, value)",
            &[Type::INT8, Type::TEXT, Type::TEXT],
        )?;
        for (r, id) in blocks.iter().flat_map(|b| &b.runs).zip(&run_ids) {
            for (key, value) in &r.run.tags {
                tag_w.write(&[id, key, value])?;
            }
        }
        tag_w.finish()?;

        // As SQLite's schema 2: a ladder (also a histogram's merged one) or a time series is
        // packed into `points`, a single number goes in `value`.
        let mut series_w = copy(
            tx,
            "series (id, run_id, metric, display, unit, kind, sample_count, stats, value, points)",
            &[
                Type::INT8,
                Type::INT8,
                Type::TEXT,
                Type::TEXT,
                Type::TEXT,
                Type::TEXT,
                Type::INT8,
                Type::TEXT,
                Type::FLOAT8,
                Type::BYTEA,
            ],
        )?;
        let runs = || blocks.iter().flat_map(|b| &b.runs).zip(&run_ids);
        let all_series = || {
            runs()
                .flat_map(|(r, run_id)| r.run.series.iter().map(move |s| (run_id, s)))
                .zip(&series_ids)
        };
        let values = encoded.iter().flat_map(|e| &e.runs).flat_map(|r| &r.series);
        for (((run_id, s), id), v) in all_series().zip(values) {
            series_w.write(&[
                id,
                run_id,
                &s.metric,
                &s.display,
                &s.unit,
                &s.kind(),
                &v.count,
                &v.stats,
                &v.value,
                &v.points,
            ])?;
            self.points += v.stored;
        }
        series_w.finish()?;

        let has_hist = all_series()
            .any(|((_, s), _)| matches!(&s.data, Data::Histogram { intervals, .. } if !intervals.is_empty()));
        if has_hist {
            let mut w = copy(
                tx,
                "histogram (series_id, idx, t, duration, tag, encoded)",
                &[
                    Type::INT8,
                    Type::INT8,
                    Type::FLOAT8,
                    Type::FLOAT8,
                    Type::TEXT,
                    Type::BYTEA,
                ],
            )?;
            for ((_, s), id) in all_series() {
                if let Data::Histogram { intervals, .. } = &s.data {
                    for (i, h) in intervals.iter().enumerate() {
                        w.write(&[id, &(i as i64), &h.t, &h.duration, &h.tag, &h.encoded])?;
                    }
                }
            }
            w.finish()?;
        }
        self.run_ids.extend(run_ids);
        Ok(())
    }
}

fn copy<'a>(
    tx: &'a mut Transaction,
    table: &str,
    types: &[Type],
) -> Result<BinaryCopyInWriter<'a>, postgres::Error> {
    let sink = tx.copy_in(&format!("COPY {table} FROM STDIN (FORMAT binary)"))?;
    Ok(BinaryCopyInWriter::new(sink, types))
}
