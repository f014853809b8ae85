//! `bench-db copy --from DB --to DB [SELECTOR]`: copy runs between two stores of either
//! kind; a source the target already holds (same content hash) is skipped, so a copy can be
//! repeated and a job can ingest locally and push once at the end.

use crate::cli::CopyArgs;
use crate::selector::Selector;
use crate::store::Db;
use crate::store::copy::copy;
use crate::store::url::Target;
use anyhow::{Result, bail};

pub fn run(args: &CopyArgs) -> Result<u8> {
    let from = Target::parse(&args.from)?;
    let to = Target::parse(&args.to)?;
    if from == to {
        bail!("--from and --to name the same store ({from})");
    }
    let sel = Selector::parse_opt(args.selector.as_deref())?;
    let source = Db::open_read(&from)?;
    let mut target = Db::open(&to)?;
    let done = copy(&source, &mut target, &sel, |record, runs| match runs {
        Some(n) => println!(
            "copied {}: {n} run{}",
            record.path,
            if n == 1 { "" } else { "s" }
        ),
        None => println!("present {}", record.path),
    })?;
    println!(
        "{} sources copied ({} runs), {} already present, from {from} to {to}",
        done.sources, done.runs, done.present
    );
    Ok(crate::exit::OK)
}
