//! Writing sources into PostgreSQL: one transaction per source; blocks are encoded as they
//! come into batches of a bounded size, their ids drawn from the sequences in one round
//! trip, and each table's rows sent with one `COPY … FROM STDIN (FORMAT binary)` per batch
//! (six tables: block, run, run_tag, block_tag, series with its packed points, histogram). The
//! encoding thread and the thread that sends take turns on no batch: the server writes one
//! while the next is encoded, and a large source's ids are drawn on a second connection.
//!
//! An ingest learns the content hash only once it has read the source, so its source row
//! holds a placeholder until then; setting the real hash meets the unique index, where a
//! second writer of the same content waits until the first commits, then fails with a
//! unique violation and reports `unchanged` (or goes on if the first rolled back). A copy
//! takes the same path, its digest known from the start.
//!
//! Ids drawn from a sequence are not given back by a rollback. A source that fits one
//! batch (nearly every file) has been read whole before anything is sent, so a content
//! already stored is found before any id is drawn, and ids come out as SQLite gives them.
//! A larger one whose content was not looked up before parsing (standard input) draws its
//! batches' ids while it is read, and an `unchanged` end leaves a gap.

use super::{PgStore, pg_text};
use crate::selector::time_ns;
use crate::store::backend::BlockFeed;
use crate::store::backend::{Digest, IngestError};
use crate::store::rows::{BlockRows, Removed, SourceRecord, StoredRunKey, StoredSource, Written};
use bench_db_parsers::Data;
use postgres::{Client, GenericClient, Transaction};
use std::collections::HashSet;
use std::io::Write;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

/// A batch is sent once its payloads reach this size (memory stays bounded); the first
/// ones are smaller ([`FIRST_BATCH_BYTES`], doubling). Larger batches cost the server
/// less: each statement has its cost, and on the 50 MB benchmark log the server spent
/// 1.2 s in batches of 500 runs (0.8 MB), 0.9 s in batches of 5,000. The price is
/// memory: the ingest of that log (or of one twice its size) peaks at 100–120 MB of
/// resident memory, against 65–80 MB with batches of 1 MB.
const BATCH_BYTES: usize = 8 << 20;
const FIRST_BATCH_BYTES: usize = 128 << 10;

/// Once a source has sent this much, the ids of its next batches are drawn on a second
/// connection beside the writes (on the 50 MB benchmark log the drawing took 0.1–0.3 s
/// of the server's time); a smaller source is not worth a connection.
const DRAW_AHEAD_AFTER: usize = 8 << 20;

/// Encoded batches that may wait for the writing thread: none, the next one is handed
/// over when the writer is ready for it, so that at most two are held (the one the server
/// writes and the one encoded meanwhile). A queued one more gained nothing measurable.
const QUEUED_BATCHES: usize = 0;

impl From<postgres::Error> for IngestError {
    fn from(e: postgres::Error) -> Self {
        // The server's message, detail and the client's chain, in one line.
        IngestError::Db(anyhow::anyhow!(pg_text(&e)))
    }
}

impl PgStore {
    pub(super) fn stored_format(
        &self,
        sha256: &str,
        identity: &str,
    ) -> anyhow::Result<Option<String>> {
        let row = self
            .client
            .borrow_mut()
            .query_opt(
                "SELECT format FROM source WHERE sha256 = $1::text AND identity = $2::text",
                &[&sha256, &identity],
            )
            .map_err(|e| self.err(e))?;
        Ok(row.map(|r| r.get(0)))
    }

    pub(super) fn stored_source(
        &self,
        sha256: &str,
        identity: &str,
    ) -> anyhow::Result<Option<StoredSource>> {
        let rows = self
            .client
            .borrow_mut()
            .query(
                "SELECT s.id, b.idx, b.id, r.run_index, r.label FROM source s
                 LEFT JOIN block b ON b.source_id = s.id LEFT JOIN run r ON r.block_id = b.id
                 WHERE s.sha256 = $1::text AND s.identity = $2::text",
                &[&sha256, &identity],
            )
            .map_err(|e| self.err(e))?;
        let mut found: Option<StoredSource> = None;
        for r in &rows {
            let source = found.get_or_insert(StoredSource {
                id: r.get(0),
                runs: Vec::new(),
            });
            if let (Some(block_idx), Some(block_id), Some(run_index), Some(label)) =
                (r.get(1), r.get(2), r.get(3), r.get(4))
            {
                source.runs.push(StoredRunKey {
                    block_idx,
                    block_id,
                    run_index,
                    label,
                });
            }
        }
        Ok(found)
    }

    /// One query for all the sizes.
    pub(super) fn stored_sizes(&self, sizes: &[u64]) -> anyhow::Result<HashSet<u64>> {
        if sizes.is_empty() {
            return Ok(HashSet::new());
        }
        let sizes: Vec<i64> = sizes.iter().map(|&b| b as i64).collect();
        let rows = self
            .client
            .borrow_mut()
            .query(
                "SELECT DISTINCT bytes FROM source WHERE bytes = ANY($1::bigint[])",
                &[&sizes],
            )
            .map_err(|e| self.err(e))?;
        Ok(rows.iter().map(|r| r.get::<_, i64>(0) as u64).collect())
    }

    /// Writes one source in one transaction, its blocks sent in batches as the feed
    /// yields them; a content already stored (or stored meanwhile by another writer) is
    /// `unchanged` and nothing is written.
    ///
    /// This thread encodes each batch into `COPY` payloads. A source larger than one
    /// batch is sent by another thread that holds the connection meanwhile, so that the
    /// server writes a batch while the next one is encoded; a smaller one is sent from here.
    /// Past [`DRAW_AHEAD_AFTER`], a third thread draws the next batches' ids on a
    /// connection of its own.
    pub(super) fn write_source(
        &self,
        record: &SourceRecord,
        into: Option<i64>,
        blocks: &mut BlockFeed,
        digest: &mut dyn FnMut() -> Result<Digest, IngestError>,
    ) -> Result<Written, IngestError> {
        let mut client = self.client.borrow_mut();
        let client: &mut Client = &mut client;
        let mut batch = Batch::new(&record.ingested_at);
        let mut first = None;
        for b in &mut *blocks {
            if let Some(full) = batch.push(b?) {
                first = Some(full);
                break;
            }
        }
        let sent = match first {
            None => {
                // The whole source is read: a content already stored is found before
                // anything is written or any id drawn.
                let d = digest()?;
                let jobs = batch.take().map(|p| Job::Copy(Box::new(p))).into_iter();
                let jobs = std::iter::once(Job::Check(d.clone()))
                    .chain(jobs)
                    .chain([Job::Commit(d)]);
                write_jobs(client, record, into, jobs)?
            }
            Some(first) => std::thread::scope(|scope| -> Result<Sent, IngestError> {
                let (send, receive) = sync_channel(QUEUED_BATCHES);
                let writer = std::thread::Builder::new()
                    .name("pg-write".into())
                    .spawn_scoped(scope, move || write_jobs(client, record, into, receive))?;
                let url = &self.url;
                // `Ok(false)`: the writer stopped (its error tells why).
                let feed = || -> Result<bool, IngestError> {
                    let mut jobs = std::iter::once(Ok(first));
                    let more = std::iter::from_fn(|| {
                        loop {
                            match blocks.next() {
                                None => return batch.take().map(Ok),
                                Some(Err(e)) => return Some(Err(e)),
                                Some(Ok(b)) => {
                                    if let Some(full) = batch.push(b) {
                                        return Some(Ok(full));
                                    }
                                }
                            }
                        }
                    });
                    let (mut sent, mut ahead) = (0, None);
                    for payloads in jobs.by_ref().chain(more) {
                        let p = payloads?;
                        if ahead.is_none() && sent >= DRAW_AHEAD_AFTER {
                            let (counts, counts_rx) = sync_channel(QUEUED_BATCHES + 1);
                            let (go, go_rx) = sync_channel(1);
                            let (ids, ids_rx) = sync_channel(QUEUED_BATCHES + 1);
                            std::thread::Builder::new()
                                .name("pg-ids".into())
                                .spawn_scoped(scope, move || {
                                    draw_ahead(url, go_rx, counts_rx, ids)
                                })?;
                            if send
                                .send(Job::DrawAhead(Ahead { go, ids: ids_rx }))
                                .is_err()
                            {
                                return Ok(false);
                            }
                            ahead = Some(counts);
                        }
                        sent += p.size();
                        if let Some(counts) = &ahead {
                            // Refused when the drawing thread could not connect: then the
                            // writer draws the ids itself.
                            let _ = counts.send(p.counts());
                        }
                        if send.send(Job::Copy(Box::new(p))).is_err() {
                            return Ok(false);
                        }
                    }
                    Ok(send.send(Job::Commit(digest()?)).is_ok())
                };
                let fed = feed();
                // Without a commit job the writer rolls the transaction back.
                drop(send);
                let written = match writer.join() {
                    Ok(w) => w,
                    Err(panic) => std::panic::resume_unwind(panic),
                };
                // A writer's error comes first: the feed stopped because of it.
                let written = written?;
                fed?;
                Ok(written)
            })?,
        };
        Ok(match sent {
            Sent::Nothing => Written::default(),
            Sent::Unchanged => Written {
                unchanged: true,
                ..Written::default()
            },
            Sent::Committed { run_ids } => Written {
                unchanged: false,
                blocks: batch.blocks,
                run_ids,
                points: batch.points,
            },
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
    /// without a block, in one transaction. The schema has no foreign keys since version 3,
    /// so every table is cleared explicitly. A dry run only reads ([`Self::would_remove`]).
    pub(super) fn remove(&self, ids: &[i64], dry_run: bool) -> anyhow::Result<Removed> {
        if dry_run {
            return self.would_remove(ids);
        }
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
        let blocks: Vec<i64> = tx
            .query(
                "DELETE FROM block b WHERE b.source_id = ANY($1::bigint[])
                 AND NOT EXISTS (SELECT 1 FROM run r WHERE r.block_id = b.id)
                 RETURNING b.id",
                &[&sources],
            )
            .map_err(|e| self.err(e))?
            .iter()
            .map(|r| r.get(0))
            .collect();
        tx.execute(
            "DELETE FROM block_tag WHERE block_id = ANY($1::bigint[])",
            &[&blocks],
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
        tx.commit().map_err(|e| self.err(e))?;
        Ok(Removed {
            runs,
            sources: removed.into_iter().map(|(_, p)| p).collect(),
        })
    }

    /// What [`Self::remove`] would remove, read in one snapshot with `SELECT`s only (a role
    /// that may only read can ask): the stored runs among `ids`, and their sources of which
    /// every run is among them.
    fn would_remove(&self, ids: &[i64]) -> anyhow::Result<Removed> {
        let mut c = self.client.borrow_mut();
        let mut tx = c
            .build_transaction()
            .isolation_level(postgres::IsolationLevel::RepeatableRead)
            .read_only(true)
            .start()
            .map_err(|e| self.err(e))?;
        let ids = ids.to_vec();
        let runs: Vec<i64> = tx
            .query(
                "SELECT id FROM run WHERE id = ANY($1::bigint[]) ORDER BY id",
                &[&ids],
            )
            .map_err(|e| self.err(e))?
            .iter()
            .map(|r| r.get(0))
            .collect();
        let sources: Vec<String> = tx
            .query(
                "SELECT s.path FROM source s
                 WHERE s.id IN (SELECT b.source_id FROM run r JOIN block b ON b.id = r.block_id
                                WHERE r.id = ANY($1::bigint[]))
                   AND NOT EXISTS (SELECT 1 FROM block b JOIN run r ON r.block_id = b.id
                                   WHERE b.source_id = s.id AND r.id <> ALL($1::bigint[]))
                 ORDER BY s.id",
                &[&ids],
            )
            .map_err(|e| self.err(e))?
            .iter()
            .map(|r| r.get(0))
            .collect();
        tx.rollback().map_err(|e| self.err(e))?;
        Ok(Removed { runs, sources })
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

/// What the encoding thread hands the thread that holds the connection.
enum Job {
    /// One batch: reserve its ids, then copy its rows.
    Copy(Box<Payloads>),
    /// The ids of the batches from here on are drawn on another connection.
    DrawAhead(Ahead),
    /// The content's digest, known before its rows (the source fits one batch): a content
    /// already stored ends the source `unchanged` before a row is written or an id drawn
    /// from a sequence (which no rollback gives back).
    Check(Digest),
    /// The source has been read: its digest decides between commit and `unchanged`.
    Commit(Digest),
}

/// The thread that draws the ids of the next batches on a connection of its own, beside
/// the writes: told to start once the writer has drawn the ids of every batch before
/// (so that each sequence still gives its ids in the order of the rows), it hands the
/// writer the ids of each batch in turn.
struct Ahead {
    go: SyncSender<()>,
    ids: Receiver<Result<Drawn, IngestError>>,
}

/// The ids of one batch: its blocks', runs' and series'.
type Drawn = [Vec<i64>; 3];

/// Draws the ids of each batch counted on `counts` (blocks, runs, series) once `go` says
/// so. A connection that cannot be opened leaves the drawing to the writer.
fn draw_ahead(
    url: &super::PgUrl,
    go: Receiver<()>,
    counts: Receiver<[i32; 3]>,
    ids: SyncSender<Result<Drawn, IngestError>>,
) {
    let Ok((store, _)) = PgStore::connect(url) else {
        return;
    };
    if go.recv().is_err() {
        return;
    }
    let mut client = store.client.borrow_mut();
    for c in counts {
        let drawn = draw(&mut *client, c);
        let failed = drawn.is_err();
        if ids.send(drawn).is_err() || failed {
            return;
        }
    }
}

/// Draws ids from the sequences: as many blocks', runs' and series' as counted, each
/// list ascending.
fn draw(
    client: &mut impl GenericClient,
    [blocks, runs, series]: [i32; 3],
) -> Result<Drawn, IngestError> {
    let row = client.query_one(
        "SELECT ARRAY(SELECT nextval('block_id_seq') FROM generate_series(1, $1::int) ORDER BY 1),
                ARRAY(SELECT nextval('run_id_seq') FROM generate_series(1, $2::int) ORDER BY 1),
                ARRAY(SELECT nextval('series_id_seq') FROM generate_series(1, $3::int) ORDER BY 1)",
        &[&blocks, &runs, &series],
    )?;
    Ok([row.get(0), row.get(1), row.get(2)])
}

/// How a source's transaction ended.
enum Sent {
    /// No block: nothing was written.
    Nothing,
    /// The content was already stored: rolled back.
    Unchanged,
    Committed {
        run_ids: Vec<i64>,
    },
}

/// Runs the jobs of one source in one transaction on `client`: the source row with the
/// first batch, then per batch one round trip for the ids and one `COPY` per table. Jobs
/// that end without [`Job::Commit`] (the feed failed) leave the transaction rolled back.
fn write_jobs(
    client: &mut Client,
    record: &SourceRecord,
    into: Option<i64>,
    jobs: impl IntoIterator<Item = Job>,
) -> Result<Sent, IngestError> {
    let mut tx = client.transaction()?;
    let mut source_id = into;
    let mut run_ids = Vec::new();
    let mut ahead: Option<Ahead> = None;
    let mut checked = false;
    for job in jobs {
        let mut p = match job {
            Job::Copy(p) => p,
            Job::Check(d) => {
                if into.is_none() && stored(&mut tx, record, &d)? {
                    return Ok(Sent::Unchanged);
                }
                checked = true;
                continue;
            }
            Job::DrawAhead(a) => {
                // Every batch before has its ids: the drawing thread may begin.
                let _ = a.go.send(());
                ahead = Some(a);
                continue;
            }
            Job::Commit(d) => {
                if into.is_some() {
                    // Runs added to a stored source: its content is stored already.
                    tx.commit()?;
                    return Ok(Sent::Committed { run_ids });
                }
                let Some(source_id) = source_id else {
                    return Ok(Sent::Nothing);
                };
                return commit(tx, record, source_id, &d, checked, run_ids);
            }
        };
        let source_id = match source_id {
            Some(id) => id,
            None => *source_id.insert(insert_source(&mut tx, record)?),
        };
        let drawn = match ahead.as_ref().map(|a| a.ids.recv()) {
            Some(Ok(drawn)) => drawn?,
            // The drawing thread could not connect: it drew nothing.
            Some(Err(_)) => {
                ahead = None;
                draw(&mut tx, p.counts())?
            }
            None => draw(&mut tx, p.counts())?,
        };
        if !p.joined.is_empty() {
            tx.execute(
                "INSERT INTO run_tag (run_id, key, value)
                 SELECT r.id, bt.key, bt.value FROM block_tag bt JOIN run r ON r.block_id = bt.block_id
                 WHERE bt.block_id = ANY($1::bigint[])",
                &[&p.joined],
            )?;
            tx.execute(
                "DELETE FROM block_tag WHERE block_id = ANY($1::bigint[])",
                &[&p.joined],
            )?;
        }
        let [block, run, series] = drawn;
        let ids = Ids {
            source: [source_id],
            block,
            run,
            series,
        };
        for table in &mut p.tables {
            if table.rows == 0 {
                continue;
            }
            table.data.patch(&ids);
            let mut sink = tx.copy_in(&format!(
                "COPY {} FROM STDIN (FORMAT binary)",
                table.columns
            ))?;
            // In pieces, so the server starts on the rows while the rest arrive.
            for chunk in std::mem::take(&mut table.data.chunks) {
                sink.write_all(&chunk).map_err(copy_error)?;
            }
            sink.finish()?;
        }
        run_ids.extend(ids.run);
    }
    Ok(Sent::Nothing)
}

/// A failed write of `COPY` data as the driver's error it wraps, so that it reads (and
/// is told lost when the server went away) as any other database error.
fn copy_error(e: std::io::Error) -> IngestError {
    if !e
        .get_ref()
        .is_some_and(|inner| inner.is::<postgres::Error>())
    {
        return IngestError::Db(anyhow::anyhow!(e));
    }
    match e
        .into_inner()
        .map(|inner| inner.downcast::<postgres::Error>())
    {
        Some(Ok(pg)) => IngestError::from(*pg),
        _ => unreachable!("checked to hold a driver's error"),
    }
}

/// Whether a source of this content is stored under the record's metadata identity.
fn stored(tx: &mut Transaction, record: &SourceRecord, d: &Digest) -> Result<bool, IngestError> {
    Ok(tx
        .query_one(
            "SELECT EXISTS (SELECT 1 FROM source WHERE sha256 = $1::text AND identity = $2::text)",
            &[&d.sha256, &record.identity],
        )?
        .get(0))
}

/// Sets the source's real hash and commits, or reports `unchanged` when that content is
/// stored already (or was meanwhile, by a writer that committed first: the unique index
/// answers then). `checked`: looked up before the rows were written ([`Job::Check`]).
fn commit(
    mut tx: Transaction,
    record: &SourceRecord,
    source_id: i64,
    d: &Digest,
    checked: bool,
    run_ids: Vec<i64>,
) -> Result<Sent, IngestError> {
    if !checked && stored(&mut tx, record, d)? {
        return Ok(Sent::Unchanged);
    }
    match tx.execute(
        "UPDATE source SET sha256 = $2::text, bytes = $3::bigint WHERE id = $1",
        &[&source_id, &d.sha256, &(d.bytes as i64)],
    ) {
        Err(e) if e.code() == Some(&postgres::error::SqlState::UNIQUE_VIOLATION) => {
            return Ok(Sent::Unchanged);
        }
        r => r?,
    };
    tx.commit()?;
    Ok(Sent::Committed { run_ids })
}

/// Encodes the blocks of one source as they come into the `COPY` payloads of a batch,
/// each id written as its position among the batch's ids of that sequence (set once
/// they are drawn), and cuts the batch once its payloads reach a size: small at first,
/// so that the server starts early, then doubling up to [`BATCH_BYTES`].
struct Batch {
    /// The source's ingest time: a run's time when it has no `time` tag.
    ingested_at: String,
    tables: [Table; 6],
    /// Blocks, runs and series in this batch.
    counts: [usize; 3],
    /// The stored blocks its runs join ([`BlockRows::stored`]).
    joined: Vec<i64>,
    /// The size at which this batch is cut.
    limit: usize,
    /// Blocks and points of the source so far.
    blocks: usize,
    points: usize,
}

/// The `COPY` payloads of one batch, the ids they need counted per sequence.
struct Payloads {
    /// Stored blocks that runs of this batch join: their shared tags become their runs'
    /// own before the rows are sent.
    joined: Vec<i64>,
    blocks: i32,
    runs: i32,
    series: i32,
    tables: [Table; 6],
}

/// One table's rows in the binary `COPY` format.
struct Table {
    /// `table (column, …)` as the `COPY` statement names them.
    columns: &'static str,
    rows: usize,
    data: CopyData,
}

impl Batch {
    fn new(ingested_at: &str) -> Batch {
        Batch {
            ingested_at: ingested_at.to_string(),
            tables: Batch::tables(),
            counts: [0; 3],
            joined: Vec::new(),
            limit: FIRST_BATCH_BYTES,
            blocks: 0,
            points: 0,
        }
    }

    fn tables() -> [Table; 6] {
        [
            Table::new("block (id, source_id, idx, label, first_line, last_line, printed)"),
            Table::new(
                "run (id, block_id, suite, label, run_index, first_line, last_line, params, tags, bench, config, at_ns, commit_tag)",
            ),
            Table::new("run_tag (run_id, key, value)"),
            Table::new("block_tag (block_id, key, value)"),
            // As SQLite's schema 2: a ladder (also a histogram's merged one) or a time
            // series is packed into `points`, a single number goes in `value`.
            Table::new(
                "series (id, run_id, metric, display, unit, kind, sample_count, stats, value, points)",
            ),
            Table::new("histogram (series_id, idx, t, duration, tag, encoded)"),
        ]
    }

    /// Adds a block; returns the batch once it is full.
    fn push(&mut self, mut b: BlockRows) -> Option<Payloads> {
        // Computed ahead on the parsing thread when an ingest prepared the block.
        let e = b
            .take_encoded()
            .expect("maps of strings and numbers serialise");
        let [block_t, run_t, tag_t, block_tag_t, series_t, hist_t] = &mut self.tables;
        let [block_i, run_i, series_i] = &mut self.counts;
        // The block's id: drawn for a new block, the stored one's for runs joining it.
        let block_id = |d: &mut CopyData| match b.stored {
            Some(id) => d.int8(id),
            None => d.id(Seq::Block, *block_i),
        };
        match b.stored {
            Some(id) => self.joined.push(id),
            None => {
                let d = block_t.row(7);
                block_id(d);
                d.id(Seq::Source, 0);
                d.int8(b.idx);
                d.opt_text(b.label.as_deref());
                d.int8(b.first_line as i64);
                d.int8(b.last_line as i64);
                d.text(&e.printed);
            }
        }
        let (shared, own) = b.index_tags();
        for (key, value) in shared {
            let d = block_tag_t.row(3);
            block_id(d);
            d.text(key);
            d.text(value);
        }
        for (i, key, value) in own {
            let d = tag_t.row(3);
            d.id(Seq::Run, *run_i + i);
            d.text(key);
            d.text(value);
        }
        for (r, e) in b.runs.iter().zip(&e.runs) {
            let d = run_t.row(13);
            d.id(Seq::Run, *run_i);
            block_id(d);
            d.text(&r.suite);
            d.text(&r.label);
            d.int8(r.run.index as i64);
            d.int8(r.run.first_line as i64);
            d.int8(r.run.last_line as i64);
            d.text(&e.params);
            d.text(&e.tags);
            d.opt_text(r.run.bench.as_deref());
            d.text(&e.config);
            d.opt_int8(time_ns(&r.run.tags, &self.ingested_at));
            d.opt_text(r.run.tags.get("commit").map(String::as_str));
            for (s, v) in r.run.series.iter().zip(&e.series) {
                let d = series_t.row(10);
                d.id(Seq::Series, *series_i);
                d.id(Seq::Run, *run_i);
                d.text(&s.metric);
                d.text(&s.display);
                d.text(&s.unit);
                d.text(s.kind());
                d.opt_int8(v.count);
                d.text(&v.stats);
                d.opt_float8(v.value);
                d.opt_bytea(v.points.as_deref());
                self.points += v.stored;
                if let Data::Histogram { intervals, .. } = &s.data {
                    for (i, h) in intervals.iter().enumerate() {
                        let d = hist_t.row(6);
                        d.id(Seq::Series, *series_i);
                        d.int8(i as i64);
                        d.opt_float8(h.t);
                        d.opt_float8(h.duration);
                        d.opt_text(h.tag.as_deref());
                        d.opt_bytea(Some(&h.encoded));
                    }
                }
                *series_i += 1;
            }
            *run_i += 1;
        }
        if b.stored.is_none() {
            *block_i += 1;
        }
        self.blocks += 1;
        let size: usize = self.tables.iter().map(|t| t.data.len).sum();
        if size >= self.limit {
            self.limit = (self.limit * 2).min(BATCH_BYTES);
            self.take()
        } else {
            None
        }
    }

    /// The batch so far, if it holds a block, and a new one begun.
    fn take(&mut self) -> Option<Payloads> {
        let joined = std::mem::take(&mut self.joined);
        let [blocks, runs, series] = std::mem::take(&mut self.counts);
        if blocks == 0 && joined.is_empty() {
            return None;
        }
        let mut tables = std::mem::replace(&mut self.tables, Batch::tables());
        for t in &mut tables {
            t.data.end();
        }
        Some(Payloads {
            joined,
            blocks: blocks as i32,
            runs: runs as i32,
            series: series as i32,
            tables,
        })
    }
}

impl Payloads {
    /// The ids the batch needs: its blocks', runs' and series'.
    fn counts(&self) -> [i32; 3] {
        [self.blocks, self.runs, self.series]
    }

    fn size(&self) -> usize {
        self.tables.iter().map(|t| t.data.len).sum()
    }
}

impl Table {
    fn new(columns: &'static str) -> Table {
        Table {
            columns,
            rows: 0,
            data: CopyData::new(),
        }
    }

    /// Starts a row of `fields` values.
    fn row(&mut self, fields: i16) -> &mut CopyData {
        self.rows += 1;
        self.data.row(fields);
        &mut self.data
    }
}

/// The sequences a batch draws ids from (the source's id is drawn once, with its row).
#[derive(Clone, Copy)]
enum Seq {
    Source,
    Block,
    Run,
    Series,
}

/// The ids drawn for one batch, in the order of its rows.
struct Ids {
    source: [i64; 1],
    block: Vec<i64>,
    run: Vec<i64>,
    series: Vec<i64>,
}

/// Rows in PostgreSQL's binary `COPY` format, as `BinaryCopyInWriter` writes them: a
/// header, per row the number of fields, then each field as its length (-1 for NULL)
/// and its binary send form (big-endian integers and floats, text and bytea as their
/// bytes), and a trailer. Ids are left as positions until [`CopyData::patch`].
///
/// Written here rather than with the driver's `BinaryCopyInWriter` because that one
/// writes into an open `COPY` on the connection: the rows could not be encoded on this
/// thread while another holds the connection, nor before their ids are drawn.
///
/// Held in chunks of about [`CHUNK`] bytes, each holding whole rows: no buffer is copied
/// as it grows, and memory comes and goes in pieces the allocator reuses (one growing
/// buffer per table doubled the ingest's resident memory).
struct CopyData {
    chunks: Vec<Vec<u8>>,
    /// Bytes in all chunks.
    len: usize,
    /// Where an id goes (chunk, offset), and from which sequence.
    ids: Vec<(usize, usize, Seq)>,
}

/// The size of a [`CopyData`] chunk; a row starts a new chunk when less than
/// [`CHUNK_ROOM`] is left, and a larger row makes its chunk larger.
const CHUNK: usize = 64 << 10;
const CHUNK_ROOM: usize = 8 << 10;

impl CopyData {
    fn new() -> CopyData {
        let mut data = CopyData {
            chunks: vec![Vec::with_capacity(CHUNK)],
            len: 0,
            ids: Vec::new(),
        };
        data.put(b"PGCOPY\n\xff\r\n\0");
        // Flags, then the length of the header extension: none.
        data.put(&0i32.to_be_bytes());
        data.put(&0i32.to_be_bytes());
        data
    }

    fn put(&mut self, bytes: &[u8]) {
        self.len += bytes.len();
        self.chunks
            .last_mut()
            .expect("a chunk is always open")
            .extend_from_slice(bytes);
    }

    /// Starts a row of `fields` values, in a new chunk when this one is nearly full.
    fn row(&mut self, fields: i16) {
        if self
            .chunks
            .last()
            .is_some_and(|c| c.len() > CHUNK - CHUNK_ROOM)
        {
            self.chunks.push(Vec::with_capacity(CHUNK));
        }
        self.put(&fields.to_be_bytes());
    }

    fn field(&mut self, value: &[u8]) {
        let len = i32::try_from(value.len()).expect("a field holds less than 2 GiB");
        self.put(&len.to_be_bytes());
        self.put(value);
    }

    fn null(&mut self) {
        self.put(&(-1i32).to_be_bytes());
    }

    /// The `i`th id of `seq` in this batch, written once drawn.
    fn id(&mut self, seq: Seq, i: usize) {
        let chunk = self.chunks.len() - 1;
        let at = self.chunks[chunk].len() + 4;
        self.ids.push((chunk, at, seq));
        self.int8(i as i64);
    }

    fn int8(&mut self, v: i64) {
        self.field(&v.to_be_bytes());
    }

    fn opt_int8(&mut self, v: Option<i64>) {
        match v {
            Some(v) => self.int8(v),
            None => self.null(),
        }
    }

    fn opt_float8(&mut self, v: Option<f64>) {
        match v {
            Some(v) => self.field(&v.to_be_bytes()),
            None => self.null(),
        }
    }

    fn text(&mut self, v: &str) {
        self.field(v.as_bytes());
    }

    fn opt_text(&mut self, v: Option<&str>) {
        match v {
            Some(v) => self.text(v),
            None => self.null(),
        }
    }

    fn opt_bytea(&mut self, v: Option<&[u8]>) {
        match v {
            Some(v) => self.field(v),
            None => self.null(),
        }
    }

    /// The trailer: a row of -1 fields.
    fn end(&mut self) {
        self.put(&(-1i16).to_be_bytes());
    }

    /// Writes the drawn ids where their positions stand.
    fn patch(&mut self, ids: &Ids) {
        for &(chunk, at, seq) in &self.ids {
            let slot: &mut [u8; 8] = (&mut self.chunks[chunk][at..at + 8])
                .try_into()
                .expect("an id field is 8 bytes");
            let i = i64::from_be_bytes(*slot) as usize;
            let id = match seq {
                Seq::Source => ids.source[i],
                Seq::Block => ids.block[i],
                Seq::Run => ids.run[i],
                Seq::Series => ids.series[i],
            };
            *slot = id.to_be_bytes();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(run: Vec<i64>, series: Vec<i64>) -> Ids {
        Ids {
            source: [7],
            block: vec![],
            run,
            series,
        }
    }

    #[test]
    fn a_row_is_written_in_the_binary_copy_format() {
        let mut t = Table::new("t (id, a, b, c, d, e)");
        let d = t.row(6);
        d.id(Seq::Run, 1);
        d.opt_text(None);
        d.text("é");
        d.opt_float8(Some(1.5));
        d.opt_bytea(Some(&[0, 255]));
        d.opt_int8(Some(-2));
        t.data.end();
        t.data.patch(&ids(vec![10, 11], vec![]));
        let mut want = b"PGCOPY\n\xff\r\n\0".to_vec();
        want.extend([0, 0, 0, 0, 0, 0, 0, 0]);
        want.extend([0, 6]);
        want.extend([0, 0, 0, 8]);
        want.extend(11i64.to_be_bytes());
        want.extend([255, 255, 255, 255]);
        want.extend([0, 0, 0, 2, 0xc3, 0xa9]);
        want.extend([0, 0, 0, 8]);
        want.extend(1.5f64.to_be_bytes());
        want.extend([0, 0, 0, 2, 0, 255]);
        want.extend([0, 0, 0, 8]);
        want.extend((-2i64).to_be_bytes());
        want.extend([255, 255]);
        assert_eq!(t.data.chunks.concat(), want);
        assert_eq!((t.rows, t.data.len), (1, want.len()));
    }

    #[test]
    fn ids_are_set_in_every_chunk_and_a_row_stays_in_one() {
        let mut t = Table::new("t (id, v)");
        let small = "x".repeat(1000);
        let large = "y".repeat(2 * CHUNK);
        for i in 0..301 {
            let d = t.row(2);
            d.id(Seq::Series, i);
            d.text(if i == 150 { &large } else { &small });
        }
        t.data.end();
        let series: Vec<i64> = (0..301).map(|i| 1000 + 3 * i).collect();
        t.data.patch(&ids(vec![], series.clone()));
        let chunks = &t.data.chunks;
        assert!(chunks.len() > 5, "{}", chunks.len());
        // Each chunk after the first starts with a row's field count; only the one with
        // the large row outgrows the chunk size.
        assert!(chunks[1..].iter().all(|c| c[..2] == 2i16.to_be_bytes()));
        assert_eq!(chunks.iter().filter(|c| c.len() > CHUNK).count(), 1);
        let all = chunks.concat();
        assert_eq!(all.len(), t.data.len);
        let int = |at: usize, n: usize| -> i64 {
            all[at..at + n]
                .iter()
                .fold(0i64, |v, b| (v << 8) | i64::from(*b))
        };
        let (mut at, mut got) = (19, Vec::new());
        while all[at..at + 2] == 2i16.to_be_bytes() {
            assert_eq!(int(at + 2, 4), 8);
            got.push(int(at + 6, 8));
            at += 14 + 4 + int(at + 14, 4) as usize;
        }
        assert_eq!(all[at..], (-1i16).to_be_bytes());
        assert_eq!(got, series);
    }
}
