//! SELECTOR: which runs a command works on.
//!
//! Terms `label=TEXT`, `suite=NAME`, `run=ID[+ID...]`, `source=PATH`, `tag.KEY=VALUE`,
//! joined by `;`; all must hold; matching is exact, but `source=` also takes a path
//! suffix or a relative path (see `cmd::select`). Values may contain commas and spaces;
//! a comma before another `KEY=` is most likely a mistaken separator and gets a hint.

use thiserror::Error;

/// One condition on a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Term {
    Label(String),
    Suite(String),
    Runs(Vec<i64>),
    Source(String),
    Tag(String, String),
}

/// A conjunction of terms; empty selects every run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selector {
    pub terms: Vec<Term>,
}

#[derive(Debug, Error, PartialEq, Eq)]
pub enum SelectorError {
    #[error("selector term {0:?} is not KEY=VALUE (keys: label, suite, run, source, tag.NAME)")]
    NotKeyValue(String),
    #[error("unknown selector key {0:?} (keys: label, suite, run, source, tag.NAME)")]
    UnknownKey(String),
    #[error("run ids must be whole numbers joined by '+', got {0:?}")]
    BadRunIds(String),
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
        for raw in text.split(';') {
            if raw.trim().is_empty() {
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
                k => return Err(SelectorError::UnknownKey(k.to_string())),
            };
            terms.push(term);
        }
        Ok(Selector { terms })
    }

    /// A hint when `text` seems to join terms with `,` instead of `;`
    /// (`suite=tsar,label=x`), with the selector it probably meant.
    pub fn comma_hint(text: &str) -> Option<String> {
        const KEYS: [&str; 5] = ["label=", "suite=", "run=", "source=", "tag."];
        let mut fixed = String::with_capacity(text.len());
        let mut changed = false;
        let mut rest = text;
        while let Some(i) = rest.find(',') {
            fixed.push_str(&rest[..i]);
            let after = rest[i + 1..].trim_start();
            if KEYS.iter().any(|k| after.starts_with(k)) {
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

/// Up to `n` distinct stored values nearest to `want`: those containing it or
/// contained in it (case-insensitively) first, then those within a small edit distance.
pub fn near_matches<'a>(want: &str, stored: &[&'a str], n: usize) -> Vec<&'a str> {
    let w = want.to_lowercase();
    let mut scored: Vec<(usize, &str)> = Vec::new();
    for &s in stored {
        if s.is_empty() || scored.iter().any(|x| x.1 == s) {
            continue;
        }
        let l = s.to_lowercase();
        let score = if l.contains(&w) || (!l.is_empty() && w.contains(&l)) {
            0
        } else {
            let d = edit_distance(&w, &l);
            if d > (w.chars().count() / 3).max(2) {
                continue;
            }
            d
        };
        scored.push((score, s));
    }
    scored.sort();
    scored.into_iter().take(n).map(|x| x.1).collect()
}

/// Levenshtein distance over characters.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != *cb))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
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
    }
}
