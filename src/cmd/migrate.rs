//! `bench-db migrate`: upgrade a database to this binary's schema in place.

use crate::cli::MigrateArgs;
use crate::store::Db;
use crate::store::url::Target;
use anyhow::Result;

pub fn run(db: &Target, args: &MigrateArgs) -> Result<u8> {
    let (from, to) = Db::migrate(db)?;
    if args.output.json() {
        // `db` is shown as everywhere else: a PostgreSQL password masked.
        let doc = serde_json::json!({
            "schema": 1,
            "db": db.to_string(),
            "from": from,
            "to": to,
            "upgraded": from != to,
        });
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else if from == to {
        println!("{db}: schema version {to}, up to date");
    } else {
        println!("{db}: schema version {from} upgraded to {to}");
    }
    Ok(crate::exit::OK)
}
