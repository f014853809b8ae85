//! The rows both backends read and write, in backend-free types, and the one decoding
//! of a stored run and series from their columns. A backend fills [`RunCols`] and
//! [`SeriesCols`] from its own row type; everything after that is shared.

use super::codec;
use crate::dataset::StoredRun;
use anyhow::{Context, Result, anyhow};
use bench_db_parsers::{Data, HistInterval, PrintedStat, Run, Series};

/// How much of each run to load.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detail {
    /// Everything: series with their points and histograms, and the block's printed
    /// numbers on every run.
    Points,
    /// Series with their points and histograms, without the block's printed numbers
    /// (`printed` is empty): what the analyses read.
    Series,
    /// Series without their points or histograms (names, units, single values), and no
    /// printed numbers: what a listing prints.
    Heads,
    /// [`Detail::Heads`] with the block's printed numbers on every run: what `runs --json`
    /// prints.
    HeadsPrinted,
}

impl Detail {
    /// Whether the series' points and histograms are loaded.
    pub fn points(self) -> bool {
        matches!(self, Detail::Points | Detail::Series)
    }

    /// Whether each run carries its block's printed numbers.
    pub fn printed(self) -> bool {
        matches!(self, Detail::Points | Detail::HeadsPrinted)
    }
}

/// A source's provenance as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceRecord {
    pub path: String,
    pub sha256: String,
    /// Hex SHA-256 of the run metadata the user gave ([`super::ingest::metadata_identity`]);
    /// the same content under other metadata is another source.
    pub identity: String,
    pub bytes: u64,
    pub format: String,
    pub parser: String,
    pub ingested_at: String,
}

/// A stored block's own columns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockMeta {
    pub id: i64,
    pub idx: i64,
    /// As found in the source (lead line), before overrides.
    pub label: Option<String>,
    pub first_line: u64,
    pub last_line: u64,
}

/// One run with the suite and label it is stored under (tags already final).
#[derive(Debug, Clone)]
pub struct RunRows {
    pub suite: String,
    pub label: String,
    pub run: Run,
}

/// A block ready to be written: its columns, printed statistics and runs.
#[derive(Debug, Clone)]
pub struct BlockRows {
    pub idx: i64,
    pub label: Option<String>,
    pub first_line: u64,
    pub last_line: u64,
    pub printed: Vec<PrintedStat>,
    pub runs: Vec<RunRows>,
}

/// What writing one source did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Written {
    /// The content was already stored: nothing was written.
    pub unchanged: bool,
    pub blocks: usize,
    /// The ids of the stored runs, in order.
    pub run_ids: Vec<i64>,
    /// Points stored (a single value counts one).
    pub points: usize,
}

/// How many points a series stores (a single value counts one).
pub fn point_count(d: &Data) -> usize {
    match d {
        Data::Ladder { points, .. } | Data::Histogram { points, .. } => points.len(),
        Data::TimeSeries { points } => points.len(),
        Data::Value { .. } => 1,
    }
}

/// A stored run's own columns, as a backend read them.
pub struct RunCols {
    pub id: i64,
    pub suite: String,
    pub label: String,
    pub format: String,
    pub source: String,
    pub source_id: i64,
    pub block_id: i64,
    pub block_index: i64,
    pub ingested_at: String,
    pub run_index: i64,
    pub first_line: i64,
    pub last_line: i64,
    /// JSON object.
    pub params: String,
    /// JSON object.
    pub tags: String,
    pub bench: Option<String>,
    /// JSON array of `params` keys.
    pub config: String,
}

impl RunCols {
    /// The run, without series yet, with its block's printed numbers.
    pub fn decode(self, printed: Vec<PrintedStat>) -> Result<StoredRun> {
        let id = self.id;
        Ok(StoredRun {
            id,
            suite: self.suite,
            label: self.label,
            format: self.format,
            source: self.source,
            source_id: self.source_id,
            block_id: self.block_id,
            block_index: u32::try_from(self.block_index)
                .with_context(|| format!("run {id}: bad block index"))?,
            ingested_at: self.ingested_at,
            run: Run {
                bench: self.bench,
                config: serde_json::from_str(&self.config)
                    .with_context(|| format!("run {id}: bad config"))?,
                index: u32::try_from(self.run_index)
                    .with_context(|| format!("run {id}: bad index"))?,
                first_line: self.first_line as u64,
                last_line: self.last_line as u64,
                params: serde_json::from_str(&self.params)
                    .with_context(|| format!("run {id}: bad params"))?,
                tags: serde_json::from_str(&self.tags)
                    .with_context(|| format!("run {id}: bad tags"))?,
                series: Vec::new(),
            },
            printed,
        })
    }
}

/// A stored series' columns, as a backend read them.
pub struct SeriesCols<'a> {
    pub id: i64,
    pub metric: String,
    pub display: String,
    pub unit: String,
    /// `ladder`, `histogram`, `timeseries` or `value`.
    pub kind: String,
    pub count: Option<i64>,
    /// JSON object of printed summary numbers.
    pub stats: String,
    pub value: Option<f64>,
    /// The packed points ([`codec`]); absent when not loaded.
    pub points: Option<&'a [u8]>,
}

impl SeriesCols<'_> {
    /// The series, with `intervals` as its histograms when it is one.
    pub fn decode(self, intervals: Vec<HistInterval>) -> Result<Series> {
        let id = self.id;
        let count = self.count.map(|c| c as u64);
        let corrupt = |e: codec::Corrupt| anyhow!("series {id}: {e}");
        let data = match self.kind.as_str() {
            "ladder" => Data::Ladder {
                count,
                points: codec::unpack_ladder(self.points).map_err(corrupt)?,
            },
            "histogram" => Data::Histogram {
                intervals,
                count,
                points: codec::unpack_ladder(self.points).map_err(corrupt)?,
            },
            "timeseries" => Data::TimeSeries {
                points: codec::unpack_time_series(self.points).map_err(corrupt)?,
            },
            _ => Data::Value { value: self.value },
        };
        Ok(Series {
            metric: self.metric,
            display: self.display,
            unit: self.unit,
            data,
            stats: serde_json::from_str(&self.stats)
                .with_context(|| format!("series {id}: bad stats"))?,
        })
    }
}

/// What a series stores beside its row's names: sample count, single value and packed
/// points, and how many points that is.
pub struct SeriesValues {
    pub count: Option<i64>,
    pub value: Option<f64>,
    pub points: Option<Vec<u8>>,
    pub stored: usize,
}

impl SeriesValues {
    /// The stored form of a series' data.
    pub fn of(s: &Series) -> SeriesValues {
        let stored = point_count(&s.data);
        let (count, value, points) = match &s.data {
            Data::Ladder { count, points } | Data::Histogram { count, points, .. } => {
                (count.map(|c| c as i64), None, Some(codec::ladder(points)))
            }
            Data::TimeSeries { points } => (None, None, Some(codec::time_series(points))),
            Data::Value { value } => (None, *value, None),
        };
        SeriesValues {
            count,
            value,
            points,
            stored,
        }
    }
}

/// `series.stats`: the printed summary numbers as a JSON object.
pub fn stats_json(s: &Series) -> serde_json::Result<String> {
    if s.stats.is_empty() {
        Ok("{}".to_string())
    } else {
        serde_json::to_string(&s.stats)
    }
}

/// The printed numbers of a block, as stored in `block.printed` (see [`printed_to_json`]).
pub fn printed_from_json(json: &str, block_id: i64) -> Result<Vec<PrintedStat>> {
    let rows: Vec<(String, Option<f64>, String, Option<f64>)> = serde_json::from_str(json)
        .with_context(|| format!("block {block_id}: bad printed numbers"))?;
    Ok(rows
        .into_iter()
        .map(|(metric, percentile, name, value)| PrintedStat {
            metric,
            percentile,
            name,
            value,
        })
        .collect())
}

/// `block.printed`: a JSON array of `[metric, percentile, name, value]`, in printed order.
pub fn printed_to_json(stats: &[PrintedStat]) -> serde_json::Result<String> {
    let rows: Vec<(&str, Option<f64>, &str, Option<f64>)> = stats
        .iter()
        .map(|p| (p.metric.as_str(), p.percentile, p.name.as_str(), p.value))
        .collect();
    serde_json::to_string(&rows)
}

/// What the history terms judge a run by (id, tags, ingest time), without its series
/// and parameters, so a whole selection's heads stay small.
pub fn post_head(mut r: StoredRun) -> StoredRun {
    r.run.series = Vec::new();
    r.run.params = Default::default();
    r
}

/// True when no block has a run of another block between its first and last run
/// (the same SQL on both backends).
pub const CONTIGUOUS_SQL: &str = "SELECT NOT EXISTS (
    SELECT 1 FROM run GROUP BY block_id HAVING MAX(id) - MIN(id) + 1 <> COUNT(*))";
