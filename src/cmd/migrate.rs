//! `bench-db migrate`: upgrade a database to this binary's schema in place.

use crate::cli::MigrateArgs;
use crate::selector::Selector;
use crate::store::url::Target;
use crate::store::{Db, Detail};
use anyhow::Result;
use std::collections::BTreeSet;

/// The schema version that gave runs a benchmark and a configuration.
const IDENTITY_VERSION: i64 = 4;

/// Formats whose benchmark name, configuration, metric names or run time are read at
/// ingest since schema 4: their sources stored before it lack what only a re-ingest can
/// read back (a JMH package, a Go `note:` line, a printed summary). Criterion and hyperfine
/// runs get their bench and metric names back from their stored names (schemas 4 and 5).
const REINGEST_FORMATS: &[&str] = &[
    "jmh",
    "go-bench",
    "criterion",
    "hyperfine",
    "k6",
    "arthas",
    "jgroups",
    "jlbh",
    "sockperf",
    "wrk",
    "qps-table",
    "tsar",
    "hlog",
];

pub fn run(db: &Target, args: &MigrateArgs) -> Result<u8> {
    let (from, to) = Db::migrate(db)?;
    let reingest = if from < IDENTITY_VERSION && to >= IDENTITY_VERSION {
        sources_to_reingest(&Db::open_read(db)?)?
    } else {
        Vec::new()
    };
    if args.output.json() {
        // `db` is shown as everywhere else: a PostgreSQL password masked.
        let doc = serde_json::json!({
            "schema": 1,
            "db": db.to_string(),
            "from": from,
            "to": to,
            "upgraded": from != to,
            "reingest": reingest,
        });
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        if from == to {
            println!("{db}: schema version {to}, up to date");
        } else {
            println!("{db}: schema version {from} upgraded to {to}");
        }
        if !reingest.is_empty() {
            println!(
                "{} stored before schema {IDENTITY_VERSION} lack their benchmark names and \
                 configuration; ingest them again to read those (the new runs are stored beside \
                 the old ones):",
                crate::numfmt::plural(reingest.len(), "source")
            );
            for path in &reingest {
                println!("  {}", crate::output::escape::text(path));
            }
        }
    }
    Ok(crate::exit::OK)
}

/// The stored sources of [`REINGEST_FORMATS`], in path order.
fn sources_to_reingest(store: &Db) -> Result<Vec<String>> {
    let mut paths = BTreeSet::new();
    store.for_each_run(&Selector::all(), Detail::Heads, |r| {
        if REINGEST_FORMATS.contains(&r.format.as_str()) {
            paths.insert(r.source);
        }
        Ok(())
    })?;
    Ok(paths.into_iter().collect())
}
