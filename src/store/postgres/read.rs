//! Reading runs back from PostgreSQL, a bounded chunk of runs at a time, inside one
//! `REPEATABLE READ READ ONLY` transaction (a consistent snapshot that writes nothing).
//! Each chunk costs three queries whatever its size, not one per run or series.

use super::PgStore;
use crate::dataset::StoredRun;
use crate::selector::HistoryKey;
use crate::store::filter::{Arg, Dialect, Filter};
use crate::store::rows::{
    BlockMeta, CONTIGUOUS_SQL, Damage, Detail, RunCols, SeriesCols, SourceRecord, indexed_key,
    printed_from_json,
};
use anyhow::Result;
use bench_db_parsers::{HistInterval, Series};
use postgres::GenericClient;
use postgres::types::ToSql;
use std::collections::HashMap;

/// Runs loaded per round of queries.
const CHUNK: usize = 4_000;
/// Rows of [`PgStore::recent`]'s first query: a `latest=10` over a CI history needs
/// about 165.
const RECENT_ROWS: i64 = 1_024;

type Args = Vec<Box<dyn ToSql + Sync>>;

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
        let mut c = self.client.borrow_mut();
        select_ids(&mut *c, filter).map_err(|e| self.err(e))
    }

    /// Calls `f` with every run the filter matches, in id order, holding one chunk of
    /// runs in memory at a time; returns how many runs were passed to `f`.
    pub(super) fn stream(
        &self,
        filter: &Filter,
        detail: Detail,
        f: &mut dyn FnMut(StoredRun) -> Result<()>,
        damaged: &mut dyn FnMut(Damage),
    ) -> Result<usize> {
        let mut c = self.client.borrow_mut();
        let mut tx = snapshot(&mut c).map_err(|e| self.err(e))?;
        let ids = select_ids(&mut tx, filter).map_err(|e| self.err(e))?;
        let mut count = 0;
        for chunk in ids.chunks(CHUNK) {
            for run in load_chunk(&mut tx, chunk, detail, |e| self.err(e), damaged)? {
                f(run)?;
                count += 1;
            }
        }
        tx.commit().map_err(|e| self.err(e))?;
        Ok(count)
    }

    pub(super) fn all_timed(&self) -> Result<bool> {
        let mut c = self.client.borrow_mut();
        let row = c
            .query_one(
                "SELECT NOT EXISTS (SELECT 1 FROM run WHERE at_ns IS NULL)",
                &[],
            )
            .map_err(|e| self.err(e))?;
        Ok(row.get(0))
    }

    /// Walks `run_recency` backwards: the first [`RECENT_ROWS`] rows, then, while `f` asks
    /// for more, eight times as many (a `LIMIT` lets the planner walk the index and stop).
    pub(super) fn recent(
        &self,
        filter: &Filter,
        f: &mut dyn FnMut(HistoryKey) -> bool,
    ) -> Result<()> {
        let (where_sql, args) = filter.walk_clause(&Postgres);
        let args = bind(args);
        let limit = args.len() + 1;
        let sql = format!(
            "SELECT r.id, r.at_ns, r.commit_tag FROM run r {where_sql}
             ORDER BY r.at_ns DESC, r.id DESC LIMIT ${limit}::bigint"
        );
        let mut c = self.client.borrow_mut();
        let mut tx = snapshot(&mut c).map_err(|e| self.err(e))?;
        let (mut fed, mut rows_asked) = (0usize, RECENT_ROWS);
        loop {
            let mut refs: Vec<&(dyn ToSql + Sync)> = args.iter().map(|a| a.as_ref()).collect();
            refs.push(&rows_asked);
            let rows = tx.query(&sql, &refs).map_err(|e| self.err(e))?;
            let all = (rows.len() as i64) < rows_asked;
            for r in rows.iter().skip(fed) {
                fed += 1;
                let go_on = f(indexed_key(r.get(0), r.get(1), r.get(2)));
                if !go_on {
                    return tx.commit().map_err(|e| self.err(e));
                }
            }
            if all {
                return tx.commit().map_err(|e| self.err(e));
            }
            rows_asked *= 8;
        }
    }

    pub(super) fn blocks_contiguous(&self) -> Result<bool> {
        let mut c = self.client.borrow_mut();
        let row = c.query_one(CONTIGUOUS_SQL, &[]).map_err(|e| self.err(e))?;
        Ok(row.get(0))
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

/// A `REPEATABLE READ READ ONLY` transaction: every query of one read sees one snapshot.
fn snapshot(c: &mut postgres::Client) -> Result<postgres::Transaction<'_>, postgres::Error> {
    c.build_transaction()
        .isolation_level(postgres::IsolationLevel::RepeatableRead)
        .read_only(true)
        .start()
}

fn select_ids(c: &mut impl GenericClient, filter: &Filter) -> Result<Vec<i64>, postgres::Error> {
    let (where_sql, args) = where_clause(filter);
    let sql = format!(
        "SELECT r.id FROM run r
         {where_sql} ORDER BY r.id"
    );
    let refs: Vec<&(dyn ToSql + Sync)> = args.iter().map(|a| a.as_ref()).collect();
    Ok(c.query(&sql, &refs)?.iter().map(|r| r.get(0)).collect())
}

/// The runs with these ids (ascending), with series, points, histograms and the printed
/// statistics of their blocks; with [`Detail::Heads`], only the single values of the
/// points (the packed points read to verify their checksum) and no histogram. A run that does not decode goes to `damaged`, not the result.
fn load_chunk(
    c: &mut impl GenericClient,
    ids: &[i64],
    detail: Detail,
    err: impl Fn(postgres::Error) -> anyhow::Error,
    damaged: &mut dyn FnMut(Damage),
) -> Result<Vec<StoredRun>> {
    let ids = ids.to_vec();
    let heads = c
        .query(
            "SELECT r.id, r.suite, r.label, s.format, s.path, s.id, b.id, b.idx, s.ingested_at,
                    r.run_index, r.first_line, r.last_line, r.params, r.tags,
                    CASE WHEN $2 THEN b.printed ELSE '[]' END, r.bench, r.config
             FROM run r JOIN block b ON b.id = r.block_id JOIN source s ON s.id = b.source_id
             WHERE r.id = ANY($1) ORDER BY r.id",
            &[&ids, &detail.printed()],
        )
        .map_err(&err)?;
    let series_rows = c
        .query(
            "SELECT id, run_id, metric, display, unit, kind, sample_count, stats, value, points
             FROM series WHERE run_id = ANY($1) AND $2 ORDER BY run_id, id",
            &[&ids, &detail.series()],
        )
        .map_err(&err)?;
    let mut hists: HashMap<i64, Vec<HistInterval>> = HashMap::new();
    for r in c
        .query(
            "SELECT h.series_id, h.t, h.duration, h.tag, h.encoded
             FROM histogram h JOIN series se ON se.id = h.series_id
             WHERE se.run_id = ANY($1) AND $2 ORDER BY h.series_id, h.idx",
            &[&ids, &detail.points()],
        )
        .map_err(&err)?
    {
        hists.entry(r.get(0)).or_default().push(HistInterval {
            t: r.get(1),
            duration: r.get(2),
            tag: r.get(3),
            encoded: r.get(4),
        });
    }
    let mut series: HashMap<i64, Vec<Series>> = HashMap::new();
    // The first series of a run that does not decode, by run id.
    let mut bad: HashMap<i64, String> = HashMap::new();
    for r in &series_rows {
        let id: i64 = r.get(0);
        let run_id: i64 = r.get(1);
        if bad.contains_key(&run_id) {
            continue;
        }
        let points: Option<&[u8]> = r.get(9);
        let s = SeriesCols {
            id,
            metric: r.get(2),
            display: r.get(3),
            unit: r.get(4),
            kind: r.get(5),
            count: r.get(6),
            stats: r.get(7),
            value: r.get(8),
            points,
        }
        .decode(hists.remove(&id).unwrap_or_default(), detail.points());
        match s {
            Ok(s) => series.entry(run_id).or_default().push(s),
            Err(e) => {
                bad.insert(run_id, format!("{e:#}"));
            }
        }
    }
    let mut out = Vec::with_capacity(heads.len());
    for r in &heads {
        let id: i64 = r.get(0);
        let block_id: i64 = r.get(6);
        let source: String = r.get(4);
        if let Some(what) = bad.remove(&id) {
            damaged(Damage::run(id, source, what));
            continue;
        }
        let printed: String = r.get(14);
        let printed = if detail.printed() {
            printed_from_json(&printed, block_id)
        } else {
            Ok(Vec::new())
        };
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
            .at(detail)
            .decode(printed)
        });
        match run {
            Ok(mut run) => {
                run.run.series = series.remove(&id).unwrap_or_default();
                out.push(run);
            }
            Err(e) => damaged(Damage::run(id, source, format!("{e:#}"))),
        }
    }
    Ok(out)
}

/// The filter's `WHERE` clause, numbered `$1…`, and its values as the client binds them.
fn where_clause(filter: &Filter) -> (String, Args) {
    let (sql, args) = filter.where_clause(&Postgres);
    (sql, bind(args))
}

/// Bound values as the client binds them.
fn bind(args: Vec<Arg>) -> Args {
    args.into_iter()
        .map(|a| -> Box<dyn ToSql + Sync> {
            match a {
                Arg::Text(t) => Box::new(t),
                Arg::Int(i) => Box::new(i),
                Arg::Ints(v) => Box::new(v),
                Arg::Texts(v) => Box::new(v),
            }
        })
        .collect()
}
