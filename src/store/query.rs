//! Reading runs back as [`StoredRun`]s, selected by a [`Selector`], and relabelling.

use super::Store;
use crate::dataset::StoredRun;
use crate::selector::{Selector, Term};
use anyhow::{Context, Result};
use bench_db_parsers::{Data, HistInterval, LadderPoint, PrintedStat, Run, Series, TimePoint};
use rusqlite::types::Value;
use std::collections::HashMap;

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

    /// Every run the selector matches, with its series, in id order.
    pub fn select(&self, sel: &Selector) -> Result<Vec<StoredRun>> {
        let (where_sql, args) = where_clause(sel);
        let sql = format!(
            "SELECT r.id, r.suite, r.label, s.format, s.path, s.id, b.id, b.idx, s.ingested_at,
                    r.run_index, r.first_line, r.last_line, r.params, r.tags
             FROM run r JOIN block b ON b.id = r.block_id JOIN source s ON s.id = b.source_id
             {where_sql} ORDER BY r.id"
        );
        let mut stmt = self.conn.prepare(&sql)?;
        let mut rows = stmt.query(rusqlite::params_from_iter(args))?;
        let mut printed: HashMap<i64, Vec<PrintedStat>> = HashMap::new();
        let mut out = Vec::new();
        while let Some(r) = rows.next()? {
            let id: i64 = r.get(0)?;
            let block_id: i64 = r.get(6)?;
            let params: String = r.get(12)?;
            let tags: String = r.get(13)?;
            let run = Run {
                index: r.get(9)?,
                first_line: r.get::<_, i64>(10)? as u64,
                last_line: r.get::<_, i64>(11)? as u64,
                params: serde_json::from_str(&params)
                    .with_context(|| format!("run {id}: bad params"))?,
                tags: serde_json::from_str(&tags).with_context(|| format!("run {id}: bad tags"))?,
                series: self.load_series(id)?,
            };
            let block_printed = match printed.get(&block_id) {
                Some(p) => p.clone(),
                None => {
                    let p = self.load_printed(block_id)?;
                    printed.insert(block_id, p.clone());
                    p
                }
            };
            out.push(StoredRun {
                id,
                suite: r.get(1)?,
                label: r.get(2)?,
                format: r.get(3)?,
                source: r.get(4)?,
                source_id: r.get(5)?,
                block_id,
                block_index: r.get(7)?,
                ingested_at: r.get(8)?,
                run,
                printed: block_printed,
            });
        }
        Ok(sel.post_filter(out))
    }

    /// Sets the label of the selected runs; returns how many changed.
    pub fn relabel(&mut self, sel: &Selector, label: &str) -> Result<usize> {
        // History terms (`latest=N`, …) narrow the runs after the query.
        let ids = if sel.post.is_empty() {
            self.select_ids(sel)?
        } else {
            self.select(sel)?.iter().map(|r| r.id).collect()
        };
        let tx = self.conn.transaction()?;
        {
            let mut stmt = tx.prepare("UPDATE run SET label = ?1 WHERE id = ?2")?;
            for id in &ids {
                stmt.execute(rusqlite::params![label, id])?;
            }
        }
        tx.commit()?;
        Ok(ids.len())
    }

    fn load_printed(&self, block_id: i64) -> Result<Vec<PrintedStat>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT metric, percentile, name, value FROM printed_stat WHERE block_id = ?1 ORDER BY rowid",
        )?;
        let rows = stmt.query_map([block_id], |r| {
            Ok(PrintedStat {
                metric: r.get(0)?,
                percentile: r.get(1)?,
                name: r.get(2)?,
                value: r.get(3)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    fn load_series(&self, run_id: i64) -> Result<Vec<Series>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT id, metric, display, unit, kind, sample_count, stats FROM series WHERE run_id = ?1 ORDER BY id",
        )?;
        let heads = stmt
            .query_map([run_id], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, String>(3)?,
                    r.get::<_, String>(4)?,
                    r.get::<_, Option<i64>>(5)?,
                    r.get::<_, String>(6)?,
                ))
            })?
            .collect::<Result<Vec<_>, _>>()?;
        let mut out = Vec::with_capacity(heads.len());
        for (id, metric, display, unit, kind, count, stats) in heads {
            let points = self.load_points(id)?;
            let count = count.map(|c| c as u64);
            let ladder = || {
                points
                    .iter()
                    .map(|p| LadderPoint {
                        percentile: p.0.unwrap_or(f64::NAN),
                        value: p.2,
                        line_value: p.3,
                    })
                    .collect::<Vec<_>>()
            };
            let data = match kind.as_str() {
                "ladder" => Data::Ladder {
                    count,
                    points: ladder(),
                },
                "histogram" => Data::Histogram {
                    intervals: self.load_histograms(id)?,
                    count,
                    points: ladder(),
                },
                "timeseries" => Data::TimeSeries {
                    points: points
                        .iter()
                        .map(|p| TimePoint {
                            t: p.1.unwrap_or(f64::NAN),
                            value: p.2,
                        })
                        .collect(),
                },
                _ => Data::Value {
                    value: points.first().and_then(|p| p.2),
                },
            };
            out.push(Series {
                metric,
                display,
                unit,
                data,
                stats: serde_json::from_str(&stats)
                    .with_context(|| format!("series {id}: bad stats"))?,
            });
        }
        Ok(out)
    }

    #[allow(clippy::type_complexity)]
    fn load_points(
        &self,
        series_id: i64,
    ) -> Result<Vec<(Option<f64>, Option<f64>, Option<f64>, Option<f64>)>> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT percentile, t, value, line_value FROM point WHERE series_id = ?1 ORDER BY rowid")?;
        let rows = stmt.query_map([series_id], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
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
