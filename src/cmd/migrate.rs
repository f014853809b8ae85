//! `bench-db migrate`: upgrade a database to this binary's schema in place.

use crate::store::Db;
use crate::store::url::Target;
use anyhow::Result;

pub fn run(db: &Target) -> Result<u8> {
    let (from, to) = Db::migrate(db)?;
    if from == to {
        println!("{}: schema version {to}, up to date", db);
    } else {
        println!("{}: schema version {from} upgraded to {to}", db);
    }
    Ok(crate::exit::OK)
}
