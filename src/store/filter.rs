//! The part of a selection a store answers in SQL, and its `WHERE` clause, built once
//! from the selector's terms for either backend's [`Dialect`].
//!
//! `source=` terms (a path suffix or a path relative to the current directory),
//! `param.` terms (numbers compare as numbers) and the history terms are judged on the
//! runs' heads by [`super::Db`], never here.

use crate::selector::{Selector, Term};

/// A value bound to a placeholder.
#[derive(Debug, Clone, PartialEq)]
pub enum Arg {
    Text(String),
    Int(i64),
    Ints(Vec<i64>),
    Texts(Vec<String>),
}

/// How one backend spells the conditions of a [`Filter`].
pub trait Dialect {
    /// The placeholder of the `n`th bound value (1-based).
    fn placeholder(&self, n: usize, arg: &Arg) -> String;
    /// The condition that the run's id is among the ids bound to the placeholder(s).
    fn id_among(&self, ids: &[i64], args: &mut Vec<Arg>) -> String;
    /// The condition that `column` is among the texts bound to the placeholder(s).
    fn text_among(&self, column: &str, values: &[String], args: &mut Vec<Arg>) -> String;
}

/// A condition on the columns the store keeps for the history terms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Bound {
    /// Run ids from A to B inclusive (`run=A..B`).
    Ids(i64, i64),
    /// The run's time (`run.at_ns`) at or after this many nanoseconds (`time>=`).
    AtFrom(i64),
    /// The run's time before this many nanoseconds (`time<`).
    AtBefore(i64),
    /// The runs of these commits, and these runs.
    CommitsOrRuns(Vec<String>, Vec<i64>),
}

/// The terms a store answers itself: label, suite, tags and run ids, and [`Bound`]s.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filter {
    terms: Vec<Term>,
    bounds: Vec<Bound>,
}

impl Filter {
    /// The SQL part of `sel`: every term but `source=` and `param.` (and no history term).
    pub fn of(sel: &Selector) -> Filter {
        Filter {
            terms: sel
                .terms
                .iter()
                .filter(|t| !t.judged_on_heads())
                .cloned()
                .collect(),
            bounds: Vec::new(),
        }
    }

    /// The runs with these ids.
    pub fn ids(ids: Vec<i64>) -> Filter {
        Filter {
            terms: vec![Term::Runs(ids)],
            bounds: Vec::new(),
        }
    }

    /// This filter and `bound`.
    pub fn and(mut self, bound: Bound) -> Filter {
        self.bounds.push(bound);
        self
    }

    /// `WHERE …` (empty for no condition) over `run r` (no other table is named, so a
    /// query may join `block b` and `source s` or not), and its bound values in
    /// placeholder order.
    pub fn where_clause(&self, d: &dyn Dialect) -> (String, Vec<Arg>) {
        self.clause(d, false)
    }

    /// [`Filter::where_clause`] for a walk along an index of `run` ([`super::Store::recent`]):
    /// the tag terms test each run walked (`EXISTS`, a probe by the run's id) rather than
    /// list the tag's runs first, so the walk can stop early without reading them all.
    pub fn walk_clause(&self, d: &dyn Dialect) -> (String, Vec<Arg>) {
        self.clause(d, true)
    }

    fn clause(&self, d: &dyn Dialect, probe: bool) -> (String, Vec<Arg>) {
        let mut conds = Vec::new();
        let mut args: Vec<Arg> = Vec::new();
        let bind = |args: &mut Vec<Arg>, a: Arg| {
            let p = d.placeholder(args.len() + 1, &a);
            args.push(a);
            p
        };
        for term in &self.terms {
            match term {
                Term::Label(v) => {
                    let p = bind(&mut args, Arg::Text(v.clone()));
                    conds.push(format!("r.label = {p}"));
                }
                Term::Suite(v) => {
                    let p = bind(&mut args, Arg::Text(v.clone()));
                    conds.push(format!("r.suite = {p}"));
                }
                // A run has a tag when its block's runs all share it (block_tag) or it is
                // its own (run_tag). A probe looks at the block's row first, where most
                // are; a list is one `IN` over both (an `OR` of two would make SQLite
                // sort the runs it finds instead of reading them in id order).
                Term::Tag(k, v) => {
                    let pair = |args: &mut Vec<Arg>| {
                        (
                            bind(args, Arg::Text(k.clone())),
                            bind(args, Arg::Text(v.clone())),
                        )
                    };
                    conds.push(if probe {
                        let (bk, bv) = pair(&mut args);
                        let (rk, rv) = pair(&mut args);
                        // Counts, not `EXISTS`: PostgreSQL plans an `EXISTS` under an `OR`
                        // as a hash of every block with the tag (6 ms at 100k runs, growing
                        // with the history), where a walk needs a probe per run it passes.
                        format!(
                            "((SELECT count(*) FROM block_tag bt \
                              WHERE bt.block_id = r.block_id AND bt.key = {bk} AND bt.value = {bv}) > 0 \
                             OR (SELECT count(*) FROM run_tag t \
                              WHERE t.run_id = r.id AND t.key = {rk} AND t.value = {rv}) > 0)"
                        )
                    } else {
                        let (rk, rv) = pair(&mut args);
                        let (bk, bv) = pair(&mut args);
                        tagged_runs(
                            &format!("t.key = {rk} AND t.value = {rv}"),
                            &format!("bt.key = {bk} AND bt.value = {bv}"),
                        )
                    });
                }
                Term::Bench(v) => {
                    let p = bind(&mut args, Arg::Text(v.clone()));
                    conds.push(format!("r.bench = {p}"));
                }
                Term::Runs(ids) => conds.push(d.id_among(ids, &mut args)),
                Term::Source(_) | Term::Param(..) => {
                    unreachable!("Filter::of leaves the terms judged on heads out")
                }
            }
        }
        for bound in &self.bounds {
            match bound {
                Bound::Ids(a, b) => {
                    let pa = bind(&mut args, Arg::Int(*a));
                    let pb = bind(&mut args, Arg::Int(*b));
                    conds.push(format!("r.id BETWEEN {pa} AND {pb}"));
                }
                Bound::AtFrom(t) => {
                    let p = bind(&mut args, Arg::Int(*t));
                    conds.push(format!("r.at_ns >= {p}"));
                }
                Bound::AtBefore(t) => {
                    let p = bind(&mut args, Arg::Int(*t));
                    conds.push(format!("r.at_ns < {p}"));
                }
                Bound::CommitsOrRuns(commits, ids) => {
                    let key = bind(&mut args, Arg::Text("commit".to_string()));
                    let among = d.text_among("t.value", commits, &mut args);
                    let bkey = bind(&mut args, Arg::Text("commit".to_string()));
                    let bamong = d.text_among("bt.value", commits, &mut args);
                    let mut any = vec![tagged_runs(
                        &format!("t.key = {key} AND {among}"),
                        &format!("bt.key = {bkey} AND {bamong}"),
                    )];
                    if !ids.is_empty() {
                        any.push(d.id_among(ids, &mut args));
                    }
                    conds.push(format!("({})", any.join(" OR ")));
                }
            }
        }
        if conds.is_empty() {
            (String::new(), args)
        } else {
            (format!("WHERE {}", conds.join(" AND ")), args)
        }
    }
}

/// The runs with a tag, as one list: those whose own rows (`run_tag t`) meet `own`, and
/// those of the blocks whose shared rows (`block_tag bt`) meet `shared`.
fn tagged_runs(own: &str, shared: &str) -> String {
    format!(
        "r.id IN (SELECT t.run_id FROM run_tag t WHERE {own} \
         UNION ALL SELECT rb.id FROM block_tag bt JOIN run rb ON rb.block_id = bt.block_id \
         WHERE {shared})"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Numbered;
    impl Dialect for Numbered {
        fn placeholder(&self, n: usize, _: &Arg) -> String {
            format!("${n}")
        }
        fn id_among(&self, ids: &[i64], args: &mut Vec<Arg>) -> String {
            args.push(Arg::Ints(ids.to_vec()));
            format!("r.id = ANY(${})", args.len())
        }
        fn text_among(&self, column: &str, values: &[String], args: &mut Vec<Arg>) -> String {
            args.push(Arg::Texts(values.to_vec()));
            format!("{column} = ANY(${})", args.len())
        }
    }

    #[test]
    fn source_terms_stay_out_and_placeholders_count_up() {
        let sel = Selector::parse("suite=a;source=x.txt;tag.commit=c1;run=3+4;label=l").unwrap();
        let (sql, args) = Filter::of(&sel).where_clause(&Numbered);
        assert_eq!(
            sql,
            "WHERE r.suite = $1 \
             AND r.id IN (SELECT t.run_id FROM run_tag t WHERE t.key = $2 AND t.value = $3 \
             UNION ALL SELECT rb.id FROM block_tag bt JOIN run rb ON rb.block_id = bt.block_id \
             WHERE bt.key = $4 AND bt.value = $5) \
             AND r.id = ANY($6) AND r.label = $7"
        );
        assert_eq!(
            args,
            [
                Arg::Text("a".into()),
                Arg::Text("commit".into()),
                Arg::Text("c1".into()),
                Arg::Text("commit".into()),
                Arg::Text("c1".into()),
                Arg::Ints(vec![3, 4]),
                Arg::Text("l".into()),
            ]
        );
        assert_eq!(
            Filter::of(&Selector::all()).where_clause(&Numbered),
            (String::new(), vec![])
        );
    }

    #[test]
    fn bounds_follow_the_terms() {
        let sel = Selector::parse("suite=a").unwrap();
        let f = Filter::of(&sel)
            .and(Bound::Ids(2, 9))
            .and(Bound::AtBefore(1_000))
            .and(Bound::CommitsOrRuns(vec!["c1".into()], vec![7]));
        let (sql, args) = f.where_clause(&Numbered);
        assert_eq!(
            sql,
            "WHERE r.suite = $1 AND r.id BETWEEN $2 AND $3 AND r.at_ns < $4 \
             AND (r.id IN (SELECT t.run_id FROM run_tag t WHERE t.key = $5 AND t.value = ANY($6) \
             UNION ALL SELECT rb.id FROM block_tag bt JOIN run rb ON rb.block_id = bt.block_id \
             WHERE bt.key = $7 AND bt.value = ANY($8)) \
             OR r.id = ANY($9))"
        );
        assert_eq!(args.len(), 9);
        assert_eq!(args[5], Arg::Texts(vec!["c1".into()]));
        assert_eq!(args[7], Arg::Texts(vec!["c1".into()]));
    }
}
