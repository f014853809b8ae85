//! Runs as loaded back from the store, with their identity and provenance: what
//! analysis, reports and exports consume. Pure data, no IO.

use bench_db_parsers::{PrintedStat, Run, Series};
use serde::Serialize;

/// One stored run.
#[derive(Debug, Clone, Serialize)]
pub struct StoredRun {
    /// Database id (what `run=ID` selects).
    pub id: i64,
    pub suite: String,
    pub label: String,
    /// Format name of the parser that produced it (`jlbh`, `tsar`, … or `loopback`).
    pub format: String,
    /// Source path as given at ingest.
    pub source: String,
    pub source_id: i64,
    /// The source block the run came from; runs of one block form one group.
    pub block_id: i64,
    /// 0-based index of the block within its source.
    pub block_index: u32,
    /// Ingest time, RFC 3339.
    pub ingested_at: String,
    /// Index, line range, parameters, tags and series.
    pub run: Run,
    /// The block's printed derived numbers (JLBH `% Variation`), shared by its runs.
    pub printed: Vec<PrintedStat>,
}

impl StoredRun {
    /// The run's tags other than `commit` (which has a column of its own), as `key=value`.
    pub fn other_tags(&self) -> Vec<String> {
        self.run
            .tags
            .iter()
            .filter(|(k, _)| k.as_str() != "commit")
            .map(|(k, v)| format!("{k}={v}"))
            .collect()
    }

    /// The series named `metric`, if the run has it.
    pub fn series(&self, metric: &str) -> Option<&Series> {
        self.run.series.iter().find(|s| s.metric == metric)
    }

    /// A numeric parameter.
    pub fn param_f64(&self, key: &str) -> Option<f64> {
        self.run.params.get(key).and_then(|p| p.as_f64())
    }

    /// The key that groups runs for run-to-run variation: same suite, label and block.
    pub fn group_key(&self) -> (String, String, i64) {
        (self.suite.clone(), self.label.clone(), self.block_id)
    }
}
