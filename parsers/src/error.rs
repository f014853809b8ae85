//! The one error type parsers return: a line number and a message a user can act on.
//! Parsers never see paths; the caller adds the path when it reports the error.

use thiserror::Error;

/// A parse failure at a 1-based line of the input.
#[derive(Debug, Error, Clone, PartialEq)]
#[error("line {line}: {message}")]
pub struct ParseError {
    pub line: u64,
    pub message: String,
}

impl ParseError {
    pub fn new(line: u64, message: impl Into<String>) -> Self {
        ParseError {
            line,
            message: message.into(),
        }
    }

    /// An IO failure while reading at `line`.
    pub fn io(line: u64, err: &std::io::Error) -> Self {
        ParseError::new(line, format!("read error: {err}"))
    }
}
