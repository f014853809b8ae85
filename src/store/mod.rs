//! The SQLite store: open, migrate, insert, query. SQL never leaves this folder.
//!
//! Every connection runs in WAL mode with foreign keys on and a busy timeout. The schema
//! is a list of append-only migrations (`migrations/NNNN_*.sql`) applied in one
//! transaction, keyed by `PRAGMA user_version`; a database written by a newer binary is
//! refused rather than misread.

mod backend;
pub mod copy;
mod insert;
mod pg;
mod query;
pub mod url;

pub use backend::Db;

pub use insert::{BlockDefaults, Generated, IngestError, Ingested, SourceMeta};

use anyhow::{Context, Result, bail};
use rusqlite::Connection;
use std::path::Path;
use std::time::Duration;

/// The migrations, in order; index + 1 is the schema version each one produces.
const MIGRATIONS: &[&str] = &[include_str!("../../migrations/0001_init.sql")];

/// An open bench-db database.
pub struct Store {
    conn: Connection,
}

impl Store {
    /// Opens (creating if needed) and migrates the database at `path`.
    pub fn open(path: &Path) -> Result<Store> {
        let conn = Connection::open(path)
            .with_context(|| format!("cannot open database {}", path.display()))?;
        Self::setup(conn).with_context(|| format!("cannot use database {}", path.display()))
    }

    /// An in-memory database (tests, benchmarks).
    pub fn open_in_memory() -> Result<Store> {
        Self::setup(Connection::open_in_memory()?)
    }

    fn setup(mut conn: Connection) -> Result<Store> {
        conn.busy_timeout(Duration::from_secs(10))?;
        // journal_mode answers with a row, so it is queried rather than executed.
        let _mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
        conn.execute_batch("PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL;")?;
        migrate(&mut conn)?;
        Ok(Store { conn })
    }

    /// The schema version of this database.
    pub fn schema_version(&self) -> Result<i64> {
        Ok(self
            .conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))?)
    }
}

/// Applies the migrations the database lacks, all in one transaction.
fn migrate(conn: &mut Connection) -> Result<()> {
    let current: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    let latest = MIGRATIONS.len() as i64;
    if current > latest {
        bail!(
            "the database has schema version {current}, newer than this bench-db understands ({latest}); \
             use a newer bench-db"
        );
    }
    if current == latest {
        return Ok(());
    }
    let tx = conn.transaction()?;
    for (i, sql) in MIGRATIONS.iter().enumerate().skip(current as usize) {
        tx.execute_batch(sql)
            .with_context(|| format!("migration {} failed", i + 1))?;
    }
    tx.pragma_update(None, "user_version", latest)?;
    tx.commit()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn migrates_once_and_refuses_newer() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("b.db");
        let s = Store::open(&path).unwrap();
        assert_eq!(s.schema_version().unwrap(), MIGRATIONS.len() as i64);
        drop(s);
        // Reopening is a no-op.
        Store::open(&path).unwrap();
        let c = Connection::open(&path).unwrap();
        c.pragma_update(None, "user_version", 99).unwrap();
        drop(c);
        let err = Store::open(&path).err().unwrap();
        assert!(
            format!("{err:#}").contains("newer than this bench-db"),
            "{err:#}"
        );
    }
}
