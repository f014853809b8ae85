//! The store: where runs are kept, on SQLite (the default, one file) or PostgreSQL (a
//! team's shared database). SQL never leaves this folder.
//!
//! One interface, two backends: [`backend::Store`] is a handful of small operations on a
//! connection, implemented by `sqlite/` and `postgres/` (neither imports the other).
//! Every algorithm over a store is written once on top of it, on [`Db`]: ingest
//! (`ingest.rs`), selection with its path and history terms (`db.rs`), relabelling, and
//! `copy` (`copy.rs`). Shared row types and their decoding are in `rows.rs`, the packed
//! points in `codec.rs`, a selection's SQL in `filter.rs`, the v1 data migration in
//! `v1.rs`. Commands hold a [`Db`] and never learn which database they talk to.

mod backend;
mod codec;
pub mod copy;
mod db;
mod filter;
mod ingest;
pub mod open_error;
mod postgres;
mod rows;
mod sqlite;
pub mod url;
mod v1;

pub use backend::{Digest, IngestError};
pub use db::{Checked, Db};
pub use ingest::{BlockDefaults, Generated, Ingested, Prepare, Prepared, SourceMeta};
pub use rows::{Damage, Detail, Removed, SourceRecord};
