//! Reading runs back from SQLite: one query per selection (runs joined with their
//! series), streamed a run at a time; a source's blocks; the selection's dialect.

use super::SqliteStore;
use crate::dataset::StoredRun;
use crate::selector::HistoryKey;
use crate::store::filter::{Arg, Dialect, Filter};
use crate::store::rows::{
    BlockMeta, CONTIGUOUS_SQL, Damage, Detail, RunCols, SeriesCols, SourceRecord, indexed_key,
    printed_from_json,
};
use anyhow::Result;
use bench_db_parsers::{HistInterval, PrintedStat, Series};
use rusqlite::types::Value;

/// How SQLite spells a selection: `?` placeholders, lists bound one value each.
pub(super) struct Sqlite;

impl Dialect for Sqlite {
    fn placeholder(&self, _: usize, _: &Arg) -> String {
        "?".to_string()
    }
    fn id_among(&self, ids: &[i64], args: &mut Vec<Arg>) -> String {
        args.extend(ids.iter().map(|&i| Arg::Int(i)));
        format!("r.id IN ({})", vec!["?"; ids.len()].join(", "))
    }
    fn text_among(&self, column: &str, values: &[String], args: &mut Vec<Arg>) -> String {
        args.extend(values.iter().map(|v| Arg::Text(v.clone())));
        format!("{column} IN ({})", vec!["?"; values.len()].join(", "))
    }
}

/// The filter's `WHERE` clause and its values as SQLite binds them.
pub(super) fn where_clause(filter: &Filter) -> (String, Vec<Value>) {
    let (sql, args) = filter.where_clause(&Sqlite);
    (sql, values(args))
}

/// Bound values as SQLite binds them.
fn values(args: Vec<Arg>) -> Vec<Value> {
    args.into_iter()
        .map(|a| match a {
            Arg::Text(t) => Value::Text(t),
            Arg::Int(i) => Value::Integer(i),
            Arg::Ints(_) | Arg::Texts(_) => unreachable!("SQLite binds lists one value each"),
        })
        .collect()
}

const RUN_COLUMNS: &str =
    "r.id, r.suite, r.label, s.format, s.path, s.id, b.id, b.idx, s.ingested_at,
     r.run_index, r.first_line, r.last_line, r.params, r.tags";
const SERIES_COLUMNS: &str =
    "se.id, se.metric, se.display, se.unit, se.kind, se.sample_count, se.stats, se.value";
/// [`SERIES_COLUMNS`] of a run read without its series.
const NO_SERIES: &str = "NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL";

impl SqliteStore {
    pub(super) fn select_ids(&self, filter: &Filter) -> Result<Vec<i64>> {
        let (where_sql, args) = where_clause(filter);
        let sql = format!(
            "SELECT r.id FROM run r
             {where_sql} ORDER BY r.id"
        );
        let mut stmt = self.conn.prepare(&sql)?;
        let ids = stmt
            .query_map(rusqlite::params_from_iter(args), |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        Ok(ids)
    }

    pub(super) fn all_timed(&self) -> Result<bool> {
        Ok(self.conn.query_row(
            "SELECT NOT EXISTS (SELECT 1 FROM run WHERE at_ns IS NULL)",
            [],
            |r| r.get(0),
        )?)
    }

    /// Walks `run_recency` backwards, one row at a time.
    pub(super) fn recent(
        &self,
        filter: &Filter,
        f: &mut dyn FnMut(HistoryKey) -> bool,
    ) -> Result<()> {
        let (where_sql, args) = filter.walk_clause(&Sqlite);
        let args = values(args);
        let sql = format!(
            "SELECT r.id, r.at_ns, r.commit_tag FROM run r {where_sql}
             ORDER BY r.at_ns DESC, r.id DESC"
        );
        let mut stmt = self.conn.prepare(&sql)?;
        let mut rows = stmt.query(rusqlite::params_from_iter(args.iter()))?;
        while let Some(r) = rows.next()? {
            let go_on = f(indexed_key(r.get(0)?, r.get(1)?, r.get(2)?));
            if !go_on {
                break;
            }
        }
        Ok(())
    }

    /// Streams the runs the filter matches, in id order, one at a time, from one query
    /// (runs joined with their series); memory does not grow with the database. A run
    /// whose row or one of whose series does not decode goes to `damaged`, its other
    /// rows are skipped.
    pub(super) fn stream(
        &self,
        filter: &Filter,
        detail: Detail,
        f: &mut dyn FnMut(StoredRun) -> Result<()>,
        damaged: &mut dyn FnMut(Damage),
    ) -> Result<usize> {
        let (where_sql, args) = where_clause(filter);
        let printed_sql = if detail.printed() {
            "b.printed"
        } else {
            "'[]'"
        };
        // Without series, one row a run and no join (its columns read as NULL).
        let (columns, series_join, order) = if detail.series() {
            (
                format!("{RUN_COLUMNS}, {SERIES_COLUMNS}, se.points"),
                "LEFT JOIN series se ON se.run_id = r.id",
                "r.id, se.id",
            )
        } else {
            (format!("{RUN_COLUMNS}, {NO_SERIES}, NULL"), "", "r.id")
        };
        let sql = format!(
            "SELECT {columns}, {printed_sql}, r.bench, r.config
             FROM run r JOIN block b ON b.id = r.block_id JOIN source s ON s.id = b.source_id
             {series_join}
             {where_sql} ORDER BY {order}"
        );
        let mut stmt = self.conn.prepare(&sql)?;
        let mut rows = stmt.query(rusqlite::params_from_iter(args.iter()))?;
        // The block whose printed numbers were decoded last (runs come grouped by block).
        let mut printed: Option<(i64, Result<Vec<PrintedStat>, String>)> = None;
        let mut current = Current::None;
        let mut count = 0;
        while let Some(r) = rows.next()? {
            let id: i64 = r.get(0)?;
            if current.id() != Some(id) {
                if let Current::Run(done) = std::mem::take(&mut current) {
                    f(done)?;
                    count += 1;
                }
                let block_id: i64 = r.get(6)?;
                if printed.as_ref().is_none_or(|p| p.0 != block_id) {
                    let json = r.get::<_, String>(23).map_err(anyhow::Error::from);
                    let decoded = json
                        .and_then(|j| printed_from_json(&j, block_id))
                        .map_err(|e| format!("{e:#}"));
                    printed = Some((block_id, decoded));
                }
                let run = match printed.as_ref().map(|p| &p.1) {
                    Some(Err(e)) => Err(anyhow::anyhow!("{e}")),
                    Some(Ok(p)) => run_cols(r)
                        .map_err(anyhow::Error::from)
                        .and_then(|c| c.at(detail).decode(p.clone())),
                    None => unreachable!("set above"),
                };
                current = match run {
                    Ok(run) => Current::Run(run),
                    Err(e) => {
                        damaged(Damage::run(id, source_of(r), format!("{e:#}")));
                        Current::Damaged(id)
                    }
                };
            }
            let Current::Run(run) = &mut current else {
                continue;
            };
            let Some(series_id) = r.get::<_, Option<i64>>(14)? else {
                continue;
            };
            match self.series(r, series_id, detail) {
                Ok(series) => run.run.series.push(series),
                Err(e) => {
                    damaged(Damage::run(id, run.source.clone(), format!("{e:#}")));
                    current = Current::Damaged(id);
                }
            }
        }
        if let Current::Run(done) = current {
            f(done)?;
            count += 1;
        }
        Ok(count)
    }

    /// The series of a joined row.
    fn series(&self, r: &rusqlite::Row, series_id: i64, detail: Detail) -> Result<Series> {
        let kind: String = r.get(18)?;
        let intervals = if detail.points() && kind == "histogram" {
            self.load_histograms(series_id)?
        } else {
            Vec::new()
        };
        SeriesCols {
            id: series_id,
            metric: r.get(15)?,
            display: r.get(16)?,
            unit: r.get(17)?,
            kind,
            count: r.get(19)?,
            stats: r.get(20)?,
            value: r.get(21)?,
            points: r.get_ref(22)?.as_blob_or_null()?,
        }
        .decode(intervals, detail.points())
    }

    /// `PRAGMA integrity_check` (every page, every index against its table; not just
    /// `quick_check`): its complaints, none when it answers `ok`.
    pub(super) fn integrity(&self) -> Result<Vec<String>> {
        let mut stmt = self.conn.prepare("PRAGMA integrity_check")?;
        let rows: Vec<String> = stmt
            .query_map([], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        Ok(rows.into_iter().filter(|r| r != "ok").collect())
    }

    pub(super) fn blocks_contiguous(&self) -> Result<bool> {
        Ok(self.conn.query_row(CONTIGUOUS_SQL, [], |r| r.get(0))?)
    }

    /// One indexed lookup per hash (`source_content` leads with it).
    pub(super) fn sources_with_content(
        &self,
        sha256: &[String],
    ) -> Result<Vec<(String, i64, String)>> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT id, path FROM source WHERE sha256 = ?1")?;
        let mut out = Vec::new();
        for sha in sha256 {
            let rows = stmt.query_map([sha], |r| Ok((sha.clone(), r.get(0)?, r.get(1)?)))?;
            for row in rows {
                out.push(row?);
            }
        }
        out.sort_by_key(|r| r.1);
        Ok(out)
    }

    pub(super) fn source_blocks(&self, source_id: i64) -> Result<(SourceRecord, Vec<BlockMeta>)> {
        let record = self.conn.query_row(
            "SELECT path, sha256, bytes, format, parser, ingested_at, identity FROM source WHERE id = ?1",
            [source_id],
            |r| {
                Ok(SourceRecord {
                    path: r.get(0)?,
                    sha256: r.get(1)?,
                    bytes: r.get::<_, i64>(2)? as u64,
                    format: r.get(3)?,
                    parser: r.get(4)?,
                    ingested_at: r.get(5)?,
                    identity: r.get(6)?,
                })
            },
        )?;
        let mut stmt = self.conn.prepare(
            "SELECT id, idx, label, first_line, last_line FROM block WHERE source_id = ?1 ORDER BY idx, id",
        )?;
        let blocks = stmt
            .query_map([source_id], |r| {
                Ok(BlockMeta {
                    id: r.get(0)?,
                    idx: r.get(1)?,
                    label: r.get(2)?,
                    first_line: r.get::<_, i64>(3)? as u64,
                    last_line: r.get::<_, i64>(4)? as u64,
                })
            })?
            .collect::<rusqlite::Result<_>>()?;
        Ok((record, blocks))
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

/// The run being read from a stream of joined rows.
// One value per stream, never collected: boxing the run would allocate once per run.
#[allow(clippy::large_enum_variant)]
#[derive(Default)]
enum Current {
    #[default]
    None,
    Run(StoredRun),
    /// A run already reported as damaged: its remaining rows are skipped.
    Damaged(i64),
}

impl Current {
    fn id(&self) -> Option<i64> {
        match self {
            Current::None => None,
            Current::Run(r) => Some(r.id),
            Current::Damaged(id) => Some(*id),
        }
    }
}

/// A row's source path as far as it reads (text that is not UTF-8 shown lossily).
fn source_of(r: &rusqlite::Row) -> String {
    match r.get_ref(4) {
        Ok(v) => match v.as_bytes() {
            Ok(b) => String::from_utf8_lossy(b).into_owned(),
            Err(_) => "?".to_string(),
        },
        Err(_) => "?".to_string(),
    }
}

/// The run part of a joined row (columns 0..14, 24 and 25).
fn run_cols(r: &rusqlite::Row) -> rusqlite::Result<RunCols> {
    Ok(RunCols {
        id: r.get(0)?,
        suite: r.get(1)?,
        label: r.get(2)?,
        format: r.get(3)?,
        source: r.get(4)?,
        source_id: r.get(5)?,
        block_id: r.get(6)?,
        block_index: r.get(7)?,
        ingested_at: r.get(8)?,
        run_index: r.get(9)?,
        first_line: r.get(10)?,
        last_line: r.get(11)?,
        params: r.get(12)?,
        tags: r.get(13)?,
        bench: r.get(24)?,
        config: r.get(25)?,
    })
}
