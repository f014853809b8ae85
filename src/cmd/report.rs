//! `bench-db report`: selects runs, compares the sides asked for (or one suite and label
//! on two branches), builds the site model (`analysis::site`), draws its pages with
//! `report::html` and writes them under `--out`, `index.html` last. The only IO of the
//! report.

use super::select::select_some;
use crate::analysis::{pairing, site, slo};
use crate::cli::{ReportArgs, Sides};
use crate::dataset::StoredRun;
use crate::report::html;
use crate::selector::Selector;
use crate::store::url::Target;
use crate::store::{Db, Detail};
use anyhow::{Context, Result};
use std::path::Path;

pub fn run(db: &Target, args: &ReportArgs) -> Result<u8> {
    let store = Db::open_read(db)?;
    let mut runs = load(&store, &Selector::parse_opt(args.selector.as_deref())?)?;
    let slo = match &args.slo {
        Some(text) => slo::parse(text).context("--slo")?,
        None => Vec::new(),
    };
    let mut left_out = Vec::new();
    let comparisons = match &args.sides.sides() {
        Some(Sides {
            baseline: b,
            candidate: c,
        }) => {
            let base = select_some(&store, b, "--baseline")?;
            let cand = select_some(&store, c, "--candidate")?;
            let (bn, cn) = pairing::side_names(&refs(&base), &refs(&cand));
            let comparison = pairing::compare(&bn, &refs(&base), &cn, &refs(&cand));
            // The sides' runs are shown on their suite page even when the selector left
            // them out.
            for r in base.into_iter().chain(cand) {
                if !runs.iter().any(|x| x.id == r.id) {
                    runs.push(r);
                }
            }
            runs.sort_by_key(|r| r.id);
            vec![comparison]
        }
        None => {
            let pairs = pairing::branch_pairs(&runs);
            left_out = pairs.left_out;
            pairs.comparisons
        }
    };
    if runs.is_empty() {
        eprintln!("bench-db report: no runs selected; writing an empty report");
    }
    let mut model = site::build(&runs, &comparisons, &site::Options { slo });
    model.left_out = left_out;
    let site = html::site(&model)?;
    write_site(&args.out, &site.files)?;
    if args.output.json() {
        let doc = serde_json::json!({
            "schema": 1,
            "index": args.out.join("index.html"),
            "files": site.files.iter().map(|f| args.out.join(&f.0)).collect::<Vec<_>>(),
            "runs": runs.len(),
            "comparisons": comparisons.iter().map(|c| {
                // The cells the index lists under "Got worse" and "Got better".
                let cells = |direction: bool| {
                    c.deltas
                        .iter()
                        .filter(|d| d.direction == Some(direction))
                        .map(|d| serde_json::json!({
                            "metric": d.metric,
                            "percentile": d.percentile,
                            "delta_pct": d.delta_pct,
                            "verdict": d.verdict,
                        }))
                        .collect::<Vec<_>>()
                };
                serde_json::json!({
                    "suite": c.suite,
                    "baseline": c.baseline,
                    "candidate": c.candidate,
                    "worse": cells(false),
                    "better": cells(true),
                })
            }).collect::<Vec<_>>(),
        });
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        println!("{}", args.out.join("index.html").display());
    }
    Ok(crate::exit::OK)
}

/// Writes the pages under `out`, `index.html` last: a report stopped by an error (a
/// full disk) never leaves an index linking to pages that were not written.
fn write_site(out: &Path, files: &[(String, String)]) -> Result<()> {
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    let (index, pages): (Vec<_>, Vec<_>) = files.iter().partition(|f| f.0 == "index.html");
    for (name, text) in pages.into_iter().chain(index) {
        let path = out.join(name);
        write_atomically(&path, text.as_bytes())
            .with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

/// Writes `path` through a temporary file beside it and a rename, so an interrupted
/// report leaves the previous page or the new one, never half of one.
/// The temporary name is private to this process (`.NAME.PID.tmp`).
fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let tmp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    let written = std::fs::write(&tmp, bytes).and_then(|()| std::fs::rename(&tmp, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// The selected runs, each block's printed numbers kept on its first run only (the
/// variation tables read them once per block; see `analysis::variation`).
fn load(store: &Db, sel: &Selector) -> Result<Vec<StoredRun>> {
    let mut runs: Vec<StoredRun> = Vec::new();
    store.for_each_run(sel, Detail::Points, |mut r| {
        if runs.last().is_some_and(|p| p.block_id == r.block_id) {
            r.printed = Vec::new();
        }
        runs.push(r);
        Ok(())
    })?;
    Ok(runs)
}

fn refs(runs: &[StoredRun]) -> Vec<&StoredRun> {
    runs.iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_index_is_written_after_every_page() {
        let dir = tempfile::tempdir().unwrap();
        let files: Vec<(String, String)> = ["index.html", "suite-a.html", "suite-b.html"]
            .iter()
            .map(|n| (n.to_string(), format!("<p>{n}</p>")))
            .collect();
        // suite-b.html cannot be written: a directory holds its name.
        std::fs::create_dir_all(dir.path().join("suite-b.html/x")).unwrap();
        let err = write_site(dir.path(), &files).unwrap_err();
        assert!(format!("{err:#}").contains("suite-b.html"), "{err:#}");
        assert!(!dir.path().join("index.html").exists());
        assert!(dir.path().join("suite-a.html").exists());
        // No temporary file is left behind.
        let names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert!(names.iter().all(|n| !n.ends_with(".tmp")), "{names:?}");

        std::fs::remove_dir_all(dir.path().join("suite-b.html")).unwrap();
        write_site(dir.path(), &files).unwrap();
        let index = std::fs::read_to_string(dir.path().join("index.html")).unwrap();
        assert_eq!(index, "<p>index.html</p>");
    }
}
