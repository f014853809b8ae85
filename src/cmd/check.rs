//! `bench-db check`: is the database sound? On SQLite the engine's `PRAGMA
//! integrity_check` of the whole file, then on both stores a read of every run with its
//! series, decoding each JSON column and each packed blob with its checksum.
//!
//! Exit code 0 when sound; 1 when damage was found, each damaged run (with its source)
//! or complaint about the file listed; 2 (an error) when the database cannot be opened.

use crate::cli::CheckArgs;
use crate::store::Db;
use crate::store::open_error::{Explained, Failure};
use crate::store::url::Target;
use anyhow::{Result, anyhow};

/// Exit code of a check that found damage.
const DAMAGED: u8 = 1;

pub fn run(db: &Target, args: &CheckArgs) -> Result<u8> {
    let store = Db::open_read(db).map_err(|e| beyond_check(db, e))?;
    let found = store.check();
    let ok = found.damaged.is_empty();
    if args.output.json() {
        let doc = serde_json::json!({
            "schema": 1,
            "db": db.to_string(),
            "ok": ok,
            "runs_checked": found.runs,
            "series_checked": found.series,
            "damaged": found.damaged,
        });
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        for d in &found.damaged {
            println!("{d}");
        }
        println!(
            "{db}: {} runs and {} series checked; {}",
            found.runs,
            found.series,
            match found.damaged.len() {
                0 => "no damage found".to_string(),
                1 => "1 damaged".to_string(),
                n => format!("{n} damaged"),
            }
        );
    }
    Ok(if ok { crate::exit::OK } else { DAMAGED })
}

/// `e`, or for a file too damaged to open (whose error everywhere else sends the reader
/// to `check`) what to do instead: `check` cannot read it either.
fn beyond_check(db: &Target, e: anyhow::Error) -> anyhow::Error {
    let corrupt = e.chain().any(|c| {
        c.downcast_ref::<Explained>()
            .is_some_and(|x| x.failure == Failure::Corrupt)
    });
    if !corrupt {
        return e;
    }
    anyhow!(
        "the database {db} is corrupt: it cannot be opened, so nothing in it can be checked; \
         restore a copy of the file, or move it aside and ingest the files again"
    )
}
