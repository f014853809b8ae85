//! `bench-db migrate`: upgrade a database to this binary's schema in place.

use crate::store::Store;
use anyhow::Result;
use std::path::Path;

pub fn run(db: &Path) -> Result<u8> {
    let (from, to) = Store::migrate(db)?;
    if from == to {
        println!("{}: schema version {to}, up to date", db.display());
    } else {
        println!("{}: schema version {from} upgraded to {to}", db.display());
    }
    Ok(crate::exit::OK)
}
