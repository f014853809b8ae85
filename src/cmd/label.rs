//! `bench-db label SELECTOR NEW_LABEL`: relabel the selected runs.

use crate::cli::LabelArgs;
use crate::selector::{Selector, Term};
use crate::store::Store;
use anyhow::{Result, bail};
use std::path::Path;

pub fn run(db: &Path, args: &LabelArgs) -> Result<u8> {
    let mut store = Store::open(db)?;
    let runs = super::select::select_some(&store, &args.selector, "selector")?;
    let ids = Selector {
        terms: vec![Term::Runs(runs.iter().map(|r| r.id).collect())],
    };
    let n = store.relabel(&ids, &args.new_label)?;
    if n == 0 {
        bail!("selector {:?} matches no run", args.selector);
    }
    if args.json {
        let doc = serde_json::json!({
            "schema": 1,
            "relabelled": n,
            "label": args.new_label,
        });
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        println!(
            "relabelled {n} run{} as {:?}",
            if n == 1 { "" } else { "s" },
            args.new_label
        );
    }
    Ok(crate::exit::OK)
}
