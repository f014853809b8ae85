//! The SQLite backend: open, migrate, and the [`Store`] operations (`read.rs`, `write.rs`).
//!
//! Every writing connection runs in WAL mode with foreign keys on and waits for a lock
//! held by another process (printing once that it waits) instead of failing. The schema
//! is a list of append-only migrations (`migrations/NNNN_*.sql`) applied under
//! `BEGIN IMMEDIATE`, keyed by `PRAGMA user_version` re-read inside that transaction, so
//! concurrent first opens migrate once. A database is marked with
//! `PRAGMA application_id`; a SQLite file that is not ours, or was written by a newer
//! bench-db, is refused before anything is written to it. Read commands open the file
//! read-only. A file SQLite finds damaged (`SQLITE_CORRUPT`, `SQLITE_NOTADB`, text that is
//! not UTF-8) gives an error saying the database file is corrupt, naming it and what to do.

mod read;
mod write;

use super::backend::{BlockFeed, Store};
use super::backend::{Digest, IngestError};
use super::filter::Filter;
use super::open_error;
use super::rows::{
    BlockMeta, Damage, Detail, Removed, RunIndex, SourceRecord, StoredSource, Written,
};
use super::v1::{self, SeriesUpdate, V1Point};
use crate::dataset::StoredRun;
use crate::selector::HistoryKey;
use anyhow::{Context, Result, anyhow, bail};
use bench_db_parsers::PrintedStat;
use rusqlite::{Connection, OpenFlags, Transaction, TransactionBehavior};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// `PRAGMA application_id` of a bench-db database: "bDb1".
const APPLICATION_ID: i32 = 0x6244_6231;

/// One schema step: its SQL, then (when SQL cannot express it) a step in Rust.
struct Migration {
    sql: &'static str,
    then: Option<fn(&Transaction) -> rusqlite::Result<()>>,
}

/// The migrations, in order; index + 1 is the schema version each one produces.
const MIGRATIONS: &[Migration] = &[
    Migration {
        sql: include_str!("../../../migrations/0001_init.sql"),
        then: None,
    },
    Migration {
        sql: include_str!("../../../migrations/0002_packed_points.sql"),
        then: Some(pack_v1_rows),
    },
    Migration {
        sql: include_str!("../../../migrations/0003_writer_keys.sql"),
        then: None,
    },
    Migration {
        sql: include_str!("../../../migrations/0004_identity.sql"),
        then: None,
    },
    Migration {
        sql: include_str!("../../../migrations/0005_metric_names.sql"),
        then: None,
    },
    Migration {
        sql: include_str!("../../../migrations/0006_run_index.sql"),
        then: Some(index_stored_runs),
    },
    Migration {
        sql: include_str!("../../../migrations/0007_block_tags.sql"),
        then: None,
    },
    Migration {
        sql: include_str!("../../../migrations/0008_run_ids_kept.sql"),
        then: Some(check_run_children),
    },
    Migration {
        sql: include_str!("../../../migrations/0009_scan_parameters.sql"),
        then: None,
    },
];

/// Page size of the databases this binary creates.
const PAGE_SIZE: i64 = 16 * 1024;

/// The schema version this binary writes.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// An open bench-db database file.
pub struct SqliteStore {
    conn: Connection,
}

/// What a file turned out to hold.
struct Found {
    version: i64,
    empty: bool,
}

impl SqliteStore {
    /// Opens (creating if needed) and migrates the database at `path`, for writing.
    pub fn open(path: &Path) -> Result<SqliteStore> {
        open_error::not_a_folder(path)?;
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(path, flags)
            .with_context(|| format!("cannot open database {}", path.display()))?;
        Self::setup_write(conn)
            .map_err(|e| corrupt_file(&path.display().to_string(), e))
            .with_context(|| format!("cannot use database {}", path.display()))
    }

    /// Opens an existing database for writing (a missing file is an error).
    pub fn open_existing(path: &Path) -> Result<SqliteStore> {
        require_file(path)?;
        SqliteStore::open(path)
    }

    /// Opens an existing database for reading only. A missing file is an error; an
    /// older schema is upgraded when the file can be written, else the error names
    /// `bench-db migrate`.
    pub fn open_read(path: &Path) -> Result<SqliteStore> {
        require_file(path)?;
        let (conn, found) = open_read_only(path)
            .map_err(|e| corrupt_file(&path.display().to_string(), e))
            .with_context(|| format!("cannot use database {}", path.display()))?;
        if found.empty {
            bail!(
                "no database at {} (the file is empty); run `bench-db ingest` first",
                path.display()
            );
        }
        if found.version < SCHEMA_VERSION {
            drop(conn);
            return SqliteStore::open(path).map_err(|e| {
                anyhow!(
                    "{} has schema version {}, older than this bench-db's {SCHEMA_VERSION}, and \
                     cannot be upgraded here ({e:#}); run `bench-db --db {} migrate` where it \
                     can be written",
                    path.display(),
                    found.version,
                    path.display()
                )
            });
        }
        Ok(SqliteStore { conn })
    }

    /// Opens and upgrades the database at `path`; returns the versions before and after.
    pub fn migrate(path: &Path) -> Result<(i64, i64)> {
        require_file(path)?;
        let (conn, found) = open_read_only(path)
            .map_err(|e| corrupt_file(&path.display().to_string(), e))
            .with_context(|| format!("cannot use database {}", path.display()))?;
        if found.empty {
            bail!(
                "no database at {} (the file is empty); run `bench-db ingest` first",
                path.display()
            );
        }
        drop(conn);
        let store = SqliteStore::open(path)?;
        Ok((found.version, store.version()?))
    }

    /// An in-memory database (tests, benchmarks).
    #[cfg(any(test, feature = "test-support"))]
    pub fn open_in_memory() -> Result<SqliteStore> {
        Self::setup_write(Connection::open_in_memory()?)
    }

    fn setup_write(mut conn: Connection) -> Result<SqliteStore> {
        conn.busy_handler(Some(wait_for_lock))?;
        check_ours(&conn)?;
        // A new database gets 16 KiB pages (an existing one keeps its own): an ingest then
        // writes a quarter of the WAL frames 4 KiB pages take, each frame a partial block
        // the kernel must zero first, and the file is a tenth smaller.
        conn.execute_batch(&format!("PRAGMA page_size = {PAGE_SIZE};"))?;
        use_wal(&conn)?;
        conn.execute_batch("PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL;")?;
        migrate(&mut conn)?;
        Ok(SqliteStore { conn })
    }

    /// The schema version of this database.
    fn version(&self) -> Result<i64> {
        Ok(self
            .conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))?)
    }
}

impl Store for SqliteStore {
    fn schema_version(&self) -> Result<i64> {
        self.version().map_err(|e| self.corrupt(e))
    }
    fn stored_format(&self, sha256: &str, identity: &str) -> Result<Option<String>> {
        SqliteStore::stored_format(self, sha256, identity).map_err(|e| self.corrupt(e))
    }
    fn stored_sizes(&self, sizes: &[u64]) -> Result<std::collections::HashSet<u64>> {
        SqliteStore::stored_sizes(self, sizes).map_err(|e| self.corrupt(e))
    }
    fn stored_source(&self, sha256: &str, identity: &str) -> Result<Option<StoredSource>> {
        SqliteStore::stored_source(self, sha256, identity).map_err(|e| self.corrupt(e))
    }
    fn write_source(
        &mut self,
        record: &SourceRecord,
        into: Option<i64>,
        blocks: &mut BlockFeed,
        digest: &mut dyn FnMut() -> Result<Digest, IngestError>,
    ) -> Result<Written, IngestError> {
        SqliteStore::write_source(self, record, into, blocks, digest).map_err(|e| match e {
            IngestError::Db(e) => IngestError::Db(self.corrupt(e)),
            e => e,
        })
    }
    fn select_ids(&self, filter: &Filter) -> Result<Vec<i64>> {
        SqliteStore::select_ids(self, filter).map_err(|e| self.corrupt(e))
    }
    fn stream(
        &self,
        filter: &Filter,
        detail: Detail,
        f: &mut dyn FnMut(StoredRun) -> Result<()>,
        damaged: &mut dyn FnMut(Damage),
    ) -> Result<usize> {
        SqliteStore::stream(self, filter, detail, f, damaged).map_err(|e| self.corrupt(e))
    }
    fn refresh_statistics(&mut self) -> Result<()> {
        Ok(())
    }
    fn all_timed(&self) -> Result<bool> {
        SqliteStore::all_timed(self).map_err(|e| self.corrupt(e))
    }
    fn recent(&self, filter: &Filter, f: &mut dyn FnMut(HistoryKey) -> bool) -> Result<()> {
        SqliteStore::recent(self, filter, f).map_err(|e| self.corrupt(e))
    }
    fn blocks_contiguous(&self) -> Result<bool> {
        SqliteStore::blocks_contiguous(self).map_err(|e| self.corrupt(e))
    }
    fn relabel(&mut self, ids: &[i64], label: &str) -> Result<usize> {
        SqliteStore::relabel(self, ids, label).map_err(|e| self.corrupt(e))
    }
    fn integrity(&self) -> Result<Vec<String>> {
        SqliteStore::integrity(self)
    }
    fn remove(&mut self, ids: &[i64], dry_run: bool) -> Result<Removed> {
        SqliteStore::remove(self, ids, dry_run).map_err(|e| self.corrupt(e))
    }
    fn source_blocks(&self, source_id: i64) -> Result<(SourceRecord, Vec<BlockMeta>)> {
        SqliteStore::source_blocks(self, source_id).map_err(|e| self.corrupt(e))
    }
    fn sources_with_content(&self, sha256: &[String]) -> Result<Vec<(String, i64, String)>> {
        SqliteStore::sources_with_content(self, sha256).map_err(|e| self.corrupt(e))
    }
}

impl SqliteStore {
    /// [`corrupt_file`] for this connection's file.
    fn corrupt(&self, e: anyhow::Error) -> anyhow::Error {
        let path = self.conn.path().unwrap_or("(in memory)").to_string();
        corrupt_file(&path, e)
    }
}

/// `e`, reworded when it is SQLite finding the file damaged ([`open_error::sqlite`]):
/// the file is named as corrupt, with what to do about it; other errors pass unchanged.
fn corrupt_file(path: &str, e: anyhow::Error) -> anyhow::Error {
    if open_error::classify(&e) != open_error::Failure::Corrupt {
        return e;
    }
    open_error::sqlite(Path::new(path), e)
}

/// Migration 8's check, run with foreign keys off: every series still has its run.
fn check_run_children(tx: &Transaction) -> rusqlite::Result<()> {
    let orphans: i64 = tx.query_row(
        "SELECT count(*) FROM series WHERE run_id NOT IN (SELECT id FROM run)",
        [],
        |r| r.get(0),
    )?;
    if orphans == 0 {
        return Ok(());
    }
    Err(rusqlite::Error::SqliteFailure(
        rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CONSTRAINT_FOREIGNKEY),
        Some(format!(
            "{orphans} series lost their run in the rebuild of table run"
        )),
    ))
}

/// Migration 2's data step on SQLite (see [`v1`]): moves the rows of the version-1 tables
/// `point` and `printed_stat`, in their insertion order, then drops both tables.
fn pack_v1_rows(tx: &Transaction) -> rusqlite::Result<()> {
    {
        let mut read = tx.prepare(
            "SELECT p.series_id, se.kind, p.percentile, p.t, p.value, p.line_value
             FROM point p JOIN series se ON se.id = p.series_id
             ORDER BY p.series_id, p.rowid",
        )?;
        let mut set_points = tx.prepare("UPDATE series SET points = ?2 WHERE id = ?1")?;
        let mut set_value = tx.prepare("UPDATE series SET value = ?2 WHERE id = ?1")?;
        let rows = read.query_map([], |r| {
            Ok(V1Point {
                series_id: r.get(0)?,
                kind: r.get(1)?,
                percentile: r.get(2)?,
                t: r.get(3)?,
                value: r.get(4)?,
                line_value: r.get(5)?,
            })
        })?;
        v1::pack_points(rows, |u| {
            match u {
                SeriesUpdate::Points(id, blob) => {
                    set_points.execute(rusqlite::params![id, blob])?
                }
                SeriesUpdate::Value(id, v) => set_value.execute(rusqlite::params![id, v])?,
            };
            Ok(())
        })?;
        let mut read = tx.prepare(
            "SELECT block_id, metric, percentile, name, value FROM printed_stat ORDER BY block_id, rowid",
        )?;
        let mut write = tx.prepare("UPDATE block SET printed = ?2 WHERE id = ?1")?;
        let rows = read.query_map([], |r| {
            Ok((
                r.get(0)?,
                PrintedStat {
                    metric: r.get(1)?,
                    percentile: r.get(2)?,
                    name: r.get(3)?,
                    value: r.get(4)?,
                },
            ))
        })?;
        v1::pack_printed(rows, |id, json| {
            write.execute(rusqlite::params![id, json])?;
            Ok(())
        })?;
    }
    tx.execute_batch("DROP TABLE point; DROP TABLE printed_stat")
}

/// Migration 6's data step: the tag rows, the time and the commit of every run already stored
/// ([`RunIndex::of_stored`]).
fn index_stored_runs(tx: &Transaction) -> rusqlite::Result<()> {
    let mut read = tx.prepare(
        "SELECT r.id, r.tags, s.ingested_at
         FROM run r JOIN block b ON b.id = r.block_id JOIN source s ON s.id = b.source_id",
    )?;
    let mut tag = tx.prepare("INSERT INTO run_tag (run_id, key, value) VALUES (?1, ?2, ?3)")?;
    let mut at = tx.prepare("UPDATE run SET at_ns = ?2, commit_tag = ?3 WHERE id = ?1")?;
    let mut rows = read.query([])?;
    // A column that is not text (a damaged row) reads as missing.
    let text = |r: &rusqlite::Row, i| {
        r.get_ref(i)
            .ok()
            .and_then(|v| v.as_str().ok().map(str::to_owned))
    };
    while let Some(r) = rows.next()? {
        let id: i64 = r.get(0)?;
        let index = RunIndex::of_stored(text(r, 1).as_deref(), text(r, 2).as_deref());
        for (k, v) in &index.tags {
            tag.execute(rusqlite::params![id, k, v])?;
        }
        at.execute(rusqlite::params![id, index.at_ns, index.commit])?;
    }
    Ok(())
}

/// An error naming `bench-db ingest` when there is no database at `path`.
fn require_file(path: &Path) -> Result<()> {
    open_error::not_a_folder(path)?;
    if !path.exists() {
        bail!(
            "no database at {}; run `bench-db ingest` first",
            path.display()
        );
    }
    Ok(())
}

/// Opens `path` read-only and checks it is ours. A WAL database in a folder we cannot
/// write has no `-shm` file to share; it is then opened as immutable, which is safe
/// because no process can be writing it (a writer would need that folder too).
fn open_read_only(path: &Path) -> Result<(Connection, Found)> {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    // A file this user cannot write, that no writer uses now: read immutable too, so that
    // no `-shm` is left behind that the file's owner cannot write.
    if open_error::read_without_shm(path) {
        return open_immutable(path, flags);
    }
    let first = Connection::open_with_flags(path, flags).map_err(anyhow::Error::from);
    let first = first.and_then(|mut c| {
        c.busy_handler(Some(wait_for_lock))?;
        let found = check_ours(&c)?;
        Ok((c, found))
    });
    match first {
        Ok(x) => Ok(x),
        Err(e) if cannot_open(&e) => open_immutable(path, flags),
        Err(e) => Err(e),
    }
}

fn open_immutable(path: &Path, flags: OpenFlags) -> Result<(Connection, Found)> {
    let uri = immutable_uri(path)?;
    let c = Connection::open_with_flags(uri, flags | OpenFlags::SQLITE_OPEN_URI)?;
    let found = check_ours(&c)?;
    Ok((c, found))
}

fn cannot_open(e: &anyhow::Error) -> bool {
    use rusqlite::ErrorCode::{CannotOpen, ReadOnly};
    e.chain().any(|c| {
        matches!(
            c.downcast_ref::<rusqlite::Error>(),
            Some(rusqlite::Error::SqliteFailure(f, _)) if matches!(f.code, CannotOpen | ReadOnly)
        )
    })
}

/// `file:PATH?immutable=1`, the path percent-encoded as SQLite's URI parser expects.
fn immutable_uri(path: &Path) -> Result<String> {
    let abs = std::path::absolute(path)?;
    let text = abs
        .to_str()
        .with_context(|| format!("{} is not valid UTF-8", abs.display()))?;
    let mut uri = String::from("file:");
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"/-_.~".contains(&b) {
            uri.push(b as char);
        } else {
            uri.push_str(&format!("%{b:02X}"));
        }
    }
    uri.push_str("?immutable=1");
    Ok(uri)
}

/// Reads (never writes) the file's marks and refuses a file that is not a bench-db
/// database or is newer than this binary.
fn check_ours(conn: &Connection) -> Result<Found> {
    // One read transaction: the marks and tables come from one snapshot, never from
    // both sides of another process's migration.
    let snapshot = conn.unchecked_transaction()?;
    let app: i32 = snapshot.query_row("PRAGMA application_id", [], |r| r.get(0))?;
    let version: i64 = snapshot.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    let tables: Vec<String> = snapshot
        .prepare(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name",
        )?
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    snapshot.commit()?;
    let empty = app == 0 && version == 0 && tables.is_empty();
    // Version 1 predates the application id.
    let v1 = app == 0
        && version == 1
        && ["block", "run", "series", "source"]
            .iter()
            .all(|t| tables.iter().any(|n| n == t));
    if !(app == APPLICATION_ID || empty || v1) {
        bail!(
            "not a bench-db database (application id {app:#x}, user_version {version}, tables: {}); \
             left untouched",
            if tables.is_empty() {
                "none".to_string()
            } else {
                tables.join(", ")
            }
        );
    }
    if version > SCHEMA_VERSION {
        bail!(
            "the database has schema version {version}, newer than this bench-db understands \
             ({SCHEMA_VERSION}); use a newer bench-db"
        );
    }
    Ok(Found { version, empty })
}

/// Applies the migrations the database lacks, all in one `BEGIN IMMEDIATE` transaction
/// that re-reads the version, so two processes opening a new database migrate it once.
fn migrate(conn: &mut Connection) -> Result<()> {
    let seen: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if seen == SCHEMA_VERSION {
        return Ok(());
    }
    // A migration that rebuilds a table drops the old one, which with foreign keys on would
    // delete its children first: keys are off while migrating (the pragma is a no-op inside a
    // transaction) and checked whole before the commit, as SQLite's rebuild procedure asks.
    conn.execute_batch("PRAGMA foreign_keys = OFF;")?;
    let migrated = migrate_in_transaction(conn);
    conn.execute_batch("PRAGMA foreign_keys = ON;")?;
    migrated
}

/// The pending migrations of [`migrate`], in one `BEGIN IMMEDIATE` transaction.
fn migrate_in_transaction(conn: &mut Connection) -> Result<()> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let current: i64 = tx.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if current > SCHEMA_VERSION {
        bail!(
            "the database has schema version {current}, newer than this bench-db understands \
             ({SCHEMA_VERSION}); use a newer bench-db"
        );
    }
    for (i, m) in MIGRATIONS.iter().enumerate().skip(current as usize) {
        tx.execute_batch(m.sql)
            .with_context(|| format!("migration {} failed", i + 1))?;
        if let Some(step) = m.then {
            step(&tx).with_context(|| format!("migration {} failed", i + 1))?;
        }
    }
    tx.pragma_update(None, "application_id", APPLICATION_ID)?;
    tx.pragma_update(None, "user_version", SCHEMA_VERSION)?;
    tx.commit()?;
    Ok(())
}

/// How long a writer waits for another process's write (a large ingest holds the lock
/// for its whole file) before giving up.
const LOCK_WAIT: Duration = Duration::from_secs(600);
const LOCK_POLL: Duration = Duration::from_millis(5);

/// SQLite busy handler: sleeps and retries, saying once (after a second) that it waits.
/// Switches the database to WAL mode unless it is in it. SQLite answers a journal-mode
/// change that meets another connection's lock with "database is locked" at once, without
/// calling the busy handler (seen with four processes opening a new database together), so
/// the change is retried on the busy handler's schedule.
fn use_wal(conn: &Connection) -> Result<()> {
    // journal_mode answers with a row, so it is queried rather than executed.
    let mode: String = conn.query_row("PRAGMA journal_mode", [], |r| r.get(0))?;
    if mode.eq_ignore_ascii_case("wal") {
        return Ok(());
    }
    let mut attempt = 0;
    loop {
        match conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get::<_, String>(0)) {
            Ok(_) => return Ok(()),
            Err(rusqlite::Error::SqliteFailure(e, _))
                if e.code == rusqlite::ErrorCode::DatabaseBusy && wait_for_lock(attempt) =>
            {
                attempt += 1;
            }
            Err(e) => return Err(e.into()),
        }
    }
}

fn wait_for_lock(attempt: i32) -> bool {
    static SAID: AtomicBool = AtomicBool::new(false);
    let waited = LOCK_POLL * attempt.max(0) as u32;
    if waited >= LOCK_WAIT {
        return false;
    }
    if waited >= Duration::from_secs(1) && !SAID.swap(true, Ordering::Relaxed) {
        eprintln!("bench-db: waiting for another bench-db process to finish writing the database");
    }
    std::thread::sleep(LOCK_POLL);
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn migrates_once_and_refuses_newer() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("b.db");
        let s = SqliteStore::open(&path).unwrap();
        assert_eq!(s.version().unwrap(), SCHEMA_VERSION);
        drop(s);
        // Reopening is a no-op.
        SqliteStore::open(&path).unwrap();
        let c = Connection::open(&path).unwrap();
        c.pragma_update(None, "user_version", 99).unwrap();
        drop(c);
        let err = SqliteStore::open(&path).err().unwrap();
        assert!(
            format!("{err:#}").contains("newer than this bench-db"),
            "{err:#}"
        );
    }

    #[test]
    fn new_databases_get_large_pages_and_old_ones_keep_theirs() {
        let dir = tempfile::tempdir().unwrap();
        let page_size = |p: &Path| -> i64 {
            let c = Connection::open(p).unwrap();
            c.query_row("PRAGMA page_size", [], |r| r.get(0)).unwrap()
        };
        let new = dir.path().join("new.db");
        drop(SqliteStore::open(&new).unwrap());
        assert_eq!(page_size(&new), PAGE_SIZE);
        // A database made with 4 KiB pages (as earlier versions made them) keeps them.
        let old = dir.path().join("old.db");
        let c = Connection::open(&old).unwrap();
        c.execute_batch("PRAGMA page_size = 4096; PRAGMA journal_mode = WAL; CREATE TABLE x (a)")
            .unwrap();
        c.execute_batch("DROP TABLE x").unwrap();
        drop(c);
        drop(SqliteStore::open(&old).unwrap());
        assert_eq!(page_size(&old), 4096);
    }

    #[test]
    fn refuses_a_foreign_database_unchanged() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("app.db");
        let c = Connection::open(&path).unwrap();
        c.execute_batch("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)")
            .unwrap();
        drop(c);
        let before = std::fs::read(&path).unwrap();
        for err in [
            SqliteStore::open(&path).err().unwrap(),
            SqliteStore::open_read(&path).err().unwrap(),
        ] {
            assert!(
                format!("{err:#}").contains("not a bench-db database"),
                "{err:#}"
            );
        }
        assert_eq!(std::fs::read(&path).unwrap(), before);
    }

    #[test]
    fn generated_runs_report_their_own_ids_beside_other_runs() {
        use bench_db_parsers::{Block, Run};
        let mut s = crate::store::Db::open_in_memory().unwrap();
        let tags = std::collections::BTreeMap::new();
        let block = |n: u32| Block {
            runs: (1..=n)
                .map(|index| Run {
                    index,
                    ..Run::default()
                })
                .collect(),
            ..Block::default()
        };
        fn g<'a>(
            text: &'a str,
            blocks: &'a [Block],
            tags: &'a std::collections::BTreeMap<String, String>,
        ) -> crate::store::Generated<'a> {
            crate::store::Generated {
                origin: "run loopback",
                format: "loopback",
                text,
                blocks,
                suite: "loopback",
                label_override: None,
                tags,
            }
        }
        let (first, second) = ([block(3)], [block(2)]);
        let ids =
            |s: &mut crate::store::Db, text, blocks| s.insert_generated(&g(text, blocks, &tags));
        assert_eq!(ids(&mut s, "a", &first).unwrap(), vec![1, 2, 3]);
        assert_eq!(ids(&mut s, "b", &second).unwrap(), vec![4, 5]);
        // The same output again is stored once.
        assert!(ids(&mut s, "b", &second).unwrap().is_empty());
    }

    #[test]
    fn uri_escapes_what_sqlite_would_parse() {
        let uri = immutable_uri(Path::new("/a b/c?d#e%f.db")).unwrap();
        assert_eq!(uri, "file:/a%20b/c%3Fd%23e%25f.db?immutable=1");
    }
}
