//! The SQLite store: open, migrate, insert, query. SQL never leaves this folder.
