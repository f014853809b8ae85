//! Reading runs back as [`StoredRun`]s, selected by a [`Selector`], streamed from one
//! query per selection; relabelling.

use super::{Store, pack};
use crate::dataset::StoredRun;
use crate::selector::{Selector, Term};
use anyhow::{Context, Result};
use bench_db_parsers::{Data, HistInterval, PrintedStat, Run, Series};
use rusqlite::types::Value;

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
}

const RUN_COLUMNS: &str =
    "r.id, r.suite, r.label, s.format, s.path, s.id, b.id, b.idx, s.ingested_at,
     r.run_index, r.first_line, r.last_line, r.params, r.tags,
     se.id, se.metric, se.display, se.unit, se.kind, se.sample_count, se.stats, se.value";

/// True when no block has a run of another block between its first and last run.
pub(super) const CONTIGUOUS_SQL: &str = "SELECT NOT EXISTS (
    SELECT 1 FROM run GROUP BY block_id HAVING MAX(id) - MIN(id) + 1 <> COUNT(*))";

impl Detail {
    /// Whether the series' points and histograms are loaded.
    pub fn points(self) -> bool {
        matches!(self, Detail::Points | Detail::Series)
    }

    /// Whether each run carries its block's printed numbers.
    pub fn printed(self) -> bool {
        matches!(self, Detail::Points)
    }
}

impl Store {
    /// The ids of the runs the selector matches, in id order.
    pub fn select_ids(&self, sel: &Selector) -> Result<Vec<i64>> {
        let (where_sql, args) = where_clause(sel);
        let sql = format!(
            "SELECT r.id FROM run r JOIN block b ON b.id = r.block_id JOIN source s ON s.id = b.source_id
             {where_sql} ORDER BY r.id"
        );
        let mut stmt = self.conn.prepare(&sql)?;
        let ids = stmt
            .query_map(rusqlite::params_from_iter(args), |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        Ok(ids)
    }

    /// Streams the runs the selector matches, in id order, one at a time, from one query
    /// (runs joined with their series); memory does not grow with the database.
    /// Returns how many runs were passed to `f`; an error from `f` stops the stream.
    pub fn for_each_run(
        &self,
        sel: &Selector,
        detail: Detail,
        mut f: impl FnMut(StoredRun) -> Result<()>,
    ) -> Result<usize> {
        if sel.post.is_empty() {
            return self.stream_runs(sel, detail, f);
        }
        // History terms (`latest=N`, …) need the whole selection: they narrow the runs'
        // heads first, then the runs they keep are streamed.
        let keep = self.post_filtered_ids(sel)?;
        let plain = sel.without_post();
        let mut n = 0;
        self.stream_runs(&plain, detail, |r| {
            if keep.contains(&r.id) {
                n += 1;
                f(r)
            } else {
                Ok(())
            }
        })?;
        Ok(n)
    }

    /// The ids of the runs the selector keeps after its history terms.
    fn post_filtered_ids(&self, sel: &Selector) -> Result<std::collections::HashSet<i64>> {
        let mut heads = Vec::new();
        self.stream_runs(&sel.without_post(), Detail::Heads, |r| {
            heads.push(post_head(r));
            Ok(())
        })?;
        Ok(sel.post_filter(heads).iter().map(|r| r.id).collect())
    }

    /// [`Store::for_each_run`] for the plain terms (the SQL part of a selector).
    fn stream_runs(
        &self,
        sel: &Selector,
        detail: Detail,
        mut f: impl FnMut(StoredRun) -> Result<()>,
    ) -> Result<usize> {
        let (where_sql, args) = where_clause(sel);
        let points = match detail {
            Detail::Points | Detail::Series => "se.points",
            Detail::Heads => "NULL",
        };
        let printed_sql = if detail.printed() {
            "b.printed"
        } else {
            "'[]'"
        };
        let sql = format!(
            "SELECT {RUN_COLUMNS}, {points}, {printed_sql}
             FROM run r JOIN block b ON b.id = r.block_id JOIN source s ON s.id = b.source_id
             LEFT JOIN series se ON se.run_id = r.id
             {where_sql} ORDER BY r.id, se.id"
        );
        let mut stmt = self.conn.prepare(&sql)?;
        let mut rows = stmt.query(rusqlite::params_from_iter(args.iter()))?;
        // The block whose printed numbers were loaded last (runs come grouped by block).
        let mut printed: Option<(i64, Vec<PrintedStat>)> = None;
        let mut current: Option<StoredRun> = None;
        let mut count = 0;
        while let Some(r) = rows.next()? {
            let id: i64 = r.get(0)?;
            if current.as_ref().is_none_or(|c| c.id != id) {
                if let Some(done) = current.take() {
                    f(done)?;
                    count += 1;
                }
                let block_id: i64 = r.get(6)?;
                if printed.as_ref().is_none_or(|p| p.0 != block_id) {
                    let json: String = r.get(23)?;
                    printed = Some((block_id, printed_from_json(&json, block_id)?));
                }
                let block_printed = printed.as_ref().map(|p| p.1.clone()).unwrap_or_default();
                current = Some(run_head(r, block_printed)?);
            }
            let Some(series_id) = r.get::<_, Option<i64>>(14)? else {
                continue;
            };
            let series = self.series_row(r, series_id, detail)?;
            current.as_mut().expect("set above").run.series.push(series);
        }
        if let Some(done) = current.take() {
            f(done)?;
            count += 1;
        }
        Ok(count)
    }

    /// Whether every block's runs have consecutive ids.
    pub fn blocks_contiguous(&self) -> Result<bool> {
        Ok(self.conn.query_row(CONTIGUOUS_SQL, [], |r| r.get(0))?)
    }

    /// Sets the label of the selected runs; returns how many changed.
    pub fn relabel(&mut self, sel: &Selector, label: &str) -> Result<usize> {
        if !sel.post.is_empty() {
            let ids: Vec<i64> = self.post_filtered_ids(sel)?.into_iter().collect();
            return self.relabel(&Selector::from_ids(ids), label);
        }
        let (where_sql, args) = where_clause(sel);
        let sql = format!(
            "UPDATE run SET label = ? WHERE id IN (
                SELECT r.id FROM run r JOIN block b ON b.id = r.block_id JOIN source s ON s.id = b.source_id
                {where_sql})"
        );
        let mut all = vec![Value::Text(label.to_string())];
        all.extend(args);
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let n = tx.execute(&sql, rusqlite::params_from_iter(all))?;
        tx.commit()?;
        Ok(n)
    }

    /// The series of one joined row (columns 14..).
    fn series_row(&self, r: &rusqlite::Row, id: i64, detail: Detail) -> Result<Series> {
        let kind: String = r.get(18)?;
        let count = r.get::<_, Option<i64>>(19)?.map(|c| c as u64);
        let stats: String = r.get(20)?;
        let value: Option<f64> = r.get(21)?;
        let blob = r.get_ref(22)?.as_blob_or_null()?;
        let bad = |e: pack::Corrupt| anyhow::anyhow!("series {id}: {e}");
        let data = match kind.as_str() {
            "ladder" => Data::Ladder {
                count,
                points: pack::unpack_ladder(blob).map_err(bad)?,
            },
            "histogram" => Data::Histogram {
                intervals: match detail {
                    Detail::Points | Detail::Series => self.load_histograms(id)?,
                    Detail::Heads => Vec::new(),
                },
                count,
                points: pack::unpack_ladder(blob).map_err(bad)?,
            },
            "timeseries" => Data::TimeSeries {
                points: pack::unpack_time_series(blob).map_err(bad)?,
            },
            _ => Data::Value { value },
        };
        Ok(Series {
            metric: r.get(15)?,
            display: r.get(16)?,
            unit: r.get(17)?,
            data,
            stats: serde_json::from_str(&stats)
                .with_context(|| format!("series {id}: bad stats"))?,
        })
    }

    fn load_histograms(&self, series_id: i64) -> Result<Vec<HistInterval>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT t, duration, tag, encoded FROM histogram WHERE series_id = ?1 ORDER BY idx",
        )?;
        let rows = stmt.query_map([series_id], |r| {
            Ok(HistInterval {
                t: r.get(0)?,
                duration: r.get(1)?,
                tag: r.get(2)?,
                encoded: r.get(3)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}

/// What the history terms judge a run by (id, tags, ingest time), without its series
/// and parameters, so a whole selection's heads stay small.
pub(super) fn post_head(mut r: StoredRun) -> StoredRun {
    r.run.series = Vec::new();
    r.run.params = Default::default();
    r
}

/// The printed numbers of a block, as stored in `block.printed` (see
/// [`printed_to_json`]).
pub(super) fn printed_from_json(json: &str, block_id: i64) -> Result<Vec<PrintedStat>> {
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
pub(super) fn printed_to_json(stats: &[PrintedStat]) -> serde_json::Result<String> {
    let rows: Vec<(&str, Option<f64>, &str, Option<f64>)> = stats
        .iter()
        .map(|p| (p.metric.as_str(), p.percentile, p.name.as_str(), p.value))
        .collect();
    serde_json::to_string(&rows)
}

/// The run part of a joined row (columns 0..14), without series yet.
fn run_head(r: &rusqlite::Row, printed: Vec<PrintedStat>) -> Result<StoredRun> {
    let id: i64 = r.get(0)?;
    let params: String = r.get(12)?;
    let tags: String = r.get(13)?;
    Ok(StoredRun {
        id,
        suite: r.get(1)?,
        label: r.get(2)?,
        format: r.get(3)?,
        source: r.get(4)?,
        source_id: r.get(5)?,
        block_id: r.get(6)?,
        block_index: r.get(7)?,
        ingested_at: r.get(8)?,
        run: Run {
            index: r.get(9)?,
            first_line: r.get::<_, i64>(10)? as u64,
            last_line: r.get::<_, i64>(11)? as u64,
            params: serde_json::from_str(&params)
                .with_context(|| format!("run {id}: bad params"))?,
            tags: serde_json::from_str(&tags).with_context(|| format!("run {id}: bad tags"))?,
            series: Vec::new(),
        },
        printed,
    })
}

/// `WHERE …` for a selector (empty for none) and its bound values.
fn where_clause(sel: &Selector) -> (String, Vec<Value>) {
    let mut conds = Vec::new();
    let mut args: Vec<Value> = Vec::new();
    for term in &sel.terms {
        match term {
            Term::Label(v) => {
                conds.push("r.label = ?".to_string());
                args.push(Value::Text(v.clone()));
            }
            Term::Suite(v) => {
                conds.push("r.suite = ?".to_string());
                args.push(Value::Text(v.clone()));
            }
            Term::Source(v) => {
                conds.push("s.path = ?".to_string());
                args.push(Value::Text(v.clone()));
            }
            Term::Tag(k, v) => {
                // JSON path with the key quoted, so keys with dots or spaces work.
                conds.push("json_extract(r.tags, ?) = ?".to_string());
                args.push(Value::Text(format!("$.\"{}\"", k.replace('"', "\\\""))));
                args.push(Value::Text(v.clone()));
            }
            Term::Runs(ids) => {
                let marks = vec!["?"; ids.len()].join(", ");
                conds.push(format!("r.id IN ({marks})"));
                args.extend(ids.iter().map(|&i| Value::Integer(i)));
            }
        }
    }
    if conds.is_empty() {
        (String::new(), args)
    } else {
        (format!("WHERE {}", conds.join(" AND ")), args)
    }
}
