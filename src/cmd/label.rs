//! `bench-db label SELECTOR NEW_LABEL`: relabel the selected runs.
//!
//! A selector that selects everything (empty or blank) is refused: relabelling every
//! run takes `--all`.

use crate::cli::LabelArgs;
use crate::selector::Selector;
use crate::store::Db;
use crate::store::url::Target;
use anyhow::{Result, bail};

pub fn run(db: &Target, args: &LabelArgs) -> Result<u8> {
    let (sel, new_label) = match (args.all, args.words.as_slice()) {
        (true, [label]) => (Selector::all(), label),
        (true, [selector, _]) => bail!("give either a selector ({selector:?}) or --all, not both"),
        (false, [selector, label]) => {
            let sel = Selector::parse(selector)?;
            if sel.terms.is_empty() {
                bail!(
                    "the selector {selector:?} is empty and would relabel every run; \
                     use `bench-db label --all NEW_LABEL` to mean that"
                );
            }
            (sel, label)
        }
        _ => bail!("usage: bench-db label SELECTOR NEW_LABEL, or bench-db label --all NEW_LABEL"),
    };
    let mut store = Db::open_existing(db)?;
    let n = store.relabel(&sel, new_label)?;
    if n == 0 {
        bail!("selector {:?} matches no run", args.words[0]);
    }
    println!(
        "relabelled {n} run{} as {new_label:?}",
        if n == 1 { "" } else { "s" },
    );
    Ok(crate::exit::OK)
}
