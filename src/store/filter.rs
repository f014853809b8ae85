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
}

/// How one backend spells the conditions of a [`Filter`].
pub trait Dialect {
    /// The placeholder of the `n`th bound value (1-based).
    fn placeholder(&self, n: usize, arg: &Arg) -> String;
    /// The value bound for a tag's key (the key itself, or a path to it).
    fn tag_key(&self, key: &str) -> String {
        key.to_string()
    }
    /// The condition that the run's tag named by placeholder `key` equals `value`.
    fn tag_equals(&self, key: &str, value: &str) -> String;
    /// The condition that the run's id is among the ids bound to the placeholder(s).
    fn id_among(&self, ids: &[i64], args: &mut Vec<Arg>) -> String;
}

/// The terms a store answers itself: label, suite, tags and run ids.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filter {
    terms: Vec<Term>,
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
        }
    }

    /// The runs with these ids.
    pub fn ids(ids: Vec<i64>) -> Filter {
        Filter {
            terms: vec![Term::Runs(ids)],
        }
    }

    /// `WHERE …` (empty for no condition) over `run r`, `block b`, `source s`, and its
    /// bound values in placeholder order.
    pub fn where_clause(&self, d: &dyn Dialect) -> (String, Vec<Arg>) {
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
                Term::Tag(k, v) => {
                    let pk = bind(&mut args, Arg::Text(d.tag_key(k)));
                    let pv = bind(&mut args, Arg::Text(v.clone()));
                    conds.push(d.tag_equals(&pk, &pv));
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
        if conds.is_empty() {
            (String::new(), args)
        } else {
            (format!("WHERE {}", conds.join(" AND ")), args)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Numbered;
    impl Dialect for Numbered {
        fn placeholder(&self, n: usize, _: &Arg) -> String {
            format!("${n}")
        }
        fn tag_equals(&self, key: &str, value: &str) -> String {
            format!("tag({key}) = {value}")
        }
        fn id_among(&self, ids: &[i64], args: &mut Vec<Arg>) -> String {
            args.push(Arg::Ints(ids.to_vec()));
            format!("r.id = ANY(${})", args.len())
        }
    }

    #[test]
    fn source_terms_stay_out_and_placeholders_count_up() {
        let sel = Selector::parse("suite=a;source=x.txt;tag.commit=c1;run=3+4;label=l").unwrap();
        let (sql, args) = Filter::of(&sel).where_clause(&Numbered);
        assert_eq!(
            sql,
            "WHERE r.suite = $1 AND tag($2) = $3 AND r.id = ANY($4) AND r.label = $5"
        );
        assert_eq!(
            args,
            [
                Arg::Text("a".into()),
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
}
