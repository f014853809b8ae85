//! The seam between the commands and the two stores: [`Db`] is a SQLite [`Store`] or a
//! [`PgStore`], chosen by what `--db` names ([`Target`]), with one set of methods. Commands
//! hold a `Db` and never learn which database they talk to.

use super::copy::{BlockMeta, BlockStream, SourceRecord};
use super::pg::PgStore;
use super::url::Target;
use super::{BlockDefaults, Detail, Digest, Generated, IngestError, Ingested, SourceMeta, Store};
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

    /// Opens an existing store for writing (a missing one is an error, not created).
    pub fn open_existing(target: &Target) -> Result<Db> {
        Ok(match target {
            Target::Sqlite(p) => Db::Sqlite(Store::open_existing(p)?),
            Target::Postgres(u) => Db::Postgres(Box::new(PgStore::open_existing(u)?)),
        })
    }

    /// Opens for the read commands: nothing is written, locked or drawn from a sequence
    /// when the schema is current; an older one is upgraded when these credentials can.
    pub fn open_read(target: &Target) -> Result<Db> {
        Ok(match target {
            Target::Sqlite(p) => Db::Sqlite(Store::open_read(p)?),
            Target::Postgres(u) => Db::Postgres(Box::new(PgStore::open_read(u)?)),
        })
    }

    /// Upgrades the store's schema; returns the versions before and after.
    pub fn migrate(target: &Target) -> Result<(i64, i64)> {
        match target {
            Target::Sqlite(p) => Store::migrate(p),
            Target::Postgres(u) => PgStore::migrate(u),
        }
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
            Db::Sqlite(s) => s.has_source(sha256),
            Db::Postgres(s) => s.has_source(sha256),
        }
    }

    /// Whether a source of exactly this many bytes is stored.
    pub fn has_source_of_size(&self, bytes: u64) -> Result<bool> {
        match self {
            Db::Sqlite(s) => s.has_source_of_size(bytes),
            Db::Postgres(s) => s.has_source_of_size(bytes),
        }
    }

    /// Stores every block of one source in one transaction: all or nothing. `digest` is
    /// called once the items are exhausted; content already stored is `unchanged`.
    pub fn ingest<'a>(
        &mut self,
        meta: &SourceMeta,
        items: impl Iterator<Item = Result<Parsed, ParseError>> + 'a,
        defaults: &BlockDefaults,
        digest: impl FnOnce() -> std::io::Result<Digest>,
    ) -> Result<Ingested, IngestError> {
        match self {
            Db::Sqlite(s) => s.ingest(meta, items, defaults, digest),
            Db::Postgres(s) => s.ingest(meta, items, defaults, digest),
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
        let mut out = Vec::new();
        self.for_each_run(sel, Detail::Points, |r| {
            out.push(r);
            Ok(())
        })?;
        Ok(out)
    }

    /// Streams the runs the selector matches, in id order, with bounded memory; returns
    /// how many were passed to `f`.
    pub fn for_each_run(
        &self,
        sel: &Selector,
        detail: Detail,
        f: impl FnMut(StoredRun) -> Result<()>,
    ) -> Result<usize> {
        match self {
            Db::Sqlite(s) => s.for_each_run(sel, detail, f),
            Db::Postgres(s) => s.for_each_run(sel, detail, f),
        }
    }

    /// Whether every block's runs have consecutive ids, so a stream in id order gives
    /// each block's runs together.
    pub fn blocks_contiguous(&self) -> Result<bool> {
        match self {
            Db::Sqlite(s) => s.blocks_contiguous(),
            Db::Postgres(s) => s.blocks_contiguous(),
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

    /// Stores a copied source, its blocks written as the stream yields them, unless its
    /// content is already here (`None`); returns how many runs were written.
    pub fn insert_copy(
        &mut self,
        record: &SourceRecord,
        blocks: &mut BlockStream,
    ) -> Result<Option<usize>> {
        match self {
            Db::Sqlite(s) => s.insert_copy(record, blocks),
            Db::Postgres(s) => s.insert_copy(record, blocks),
        }
    }
}
