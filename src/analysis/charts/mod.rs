//! What each chart and table of the report shows, computed from runs and analyses:
//! plain structs (one module per chart kind, named as the `report` module that draws
//! it). The report draws these and computes nothing itself.

pub mod changes;
pub mod curve;
pub mod history;
pub mod spectrum;
pub mod timeseries;
pub mod variation;

/// What a drawn run is, for the hover text of its point: `run 3 (id 812) · commit
/// abc1234 · 2026-12-02T10:54:57Z` (the time it was run when tagged, else when ingested).
pub fn about_run(r: &crate::dataset::StoredRun) -> String {
    let mut s = format!("run {} (id {})", r.run.index, r.id);
    if let Some(c) = r.run.tags.get("commit") {
        s.push_str(&format!(
            " · commit {}",
            c.chars().take(12).collect::<String>()
        ));
    }
    match r.run.tags.get("time") {
        Some(t) => s.push_str(&format!(" · {t}")),
        None => s.push_str(&format!(" · ingested {}", r.ingested_at)),
    }
    s
}
