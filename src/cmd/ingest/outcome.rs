//! What `ingest` says of each file: its outcome, and the lines of its errors.

use crate::output::escape;
use serde::Serialize;
use std::borrow::Cow;

/// What happened to one file.
#[derive(Debug, Serialize)]
pub struct FileOutcome {
    pub path: String,
    pub format: Option<String>,
    pub status: Status,
    pub runs: usize,
    pub error: Option<String>,
    /// Why a file was skipped: no format recognised, or a format detected whose parser
    /// found no result in it.
    pub reason: Option<String>,
    /// The error is the database's, not the file's (a server gone, a database that
    /// cannot be written): every later file would fail the same way, so the ingest stops.
    #[serde(skip)]
    pub fatal: bool,
    /// The content hash of a file stored now.
    #[serde(skip)]
    pub sha256: Option<String>,
    /// The paths of the sources stored before with the same bytes (the same output
    /// ingested again under other tags, or from another path): a copy, which `compare`
    /// and `gate` count once.
    pub same_bytes_as: Vec<String>,
}

impl FileOutcome {
    /// A file not yet dealt with (an error until it is).
    pub(super) fn new(path: &str) -> Self {
        FileOutcome {
            path: path.to_string(),
            format: None,
            status: Status::Error,
            runs: 0,
            error: None,
            reason: None,
            fatal: false,
            sha256: None,
            same_bytes_as: Vec::new(),
        }
    }

    pub(super) fn skipped(path: &str, reason: &str) -> Self {
        FileOutcome {
            status: Status::Skipped,
            reason: Some(reason.to_string()),
            ..FileOutcome::new(path)
        }
    }

    pub(super) fn failed(path: &str, error: String) -> Self {
        FileOutcome {
            error: Some(error),
            ..FileOutcome::new(path)
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Ingested,
    Unchanged,
    Skipped,
    Error,
}

/// The reason of a file no format claims.
pub(super) const NOT_RECOGNISED: &str = "no format recognised in its first 256 KiB";

/// A message from a parser or the store as an error line and the JSON `error` field
/// carry it: at most [`escape::MAX_MESSAGE`] characters (a 1 MB token echoed in a parse
/// error is cut), escaped only when printed.
pub(super) fn said(message: &str) -> Cow<'_, str> {
    escape::cut(message, escape::MAX_MESSAGE)
}

/// The line of a read error met on one file.
pub(super) fn read_failure(shown: &str, e: &std::io::Error) -> String {
    format!("{shown}: {}", said(&e.to_string()))
}
