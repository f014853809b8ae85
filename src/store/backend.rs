//! The one interface both backends implement: a few small operations on one connection.
//! Every algorithm over a store (ingest, selection with its path and history terms,
//! relabelling, copy) is written once on top of it, in [`super::Db`].

use super::filter::Filter;
use super::rows::{
    BlockMeta, BlockRows, Damage, Detail, Removed, SourceRecord, StoredSource, Written,
};
use crate::dataset::StoredRun;
use crate::selector::HistoryKey;
use anyhow::Result;
use bench_db_parsers::ParseError;
use thiserror::Error;

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

/// Why an ingest stored nothing.
#[derive(Debug, Error)]
pub enum IngestError {
    #[error(transparent)]
    Parse(#[from] ParseError),
    /// The database refused a write; the error keeps its chain (the driver's error and
    /// the engine's code).
    #[error("database error: {0:#}")]
    Db(anyhow::Error),
    #[error("cannot encode run data: {0}")]
    Json(#[from] serde_json::Error),
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// Reading the rows to write failed (a copy's source store).
    #[error("{0:#}")]
    Read(anyhow::Error),
}

/// The blocks handed to [`Store::write_source`], each as it becomes available.
pub type BlockFeed<'a> = dyn Iterator<Item = Result<BlockRows, IngestError>> + 'a;

/// A bench-db store: SQLite ([`super::sqlite::SqliteStore`]) or PostgreSQL
/// ([`super::postgres::PgStore`]).
pub trait Store: Send {
    /// The schema version of the open store.
    fn schema_version(&self) -> Result<i64>;

    /// The format of the source with this content hash stored under this metadata
    /// identity, if one is.
    fn stored_format(&self, sha256: &str, identity: &str) -> Result<Option<String>>;

    /// The source with this content hash stored under this metadata identity, with where
    /// each of its runs stands, if one is.
    fn stored_source(&self, sha256: &str, identity: &str) -> Result<Option<StoredSource>>;

    /// Which of these sizes, in bytes, some stored source has.
    fn stored_sizes(&self, sizes: &[u64]) -> Result<std::collections::HashSet<u64>>;

    /// Writes one source in one transaction: all of it or none of it. The source row
    /// (`record`, its hash not yet known) is written with the first block, each block as
    /// the feed yields it; then `digest` gives the content's identity. When a source with
    /// that hash is stored (before, or meanwhile by another writer) everything is rolled
    /// back and the result is `unchanged`. The record's `identity` is stored with it, and
    /// "stored" means the same hash under the same identity. A feed of no block writes nothing.
    ///
    /// `into`, the id of a stored source, adds the blocks' runs to it instead (a copy
    /// completing a source): no source row is written and the digest is not asked. Before
    /// runs join a stored block ([`BlockRows::stored`]), that block's shared tags move to
    /// its runs' own rows, since the new runs need not share them.
    fn write_source(
        &mut self,
        record: &SourceRecord,
        into: Option<i64>,
        blocks: &mut BlockFeed,
        digest: &mut dyn FnMut() -> Result<Digest, IngestError>,
    ) -> Result<Written, IngestError>;

    /// The ids of the runs the filter matches, in id order.
    fn select_ids(&self, filter: &Filter) -> Result<Vec<i64>>;

    /// Calls `f` with every run the filter matches, in id order, from one consistent
    /// snapshot, holding a bounded number of runs at a time; returns how many runs were
    /// passed to `f`. An error from `f` stops the stream. A run that does not decode at
    /// the detail asked is passed to `damaged` instead of `f`, and the stream goes on.
    fn stream(
        &self,
        filter: &Filter,
        detail: Detail,
        f: &mut dyn FnMut(StoredRun) -> Result<()>,
        damaged: &mut dyn FnMut(Damage),
    ) -> Result<usize>;

    /// Whether every stored run has its time in the index (`run.at_ns`): then the history
    /// terms can be answered from the indexes ([`Store::recent`]).
    fn all_timed(&self) -> Result<bool>;

    /// Calls `f` with the runs the filter matches, newest first (time, then id,
    /// descending), each as its id, commit and time, until `f` returns false. Reads the
    /// indexes only: a run is not decoded here.
    fn recent(&self, filter: &Filter, f: &mut dyn FnMut(HistoryKey) -> bool) -> Result<()>;

    /// Brings the planner's statistics up to date after a bulk write (PostgreSQL:
    /// `ANALYZE`; a query planned on a freshly loaded table's empty statistics can take
    /// seconds where an index would take a millisecond). SQLite plans without them.
    fn refresh_statistics(&mut self) -> Result<()>;

    /// Whether every block's runs have consecutive ids.
    fn blocks_contiguous(&self) -> Result<bool>;

    /// Sets the label of the runs with these ids, in one transaction; returns how many.
    fn relabel(&mut self, ids: &[i64], label: &str) -> Result<usize>;

    /// What the database engine finds wrong with the store's own structure (SQLite:
    /// `PRAGMA integrity_check`, every page and index); empty when sound or when the
    /// engine keeps that to itself (PostgreSQL).
    fn integrity(&self) -> Result<Vec<String>>;

    /// Removes the runs with these ids (ids not stored are ignored) with their series and
    /// histograms, then the blocks of their sources left without a run and the sources
    /// left without a block, in one transaction; the answer is what it removed. `dry_run`
    /// gives the same answer from reads alone (`SELECT`s, for a role that may not delete).
    fn remove(&mut self, ids: &[i64], dry_run: bool) -> Result<Removed>;

    /// A source's provenance and its blocks, in block order.
    fn source_blocks(&self, source_id: i64) -> Result<(SourceRecord, Vec<BlockMeta>)>;

    /// The stored sources whose content has one of these hashes, as (hash, id, path),
    /// in id order.
    fn sources_with_content(&self, sha256: &[String]) -> Result<Vec<(String, i64, String)>>;
}
