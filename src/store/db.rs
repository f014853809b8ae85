//! [`Db`]: an open store of either kind, and the selection algorithm written once over
//! [`Store`]: the plain terms answered in SQL, the path and history terms judged on the
//! runs' heads.
//!
//! Reads never fail as a whole because one stored run does not decode: the run is
//! skipped with a warning on stderr (`bench-db: warning: run 17 (source x.txt): damaged:
//! …; skipped`, once per run and process), the read goes on, and its exit code is not
//! changed by it (a command whose selection is left empty says so as usual); `bench-db
//! check` is the command whose exit code reports damage.

use super::backend::Store;
use super::filter::{Bound, Filter};
use super::open_error;
use super::postgres::PgStore;
use super::rows::{Damage, Detail, Removed};
use super::sqlite::SqliteStore;
use super::url::Target;
use crate::dataset::StoredRun;
use crate::selector::{self, HistoryKey, PostTerm, Selector, Term};
use anyhow::Result;
use std::cell::RefCell;
use std::collections::HashSet;

/// Run ids bound per query when runs are read back by id.
const IDS_PER_QUERY: usize = 10_000;
/// Commits (or runs) bound per query when `latest=N` reads the runs of the commits it found.
const KEYS_PER_QUERY: usize = 1_000;

/// An open store of either kind.
pub struct Db {
    pub(super) store: Box<dyn Store>,
    /// The damaged runs already warned about, so a run read twice is reported once.
    warned: RefCell<HashSet<i64>>,
}

impl Db {
    fn of(store: impl Store + 'static) -> Db {
        Db {
            store: Box::new(store),
            warned: RefCell::default(),
        }
    }

    /// Warns (once per run) that a run does not decode and is skipped.
    pub(super) fn warn_damaged(&self, d: Damage) {
        if d.run.is_none_or(|id| self.warned.borrow_mut().insert(id)) {
            eprintln!("bench-db: warning: {d}; skipped");
        }
    }

    /// Opens for writing: creates the schema when empty and migrates it.
    pub fn open(target: &Target) -> Result<Db> {
        Ok(match target {
            Target::Sqlite(p) => {
                Db::of(SqliteStore::open(p).map_err(|e| open_error::sqlite(p, e))?)
            }
            Target::Postgres(u) => Db::of(PgStore::open(u)?),
        })
    }

    /// Opens an existing store for writing (a missing one is an error, not created).
    pub fn open_existing(target: &Target) -> Result<Db> {
        Ok(match target {
            Target::Sqlite(p) => {
                Db::of(SqliteStore::open_existing(p).map_err(|e| open_error::sqlite(p, e))?)
            }
            Target::Postgres(u) => Db::of(PgStore::open_existing(u)?),
        })
    }

    /// Opens for the read commands: nothing is written, locked or drawn from a sequence
    /// when the schema is current; an older one is upgraded when these credentials can.
    pub fn open_read(target: &Target) -> Result<Db> {
        Ok(match target {
            Target::Sqlite(p) => {
                Db::of(SqliteStore::open_read(p).map_err(|e| open_error::sqlite(p, e))?)
            }
            Target::Postgres(u) => Db::of(PgStore::open_read(u)?),
        })
    }

    /// A new SQLite database in memory.
    #[cfg(any(test, feature = "test-support"))]
    pub fn open_in_memory() -> Result<Db> {
        Ok(Db::of(SqliteStore::open_in_memory()?))
    }

    /// Upgrades the store's schema; returns the versions before and after.
    pub fn migrate(target: &Target) -> Result<(i64, i64)> {
        match target {
            Target::Sqlite(p) => SqliteStore::migrate(p).map_err(|e| open_error::sqlite(p, e)),
            Target::Postgres(u) => PgStore::migrate(u),
        }
    }

    /// The schema version of the open store.
    pub fn schema_version(&self) -> Result<i64> {
        self.store.schema_version()
    }

    /// The ids of the runs the selector matches, in id order.
    pub fn select_ids(&self, sel: &Selector) -> Result<Vec<i64>> {
        if !sel.judged_on_heads() {
            return self.store.select_ids(&Filter::of(sel));
        }
        let mut ids: Vec<i64> = self.kept_ids(sel)?.into_iter().collect();
        ids.sort_unstable();
        Ok(ids)
    }

    /// Every run the selector matches, with its series, in id order.
    pub fn select(&self, sel: &Selector) -> Result<Vec<StoredRun>> {
        let mut out = Vec::new();
        self.for_each_run(sel, Detail::Points, |r| {
            out.push(r);
            Ok(())
        })?;
        Ok(out)
    }

    /// Streams the runs the selector matches, in id order, with bounded memory; returns
    /// how many were passed to `f`.
    ///
    /// The store answers the plain terms in SQL. `source=` terms (a path suffix, or a path
    /// relative to the current directory), `param.` terms and history terms (`latest=N`,
    /// …) are judged on the heads of the runs the plain terms select; the runs they keep
    /// are then read by id.
    pub fn for_each_run(
        &self,
        sel: &Selector,
        detail: Detail,
        mut f: impl FnMut(StoredRun) -> Result<()>,
    ) -> Result<usize> {
        if !sel.judged_on_heads() {
            return self
                .store
                .stream(&Filter::of(sel), detail, &mut f, &mut |d| {
                    self.warn_damaged(d)
                });
        }
        let mut ids: Vec<i64> = self.kept_ids(sel)?.into_iter().collect();
        ids.sort_unstable();
        let mut n = 0;
        for chunk in ids.chunks(IDS_PER_QUERY) {
            n += self
                .store
                .stream(&Filter::ids(chunk.to_vec()), detail, &mut f, &mut |d| {
                    self.warn_damaged(d)
                })?;
        }
        Ok(n)
    }

    /// The ids of the runs that the plain terms select and the path and history terms keep.
    fn kept_ids(&self, sel: &Selector) -> Result<HashSet<i64>> {
        if let Some((filter, latest)) = self.indexed(sel)? {
            return self.kept_by_index(filter, latest);
        }
        let cwd = std::env::current_dir().ok();
        let mut heads = Vec::new();
        // The terms judge the run's row only: its series are not read here (a damaged
        // series is reported when the kept runs are read), nor its parameters unless a
        // `param.` term asks.
        let detail = if sel.terms.iter().any(|t| matches!(t, Term::Param(..))) {
            Detail::Row
        } else {
            Detail::Bare
        };
        self.store.stream(
            &Filter::of(sel),
            detail,
            &mut |r| {
                if sel.matches_head(&r, cwd.as_deref()) {
                    heads.push(HistoryKey::of(&r));
                }
                Ok(())
            },
            &mut |d| self.warn_damaged(d),
        )?;
        Ok(sel.post_filter(heads).iter().map(|r| r.id).collect())
    }

    /// The selection as the indexes answer it, when they can: its SQL part with the id and
    /// time ranges as [`Bound`]s, and its `latest=N`. They cannot when a term is judged on
    /// the runs' heads, `latest` is given twice, a time lies beyond the index's range, or
    /// a stored run has no indexed time (one stored before the index whose tags did not
    /// decode): then the heads are read and judged as before.
    fn indexed(&self, sel: &Selector) -> Result<Option<(Filter, Option<usize>)>> {
        if sel.terms.iter().any(Term::judged_on_heads) {
            return Ok(None);
        }
        let mut filter = Filter::of(sel);
        let mut latest = None;
        for p in &sel.post {
            let bound = match p {
                PostTerm::RunRange(a, b) => Bound::Ids(*a, *b),
                PostTerm::TimeFrom(t) => match t.timestamp_nanos_opt() {
                    Some(ns) => Bound::AtFrom(ns),
                    None => return Ok(None),
                },
                PostTerm::TimeBefore(t) => match t.timestamp_nanos_opt() {
                    Some(ns) => Bound::AtBefore(ns),
                    None => return Ok(None),
                },
                PostTerm::Latest(n) => {
                    if latest.replace(*n).is_some() {
                        return Ok(None);
                    }
                    continue;
                }
            };
            filter = filter.and(bound);
        }
        if !self.store.all_timed()? {
            return Ok(None);
        }
        Ok(Some((filter, latest)))
    }

    /// The runs of the `latest` most recent commits among those `filter` matches, found
    /// from the newest run backwards: the walk stops once it has seen `latest` commits and
    /// reaches a run older than the last of them, so it reads about as many runs as it
    /// keeps. The commits it saw are the only ones that can rank first (any other's newest
    /// run is older than all of theirs); their runs are then read whole, and ranked as
    /// [`selector::latest`] ranks them (ties in time go to the highest id of a commit).
    fn kept_by_index(&self, filter: Filter, latest: Option<usize>) -> Result<HashSet<i64>> {
        let Some(n) = latest else {
            return Ok(self.store.select_ids(&filter)?.into_iter().collect());
        };
        // What `latest` counts: commits, and runs without one.
        let mut commits: HashSet<Box<str>> = HashSet::new();
        let mut alone: Vec<i64> = Vec::new();
        let mut nth = None;
        let mut walked = Vec::new();
        let mut stopped = false;
        self.store.recent(&filter, &mut |r| {
            if commits.len() + alone.len() >= n && r.time < nth {
                stopped = true;
                return false;
            }
            let new = match &r.commit {
                Some(c) => commits.insert(c.clone()),
                None => {
                    alone.push(r.id);
                    true
                }
            };
            if new && commits.len() + alone.len() == n {
                nth = r.time;
            }
            walked.push(r);
            true
        })?;
        let keys = if stopped {
            let mut keys = Vec::new();
            let commits: Vec<String> = commits.iter().map(|c| c.to_string()).collect();
            let mut read = |commits: &[String], ids: &[i64]| {
                let f = filter
                    .clone()
                    .and(Bound::CommitsOrRuns(commits.to_vec(), ids.to_vec()));
                self.store.recent(&f, &mut |r| {
                    keys.push(r);
                    true
                })
            };
            for chunk in commits.chunks(KEYS_PER_QUERY) {
                read(chunk, &[])?;
            }
            for chunk in alone.chunks(KEYS_PER_QUERY) {
                read(&[], chunk)?;
            }
            keys
        } else {
            walked
        };
        Ok(selector::latest(keys, n)
            .into_iter()
            .map(|k| k.id)
            .collect())
    }

    /// Whether every block's runs have consecutive ids, so a stream in id order gives
    /// each block's runs together.
    pub fn blocks_contiguous(&self) -> Result<bool> {
        self.store.blocks_contiguous()
    }

    /// The stored sources whose content has one of these hashes, as (hash, id, path), in
    /// id order.
    pub fn sources_with_content(&self, sha256: &[String]) -> Result<Vec<(String, i64, String)>> {
        self.store.sources_with_content(sha256)
    }

    /// Sets the label of the selected runs; returns how many changed.
    pub fn relabel(&mut self, sel: &Selector, label: &str) -> Result<usize> {
        let ids = self.select_ids(sel)?;
        self.store.relabel(&ids, label)
    }

    /// Removes the selected runs, and the sources left with none (see [`Store::remove`]);
    /// `dry_run` answers the same and removes nothing. A removed source's content is no
    /// longer stored, so ingesting it again stores it again.
    pub fn remove(&mut self, sel: &Selector, dry_run: bool) -> Result<Removed> {
        let ids = self.select_ids(sel)?;
        self.store.remove(&ids, dry_run)
    }

    /// Reads the whole store for damage: the engine's own integrity check (SQLite), then
    /// every run with its series, points (checksums verified) and printed numbers. A
    /// failure of either pass is itself reported as damage, so the answer lists what is
    /// wrong rather than stopping at it.
    pub fn check(&self) -> Checked {
        let file = |what: String| Damage {
            run: None,
            source: None,
            what,
        };
        let mut out = Checked::default();
        match self.store.integrity() {
            Ok(found) => out.damaged.extend(found.into_iter().map(file)),
            Err(e) => out
                .damaged
                .push(file(format!("the integrity check failed: {e:#}"))),
        }
        let mut damaged = Vec::new();
        let mut series = 0;
        let read = self.store.stream(
            &Filter::of(&Selector::all()),
            Detail::Points,
            &mut |r| {
                series += r.run.series.len();
                Ok(())
            },
            &mut |d| damaged.push(d),
        );
        out.runs = damaged.len();
        out.series = series;
        out.damaged.append(&mut damaged);
        match read {
            Ok(n) => out.runs += n,
            Err(e) => out
                .damaged
                .push(file(format!("reading the runs failed: {e:#}"))),
        }
        out
    }
}

/// What [`Db::check`] read and found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Checked {
    /// Runs read, damaged or not.
    pub runs: usize,
    /// Series of the runs that decode.
    pub series: usize,
    /// Each damaged run (with its source), and what the database engine found wrong
    /// with the file (no run).
    pub damaged: Vec<Damage>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Generated;
    use bench_db_parsers::{Block, Run};
    use std::collections::BTreeMap;

    /// One source of one block of `runs` runs, with these tags.
    fn store_tagged(db: &mut Db, text: &str, runs: u32, tags: &BTreeMap<String, String>) {
        let blocks = [Block {
            runs: (1..=runs)
                .map(|index| Run {
                    index,
                    ..Run::default()
                })
                .collect(),
            ..Block::default()
        }];
        db.insert_generated(&Generated {
            origin: text,
            format: "loopback",
            text,
            blocks: &blocks,
            suite: "s",
            label_override: None,
            tags,
        })
        .unwrap();
    }

    /// A block whose runs share some tags and differ in others: the shared ones are kept
    /// once for the block, the others per run, and a `tag.` term finds its runs either way,
    /// as a list (`runs`) and as a walk's probe (`latest=N`).
    #[test]
    fn tags_kept_for_the_block_or_the_run_select_the_same_runs() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.db");
        let mut db = Db::open(&crate::store::url::Target::Sqlite(path.clone())).unwrap();
        let run = |index: u32, host: &str| Run {
            index,
            tags: [("host", host), ("commit", "c1")]
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            ..Run::default()
        };
        let blocks = [Block {
            runs: vec![run(1, "a"), run(2, "b"), run(3, "a")],
            ..Block::default()
        }];
        let tags = [("branch", "main")]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        db.insert_generated(&Generated {
            origin: "x",
            format: "loopback",
            text: "x",
            blocks: &blocks,
            suite: "s",
            label_override: None,
            tags: &tags,
        })
        .unwrap();
        store(&mut db, "other", 2);
        let ids = |db: &Db, sel: &str| db.select_ids(&Selector::parse(sel).unwrap()).unwrap();
        assert_eq!(ids(&db, "tag.host=a"), [1, 3]);
        assert_eq!(ids(&db, "tag.host=b"), [2]);
        assert_eq!(ids(&db, "tag.commit=c1"), [1, 2, 3]);
        assert_eq!(ids(&db, "tag.branch=main;tag.host=a"), [1, 3]);
        assert_eq!(ids(&db, "tag.host=a;latest=1"), [1, 3]);
        assert_eq!(ids(&db, "tag.host=b;latest=5"), [2]);
        let c = rusqlite::Connection::open(&path).unwrap();
        let count = |sql: &str| -> i64 { c.query_row(sql, [], |r| r.get(0)).unwrap() };
        // commit and branch once for the first block; host per run.
        assert_eq!(
            count("SELECT count(*) FROM block_tag WHERE block_id = 1"),
            2
        );
        assert_eq!(count("SELECT count(*) FROM run_tag WHERE key = 'host'"), 3);
        // Removing some of the block's runs keeps its rows; removing the last takes them.
        db.remove(&Selector::parse("run=1").unwrap(), false)
            .unwrap();
        assert_eq!(ids(&db, "tag.commit=c1"), [2, 3]);
        assert_eq!(
            count("SELECT count(*) FROM block_tag WHERE block_id = 1"),
            2
        );
        db.remove(&Selector::parse("run=2..3").unwrap(), false)
            .unwrap();
        assert_eq!(
            count("SELECT count(*) FROM block_tag WHERE block_id = 1"),
            0
        );
        assert_eq!(count("SELECT count(*) FROM run_tag WHERE key = 'host'"), 0);
        assert_eq!(ids(&db, "tag.commit=c1"), Vec::<i64>::new());
    }

    fn store(db: &mut Db, text: &str, runs: u32) {
        store_tagged(db, text, runs, &BTreeMap::new());
    }

    #[test]
    fn removal_takes_runs_then_empty_sources_and_keeps_blocks_contiguous() {
        let mut db = Db::open_in_memory().unwrap();
        store(&mut db, "a", 3);
        store(&mut db, "b", 2);
        let sel = |ids: Vec<i64>| Selector::from_ids(ids);
        // A dry run answers the same and changes nothing.
        let dry = db.remove(&sel(vec![2]), true).unwrap();
        assert_eq!(dry.runs, [2]);
        assert_eq!(db.select_ids(&Selector::all()).unwrap(), [1, 2, 3, 4, 5]);
        let one = db.remove(&sel(vec![2, 99]), false).unwrap();
        assert_eq!(
            one,
            Removed {
                runs: vec![2],
                sources: vec![]
            }
        );
        // Run 2's id is a gap inside block 1, not another block's run.
        assert!(db.blocks_contiguous().unwrap());
        let rest = db.remove(&sel(vec![1, 3]), false).unwrap();
        assert_eq!(rest.sources, ["a"]);
        assert_eq!(db.select_ids(&Selector::all()).unwrap(), [4, 5]);
        // Its content is no longer stored: the same output is stored again.
        store(&mut db, "a", 1);
        assert_eq!(db.select_ids(&Selector::all()).unwrap(), [4, 5, 6]);
        // A source whose runs are all kept stays: the same output is unchanged.
        store(&mut db, "b", 2);
        assert_eq!(db.select_ids(&Selector::all()).unwrap(), [4, 5, 6]);
        // The newest run's id is not given again once it is removed.
        db.remove(&sel(vec![6]), false).unwrap();
        store(&mut db, "c", 1);
        assert_eq!(db.select_ids(&Selector::all()).unwrap(), [4, 5, 7]);
    }

    /// The history terms judged on every run's head: what `kept_ids` did before the
    /// indexes, and still does when they cannot answer.
    fn judged_on_heads(db: &Db, sel: &Selector) -> Vec<i64> {
        let heads = db
            .select(&Selector {
                terms: sel.terms.clone(),
                post: Vec::new(),
            })
            .unwrap()
            .iter()
            .map(HistoryKey::of)
            .collect();
        sel.post_filter(heads).iter().map(|k| k.id).collect()
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]
        /// Histories with commits sharing times, runs without a commit or a time tag,
        /// and ids out of time order: the indexes keep exactly the runs the heads keep, both
        /// as ids and as the runs a read streams.
        #[test]
        fn the_indexes_keep_what_the_heads_keep(
            runs in proptest::collection::vec((0..5usize, 0..4usize, 0..2usize), 1..30),
            n in 1..6usize,
            from in 0..4usize,
        ) {
            let mut db = Db::open_in_memory().unwrap();
            for (i, (commit, time, branch)) in runs.iter().enumerate() {
                let mut tags = BTreeMap::new();
                if *commit > 0 {
                    tags.insert("commit".to_string(), format!("c{commit}"));
                }
                if *time > 0 {
                    // Times repeat, and later runs may be older.
                    tags.insert("time".to_string(), format!("2026-01-0{time}T00:00:00+01:00"));
                }
                tags.insert("branch".to_string(), ["main", "pr"][*branch].to_string());
                store_tagged(&mut db, &format!("run {i}"), 1, &tags);
            }
            for text in [
                format!("latest={n}"),
                format!("tag.branch=main;latest={n}"),
                format!("time>=2026-01-0{}T00:00:00Z;latest={n}", from + 1),
                format!("run=2..{};latest={n}", runs.len().max(3) - 1),
                format!("time<2026-01-0{}T00:00:00Z", from + 1),
            ] {
                let sel = Selector::parse(&text).unwrap();
                proptest::prop_assert!(db.indexed(&sel).unwrap().is_some());
                let heads = judged_on_heads(&db, &sel);
                proptest::prop_assert_eq!(db.select_ids(&sel).unwrap(), heads.clone(), "{}", text);
                // The runs a read streams are the same, in order.
                let read: Vec<i64> = db.select(&sel).unwrap().iter().map(|r| r.id).collect();
                proptest::prop_assert_eq!(read, heads, "{}", text);
            }
        }
    }
}
