//! [`Db`]: an open store of either kind, and the selection algorithm written once over
//! [`Store`]: the plain terms answered in SQL, the path and history terms judged on the
//! runs' heads.

use super::backend::Store;
use super::filter::Filter;
use super::open_error;
use super::postgres::PgStore;
use super::rows::{Detail, post_head};
use super::sqlite::SqliteStore;
use super::url::Target;
use crate::dataset::StoredRun;
use crate::selector::Selector;
use anyhow::Result;
use std::collections::HashSet;

/// Run ids bound per query when runs are read back by id.
const IDS_PER_QUERY: usize = 10_000;

/// An open store of either kind.
pub struct Db {
    pub(super) store: Box<dyn Store>,
}

impl Db {
    fn of(store: impl Store + 'static) -> Db {
        Db {
            store: Box::new(store),
        }
    }

    /// Opens for writing: creates the schema when empty and migrates it.
    pub fn open(target: &Target) -> Result<Db> {
        Ok(match target {
            Target::Sqlite(p) => {
                Db::of(SqliteStore::open(p).map_err(|e| open_error::sqlite(p, e))?)
            }
            Target::Postgres(u) => Db::of(PgStore::open(u)?),
        })
    }

    /// Opens an existing store for writing (a missing one is an error, not created).
    pub fn open_existing(target: &Target) -> Result<Db> {
        Ok(match target {
            Target::Sqlite(p) => {
                Db::of(SqliteStore::open_existing(p).map_err(|e| open_error::sqlite(p, e))?)
            }
            Target::Postgres(u) => Db::of(PgStore::open_existing(u)?),
        })
    }

    /// Opens for the read commands: nothing is written, locked or drawn from a sequence
    /// when the schema is current; an older one is upgraded when these credentials can.
    pub fn open_read(target: &Target) -> Result<Db> {
        Ok(match target {
            Target::Sqlite(p) => {
                Db::of(SqliteStore::open_read(p).map_err(|e| open_error::sqlite(p, e))?)
            }
            Target::Postgres(u) => Db::of(PgStore::open_read(u)?),
        })
    }

    /// A new SQLite database in memory.
    #[cfg(any(test, feature = "test-support"))]
    pub fn open_in_memory() -> Result<Db> {
        Ok(Db::of(SqliteStore::open_in_memory()?))
    }

    /// Upgrades the store's schema; returns the versions before and after.
    pub fn migrate(target: &Target) -> Result<(i64, i64)> {
        match target {
            Target::Sqlite(p) => SqliteStore::migrate(p).map_err(|e| open_error::sqlite(p, e)),
            Target::Postgres(u) => PgStore::migrate(u),
        }
    }

    /// The schema version of the open store.
    pub fn schema_version(&self) -> Result<i64> {
        self.store.schema_version()
    }

    /// The ids of the runs the selector matches, in id order.
    pub fn select_ids(&self, sel: &Selector) -> Result<Vec<i64>> {
        if !sel.judged_on_heads() {
            return self.store.select_ids(&Filter::of(sel));
        }
        let mut ids: Vec<i64> = self.kept_ids(sel)?.into_iter().collect();
        ids.sort_unstable();
        Ok(ids)
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
    ///
    /// The store answers the plain terms in SQL. `source=` terms (a path suffix, or a path
    /// relative to the current directory), `param.` terms and history terms (`latest=N`,
    /// …) are judged on the heads of the runs the plain terms select; the runs they keep
    /// are then read by id.
    pub fn for_each_run(
        &self,
        sel: &Selector,
        detail: Detail,
        mut f: impl FnMut(StoredRun) -> Result<()>,
    ) -> Result<usize> {
        if !sel.judged_on_heads() {
            return self.store.stream(&Filter::of(sel), detail, &mut f);
        }
        let mut ids: Vec<i64> = self.kept_ids(sel)?.into_iter().collect();
        ids.sort_unstable();
        let mut n = 0;
        for chunk in ids.chunks(IDS_PER_QUERY) {
            n += self
                .store
                .stream(&Filter::ids(chunk.to_vec()), detail, &mut f)?;
        }
        Ok(n)
    }

    /// The ids of the runs that the plain terms select and the path and history terms keep.
    fn kept_ids(&self, sel: &Selector) -> Result<HashSet<i64>> {
        let cwd = std::env::current_dir().ok();
        let mut heads = Vec::new();
        self.store
            .stream(&Filter::of(sel), Detail::Heads, &mut |r| {
                if sel.matches_head(&r, cwd.as_deref()) {
                    heads.push(post_head(r));
                }
                Ok(())
            })?;
        Ok(sel.post_filter(heads).iter().map(|r| r.id).collect())
    }

    /// Whether every block's runs have consecutive ids, so a stream in id order gives
    /// each block's runs together.
    pub fn blocks_contiguous(&self) -> Result<bool> {
        self.store.blocks_contiguous()
    }

    /// Sets the label of the selected runs; returns how many changed.
    pub fn relabel(&mut self, sel: &Selector, label: &str) -> Result<usize> {
        let ids = self.select_ids(sel)?;
        self.store.relabel(&ids, label)
    }
}
