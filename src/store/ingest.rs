//! Ingest, written once over [`Store`]: a parser's items become the rows of one source,
//! under the suite, label and tags the command line decides, in one transaction of the
//! store. The content hash is computed while the source is read and checked inside that
//! transaction, so a concurrent ingest of the same content ends `unchanged`.
//!
//! Parsed blocks arrive with every number finite (the parser crate's `finite` check runs
//! in `Format::read`): a number that is not finite has no stored form that reads back
//! (JSON writes it as `null`), so it never reaches a store.

use super::backend::{Digest, IngestError};
use super::db::Db;
use super::rows::{BlockEncoded, BlockRows, RunRows, SourceRecord};
use bench_db_parsers::{Block, ParseError, Parsed};
use std::collections::BTreeMap;

/// Provenance of one source.
#[derive(Debug, Clone)]
pub struct SourceMeta {
    /// Path as given by the user (quoted when not UTF-8), `-` for standard input, or an
    /// origin such as `run loopback`.
    pub path: String,
    pub format: String,
    /// Parser name and version.
    pub parser: String,
}

/// What the command line decides for every block of a source.
#[derive(Debug, Clone, Default)]
pub struct BlockDefaults {
    pub suite: String,
    /// `--label`: overrides every block's label.
    pub label_override: Option<String>,
    /// Label of a block that has none of its own (e.g. the file name).
    pub fallback_label: String,
    /// `--tag`s and the detected commit, branch, host: added to every run, over its own.
    pub tags: BTreeMap<String, String>,
    /// A run time derived from the commit or the file (not given by the user): a run's own
    /// time from its data wins over it.
    pub time_fallback: Option<String>,
    /// `--suite`, when given (else `suite` is the format's name).
    pub suite_given: bool,
}

impl BlockDefaults {
    /// The identity of the metadata these defaults carry (see [`metadata_identity`]).
    pub fn identity(&self) -> String {
        metadata_identity(
            &self.tags,
            self.label_override.as_deref(),
            self.suite_given.then_some(self.suite.as_str()),
        )
    }
}

/// Hex SHA-256 of the run metadata a user gives at ingest: the tags (commit, branch, the
/// explicit `--tag`s and `--time`) but not the host or the dirty flag, and `--label` and
/// `--suite` when given. The same bytes under another identity are stored as other runs;
/// under the same one they are `unchanged` (a `touch` changes nothing).
pub fn metadata_identity(
    tags: &BTreeMap<String, String>,
    label: Option<&str>,
    suite: Option<&str>,
) -> String {
    use sha2::Digest as _;
    let kept: BTreeMap<&str, &str> = tags
        .iter()
        .filter(|(k, _)| !matches!(k.as_str(), "host" | "dirty"))
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let doc = serde_json::json!({ "tags": kept, "label": label, "suite": suite });
    hex::encode(sha2::Sha256::digest(doc.to_string().as_bytes()))
}

/// What one ingest stored.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Ingested {
    pub blocks: usize,
    pub runs: usize,
    pub points: usize,
    /// The content was already stored: nothing was written.
    pub unchanged: bool,
    /// The ids of the stored runs, in order.
    pub run_ids: Vec<i64>,
    /// Passages the parser skipped on purpose: (line, message).
    pub warnings: Vec<(u64, String)>,
}

/// The output of a built-in benchmark, stored like an ingested source.
#[derive(Debug, Clone)]
pub struct Generated<'a> {
    /// Where it came from, stored as the source path (`run loopback`).
    pub origin: &'a str,
    /// Format name stored with the runs (`loopback`).
    pub format: &'a str,
    /// The printed output; its hash identifies the source.
    pub text: &'a str,
    pub blocks: &'a [Block],
    pub suite: &'a str,
    pub label_override: Option<&'a str>,
    pub tags: &'a BTreeMap<String, String>,
}

impl Generated<'_> {
    /// The source record and block defaults an ingest of this output takes.
    fn ingest_parts(&self) -> (SourceMeta, BlockDefaults) {
        let meta = SourceMeta {
            path: self.origin.to_string(),
            format: self.format.to_string(),
            parser: format!("{} {}", self.format, env!("CARGO_PKG_VERSION")),
        };
        let defaults = BlockDefaults {
            suite: self.suite.to_string(),
            label_override: self.label_override.map(str::to_string),
            fallback_label: self.format.to_string(),
            tags: self.tags.clone(),
            time_fallback: None,
            suite_given: true,
        };
        (meta, defaults)
    }

    /// The blocks as parsed items.
    fn items(&self) -> impl Iterator<Item = Result<Parsed, ParseError>> + '_ {
        self.blocks.iter().cloned().map(|b| Ok(Parsed::Block(b)))
    }

    /// The digest of the printed output, which identifies the source.
    fn digest(&self) -> Digest {
        Digest::of(self.text.as_bytes())
    }
}

impl Db {
    /// The format a source with this content hash was stored as under this metadata
    /// identity ([`metadata_identity`]), if it is stored.
    pub fn stored_format(&self, sha256: &str, identity: &str) -> anyhow::Result<Option<String>> {
        self.store.stored_format(sha256, identity)
    }

    /// Which of these sizes, in bytes, some stored source has (a file of such a size is
    /// worth hashing before it is parsed).
    pub fn stored_sizes(&self, sizes: &[u64]) -> anyhow::Result<std::collections::HashSet<u64>> {
        self.store.stored_sizes(sizes)
    }

    /// Stores every block of one source in one transaction: all or nothing.
    ///
    /// `digest` is called once the items are exhausted (the source has been read) and
    /// identifies the content; when it is already stored, nothing is written and
    /// `unchanged` is set. A parse error stores nothing. A source that yields no block
    /// stores nothing and returns `blocks == 0`.
    pub fn ingest<'a>(
        &mut self,
        meta: &SourceMeta,
        items: impl Iterator<Item = Result<Parsed, ParseError>> + 'a,
        defaults: &BlockDefaults,
        digest: impl FnOnce() -> std::io::Result<Digest>,
    ) -> Result<Ingested, IngestError> {
        let mut prepare = Prepare::new(defaults);
        let items = items.map(move |item| prepare.item(item?));
        self.ingest_prepared(meta, items, defaults, digest)
    }

    /// [`Db::ingest`] of items already through [`Prepare`] with the same `defaults`
    /// (on another thread, say, beside the writes of the blocks before them).
    pub fn ingest_prepared<'a>(
        &mut self,
        meta: &SourceMeta,
        items: impl Iterator<Item = Result<Prepared, IngestError>> + 'a,
        defaults: &BlockDefaults,
        digest: impl FnOnce() -> std::io::Result<Digest>,
    ) -> Result<Ingested, IngestError> {
        let record = SourceRecord {
            path: meta.path.clone(),
            sha256: String::new(),
            bytes: 0,
            format: meta.format.clone(),
            parser: meta.parser.clone(),
            ingested_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            identity: defaults.identity(),
        };
        let mut feed = Feed {
            items,
            warnings: Vec::new(),
        };
        let mut digest = Some(digest);
        let mut once = || match digest.take() {
            Some(d) => d().map_err(IngestError::from),
            None => unreachable!("a store asks for the digest once"),
        };
        let written = self
            .store
            .write_source(&record, None, &mut feed, &mut once)?;
        Ok(Ingested {
            blocks: if written.unchanged { 0 } else { written.blocks },
            runs: written.run_ids.len(),
            points: written.points,
            unchanged: written.unchanged,
            run_ids: written.run_ids,
            warnings: feed.warnings,
        })
    }

    /// Stores the output of a built-in benchmark; returns the new run ids.
    pub fn insert_generated(&mut self, g: &Generated) -> anyhow::Result<Vec<i64>> {
        let (meta, defaults) = g.ingest_parts();
        let done = self.ingest(&meta, g.items(), &defaults, || Ok(g.digest()))?;
        Ok(done.run_ids)
    }
}

/// A parser's item made ready for a store ([`Prepare`]).
#[derive(Debug)]
pub enum Prepared {
    /// A block as its rows, the stored form of its columns computed.
    Block(BlockRows),
    /// A passage the parser skipped on purpose.
    Warning { line: u64, message: String },
}

/// Turns a parser's items into the rows of one source: numbers the blocks, puts them under
/// the suite, label and tags the command line decides, and computes the stored form of
/// their columns (JSON, packed points). Pure work, apart from the store's: an ingest does
/// it on the parsing thread while the store writes the blocks before.
pub struct Prepare<'d> {
    defaults: &'d BlockDefaults,
    blocks: i64,
}

impl<'d> Prepare<'d> {
    pub fn new(defaults: &'d BlockDefaults) -> Self {
        Prepare {
            defaults,
            blocks: 0,
        }
    }

    /// The next item of the source, ready for the store.
    pub fn item(&mut self, item: Parsed) -> Result<Prepared, IngestError> {
        match item {
            Parsed::Warning { line, message } => Ok(Prepared::Warning { line, message }),
            Parsed::Block(block) => {
                let mut rows = block_rows(self.blocks, block, self.defaults);
                self.blocks += 1;
                rows.encoded = Some(BlockEncoded::of(&rows)?);
                Ok(Prepared::Block(rows))
            }
        }
    }
}

/// Prepared items as the blocks of one source; warnings kept aside.
struct Feed<I> {
    items: I,
    warnings: Vec<(u64, String)>,
}

impl<I: Iterator<Item = Result<Prepared, IngestError>>> Iterator for Feed<I> {
    type Item = Result<BlockRows, IngestError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            match self.items.next()? {
                Err(e) => return Some(Err(e)),
                Ok(Prepared::Warning { line, message }) => self.warnings.push((line, message)),
                Ok(Prepared::Block(rows)) => return Some(Ok(rows)),
            }
        }
    }
}

/// The rows of a parsed block: `--label` wins over the block's own label, which wins
/// over the fallback; `--tag`s are added to (and win over) each run's own tags.
fn block_rows(idx: i64, block: Block, defaults: &BlockDefaults) -> BlockRows {
    let label = defaults
        .label_override
        .as_deref()
        .or(block.label.as_deref())
        .unwrap_or(&defaults.fallback_label)
        .to_string();
    let runs = block
        .runs
        .into_iter()
        .map(|mut run| {
            run.tags
                .extend(defaults.tags.iter().map(|(k, v)| (k.clone(), v.clone())));
            if let Some(t) = &defaults.time_fallback {
                run.tags
                    .entry("time".to_string())
                    .or_insert_with(|| t.clone());
            }
            RunRows {
                suite: defaults.suite.clone(),
                label: label.clone(),
                run,
            }
        })
        .collect();
    BlockRows {
        idx,
        label: block.label,
        first_line: block.first_line,
        last_line: block.last_line,
        printed: block.printed,
        runs,
        stored: None,
        encoded: None,
    }
}
