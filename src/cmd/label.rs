//! `bench-db label SELECTOR NEW_LABEL`: relabel the selected runs.

use crate::cli::LabelArgs;
use crate::selector::Selector;
use crate::store::Db;
use crate::store::url::Target;
use anyhow::{Result, bail};

pub fn run(db: &Target, args: &LabelArgs) -> Result<u8> {
    let sel = Selector::parse(&args.selector)?;
    let mut store = Db::open(db)?;
    let n = store.relabel(&sel, &args.new_label)?;
    if n == 0 {
        bail!("selector {:?} matches no run", args.selector);
    }
    println!(
        "relabelled {n} run{} as {:?}",
        if n == 1 { "" } else { "s" },
        args.new_label
    );
    Ok(crate::exit::OK)
}
