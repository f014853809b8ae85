//! Reading runs back from PostgreSQL, a bounded chunk of runs at a time, inside one
//! `REPEATABLE READ READ ONLY` transaction (a consistent snapshot that writes nothing).
//! Each chunk costs three queries whatever its size, not one per run or series.

use super::PgStore;
use crate::dataset::StoredRun;
use crate::selector::{Selector, Term};
use crate::store::Detail;
use crate::store::copy::{BlockMeta, SourceRecord};
use crate::store::pack;
use crate::store::query::{CONTIGUOUS_SQL, post_head, printed_from_json};
use anyhow::{Context, Result};
use bench_db_parsers::{Data, HistInterval, Run, Series};
use postgres::GenericClient;
use postgres::types::ToSql;
use std::collections::HashMap;

/// Runs loaded per round of queries.
const CHUNK: usize = 1_000;

type Args = Vec<Box<dyn ToSql + Sync>>;

impl PgStore {
    /// The ids of the runs the selector matches, in id order.
    pub fn select_ids(&self, sel: &Selector) -> Result<Vec<i64>> {
        let mut c = self.client.borrow_mut();
        select_ids(&mut *c, sel).map_err(|e| self.err(e))
    }

    /// Calls `f` with every run the selector matches, in id order, holding one chunk of
    /// runs in memory at a time; returns how many runs were passed to `f`.
    pub fn for_each_run(
        &self,
        sel: &Selector,
        detail: Detail,
        mut f: impl FnMut(StoredRun) -> Result<()>,
    ) -> Result<usize> {
        let mut c = self.client.borrow_mut();
        let mut tx = c
            .build_transaction()
            .isolation_level(postgres::IsolationLevel::RepeatableRead)
            .read_only(true)
            .start()
            .map_err(|e| self.err(e))?;
        let mut ids = select_ids(&mut tx, sel).map_err(|e| self.err(e))?;
        if !sel.post.is_empty() {
            // History terms (`latest=N`, …) judge the whole selection: they narrow the
            // runs' heads first, then the runs they keep are loaded.
            let mut heads = Vec::new();
            for chunk in ids.chunks(CHUNK) {
                heads.extend(
                    load_chunk(&mut tx, chunk, Detail::Heads, |e| self.err(e))?
                        .into_iter()
                        .map(post_head),
                );
            }
            let keep: std::collections::HashSet<i64> =
                sel.post_filter(heads).iter().map(|r| r.id).collect();
            ids.retain(|id| keep.contains(id));
        }
        for chunk in ids.chunks(CHUNK) {
            for run in load_chunk(&mut tx, chunk, detail, |e| self.err(e))? {
                f(run)?;
            }
        }
        tx.commit().map_err(|e| self.err(e))?;
        Ok(ids.len())
    }

    /// Whether every block's runs have consecutive ids.
    pub fn blocks_contiguous(&self) -> Result<bool> {
        let mut c = self.client.borrow_mut();
        let row = c.query_one(CONTIGUOUS_SQL, &[]).map_err(|e| self.err(e))?;
        Ok(row.get(0))
    }

    /// Sets the label of the selected runs; returns how many changed.
    pub fn relabel(&self, sel: &Selector, label: &str) -> Result<usize> {
        let mut c = self.client.borrow_mut();
        let mut tx = c.transaction().map_err(|e| self.err(e))?;
        let ids = select_ids(&mut tx, sel).map_err(|e| self.err(e))?;
        tx.execute(
            "UPDATE run SET label = $1::text WHERE id = ANY($2::bigint[])",
            &[&label, &ids],
        )
        .map_err(|e| self.err(e))?;
        tx.commit().map_err(|e| self.err(e))?;
        Ok(ids.len())
    }

    /// A source's provenance and its blocks, in block order (for `copy`).
    pub fn source_blocks(&self, source_id: i64) -> Result<(SourceRecord, Vec<BlockMeta>)> {
        let mut c = self.client.borrow_mut();
        let row = c
            .query_one(
                "SELECT path, sha256, bytes, format, parser, ingested_at FROM source WHERE id = $1",
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

fn select_ids(c: &mut impl GenericClient, sel: &Selector) -> Result<Vec<i64>, postgres::Error> {
    let (where_sql, args) = where_clause(sel);
    let sql = format!(
        "SELECT r.id FROM run r JOIN block b ON b.id = r.block_id JOIN source s ON s.id = b.source_id
         {where_sql} ORDER BY r.id"
    );
    let refs: Vec<&(dyn ToSql + Sync)> = args.iter().map(|a| a.as_ref()).collect();
    Ok(c.query(&sql, &refs)?.iter().map(|r| r.get(0)).collect())
}

/// The runs with these ids (ascending), with series, points, histograms and the printed
/// statistics of their blocks; with [`Detail::Heads`], only the single values of the
/// points and no histogram.
fn load_chunk(
    c: &mut impl GenericClient,
    ids: &[i64],
    detail: Detail,
    err: impl Fn(postgres::Error) -> anyhow::Error,
) -> Result<Vec<StoredRun>> {
    let ids = ids.to_vec();
    let heads = c
        .query(
            "SELECT r.id, r.suite, r.label, s.format, s.path, s.id, b.id, b.idx, s.ingested_at,
                    r.run_index, r.first_line, r.last_line, r.params, r.tags, b.printed
             FROM run r JOIN block b ON b.id = r.block_id JOIN source s ON s.id = b.source_id
             WHERE r.id = ANY($1) ORDER BY r.id",
            &[&ids],
        )
        .map_err(&err)?;
    let series_rows = c
        .query(
            "SELECT id, run_id, metric, display, unit, kind, sample_count, stats, value,
                    CASE WHEN $2 THEN points END
             FROM series WHERE run_id = ANY($1) ORDER BY run_id, id",
            &[&ids, &detail.points()],
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
    for r in &series_rows {
        let id: i64 = r.get(0);
        let kind: String = r.get(5);
        let count = r.get::<_, Option<i64>>(6).map(|c| c as u64);
        let stats: String = r.get(7);
        let value: Option<f64> = r.get(8);
        let packed: Option<Vec<u8>> = r.get(9);
        let corrupt = |e| anyhow::anyhow!("series {id}: {e}");
        let data = match kind.as_str() {
            "ladder" => Data::Ladder {
                count,
                points: pack::unpack_ladder(packed.as_deref()).map_err(corrupt)?,
            },
            "histogram" => Data::Histogram {
                intervals: hists.remove(&id).unwrap_or_default(),
                count,
                points: pack::unpack_ladder(packed.as_deref()).map_err(corrupt)?,
            },
            "timeseries" => Data::TimeSeries {
                points: pack::unpack_time_series(packed.as_deref()).map_err(corrupt)?,
            },
            _ => Data::Value { value },
        };
        series.entry(r.get(1)).or_default().push(Series {
            metric: r.get(2),
            display: r.get(3),
            unit: r.get(4),
            data,
            stats: serde_json::from_str(&stats)
                .with_context(|| format!("series {id}: bad stats"))?,
        });
    }
    let mut out = Vec::with_capacity(heads.len());
    for r in &heads {
        let id: i64 = r.get(0);
        let block_id: i64 = r.get(6);
        let params: String = r.get(12);
        let tags: String = r.get(13);
        let printed: String = r.get(14);
        let run = Run {
            index: u32::try_from(r.get::<_, i64>(9))
                .with_context(|| format!("run {id}: bad index"))?,
            first_line: r.get::<_, i64>(10) as u64,
            last_line: r.get::<_, i64>(11) as u64,
            params: serde_json::from_str(&params)
                .with_context(|| format!("run {id}: bad params"))?,
            tags: serde_json::from_str(&tags).with_context(|| format!("run {id}: bad tags"))?,
            series: series.remove(&id).unwrap_or_default(),
        };
        out.push(StoredRun {
            id,
            suite: r.get(1),
            label: r.get(2),
            format: r.get(3),
            source: r.get(4),
            source_id: r.get(5),
            block_id,
            block_index: u32::try_from(r.get::<_, i64>(7))
                .with_context(|| format!("run {id}: bad block index"))?,
            ingested_at: r.get(8),
            run,
            printed: if detail.printed() {
                printed_from_json(&printed, block_id)?
            } else {
                Vec::new()
            },
        });
    }
    Ok(out)
}

/// `WHERE …` for a selector (empty for none) and its bound values, numbered `$1…`.
fn where_clause(sel: &Selector) -> (String, Args) {
    let mut conds = Vec::new();
    let mut args: Args = Vec::new();
    let next = |args: &mut Args, v: Box<dyn ToSql + Sync>| {
        args.push(v);
        format!("${}", args.len())
    };
    for term in &sel.terms {
        match term {
            Term::Label(v) => {
                let p = next(&mut args, Box::new(v.clone()));
                conds.push(format!("r.label = {p}::text"));
            }
            Term::Suite(v) => {
                let p = next(&mut args, Box::new(v.clone()));
                conds.push(format!("r.suite = {p}::text"));
            }
            Term::Source(v) => {
                let p = next(&mut args, Box::new(v.clone()));
                conds.push(format!("s.path = {p}::text"));
            }
            Term::Tag(k, v) => {
                let pk = next(&mut args, Box::new(k.clone()));
                let pv = next(&mut args, Box::new(v.clone()));
                conds.push(format!("(r.tags::jsonb ->> {pk}::text) = {pv}::text"));
            }
            Term::Runs(ids) => {
                let p = next(&mut args, Box::new(ids.clone()));
                conds.push(format!("r.id = ANY({p}::bigint[])"));
            }
        }
    }
    if conds.is_empty() {
        (String::new(), args)
    } else {
        (format!("WHERE {}", conds.join(" AND ")), args)
    }
}
