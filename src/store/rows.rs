//! The rows both backends read and write, in backend-free types, and the one decoding
//! of a stored run and series from their columns. A backend fills [`RunCols`] and
//! [`SeriesCols`] from its own row type; everything after that is shared.
//!
//! A run whose columns do not decode (JSON that does not parse, packed points whose
//! checksum does not match, text that is not UTF-8) is [`Damage`]: a read reports it and
//! goes on with the other runs, so one damaged row never fails a whole read.

use super::codec;
use crate::dataset::StoredRun;
use crate::selector::HistoryKey;
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
    /// printed numbers: what a listing prints. The packed points are read only to verify
    /// their checksum, which covers the row's single value and statistics too.
    Heads,
    /// [`Detail::Heads`] with the block's printed numbers on every run: what `runs --json`
    /// prints.
    HeadsPrinted,
    /// The run's row with its parameters and configuration keys, without its series or
    /// printed numbers: what a run's identity (benchmark and configuration) is told from.
    Row,
    /// The run's row alone, without its series, parameters, configuration keys or printed
    /// numbers: what the path and history terms judge (the runs they keep are read
    /// afterwards).
    Bare,
}

impl Detail {
    /// Whether the series' points and histograms are loaded.
    pub fn points(self) -> bool {
        matches!(self, Detail::Points | Detail::Series)
    }

    /// Whether the runs' series are read at all.
    pub fn series(self) -> bool {
        !matches!(self, Detail::Row | Detail::Bare)
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

/// A run's [`HistoryKey`] as the indexes hold it: its id, time in nanoseconds
/// (`run.at_ns`) and commit (`run.commit_tag`).
pub fn indexed_key(id: i64, at_ns: i64, commit: Option<String>) -> HistoryKey {
    HistoryKey {
        id,
        commit: commit.map(String::into_boxed_str),
        time: Some(chrono::DateTime::from_timestamp_nanos(at_ns)),
    }
}

/// What the indexes hold of a run stored before them (schema 6's upgrade): its tags (all in
/// `run_tag`; later ingests keep a block's shared ones in `block_tag`), its time
/// (`run.at_ns`) and its commit (`run.commit_tag`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunIndex {
    pub tags: Vec<(String, String)>,
    pub at_ns: Option<i64>,
    pub commit: Option<String>,
}

impl RunIndex {
    /// The index rows of a run stored before the indexes, from its `tags` column and its
    /// source's ingest time. A run whose tags do not decode (damaged) gets neither: its
    /// missing time keeps every history term on the path that reads and reports it.
    pub fn of_stored(tags: Option<&str>, ingested_at: Option<&str>) -> RunIndex {
        let Some(tags) = tags.and_then(|t| {
            serde_json::from_str::<std::collections::BTreeMap<String, String>>(t).ok()
        }) else {
            return RunIndex::default();
        };
        RunIndex {
            at_ns: crate::selector::time_ns(&tags, ingested_at.unwrap_or("")),
            commit: tags.get("commit").cloned(),
            tags: tags.into_iter().collect(),
        }
    }
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
    /// The id of the stored block these runs join (a copy completing a source the target
    /// holds in part): no block row is written, and the runs' tags all go in `run_tag`.
    pub stored: Option<i64>,
    /// The stored form of its columns when computed ahead (an ingest computes it on the
    /// parsing thread, beside the writes); `None`: the writer computes it.
    pub encoded: Option<BlockEncoded>,
}

impl BlockRows {
    /// The stored form of this block's columns: the one computed ahead, else computed now.
    pub fn take_encoded(&mut self) -> serde_json::Result<BlockEncoded> {
        match self.encoded.take() {
            Some(e) => Ok(e),
            None => BlockEncoded::of(self),
        }
    }

    /// The block's tags as the index stores them ([`index_tags`]); a stored block's
    /// shared tags are not its new runs' to claim, so theirs are all their own.
    pub fn index_tags(&self) -> IndexTags<'_> {
        if self.stored.is_none() {
            return index_tags(&self.runs);
        }
        (Vec::new(), own_tags(&self.runs, &[]))
    }
}

/// A block's JSON and packed columns as both stores write them: `block.printed`, each
/// run's `params`, `tags` and `config`, each series' values ([`SeriesValues`]).
#[derive(Debug, Clone)]
pub struct BlockEncoded {
    pub printed: String,
    /// One per run, in order.
    pub runs: Vec<RunEncoded>,
}

/// A run's JSON columns and its series' stored values (one per series, in order).
#[derive(Debug, Clone)]
pub struct RunEncoded {
    pub params: String,
    pub tags: String,
    pub config: String,
    pub series: Vec<SeriesValues>,
}

impl BlockEncoded {
    /// The stored form of a block's columns.
    pub fn of(b: &BlockRows) -> serde_json::Result<BlockEncoded> {
        let runs = b
            .runs
            .iter()
            .map(|r| {
                Ok(RunEncoded {
                    params: serde_json::to_string(&r.run.params)?,
                    tags: serde_json::to_string(&r.run.tags)?,
                    config: serde_json::to_string(&r.run.config)?,
                    series: r
                        .run
                        .series
                        .iter()
                        .map(SeriesValues::of)
                        .collect::<serde_json::Result<_>>()?,
                })
            })
            .collect::<serde_json::Result<_>>()?;
        Ok(BlockEncoded {
            printed: printed_to_json(&b.printed)?,
            runs,
        })
    }
}

/// [`index_tags`]: the block's shared `(tag, value)`s, and the runs' own `(run, tag, value)`s.
pub type IndexTags<'a> = (Vec<(&'a str, &'a str)>, Vec<(usize, &'a str, &'a str)>);

/// A block's tags as the index stores them: each tag every run of the block has with the
/// same value once for the block (`block_tag`), and each run's other tags (`run_tag`, by
/// the run's position in the block), in the index's order (tag, value, run): a block's
/// rows then go into the same pages one after another.
fn index_tags(runs: &[RunRows]) -> IndexTags<'_> {
    let Some((first, rest)) = runs.split_first() else {
        return (Vec::new(), Vec::new());
    };
    let shared: Vec<(&str, &str)> = first
        .run
        .tags
        .iter()
        .filter(|(k, v)| rest.iter().all(|r| r.run.tags.get(*k) == Some(*v)))
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let own = own_tags(runs, &shared);
    (shared, own)
}

/// The runs' `(run, tag, value)`s but the `shared` ones (sorted by tag), in the index's order.
fn own_tags<'a>(runs: &'a [RunRows], shared: &[(&str, &str)]) -> Vec<(usize, &'a str, &'a str)> {
    let mut own: Vec<(usize, &str, &str)> = runs
        .iter()
        .enumerate()
        .flat_map(|(i, r)| {
            r.run
                .tags
                .iter()
                .map(move |(k, v)| (i, k.as_str(), v.as_str()))
        })
        .filter(|(_, k, _)| shared.binary_search_by(|(s, _)| s.cmp(k)).is_err())
        .collect();
    own.sort_unstable_by(|a, b| (a.1, a.2, a.0).cmp(&(b.1, b.2, b.0)));
    own
}

/// The runs a store holds of one source (a copy completes it with the runs it lacks).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StoredSource {
    pub id: i64,
    /// Each run's block (its index in the source and its id) and its index in the block.
    pub runs: Vec<StoredRunKey>,
}

/// Where a stored run stands in its source: what identifies it across stores; and its
/// label, which a relabel may have changed in one store and not the other.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredRunKey {
    pub block_idx: i64,
    pub block_id: i64,
    pub run_index: i64,
    pub label: String,
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

/// What a removal took out of a store (or would take, on a dry run).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Removed {
    /// The ids of the runs removed, ascending.
    pub runs: Vec<i64>,
    /// The paths of the sources removed because none of their runs was left, in id order.
    pub sources: Vec<String>,
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

/// A stored run that does not decode: a read skips it (with a warning), `check` lists it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Damage {
    /// The run, when the damage is a run's (`None`: the database file itself).
    pub run: Option<i64>,
    /// The run's source path, as far as it could be read.
    pub source: Option<String>,
    /// What does not decode, and why.
    pub what: String,
}

impl Damage {
    /// Damage to run `run` of `source`.
    pub fn run(run: i64, source: impl Into<String>, what: impl std::fmt::Display) -> Damage {
        Damage {
            run: Some(run),
            source: Some(source.into()),
            what: what.to_string(),
        }
    }
}

impl std::fmt::Display for Damage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.run, &self.source) {
            (Some(run), Some(src)) => write!(f, "run {run} (source {src}): damaged: {}", self.what),
            (Some(run), None) => write!(f, "run {run}: damaged: {}", self.what),
            (None, _) => write!(f, "database damaged: {}", self.what),
        }
    }
}

impl RunCols {
    /// These columns as [`Detail`] reads them: with [`Detail::Bare`], the parameters and
    /// the configuration keys are left out (not decoded: most of a bare run's cost).
    pub fn at(mut self, detail: Detail) -> RunCols {
        if detail == Detail::Bare {
            self.params = "{}".to_string();
            self.config = "[]".to_string();
        }
        self
    }

    /// The run, without series yet, with its block's printed numbers; an error says
    /// which column does not decode (the run is then [`Damage`]).
    pub fn decode(self, printed: Vec<PrintedStat>) -> Result<StoredRun> {
        Ok(StoredRun {
            id: self.id,
            suite: self.suite,
            label: self.label,
            format: self.format,
            source: self.source,
            source_id: self.source_id,
            block_id: self.block_id,
            block_index: u32::try_from(self.block_index).context("block index out of range")?,
            ingested_at: self.ingested_at,
            run: Run {
                bench: self.bench,
                config: serde_json::from_str(&self.config).context("config does not decode")?,
                index: u32::try_from(self.run_index).context("run index out of range")?,
                first_line: self.first_line as u64,
                last_line: self.last_line as u64,
                params: serde_json::from_str(&self.params).context("params do not decode")?,
                tags: serde_json::from_str(&self.tags).context("tags do not decode")?,
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
    /// The series, with `intervals` as its histograms when it is one, and its points when
    /// `points` (else only the checksum is verified); an error names the series and what of
    /// it does not decode (its run is then [`Damage`]).
    pub fn decode(self, intervals: Vec<HistInterval>, points: bool) -> Result<Series> {
        let id = self.id;
        let metric = &self.metric;
        let row = series_row(
            &self.kind,
            metric,
            &self.display,
            &self.unit,
            self.count,
            &self.stats,
            self.value,
        );
        let count = self.count.map(|c| c as u64);
        // JSON that does not parse says more than the checksum it also breaks.
        let stats = serde_json::from_str(&self.stats)
            .with_context(|| format!("stats of series {id} ({metric}) do not decode"))?;
        let corrupt = |e: codec::Corrupt| anyhow!("series {id} ({metric}): {e}");
        let ladder = |blob| {
            if points {
                codec::unpack_ladder(blob, &row)
            } else {
                codec::verify(blob, &row).map(|()| Vec::new())
            }
        };
        let data = match self.kind.as_str() {
            "ladder" => Data::Ladder {
                count,
                points: ladder(self.points).map_err(corrupt)?,
            },
            "histogram" => Data::Histogram {
                intervals,
                count,
                points: ladder(self.points).map_err(corrupt)?,
            },
            "timeseries" => Data::TimeSeries {
                points: if points {
                    codec::unpack_time_series(self.points, &row).map_err(corrupt)?
                } else {
                    codec::verify(self.points, &row).map_err(corrupt)?;
                    Vec::new()
                },
            },
            _ => {
                codec::verify_value(self.points, &row).map_err(corrupt)?;
                Data::Value { value: self.value }
            }
        };
        Ok(Series {
            metric: self.metric,
            display: self.display,
            unit: self.unit,
            data,
            stats,
        })
    }
}

/// The columns of a series row that its blob's checksum covers besides the blob itself
/// ([`codec`]): kind, metric, display name, unit, sample count, printed statistics as
/// stored, single value; each string length-prefixed so that no two rows give the same
/// bytes. A zero value counts as `0.0` and a value that is not finite as absent, as
/// SQLite may store them (an integral REAL as an integer, NaN as NULL).
pub fn series_row(
    kind: &str,
    metric: &str,
    display: &str,
    unit: &str,
    count: Option<i64>,
    stats: &str,
    value: Option<f64>,
) -> Vec<u8> {
    let mut out = Vec::with_capacity(64 + stats.len());
    for text in [kind, metric, display, unit, stats] {
        out.extend_from_slice(&(text.len() as u64).to_le_bytes());
        out.extend_from_slice(text.as_bytes());
    }
    match count {
        Some(c) => {
            out.push(1);
            out.extend_from_slice(&c.to_le_bytes());
        }
        None => out.push(0),
    }
    match value.filter(|v| v.is_finite()) {
        Some(v) => {
            out.push(1);
            let v = if v == 0.0 { 0.0f64 } else { v };
            out.extend_from_slice(&v.to_bits().to_le_bytes());
        }
        None => out.push(0),
    }
    out
}

/// What a series stores beside its row's names: sample count, printed statistics, single
/// value and packed points (with the checksum of the row), and how many points that is.
#[derive(Debug, Clone)]
pub struct SeriesValues {
    pub count: Option<i64>,
    /// `series.stats` ([`stats_json`]).
    pub stats: String,
    pub value: Option<f64>,
    pub points: Option<Vec<u8>>,
    pub stored: usize,
}

impl SeriesValues {
    /// The stored form of a series' data.
    pub fn of(s: &Series) -> serde_json::Result<SeriesValues> {
        let stored = point_count(&s.data);
        let stats = stats_json(s)?;
        let (count, value) = match &s.data {
            Data::Ladder { count, .. } | Data::Histogram { count, .. } => {
                (count.map(|c| c as i64), None)
            }
            Data::TimeSeries { .. } => (None, None),
            Data::Value { value } => (None, *value),
        };
        let row = series_row(
            s.kind(),
            &s.metric,
            &s.display,
            &s.unit,
            count,
            &stats,
            value,
        );
        let points = Some(match &s.data {
            Data::Ladder { points, .. } | Data::Histogram { points, .. } => {
                codec::ladder(points, Some(&row))
            }
            Data::TimeSeries { points } => codec::time_series(points, Some(&row)),
            Data::Value { .. } => codec::value(&row),
        });
        Ok(SeriesValues {
            count,
            stats,
            value,
            points,
            stored,
        })
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
        .with_context(|| format!("printed numbers of block {block_id} do not decode"))?;
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

/// True when no block has a run of another block between its first and last run
/// (the same SQL on both backends). Ids a removal left unused between them do not count:
/// a stream in id order still gives the block's runs together. Each block's id range is
/// read once through the primary key, so the work is one pass over the runs.
pub const CONTIGUOUS_SQL: &str = "SELECT NOT EXISTS (
    SELECT 1 FROM (SELECT block_id, MIN(id) AS lo, MAX(id) AS hi FROM run GROUP BY block_id) b
    JOIN run r ON r.id BETWEEN b.lo AND b.hi
    WHERE r.block_id <> b.block_id)";
