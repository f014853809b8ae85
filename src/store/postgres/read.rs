//! Reading runs back from PostgreSQL: one query per selection (runs joined with their
//! series), streamed and decoded a row at a time as the server sends it; the walk of the
//! recency index, a page per query; a source's blocks; the selection's dialect. Every
//! query goes out with its values' types, in one round trip (no prepare first).

use super::PgStore;
use crate::dataset::StoredRun;
use crate::selector::HistoryKey;
use crate::store::filter::{Arg, Dialect, Filter};
use crate::store::rows::{
    BlockMeta, Damage, Detail, RunCols, SeriesCols, SourceRecord, indexed_key, printed_from_json,
};
use anyhow::Result;
use bench_db_parsers::{HistInterval, PrintedStat, Series};
use postgres::Row;
use postgres::fallible_iterator::FallibleIterator;
use postgres::types::{ToSql, Type};

/// Rows of [`PgStore::recent`]'s first query: a `latest=10` over a CI history needs
/// about 165 (each row read costs the walk a probe of the tag index: 1,024 rows took
/// 4.5 ms on a 100k-run history, where the gate's whole read takes about 10).
const RECENT_ROWS: i64 = 256;

/// How PostgreSQL spells a selection: numbered, typed placeholders, lists bound as arrays.
struct Postgres;

impl Dialect for Postgres {
    fn placeholder(&self, n: usize, arg: &Arg) -> String {
        match arg {
            Arg::Text(_) => format!("${n}::text"),
            Arg::Int(_) => format!("${n}::bigint"),
            Arg::Ints(_) => format!("${n}::bigint[]"),
            Arg::Texts(_) => format!("${n}::text[]"),
        }
    }
    fn id_among(&self, ids: &[i64], args: &mut Vec<Arg>) -> String {
        let a = Arg::Ints(ids.to_vec());
        let p = self.placeholder(args.len() + 1, &a);
        args.push(a);
        format!("r.id = ANY({p})")
    }
    fn text_among(&self, column: &str, values: &[String], args: &mut Vec<Arg>) -> String {
        let a = Arg::Texts(values.to_vec());
        let p = self.placeholder(args.len() + 1, &a);
        args.push(a);
        format!("{column} = ANY({p})")
    }
}

impl PgStore {
    pub(super) fn select_ids(&self, filter: &Filter) -> Result<Vec<i64>> {
        let (where_sql, args) = filter.where_clause(&Postgres);
        let sql = format!(
            "SELECT r.id FROM run r
             {where_sql} ORDER BY r.id"
        );
        let mut c = self.client.borrow_mut();
        let rows = c
            .query_typed(&sql, &typed_refs(&args))
            .map_err(|e| self.err(e))?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }

    /// Calls `f` with every run the filter matches, in id order, from one query (runs
    /// joined with their series, as the SQLite reader reads them) whose rows are decoded
    /// as they arrive: the server produces rows while the client decodes the ones before,
    /// and memory holds one run. A run whose row or one of whose series does not decode
    /// goes to `damaged`; returns how many runs were passed to `f`.
    pub(super) fn stream(
        &self,
        filter: &Filter,
        detail: Detail,
        f: &mut dyn FnMut(StoredRun) -> Result<()>,
        damaged: &mut dyn FnMut(Damage),
    ) -> Result<usize> {
        let (where_sql, args) = filter.where_clause(&Postgres);
        let sql = stream_sql(&where_sql, detail);
        let mut c = self.client.borrow_mut();
        let mut rows = c
            .query_typed_raw(&sql, typed_refs(&args))
            .map_err(|e| self.err(e))?;
        let mut reader = RunReader::new(detail);
        let mut count = 0;
        while let Some(r) = rows.next().map_err(|e| self.err(e))? {
            if let Some(done) = reader.row(&r, damaged) {
                f(done)?;
                count += 1;
            }
        }
        if let Some(done) = reader.finish(damaged) {
            f(done)?;
            count += 1;
        }
        Ok(count)
    }

    pub(super) fn all_timed(&self) -> Result<bool> {
        let mut c = self.client.borrow_mut();
        let rows = c
            .query_typed(
                "SELECT NOT EXISTS (SELECT 1 FROM run WHERE at_ns IS NULL)",
                &[],
            )
            .map_err(|e| self.err(e))?;
        Ok(one(&rows)?.get(0))
    }

    /// Walks `run_recency` backwards: the first [`RECENT_ROWS`] rows, then, while `f` asks
    /// for more, eight times as many (a `LIMIT` lets the planner walk the index and stop).
    /// Each page goes on after the last key the one before it gave, so no transaction
    /// holds the pages together (one round trip a page): a run written between two
    /// pages is neither read twice nor makes the walk skip one.
    pub(super) fn recent(
        &self,
        filter: &Filter,
        f: &mut dyn FnMut(HistoryKey) -> bool,
    ) -> Result<()> {
        let (where_sql, args) = filter.walk_clause(&Postgres);
        let n = args.len();
        let walk = |conds: &str, limit: usize| {
            format!(
                "SELECT r.id, r.at_ns, r.commit_tag FROM run r {conds}
                 ORDER BY r.at_ns DESC, r.id DESC LIMIT ${limit}::bigint"
            )
        };
        let first = walk(&where_sql, n + 1);
        let after = (n + 1, n + 2);
        let after = format!(
            "(r.at_ns, r.id) < (${}::bigint, ${}::bigint)",
            after.0, after.1
        );
        let next = if where_sql.is_empty() {
            walk(&format!("WHERE {after}"), n + 3)
        } else {
            walk(&format!("{where_sql} AND {after}"), n + 3)
        };
        let mut c = self.client.borrow_mut();
        let mut rows_asked = RECENT_ROWS;
        let mut last: Option<(i64, i64)> = None;
        loop {
            let mut params = typed_refs(&args);
            let rows = match &last {
                None => {
                    params.push((&rows_asked, Type::INT8));
                    c.query_typed(&first, &params)
                }
                Some((at_ns, id)) => {
                    params.extend([
                        (at_ns as &(dyn ToSql + Sync), Type::INT8),
                        (id, Type::INT8),
                        (&rows_asked, Type::INT8),
                    ]);
                    c.query_typed(&next, &params)
                }
            }
            .map_err(|e| self.err(e))?;
            let all = (rows.len() as i64) < rows_asked;
            for r in &rows {
                let (id, at_ns) = (r.get(0), r.get(1));
                last = Some((at_ns, id));
                if !f(indexed_key(id, at_ns, r.get(2))) {
                    return Ok(());
                }
            }
            if all {
                return Ok(());
            }
            rows_asked *= 8;
        }
    }

    /// [`CONTIGUOUS_SQL`](crate::store::rows::CONTIGUOUS_SQL)'s answer in one pass over the runs in id order: a block whose
    /// runs have another block's run among them starts twice in that order (a run whose
    /// block is not the previous run's starts one), and a block that starts twice has
    /// another block's run between two of its own. PostgreSQL reads that pass in 0.14 s
    /// on a 100k-run history, the shared SQL (a probe of the primary key per block) in
    /// 0.24 s, before any run of a `history` is read.
    pub(super) fn blocks_contiguous(&self) -> Result<bool> {
        let mut c = self.client.borrow_mut();
        let rows = c
            .query_typed(
                "SELECT NOT EXISTS (
                    SELECT 1 FROM (
                        SELECT block_id,
                               block_id IS DISTINCT FROM lag(block_id) OVER (ORDER BY id) AS starts
                        FROM run) r
                    WHERE starts GROUP BY block_id HAVING count(*) > 1)",
                &[],
            )
            .map_err(|e| self.err(e))?;
        Ok(one(&rows)?.get(0))
    }

    /// One query for all the hashes.
    pub(super) fn sources_with_content(
        &self,
        sha256: &[String],
    ) -> Result<Vec<(String, i64, String)>> {
        let rows = self
            .client
            .borrow_mut()
            .query(
                "SELECT sha256, id, path FROM source WHERE sha256 = ANY($1::text[]) ORDER BY id",
                &[&sha256],
            )
            .map_err(|e| self.err(e))?;
        Ok(rows
            .iter()
            .map(|r| (r.get(0), r.get(1), r.get(2)))
            .collect())
    }

    pub(super) fn source_blocks(&self, source_id: i64) -> Result<(SourceRecord, Vec<BlockMeta>)> {
        let mut c = self.client.borrow_mut();
        let row = c
            .query_one(
                "SELECT path, sha256, bytes, format, parser, ingested_at, identity FROM source WHERE id = $1",
                &[&source_id],
            )
            .map_err(|e| self.err(e))?;
        let record = SourceRecord {
            path: row.get(0),
            sha256: row.get(1),
            bytes: row.get::<_, i64>(2) as u64,
            format: row.get(3),
            parser: row.get(4),
            ingested_at: row.get(5),
            identity: row.get(6),
        };
        let blocks = c
            .query(
                "SELECT id, idx, label, first_line, last_line FROM block WHERE source_id = $1 ORDER BY idx, id",
                &[&source_id],
            )
            .map_err(|e| self.err(e))?
            .into_iter()
            .map(|r| BlockMeta {
                id: r.get(0),
                idx: r.get(1),
                label: r.get(2),
                first_line: r.get::<_, i64>(3) as u64,
                last_line: r.get::<_, i64>(4) as u64,
            })
            .collect();
        Ok((record, blocks))
    }
}

/// The one query of [`PgStore::stream`]: a row per series (one per run without series),
/// ordered by run; the columns [`RunReader`] reads by position. A run's series come in
/// any order and are put in id order by the reader: ordering them in SQL would cost the
/// server a sort of every row (nearly half its time on a 100k-run history), as no index
/// holds series by run and id. Without series there is no join; without printed numbers
/// or histograms their columns are NULL and not read. A histogram's intervals come as
/// four arrays, read for histograms only.
fn stream_sql(where_sql: &str, detail: Detail) -> String {
    let printed = if detail.printed() {
        "b.printed"
    } else {
        "NULL::text"
    };
    let (series, join) = if detail.series() {
        (
            ", se.id, se.metric, se.display, se.unit, se.kind, se.sample_count, se.stats, \
             se.value, se.points",
            "LEFT JOIN series se ON se.run_id = r.id",
        )
    } else {
        ("", "")
    };
    let hist = |column: &str| {
        format!(
            ", CASE WHEN se.kind = 'histogram' THEN ARRAY(SELECT h.{column} FROM histogram h \
             WHERE h.series_id = se.id ORDER BY h.idx) END"
        )
    };
    let hists = if detail.points() {
        ["t", "duration", "tag", "encoded"].map(hist).concat()
    } else {
        String::new()
    };
    // A bare run goes without its parameters and configuration keys (see
    // `RunCols::at`): not sent at all, the most of a bare row's bytes.
    let (params, config) = if detail == Detail::Bare {
        ("'{}'::text", "'[]'::text")
    } else {
        ("r.params", "r.config")
    };
    format!(
        "SELECT r.id, r.suite, r.label, s.format, s.path, s.id, b.id, b.idx, s.ingested_at,
                r.run_index, r.first_line, r.last_line, {params}, r.tags, {printed}, r.bench,
                {config}{series}{hists}
         FROM run r JOIN block b ON b.id = r.block_id JOIN source s ON s.id = b.source_id
         {join}
         {where_sql} ORDER BY r.id"
    )
}

/// Builds runs from the rows of [`stream_sql`], in order: a run is complete when the
/// next run's first row (or the end) arrives.
struct RunReader {
    detail: Detail,
    /// The block whose printed numbers were decoded last (runs come grouped by block),
    /// and the numbers or what does not decode in them.
    printed: Option<(i64, Result<Vec<PrintedStat>, String>)>,
    current: Current,
    /// The series of the current run read so far, with their ids.
    series: Vec<(i64, Series)>,
}

/// The run being read.
// One value per stream, never collected: boxing the run would allocate once per run.
#[allow(clippy::large_enum_variant)]
enum Current {
    None,
    Run(StoredRun),
    /// A run that does not decode, reported when its last row has been read: what of its
    /// first series (by id) that does not decode, or else what of its own row.
    Damaged {
        id: i64,
        source: String,
        row: Option<String>,
        series: Option<(i64, String)>,
    },
}

impl Current {
    fn id(&self) -> Option<i64> {
        match self {
            Current::None => None,
            Current::Run(r) => Some(r.id),
            Current::Damaged { id, .. } => Some(*id),
        }
    }
}

impl RunReader {
    fn new(detail: Detail) -> RunReader {
        RunReader {
            detail,
            printed: None,
            current: Current::None,
            series: Vec::new(),
        }
    }

    /// Reads one row; returns the run before it when this row starts another.
    fn row(&mut self, r: &Row, damaged: &mut dyn FnMut(Damage)) -> Option<StoredRun> {
        let id: i64 = r.get(0);
        let mut done = None;
        if self.current.id() != Some(id) {
            done = self.finish(damaged);
            self.current = self.head(id, r);
        }
        if !self.detail.series() {
            return done;
        }
        let Some(series_id) = r.get::<_, Option<i64>>(17) else {
            return done;
        };
        let e = match series(r, series_id, self.detail) {
            Ok(s) => {
                if matches!(self.current, Current::Run(_)) {
                    self.series.push((series_id, s));
                }
                return done;
            }
            Err(e) => format!("{e:#}"),
        };
        match &mut self.current {
            Current::Run(run) => {
                self.series.clear();
                self.current = Current::Damaged {
                    id,
                    source: std::mem::take(&mut run.source),
                    row: None,
                    series: Some((series_id, e)),
                };
            }
            Current::Damaged { series, .. } => {
                if series.as_ref().is_none_or(|(first, _)| series_id < *first) {
                    *series = Some((series_id, e));
                }
            }
            Current::None => unreachable!("a row's run is read before its series"),
        }
        done
    }

    /// The run read last, now complete (reported to `damaged` instead when it does not
    /// decode).
    fn finish(&mut self, damaged: &mut dyn FnMut(Damage)) -> Option<StoredRun> {
        match std::mem::replace(&mut self.current, Current::None) {
            Current::None => None,
            Current::Run(mut run) => {
                if !self.series.is_sorted_by_key(|s| s.0) {
                    self.series.sort_unstable_by_key(|s| s.0);
                }
                run.run.series = self.series.drain(..).map(|s| s.1).collect();
                Some(run)
            }
            Current::Damaged {
                id,
                source,
                row,
                series,
            } => {
                let what = series.map(|s| s.1).or(row).unwrap_or_default();
                damaged(Damage::run(id, source, what));
                None
            }
        }
    }

    /// The run of a row that starts one, without its series yet.
    fn head(&mut self, id: i64, r: &Row) -> Current {
        let block_id: i64 = r.get(6);
        let printed = if self.detail.printed() {
            if self.printed.as_ref().is_none_or(|p| p.0 != block_id) {
                let decoded = printed_from_json(r.get(14), block_id).map_err(|e| format!("{e:#}"));
                self.printed = Some((block_id, decoded));
            }
            match self.printed.as_ref().map(|p| &p.1) {
                Some(Ok(p)) => Ok(p.clone()),
                Some(Err(e)) => Err(anyhow::anyhow!("{e}")),
                None => unreachable!("set above"),
            }
        } else {
            Ok(Vec::new())
        };
        let source: String = r.get(4);
        let run = printed.and_then(|printed| {
            RunCols {
                id,
                suite: r.get(1),
                label: r.get(2),
                format: r.get(3),
                source: source.clone(),
                source_id: r.get(5),
                block_id,
                block_index: r.get(7),
                ingested_at: r.get(8),
                run_index: r.get(9),
                first_line: r.get(10),
                last_line: r.get(11),
                params: r.get(12),
                tags: r.get(13),
                bench: r.get(15),
                config: r.get(16),
            }
            .at(self.detail)
            .decode(printed)
        });
        match run {
            Ok(run) => Current::Run(run),
            Err(e) => Current::Damaged {
                id,
                source,
                row: Some(format!("{e:#}")),
                series: None,
            },
        }
    }
}

/// The series of a row (columns 17…25, and the histogram arrays 26…29 when the points
/// are read).
fn series(r: &Row, id: i64, detail: Detail) -> Result<Series> {
    let kind: String = r.get(21);
    let intervals = if detail.points() && kind == "histogram" {
        let t: Vec<Option<f64>> = r.get(26);
        let duration: Vec<Option<f64>> = r.get(27);
        let tag: Vec<Option<String>> = r.get(28);
        let encoded: Vec<Vec<u8>> = r.get(29);
        t.into_iter()
            .zip(duration)
            .zip(tag)
            .zip(encoded)
            .map(|(((t, duration), tag), encoded)| HistInterval {
                t,
                duration,
                tag,
                encoded,
            })
            .collect()
    } else {
        Vec::new()
    };
    SeriesCols {
        id,
        metric: r.get(18),
        display: r.get(19),
        unit: r.get(20),
        kind,
        count: r.get(22),
        stats: r.get(23),
        value: r.get(24),
        points: r.get(25),
    }
    .decode(intervals, detail.points())
}

/// Bound values with their types, so that a query goes out with its values in one round
/// trip (no prepare first).
fn typed_refs(args: &[Arg]) -> Vec<(&(dyn ToSql + Sync), Type)> {
    args.iter()
        .map(|a| -> (&(dyn ToSql + Sync), Type) {
            match a {
                Arg::Text(t) => (t, Type::TEXT),
                Arg::Int(i) => (i, Type::INT8),
                Arg::Ints(v) => (v, Type::INT8_ARRAY),
                Arg::Texts(v) => (v, Type::TEXT_ARRAY),
            }
        })
        .collect()
}

/// The row of a query that returns exactly one (a `SELECT` of an aggregate or `EXISTS`).
fn one(rows: &[Row]) -> Result<&Row> {
    rows.first()
        .ok_or_else(|| anyhow::anyhow!("PostgreSQL returned no row where one was due"))
}
