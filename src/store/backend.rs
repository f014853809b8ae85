//! The seam between the commands and the two stores: [`Db`] is a SQLite [`Store`] or a
//! [`PgStore`], chosen by what `--db` names ([`Target`]), with one set of methods. Commands
//! hold a `Db` and never learn which database they talk to.

use super::copy::{BlockMeta, BlockRows, SourceRecord};
use super::pg::PgStore;
use super::url::Target;
use super::{BlockDefaults, Generated, IngestError, Ingested, SourceMeta, Store};
use crate::dataset::StoredRun;
use crate::selector::Selector;
use anyhow::Result;
use bench_db_parsers::{ParseError, Parsed};

/// An open store of either kind.
pub enum Db {
    Sqlite(Store),
    Postgres(Box<PgStore>),
}

impl Db {
    /// Opens for writing: creates the schema when empty and migrates it.
    pub fn open(target: &Target) -> Result<Db> {
        Ok(match target {
            Target::Sqlite(p) => Db::Sqlite(Store::open(p)?),
            Target::Postgres(u) => Db::Postgres(Box::new(PgStore::open(u)?)),
        })
    }

    /// Opens for the read commands: on PostgreSQL nothing is written, locked or drawn
    /// from a sequence when the schema is current.
    pub fn open_read(target: &Target) -> Result<Db> {
        Ok(match target {
            Target::Sqlite(p) => Db::Sqlite(Store::open(p)?),
            Target::Postgres(u) => Db::Postgres(Box::new(PgStore::open_read(u)?)),
        })
    }

    /// The schema version of the open store.
    pub fn schema_version(&self) -> Result<i64> {
        match self {
            Db::Sqlite(s) => s.schema_version(),
            Db::Postgres(s) => s.schema_version(),
        }
    }

    /// Whether a source with this content hash is already stored.
    pub fn has_source(&self, sha256: &str) -> Result<bool> {
        match self {
            Db::Sqlite(s) => Ok(s.has_source(sha256)?),
            Db::Postgres(s) => s.has_source(sha256),
        }
    }

    /// Stores every block of one source in one transaction: all or nothing.
    pub fn ingest(
        &mut self,
        meta: &SourceMeta,
        items: impl Iterator<Item = Result<Parsed, ParseError>>,
        defaults: &BlockDefaults,
    ) -> Result<Ingested, IngestError> {
        match self {
            Db::Sqlite(s) => s.ingest(meta, items, defaults),
            Db::Postgres(s) => s.ingest(meta, items, defaults),
        }
    }

    /// Stores the output of a built-in benchmark; returns the new run ids.
    pub fn insert_generated(&mut self, g: &Generated) -> Result<Vec<i64>> {
        match self {
            Db::Sqlite(s) => s.insert_generated(g),
            Db::Postgres(s) => s.insert_generated(g),
        }
    }

    /// The ids of the runs the selector matches, in id order.
    pub fn select_ids(&self, sel: &Selector) -> Result<Vec<i64>> {
        match self {
            Db::Sqlite(s) => s.select_ids(sel),
            Db::Postgres(s) => s.select_ids(sel),
        }
    }

    /// Every run the selector matches, with its series, in id order.
    pub fn select(&self, sel: &Selector) -> Result<Vec<StoredRun>> {
        match self {
            Db::Sqlite(s) => s.select(sel),
            Db::Postgres(s) => s.select(sel),
        }
    }

    /// Sets the label of the selected runs; returns how many changed.
    pub fn relabel(&mut self, sel: &Selector, label: &str) -> Result<usize> {
        match self {
            Db::Sqlite(s) => s.relabel(sel, label),
            Db::Postgres(s) => s.relabel(sel, label),
        }
    }

    /// A source's provenance and its blocks, in block order.
    pub fn source_blocks(&self, source_id: i64) -> Result<(SourceRecord, Vec<BlockMeta>)> {
        match self {
            Db::Sqlite(s) => s.source_blocks(source_id),
            Db::Postgres(s) => s.source_blocks(source_id),
        }
    }

    /// Stores a copied source unless its content is already here (`None`).
    pub fn insert_copy(
        &mut self,
        record: &SourceRecord,
        blocks: Vec<BlockRows>,
    ) -> Result<Option<Vec<i64>>> {
        match self {
            Db::Sqlite(s) => s.insert_copy(record, blocks),
            Db::Postgres(s) => s.insert_copy(record, blocks),
        }
    }
}
