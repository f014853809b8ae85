//! SELECTOR: which runs a command works on.
//!
//! Terms `label=TEXT`, `suite=NAME`, `run=ID[+ID...]`, `source=PATH`, `tag.KEY=VALUE`,
//! joined by `;`; all must hold; matching is exact. Values may contain commas and spaces.

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

    /// Parses an optional selector (absent = every run).
    pub fn parse_opt(text: Option<&str>) -> Result<Self, SelectorError> {
        text.map_or(Ok(Selector::all()), Selector::parse)
    }
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
