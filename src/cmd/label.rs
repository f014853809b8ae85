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
    let (selector, new_label) = match (args.all, args.words.as_slice()) {
        (true, [label]) => (None, label),
        (true, [selector, _]) => bail!("give either a selector ({selector:?}) or --all, not both"),
        (false, [selector, label]) => {
            let sel = Selector::parse(selector)?;
            if sel.terms.is_empty() && sel.post.is_empty() {
                bail!(
                    "the selector {selector:?} is empty and would relabel every run; \
                     use `bench-db label --all NEW_LABEL` to mean that"
                );
            }
            (Some((sel, selector.as_str())), label)
        }
        _ => bail!("usage: bench-db label SELECTOR NEW_LABEL, or bench-db label --all NEW_LABEL"),
    };
    let mut store = Db::open_existing(db)?;
    let sel = match selector {
        None => Selector::all(),
        Some((sel, text)) => {
            let runs = super::select::select_some(&store, &sel, text, "selector")?;
            Selector::from_ids(runs.iter().map(|r| r.id).collect())
        }
    };
    let n = store.relabel(&sel, new_label)?;
    if n == 0 {
        bail!("no run to relabel");
    }
    if args.output.json() {
        let doc = serde_json::json!({
            "schema": 1,
            "relabelled": n,
            "label": new_label,
        });
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        println!(
            "relabelled {n} run{} as {new_label:?}",
            if n == 1 { "" } else { "s" },
        );
    }
    Ok(crate::exit::OK)
}
