//! The PostgreSQL backend: connect (TLS per `sslmode`), migrate under an advisory lock,
//! insert with `COPY … FROM STDIN (FORMAT binary)`, query. SQL for PostgreSQL never leaves
//! this folder, and nothing outside `store/` knows this backend exists.
//!
//! Tables live in the schema the URL names (`public` by default), set as the connection's
//! `search_path` by a statement (so a pooler in session mode can stand between). The schema
//! version is the single row of table `bench_db_schema`, numbered like SQLite's
//! `user_version` (`migrations/postgres/NNNN_*.sql` mirror `migrations/NNNN_*.sql`; a
//! migration in SQL both engines read, such as 0005, is one file for both). A read-only
//! open only reads that row: when it is current, nothing is locked, written or drawn from a
//! sequence, so a role with `USAGE` on the schema and `SELECT` on its tables can run every
//! read command.

mod read;
mod tls;
mod write;

use super::backend::{BlockFeed, Store};
use super::backend::{Digest, IngestError};
use super::filter::Filter;
use super::rows::{
    BlockMeta, Damage, Detail, Removed, RunIndex, SourceRecord, StoredSource, Written,
};
use super::url::{Host, PgUrl, SslMode};
use super::v1::{self, SeriesUpdate, V1Point};
use crate::dataset::StoredRun;
use crate::selector::HistoryKey;
use anyhow::{Context, Result, anyhow, bail};
use bench_db_parsers::PrintedStat;
use postgres::Client;
use std::cell::RefCell;

/// One schema step: its SQL, then (when SQL cannot express it) a step in Rust.
struct Migration {
    sql: &'static str,
    then: Option<Step>,
}

type Step = fn(&mut postgres::Transaction) -> Result<(), postgres::Error>;

/// The PostgreSQL migrations, in order; index + 1 is the schema version each produces,
/// the same version the SQLite migration of that number produces.
const MIGRATIONS: &[Migration] = &[
    Migration {
        sql: include_str!("../../../migrations/postgres/0001_init.sql"),
        then: None,
    },
    Migration {
        sql: include_str!("../../../migrations/postgres/0002_packed_points.sql"),
        then: Some(pack_v1_rows),
    },
    Migration {
        sql: include_str!("../../../migrations/postgres/0003_writer_keys.sql"),
        then: None,
    },
    Migration {
        sql: include_str!("../../../migrations/postgres/0004_identity.sql"),
        then: None,
    },
    Migration {
        sql: include_str!("../../../migrations/0005_metric_names.sql"),
        then: None,
    },
    Migration {
        sql: include_str!("../../../migrations/postgres/0006_run_index.sql"),
        then: Some(index_stored_runs),
    },
    Migration {
        sql: include_str!("../../../migrations/postgres/0007_block_tags.sql"),
        then: None,
    },
    Migration {
        sql: include_str!("../../../migrations/postgres/0008_run_ids_kept.sql"),
        then: None,
    },
    Migration {
        sql: include_str!("../../../migrations/postgres/0009_scan_parameters.sql"),
        then: None,
    },
];

/// The schema version this binary writes on PostgreSQL.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// First key of the advisory lock that serialises migrations ("bDb1"); the second is the
/// schema name's hash, so stores in different schemas migrate independently.
const LOCK_KEY: i32 = 0x6244_6231;

/// The schema version: the one row of `bench_db_schema` (the schema has no bench-db
/// tables when that table is missing).
const VERSION_SQL: &str = "SELECT max(version) FROM bench_db_schema";

/// The settings every connection starts with, sent as statements in one round trip right
/// after the handshake rather than as the startup packet's `options`: a connection pooler
/// such as PgBouncer refuses that startup parameter, and in session mode it hands each
/// client a server connection of its own, so the settings hold for the client's session.
/// The schema is quoted, so its name keeps its case (the URL reader allows only letters,
/// digits, '_' and '$' in it). No parallel workers: bench-db's reads are index walks that
/// stop after a few rows (starting workers costs more than the walk: a `latest=10` took
/// 26 ms with two workers, 3 ms without) and ordered streams that workers cannot split.
fn session_settings(schema: &str) -> String {
    format!("SET search_path TO \"{schema}\"; SET max_parallel_workers_per_gather = 0")
}

/// An open connection to a bench-db schema on PostgreSQL.
pub struct PgStore {
    client: RefCell<Client>,
    url: PgUrl,
}

impl PgStore {
    /// Connects and brings the schema to this binary's version (creating it when empty).
    pub fn open(url: &PgUrl) -> Result<PgStore> {
        let (store, version) = Self::connect(url)?;
        store.migrate_schema(version)?;
        Ok(store)
    }

    /// Connects for writing to a schema that must already hold bench-db's tables.
    pub fn open_existing(url: &PgUrl) -> Result<PgStore> {
        let (store, version) = Self::connect(url)?;
        if version.is_none() {
            bail!(no_tables(url));
        }
        store.migrate_schema(version)?;
        Ok(store)
    }

    /// Connects for reading: refuses a schema without bench-db's tables, and upgrades an
    /// older one only when this role can (else the error names `bench-db migrate`).
    pub fn open_read(url: &PgUrl) -> Result<PgStore> {
        let (store, version) = Self::connect(url)?;
        match version {
            None => bail!(no_tables(url)),
            Some(v) if v > SCHEMA_VERSION => bail!(newer(url, v)),
            Some(v) if v < SCHEMA_VERSION => {
                store.migrate_schema(version).map_err(|e| {
                    anyhow!(
                        "{} has schema version {v}, older than this bench-db's {SCHEMA_VERSION}, and \
                         cannot be upgraded with these credentials ({e:#}); run `bench-db --db URL \
                         migrate` as the schema's owner",
                        url.masked()
                    )
                })?;
                Ok(store)
            }
            Some(_) => Ok(store),
        }
    }

    /// Upgrades the schema in place; returns the versions before and after. A schema
    /// without bench-db's tables is refused, as a missing SQLite file is: nothing is created.
    pub fn migrate(url: &PgUrl) -> Result<(i64, i64)> {
        let (store, version) = Self::connect(url)?;
        if version.is_none() {
            bail!(no_tables(url));
        }
        store.migrate_schema(version)?;
        Ok((version.unwrap_or(0), store.version()?.unwrap_or(0)))
    }

    /// Connects, sets the session up and reads the schema version ([`Self::start_session`]).
    fn connect(url: &PgUrl) -> Result<(PgStore, Option<i64>)> {
        let mut cfg = postgres::Config::new();
        cfg.user(&url.user)
            .dbname(&url.dbname)
            .port(url.port)
            .application_name(url.application_name.as_deref().unwrap_or("bench-db"));
        if let Some(pw) = url.password() {
            cfg.password(pw);
        }
        // libpq's `connect_timeout`: 0 waits without end, as no parameter does.
        let timeout = url
            .connect_timeout
            .filter(|&s| s > 0)
            .map(std::time::Duration::from_secs);
        if let Some(t) = timeout {
            cfg.connect_timeout(t);
        }
        let mode = match (&url.host, url.sslmode) {
            // PostgreSQL speaks no TLS on a unix socket; libpq skips it there too.
            (Host::Unix(_), _) | (_, SslMode::Disable) => postgres::config::SslMode::Disable,
            (_, SslMode::Prefer) => postgres::config::SslMode::Prefer,
            (_, SslMode::Require) => postgres::config::SslMode::Require,
        };
        match &url.host {
            Host::Tcp(h) => cfg.host(h),
            Host::Unix(p) => cfg.host_path(p),
        };
        cfg.ssl_mode(mode);
        let tls = match mode {
            postgres::config::SslMode::Disable => None,
            _ => Some(tls::connector(url)?),
        };
        let connect = move || match tls {
            None => cfg.connect(postgres::NoTls),
            Some(tls) => cfg.connect(tls),
        };
        let client = match timeout {
            None => connect(),
            Some(t) => within(t, connect).ok_or_else(|| {
                anyhow!(
                    "cannot connect to {}: no answer within {} s (connect_timeout) from a \
                     server that accepted the connection",
                    url.masked(),
                    t.as_secs()
                )
            })?,
        }
        .map_err(|e| {
            anyhow!(
                "cannot connect to {}: {}",
                url.masked(),
                url.scrub(&pg_text(&e))
            )
        })?;
        let store = PgStore {
            client: RefCell::new(client),
            url: url.clone(),
        };
        let version = store.start_session()?;
        Ok((store, version))
    }

    /// Sends the [`session_settings`] and reads the version row in one round trip (one
    /// simple-query message); `None` when the schema has no bench-db tables. The
    /// statements of that message are one implicit transaction, so the "undefined table"
    /// of a schema without tables undoes the settings too: they are sent again alone.
    fn start_session(&self) -> Result<Option<i64>> {
        use postgres::SimpleQueryMessage;
        let settings = session_settings(&self.url.schema);
        let mut c = self.client.borrow_mut();
        match c.simple_query(&format!("{settings}; {VERSION_SQL}")) {
            Ok(messages) => {
                let value = messages.iter().find_map(|m| match m {
                    SimpleQueryMessage::Row(row) => Some(row.get(0)),
                    _ => None,
                });
                value
                    .flatten()
                    .map(|v| v.parse::<i64>())
                    .transpose()
                    .with_context(|| format!("{}: unreadable schema version", self.url.masked()))
            }
            Err(e) if e.code() == Some(&postgres::error::SqlState::UNDEFINED_TABLE) => {
                c.batch_execute(&settings).map_err(|e| self.err(e))?;
                // A schema this role may not use is left out of its search path: its
                // tables look missing, and a write finds no schema to create in.
                let row = c
                    .query_one(
                        "SELECT current_user::text,
                                (SELECT has_schema_privilege(oid, 'USAGE') FROM pg_namespace
                                  WHERE nspname = $1::text)",
                        &[&self.url.schema],
                    )
                    .map_err(|e| self.err(e))?;
                let (role, usage): (String, Option<bool>) = (row.get(0), row.get(1));
                if usage == Some(false) {
                    bail!(
                        "role {role:?} may not use schema {:?} of {} (it lacks USAGE on the \
                         schema); the schema's owner can grant it: GRANT USAGE ON SCHEMA \
                         \"{}\" TO \"{role}\"",
                        self.url.schema,
                        self.url.masked(),
                        self.url.schema
                    );
                }
                Ok(None)
            }
            Err(e) => Err(self.err(e)),
        }
    }

    /// The version row, or `None` when the schema has no bench-db tables. Only reads, in
    /// one round trip: the table is looked up in the schema (the connection's
    /// `search_path`), and a schema without it answers "undefined table".
    fn version(&self) -> Result<Option<i64>> {
        let mut c = self.client.borrow_mut();
        match c.query_typed(VERSION_SQL, &[]) {
            Ok(rows) => Ok(rows.first().and_then(|r| r.get::<_, Option<i64>>(0))),
            Err(e) if e.code() == Some(&postgres::error::SqlState::UNDEFINED_TABLE) => Ok(None),
            Err(e) => Err(self.err(e)),
        }
    }

    /// Applies the missing migrations in one transaction holding the advisory lock, after
    /// re-reading the version under it: many jobs starting at once migrate exactly once.
    /// Takes no lock and writes nothing when the schema is already current at `seen`, the
    /// version read when the connection started.
    fn migrate_schema(&self, seen: Option<i64>) -> Result<()> {
        match seen {
            Some(v) if v == SCHEMA_VERSION => return Ok(()),
            Some(v) if v > SCHEMA_VERSION => bail!(newer(&self.url, v)),
            _ => {}
        }
        let schema = self.url.schema.clone();
        let mut c = self.client.borrow_mut();
        let mut tx = c.transaction().map_err(|e| self.err(e))?;
        tx.execute(
            "SELECT pg_advisory_xact_lock($1, hashtext($2::text))",
            &[&LOCK_KEY, &schema],
        )
        .map_err(|e| self.err(e))?;
        let has_schema: bool = tx
            .query_one(
                "SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1::text)",
                &[&schema],
            )
            .map_err(|e| self.err(e))?
            .get(0);
        if !has_schema {
            tx.batch_execute(&format!("CREATE SCHEMA \"{schema}\""))
                .map_err(|e| self.err(e))
                .with_context(|| format!("cannot create schema {schema:?}"))?;
        }
        tx.batch_execute("CREATE TABLE IF NOT EXISTS bench_db_schema (version bigint NOT NULL)")
            .map_err(|e| self.err(e))?;
        let current: i64 = tx
            .query_one("SELECT coalesce(max(version), 0) FROM bench_db_schema", &[])
            .map_err(|e| self.err(e))?
            .get(0);
        if current > SCHEMA_VERSION {
            bail!(newer(&self.url, current));
        }
        for (i, m) in MIGRATIONS.iter().enumerate().skip(current as usize) {
            tx.batch_execute(m.sql)
                .map_err(|e| self.err(e))
                .with_context(|| format!("migration {} failed", i + 1))?;
            if let Some(step) = m.then {
                step(&mut tx)
                    .map_err(|e| self.err(e))
                    .with_context(|| format!("migration {} failed", i + 1))?;
            }
        }
        if current < SCHEMA_VERSION {
            tx.execute("DELETE FROM bench_db_schema", &[])
                .map_err(|e| self.err(e))?;
            tx.execute(
                "INSERT INTO bench_db_schema (version) VALUES ($1)",
                &[&SCHEMA_VERSION],
            )
            .map_err(|e| self.err(e))?;
        }
        tx.commit().map_err(|e| self.err(e))?;
        Ok(())
    }

    /// A database error as shown to users: server message and detail, password scrubbed.
    fn err(&self, e: postgres::Error) -> anyhow::Error {
        anyhow!(
            "PostgreSQL {}: {}",
            self.url.masked(),
            self.url.scrub(&pg_text(&e))
        )
    }
}

impl Store for PgStore {
    fn schema_version(&self) -> Result<i64> {
        Ok(self.version()?.unwrap_or(0))
    }
    fn stored_format(&self, sha256: &str, identity: &str) -> Result<Option<String>> {
        PgStore::stored_format(self, sha256, identity)
    }
    fn stored_sizes(&self, sizes: &[u64]) -> Result<std::collections::HashSet<u64>> {
        PgStore::stored_sizes(self, sizes)
    }
    fn stored_source(&self, sha256: &str, identity: &str) -> Result<Option<StoredSource>> {
        PgStore::stored_source(self, sha256, identity)
    }
    fn write_source(
        &mut self,
        record: &SourceRecord,
        into: Option<i64>,
        blocks: &mut BlockFeed,
        digest: &mut dyn FnMut() -> Result<Digest, IngestError>,
    ) -> Result<Written, IngestError> {
        PgStore::write_source(self, record, into, blocks, digest)
    }
    fn select_ids(&self, filter: &Filter) -> Result<Vec<i64>> {
        PgStore::select_ids(self, filter)
    }
    fn stream(
        &self,
        filter: &Filter,
        detail: Detail,
        f: &mut dyn FnMut(StoredRun) -> Result<()>,
        damaged: &mut dyn FnMut(Damage),
    ) -> Result<usize> {
        PgStore::stream(self, filter, detail, f, damaged)
    }
    fn refresh_statistics(&mut self) -> Result<()> {
        self.client
            .borrow_mut()
            .batch_execute("ANALYZE source, block, run, series, histogram, run_tag, block_tag")
            .map_err(|e| self.err(e))
    }
    fn all_timed(&self) -> Result<bool> {
        PgStore::all_timed(self)
    }
    fn recent(&self, filter: &Filter, f: &mut dyn FnMut(HistoryKey) -> bool) -> Result<()> {
        PgStore::recent(self, filter, f)
    }
    fn blocks_contiguous(&self) -> Result<bool> {
        PgStore::blocks_contiguous(self)
    }
    fn relabel(&mut self, ids: &[i64], label: &str) -> Result<usize> {
        PgStore::relabel(self, ids, label)
    }
    fn integrity(&self) -> Result<Vec<String>> {
        // PostgreSQL checksums and verifies its own pages (data checksums, amcheck) as
        // an administrator's tools; what bench-db can check is that every row decodes.
        Ok(Vec::new())
    }
    fn remove(&mut self, ids: &[i64], dry_run: bool) -> Result<Removed> {
        PgStore::remove(self, ids, dry_run)
    }
    fn source_blocks(&self, source_id: i64) -> Result<(SourceRecord, Vec<BlockMeta>)> {
        PgStore::source_blocks(self, source_id)
    }
    fn sources_with_content(&self, sha256: &[String]) -> Result<Vec<(String, i64, String)>> {
        PgStore::sources_with_content(self, sha256)
    }
}

/// Migration 6's data step on PostgreSQL: the tag rows (one `COPY`), the time and the
/// commit of every run already stored ([`RunIndex::of_stored`]; one `COPY` into a temporary table, one
/// `UPDATE`).
fn index_stored_runs(tx: &mut postgres::Transaction) -> Result<(), postgres::Error> {
    use postgres::binary_copy::BinaryCopyInWriter;
    use postgres::types::Type;
    let rows = tx.query(
        "SELECT r.id, r.tags, s.ingested_at
         FROM run r JOIN block b ON b.id = r.block_id JOIN source s ON s.id = b.source_id",
        &[],
    )?;
    let indexed: Vec<(i64, RunIndex)> = rows
        .iter()
        .map(|r| {
            let tags: Option<String> = r.try_get(1).ok();
            let at: Option<String> = r.try_get(2).ok();
            (
                r.get(0),
                RunIndex::of_stored(tags.as_deref(), at.as_deref()),
            )
        })
        .collect();
    drop(rows);
    let sink = tx.copy_in("COPY run_tag (run_id, key, value) FROM STDIN (FORMAT binary)")?;
    let mut w = BinaryCopyInWriter::new(sink, &[Type::INT8, Type::TEXT, Type::TEXT]);
    for (id, index) in &indexed {
        for (k, v) in &index.tags {
            w.write(&[id, k, v])?;
        }
    }
    w.finish()?;
    tx.batch_execute(
        "CREATE TEMPORARY TABLE run_at (id bigint, at_ns bigint, commit_tag text) ON COMMIT DROP",
    )?;
    let sink = tx.copy_in("COPY run_at (id, at_ns, commit_tag) FROM STDIN (FORMAT binary)")?;
    let mut w = BinaryCopyInWriter::new(sink, &[Type::INT8, Type::INT8, Type::TEXT]);
    for (id, index) in &indexed {
        w.write(&[id, &index.at_ns, &index.commit])?;
    }
    w.finish()?;
    tx.batch_execute(
        "UPDATE run SET at_ns = a.at_ns, commit_tag = a.commit_tag FROM run_at a WHERE a.id = run.id",
    )
}

/// Migration 2's data step on PostgreSQL (see [`v1`]): moves the rows of the version-1
/// tables `point` and `printed_stat`, in their order, then drops both tables.
fn pack_v1_rows(tx: &mut postgres::Transaction) -> Result<(), postgres::Error> {
    let rows = tx.query(
        "SELECT p.series_id, se.kind, p.percentile, p.t, p.value, p.line_value
         FROM point p JOIN series se ON se.id = p.series_id ORDER BY p.series_id, p.idx",
        &[],
    )?;
    let set_points = tx.prepare("UPDATE series SET points = $2 WHERE id = $1")?;
    let set_value = tx.prepare("UPDATE series SET value = $2 WHERE id = $1")?;
    let points = rows.iter().map(|r| {
        Ok(V1Point {
            series_id: r.get(0),
            kind: r.get(1),
            percentile: r.get(2),
            t: r.get(3),
            value: r.get(4),
            line_value: r.get(5),
        })
    });
    v1::pack_points(points, |u| {
        match u {
            SeriesUpdate::Points(id, blob) => tx.execute(&set_points, &[&id, &blob])?,
            SeriesUpdate::Value(id, v) => tx.execute(&set_value, &[&id, &v])?,
        };
        Ok(())
    })?;
    let rows = tx.query(
        "SELECT block_id, metric, percentile, name, value FROM printed_stat ORDER BY block_id, idx",
        &[],
    )?;
    let set_printed = tx.prepare("UPDATE block SET printed = $2 WHERE id = $1")?;
    let printed = rows.iter().map(|r| {
        Ok((
            r.get(0),
            PrintedStat {
                metric: r.get(1),
                percentile: r.get(2),
                name: r.get(3),
                value: r.get(4),
            },
        ))
    });
    v1::pack_printed(printed, |id, json| {
        tx.execute(&set_printed, &[&id, &json])?;
        Ok(())
    })?;
    tx.batch_execute("DROP TABLE point; DROP TABLE printed_stat")
}

/// `f`'s answer if it comes within `limit`, else `None`. The driver bounds only the TCP
/// connect by its `connect_timeout`; libpq's bounds the whole set-up (TLS, startup,
/// authentication), against a server that accepts connections and then says nothing.
/// `f` runs on a thread of its own, left behind when it does not answer in time.
fn within<T: Send + 'static>(
    limit: std::time::Duration,
    f: impl FnOnce() -> T + Send + 'static,
) -> Option<T> {
    let (send, receive) = std::sync::mpsc::sync_channel(1);
    std::thread::Builder::new()
        .name("pg-connect".into())
        .spawn(move || {
            let _ = send.send(f());
        })
        .ok()?;
    receive.recv_timeout(limit).ok()
}

/// A schema without bench-db's tables: worded as SQLite's missing file.
fn no_tables(url: &PgUrl) -> String {
    format!(
        "no database at {} (no bench-db tables in schema {:?}); run `bench-db ingest` first",
        url.masked(),
        url.schema
    )
}

/// The schema is newer than this binary: worded as SQLite's refusal, the store named.
fn newer(url: &PgUrl, v: i64) -> String {
    format!(
        "cannot use database {}: the database has schema version {v}, newer than this \
         bench-db understands ({SCHEMA_VERSION}); use a newer bench-db",
        url.masked()
    )
}

/// The text of a client error, with the server's message and detail when it sent one.
pub(crate) fn pg_text(e: &postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => {
            let mut s = format!(
                "{}: {} (SQLSTATE {})",
                db.severity(),
                db.message(),
                db.code().code()
            );
            if let Some(d) = db.detail() {
                s.push_str(&format!("; {d}"));
            }
            s
        }
        None => {
            let mut s = e.to_string();
            let mut src = std::error::Error::source(e);
            while let Some(c) = src {
                s.push_str(&format!(": {c}"));
                src = c.source();
            }
            s
        }
    }
}
