//! SELECTOR: which runs a command works on.
//!
//! Terms `label=TEXT`, `suite=NAME`, `run=ID[+ID...]`, `source=PATH`, `tag.KEY=VALUE`,
//! joined by `;`; all must hold; matching is exact, but `source=` also takes a path
//! suffix or a relative path (see `cmd::select`). Values may contain commas and spaces;
//! a comma before another `KEY=` is most likely a mistaken separator and gets a hint.
//!
//! This module is the one interpreter of a selector, for every command and both stores:
//! the store answers the plain terms in SQL (built from them in `store/filter.rs`), and
//! the terms judged on the runs' heads — `source=` paths ([`source_matches`]) and the
//! history terms (`latest=N`, `run=A..B`, `time>=T`, `time<T`, [`PostTerm`]s applied by
//! [`Selector::post_filter`]) — are applied by `store::Db` to what the query returned.

use crate::dataset::StoredRun;
use bench_db_parsers::Param;
use chrono::{DateTime, Utc};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::LazyLock;
use thiserror::Error;

/// Every term a selector takes: its key as typed (up to the value), the value's form and
/// what it means. The one list that the help texts, the errors and the `,` hint read.
const TERMS: [(&str, &str, &str); 11] = [
    ("label=", "TEXT", ""),
    ("suite=", "NAME", ""),
    ("bench=", "NAME", "the benchmark as its tool names it"),
    (
        "param.",
        "KEY=VALUE",
        "numbers as numbers: 20000 matches 20000.0",
    ),
    ("run=", "ID[+ID...]", ""),
    ("run=", "A..B", "ids A to B inclusive"),
    ("source=", "PATH", "a path suffix or a relative path"),
    ("tag.", "KEY=VALUE", "tag.commit=..., tag.branch=..."),
    ("time>=", "RFC3339", ""),
    (
        "time<",
        "RFC3339",
        "the run's time tag, else its ingest time",
    ),
    (
        "latest=",
        "N",
        "the runs of the N most recent commits, or the N most recent runs without commits",
    ),
];

/// The terms as a list, each with what it means: `label=TEXT, …, latest=N (…)`.
pub fn terms_list(separator: &str) -> String {
    let terms: Vec<String> = TERMS
        .iter()
        .map(|(key, value, means)| match *means {
            "" => format!("{key}{value}"),
            _ => format!("{key}{value} ({means})"),
        })
        .collect();
    terms.join(separator)
}

/// The selector syntax, for `--help`: the terms one a line, then examples.
pub static HELP: LazyLock<String> = LazyLock::new(|| {
    format!(
        "SELECTOR: terms joined by ';', all must hold:\n  {}\nExamples:\n  \
         bench-db history 'tag.branch=main;latest=20'\n  \
         bench-db gate --baseline 'tag.branch=main;latest=10' --candidate \"tag.commit=$SHA\"\n  \
         bench-db runs 'suite=jlbh;time>=2024-05-01T00:00:00Z;time<2024-06-01T00:00:00Z'",
        terms_list("\n  ")
    )
});

/// Every term a selector takes, for the errors that list them.
static KEYS: LazyLock<String> = LazyLock::new(|| {
    let mut keys: Vec<String> = Vec::new();
    for (key, value, _) in TERMS {
        let key = match value.split_once('=') {
            Some((name, _)) => format!("{key}{name}="),
            None => key.to_string(),
        };
        if !keys.contains(&key) {
            keys.push(key);
        }
    }
    format!("terms: {}", keys.join(", "))
});

/// A history condition applied to the runs the store returned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PostTerm {
    /// Runs of the N most recent commits (runs without a commit count one each).
    Latest(usize),
    /// Run ids from A to B inclusive.
    RunRange(i64, i64),
    /// Run time at or after (RFC 3339).
    TimeFrom(DateTime<Utc>),
    /// Run time before.
    TimeBefore(DateTime<Utc>),
}

/// One condition on a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Term {
    Label(String),
    Suite(String),
    Runs(Vec<i64>),
    Source(String),
    Tag(String, String),
    /// `bench=NAME`: the benchmark's full name, exactly.
    Bench(String),
    /// `param.KEY=VALUE`: a parameter; numbers compare as numbers (`20000` = `20000.0`).
    Param(String, String),
}

/// A conjunction of terms; empty selects every run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selector {
    pub terms: Vec<Term>,
    /// History terms, applied by [`Selector::post_filter`] to the runs' [`HistoryKey`]s.
    pub post: Vec<PostTerm>,
}

#[derive(Debug, Error, PartialEq, Eq)]
pub enum SelectorError {
    #[error("selector term {0:?} is not KEY=VALUE ({keys})", keys = *KEYS)]
    NotKeyValue(String),
    #[error("unknown selector key {0:?} ({keys})", keys = *KEYS)]
    UnknownKey(String),
    #[error("run ids must be whole numbers joined by '+' or a range A..B, got {0:?}")]
    BadRunIds(String),
    #[error(
        "run={0}..{1} selects nothing: a range runs from the lower id to the higher (run={1}..{0})"
    )]
    ReversedRange(i64, i64),
    #[error("latest=N needs a whole number N ≥ 1, got {0:?}")]
    BadLatest(String),
    #[error("time terms need an RFC 3339 time like 2024-05-01T00:00:00Z, got {0:?}")]
    BadTime(String),
}

impl Selector {
    /// Selects every run.
    pub fn all() -> Self {
        Selector::default()
    }

    /// Parses `label=A;suite=B;…`. An absent or blank selector selects every run.
    pub fn parse(text: &str) -> Result<Self, SelectorError> {
        if let Some(hint) = Selector::comma_hint(text) {
            eprintln!("hint: {hint}");
        }
        let mut terms = Vec::new();
        let mut post = Vec::new();
        for raw in text.split(';') {
            if raw.trim().is_empty() {
                continue;
            }
            if let Some(p) = post_term(raw)? {
                post.push(p);
                continue;
            }
            let (key, value) = raw
                .split_once('=')
                .ok_or_else(|| SelectorError::NotKeyValue(raw.to_string()))?;
            let key = key.trim();
            let term = match key {
                "label" => Term::Label(value.to_string()),
                "suite" => Term::Suite(value.to_string()),
                "source" => Term::Source(value.to_string()),
                "bench" => Term::Bench(value.to_string()),
                "run" => Term::Runs(
                    value
                        .split('+')
                        .map(|id| id.trim().parse::<i64>())
                        .collect::<Result<_, _>>()
                        .map_err(|_| SelectorError::BadRunIds(value.to_string()))?,
                ),
                k if k.starts_with("tag.") && k.len() > 4 => {
                    Term::Tag(k[4..].to_string(), value.to_string())
                }
                k if k.starts_with("param.") && k.len() > 6 => {
                    Term::Param(k[6..].to_string(), value.to_string())
                }
                k => return Err(SelectorError::UnknownKey(k.to_string())),
            };
            terms.push(term);
        }
        Ok(Selector { terms, post })
    }

    /// Applies the history terms to the runs the plain terms selected, each judged by its
    /// [`HistoryKey`] (kept in their order): ranges and times first, then `latest`.
    pub fn post_filter(&self, mut runs: Vec<HistoryKey>) -> Vec<HistoryKey> {
        for p in &self.post {
            match p {
                PostTerm::RunRange(a, b) => runs.retain(|r| (*a..=*b).contains(&r.id)),
                PostTerm::TimeFrom(t) => runs.retain(|r| r.time.is_some_and(|x| x >= *t)),
                PostTerm::TimeBefore(t) => runs.retain(|r| r.time.is_some_and(|x| x < *t)),
                PostTerm::Latest(_) => {}
            }
        }
        for p in &self.post {
            if let PostTerm::Latest(n) = p {
                runs = latest(runs, *n);
            }
        }
        runs
    }

    /// Whether some term is judged on the runs' heads rather than by the store's query:
    /// a `source=` term (a suffix or relative path), a `param.` term or a history term.
    pub fn judged_on_heads(&self) -> bool {
        !self.post.is_empty() || self.terms.iter().any(Term::judged_on_heads)
    }

    /// Whether a run passes every term judged on its head: `source=` (see
    /// [`source_matches`]; `cwd` resolves relative paths) and `param.KEY=VALUE`.
    pub fn matches_head(&self, r: &StoredRun, cwd: Option<&Path>) -> bool {
        self.terms.iter().all(|t| match t {
            Term::Source(want) => source_matches(&r.source, want, cwd),
            Term::Param(key, want) => r.run.params.get(key).is_some_and(|p| param_equals(p, want)),
            _ => true,
        })
    }

    /// Selects exactly these run ids (none when empty).
    pub fn from_ids(mut ids: Vec<i64>) -> Selector {
        ids.sort_unstable();
        Selector {
            terms: vec![Term::Runs(ids)],
            post: Vec::new(),
        }
    }

    /// A hint when `text` seems to join terms with `,` instead of `;`
    /// (`suite=tsar,label=x`), with the selector it probably meant.
    pub fn comma_hint(text: &str) -> Option<String> {
        let mut fixed = String::with_capacity(text.len());
        let mut changed = false;
        let mut rest = text;
        while let Some(i) = rest.find(',') {
            fixed.push_str(&rest[..i]);
            let after = rest[i + 1..].trim_start();
            if TERMS.iter().any(|(k, _, _)| after.starts_with(k)) {
                fixed.push(';');
                changed = true;
            } else {
                fixed.push(',');
            }
            rest = &rest[i + 1..];
        }
        fixed.push_str(rest);
        changed.then(|| {
            format!("selector terms are joined with ';', not ',': did you mean {fixed:?}?")
        })
    }

    /// Parses an optional selector (absent = every run).
    pub fn parse_opt(text: Option<&str>) -> Result<Self, SelectorError> {
        text.map_or(Ok(Selector::all()), Selector::parse)
    }
}

/// `latest=N`, `run=A..B`, `time>=T`, `time<T`; `None` for a plain term.
fn post_term(raw: &str) -> Result<Option<PostTerm>, SelectorError> {
    let t = raw.trim();
    let time = |v: &str| {
        DateTime::parse_from_rfc3339(v.trim())
            .map(|d| d.with_timezone(&Utc))
            .map_err(|_| SelectorError::BadTime(v.to_string()))
    };
    if let Some(v) = t.strip_prefix("time>=") {
        return Ok(Some(PostTerm::TimeFrom(time(v)?)));
    }
    if let Some(v) = t.strip_prefix("time<") {
        return Ok(Some(PostTerm::TimeBefore(time(v)?)));
    }
    if let Some(v) = t.strip_prefix("latest=") {
        return match v.trim().parse::<usize>() {
            Ok(n) if n >= 1 => Ok(Some(PostTerm::Latest(n))),
            _ => Err(SelectorError::BadLatest(v.to_string())),
        };
    }
    if let Some(v) = t.strip_prefix("run=")
        && let Some((a, b)) = v.split_once("..")
    {
        let id = |s: &str| {
            s.trim()
                .parse::<i64>()
                .map_err(|_| SelectorError::BadRunIds(v.to_string()))
        };
        let (a, b) = (id(a)?, id(b)?);
        if a > b {
            return Err(SelectorError::ReversedRange(a, b));
        }
        return Ok(Some(PostTerm::RunRange(a, b)));
    }
    Ok(None)
}

/// Whether a stored source path is the one a `source=` term names: the same text, a
/// suffix of whole path components, or the same file reached from `cwd` (the only term
/// that looks at the file system: both paths are canonicalised when they exist).
pub fn source_matches(stored: &str, want: &str, cwd: Option<&Path>) -> bool {
    let want_clean = want.trim_start_matches("./");
    if stored == want || stored.trim_start_matches("./") == want_clean {
        return true;
    }
    if !want_clean.is_empty() && stored.ends_with(&format!("/{want_clean}")) {
        return true;
    }
    let absolute = |p: &str| -> Option<std::path::PathBuf> {
        let p = Path::new(p);
        let p = if p.is_absolute() {
            p.to_path_buf()
        } else {
            cwd?.join(p)
        };
        p.canonicalize().ok()
    };
    matches!((absolute(stored), absolute(want)), (Some(a), Some(b)) if a == b)
}

/// The identity fields two selectors both name with different values: what a
/// comparison of their runs compares rather than matches.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Contrast {
    pub suite: bool,
    pub bench: bool,
    /// `param.KEY` keys.
    pub params: std::collections::BTreeSet<String>,
    pub label: bool,
}

impl Contrast {
    /// The contrast between a baseline and a candidate selector.
    pub fn between(a: &Selector, b: &Selector) -> Contrast {
        let named = |s: &Selector, f: &dyn Fn(&Term) -> Option<(String, String)>| {
            s.terms
                .iter()
                .filter_map(f)
                .collect::<HashMap<String, String>>()
        };
        let differ = |f: &dyn Fn(&Term) -> Option<(String, String)>| {
            let (x, y) = (named(a, f), named(b, f));
            x.iter()
                .filter(|(k, v)| y.get(*k).is_some_and(|w| w != *v))
                .map(|(k, _)| k.clone())
                .collect::<std::collections::BTreeSet<String>>()
        };
        let one = |key: &'static str| {
            move |t: &Term| match (key, t) {
                ("suite", Term::Suite(v))
                | ("bench", Term::Bench(v))
                | ("label", Term::Label(v)) => Some((key.to_string(), v.clone())),
                _ => None,
            }
        };
        Contrast {
            suite: !differ(&one("suite")).is_empty(),
            bench: !differ(&one("bench")).is_empty(),
            params: differ(&|t: &Term| match t {
                Term::Param(k, v) => Some((k.clone(), v.clone())),
                _ => None,
            }),
            label: !differ(&one("label")).is_empty(),
        }
    }
}

impl Term {
    /// Whether the term is judged on a run's head in memory rather than in SQL.
    pub fn judged_on_heads(&self) -> bool {
        matches!(self, Term::Source(_) | Term::Param(..))
    }
}

/// Whether a stored parameter equals the text of a `param.` term: numbers as numbers,
/// flags as `true`/`false`, text exactly.
pub fn param_equals(p: &Param, want: &str) -> bool {
    match p {
        Param::Num(v) => want.trim().parse::<f64>().is_ok_and(|w| w == *v),
        Param::Bool(b) => want.trim() == if *b { "true" } else { "false" },
        Param::Text(t) => t == want,
    }
}

/// A run's time: its `time` tag, else its ingest time.
pub fn run_time(r: &StoredRun) -> Option<DateTime<Utc>> {
    time_of(&r.run.tags, &r.ingested_at)
}

/// The time of a run with these tags, from a source ingested at `ingested_at`: its `time`
/// tag, else its ingest time (RFC 3339 both).
pub fn time_of(tags: &BTreeMap<String, String>, ingested_at: &str) -> Option<DateTime<Utc>> {
    let parse = |s: &str| {
        DateTime::parse_from_rfc3339(s)
            .ok()
            .map(|d| d.with_timezone(&Utc))
    };
    tags.get("time")
        .and_then(|t| parse(t))
        .or_else(|| parse(ingested_at))
}

/// [`time_of`] as the store indexes it: nanoseconds since 1970 UTC; `None` when there is
/// none or it lies outside what 64 bits of nanoseconds hold (1677–2262).
pub fn time_ns(tags: &BTreeMap<String, String>, ingested_at: &str) -> Option<i64> {
    time_of(tags, ingested_at).and_then(|t| t.timestamp_nanos_opt())
}

/// What the history terms judge a run by: its id, its commit and its time
/// ([`run_time`]). A selection's heads are many; these keys keep them small.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistoryKey {
    pub id: i64,
    pub commit: Option<Box<str>>,
    pub time: Option<DateTime<Utc>>,
}

impl HistoryKey {
    pub fn of(r: &StoredRun) -> HistoryKey {
        HistoryKey {
            id: r.id,
            commit: r.run.tags.get("commit").map(|c| c.as_str().into()),
            time: run_time(r),
        }
    }
}

/// The runs of the `n` most recent commits (a run without a commit is its own), by the
/// latest run time of each commit, then the highest run id; run order is kept.
pub fn latest(runs: Vec<HistoryKey>, n: usize) -> Vec<HistoryKey> {
    // Borrowed keys: a history's heads are many, its commits few.
    #[derive(PartialEq, Eq, Hash)]
    enum Key<'a> {
        Commit(&'a str),
        Run(i64),
    }
    fn key(r: &HistoryKey) -> Key<'_> {
        match &r.commit {
            Some(c) => Key::Commit(c),
            None => Key::Run(r.id),
        }
    }
    type Recency = (Option<DateTime<Utc>>, i64);
    let mut recency: HashMap<Key, Recency> = HashMap::new();
    for r in &runs {
        let e = recency.entry(key(r)).or_insert((None, i64::MIN));
        *e = (e.0.max(r.time), e.1.max(r.id));
    }
    let mut order: Vec<(Key, Recency)> = recency.into_iter().collect();
    order.sort_by_key(|e| std::cmp::Reverse(e.1));
    order.truncate(n);
    let keep: std::collections::HashSet<Key> = order.into_iter().map(|(k, _)| k).collect();
    let kept: Vec<bool> = runs.iter().map(|r| keep.contains(&key(r))).collect();
    drop(keep);
    runs.into_iter()
        .zip(kept)
        .filter_map(|(r, k)| k.then_some(r))
        .collect()
}

/// Up to `n` distinct stored values nearest to `want`: those containing it or
/// contained in it (case-insensitively) first, then those within a small edit distance
/// of it, whole or by one of their dot- or underscore-separated parts (`qsp` is near
/// `nginx_ups.qps`).
pub fn near_matches<'a>(want: &str, stored: &[&'a str], n: usize) -> Vec<&'a str> {
    let limit = (want.chars().count() / 3).max(2);
    let mut scored: Vec<(usize, &str)> = ranked(want, stored)
        .into_iter()
        .filter(|(d, _)| *d <= limit)
        .collect();
    scored.truncate(n);
    scored.into_iter().map(|x| x.1).collect()
}

/// Up to `n` distinct stored values, nearest to `want` first ([`near_matches`]' measure),
/// however far: what to list when none is near.
pub fn nearest_first<'a>(want: &str, stored: &[&'a str], n: usize) -> Vec<&'a str> {
    let mut scored = ranked(want, stored);
    scored.truncate(n);
    scored.into_iter().map(|x| x.1).collect()
}

/// The distinct non-empty stored values with their distance to `want`, nearest first
/// (ties in name order): 0 for containment either way, else the least edit distance to
/// the whole value, or to one of its parts when that is a closer call than the whole's
/// (within a third of `want`, at least 1: any part of three letters is two edits from
/// `qsp`).
fn ranked<'a>(want: &str, stored: &[&'a str]) -> Vec<(usize, &'a str)> {
    let w = want.to_lowercase();
    let mut scored: Vec<(usize, &str)> = Vec::new();
    for &s in stored {
        if s.is_empty() || scored.iter().any(|x| x.1 == s) {
            continue;
        }
        let l = s.to_lowercase();
        let score = if l.contains(&w) || w.contains(&l) {
            0
        } else {
            let part_limit = (w.chars().count() / 3).max(1);
            l.split(['.', '_'])
                .filter(|part| !part.is_empty())
                .map(|part| edit_distance(&w, part))
                .filter(|d| *d <= part_limit)
                .chain([edit_distance(&w, &l)])
                .min()
                .unwrap_or(usize::MAX)
        };
        scored.push((score, s));
    }
    scored.sort();
    scored
}

/// Edit distance over characters counting a swap of two neighbouring characters as one
/// edit, as typing makes it (`qsp` for `qps`): the optimal string alignment distance.
pub fn edit_distance(a: &str, b: &str) -> usize {
    strsim::osa_distance(a, b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_term() {
        let s =
            Selector::parse("label=a, b c;suite=jlbh;run=1+2;source=x/y.txt;tag.host=h1").unwrap();
        assert_eq!(
            s.terms,
            vec![
                Term::Label("a, b c".into()),
                Term::Suite("jlbh".into()),
                Term::Runs(vec![1, 2]),
                Term::Source("x/y.txt".into()),
                Term::Tag("host".into(), "h1".into()),
            ]
        );
        assert_eq!(Selector::parse("").unwrap(), Selector::all());
    }

    #[test]
    fn bench_and_param_terms_keep_commas_and_equals_in_values() {
        let s = Selector::parse("bench=BenchmarkGet/size=10,kind=lru;param.note=a=b, c").unwrap();
        assert_eq!(
            s.terms,
            vec![
                Term::Bench("BenchmarkGet/size=10,kind=lru".into()),
                Term::Param("note".into(), "a=b, c".into()),
            ]
        );
        // `,kind=` is not a selector key: no hint.
        assert_eq!(
            Selector::comma_hint("bench=BenchmarkGet/size=10,kind=lru"),
            None
        );
        assert!(Selector::comma_hint("bench=x,param.size=1").is_some());
        assert!(s.judged_on_heads());
        assert!(!Selector::parse("bench=x").unwrap().judged_on_heads());
    }

    #[test]
    fn params_compare_numbers_as_numbers() {
        assert!(param_equals(&Param::Num(20000.0), "20000"));
        assert!(param_equals(&Param::Num(20000.0), "2e4"));
        assert!(!param_equals(&Param::Num(20000.0), "20001"));
        assert!(!param_equals(&Param::Num(1.0), "one"));
        assert!(param_equals(&Param::Text("before".into()), "before"));
        assert!(!param_equals(&Param::Text("20000".into()), "20000.0"));
        assert!(param_equals(&Param::Bool(true), "true"));
    }

    #[test]
    fn contrasts_are_the_identity_terms_named_differently_on_both_sides() {
        let c = |a: &str, b: &str| {
            Contrast::between(&Selector::parse(a).unwrap(), &Selector::parse(b).unwrap())
        };
        let hf = c("bench=sleep 0.01", "bench=sleep 0.02");
        assert!(hf.bench && !hf.suite && hf.params.is_empty());
        let go = c("suite=go;param.note=before", "suite=go;param.note=after");
        assert!(!go.bench && !go.suite);
        assert_eq!(go.params.iter().collect::<Vec<_>>(), ["note"]);
        // Named on one side only, or alike: matched, not compared.
        assert_eq!(c("bench=a", "tag.commit=x"), Contrast::default());
        assert_eq!(c("suite=s;bench=a", "suite=s;bench=a"), Contrast::default());
    }

    #[test]
    fn commas_before_keys_get_a_hint() {
        let h = Selector::comma_hint("suite=tsar,label=x").unwrap();
        assert!(h.contains("\"suite=tsar;label=x\""), "{h}");
        assert_eq!(Selector::comma_hint("label=20,000 msg/s"), None);
        assert_eq!(Selector::comma_hint("label=a, b"), None);
    }

    #[test]
    fn near_matches_rank_containment_then_edit_distance() {
        let stored = ["Before this changes", "After these changes", "jlbh", "tsar"];
        assert_eq!(near_matches("before", &stored, 5), ["Before this changes"]);
        assert_eq!(near_matches("tsra", &stored, 5), ["tsar"]);
        assert!(near_matches("zookeeper", &stored, 5).is_empty());
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("qsp", "qps"), 1);
        // tsar's metrics (fixtures/real/tsar): `qsp` is `qps` swapped, a part of two of
        // them; `php` is two edits away and not near.
        let tsar = [
            "nginx_ups.fbt",
            "nginx_ups.qps",
            "php_fpm.accept",
            "php_fpm.idle",
            "php_fpm.qps",
            "www_foo_com_8080.bytin",
        ];
        assert_eq!(
            near_matches("qsp", &tsar, 5),
            ["nginx_ups.qps", "php_fpm.qps"]
        );
        assert_eq!(nearest_first("zzz", &tsar, 2).len(), 2);
    }

    #[test]
    fn rejects_bad_terms() {
        assert!(matches!(
            Selector::parse("label"),
            Err(SelectorError::NotKeyValue(_))
        ));
        assert!(matches!(
            Selector::parse("colour=red"),
            Err(SelectorError::UnknownKey(_))
        ));
        assert!(matches!(
            Selector::parse("run=1+x"),
            Err(SelectorError::BadRunIds(_))
        ));
        assert!(matches!(
            Selector::parse("latest=0"),
            Err(SelectorError::BadLatest(_))
        ));
        assert!(matches!(
            Selector::parse("time<yesterday"),
            Err(SelectorError::BadTime(_))
        ));
        assert!(matches!(
            Selector::parse("run=3..x"),
            Err(SelectorError::BadRunIds(_))
        ));
        assert_eq!(
            Selector::parse("run=5..3").unwrap_err().to_string(),
            "run=5..3 selects nothing: a range runs from the lower id to the higher (run=3..5)"
        );
        assert!(Selector::parse("run=3..3").is_ok());
    }

    fn run(id: i64, commit: Option<&str>, time: &str) -> StoredRun {
        let mut tags = std::collections::BTreeMap::new();
        if let Some(c) = commit {
            tags.insert("commit".to_string(), c.to_string());
        }
        tags.insert("time".to_string(), time.to_string());
        StoredRun {
            id,
            suite: "s".into(),
            label: "l".into(),
            format: "f".into(),
            source: "x".into(),
            source_id: id,
            block_id: id,
            block_index: 0,
            ingested_at: "2030-01-01T00:00:00Z".into(),
            run: bench_db_parsers::Run {
                bench: None,
                config: Default::default(),
                index: 1,
                first_line: 1,
                last_line: 1,
                params: Default::default(),
                tags,
                series: Vec::new(),
            },
            printed: Vec::new(),
        }
    }

    fn ids(sel: &str, runs: &[StoredRun]) -> Vec<i64> {
        Selector::parse(sel)
            .unwrap()
            .post_filter(runs.iter().map(HistoryKey::of).collect())
            .iter()
            .map(|r| r.id)
            .collect()
    }

    #[test]
    fn sources_match_by_suffix_and_relative_path() {
        let stored = "/work/shared/seeds/000_6d13.txt";
        assert!(source_matches(stored, stored, None));
        assert!(source_matches(stored, "seeds/000_6d13.txt", None));
        assert!(source_matches(stored, "000_6d13.txt", None));
        // A suffix must be whole components.
        assert!(!source_matches(stored, "6d13.txt", None));
        assert!(source_matches("./logs/a.txt", "logs/a.txt", None));
        // The same file reached from another directory.
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("logs")).unwrap();
        let file = dir.path().join("logs/run.txt");
        std::fs::write(&file, "x").unwrap();
        assert!(source_matches(
            &file.display().to_string(),
            "../logs/run.txt",
            Some(&dir.path().join("logs"))
        ));
    }

    #[test]
    fn history_terms_filter_after_the_store() {
        let runs = vec![
            run(1, Some("a"), "2024-01-01T00:00:00Z"),
            run(2, Some("a"), "2024-01-01T00:00:00Z"),
            run(3, Some("c"), "2024-03-01T00:00:00Z"),
            run(4, Some("b"), "2024-02-01T00:00:00Z"),
            run(5, Some("b"), "2024-02-01T00:00:00Z"),
        ];
        // The two most recent commits are c and b, whatever their ids.
        assert_eq!(ids("latest=2", &runs), vec![3, 4, 5]);
        assert_eq!(ids("latest=1", &runs), vec![3]);
        assert_eq!(ids("run=2..4", &runs), vec![2, 3, 4]);
        assert_eq!(ids("time>=2024-02-01T00:00:00Z", &runs), vec![3, 4, 5]);
        assert_eq!(
            ids("time<2024-02-01T02:00:00+01:00", &runs),
            vec![1, 2, 4, 5]
        );
        // latest applies to what the other terms kept.
        assert_eq!(ids("latest=1;time<2024-02-15T00:00:00Z", &runs), vec![4, 5]);
        let bare = vec![
            run(7, None, "2024-01-01T00:00:00Z"),
            run(8, None, "2024-01-03T00:00:00Z"),
            run(9, None, "2024-01-02T00:00:00Z"),
        ];
        assert_eq!(ids("latest=2", &bare), vec![8, 9]);
    }
}
